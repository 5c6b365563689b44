//! MPI_Allgather algorithms.

use crate::coll::Algorithm;

/// The allgather algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
