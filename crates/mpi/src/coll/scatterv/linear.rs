//! Linear scatterv, SimGrid 3.32's only scatterv (`smpi_nbc_impl.cpp`,
//! `colls::iscatterv`, which `colls::scatterv` runs and waits for). The root starts
//! sends to every other rank in increasing rank order, all at once (empty blocks
//! included), and waits for all of them; every other rank receives its block. Open
//! MPI's coll/basic scatterv sends one block after the other with blocking sends and
//! skips empty blocks.

use crate::coll::scatterv::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Scatterv,
    name: "linear",
    source: "SimGrid 3.32 colls::iscatterv (all sends started at once)",
    simgrid: None,
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    crate::coll::scatter::linear::linear(s, e, TAG, false);
}
