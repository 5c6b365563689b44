//! Bruck alltoall (SimGrid 3.32 `alltoall-bruck.cpp`, `alltoall__bruck`; the same
//! pattern as Open MPI's modified Bruck and MPICH's brucks). After a local rotation
//! that puts the block for `rank + i` at position `i`, for `k = 1, 2, 4, … < n` a rank
//! packs the positions `i` in `1..n` that have bit `k` set and exchanges them, one
//! blocking send-receive per round, sending to `rank + k` and receiving from `rank - k`
//! into the same positions; a final local rotation puts the blocks in place.
//!
//! After the rounds for the bits below `k`, position `i` of rank `r` holds the block that
//! rank `r - (i mod k)` sends to rank `r - (i mod k) + i`.

use crate::coll::alltoall::{block, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Alltoall,
    name: "bruck",
    source: "Bruck et al. index algorithm; SimGrid 3.32 alltoall__bruck",
    simgrid: Some("bruck"),
    emit,
    alike: Some(crate::coll::alike_by_offset),
};

/// The blocks rank `r` holds at the positions with bit `k` set, before round `k`.
fn round_blocks(r: u32, k: u32, n: u32) -> Vec<u32> {
    (1..n)
        .filter(|i| i & k != 0)
        .map(|i| {
            let src = (r + n - (i & (k - 1))) % n;
            block(src, (src + i) % n, n)
        })
        .collect()
}

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    let mut last: Vec<Step> = Vec::new();
    let mut k = 1u32;
    while k < n {
        let to = (r + k) % n;
        let from = (r + n - k) % n;
        let snd = e.send(to, TAG, &round_blocks(r, k, n), &last);
        let rcv = e.recv(from, TAG, &round_blocks(from, k, n), Merge::Copy, &last);
        last = vec![snd, rcv];
        k <<= 1;
    }
}
