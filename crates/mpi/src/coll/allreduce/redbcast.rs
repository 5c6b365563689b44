//! Reduce then broadcast (Open MPI's `basic_linear` and `nonoverlapping` allreduce, MPICH's
//! fallback; SimGrid 3.32 `allreduce__redbcast`): a binomial reduction to rank 0 followed
//! by a binomial broadcast from it.

use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Phases};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "redbcast",
    source: "reduce (binomial) to rank 0 then bcast (binomial); SimGrid 3.32 allreduce__redbcast",
    simgrid: Some("redbcast"),
    emit,
};

pub(crate) fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let mut spec = s.clone();
    spec.root = 0;
    let mut p = Phases::new(e);
    spec.coll = Collective::Reduce;
    (crate::coll::find(Collective::Reduce, "binomial").unwrap().emit)(&spec, &mut p);
    p.next_phase();
    spec.coll = Collective::Bcast;
    (crate::coll::find(Collective::Bcast, "binomial").unwrap().emit)(&spec, &mut p);
}
