//! MPI_Allreduce algorithms.

mod rdb;

use crate::coll::Algorithm;

/// The allreduce algorithms.
pub const ALGORITHMS: &[Algorithm] = &[rdb::ALGORITHM];

/// Tag of allreduce messages.
pub(crate) const TAG: u32 = 2;
