//! MPI_Reduce_scatter algorithms.

use crate::coll::Algorithm;

/// The reduce scatter algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];
