//! Binomial-tree scatter (Open MPI's `ompi_coll_base_scatter_intra_binomial`, as ported
//! in SimGrid 3.32 `scatter-ompi.cpp`, `scatter__ompi_binomial`), on the in-order
//! binomial tree: relative to the root, rank `v`'s children are `v + 1, v + 2, v + 4, …`
//! below its lowest set bit and its parent is `v` without that bit. A non-root rank
//! receives the blocks of its whole subtree from its parent (blocking); then it sends
//! each child, with blocking sends in the order `v + 1, v + 2, v + 4, …` (smallest
//! subtree first, as SimGrid's port does), the `min(c - v, n - c)` blocks of child `c`'s
//! subtree.

use crate::coll::scatter::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Scatter,
    name: "binomial",
    source: "Open MPI coll/base in-order binomial scatter; SimGrid 3.32 scatter__ompi_binomial",
    simgrid: Some("ompi_binomial"),
    emit,
    alike: None,
};

/// The blocks (communicator ranks) of relative ranks `v..v+count`.
fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let v = s.vrank();
    // The lowest set bit of v (the root: above every child).
    let low = if v == 0 {
        n.next_power_of_two()
    } else {
        v & v.wrapping_neg()
    };
    let mut last: Vec<Step> = Vec::new();
    if v != 0 {
        let count = low.min(n - v);
        last = vec![e.recv(s.real(v - low), TAG, &s.reals(v, count), Merge::Copy, &[])];
    }
    let mut mask = 1u32;
    while mask < low && v + mask < n {
        let child = v + mask;
        let count = mask.min(n - child);
        last = vec![e.send(s.real(child), TAG, &s.reals(child, count), &last)];
        mask <<= 1;
    }
}
