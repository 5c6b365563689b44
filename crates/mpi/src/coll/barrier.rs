//! MPI_Barrier algorithms.

mod dissemination;
mod double_ring;
mod linear;
mod recursive_doubling;
mod tree;

use crate::coll::Algorithm;

/// The barrier algorithms.
pub const ALGORITHMS: &[Algorithm] = &[
    dissemination::ALGORITHM,
    recursive_doubling::ALGORITHM,
    double_ring::ALGORITHM,
    linear::ALGORITHM,
    tree::ALGORITHM,
];

/// Tag of barrier messages.
pub(crate) const TAG: u32 = 3;
