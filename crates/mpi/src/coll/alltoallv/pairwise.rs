//! Pairwise-exchange alltoallv (SimGrid 3.32 `alltoallv-pair.cpp`, `alltoallv__pair`).
//! In step `i = 0..n-1` a rank exchanges with `rank XOR i`, one blocking send-receive
//! of the two blocks (empty ones included: the message is sent with no bytes); step 0
//! is the rank itself, a local copy.
//!
//! SimGrid refuses communicators whose size is not a power of two. For those sizes this
//! implementation sends to `rank + i` and receives from `rank - i` (mod n), as MPICH's
//! pairwise alltoall does (and SimGrid's `alltoallv__ring`).

use crate::coll::alltoall::block;
use crate::coll::alltoallv::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Alltoallv,
    name: "pairwise",
    source: "SimGrid 3.32 alltoallv__pair (pairwise exchange; non-powers of two: MPICH's shift order)",
    simgrid: Some("pair"),
    emit,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    let pow2 = n.is_power_of_two();
    let mut last: Vec<Step> = Vec::new();
    for i in 1..n {
        let (to, from) = if pow2 {
            (r ^ i, r ^ i)
        } else {
            ((r + i) % n, (r + n - i) % n)
        };
        let snd = e.send(to, TAG, &[block(r, to, n)], &last);
        let rcv = e.recv(from, TAG, &[block(from, r, n)], Merge::Copy, &last);
        last = vec![snd, rcv];
    }
}
