//! Pipeline broadcast (Open MPI's `ompi_coll_base_bcast_intra_pipeline`: a chain of
//! fanout 1; SimGrid 3.32 `bcast__ompi_pipeline`): ranks form one chain from the root;
//! the message flows down it in segments whose size depends on the communicator and
//! message sizes.

use crate::coll::bcast::tree_bcast;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, TreeNode};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "pipeline",
    source: "Open MPI coll/base bcast pipeline (chain of fanout 1); segment size by SimGrid 3.32 bcast__ompi_pipeline's rule",
    simgrid: Some("ompi_pipeline"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    tree_bcast(
        s,
        e,
        &TreeNode::chain(s.size, 1, s.vrank()),
        segment_size(s.size, s.bytes),
    );
}

/// The segment size SimGrid 3.32's `bcast__ompi_pipeline` picks (the linear fits of an
/// earlier Open MPI tuned module): 128 KiB when the communicator is small for the
/// message, else 64 KiB, else 16 KiB, and 128 KiB again for large communicators.
pub fn segment_size(ranks: u32, bytes: u64) -> u64 {
    let (n, m) = (ranks as f64, bytes as f64);
    if n < 1.6134e-6 * m + 2.1102 {
        128 * 1024
    } else if n < 2.3679e-6 * m + 1.1787 {
        64 * 1024
    } else if n < 3.2118e-6 * m + 8.7936 {
        16 * 1024
    } else {
        128 * 1024
    }
}
