//! Ring alltoall (SimGrid 3.32 `alltoall-ring.cpp`, `alltoall__ring`). In step
//! `i = 0..n-1` a rank sends its block for `rank + i` to that rank and receives the
//! block from `rank - i` (mod n), as one blocking send-receive per step; step 0 is the
//! rank itself, a local copy.

use crate::coll::alltoall::{block, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Alltoall,
    name: "ring",
    source: "SimGrid 3.32 alltoall__ring (shifted send-receive steps)",
    simgrid: Some("ring"),
    emit,
    alike: Some(crate::coll::alike_by_offset),
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    let mut last: Vec<Step> = Vec::new();
    for i in 1..n {
        let to = (r + i) % n;
        let from = (r + n - i) % n;
        let snd = e.send(to, TAG, &[block(r, to, n)], &last);
        let rcv = e.recv(from, TAG, &[block(from, r, n)], Merge::Copy, &last);
        last = vec![snd, rcv];
    }
}
