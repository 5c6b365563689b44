//! MPI_Scatterv algorithms.

mod linear;

use crate::coll::Algorithm;

/// The scatterv algorithms.
pub const ALGORITHMS: &[Algorithm] = &[linear::ALGORITHM];

/// Tag of scatterv messages (Open MPI's SCATTERV tag, without its sign).
pub(crate) const TAG: u32 = 26;
