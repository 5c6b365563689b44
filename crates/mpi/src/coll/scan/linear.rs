//! SimGrid's linear scan (SimGrid 3.32 `smpi_coll.cpp`, `colls::scan`, its only scan).
//! Every rank starts, all at once, sends of its own vector to every higher rank and
//! receives of every lower rank's vector, and folds each received vector into its result
//! as it arrives (for non-commutative operations: in rank order, which changes no
//! message). Rank `r` sends `n - 1 - r` messages and receives `r`.
//!
//! The sends are emitted before the receives: they carry the rank's own contribution
//! only (they leave from the send buffer, not the result). SimGrid starts the receives
//! first; sends and receives started together are run sends first anyway.

use crate::coll::scan::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Scan,
    name: "linear",
    source: "SimGrid 3.32 colls::scan (every rank sends its vector to every higher rank)",
    simgrid: None,
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    linear(s, e, false);
}

/// Every rank sends its vector to every higher rank and receives every lower rank's,
/// all at once. Inclusive: each received vector is folded into the rank's own.
/// Exclusive: the one from rank 0 replaces it and the others are folded in.
pub(crate) fn linear(s: &CollSpec, e: &mut dyn Emitter, exclusive: bool) {
    let r = s.me;
    for to in r + 1..s.size {
        e.send(to, TAG, &[0], &[]);
    }
    for from in 0..r {
        let merge = if exclusive && from == 0 {
            Merge::Copy
        } else {
            Merge::Reduce
        };
        e.recv(from, TAG, &[0], merge, &[]);
    }
}
