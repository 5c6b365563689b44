//! MPI_Allgatherv algorithms: the allgather patterns on blocks of per-rank sizes.

use crate::coll::allgather::{
    bruck::bruck, mpich_rdb::mpich_rdb, neighbor_exchange::neighbor_exchange, rdb::rdb, ring::ring, shifted::shifted,
};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter};

/// The allgatherv algorithms.
pub const ALGORITHMS: &[Algorithm] = &[
    Algorithm {
        coll: Collective::Allgatherv,
        name: "ring",
        source: "Open MPI coll/base allgatherv ring (blocks passed to the right neighbour)",
        simgrid: None,
        emit: emit_ring,
        alike: None,
    },
    Algorithm {
        coll: Collective::Allgatherv,
        name: "shifted",
        source: "SimGrid 3.32 allgatherv__ring (Faraj and Yuan: own block to rank+i, from rank-i)",
        simgrid: Some("ring"),
        emit: emit_shifted,
        alike: None,
    },
    Algorithm {
        coll: Collective::Allgatherv,
        name: "bruck",
        source: "Open MPI coll/base allgatherv bruck; SimGrid 3.32 allgatherv__ompi_bruck",
        simgrid: Some("ompi_bruck"),
        emit: emit_bruck,
        alike: None,
    },
    Algorithm {
        coll: Collective::Allgatherv,
        name: "neighbor_exchange",
        source: "Open MPI coll/base allgatherv neighborexchange (ring on odd sizes); SimGrid 3.32 allgatherv__ompi_neighborexchange on even sizes",
        simgrid: Some("ompi_neighborexchange"),
        emit: emit_neighbor,
        alike: None,
    },
    Algorithm {
        coll: Collective::Allgatherv,
        name: "rdb",
        source: "MPICH allgatherv recursive doubling on powers of two (Bruck otherwise); SimGrid 3.32 allgatherv__mpich_rdb",
        simgrid: None,
        emit: emit_rdb,
        alike: None,
    },
    Algorithm {
        coll: Collective::Allgatherv,
        name: "mpich_rdb",
        source: "MPICH allgatherv recursive doubling (MPIR_Allgatherv_intra_recursive_doubling; tree fix-up on other sizes); SimGrid 3.32 allgatherv__mpich_rdb",
        simgrid: Some("mpich_rdb"),
        emit: emit_mpich_rdb,
        alike: None,
    },
];

/// Tag of allgatherv messages (Open MPI's ALLGATHERV tag, without its sign).
pub(crate) const TAG: u32 = 16;

fn emit_ring(s: &CollSpec, e: &mut dyn Emitter) {
    ring(s, e, TAG);
}

fn emit_shifted(s: &CollSpec, e: &mut dyn Emitter) {
    shifted(s, e, TAG);
}

fn emit_bruck(s: &CollSpec, e: &mut dyn Emitter) {
    bruck(s, e, TAG);
}

fn emit_rdb(s: &CollSpec, e: &mut dyn Emitter) {
    // Nothing to gather: SimGrid's allgatherv__mpich_rdb returns at once (with an error
    // code the replay ignores).
    if s.counts.iter().sum::<u64>() == 0 {
        return;
    }
    rdb(s, e, TAG);
}

fn emit_mpich_rdb(s: &CollSpec, e: &mut dyn Emitter) {
    // As `rdb`: nothing to gather, nothing sent. Each message is the blocks a rank holds
    // (MPICH sends its running count), so the allgather's pattern serves.
    if s.counts.iter().sum::<u64>() == 0 {
        return;
    }
    mpich_rdb(s.size, s.me, &|v| v, e, TAG);
}

fn emit_neighbor(s: &CollSpec, e: &mut dyn Emitter) {
    neighbor_exchange(s, e, TAG);
}
