//! Rabenseifner's allreduce (MPICH's `MPIR_Allreduce_intra_reduce_scatter_allgather`;
//! SimGrid 3.32 `allreduce__rab_rdb`): the fold and recursive-halving reduce-scatter of
//! Rabenseifner's reduction, then a recursive-doubling allgather along the reverse
//! butterfly (partners exchange their ranges), then the odd ranks of the folded pairs send
//! the result to their even neighbours.

use crate::coll::allreduce::TAG;
use crate::coll::reduce::rabenseifner::{real_of_new, reduce_scatter_halving};
use crate::coll::{pow2_floor, Algorithm, CollSpec, Collective, Emitter, Merge};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "rabenseifner",
    source: "MPICH allreduce reduce_scatter_allgather (Rabenseifner); SimGrid 3.32 allreduce__rab_rdb",
    simgrid: Some("rab_rdb"),
    emit,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let rem = n - pow2_floor(n);
    let (newrank, (mut lo, mut hi), mut last, pof2) =
        reduce_scatter_halving(s, e, TAG, &|bytes, pof2| simgrid_blocks(bytes, pof2, s.elem));
    let all: Vec<u32> = (0..pof2).collect();
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
        let snd = e.send(partner, TAG, &(lo..hi).collect::<Vec<_>>(), &last);
        let rcv = e.recv(partner, TAG, &(plo..phi).collect::<Vec<_>>(), Merge::Copy, &last);
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
