//! MPI_Scan and MPI_Exscan algorithms.

mod exscan_linear;
mod linear;

use crate::coll::Algorithm;

/// The scan algorithms.
pub const ALGORITHMS: &[Algorithm] = &[linear::ALGORITHM];

/// The exscan algorithms.
pub const EXSCAN_ALGORITHMS: &[Algorithm] = &[exscan_linear::ALGORITHM];

/// Tag of scan and exscan messages (SimGrid's fixed system tag, -888, without its sign).
pub(crate) const TAG: u32 = 888;
