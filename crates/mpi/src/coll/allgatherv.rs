//! MPI_Allgatherv algorithms.

use crate::coll::Algorithm;

/// The allgatherv algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
