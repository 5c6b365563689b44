//! MPI_Barrier algorithms.

mod dissemination;

use crate::coll::Algorithm;

/// The barrier algorithms.
pub const ALGORITHMS: &[Algorithm] = &[dissemination::ALGORITHM];

/// Tag of barrier messages.
pub(crate) const TAG: u32 = 3;
