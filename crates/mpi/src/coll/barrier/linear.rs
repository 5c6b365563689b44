//! Linear barrier (Open MPI's `ompi_coll_base_barrier_intra_basic_linear`; SimGrid 3.32
//! `barrier-ompi.cpp`, `barrier__ompi_basic_linear`). Every rank but 0 sends a zero-byte
//! message to rank 0 and then receives one from it (both blocking). Rank 0 posts
//! receives from ranks `1..n` at once, waits for all, then starts zero-byte sends to
//! ranks `1..n` at once and waits for all.

use crate::coll::barrier::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Barrier,
    name: "linear",
    source: "Open MPI coll/base basic linear barrier; SimGrid 3.32 barrier__ompi_basic_linear",
    simgrid: Some("ompi_basic_linear"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    if s.me > 0 {
        let snd = e.send_sync(0, TAG, 0, &[]);
        e.recv_sync(0, TAG, 0, &[snd]);
        return;
    }
    let arrived: Vec<Step> = (1..n).map(|i| e.recv_sync(i, TAG, 0, &[])).collect();
    for i in 1..n {
        e.send_sync(i, TAG, 0, &arrived);
    }
}
