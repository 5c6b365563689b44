//! Chain broadcast (Open MPI's `ompi_coll_base_bcast_intra_chain` with fanout 4, its
//! default): the root heads four chains of consecutive ranks; the message moves down every chain in
//! 32 KiB segments, each rank forwarding a segment as soon as it has it.

use crate::coll::bcast::{tree_bcast, SEGMENT};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, TreeNode};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "chain",
    source: "Open MPI coll/base bcast chain (fanout 4, 32 KiB segments)",
    simgrid: None,
    emit,
    alike: None,
};

/// Chains hanging from the root.
const FANOUT: u32 = 4;

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    tree_bcast(s, e, &TreeNode::chain(s.size, FANOUT, s.vrank()), SEGMENT);
}
