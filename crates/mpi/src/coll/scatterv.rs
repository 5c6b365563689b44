//! MPI_Scatterv algorithms.

use crate::coll::Algorithm;

/// The scatterv algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
