//! In-order binary-tree reduction (Open MPI's `ompi_coll_base_reduce_intra_in_order_binary`;
//! SimGrid 3.32 `reduce__ompi_in_order_binary`): Open MPI's in-order binary tree rooted at
//! the last rank (so operands combine in rank order), the message in one piece; if the
//! root is not the last rank, the last rank sends it the result.

use crate::coll::reduce::{tree_reduce, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Phases, TreeNode};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "in_order_binary",
    source: "Open MPI coll/base reduce in_order_binary (unsegmented, as SimGrid 3.32 reduce__ompi_in_order_binary)",
    simgrid: Some("ompi_in_order_binary"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    // The tree is over communicator ranks, topped by n-1; the message is not segmented.
    let n = s.size;
    let top = n - 1;
    let mut p = Phases::new(e);
    tree_reduce(&mut p, &TreeNode::in_order_binary(n, s.me), &|w| w, s.bytes, 0);
    if s.root == top {
        return;
    }
    p.next_phase();
    if s.me == top {
        p.send(s.root, TAG, &[0], &[]);
    } else if s.me == s.root {
        p.recv(top, TAG, &[0], Merge::Copy, &[]);
    }
}
