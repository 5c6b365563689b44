//! MPI_Scatter algorithms.

use crate::coll::Algorithm;

/// The scatter algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
