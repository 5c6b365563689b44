//! MPI_Gatherv algorithms.

use crate::coll::Algorithm;

/// The gatherv algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
