//! Pipelined reduction (Open MPI's `ompi_coll_base_reduce_intra_pipeline`: the generic
//! tree reduction on a chain of fanout 1; SimGrid 3.32 `reduce__ompi_pipeline`): ranks form
//! one chain ending at the root, and 32 KiB segments of partial results flow along it.

use crate::coll::reduce::{real_of, tree_reduce};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Tree};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Reduce,
    name: "pipeline",
    source:
        "Open MPI coll/base reduce pipeline (chain of fanout 1, 32 KiB segments); SimGrid 3.32 reduce__ompi_pipeline",
    simgrid: Some("ompi_pipeline"),
    emit,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    tree_reduce(e, &Tree::chain(s.size, 1), s.vrank(), &real_of(s), s.bytes);
}
