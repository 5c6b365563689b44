//! MPI_Alltoall algorithms.

mod bruck;
mod linear;
mod linear_sync;
pub(crate) mod pairwise;
mod ring;

use crate::coll::Algorithm;

/// The alltoall algorithms.
pub const ALGORITHMS: &[Algorithm] = &[
    pairwise::ALGORITHM,
    bruck::ALGORITHM,
    linear::ALGORITHM,
    linear_sync::ALGORITHM,
    ring::ALGORITHM,
];

/// Tag of alltoall messages (Open MPI's ALLTOALL tag, without its sign).
pub(crate) const TAG: u32 = 13;

/// The block that rank `s` sends to rank `d` among `n` ranks.
pub(crate) fn block(s: u32, d: u32, n: u32) -> u32 {
    // Block numbers only name data for the symbolic verifier, which runs far below
    // 2^16 ranks; past that they wrap (as release builds always did), without effect
    // on times.
    s.wrapping_mul(n).wrapping_add(d)
}
