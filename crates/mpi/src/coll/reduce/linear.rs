//! Linear reduction (Open MPI's `ompi_coll_base_reduce_intra_basic_linear`; SimGrid 3.32
//! `reduce__ompi_basic_linear`): every other rank sends its vector to the root, which
//! receives them one at a time from the highest rank down and combines each.

use crate::coll::reduce::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "linear",
    source: "Open MPI coll/base basic_linear reduce; SimGrid 3.32 reduce__ompi_basic_linear",
    simgrid: Some("ompi_basic_linear"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    if s.me != s.root {
        e.send(s.root, TAG, &[0], &[]);
        return;
    }
    let mut last: Vec<Step> = Vec::new();
    for r in (0..s.size).rev().filter(|&r| r != s.root) {
        last = vec![e.recv(r, TAG, &[0], Merge::Reduce, &last)];
    }
}
