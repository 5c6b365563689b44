//! SimGrid's "bruck" alltoallv (SimGrid 3.32 `alltoallv-bruck.cpp`, `alltoallv__bruck`),
//! which despite its name is a throttled linear exchange (the scheme MPICH uses for its
//! scattered alltoall, with a batch of 4). For each batch `ii = 0, 4, 8, …` a rank posts
//! receives from `rank + ii + i` and then sends to `rank - ii - i` (mod n) for
//! `i = 0..min(4, n - ii)`, skipping itself, and waits for all of them before the next
//! batch. Empty blocks are still sent.

use crate::coll::alltoall::block;
use crate::coll::alltoallv::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Alltoallv,
    name: "bruck",
    source: "SimGrid 3.32 alltoallv__bruck (batches of 4 non-blocking exchanges)",
    simgrid: Some("bruck"),
    emit,
    alike: None,
};

/// Requests posted per batch (SimGrid's hard-coded stand-in for MPICH's throttle).
const BATCH: u32 = 4;

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    if n < 2 {
        return;
    }
    let mut prev: Vec<Step> = Vec::new();
    let mut ii = 0;
    while ii < n {
        let ss = BATCH.min(n - ii);
        let mut batch = Vec::new();
        for i in 0..ss {
            let from = (r + i + ii) % n;
            if from != r {
                batch.push(e.recv(from, TAG, &[block(from, r, n)], Merge::Copy, &prev));
            }
        }
        for i in 0..ss {
            let to = (r + 2 * n - i - ii) % n;
            if to != r {
                batch.push(e.send(to, TAG, &[block(r, to, n)], &prev));
            }
        }
        prev = batch;
        ii += BATCH;
    }
}
