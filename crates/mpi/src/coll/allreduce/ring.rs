//! Ring allreduce (Open MPI's `ompi_coll_base_allreduce_intra_ring`; SimGrid 3.32
//! `allreduce__ompi_ring_segmented` with one segment, `allreduce__lr` in spirit): the
//! vector is cut into one block per rank. In `n - 1` steps each rank sends a block to its
//! right neighbour while receiving another from its left and combining it (the block it
//! forwards next); then `n - 1` more steps pass the finished blocks around the ring.
//! The segmented variant (`ompi_coll_base_allreduce_intra_ring_segmented`) runs the
//! reduce-scatter phase once per 1 MiB segment of each block, then the allgather phase on
//! whole blocks.

use crate::coll::allreduce::TAG;
use crate::coll::{segments, split_even, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "ring",
    source: "Open MPI coll/base allreduce ring",
    simgrid: None,
    emit,
};

/// The segmented ring.
pub const SEGMENTED: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "segmented_ring",
    source: "Open MPI coll/base allreduce ring_segmented (1 MiB segments); SimGrid 3.32 allreduce__ompi_ring_segmented",
    simgrid: Some("ompi_ring_segmented"),
    emit: emit_segmented,
};

/// Segment size of the segmented ring.
const SEGMENT: u64 = 1 << 20;

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    ring(s, e, 1);
}

fn emit_segmented(s: &CollSpec, e: &mut dyn Emitter) {
    let per_block = split_even(s.bytes, s.size).first().copied().unwrap_or(0);
    let nseg = segments(per_block, SEGMENT).len() as u32;
    ring(s, e, nseg);
}

/// The ring with each rank's block cut into `nseg` segments; block `b`'s segment `j` is
/// block id `b * nseg + j`.
fn ring(s: &CollSpec, e: &mut dyn Emitter, nseg: u32) {
    let (n, r) = (s.size, s.me);
    let mut sizes = Vec::new();
    for b in split_even(s.bytes, n) {
        sizes.extend(split_even(b, nseg));
    }
    e.layout(&sizes);
    if n == 1 {
        return;
    }
    let (right, left) = ((r + 1) % n, (r + n - 1) % n);
    let id = |b: u32, j: u32| b * nseg + j;
    let mut last: Vec<Step> = Vec::new();
    // Reduce-scatter, one pass per segment.
    for j in 0..nseg {
        for k in 0..n - 1 {
            let out = (r + n - k) % n;
            let inb = (r + 2 * n - k - 1) % n;
            let snd = e.send(right, TAG, &[id(out, j)], &last);
            let rcv = e.recv(left, TAG, &[id(inb, j)], Merge::Reduce, &last);
            // The next send forwards what was just received and combined.
            last = vec![rcv, snd];
        }
    }
    // Allgather of whole blocks: rank r finished block r + 1.
    for k in 0..n - 1 {
        let out = (r + 1 + n - k) % n;
        let inb = (r + n - k) % n;
        let outs: Vec<u32> = (0..nseg).map(|j| id(out, j)).collect();
        let ins: Vec<u32> = (0..nseg).map(|j| id(inb, j)).collect();
        let snd = e.send(right, TAG, &outs, &last);
        let rcv = e.recv(left, TAG, &ins, Merge::Copy, &last);
        last = vec![rcv, snd];
    }
}
