//! Rabenseifner's reduction (MPICH's `MPIR_Reduce_intra_reduce_scatter_gather`; SimGrid
//! 3.32 `reduce__scatter_gather` and `reduce__mpich`'s large-message path; not SimGrid's
//! `reduce__rab`, Rabenseifner's own code, whose messages differ): with `2^k` the largest
//! power of two not above `n` and `rem = n - 2^k`, the first `2·rem` ranks fold pairwise
//! (even ranks send their vector to the odd neighbour and drop out). The `2^k` remaining
//! ranks reduce-scatter the vector by recursive halving (partners `newrank XOR 1, 2, 4…`,
//! each keeping half of its range and sending the other half) and then gather the pieces
//! to the root along the reverse butterfly. If the root dropped out, its odd neighbour
//! gathers and sends it the result. `scatter_gather` is MPICH's name for the same scheme.

use crate::coll::reduce::TAG;
use crate::coll::{pow2_floor, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "rabenseifner",
    source: "MPICH reduce_scatter_gather (Rabenseifner); SimGrid 3.32 reduce__scatter_gather (not its reduce__rab, another implementation)",
    simgrid: Some("scatter_gather"),
    emit,
};

/// MPICH's name for the same algorithm.
pub const SCATTER_GATHER: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "scatter_gather",
    source: "MPICH MPIR_Reduce_intra_reduce_scatter_gather (Rabenseifner's scheme, as `rabenseifner`); SimGrid 3.32 reduce__scatter_gather",
    simgrid: Some("scatter_gather"),
    emit,
};

/// The fold and recursive-halving reduce-scatter shared with Rabenseifner's allreduce.
/// Returns this rank's new rank (`None` if it folded out), the block range it holds, the
/// step after which it holds it, and `(real, pof2)`.
pub(crate) fn reduce_scatter_halving(
    s: &CollSpec,
    e: &mut dyn Emitter,
    tag: u32,
    blocks: &dyn Fn(u64, u32) -> Vec<u64>,
) -> (Option<u32>, (u32, u32), Vec<Step>, u32) {
    let n = s.size;
    let r = s.me;
    let pof2 = pow2_floor(n);
    let rem = n - pof2;
    e.layout(&blocks(s.bytes, pof2));
    let all: Vec<u32> = (0..pof2).collect();
    let mut last: Vec<Step> = Vec::new();
    let newrank = if r < 2 * rem {
        if r.is_multiple_of(2) {
            e.send(r + 1, tag, &all, &[]);
            return (None, (0, 0), Vec::new(), pof2);
        }
        last = vec![e.recv(r - 1, tag, &all, Merge::Reduce, &[])];
        r / 2
    } else {
        r - rem
    };
    let real = |nr: u32| if nr < rem { nr * 2 + 1 } else { nr + rem };
    let (mut lo, mut hi) = (0u32, pof2);
    let mut mask = 1u32;
    while mask < pof2 {
        let partner = real(newrank ^ mask);
        let mid = lo + (hi - lo) / 2;
        let (keep, give) = if newrank & mask == 0 {
            ((lo, mid), (mid, hi))
        } else {
            ((mid, hi), (lo, mid))
        };
        let snd = e.send(partner, tag, &(give.0..give.1).collect::<Vec<_>>(), &last);
        let rcv = e.recv(
            partner,
            tag,
            &(keep.0..keep.1).collect::<Vec<_>>(),
            Merge::Reduce,
            &last,
        );
        last = vec![snd, rcv];
        (lo, hi) = keep;
        mask <<= 1;
    }
    (Some(newrank), (lo, hi), last, pof2)
}

/// The communicator rank of new rank `nr`.
pub(crate) fn real_of_new(n: u32, nr: u32) -> u32 {
    let rem = n - pow2_floor(n);
    if nr < rem {
        nr * 2 + 1
    } else {
        nr + rem
    }
}

/// Blocks `lo..hi`.
fn range(lo: u32, hi: u32) -> Vec<u32> {
    (lo..hi).collect()
}

/// The reduce as SimGrid 3.32's `reduce__scatter_gather` (MPICH's reduce_scatter_gather)
/// runs it. Unlike the allreduce's fold, odd ranks below `2·rem` send their vector to the
/// even neighbour and drop out (the new rank of even `r` is `r / 2`). If the root dropped
/// out, rank 0 sends it its first block and the root takes rank 0's place in the gather.
/// A vector of fewer elements than ranks is padded to one element per rank, as SimGrid
/// does; the blocks then hold the real elements and the padding costs nothing here (a
/// few bytes per message).
fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    // An empty vector: nothing is sent (SimGrid's reduce__scatter_gather returns).
    if s.bytes == 0 {
        return;
    }
    let (n, r, root) = (s.size, s.me, s.root);
    let pof2 = pow2_floor(n);
    let rem = n - pof2;
    let t = s.elem.max(1);
    let count = s.bytes / t;
    // SimGrid's block counts (elements) over the possibly padded vector, clipped to the
    // real elements.
    let padded = count.max(n as u64);
    let per = padded / pof2 as u64;
    let mut sizes = Vec::with_capacity(pof2 as usize);
    let mut at = 0u64;
    for i in 0..pof2 {
        let c = if i + 1 < pof2 {
            per
        } else {
            padded - per * (pof2 as u64 - 1)
        };
        let real = c.min(count.saturating_sub(at));
        sizes.push(real * t);
        at += c;
    }
    // Bytes beyond whole elements ride in the last block.
    *sizes.last_mut().unwrap() += s.bytes - count * t;
    e.layout(&sizes);
    let all = range(0, pof2);
    let real = |nr: u32| if nr < rem { nr * 2 } else { nr + rem };
    let mut last: Vec<Step> = Vec::new();
    // Fold.
    let mut newrank: Option<u32> = if r < 2 * rem {
        if r % 2 == 1 {
            last = vec![e.send(r - 1, TAG, &all, &last)];
            None
        } else {
            last = vec![e.recv(r + 1, TAG, &all, Merge::Reduce, &last)];
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
                (range(send_idx, last_idx), range(recv_idx, send_idx))
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                (range(send_idx, recv_idx), range(recv_idx, last_idx))
            };
            let snd = e.send(dst, TAG, &snd_blocks, &last);
            let rcv = e.recv(dst, TAG, &rcv_blocks, Merge::Reduce, &last);
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
            last = vec![e.recv(0, TAG, &[0], Merge::Copy, &last)];
            newrank = Some(0);
            send_idx = 0;
            last_idx = 2;
        } else if newrank == Some(0) {
            e.send(root, TAG, &[0], &last);
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
            (range(send_idx, recv_idx), range(recv_idx, last_idx))
        } else {
            recv_idx = send_idx - pof2 / (mask * 2);
            (range(send_idx, last_idx), range(recv_idx, send_idx))
        };
        if (newdst >> j) << j == (newroot >> j) << j {
            e.send(dst, TAG, &snd_blocks, &last);
            return;
        }
        last = vec![e.recv(dst, TAG, &rcv_blocks, Merge::Copy, &last)];
        if nr > newdst {
            send_idx = recv_idx;
        }
        mask >>= 1;
        j -= 1;
    }
}
