//! Basic linear alltoallv (Open MPI's `ompi_coll_base_alltoallv_intra_basic_linear`;
//! SimGrid 3.32 `alltoallv-ompi-basic-linear.cpp`, `alltoallv__ompi_basic_linear`).
//! After the local copy of its own block, a rank starts receives from every other rank
//! in increasing rank order, then sends to every other rank in increasing rank order,
//! all at once as persistent requests, and waits for all. SimGrid's port sends empty
//! blocks too (Open MPI skips them).

use crate::coll::alltoall::block;
use crate::coll::alltoallv::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Alltoallv,
    name: "linear",
    source: "Open MPI coll/base basic linear; SimGrid 3.32 alltoallv__ompi_basic_linear",
    simgrid: Some("ompi_basic_linear"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    for from in (0..n).filter(|&i| i != r) {
        e.recv(from, TAG, &[block(from, r, n)], Merge::Copy, &[]);
    }
    for to in (0..n).filter(|&i| i != r) {
        e.send(to, TAG, &[block(r, to, n)], &[]);
    }
}
