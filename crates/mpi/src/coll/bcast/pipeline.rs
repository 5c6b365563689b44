//! Pipeline broadcast (Open MPI's `ompi_coll_base_bcast_intra_pipeline`: a chain of
//! fanout 1; SimGrid 3.32 `bcast__ompi_pipeline`): ranks form one chain from the root;
//! the message flows down it in 32 KiB segments.

use crate::coll::bcast::{tree_bcast, SEGMENT};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Tree};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "pipeline",
    source: "Open MPI coll/base bcast pipeline (chain of fanout 1, 32 KiB segments); SimGrid 3.32 bcast__ompi_pipeline",
    simgrid: Some("ompi_pipeline"),
    emit,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    tree_bcast(s, e, &Tree::chain(s.size, 1), SEGMENT);
}
