//! Recursive-halving reduce-scatter (Open MPI's
//! `ompi_coll_base_reduce_scatter_intra_basic_recursivehalving`; SimGrid 3.32
//! `reduce_scatter-ompi.cpp`, `reduce_scatter__ompi_basic_recursivehalving`).
//!
//! With `p'` the largest power of two not above `n` and `rem = n - p'`, the first
//! `2·rem` ranks fold pairwise: even ranks send their whole vector to `rank + 1` (blocking)
//! and wait for the end, odd ranks receive and fold it in and take new rank `rank / 2`;
//! the others take `rank - rem`. New block `i` is original blocks `2i, 2i+1` when
//! `i < rem`, block `i + rem` otherwise. Then, for `mask = p'/2, p'/4, …, 1`, a rank
//! exchanges with new rank `newrank XOR mask` the half of its remaining block range that
//! belongs to the partner's side (the lower rank keeps the lower half): a receive
//! posted, a blocking send, a wait, then the fold. Finally each odd rank below `2·rem`
//! sends its even neighbour that neighbour's block. Commutative operations only.
//!
//! Open MPI skips a transfer of zero bytes, and SimGrid's port skips both directions of
//! an exchange when either is empty (which loses data); this version sends every
//! transfer, empty ones included, so that zero-sized blocks still reach their owner
//! (the data check requires it). The two agree whenever no block range is empty. Like
//! both, it does nothing at all when the whole vector is empty.

use crate::coll::reduce_scatter::TAG;
use crate::coll::{pow2_floor, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::ReduceScatter,
    name: "recursive_halving",
    source: "Open MPI coll/base basic recursive halving; SimGrid 3.32 reduce_scatter__ompi_basic_recursivehalving",
    simgrid: Some("ompi_basic_recursivehalving"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    // Nothing to do for one rank or an empty vector (both return at once).
    if n < 2 || s.counts.iter().sum::<u64>() == 0 {
        return;
    }
    let all: Vec<u32> = (0..n).collect();
    let pof2 = pow2_floor(n);
    let rem = n - pof2;
    let mut last: Vec<Step> = Vec::new();
    let newrank = if r < 2 * rem {
        if r.is_multiple_of(2) {
            let snd = e.send(r + 1, TAG, &all, &[]);
            e.recv(r + 1, TAG, &[r], Merge::Copy, &[snd]);
            return;
        }
        last = vec![e.recv(r - 1, TAG, &all, Merge::Reduce, &[])];
        r / 2
    } else {
        r - rem
    };
    // Original blocks of new blocks lo..hi.
    let blocks = |lo: u32, hi: u32| -> Vec<u32> {
        (lo..hi)
            .flat_map(|i| if i < rem { vec![2 * i, 2 * i + 1] } else { vec![i + rem] })
            .collect()
    };
    let real = |nr: u32| if nr < rem { nr * 2 + 1 } else { nr + rem };
    let (mut send_index, mut recv_index, mut last_index) = (0u32, 0u32, pof2);
    let mut mask = pof2 >> 1;
    while mask > 0 {
        let peer_nr = newrank ^ mask;
        let peer = real(peer_nr);
        let (send, recv) = if newrank < peer_nr {
            send_index = recv_index + mask;
            (blocks(send_index, last_index), blocks(recv_index, send_index))
        } else {
            recv_index = send_index + mask;
            (blocks(send_index, recv_index), blocks(recv_index, last_index))
        };
        let rcv = e.recv(peer, TAG, &recv, Merge::Reduce, &last);
        let snd = e.send(peer, TAG, &send, &last);
        last = vec![rcv, snd];
        send_index = recv_index;
        last_index = recv_index + mask;
        mask >>= 1;
    }
    if r < 2 * rem {
        e.send(r - 1, TAG, &[r - 1], &last);
    }
}
