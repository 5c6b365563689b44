//! In-order binary-tree reduction (Open MPI's `ompi_coll_base_reduce_intra_in_order_binary`;
//! SimGrid 3.32 `reduce__ompi_in_order_binary`): a binary tree rooted at the last rank
//! (ranks counted down from it, so operands combine in rank order), 32 KiB segments; if
//! the root is not the last rank, the last rank sends it the result.

use crate::coll::reduce::{tree_reduce, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Phases, Tree};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "in_order_binary",
    source: "Open MPI coll/base reduce in_order_binary (32 KiB segments); SimGrid 3.32 reduce__ompi_in_order_binary",
    simgrid: Some("ompi_in_order_binary"),
    emit,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let top = n - 1;
    let v = top - s.me;
    let real = |w: u32| top - w;
    let mut p = Phases::new(e);
    tree_reduce(&mut p, &Tree::kary(n, 2), v, &real, s.bytes);
    if s.root == top {
        return;
    }
    p.next_phase();
    let all: Vec<u32> = (0..crate::coll::segments(s.bytes, crate::coll::reduce::SEGMENT).len() as u32).collect();
    if s.me == top {
        p.send(s.root, TAG, &all, &[]);
    } else if s.me == s.root {
        p.recv(top, TAG, &all, Merge::Copy, &[]);
    }
}
