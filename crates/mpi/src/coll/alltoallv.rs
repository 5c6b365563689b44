//! MPI_Alltoallv algorithms.

use crate::coll::Algorithm;

/// The alltoallv algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
