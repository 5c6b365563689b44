//! Linear alltoall with a bounded number of outstanding requests (Open MPI 4.1
//! `ompi_coll_base_alltoall_intra_linear_sync`, `coll_base_alltoall.c`; tuned algorithm
//! 4). A rank posts `k = min(max_requests, n-1)` receives from `rank+1, rank+2, …` and
//! `k` sends to `rank-1, rank-2, …`, and replaces each completed request with the next
//! one of its kind. Open MPI's default `coll_tuned_alltoall_algorithm_max_requests` is 0,
//! meaning no limit (`coll_tuned_component.c`), so all `2(n-1)` requests are posted at
//! once and waited for together: the same messages as the basic linear algorithm, only
//! without persistent requests. The replacement order of a bounded run depends on which
//! request completes first (a wait-any), so only the default is modelled.
//!
//! SimGrid 3.32 has no such algorithm: its Open MPI selector runs `alltoall__basic_linear`
//! where Open MPI would pick linear_sync (`smpi_openmpi_selector.cpp`).

use crate::coll::{Algorithm, CollSpec, Collective, Emitter};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Alltoall,
    name: "linear_sync",
    source: "Open MPI 4.1 coll/base alltoall linear_sync with the default max_requests (0: unlimited)",
    simgrid: None,
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    super::linear::post_all(s, e);
}
