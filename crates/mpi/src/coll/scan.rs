//! MPI_Scan and MPI_Exscan algorithms.

use crate::coll::Algorithm;

/// The scan algorithms.
pub const ALGORITHMS: &[Algorithm] = &[];

/// The exscan algorithms.
pub const EXSCAN_ALGORITHMS: &[Algorithm] = &[];
