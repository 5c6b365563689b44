//! Rabenseifner's allreduce (MPICH's `MPIR_Allreduce_intra_reduce_scatter_allgather`;
//! SimGrid 3.32 `allreduce__rab_rdb`): a fold and a reduce-scatter by recursive halving,
//! then a recursive-doubling allgather along the reverse butterfly (partners exchange
//! their ranges), then the odd ranks of the folded pairs send the result to their even
//! neighbours.

use crate::coll::allreduce::TAG;
use crate::coll::{block_range, pow2_floor, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "rabenseifner",
    source: "MPICH allreduce reduce_scatter_allgather (Rabenseifner); SimGrid 3.32 allreduce__rab_rdb",
    simgrid: Some("rab_rdb"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let rem = n - pow2_floor(n);
    let (newrank, (mut lo, mut hi), mut last, pof2) = reduce_scatter_halving(s, e);
    let all = block_range(0, pof2);
    let Some(newrank) = newrank else {
        e.recv(s.me + 1, TAG, &all, Merge::Copy, &[]);
        return;
    };
    let mut mask = pof2 >> 1;
    while mask > 0 {
        let partner = real_of_new(n, newrank ^ mask);
        let width = hi - lo;
        let (plo, phi) = if newrank & mask == 0 {
            (hi, hi + width)
        } else {
            (lo - width, lo)
        };
        let snd = e.send(partner, TAG, &block_range(lo, hi), &last);
        let rcv = e.recv(partner, TAG, &block_range(plo, phi), Merge::Copy, &last);
        last = vec![snd, rcv];
        lo = lo.min(plo);
        hi = hi.max(phi);
        mask >>= 1;
    }
    if s.me < 2 * rem {
        e.send(s.me - 1, TAG, &all, &last);
    }
}

/// SimGrid 3.32's (and MPICH's) cut of the vector for `rab_rdb`: `count / pof2` elements
/// per block, the last block taking what is left.
fn simgrid_blocks(bytes: u64, pof2: u32, elem: u64) -> Vec<u64> {
    let t = elem.max(1);
    let per = bytes / t / pof2 as u64 * t;
    let mut v = vec![per; pof2 as usize];
    *v.last_mut().unwrap() = bytes - per * (pof2 as u64 - 1);
    v
}

/// The fold (even ranks below `2·rem` into their odd neighbours) and the reduce-scatter
/// by recursive halving. Returns this rank's new rank (`None` if it folded out), the
/// block range it holds, the step after which it holds it, and `pof2`.
fn reduce_scatter_halving(s: &CollSpec, e: &mut dyn Emitter) -> (Option<u32>, (u32, u32), Vec<Step>, u32) {
    let n = s.size;
    let r = s.me;
    let pof2 = pow2_floor(n);
    let rem = n - pof2;
    e.layout(&simgrid_blocks(s.bytes, pof2, s.elem));
    let all = block_range(0, pof2);
    let mut last: Vec<Step> = Vec::new();
    let newrank = if r < 2 * rem {
        if r.is_multiple_of(2) {
            e.send(r + 1, TAG, &all, &[]);
            return (None, (0, 0), Vec::new(), pof2);
        }
        last = vec![e.recv(r - 1, TAG, &all, Merge::Reduce, &[])];
        r / 2
    } else {
        r - rem
    };
    let (mut lo, mut hi) = (0u32, pof2);
    let mut mask = 1u32;
    while mask < pof2 {
        let partner = real_of_new(n, newrank ^ mask);
        let mid = lo + (hi - lo) / 2;
        let (keep, give) = if newrank & mask == 0 {
            ((lo, mid), (mid, hi))
        } else {
            ((mid, hi), (lo, mid))
        };
        let snd = e.send(partner, TAG, &block_range(give.0, give.1), &last);
        let rcv = e.recv(partner, TAG, &block_range(keep.0, keep.1), Merge::Reduce, &last);
        last = vec![snd, rcv];
        (lo, hi) = keep;
        mask <<= 1;
    }
    (Some(newrank), (lo, hi), last, pof2)
}

/// The communicator rank of new rank `nr`.
fn real_of_new(n: u32, nr: u32) -> u32 {
    let rem = n - pow2_floor(n);
    if nr < rem {
        nr * 2 + 1
    } else {
        nr + rem
    }
}
