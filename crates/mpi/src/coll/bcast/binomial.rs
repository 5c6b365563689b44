//! Binomial-tree broadcast (MPICH's; SimGrid 3.32 `bcast-binomial-tree.cpp`, its
//! `default` selector's choice). Relative to the root, a rank receives from the rank that
//! differs in its lowest set bit, then sends to `rank + 2^k` for each `2^k` below that
//! bit, largest first, one blocking send after the other.

use crate::coll::bcast::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "binomial",
    source: "MPICH binomial tree; SimGrid 3.32 bcast__binomial_tree",
    simgrid: Some("binomial_tree"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let v = s.vrank();
    let mut last: Vec<Step> = Vec::new();
    let mut mask = 1u32;
    while mask < n {
        if v & mask != 0 {
            last = vec![e.recv(s.real(v - mask), TAG, &[0], Merge::Copy, &[])];
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if v + mask < n {
            last = vec![e.send(s.real(v + mask), TAG, &[0], &last)];
        }
        mask >>= 1;
    }
}
