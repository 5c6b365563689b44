//! Recursive-doubling allgather (Open MPI's `ompi_coll_base_allgather_intra_recursivedoubling`,
//! MPICH's and SimGrid 3.32's `allgather__rdb` on powers of two): in round `k`, each rank
//! exchanges all the blocks it has — an aligned group of `2^k` — with `rank XOR 2^k`. On
//! other sizes it runs Bruck's algorithm, as Open MPI does (MPICH's, and SimGrid's, is
//! `mpich_rdb`).

use crate::coll::allgather::{bruck::bruck, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allgather,
    name: "rdb",
    source:
        "Open MPI coll/base allgather recursivedoubling (Bruck on non-powers of two; SimGrid's rdb on powers of two)",
    simgrid: None,
    emit,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    rdb(s, e, TAG);
}

/// Recursive doubling on blocks of any sizes, with `tag`.
pub(crate) fn rdb(s: &CollSpec, e: &mut dyn Emitter, tag: u32) {
    let (n, r) = (s.size, s.me);
    if !n.is_power_of_two() {
        return bruck(s, e, tag);
    }
    let mut mask = 1u32;
    let mut last: Vec<Step> = Vec::new();
    while mask < n {
        let partner = r ^ mask;
        let mine = r & !(mask - 1);
        let theirs = partner & !(mask - 1);
        let snd = e.send(partner, tag, &(mine..mine + mask).collect::<Vec<_>>(), &last);
        let rcv = e.recv(
            partner,
            tag,
            &(theirs..theirs + mask).collect::<Vec<_>>(),
            Merge::Copy,
            &last,
        );
        last = vec![snd, rcv];
        mask <<= 1;
    }
}
