//! MPI_Allgather algorithms. The same message patterns serve MPI_Allgatherv (blocks of
//! different sizes), registered in `allgatherv.rs`.

pub(crate) mod bruck;
pub(crate) mod mpich_rdb;
pub(crate) mod neighbor_exchange;
mod pair;
pub(crate) mod rdb;
pub(crate) mod ring;
pub(crate) mod shifted;

use crate::coll::Algorithm;

/// The allgather algorithms.
pub const ALGORITHMS: &[Algorithm] = &[
    ring::ALGORITHM,
    rdb::ALGORITHM,
    bruck::ALGORITHM,
    neighbor_exchange::ALGORITHM,
    pair::ALGORITHM,
    shifted::ALGORITHM,
    mpich_rdb::ALGORITHM,
];

/// Tag of allgather messages (Open MPI's ALLGATHER tag, without its sign).
pub(crate) const TAG: u32 = 15;
