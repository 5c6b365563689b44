//! Pairwise-exchange alltoall (SimGrid 3.32 `alltoall-pair.cpp`, `alltoall__pair`, after
//! MPICH's pairwise algorithm). In step `i = 0..n-1` a rank exchanges with
//! `partner = rank XOR i`: one blocking send-receive of one block each way, each step
//! after the previous one; step 0 is the rank itself, a local copy.
//!
//! SimGrid refuses communicators whose size is not a power of two. For those sizes this
//! implementation uses MPICH's rule for the same algorithm (`alltoall_intra_pairwise.c`):
//! step `i` sends to `rank + i` and receives from `rank - i` (mod n), which is the
//! pattern of SimGrid's `alltoall__ring`.

use crate::coll::alltoall::{block, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Alltoall,
    name: "pairwise",
    source: "MPICH pairwise exchange; SimGrid 3.32 alltoall__pair (non-powers of two: MPICH's shift order)",
    simgrid: Some("pair"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    exchange(s, e, TAG);
}

/// The pairwise exchange with `tag`, for the alltoall and the alltoallv (the blocks'
/// sizes come from the layout).
pub(crate) fn exchange(s: &CollSpec, e: &mut dyn Emitter, tag: u32) {
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
        // MPI_Sendrecv: both posted together; the next step waits for both.
        let snd = e.send(to, tag, &[block(r, to, n)], &last);
        let rcv = e.recv(from, tag, &[block(from, r, n)], Merge::Copy, &last);
        last = vec![snd, rcv];
    }
}
