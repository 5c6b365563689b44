//! Linear gatherv, SimGrid 3.32's only gatherv (`smpi_nbc_impl.cpp`, `colls::igatherv`,
//! which `colls::gatherv` runs and waits for). Every non-root rank sends its block to the
//! root (empty blocks included); the root posts receives from every other rank in
//! increasing rank order, all at once, and waits for all of them (its own block is a
//! local copy). Open MPI's coll/basic gatherv receives one rank after the other instead
//! and skips empty blocks; MPICH's posts them all at once like SimGrid.

use crate::coll::gatherv::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Gatherv,
    name: "linear",
    source: "SimGrid 3.32 colls::igatherv (all receives posted at once)",
    simgrid: None,
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    crate::coll::gather::linear::linear(s, e, TAG, false);
}
