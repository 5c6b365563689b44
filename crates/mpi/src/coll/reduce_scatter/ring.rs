//! Ring reduce-scatter (Open MPI's `ompi_coll_base_reduce_scatter_intra_ring`; SimGrid
//! 3.32 `reduce_scatter-ompi.cpp`, `reduce_scatter__ompi_ring`). Block `i` is rank `i`'s
//! result. A rank posts a receive from its left neighbour, then sends block `r - 1` to
//! its right neighbour (blocking). For `k = 2..n-1` it posts the next receive, waits for
//! the previous one, folds it into block `r - k`, and sends that block to the right
//! (blocking). Finally it waits for the last receive, which it folds into its own
//! block `r`. Commutative operations only.

use crate::coll::reduce_scatter::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::ReduceScatter,
    name: "ring",
    source: "Open MPI coll/base ring reduce_scatter; SimGrid 3.32 reduce_scatter__ompi_ring",
    simgrid: Some("ompi_ring"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    if n < 2 {
        return;
    }
    let right = (r + 1) % n;
    let left = (r + n - 1) % n;
    let blk = |k: u32| (r + n - k % n) % n;
    // The message received in step k (from the left neighbour's step k) is block r-k-1.
    let mut rcv = e.recv(left, TAG, &[blk(2)], Merge::Reduce, &[]);
    let mut snd = e.send(right, TAG, &[blk(1)], &[]);
    for k in 2..n {
        let next = e.recv(left, TAG, &[blk(k + 1)], Merge::Reduce, &[snd]);
        snd = e.send(right, TAG, &[blk(k)], &[rcv, snd]);
        rcv = next;
    }
}
