//! Ring allreduce (Open MPI's `ompi_coll_base_allreduce_intra_ring`): the vector is cut
//! into one block per rank. In `n - 1` steps each rank sends a block to its right
//! neighbour while receiving another from its left and combining it (the block it
//! forwards next); then `n - 1` more steps pass the finished blocks around the ring.
//!
//! The segmented variant is SimGrid 3.32's `allreduce__ompi_ring_segmented` (Open MPI's
//! `ring_segmented` as SimGrid runs it): blocks are cut into phases of about 1 MiB; each
//! phase is a reduce-scatter ring of blocking sends with the next receive posted ahead;
//! then whole blocks go round. Vectors with less than one 1 MiB segment per rank use
//! SimGrid's logical ring (`lr`).

use crate::coll::allreduce::TAG;
use crate::coll::{computed_segcount, split_even, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "ring",
    source: "Open MPI coll/base allreduce ring",
    simgrid: None,
    emit,
    alike: None,
};

/// The segmented ring.
pub const SEGMENTED: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "segmented_ring",
    source: "SimGrid 3.32 allreduce__ompi_ring_segmented (Open MPI's ring_segmented, 1 MiB segments; lr below one segment per rank)",
    simgrid: Some("ompi_ring_segmented"),
    emit: emit_segmented,
    alike: None,
};

/// Segment size of the segmented ring.
const SEGMENT: u64 = 1 << 20;

fn emit_segmented(s: &CollSpec, e: &mut dyn Emitter) {
    let (n, r) = (s.size, s.me);
    let t = s.elem.max(1);
    let count = s.bytes / t;
    let segcount = computed_segcount(SEGMENT, t, count);
    if n == 1 {
        e.layout(&[s.bytes]);
        return;
    }
    let nn = n as u64;
    // An empty vector (less than one element) has no segment to cut: the logical ring too.
    if count < nn * segcount || count == 0 {
        return super::lr::emit(s, e);
    }
    let mut phases = count / (nn * segcount);
    let rest = count % (nn * segcount);
    if rest >= nn && rest > nn * segcount / 2 {
        phases += 1;
    }
    // Early blocks are one element longer than late ones; the same split cuts blocks
    // into phases.
    let split = |total: u64, parts: u64, i: u64| total / parts + u64::from(i < total % parts);
    let block = |b: u32| split(count, nn, b as u64);
    let seg = |b: u32, ph: u64| split(block(b), phases, ph);
    let mut sizes: Vec<u64> = (0..n)
        .flat_map(|b| (0..phases).map(move |ph| (b, ph)))
        .map(|(b, ph)| seg(b, ph) * t)
        .collect();
    *sizes.last_mut().unwrap() += s.bytes - count * t;
    e.layout(&sizes);
    let id = |b: u32, ph: u64| b * phases as u32 + ph as u32;
    let (right, left) = ((r + 1) % n, (r + n - 1) % n);
    // What the next call waits for (blocking sends, waits).
    let mut cursor: Vec<Step> = Vec::new();
    for ph in 0..phases {
        let mut pending = e.recv(left, TAG, &[id((r + n - 1) % n, ph)], Merge::Reduce, &cursor);
        cursor = vec![e.send(right, TAG, &[id(r, ph)], &cursor)];
        for k in 2..n {
            let next = e.recv(left, TAG, &[id((r + n - k) % n, ph)], Merge::Reduce, &cursor);
            cursor.push(pending);
            let prev = (r + n - k + 1) % n;
            cursor = vec![e.send(right, TAG, &[id(prev, ph)], &cursor)];
            pending = next;
        }
        cursor.push(pending);
    }
    // Distribution: rank r finished block r + 1.
    for k in 0..n - 1 {
        let out = (r + 1 + n - k) % n;
        let inb = (r + n - k) % n;
        let outs: Vec<u32> = (0..phases).map(|ph| id(out, ph)).collect();
        let ins: Vec<u32> = (0..phases).map(|ph| id(inb, ph)).collect();
        let snd = e.send(right, TAG, &outs, &cursor);
        let rcv = e.recv(left, TAG, &ins, Merge::Copy, &cursor);
        cursor = vec![snd, rcv];
    }
}

/// The ring: one block per rank, `n - 1` reduce-scatter steps, then `n - 1` steps that
/// pass the finished blocks on.
fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let (n, r) = (s.size, s.me);
    e.layout(&split_even(s.bytes, n));
    if n == 1 {
        return;
    }
    let (right, left) = ((r + 1) % n, (r + n - 1) % n);
    let mut last: Vec<Step> = Vec::new();
    for k in 0..n - 1 {
        let out = (r + n - k) % n;
        let inb = (r + 2 * n - k - 1) % n;
        let snd = e.send(right, TAG, &[out], &last);
        let rcv = e.recv(left, TAG, &[inb], Merge::Reduce, &last);
        // The next send forwards what was just received and combined.
        last = vec![rcv, snd];
    }
    // Rank r finished block r + 1.
    for k in 0..n - 1 {
        let out = (r + 1 + n - k) % n;
        let inb = (r + n - k) % n;
        let snd = e.send(right, TAG, &[out], &last);
        let rcv = e.recv(left, TAG, &[inb], Merge::Copy, &last);
        last = vec![rcv, snd];
    }
}
