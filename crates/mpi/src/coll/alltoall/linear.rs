//! Basic linear alltoall (Open MPI's `ompi_coll_base_alltoall_intra_basic_linear`;
//! SimGrid 3.32 `alltoall-basic-linear.cpp`, `alltoall__basic_linear`). After the local
//! copy of its own block, a rank starts receives from `rank+1, rank+2, …` and then sends
//! to `rank-1, rank-2, …` (mod n), all at once as persistent requests, and waits for all.

use crate::coll::alltoall::{block, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Alltoall,
    name: "linear",
    source: "Open MPI coll/base basic linear; SimGrid 3.32 alltoall__basic_linear",
    simgrid: Some("basic_linear"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    post_all(s, e);
}

/// Receives from `rank+1, rank+2, …` then sends to `rank-1, rank-2, …`, all without
/// dependencies (the collective ends when all are done).
pub(super) fn post_all(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    for i in 1..n {
        let from = (r + i) % n;
        e.recv(from, TAG, &[block(from, r, n)], Merge::Copy, &[]);
    }
    for i in 1..n {
        let to = (r + n - i) % n;
        e.send(to, TAG, &[block(r, to, n)], &[]);
    }
}
