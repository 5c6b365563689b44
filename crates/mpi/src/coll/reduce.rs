//! MPI_Reduce algorithms.

use crate::coll::Algorithm;

/// The reduce algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
