//! Binomial-tree gather (Open MPI's `ompi_coll_base_gather_intra_binomial`; SimGrid 3.32
//! `gather-ompi.cpp`, `gather__ompi_binomial`), on the in-order binomial tree: relative
//! to the root, rank `v`'s children are `v + 1, v + 2, v + 4, …` below its lowest set bit
//! and its parent is `v` without that bit. A rank receives from its children in that
//! order (smallest subtree first), each a blocking receive of the child's whole subtree
//! (`min(c - v, n - c)` blocks from child `c`), then sends everything it holds (its own
//! block first) to its parent with one blocking send.

use crate::coll::gather::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Gather,
    name: "binomial",
    source: "Open MPI coll/base in-order binomial gather; SimGrid 3.32 gather__ompi_binomial",
    simgrid: Some("ompi_binomial"),
    emit,
    alike: None,
};

/// The blocks (communicator ranks) of relative ranks `v..v+count`.
fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let v = s.vrank();
    let mut last: Vec<Step> = Vec::new();
    let mut held = 1u32;
    let mut mask = 1u32;
    while mask < n {
        if v & mask != 0 {
            e.send(s.real(v - mask), TAG, &s.reals(v, held), &last);
            return;
        }
        let child = v + mask;
        if child < n {
            let count = mask.min(n - child);
            last = vec![e.recv(s.real(child), TAG, &s.reals(child, count), Merge::Copy, &last)];
            held += count;
        }
        mask <<= 1;
    }
}
