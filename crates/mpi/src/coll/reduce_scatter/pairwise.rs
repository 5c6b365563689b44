//! Pairwise-exchange reduce-scatter (MPICH's `MPIR_Reduce_scatter_intra_pairwise`;
//! SimGrid 3.32 `reduce_scatter-mpich.cpp`, `reduce_scatter__mpich_pair`). For
//! `i = 1..n-1` a rank sends its own contribution to block `rank + i` to that rank and
//! receives rank `rank - i`'s contribution to its own block (mod n), one blocking
//! send-receive per step, folding each into its result. If the whole vector is empty
//! SimGrid's port returns at once without any message.

use crate::coll::reduce_scatter::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::ReduceScatter,
    name: "pairwise",
    source: "MPICH pairwise reduce_scatter; SimGrid 3.32 reduce_scatter__mpich_pair",
    simgrid: Some("mpich_pair"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    if s.counts.iter().sum::<u64>() == 0 {
        return;
    }
    let mut last: Vec<Step> = Vec::new();
    for i in 1..n {
        let to = (r + i) % n;
        let from = (r + n - i) % n;
        let snd = e.send(to, TAG, &[to], &last);
        let rcv = e.recv(from, TAG, &[r], Merge::Reduce, &last);
        last = vec![snd, rcv];
    }
}
