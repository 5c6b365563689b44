//! MPI_Gatherv algorithms.

mod linear;

use crate::coll::Algorithm;

/// The gatherv algorithms.
pub const ALGORITHMS: &[Algorithm] = &[linear::ALGORITHM];

/// Tag of gatherv messages (Open MPI's GATHERV tag, without its sign).
pub(crate) const TAG: u32 = 20;
