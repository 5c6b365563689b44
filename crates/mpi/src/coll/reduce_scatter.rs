//! MPI_Reduce_scatter algorithms.

mod pairwise;
mod recursive_halving;
mod ring;

use crate::coll::Algorithm;

/// The reduce-scatter algorithms.
pub const ALGORITHMS: &[Algorithm] = &[recursive_halving::ALGORITHM, ring::ALGORITHM, pairwise::ALGORITHM];

/// Tag of reduce-scatter messages (Open MPI's REDUCE_SCATTER tag, without its sign).
pub(crate) const TAG: u32 = 22;
