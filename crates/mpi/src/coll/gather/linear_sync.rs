//! Synchronised linear gather (Open MPI 4.1's `ompi_coll_base_gather_intra_linear_sync`,
//! `coll_base_gather.c`; tuned algorithm 3) with the first-segment size the tuned fixed
//! decisions pass, 0. For each other rank `i` in increasing order the root posts a
//! receive of `i`'s first segment, sends `i` a zero-byte go-ahead (blocking), posts a
//! receive of the second segment and waits for the first one; it then waits for all
//! second segments. A non-root rank receives the go-ahead, then sends the first segment
//! and the second one (blocking). A first-segment size of 0 makes the first segment the
//! whole block and the second an empty message, which is still sent.
//!
//! SimGrid 3.32's port (`gather-ompi.cpp`, `gather__ompi_linear_sync`) hard-codes a first
//! segment of 1024 bytes (32768 for blocks above 92160 bytes): it sends the same messages
//! for blocks of at most 1024 bytes, and splits larger blocks in two, which blocks cannot
//! express (a message carries whole blocks).

use crate::coll::gather::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Gather,
    name: "linear_sync",
    source: "Open MPI 4.1 coll/base gather linear_sync with the fixed rules' first segment size (0)",
    simgrid: None,
    emit,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let r = s.me;
    let root = s.root;
    if r != root {
        let go = e.recv_sync(root, TAG, 0, &[]);
        let first = e.send(root, TAG, &[r], &[go]);
        e.send_sync(root, TAG, 0, &[first]);
        return;
    }
    let mut last: Vec<Step> = Vec::new();
    for i in (0..s.size).filter(|&i| i != r) {
        let first = e.recv(i, TAG, &[i], Merge::Copy, &last);
        let go = e.send_sync(i, TAG, 0, &last);
        // The second segment's receive is posted once the blocking go-ahead is sent; the
        // final wait-all is the end of the collective.
        e.recv_sync(i, TAG, 0, &[go]);
        last = vec![first, go];
    }
}
