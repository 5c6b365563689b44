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
use crate::coll::{pow2_floor, split_even, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

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

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    // An empty vector: nothing is sent (SimGrid's reduce__scatter_gather returns).
    if s.bytes == 0 {
        return;
    }
    let n = s.size;
    let rem = n - pow2_floor(n);
    let (newrank, (mut lo, mut hi), mut last, pof2) = reduce_scatter_halving(s, e, TAG, &split_even);
    // The gatherer: the root, or its odd neighbour if the root folded out.
    let root_out = s.root < 2 * rem && s.root.is_multiple_of(2);
    let gatherer = if root_out { s.root + 1 } else { s.root };
    let newroot = if gatherer < 2 * rem {
        gatherer / 2
    } else {
        gatherer - rem
    };
    let Some(newrank) = newrank else {
        if s.me == s.root {
            let all: Vec<u32> = (0..pof2).collect();
            e.recv(gatherer, TAG, &all, Merge::Copy, &[]);
        }
        return;
    };
    // Reverse butterfly: at mask m the rank whose bit m differs from the root's sends its
    // range to its partner and is done.
    let mut mask = pof2 >> 1;
    while mask > 0 {
        let partner_new = newrank ^ mask;
        let partner = real_of_new(n, partner_new);
        // The partner holds the sibling range of ours within the range we split at mask.
        let width = hi - lo;
        let (plo, phi) = if newrank & mask == 0 {
            (hi, hi + width)
        } else {
            (lo - width, lo)
        };
        if (newrank & mask) != (newroot & mask) {
            e.send(partner, TAG, &(lo..hi).collect::<Vec<_>>(), &last);
            return;
        }
        last = vec![e.recv(partner, TAG, &(plo..phi).collect::<Vec<_>>(), Merge::Copy, &last)];
        lo = lo.min(plo);
        hi = hi.max(phi);
        mask >>= 1;
    }
    if root_out {
        let all: Vec<u32> = (0..pof2).collect();
        e.send(s.root, TAG, &all, &last);
    }
}
