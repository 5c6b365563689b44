//! Binary-tree broadcast (Open MPI's `ompi_coll_base_bcast_intra_bintree`): Open MPI's
//! binary tree over ranks relative to the root (the children of `v` on level `d` are
//! `v + 2^d` and `v + 2^(d+1)`); 32 KiB segments, each forwarded to both children as soon
//! as it arrives.

use crate::coll::bcast::{tree_bcast, SEGMENT};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, TreeNode};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "binary",
    source: "Open MPI coll/base bcast bintree (32 KiB segments)",
    simgrid: None,
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    tree_bcast(s, e, &TreeNode::kary(s.size, 2, s.vrank()), SEGMENT);
}
