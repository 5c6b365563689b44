//! MPI_Alltoallv algorithms.

mod bruck;
mod linear;
mod pairwise;

use crate::coll::Algorithm;

/// The alltoallv algorithms.
pub const ALGORITHMS: &[Algorithm] = &[pairwise::ALGORITHM, bruck::ALGORITHM, linear::ALGORITHM];

/// Tag of alltoallv messages (Open MPI's ALLTOALLV tag, without its sign).
pub(crate) const TAG: u32 = 14;
