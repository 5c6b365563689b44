//! Pairwise allgather (SimGrid 3.32 `allgather__pair`; Open MPI's `two_proc` on two ranks):
//! in step `i` (1 to n-1) each rank exchanges its own block with `rank XOR i` on powers of
//! two, or sends it to `rank + i` and receives from `rank - i` otherwise (`shifted`).

use crate::coll::allgather::{shifted::shifted, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allgather,
    name: "pair",
    source: "SimGrid 3.32 allgather__pair; Open MPI two_proc on two ranks",
    simgrid: Some("pair"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let (n, r) = (s.size, s.me);
    if !n.is_power_of_two() {
        return shifted(s, e, TAG);
    }
    let mut last: Vec<Step> = Vec::new();
    for i in 1..n {
        let snd = e.send(r ^ i, TAG, &[r], &last);
        let rcv = e.recv(r ^ i, TAG, &[r ^ i], Merge::Copy, &last);
        last = vec![snd, rcv];
    }
}
