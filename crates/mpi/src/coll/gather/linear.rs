//! Basic linear gather (Open MPI's `ompi_coll_base_gather_intra_basic_linear`; SimGrid
//! 3.32 `gather-ompi.cpp`, `gather__ompi_basic_linear`). Every non-root rank sends its
//! block to the root with a blocking send; the root receives them with blocking
//! receives in increasing rank order (its own block is a local copy).

use crate::coll::gather::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Gather,
    name: "linear",
    source: "Open MPI coll/base basic linear; SimGrid 3.32 gather__ompi_basic_linear",
    simgrid: Some("ompi_basic_linear"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    linear(s, e, TAG, true);
}

/// Every other rank sends the root its block with `tag`; the root receives them in rank
/// order, one after the other (`one_at_a_time`) or with all receives posted at once.
pub(crate) fn linear(s: &CollSpec, e: &mut dyn Emitter, tag: u32, one_at_a_time: bool) {
    let r = s.me;
    if r != s.root {
        e.send(s.root, tag, &[r], &[]);
        return;
    }
    let mut last: Vec<Step> = Vec::new();
    for i in (0..s.size).filter(|&i| i != r) {
        let recv = e.recv(i, tag, &[i], Merge::Copy, &last);
        if one_at_a_time {
            last = vec![recv];
        }
    }
}
