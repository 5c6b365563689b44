//! Dissemination (Bruck) barrier (Open MPI's `ompi_coll_base_barrier_intra_bruck`;
//! SimGrid 3.32 `barrier__ompi_bruck`): in round `k`, send a zero-byte message to
//! `rank + 2^k` and receive one from `rank - 2^k` (mod n), as a send-receive.

use crate::coll::barrier::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Barrier,
    name: "bruck",
    source: "Open MPI coll/base bruck (dissemination) barrier; SimGrid 3.32 barrier__ompi_bruck",
    simgrid: Some("ompi_bruck"),
    emit,
    alike: Some(crate::coll::alike_by_offset),
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    let mut last: Vec<Step> = Vec::new();
    let mut dist = 1u32;
    while dist < n {
        let to = (r + dist) % n;
        let from = (r + n - dist) % n;
        let snd = e.send_sync(to, TAG, 0, &last);
        let rcv = e.recv_sync(from, TAG, 0, &last);
        last = vec![snd, rcv];
        dist <<= 1;
    }
}
