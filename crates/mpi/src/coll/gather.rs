//! MPI_Gather algorithms.

use crate::coll::Algorithm;

/// The gather algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
