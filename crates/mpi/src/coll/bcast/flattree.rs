//! Flat-tree broadcast (Open MPI's `basic_linear`; SimGrid 3.32 `bcast-flattree.cpp`): the
//! root sends the whole message to every other rank, all sends posted at once; the others
//! receive it from the root.

use crate::coll::bcast::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "flattree",
    source: "Open MPI coll/base basic_linear bcast; SimGrid 3.32 bcast__flattree",
    simgrid: Some("flattree"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    if s.me != s.root {
        e.recv(s.root, TAG, &[0], Merge::Copy, &[]);
        return;
    }
    for v in 1..s.size {
        e.send(s.real(v), TAG, &[0], &[]);
    }
}
