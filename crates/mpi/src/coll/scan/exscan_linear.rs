//! SimGrid's linear exscan (SimGrid 3.32 `smpi_coll.cpp`, `colls::exscan`, its only
//! exscan): the messages of its linear scan. Every rank starts, all at once, sends of
//! its own vector to every higher rank and receives of every lower rank's vector; the
//! first vector received becomes the result and the others are folded into it.
//!
//! The sends are emitted before the receives (they carry the rank's own contribution,
//! from the send buffer), and the receive from rank 0 is the one that replaces the
//! buffer: with all messages posted at once the order of folding changes no message.

use crate::coll::{Algorithm, CollSpec, Collective, Emitter};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Exscan,
    name: "linear",
    source: "SimGrid 3.32 colls::exscan (every rank sends its vector to every higher rank)",
    simgrid: None,
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    super::linear::linear(s, e, true);
}
