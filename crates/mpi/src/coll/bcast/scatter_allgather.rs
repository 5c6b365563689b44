//! Scatter-allgather broadcasts (MPICH's `MPIR_Bcast_intra_scatter_ring_allgather` and
//! `..._scatter_recursive_doubling_allgather`; SimGrid 3.32 `bcast__scatter_LR_allgather`
//! and `bcast__scatter_rdb_allgather`): the message is cut into one block per rank
//! (relative to the root) and scattered down a binomial tree, each rank receiving the
//! blocks of its subtree and passing on its children's; then the blocks are gathered by
//! everyone, around a ring or by recursive doubling (with MPICH's tree fix-up on sizes that
//! are not powers of two, which MPICH's own selection never picks but SimGrid runs).

use crate::coll::allgather::mpich_rdb::mpich_rdb;
use crate::coll::bcast::TAG;
use crate::coll::{block_range, Algorithm, CollSpec, Collective, Emitter, Merge, Phases, Step};

/// Scatter then ring allgather.
pub const RING: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "scatter_ring_allgather",
    source: "MPICH bcast scatter + ring allgather; SimGrid 3.32 bcast__scatter_LR_allgather",
    simgrid: Some("scatter_LR_allgather"),
    emit: emit_ring,
    alike: None,
};

/// Scatter then recursive-doubling allgather.
pub const RDB: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "scatter_rdb_allgather",
    source: "MPICH bcast scatter + recursive-doubling allgather; SimGrid 3.32 bcast__scatter_rdb_allgather",
    simgrid: Some("scatter_rdb_allgather"),
    emit: emit_rdb,
    alike: None,
};

/// MPICH's pieces: ceil(bytes / n) each, in relative-rank order, so the last ranks may
/// get less or nothing.
fn pieces(bytes: u64, n: u32) -> Vec<u64> {
    let piece = bytes.div_ceil(n as u64);
    (0..n as u64)
        .map(|i| piece.min(bytes.saturating_sub(i * piece)))
        .collect()
}

/// The binomial scatter: relative rank `v` gets blocks `[v, v + subtree)`. As in MPICH, a
/// rank whose blocks are all empty receives nothing, and empty subtrees are sent nothing.
fn scatter(s: &CollSpec, e: &mut dyn Emitter, pieces: &[u64]) {
    let (n, v) = (s.size, s.vrank());
    let bytes = |from: u32, to: u32| pieces[from as usize..to as usize].iter().sum::<u64>();
    let mut mask = 1u32;
    let mut have: Vec<Step> = Vec::new();
    while mask < n {
        if v & mask != 0 {
            let end = (v + mask).min(n);
            if bytes(v, end) > 0 {
                have = vec![e.recv(s.real(v - mask), TAG, &block_range(v, end), Merge::Copy, &[])];
            }
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if v + mask < n {
            let end = (v + 2 * mask).min(n);
            if bytes(v + mask, end) > 0 {
                have = vec![e.send(s.real(v + mask), TAG, &block_range(v + mask, end), &have)];
            }
        }
        mask >>= 1;
    }
}

fn ring_allgather(s: &CollSpec, e: &mut dyn Emitter) {
    let (n, v) = (s.size, s.vrank());
    let (right, left) = (s.real((v + 1) % n), s.real((v + n - 1) % n));
    let mut last: Vec<Step> = Vec::new();
    for k in 0..n - 1 {
        let out = (v + n - k) % n;
        let inb = (v + 2 * n - k - 1) % n;
        let snd = e.send(right, TAG, &[out], &last);
        let rcv = e.recv(left, TAG, &[inb], Merge::Copy, &last);
        last = vec![snd, rcv];
    }
}

fn emit_ring(s: &CollSpec, e: &mut dyn Emitter) {
    let pieces = pieces(s.bytes, s.size);
    e.layout(&pieces);
    let mut p = Phases::new(e);
    scatter(s, &mut p, &pieces);
    p.next_phase();
    ring_allgather(s, &mut p);
}

fn emit_rdb(s: &CollSpec, e: &mut dyn Emitter) {
    // An empty message: nothing to do (SimGrid's bcast__scatter_rdb_allgather and MPICH
    // return; the ring variant has no such test in SimGrid).
    if s.bytes == 0 {
        return;
    }
    let n = s.size;
    let pieces = pieces(s.bytes, n);
    e.layout(&pieces);
    let mut p = Phases::new(e);
    scatter(s, &mut p, &pieces);
    p.next_phase();
    // MPICH's (and SimGrid's) recursive doubling, with its tree fix-up on sizes that are
    // not powers of two, on ranks relative to the root.
    mpich_rdb(n, s.vrank(), &|v| s.real(v), &mut p, TAG);
}
