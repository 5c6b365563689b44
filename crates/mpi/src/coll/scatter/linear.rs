//! Basic linear scatter (Open MPI's `ompi_coll_base_scatter_intra_basic_linear`;
//! SimGrid 3.32 `scatter-ompi.cpp`, `scatter__ompi_basic_linear`). The root sends each
//! other rank its block with blocking sends in increasing rank order (its own block is
//! a local copy); every other rank receives its block.

use crate::coll::scatter::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Scatter,
    name: "linear",
    source: "Open MPI coll/base basic linear; SimGrid 3.32 scatter__ompi_basic_linear",
    simgrid: Some("ompi_basic_linear"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    linear(s, e, TAG, true);
}

/// The root sends every other rank its block with `tag`, in rank order: one after the
/// other (`one_at_a_time`, blocking sends) or all at once; the others receive theirs.
pub(crate) fn linear(s: &CollSpec, e: &mut dyn Emitter, tag: u32, one_at_a_time: bool) {
    let r = s.me;
    if r != s.root {
        e.recv(s.root, tag, &[r], Merge::Copy, &[]);
        return;
    }
    let mut last: Vec<Step> = Vec::new();
    for i in (0..s.size).filter(|&i| i != r) {
        let send = e.send(i, tag, &[i], &last);
        if one_at_a_time {
            last = vec![send];
        }
    }
}
