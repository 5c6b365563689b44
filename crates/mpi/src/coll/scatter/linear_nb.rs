//! Non-blocking linear scatter (Open MPI's `ompi_coll_base_scatter_intra_linear_nb`;
//! SimGrid 3.32 `scatter-ompi.cpp`, `scatter__ompi_linear_nb`). The root starts sends of
//! every other rank's block in increasing rank order, all at once, and waits for all of
//! them (its own block is a local copy); every other rank receives its block. (Open MPI
//! can make every k-th send blocking; its default ratio, 0, makes none blocking, which is
//! what SimGrid's port does.)

use crate::coll::scatter::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Scatter,
    name: "linear_nb",
    source: "Open MPI coll/base linear_nb; SimGrid 3.32 scatter__ompi_linear_nb",
    simgrid: Some("ompi_linear_nb"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    crate::coll::scatter::linear::linear(s, e, TAG, false);
}
