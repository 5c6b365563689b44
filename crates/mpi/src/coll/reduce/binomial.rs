//! Binomial-tree reduction (MPICH's `MPIR_Reduce_intra_binomial` for commutative operations;
//! SimGrid 3.32 `reduce__binomial`): relative to the root, a rank receives and combines
//! the partial results of `rank + 2^k` for each `2^k` below its lowest set bit (smallest
//! first, one blocking receive after the other), then sends its result to `rank - 2^k`.

use crate::coll::reduce::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "binomial",
    source: "MPICH binomial reduce; SimGrid 3.32 reduce__binomial",
    simgrid: Some("binomial"),
    emit,
    alike: None,
};

pub(crate) fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    // An empty vector: nothing is sent (SimGrid's reduce__binomial and MPICH return).
    if s.bytes == 0 {
        return;
    }
    let (n, v) = (s.size, s.vrank());
    let mut last: Vec<Step> = Vec::new();
    let mut mask = 1u32;
    while mask < n {
        if v & mask != 0 {
            e.send(s.real(v - mask), TAG, &[0], &last);
            return;
        }
        if v + mask < n {
            last = vec![e.recv(s.real(v + mask), TAG, &[0], Merge::Reduce, &last)];
        }
        mask <<= 1;
    }
}
