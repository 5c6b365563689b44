//! Pipelined reduction (Open MPI's `ompi_coll_base_reduce_intra_pipeline`: the generic
//! tree reduction on a chain of fanout 1; SimGrid 3.32 `reduce__ompi_pipeline`): ranks form
//! one chain ending at the root, and segments of partial results flow along it (sized by
//! SimGrid's rule, see [`segment_size`]).

use crate::coll::reduce::{real_of, tree_reduce};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, TreeNode};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "pipeline",
    source:
        "Open MPI coll/base reduce pipeline (chain of fanout 1, 32 KiB segments); SimGrid 3.32 reduce__ompi_pipeline",
    simgrid: Some("ompi_pipeline"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    tree_reduce(
        e,
        &TreeNode::chain(s.size, 1, s.vrank()),
        &real_of(s),
        s.bytes,
        segment_size(s.size, s.bytes),
    );
}

/// The segment size SimGrid 3.32's `reduce__ompi_pipeline` picks (linear fits of an
/// earlier Open MPI tuned module): 1 KiB for communicators large for the message, else
/// 32 KiB, else 64 KiB.
pub fn segment_size(ranks: u32, bytes: u64) -> u64 {
    let (n, m) = (ranks as f64, bytes as f64);
    if n > 0.0410 / 1024.0 * m + 9.7128 {
        1024
    } else if n > 0.0033 / 1024.0 * m + 1.6761 {
        32 * 1024
    } else {
        64 * 1024
    }
}
