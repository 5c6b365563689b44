//! Pairwise-exchange alltoallv (SimGrid 3.32 `alltoallv-pair.cpp`, `alltoallv__pair`).
//! In step `i = 0..n-1` a rank exchanges with `rank XOR i`, one blocking send-receive
//! of the two blocks (empty ones included: the message is sent with no bytes); step 0
//! is the rank itself, a local copy.
//!
//! SimGrid refuses communicators whose size is not a power of two. For those sizes this
//! implementation sends to `rank + i` and receives from `rank - i` (mod n), as MPICH's
//! pairwise alltoall does (and SimGrid's `alltoallv__ring`).

use crate::coll::alltoallv::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Alltoallv,
    name: "pairwise",
    source: "SimGrid 3.32 alltoallv__pair (pairwise exchange; non-powers of two: MPICH's shift order)",
    simgrid: Some("pair"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    crate::coll::alltoall::pairwise::exchange(s, e, TAG);
}
