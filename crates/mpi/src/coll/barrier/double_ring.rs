//! Double-ring barrier (Open MPI's `ompi_coll_base_barrier_intra_doublering`; SimGrid
//! 3.32 `barrier-ompi.cpp`, `barrier__ompi_doublering`). A zero-byte token goes twice
//! around the ring `0 → 1 → … → n-1 → 0`: in each pass rank 0 sends to its right and then
//! receives from its left, and every other rank receives from its left and then sends to
//! its right, all blocking. (Open MPI makes the second pass's sends synchronous;
//! SimGrid's port uses plain sends.) On one rank the token goes to the rank itself.

use crate::coll::barrier::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Barrier,
    name: "double_ring",
    source: "Open MPI coll/base double ring barrier; SimGrid 3.32 barrier__ompi_doublering",
    simgrid: Some("ompi_doublering"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    let left = (r + n - 1) % n;
    let right = (r + 1) % n;
    let mut last: Vec<Step> = Vec::new();
    for _pass in 0..2 {
        if r > 0 {
            last = vec![e.recv_sync(left, TAG, 0, &last)];
        }
        last = vec![e.send_sync(right, TAG, 0, &last)];
        if r == 0 {
            last = vec![e.recv_sync(left, TAG, 0, &last)];
        }
    }
}
