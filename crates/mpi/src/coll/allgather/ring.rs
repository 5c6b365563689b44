//! Ring allgather (Open MPI's `ompi_coll_base_allgather_intra_ring`, MPICH's ring; SimGrid
//! 3.32 `allgather__NTSLR`, its "non-topology-specific logical ring"): in `n - 1` steps,
//! each rank sends to its right neighbour the block it received in the previous step (its
//! own first) while receiving the next one from its left neighbour. (SimGrid's
//! `allgather__ring` is another pattern: `shifted`.)

use crate::coll::allgather::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allgather,
    name: "ring",
    source: "Open MPI coll/base allgather ring; SimGrid 3.32 allgather__NTSLR",
    simgrid: Some("NTSLR"),
    emit,
    alike: None,
};

pub(crate) fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    ring(s, e, TAG);
}

/// The ring on blocks of any sizes, with `tag`.
pub(crate) fn ring(s: &CollSpec, e: &mut dyn Emitter, tag: u32) {
    let (n, r) = (s.size, s.me);
    let (right, left) = ((r + 1) % n, (r + n - 1) % n);
    let mut last: Vec<Step> = Vec::new();
    for k in 0..n.saturating_sub(1) {
        let out = (r + n - k) % n;
        let inb = (r + 2 * n - k - 1) % n;
        let snd = e.send(right, tag, &[out], &last);
        let rcv = e.recv(left, tag, &[inb], Merge::Copy, &last);
        last = vec![snd, rcv];
    }
}
