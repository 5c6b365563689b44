//! Shifted-exchange allgather (SimGrid 3.32 `allgather__ring` and `allgatherv__ring`, from
//! Faraj and Yuan's generated routines): in step `i` (1 to n-1) each rank sends its own
//! block to `rank + i` and receives the block of `rank - i` from that rank, one blocking
//! send-receive per step. Despite SimGrid's name it is not the ring that passes blocks to
//! the right neighbour (`ring`, SimGrid's `NTSLR`): with every rank in step the two take
//! the same time, but a rank that starts late holds up different partners.

use crate::coll::allgather::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allgather,
    name: "shifted",
    source: "SimGrid 3.32 allgather__ring (Faraj and Yuan: own block to rank+i, from rank-i)",
    simgrid: Some("ring"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    shifted(s, e, TAG);
}

/// The shifted exchange on blocks of any sizes, with `tag`.
pub(crate) fn shifted(s: &CollSpec, e: &mut dyn Emitter, tag: u32) {
    let (n, r) = (s.size, s.me);
    let mut last: Vec<Step> = Vec::new();
    for i in 1..n {
        let (to, from) = ((r + i) % n, (r + n - i) % n);
        let snd = e.send(to, tag, &[r], &last);
        let rcv = e.recv(from, tag, &[from], Merge::Copy, &last);
        last = vec![snd, rcv];
    }
}
