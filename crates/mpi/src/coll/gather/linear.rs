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
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let r = s.me;
    if r != s.root {
        e.send(s.root, TAG, &[r], &[]);
        return;
    }
    let mut last: Vec<Step> = Vec::new();
    for i in (0..s.size).filter(|&i| i != r) {
        last = vec![e.recv(i, TAG, &[i], Merge::Copy, &last)];
    }
}
