//! MPI_Allreduce algorithms.

mod lr;
mod rabenseifner;
mod rdb;
mod redbcast;
mod ring;

use crate::coll::Algorithm;

/// The allreduce algorithms.
pub const ALGORITHMS: &[Algorithm] = &[
    rdb::ALGORITHM,
    ring::ALGORITHM,
    ring::SEGMENTED,
    rabenseifner::ALGORITHM,
    redbcast::ALGORITHM,
    lr::ALGORITHM,
];

/// Tag of allreduce messages.
pub(crate) const TAG: u32 = 2;
