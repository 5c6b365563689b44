//! MPI_Alltoall algorithms.

use crate::coll::Algorithm;

/// The alltoall algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
