//! Rabenseifner's reduction (MPICH's `MPIR_Reduce_intra_reduce_scatter_gather`; SimGrid
//! 3.32 `reduce__scatter_gather` and `reduce__mpich`'s large-message path; not SimGrid's
//! `reduce__rab`, Rabenseifner's own code, whose messages differ): with `2^k` the largest
//! power of two not above `n` and `rem = n - 2^k`, the first `2·rem` ranks fold pairwise
//! (odd ranks send their vector to the even neighbour and drop out, the other way round
//! from the allreduce's fold). The `2^k` remaining ranks reduce-scatter the vector by
//! recursive halving and gather the pieces to the root along the reverse butterfly; a
//! root that dropped out takes rank 0's place. `scatter_gather` is MPICH's name for it.

use crate::coll::reduce::TAG;
use crate::coll::{block_range, pow2_floor, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "rabenseifner",
    source: "MPICH reduce_scatter_gather (Rabenseifner); SimGrid 3.32 reduce__scatter_gather (not its reduce__rab, another implementation)",
    simgrid: Some("scatter_gather"),
    emit,
    alike: None,
};

/// MPICH's name for the same algorithm.
pub const SCATTER_GATHER: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "scatter_gather",
    source: "MPICH MPIR_Reduce_intra_reduce_scatter_gather (Rabenseifner's scheme, as `rabenseifner`); SimGrid 3.32 reduce__scatter_gather",
    simgrid: Some("scatter_gather"),
    emit,
    alike: None,
};

/// SimGrid's elements per block: `count / pof2`, the last block taking the rest, over
/// the vector padded to one element per rank when it is shorter.
fn padded_counts(count: u64, size: u32, pof2: u32) -> Vec<u64> {
    let padded = count.max(u64::from(size));
    let per = padded / u64::from(pof2);
    (0..pof2)
        .map(|i| {
            if i + 1 < pof2 {
                per
            } else {
                padded - per * u64::from(pof2 - 1)
            }
        })
        .collect()
}

/// SimGrid's blocks: the bytes each holds (its elements that exist; bytes beyond whole
/// elements ride in the last block), and the bytes each adds to a message, which for a
/// vector padded to one element per rank include its padding (SimGrid sends it).
fn blocks(s: &CollSpec, pof2: u32) -> (Vec<u64>, Wire) {
    let t = s.elem.max(1);
    let count = s.bytes / t;
    let counts = padded_counts(count, s.size, pof2);
    let mut at = 0u64;
    let mut held: Vec<u64> = counts
        .iter()
        .map(|&c| {
            let real = c.min(count.saturating_sub(at));
            at += c;
            real * t
        })
        .collect();
    *held.last_mut().unwrap() += s.bytes - count * t;
    let wire = if count < u64::from(s.size) {
        counts.iter().map(|c| c * t).collect()
    } else {
        held.clone()
    };
    (held, Wire(wire))
}

/// The bytes each block adds to a message.
struct Wire(Vec<u64>);

impl Wire {
    fn bytes(&self, blocks: &[u32]) -> u64 {
        blocks.iter().map(|&b| self.0[b as usize]).sum()
    }

    fn send(&self, e: &mut dyn Emitter, to: u32, blocks: &[u32], after: &[Step]) -> Step {
        e.send_sized(to, TAG, blocks, self.bytes(blocks), after)
    }

    fn recv(&self, e: &mut dyn Emitter, from: u32, blocks: &[u32], merge: Merge, after: &[Step]) -> Step {
        e.recv_sized(from, TAG, blocks, merge, self.bytes(blocks), after)
    }
}

/// The reduce as SimGrid 3.32's `reduce__scatter_gather` (MPICH's reduce_scatter_gather)
/// runs it. Unlike the allreduce's fold, odd ranks below `2·rem` send their vector to the
/// even neighbour and drop out (the new rank of even `r` is `r / 2`). If the root dropped
/// out, rank 0 sends it its first block and the root takes rank 0's place in the gather.
/// A vector of fewer elements than ranks is padded to one element per rank, as SimGrid
/// does: the blocks hold the real elements, and the messages carry the padding too.
fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    // An empty vector: nothing is sent (SimGrid's reduce__scatter_gather returns).
    if s.bytes == 0 {
        return;
    }
    let (n, r, root) = (s.size, s.me, s.root);
    let pof2 = pow2_floor(n);
    let rem = n - pof2;
    let (held, wire) = blocks(s, pof2);
    e.layout(&held);
    let all = block_range(0, pof2);
    let real = |nr: u32| if nr < rem { nr * 2 } else { nr + rem };
    let mut last: Vec<Step> = Vec::new();
    // Fold.
    let mut newrank: Option<u32> = if r < 2 * rem {
        if r % 2 == 1 {
            last = vec![wire.send(e, r - 1, &all, &last)];
            None
        } else {
            last = vec![wire.recv(e, r + 1, &all, Merge::Reduce, &last)];
            Some(r / 2)
        }
    } else {
        Some(r - rem)
    };
    // Reduce-scatter by recursive halving, with SimGrid's block bookkeeping.
    let (mut send_idx, mut recv_idx, mut last_idx) = (0u32, 0u32, pof2);
    if let Some(nr) = newrank {
        let mut mask = 1u32;
        while mask < pof2 {
            let dst = real(nr ^ mask);
            let (snd_blocks, rcv_blocks) = if nr < nr ^ mask {
                send_idx = recv_idx + pof2 / (mask * 2);
                (block_range(send_idx, last_idx), block_range(recv_idx, send_idx))
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                (block_range(send_idx, recv_idx), block_range(recv_idx, last_idx))
            };
            let snd = wire.send(e, dst, &snd_blocks, &last);
            let rcv = wire.recv(e, dst, &rcv_blocks, Merge::Reduce, &last);
            last = vec![snd, rcv];
            send_idx = recv_idx;
            mask <<= 1;
            if mask < pof2 {
                last_idx = recv_idx + pof2 / mask;
            }
        }
    }
    // A root that dropped out takes rank 0's place, with rank 0's first block.
    let root_out = root < 2 * rem && root % 2 == 1;
    let newroot = if root_out {
        if r == root {
            last = vec![wire.recv(e, 0, &[0], Merge::Copy, &last)];
            newrank = Some(0);
            send_idx = 0;
            last_idx = 2;
        } else if newrank == Some(0) {
            wire.send(e, root, &[0], &last);
            newrank = None;
        }
        0
    } else if root < 2 * rem {
        root / 2
    } else {
        root - rem
    };
    // Gather to the root by recursive doubling, in reverse.
    let Some(nr) = newrank else { return };
    let mut mask = pof2 >> 1;
    let mut j = pof2.trailing_zeros() as i32 - 1;
    while mask > 0 {
        let newdst = nr ^ mask;
        let dst = if newdst == 0 && root_out { root } else { real(newdst) };
        let (snd_blocks, rcv_blocks) = if nr < newdst {
            if mask != pof2 / 2 {
                last_idx += pof2 / (mask * 2);
            }
            recv_idx = send_idx + pof2 / (mask * 2);
            (block_range(send_idx, recv_idx), block_range(recv_idx, last_idx))
        } else {
            recv_idx = send_idx - pof2 / (mask * 2);
            (block_range(send_idx, last_idx), block_range(recv_idx, send_idx))
        };
        if (newdst >> j) << j == (newroot >> j) << j {
            wire.send(e, dst, &snd_blocks, &last);
            return;
        }
        last = vec![wire.recv(e, dst, &rcv_blocks, Merge::Copy, &last)];
        if nr > newdst {
            send_idx = recv_idx;
        }
        mask >>= 1;
        j -= 1;
    }
}
