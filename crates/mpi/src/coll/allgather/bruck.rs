//! Bruck's allgather (Open MPI's `ompi_coll_base_allgather_intra_bruck`; SimGrid 3.32
//! `allgather__bruck`): in round `k`, each rank sends the blocks it has — its own and the
//! next ones, up to `2^k` of them, or what is still missing — to `rank - 2^k` and receives
//! as many from `rank + 2^k` (mod n), as a send-receive.

use crate::coll::allgather::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allgather,
    name: "bruck",
    source: "Open MPI coll/base allgather bruck; SimGrid 3.32 allgather__bruck",
    simgrid: Some("bruck"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    bruck(s, e, TAG);
}

/// Bruck's exchange on blocks of any sizes, with `tag`.
pub(crate) fn bruck(s: &CollSpec, e: &mut dyn Emitter, tag: u32) {
    let (n, r) = (s.size, s.me);
    let mut have = 1u32;
    let mut last: Vec<Step> = Vec::new();
    let mut dist = 1u32;
    while dist < n {
        let cnt = dist.min(n - have);
        let to = (r + n - dist) % n;
        let from = (r + dist) % n;
        let out: Vec<u32> = (0..cnt).map(|i| (r + i) % n).collect();
        let inb: Vec<u32> = (0..cnt).map(|i| (r + have + i) % n).collect();
        let snd = e.send(to, tag, &out, &last);
        let rcv = e.recv(from, tag, &inb, Merge::Copy, &last);
        last = vec![snd, rcv];
        have += cnt;
        dist <<= 1;
    }
}
