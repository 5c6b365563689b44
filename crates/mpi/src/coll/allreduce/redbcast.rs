//! Reduce then broadcast (Open MPI's `basic_linear` and `nonoverlapping` allreduce, MPICH's
//! fallback; SimGrid 3.32 `allreduce__redbcast`): a reduction to rank 0 followed by a
//! broadcast from it, each by the algorithm selected for that collective, as SimGrid's
//! calls to `colls::reduce` and `colls::bcast` do (binomial for both when nothing
//! selects).

use crate::coll::{find, Algorithm, CollSpec, Collective, Emitter, Phases};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "redbcast",
    source: "reduce then bcast to and from rank 0, by the selected algorithms (binomial when none is); SimGrid 3.32 allreduce__redbcast",
    simgrid: Some("redbcast"),
    emit,
    alike: None,
};

pub(crate) fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let mut spec = s.clone();
    spec.root = 0;
    let mut p = Phases::new(e);
    for (i, coll) in [Collective::Reduce, Collective::Bcast].into_iter().enumerate() {
        spec.coll = coll;
        let alg = p
            .sub_algorithm(&spec)
            .filter(|a| a.coll == coll)
            .unwrap_or_else(|| find(coll, "binomial").expect("binomial is registered"));
        if i > 0 {
            p.next_phase();
        }
        // Each part starts from the whole vector as one block (the reduction may have
        // cut it into segments of its own).
        p.layout(&[s.bytes]);
        (alg.emit)(&spec, &mut p);
    }
}
