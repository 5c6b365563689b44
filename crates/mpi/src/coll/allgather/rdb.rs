//! Recursive-doubling allgather (Open MPI's `ompi_coll_base_allgather_intra_recursivedoubling`,
//! MPICH's and SimGrid 3.32's `allgather__rdb` on powers of two): in round `k`, each rank
//! exchanges all the blocks it has — an aligned group of `2^k` — with `rank XOR 2^k`. On
//! other sizes it runs Bruck's algorithm, as Open MPI does (MPICH's, and SimGrid's, is
//! `mpich_rdb`).

use crate::coll::allgather::{bruck::bruck, mpich_rdb::mpich_rdb, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allgather,
    name: "rdb",
    source:
        "Open MPI coll/base allgather recursivedoubling (Bruck on non-powers of two; SimGrid's rdb on powers of two)",
    simgrid: None,
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    rdb(s, e, TAG);
}

/// Recursive doubling on blocks of any sizes, with `tag`: on powers of two the exchange
/// MPICH's version makes (its fix-up never runs there), else Bruck's algorithm.
pub(crate) fn rdb(s: &CollSpec, e: &mut dyn Emitter, tag: u32) {
    if !s.size.is_power_of_two() {
        return bruck(s, e, tag);
    }
    mpich_rdb(s.size, s.me, &|v| v, e, tag);
}
