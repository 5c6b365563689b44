//! Default algorithm selection (`coll::select`) against hand-derived expectations.
//!
//! Every expected name below was worked out by hand from the decision tables of Open MPI
//! v4.1.8 `ompi/mca/coll/tuned/coll_tuned_decision_fixed.c` and MPICH v4.2.3
//! `maint/tuning/coll/mpir/generic.json` (+ `src/mpi/coll/src/csel.c`), and mapped to simpi's
//! names (with the libraries' in-algorithm fallbacks applied: see `select::notes()`).
//! Element counts, where they matter, are `ceil(bytes / 8)` (the default element size).
//!
//! Open MPI uses the whole vector for bcast/reduce/allreduce/reduce_scatter, one block for
//! allgather/alltoall/gather/scatter and the average block for allgatherv; MPICH uses the
//! vector (avg) for bcast/reduce/allreduce/alltoall and block·p or Σ counts (total) for
//! allgather(v)/reduce_scatter. In the grid tests, `m` is `spec.bytes` for the first kind
//! and the per-rank count (all ranks equal) for allgatherv, gatherv, scatterv,
//! reduce_scatter and alltoallv, so e.g. reduce_scatter's total is `m·p`.

use simpi_mpi::coll::select::{notes, Selector, DEFAULT_ELEMENT_BYTES};
use simpi_mpi::coll::{CollSpec, Collective};

use Collective::*;
use Selector::{Mpich, Ompi};

const P: [u32; 17] = [2, 3, 4, 5, 7, 8, 12, 16, 17, 32, 64, 100, 128, 256, 512, 1000, 1024];
const M: [u64; 13] = [
    0, 1, 8, 64, 512, 1024, 4096, 8192, 16384, 65536, 131072, 1048576, 8388608,
];

const K: u64 = 1024;
const MI: u64 = 1024 * 1024;

// Our algorithm names.
const RDB: &str = "rdb";
const RING: &str = "ring";
const RAB: &str = "rabenseifner";
const RB: &str = "redbcast";
const BNM: &str = "binomial";
const BIN: &str = "binary";
const PIPE: &str = "pipeline";
const CHAIN: &str = "chain";
const FLAT: &str = "flattree";
const SPLIT: &str = "split_binary";
const SRDB: &str = "scatter_rdb_allgather";
const SRING: &str = "scatter_ring_allgather";
const LIN: &str = "linear";
const IOB: &str = "in_order_binary";
const SG: &str = "scatter_gather";
const BRUCK: &str = "bruck";
const NE: &str = "neighbor_exchange";
const PAIR: &str = "pair";
const PW: &str = "pairwise";
const LS: &str = "linear_sync";
const LNB: &str = "linear_nb";
const RH: &str = "recursive_halving";
const RD: &str = "recursive_doubling";
const TREE: &str = "tree";

/// The spec of a grid point: `m` is `bytes`, or every rank's count for the v-variants,
/// reduce_scatter and alltoallv.
fn grid_spec(coll: Collective, p: u32, m: u64) -> CollSpec {
    let mut s = CollSpec::new(coll, p, 0, m);
    match coll {
        Allgatherv | Gatherv | Scatterv | ReduceScatter => {
            s.bytes = 0;
            s.counts = vec![m; p as usize];
        }
        Alltoallv => {
            s.bytes = 0;
            s.send_counts = vec![m; p as usize];
            s.recv_counts = vec![m; p as usize];
        }
        Barrier => s.bytes = 0,
        _ => {}
    }
    s
}

/// A spec whose counts add up to `total` (all on rank 0), for thresholds on Σ counts.
fn total_spec(coll: Collective, p: u32, total: u64) -> CollSpec {
    let mut s = CollSpec::new(coll, p, 0, 0);
    s.counts = vec![0; p as usize];
    s.counts[0] = total;
    s
}

type Row = (u32, [&'static str; 13]);

/// Checks a whole grid table: one row per communicator size of `P`, one column per size of `M`.
fn grid(sel: Selector, coll: Collective, commutative: bool, rows: &[Row]) {
    let ps: Vec<u32> = rows.iter().map(|r| r.0).collect();
    assert_eq!(ps, P.to_vec(), "{sel:?} {coll}: table rows");
    let mut bad = Vec::new();
    for (p, names) in rows {
        for (i, &m) in M.iter().enumerate() {
            let got = sel.choose(coll, *p, &grid_spec(coll, *p, m), commutative);
            if got != names[i] {
                bad.push(format!("p={p} m={m}: expected {}, got {got}", names[i]));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{sel:?} {coll} commutative={commutative}:\n{}",
        bad.join("\n")
    );
}

/// Every `m` of the grid and every `p` gives `name`.
fn constant(sel: Selector, coll: Collective, commutative: bool, name: &str) {
    for p in P {
        for m in M {
            assert_eq!(
                sel.choose(coll, p, &grid_spec(coll, p, m), commutative),
                name,
                "{sel:?} {coll} p={p} m={m}"
            );
        }
    }
}

type Mk = fn(Collective, u32, u64) -> CollSpec;

/// An Open MPI style `s < t` threshold: `t-1` gives `below`, `t` and `t+1` give `above`.
fn lt(sel: Selector, coll: Collective, p: u32, comm: bool, t: u64, below: &str, above: &str) {
    lt_with(grid_spec, sel, coll, p, comm, t, below, above)
}

#[allow(clippy::too_many_arguments)]
fn lt_with(mk: Mk, sel: Selector, coll: Collective, p: u32, comm: bool, t: u64, below: &str, above: &str) {
    threshold(mk, sel, coll, p, comm, t, [below, above, above], "<");
}

/// An MPICH style `s <= t` threshold: `t-1` and `t` give `below`, `t+1` gives `above`.
fn le(sel: Selector, coll: Collective, p: u32, comm: bool, t: u64, below: &str, above: &str) {
    threshold(grid_spec, sel, coll, p, comm, t, [below, below, above], "<=");
}

/// The choices at sizes `t - 1`, `t` and `t + 1`.
#[allow(clippy::too_many_arguments)]
fn threshold(mk: Mk, sel: Selector, coll: Collective, p: u32, comm: bool, t: u64, want: [&str; 3], rule: &str) {
    for (v, want) in [t - 1, t, t + 1].into_iter().zip(want) {
        assert_eq!(
            sel.choose(coll, p, &mk(coll, p, v), comm),
            want,
            "{sel:?} {coll} p={p} comm={comm} size={v} (threshold {rule}{t})"
        );
    }
}

/// One call.
fn one(sel: Selector, coll: Collective, p: u32, comm: bool, s: &CollSpec, want: &str) {
    assert_eq!(
        sel.choose(coll, p, s, comm),
        want,
        "{sel:?} {coll} p={p} comm={comm} {s:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Open MPI grids
// ---------------------------------------------------------------------------------------

#[test]
fn ompi_allreduce_commutative_grid() {
    // p<4: <8 ring (count<p -> rdb), <4K rdb, <8K ring, <16K rdb, <64K ring,
    // <256K segmented ring (= ring), else rabenseifner. p<8: <16 ring (count<p -> rdb),
    // <8K rdb, else rab. p<16: <8K rdb. p<32: <64 seg ring (count<p), <4K rdb. p<64: <128
    // seg ring (count<p), else rab (count >= 32). p<128: <256K rdb. p<256: <128K
    // nonoverlapping (redbcast), <256K rdb. p<512: <4K redbcast. p<2048: <2K redbcast,
    // <16K rdb, else rab.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [RDB, RDB, RDB, RDB, RDB, RDB, RING, RDB, RING, RING, RING, RAB, RAB]),
        (3,    [RDB, RDB, RDB, RDB, RDB, RDB, RING, RDB, RING, RING, RING, RAB, RAB]),
        (4,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (5,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (7,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (8,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (12,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (16,   [RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (17,   [RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (32,   [RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (64,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB]),
        (100,  [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB]),
        (128,  [RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RDB, RAB, RAB]),
        (256,  [RB, RB, RB, RB, RB, RB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (512,  [RB, RB, RB, RB, RB, RB, RDB, RDB, RAB, RAB, RAB, RAB, RAB]),
        (1000, [RB, RB, RB, RB, RB, RB, RDB, RDB, RAB, RAB, RAB, RAB, RAB]),
        (1024, [RB, RB, RB, RB, RB, RB, RDB, RDB, RAB, RAB, RAB, RAB, RAB]),
    ];
    grid(Ompi, Allreduce, true, rows);
}

#[test]
fn ompi_allreduce_noncommutative_grid() {
    // p<4: <128K rdb else basic_linear; p<8 rdb; p<16: <1M rdb else nonoverlapping;
    // p<128 rdb; p<256: <128K nonoverlapping, <512K rdb, else nonoverlapping; p<512: <4K
    // nonoverlapping, <512K rdb, else nonoverlapping; else <2K nonoverlapping, else rdb.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RB, RB, RB]),
        (3,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RB, RB, RB]),
        (4,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (5,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (7,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (8,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RB, RB]),
        (12,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RB, RB]),
        (16,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (17,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (32,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (64,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (100,  [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (128,  [RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RDB, RB, RB]),
        (256,  [RB, RB, RB, RB, RB, RB, RDB, RDB, RDB, RDB, RDB, RB, RB]),
        (512,  [RB, RB, RB, RB, RB, RB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (1000, [RB, RB, RB, RB, RB, RB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (1024, [RB, RB, RB, RB, RB, RB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
    ];
    grid(Ompi, Allreduce, false, rows);
}

#[test]
fn ompi_bcast_grid() {
    // p<4: <32 pipeline, <256 binary, <512 pipeline, <1K knomial (binomial), <32K linear
    // (flattree), <128K binary, <256K chain, <512K linear, <1M binomial, else binary.
    // p<8: <64 binary, <128 binomial, <2K binary, <8K binomial, <1M linear, else chain.
    // p<16: <8 knomial, <64 binary, <4K knomial, <16K binary, <32K binomial, else linear.
    // p<32: <4K knomial, <1M binomial, else scatter_allgather (count >= p). p<64: binomial
    // / knomial. p<128: knomial. p<256: <2 binomial, <16K binary, <32K linear, <64K binary,
    // else knomial. p<1024: <16K knomial, <32K split binary, else knomial. p<2048: <512K
    // knomial, else scatter_allgather.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [PIPE, PIPE, PIPE, BIN, BNM, FLAT, FLAT, FLAT, FLAT, BIN, CHAIN, BIN, BIN]),
        (3,    [PIPE, PIPE, PIPE, BIN, BNM, FLAT, FLAT, FLAT, FLAT, BIN, CHAIN, BIN, BIN]),
        (4,    [BIN, BIN, BIN, BNM, BIN, BIN, BNM, FLAT, FLAT, FLAT, FLAT, CHAIN, CHAIN]),
        (5,    [BIN, BIN, BIN, BNM, BIN, BIN, BNM, FLAT, FLAT, FLAT, FLAT, CHAIN, CHAIN]),
        (7,    [BIN, BIN, BIN, BNM, BIN, BIN, BNM, FLAT, FLAT, FLAT, FLAT, CHAIN, CHAIN]),
        (8,    [BNM, BNM, BIN, BNM, BNM, BNM, BIN, BIN, BNM, FLAT, FLAT, FLAT, FLAT]),
        (12,   [BNM, BNM, BIN, BNM, BNM, BNM, BIN, BIN, BNM, FLAT, FLAT, FLAT, FLAT]),
        (16,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, SRDB, SRDB]),
        (17,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, SRDB, SRDB]),
        (32,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (64,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (100,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (128,  [BNM, BNM, BIN, BIN, BIN, BIN, BIN, BIN, FLAT, BNM, BNM, BNM, BNM]),
        (256,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, SPLIT, BNM, BNM, BNM, BNM]),
        (512,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, SPLIT, BNM, BNM, BNM, BNM]),
        (1000, [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, SPLIT, BNM, BNM, BNM, BNM]),
        (1024, [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, SRDB, SRDB]),
    ];
    grid(Ompi, Bcast, true, rows);
    // The op plays no role in bcast.
    grid(Ompi, Bcast, false, rows);
}

#[test]
fn ompi_reduce_commutative_grid() {
    // p<4: <8 rabenseifner (count < 2 -> linear), <16 binary (in-order binary), <32
    // pipeline, <256K linear, <512K pipeline, <1M chain (pipeline), else pipeline. p<8: <4K
    // binary, <64K chain, <256K binomial, <512K linear, <1M binomial, else linear. p<16:
    // <8K binary, else binomial. p<32: <4K binary, else binomial. p<256 binomial. p<512:
    // <8K binomial, <16K in-order binary, else binomial. p<2048 binomial.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [LIN, LIN, IOB, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, PIPE, PIPE]),
        (3,    [LIN, LIN, IOB, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, PIPE, PIPE]),
        (4,    [IOB, IOB, IOB, IOB, IOB, IOB, PIPE, PIPE, PIPE, BNM, BNM, LIN, LIN]),
        (5,    [IOB, IOB, IOB, IOB, IOB, IOB, PIPE, PIPE, PIPE, BNM, BNM, LIN, LIN]),
        (7,    [IOB, IOB, IOB, IOB, IOB, IOB, PIPE, PIPE, PIPE, BNM, BNM, LIN, LIN]),
        (8,    [IOB, IOB, IOB, IOB, IOB, IOB, IOB, BNM, BNM, BNM, BNM, BNM, BNM]),
        (12,   [IOB, IOB, IOB, IOB, IOB, IOB, IOB, BNM, BNM, BNM, BNM, BNM, BNM]),
        (16,   [IOB, IOB, IOB, IOB, IOB, IOB, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (17,   [IOB, IOB, IOB, IOB, IOB, IOB, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (32,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (64,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (100,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (128,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (256,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, IOB, BNM, BNM, BNM, BNM, BNM]),
        (512,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (1000, [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (1024, [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
    ];
    grid(Ompi, Reduce, true, rows);
}

#[test]
fn ompi_reduce_noncommutative_grid() {
    // p<4: <8 in-order binary, else linear. p<8 linear. p<16: <1K iob, <8K linear, <16K
    // iob, <256K linear, else iob. p<128 iob. p<256: <512 iob, <1K linear, else iob. iob.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [IOB, IOB, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN]),
        (3,    [IOB, IOB, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN]),
        (4,    [LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN]),
        (5,    [LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN]),
        (7,    [LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN]),
        (8,    [IOB, IOB, IOB, IOB, IOB, LIN, LIN, IOB, LIN, LIN, LIN, IOB, IOB]),
        (12,   [IOB, IOB, IOB, IOB, IOB, LIN, LIN, IOB, LIN, LIN, LIN, IOB, IOB]),
        (16,   [IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (17,   [IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (32,   [IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (64,   [IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (100,  [IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (128,  [IOB, IOB, IOB, IOB, LIN, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (256,  [IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (512,  [IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (1000, [IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (1024, [IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
    ];
    grid(Ompi, Reduce, false, rows);
}

#[test]
fn ompi_allgather_grid() {
    // Per-rank block. p==2 two_proc (pair). p<32 recursive doubling (bruck unless p is a
    // power of two). p<64: <1K rd, <64K neighbor exchange, else ring. p<128: <512 rd,
    // <64K ne, else ring. p<256: <512 rd, <128K ne, <512K ring, <1M ne, else ring. p<512:
    // <32 rd, <128 bruck, <1K rd, <128K ne, <512K ring, <1M ne, else ring. p<1024: <64 rd,
    // <256 bruck, <2K rd, else ne. p<2048: ..., <256 rd, <512 bruck, <4K rd, else ne.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [PAIR, PAIR, PAIR, PAIR, PAIR, PAIR, PAIR, PAIR, PAIR, PAIR, PAIR, PAIR, PAIR]),
        (3,    [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK]),
        (4,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (5,    [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK]),
        (7,    [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK]),
        (8,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (12,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK]),
        (16,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB]),
        (17,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK]),
        (32,   [RDB, RDB, RDB, RDB, RDB, NE, NE, NE, NE, RING, RING, RING, RING]),
        (64,   [RDB, RDB, RDB, RDB, NE, NE, NE, NE, NE, RING, RING, RING, RING]),
        (100,  [BRUCK, BRUCK, BRUCK, BRUCK, NE, NE, NE, NE, NE, RING, RING, RING, RING]),
        (128,  [RDB, RDB, RDB, RDB, NE, NE, NE, NE, NE, NE, RING, RING, RING]),
        (256,  [RDB, RDB, RDB, BRUCK, RDB, NE, NE, NE, NE, NE, RING, RING, RING]),
        (512,  [RDB, RDB, RDB, BRUCK, RDB, RDB, NE, NE, NE, NE, NE, NE, NE]),
        (1000, [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, NE, NE, NE, NE, NE, NE, NE]),
        (1024, [RDB, RDB, RDB, RDB, RDB, RDB, NE, NE, NE, NE, NE, NE, NE]),
    ];
    grid(Ompi, Allgather, true, rows);
}

#[test]
fn ompi_allgatherv_grid() {
    // Average block = m. p==2: ring / two_proc (ring). p<8: <256 default (bruck), <4K ne
    // (ring if p odd), <8K ring, <16K ne, <256K bruck, else ne. p<16: <1K default, else
    // bruck. p<32: <128 default, <256K bruck, else ring. p<64: <256 default, <8K bruck,
    // else ring. p<128: <256 default, <4K bruck, else ring. p<256: <1K bruck, <64K ne,
    // else ring. p<512: <1K bruck, else ring. p<1024: <512 bruck, <1K default, <4K bruck,
    // <1M ne, else ring. else: <4K bruck, else ne.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING]),
        (3,    [BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, BRUCK, BRUCK, BRUCK, RING, RING]),
        (4,    [BRUCK, BRUCK, BRUCK, BRUCK, NE, NE, RING, NE, BRUCK, BRUCK, BRUCK, NE, NE]),
        (5,    [BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, BRUCK, BRUCK, BRUCK, RING, RING]),
        (7,    [BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, BRUCK, BRUCK, BRUCK, RING, RING]),
        (8,    [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK]),
        (12,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK]),
        (16,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING]),
        (17,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING]),
        (32,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING, RING]),
        (64,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING, RING, RING]),
        (100,  [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING, RING, RING]),
        (128,  [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, NE, NE, NE, NE, RING, RING, RING, RING]),
        (256,  [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING, RING, RING, RING]),
        (512,  [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, NE, NE, NE, NE, NE, RING, RING]),
        (1000, [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, NE, NE, NE, NE, NE, RING, RING]),
        (1024, [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, NE, NE, NE, NE, NE, NE, NE]),
    ];
    grid(Ompi, Allgatherv, true, rows);
}

#[test]
fn ompi_alltoall_grid() {
    // Per-destination block. p==2: pairwise / two_proc (pairwise) up to 32K, <256K
    // linear_sync, <1M two_proc, else pairwise. p<8: <8K lsync, <16K linear, <64K lsync,
    // <512K linear, <1M pairwise, else linear. p<16: <256K lsync, else linear. p<32: <4
    // lsync, <512 bruck, <8K lsync, <32K linear, <256K lsync, <512K linear, else lsync.
    // p<64: <512 bruck, <512K linear, else lsync. p<128: <1K bruck, <2K linear, <4K lsync,
    // <256K linear, else pairwise. p<256: <1K bruck, <2K lsync, <256K linear, else
    // pairwise. p<512: <1K bruck, <8K lsync, <32K linear, else pairwise. p<1024: <512
    // bruck, <8K lsync, <16K linear, <128K lsync, <256K linear, else pairwise. p<2048:
    // <512 bruck, <1K lsync, <2K linear, <16K lsync, <256K linear, else lsync.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [PW, PW, PW, PW, PW, PW, PW, PW, PW, LS, LS, PW, PW]),
        (3,    [LS, LS, LS, LS, LS, LS, LS, LIN, LS, LIN, LIN, LIN, LIN]),
        (4,    [LS, LS, LS, LS, LS, LS, LS, LIN, LS, LIN, LIN, LIN, LIN]),
        (5,    [LS, LS, LS, LS, LS, LS, LS, LIN, LS, LIN, LIN, LIN, LIN]),
        (7,    [LS, LS, LS, LS, LS, LS, LS, LIN, LS, LIN, LIN, LIN, LIN]),
        (8,    [LS, LS, LS, LS, LS, LS, LS, LS, LS, LS, LS, LIN, LIN]),
        (12,   [LS, LS, LS, LS, LS, LS, LS, LS, LS, LS, LS, LIN, LIN]),
        (16,   [LS, LS, BRUCK, BRUCK, LS, LS, LS, LIN, LIN, LS, LS, LS, LS]),
        (17,   [LS, LS, BRUCK, BRUCK, LS, LS, LS, LIN, LIN, LS, LS, LS, LS]),
        (32,   [BRUCK, BRUCK, BRUCK, BRUCK, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LS, LS]),
        (64,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, LIN, LIN, LIN, LIN, LIN, LIN, PW, PW]),
        (100,  [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, LIN, LIN, LIN, LIN, LIN, LIN, PW, PW]),
        (128,  [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, LS, LIN, LIN, LIN, LIN, LIN, PW, PW]),
        (256,  [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, LS, LS, LIN, LIN, PW, PW, PW, PW]),
        (512,  [BRUCK, BRUCK, BRUCK, BRUCK, LS, LS, LS, LIN, LS, LS, LIN, PW, PW]),
        (1000, [BRUCK, BRUCK, BRUCK, BRUCK, LS, LS, LS, LIN, LS, LS, LIN, PW, PW]),
        (1024, [BRUCK, BRUCK, BRUCK, BRUCK, LS, LIN, LS, LS, LIN, LIN, LIN, LS, LS]),
    ];
    grid(Ompi, Alltoall, true, rows);
}

#[test]
fn ompi_alltoallv_and_barrier_by_size() {
    // alltoallv: p<4 pairwise, <64 basic_linear, <128 pairwise, <256 linear, <1024
    // pairwise, else linear. barrier: p<4 recursive doubling, <8 linear, <64 rd, <256
    // bruck, <512 tree, <1024 bruck, <4096 tree, else bruck.
    #[rustfmt::skip]
    let cases: &[(u32, &str, &str)] = &[
        (2, PW, RD), (3, PW, RD), (4, LIN, LIN), (5, LIN, LIN), (7, LIN, LIN), (8, LIN, RD),
        (12, LIN, RD), (16, LIN, RD), (17, LIN, RD), (32, LIN, RD), (63, LIN, RD), (64, PW, BRUCK),
        (100, PW, BRUCK), (127, PW, BRUCK), (128, LIN, BRUCK), (255, LIN, BRUCK), (256, PW, TREE),
        (511, PW, TREE), (512, PW, BRUCK), (1000, PW, BRUCK), (1023, PW, BRUCK), (1024, LIN, TREE),
        (1025, LIN, TREE), (4095, LIN, TREE), (4096, LIN, BRUCK), (4097, LIN, BRUCK),
    ];
    for &(p, a2av, barrier) in cases {
        for m in M {
            one(Ompi, Alltoallv, p, true, &grid_spec(Alltoallv, p, m), a2av);
        }
        one(Ompi, Barrier, p, true, &grid_spec(Barrier, p, 0), barrier);
    }
}

#[test]
fn ompi_gather_grid() {
    // Per-rank block. p<4: <2 linear_sync, <4 linear, <32K binomial, <64K linear, <128K
    // binomial, else linear_sync. p<8: <1K binomial, <8K linear, <32K binomial, <256K
    // linear, else linear_sync. p<256 binomial. p<512: <2K binomial, <8K linear, else
    // binomial. else binomial.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [LS, LS, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, LS, LS, LS]),
        (3,    [LS, LS, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, LS, LS, LS]),
        (4,    [BNM, BNM, BNM, BNM, BNM, LIN, LIN, BNM, BNM, LIN, LIN, LS, LS]),
        (5,    [BNM, BNM, BNM, BNM, BNM, LIN, LIN, BNM, BNM, LIN, LIN, LS, LS]),
        (7,    [BNM, BNM, BNM, BNM, BNM, LIN, LIN, BNM, BNM, LIN, LIN, LS, LS]),
        (8,    [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (12,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (16,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (17,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (32,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (64,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (100,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (128,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (256,  [BNM, BNM, BNM, BNM, BNM, BNM, LIN, BNM, BNM, BNM, BNM, BNM, BNM]),
        (512,  [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (1000, [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (1024, [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
    ];
    grid(Ompi, Gather, true, rows);
}

#[test]
fn ompi_scatter_grid() {
    // Per-rank block; 1 basic_linear (linear), 2 binomial, 3 linear_nb. p<4: <2 linear_nb,
    // <128K linear, <256K linear_nb, else linear. p<8: <2K binomial, <4K linear, <8K
    // binomial, <32K linear, <1M linear_nb, else linear. p<16: <16K binomial, <1M
    // linear_nb, else linear. p<32: <16K binomial, <32K linear, else linear_nb. p<64: <512
    // binomial, <8K linear_nb, <16K binomial, else linear_nb. else: <512 binomial, else
    // linear_nb.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [LNB, LNB, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LNB, LIN, LIN]),
        (3,    [LNB, LNB, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LNB, LIN, LIN]),
        (4,    [BNM, BNM, BNM, BNM, BNM, BNM, BNM, LIN, LIN, LNB, LNB, LIN, LIN]),
        (5,    [BNM, BNM, BNM, BNM, BNM, BNM, BNM, LIN, LIN, LNB, LNB, LIN, LIN]),
        (7,    [BNM, BNM, BNM, BNM, BNM, BNM, BNM, LIN, LIN, LNB, LNB, LIN, LIN]),
        (8,    [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, LNB, LNB, LNB, LIN, LIN]),
        (12,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, LNB, LNB, LNB, LIN, LIN]),
        (16,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, LIN, LNB, LNB, LNB, LNB]),
        (17,   [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, LIN, LNB, LNB, LNB, LNB]),
        (32,   [BNM, BNM, BNM, BNM, LNB, LNB, LNB, BNM, LNB, LNB, LNB, LNB, LNB]),
        (64,   [BNM, BNM, BNM, BNM, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB]),
        (100,  [BNM, BNM, BNM, BNM, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB]),
        (128,  [BNM, BNM, BNM, BNM, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB]),
        (256,  [BNM, BNM, BNM, BNM, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB]),
        (512,  [BNM, BNM, BNM, BNM, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB]),
        (1000, [BNM, BNM, BNM, BNM, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB]),
        (1024, [BNM, BNM, BNM, BNM, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB]),
    ];
    grid(Ompi, Scatter, true, rows);
}

#[test]
fn ompi_reduce_scatter_grid() {
    // Total T = m·p. Only the ring (alg 3) differs from "recursive_halving" (non-overlapping,
    // recursive halving and butterfly all map there). p<4: ring unless 64K <= T < 128K (no
    // grid point: T = 2m or 3m). p<8 and p<32: ring iff T >= 256K. p<64: ring iff T >=
    // 512K. p >= 64: never ring.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING]),
        (3,    [RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING]),
        (4,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, RING, RING, RING, RING]),
        (5,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, RING, RING, RING, RING]),
        (7,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, RING, RING, RING, RING]),
        (8,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, RING, RING, RING, RING]),
        (12,   [RH, RH, RH, RH, RH, RH, RH, RH, RH, RING, RING, RING, RING]),
        (16,   [RH, RH, RH, RH, RH, RH, RH, RH, RING, RING, RING, RING, RING]),
        (17,   [RH, RH, RH, RH, RH, RH, RH, RH, RING, RING, RING, RING, RING]),
        (32,   [RH, RH, RH, RH, RH, RH, RH, RH, RING, RING, RING, RING, RING]),
        (64,   [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH]),
        (100,  [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH]),
        (128,  [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH]),
        (256,  [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH]),
        (512,  [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH]),
        (1000, [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH]),
        (1024, [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH]),
    ];
    grid(Ompi, ReduceScatter, true, rows);
    // Non-commutative: always non-overlapping -> recursive_halving.
    constant(Ompi, ReduceScatter, false, RH);
}

#[test]
fn ompi_basic_collectives_are_linear() {
    for coll in [Gatherv, Scatterv, Scan, Exscan] {
        constant(Ompi, coll, true, LIN);
        constant(Ompi, coll, false, LIN);
    }
}

// ---------------------------------------------------------------------------------------
// Open MPI thresholds (one below, at, one above), lowest p of each band
// ---------------------------------------------------------------------------------------

#[test]
fn ompi_allreduce_thresholds() {
    // Commutative. p=2 (band p<4); count = ceil(bytes/8).
    lt(Ompi, Allreduce, 2, true, 8, RDB, RDB); // 7 B: ring with count 1 < 2 -> rdb
    lt(Ompi, Allreduce, 2, true, 4 * K, RDB, RING);
    lt(Ompi, Allreduce, 2, true, 8 * K, RING, RDB);
    lt(Ompi, Allreduce, 2, true, 16 * K, RDB, RING);
    lt(Ompi, Allreduce, 2, true, 64 * K, RING, RING); // ring | segmented ring (= ring)
    lt(Ompi, Allreduce, 2, true, 256 * K, RING, RAB);
    lt(Ompi, Allreduce, 4, true, 16, RDB, RDB); // 15 B: ring, count 2 < 4
    lt(Ompi, Allreduce, 4, true, 8 * K, RDB, RAB);
    lt(Ompi, Allreduce, 8, true, 8 * K, RDB, RAB);
    lt(Ompi, Allreduce, 16, true, 64, RDB, RDB); // 63 B: segmented ring, count 8 < 16
    lt(Ompi, Allreduce, 16, true, 4 * K, RDB, RAB);
    lt(Ompi, Allreduce, 32, true, 128, RDB, RB); // 128 B: rabenseifner, count 16 < 32
    lt(Ompi, Allreduce, 64, true, 256 * K, RDB, RAB);
    lt(Ompi, Allreduce, 128, true, 128 * K, RB, RDB);
    lt(Ompi, Allreduce, 128, true, 256 * K, RDB, RAB);
    lt(Ompi, Allreduce, 256, true, 4 * K, RB, RAB);
    lt(Ompi, Allreduce, 512, true, 2 * K, RB, RDB);
    lt(Ompi, Allreduce, 512, true, 16 * K, RDB, RAB);
    lt(Ompi, Allreduce, 2048, true, 2 * K, RB, RDB); // segmented ring, count 256 < 2048
    lt(Ompi, Allreduce, 2048, true, 4 * K, RDB, RDB);
    lt(Ompi, Allreduce, 2048, true, 16 * K, RDB, RAB); // count 2048 >= 2048
    lt(Ompi, Allreduce, 4096, true, 2 * K, RB, RDB);
    lt(Ompi, Allreduce, 4096, true, 16 * K, RDB, RDB);
    lt(Ompi, Allreduce, 4096, true, 32 * K, RDB, RAB); // count 4096 >= 4096
                                                       // Rabenseifner's own count fallback at p=32 (band p<64): count 31 vs 32.
    one(Ompi, Allreduce, 32, true, &grid_spec(Allreduce, 32, 248), RB);
    one(Ompi, Allreduce, 32, true, &grid_spec(Allreduce, 32, 249), RAB);
    // Ring's count fallback at p=3: 4 KiB of 2 KiB elements is 2 elements < 3.
    let s = grid_spec(Allreduce, 3, 4 * K);
    assert_eq!(Ompi.choose_typed(Allreduce, 3, &s, true, 2 * K), RDB);
    assert_eq!(Ompi.choose_typed(Allreduce, 3, &s, true, K), RING);

    // Non-commutative.
    lt(Ompi, Allreduce, 2, false, 128 * K, RDB, RB);
    lt(Ompi, Allreduce, 8, false, MI, RDB, RB);
    lt(Ompi, Allreduce, 128, false, 128 * K, RB, RDB);
    lt(Ompi, Allreduce, 128, false, 512 * K, RDB, RB);
    lt(Ompi, Allreduce, 256, false, 4 * K, RB, RDB);
    lt(Ompi, Allreduce, 256, false, 512 * K, RDB, RB);
    lt(Ompi, Allreduce, 512, false, 2 * K, RB, RDB);
}

#[test]
fn ompi_bcast_thresholds() {
    lt(Ompi, Bcast, 2, true, 32, PIPE, BIN);
    lt(Ompi, Bcast, 2, true, 256, BIN, PIPE);
    lt(Ompi, Bcast, 2, true, 512, PIPE, BNM);
    lt(Ompi, Bcast, 2, true, K, BNM, FLAT);
    lt(Ompi, Bcast, 2, true, 32 * K, FLAT, BIN);
    lt(Ompi, Bcast, 2, true, 128 * K, BIN, CHAIN);
    lt(Ompi, Bcast, 2, true, 256 * K, CHAIN, FLAT);
    lt(Ompi, Bcast, 2, true, 512 * K, FLAT, BNM);
    lt(Ompi, Bcast, 2, true, MI, BNM, BIN);
    lt(Ompi, Bcast, 4, true, 64, BIN, BNM);
    lt(Ompi, Bcast, 4, true, 128, BNM, BIN);
    lt(Ompi, Bcast, 4, true, 2 * K, BIN, BNM);
    lt(Ompi, Bcast, 4, true, 8 * K, BNM, FLAT);
    lt(Ompi, Bcast, 4, true, MI, FLAT, CHAIN);
    lt(Ompi, Bcast, 8, true, 8, BNM, BIN);
    lt(Ompi, Bcast, 8, true, 64, BIN, BNM);
    lt(Ompi, Bcast, 8, true, 4 * K, BNM, BIN);
    lt(Ompi, Bcast, 8, true, 16 * K, BIN, BNM);
    lt(Ompi, Bcast, 8, true, 32 * K, BNM, FLAT);
    lt(Ompi, Bcast, 16, true, 4 * K, BNM, BNM); // knomial | binomial
    lt(Ompi, Bcast, 16, true, MI, BNM, SRDB);
    lt(Ompi, Bcast, 32, true, 2 * K, BNM, BNM);
    lt(Ompi, Bcast, 128, true, 2, BNM, BIN);
    lt(Ompi, Bcast, 128, true, 16 * K, BIN, FLAT);
    lt(Ompi, Bcast, 128, true, 32 * K, FLAT, BIN);
    lt(Ompi, Bcast, 128, true, 64 * K, BIN, BNM);
    lt(Ompi, Bcast, 256, true, 16 * K, BNM, SPLIT);
    lt(Ompi, Bcast, 256, true, 32 * K, SPLIT, BNM);
    lt(Ompi, Bcast, 1024, true, 512 * K, BNM, SRDB);
    lt(Ompi, Bcast, 2048, true, 256 * K, BNM, SRDB);
    lt(Ompi, Bcast, 4096, true, 8 * K, BNM, BIN);
    lt(Ompi, Bcast, 4096, true, 16 * K, BIN, BNM);
    lt(Ompi, Bcast, 4096, true, 256 * K, BNM, SRDB);
    // scatter_allgather with count < p runs basic_linear: p=16, 1 MiB of 64 KiB elements
    // is 16 elements (>= 16), of 128 KiB elements 8 (< 16).
    let s = grid_spec(Bcast, 16, MI);
    assert_eq!(Ompi.choose_typed(Bcast, 16, &s, true, 64 * K), SRDB);
    assert_eq!(Ompi.choose_typed(Bcast, 16, &s, true, 128 * K), FLAT);
    // split_binary_tree with count <= 1 runs chain: p=256, 16 KiB as 1 or 2 elements.
    let s = grid_spec(Bcast, 256, 16 * K);
    assert_eq!(Ompi.choose_typed(Bcast, 256, &s, true, 16 * K), CHAIN);
    assert_eq!(Ompi.choose_typed(Bcast, 256, &s, true, 8 * K), SPLIT);
}

#[test]
fn ompi_reduce_thresholds() {
    // Commutative.
    lt(Ompi, Reduce, 2, true, 8, LIN, IOB); // 7 B: rabenseifner, count 1 < 2 -> linear
    lt(Ompi, Reduce, 2, true, 16, IOB, PIPE);
    lt(Ompi, Reduce, 2, true, 32, PIPE, LIN);
    lt(Ompi, Reduce, 2, true, 256 * K, LIN, PIPE);
    lt(Ompi, Reduce, 2, true, 512 * K, PIPE, PIPE); // pipeline | chain
    lt(Ompi, Reduce, 2, true, MI, PIPE, PIPE); // chain | pipeline
    lt(Ompi, Reduce, 4, true, 4 * K, IOB, PIPE);
    lt(Ompi, Reduce, 4, true, 64 * K, PIPE, BNM);
    lt(Ompi, Reduce, 4, true, 256 * K, BNM, LIN);
    lt(Ompi, Reduce, 4, true, 512 * K, LIN, BNM);
    lt(Ompi, Reduce, 4, true, MI, BNM, LIN);
    lt(Ompi, Reduce, 8, true, 8 * K, IOB, BNM);
    lt(Ompi, Reduce, 16, true, 4 * K, IOB, BNM);
    lt(Ompi, Reduce, 256, true, 8 * K, BNM, IOB);
    lt(Ompi, Reduce, 256, true, 16 * K, IOB, BNM);
    lt(Ompi, Reduce, 2048, true, 512, BNM, IOB);
    lt(Ompi, Reduce, 2048, true, K, IOB, BNM);
    lt(Ompi, Reduce, 2048, true, 8 * K, BNM, IOB);
    lt(Ompi, Reduce, 2048, true, 16 * K, IOB, BNM);
    lt(Ompi, Reduce, 4096, true, 16, BNM, IOB);
    lt(Ompi, Reduce, 4096, true, 32, IOB, BNM);
    lt(Ompi, Reduce, 4096, true, K, BNM, IOB);
    lt(Ompi, Reduce, 4096, true, 2 * K, IOB, BNM);
    lt(Ompi, Reduce, 4096, true, 8 * K, BNM, IOB);
    lt(Ompi, Reduce, 4096, true, 16 * K, IOB, BNM);
    // Rabenseifner runs when count >= pof2(p) = 2: 7 bytes of 1-byte elements, not 1 byte.
    assert_eq!(Ompi.choose_typed(Reduce, 3, &grid_spec(Reduce, 3, 7), true, 1), RAB);
    assert_eq!(Ompi.choose_typed(Reduce, 3, &grid_spec(Reduce, 3, 1), true, 1), LIN);
    // Non-commutative.
    lt(Ompi, Reduce, 2, false, 8, IOB, LIN);
    lt(Ompi, Reduce, 8, false, K, IOB, LIN);
    lt(Ompi, Reduce, 8, false, 8 * K, LIN, IOB);
    lt(Ompi, Reduce, 8, false, 16 * K, IOB, LIN);
    lt(Ompi, Reduce, 8, false, 256 * K, LIN, IOB);
    lt(Ompi, Reduce, 128, false, 512, IOB, LIN);
    lt(Ompi, Reduce, 128, false, K, LIN, IOB);
}

#[test]
fn ompi_allgather_thresholds() {
    lt(Ompi, Allgather, 32, true, K, RDB, NE);
    lt(Ompi, Allgather, 32, true, 64 * K, NE, RING);
    lt(Ompi, Allgather, 64, true, 512, RDB, NE);
    lt(Ompi, Allgather, 64, true, 64 * K, NE, RING);
    lt(Ompi, Allgather, 128, true, 512, RDB, NE);
    lt(Ompi, Allgather, 128, true, 128 * K, NE, RING);
    lt(Ompi, Allgather, 128, true, 512 * K, RING, NE);
    lt(Ompi, Allgather, 128, true, MI, NE, RING);
    lt(Ompi, Allgather, 256, true, 32, RDB, BRUCK);
    lt(Ompi, Allgather, 256, true, 128, BRUCK, RDB);
    lt(Ompi, Allgather, 256, true, K, RDB, NE);
    lt(Ompi, Allgather, 256, true, 128 * K, NE, RING);
    lt(Ompi, Allgather, 256, true, 512 * K, RING, NE);
    lt(Ompi, Allgather, 256, true, MI, NE, RING);
    lt(Ompi, Allgather, 512, true, 64, RDB, BRUCK);
    lt(Ompi, Allgather, 512, true, 256, BRUCK, RDB);
    lt(Ompi, Allgather, 512, true, 2 * K, RDB, NE);
    lt(Ompi, Allgather, 1024, true, 4, RDB, BRUCK);
    lt(Ompi, Allgather, 1024, true, 8, BRUCK, RDB);
    lt(Ompi, Allgather, 1024, true, 16, RDB, BRUCK);
    lt(Ompi, Allgather, 1024, true, 32, BRUCK, RDB);
    lt(Ompi, Allgather, 1024, true, 256, RDB, BRUCK);
    lt(Ompi, Allgather, 1024, true, 512, BRUCK, RDB);
    lt(Ompi, Allgather, 1024, true, 4 * K, RDB, NE);
    lt(Ompi, Allgather, 2048, true, 32, BRUCK, RDB);
    lt(Ompi, Allgather, 2048, true, 128, RDB, BRUCK);
    lt(Ompi, Allgather, 2048, true, 512, BRUCK, RDB);
    lt(Ompi, Allgather, 2048, true, 4 * K, RDB, NE);
    lt(Ompi, Allgather, 4096, true, 2, RDB, BRUCK);
    lt(Ompi, Allgather, 4096, true, 8, BRUCK, RDB);
    lt(Ompi, Allgather, 4096, true, 16, RDB, BRUCK);
    lt(Ompi, Allgather, 4096, true, 512, BRUCK, RDB);
    lt(Ompi, Allgather, 4096, true, 4 * K, RDB, NE);
    // Non-power-of-two and odd sizes in the same bands.
    lt(Ompi, Allgather, 33, true, K, BRUCK, RING);
    lt(Ompi, Allgather, 4097, true, 4 * K, BRUCK, RING);
}

#[test]
fn ompi_allgatherv_thresholds() {
    // Average block = m (equal counts).
    lt(Ompi, Allgatherv, 2, true, 2 * K, RING, RING);
    lt(Ompi, Allgatherv, 2, true, 4 * K, RING, RING);
    lt(Ompi, Allgatherv, 2, true, 8 * K, RING, RING);
    lt(Ompi, Allgatherv, 4, true, 256, BRUCK, NE);
    lt(Ompi, Allgatherv, 4, true, 4 * K, NE, RING);
    lt(Ompi, Allgatherv, 4, true, 8 * K, RING, NE);
    lt(Ompi, Allgatherv, 4, true, 16 * K, NE, BRUCK);
    lt(Ompi, Allgatherv, 4, true, 256 * K, BRUCK, NE);
    lt(Ompi, Allgatherv, 5, true, 256, BRUCK, RING);
    lt(Ompi, Allgatherv, 8, true, K, BRUCK, BRUCK);
    lt(Ompi, Allgatherv, 16, true, 128, BRUCK, BRUCK);
    lt(Ompi, Allgatherv, 16, true, 256 * K, BRUCK, RING);
    lt(Ompi, Allgatherv, 32, true, 256, BRUCK, BRUCK);
    lt(Ompi, Allgatherv, 32, true, 8 * K, BRUCK, RING);
    lt(Ompi, Allgatherv, 64, true, 256, BRUCK, BRUCK);
    lt(Ompi, Allgatherv, 64, true, 4 * K, BRUCK, RING);
    lt(Ompi, Allgatherv, 128, true, K, BRUCK, NE);
    lt(Ompi, Allgatherv, 128, true, 64 * K, NE, RING);
    lt(Ompi, Allgatherv, 256, true, K, BRUCK, RING);
    lt(Ompi, Allgatherv, 512, true, 512, BRUCK, BRUCK);
    lt(Ompi, Allgatherv, 512, true, K, BRUCK, BRUCK);
    lt(Ompi, Allgatherv, 512, true, 4 * K, BRUCK, NE);
    lt(Ompi, Allgatherv, 512, true, MI, NE, RING);
    lt(Ompi, Allgatherv, 1024, true, 4 * K, BRUCK, NE);
    // The input is the average block, floor(total / p): counts 0,0,0,x on 4 ranks.
    one(Ompi, Allgatherv, 4, true, &total_spec(Allgatherv, 4, 1023), BRUCK); // 255
    one(Ompi, Allgatherv, 4, true, &total_spec(Allgatherv, 4, 1024), NE); // 256
}

#[test]
fn ompi_alltoall_thresholds() {
    lt(Ompi, Alltoall, 2, true, 2, PW, PW);
    lt(Ompi, Alltoall, 2, true, 4, PW, PW);
    lt(Ompi, Alltoall, 2, true, 16, PW, PW);
    lt(Ompi, Alltoall, 2, true, 64, PW, PW);
    lt(Ompi, Alltoall, 2, true, 256, PW, PW);
    lt(Ompi, Alltoall, 2, true, 4 * K, PW, PW);
    lt(Ompi, Alltoall, 2, true, 32 * K, PW, LS);
    lt(Ompi, Alltoall, 2, true, 256 * K, LS, PW);
    lt(Ompi, Alltoall, 2, true, MI, PW, PW);
    lt(Ompi, Alltoall, 3, true, 8 * K, LS, LIN);
    lt(Ompi, Alltoall, 4, true, 8 * K, LS, LIN);
    lt(Ompi, Alltoall, 4, true, 16 * K, LIN, LS);
    lt(Ompi, Alltoall, 4, true, 64 * K, LS, LIN);
    lt(Ompi, Alltoall, 4, true, 512 * K, LIN, PW);
    lt(Ompi, Alltoall, 4, true, MI, PW, LIN);
    lt(Ompi, Alltoall, 8, true, 256 * K, LS, LIN);
    lt(Ompi, Alltoall, 16, true, 4, LS, BRUCK);
    lt(Ompi, Alltoall, 16, true, 512, BRUCK, LS);
    lt(Ompi, Alltoall, 16, true, 8 * K, LS, LIN);
    lt(Ompi, Alltoall, 16, true, 32 * K, LIN, LS);
    lt(Ompi, Alltoall, 16, true, 256 * K, LS, LIN);
    lt(Ompi, Alltoall, 16, true, 512 * K, LIN, LS);
    lt(Ompi, Alltoall, 32, true, 512, BRUCK, LIN);
    lt(Ompi, Alltoall, 32, true, 512 * K, LIN, LS);
    lt(Ompi, Alltoall, 64, true, K, BRUCK, LIN);
    lt(Ompi, Alltoall, 64, true, 2 * K, LIN, LS);
    lt(Ompi, Alltoall, 64, true, 4 * K, LS, LIN);
    lt(Ompi, Alltoall, 64, true, 256 * K, LIN, PW);
    lt(Ompi, Alltoall, 128, true, K, BRUCK, LS);
    lt(Ompi, Alltoall, 128, true, 2 * K, LS, LIN);
    lt(Ompi, Alltoall, 128, true, 256 * K, LIN, PW);
    lt(Ompi, Alltoall, 256, true, K, BRUCK, LS);
    lt(Ompi, Alltoall, 256, true, 8 * K, LS, LIN);
    lt(Ompi, Alltoall, 256, true, 32 * K, LIN, PW);
    lt(Ompi, Alltoall, 512, true, 512, BRUCK, LS);
    lt(Ompi, Alltoall, 512, true, 8 * K, LS, LIN);
    lt(Ompi, Alltoall, 512, true, 16 * K, LIN, LS);
    lt(Ompi, Alltoall, 512, true, 128 * K, LS, LIN);
    lt(Ompi, Alltoall, 512, true, 256 * K, LIN, PW);
    lt(Ompi, Alltoall, 1024, true, 512, BRUCK, LS);
    lt(Ompi, Alltoall, 1024, true, K, LS, LIN);
    lt(Ompi, Alltoall, 1024, true, 2 * K, LIN, LS);
    lt(Ompi, Alltoall, 1024, true, 16 * K, LS, LIN);
    lt(Ompi, Alltoall, 1024, true, 256 * K, LIN, LS);
    lt(Ompi, Alltoall, 2048, true, K, BRUCK, LS);
    lt(Ompi, Alltoall, 2048, true, 4 * K, LS, LIN);
    lt(Ompi, Alltoall, 2048, true, 8 * K, LIN, LS);
    lt(Ompi, Alltoall, 2048, true, 128 * K, LS, LIN);
    lt(Ompi, Alltoall, 4096, true, 2 * K, BRUCK, LS);
    lt(Ompi, Alltoall, 4096, true, 8 * K, LS, LIN);
    lt(Ompi, Alltoall, 4096, true, 16 * K, LIN, LS);
    lt(Ompi, Alltoall, 4096, true, 32 * K, LS, LIN);
    lt(Ompi, Alltoall, 4096, true, 64 * K, LIN, LS);
}

#[test]
fn ompi_gather_scatter_thresholds() {
    lt(Ompi, Gather, 2, true, 2, LS, LIN);
    lt(Ompi, Gather, 2, true, 4, LIN, BNM);
    lt(Ompi, Gather, 2, true, 32 * K, BNM, LIN);
    lt(Ompi, Gather, 2, true, 64 * K, LIN, BNM);
    lt(Ompi, Gather, 2, true, 128 * K, BNM, LS);
    lt(Ompi, Gather, 4, true, K, BNM, LIN);
    lt(Ompi, Gather, 4, true, 8 * K, LIN, BNM);
    lt(Ompi, Gather, 4, true, 32 * K, BNM, LIN);
    lt(Ompi, Gather, 4, true, 256 * K, LIN, LS);
    lt(Ompi, Gather, 256, true, 2 * K, BNM, LIN);
    lt(Ompi, Gather, 256, true, 8 * K, LIN, BNM);

    lt(Ompi, Scatter, 2, true, 2, LNB, LIN);
    lt(Ompi, Scatter, 2, true, 128 * K, LIN, LNB);
    lt(Ompi, Scatter, 2, true, 256 * K, LNB, LIN);
    lt(Ompi, Scatter, 4, true, 2 * K, BNM, LIN);
    lt(Ompi, Scatter, 4, true, 4 * K, LIN, BNM);
    lt(Ompi, Scatter, 4, true, 8 * K, BNM, LIN);
    lt(Ompi, Scatter, 4, true, 32 * K, LIN, LNB);
    lt(Ompi, Scatter, 4, true, MI, LNB, LIN);
    lt(Ompi, Scatter, 8, true, 16 * K, BNM, LNB);
    lt(Ompi, Scatter, 8, true, MI, LNB, LIN);
    lt(Ompi, Scatter, 16, true, 16 * K, BNM, LIN);
    lt(Ompi, Scatter, 16, true, 32 * K, LIN, LNB);
    lt(Ompi, Scatter, 32, true, 512, BNM, LNB);
    lt(Ompi, Scatter, 32, true, 8 * K, LNB, BNM);
    lt(Ompi, Scatter, 32, true, 16 * K, BNM, LNB);
    lt(Ompi, Scatter, 64, true, 512, BNM, LNB);
}

#[test]
fn ompi_reduce_scatter_thresholds() {
    // Threshold on the total Σ counts (here all on rank 0).
    let t = |p: u32, thr: u64, below: &str, above: &str| {
        lt_with(total_spec, Ompi, ReduceScatter, p, true, thr, below, above)
    };
    t(2, 64 * K, RING, RH); // ring | butterfly
    t(2, 128 * K, RH, RING);
    t(4, 8, RH, RH); // non-overlapping | recursive halving
    t(4, 256 * K, RH, RING);
    t(8, 256 * K, RH, RING);
    t(32, 64, RH, RH);
    t(32, 2 * K, RH, RH);
    t(32, 512 * K, RH, RING);
    t(64, 2 * K, RH, RH);
    t(1024, 16 * K, RH, RH);
    let nc = |p: u32, thr: u64| lt_with(total_spec, Ompi, ReduceScatter, p, false, thr, RH, RH);
    nc(2, 64 * K);
    nc(8, 256 * K);
}

#[test]
fn ompi_comm_size_boundaries() {
    // At m = 1 KiB (count 128); reduce_scatter at m = 64 KiB per rank. Derived per band.
    const PS: [u32; 33] = [
        3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024,
        1025, 2047, 2048, 2049, 4095, 4096, 4097,
    ];
    #[rustfmt::skip]
    let tables: &[(Collective, bool, u64, [&str; 33])] = &[
        (Allreduce, true, K, [
            RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RDB, RDB, RDB, RB, RB, RB,
            RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RB]),
        (Allreduce, false, K, [
            RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RB, RB, RB,
            RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RB, RB]),
        (Bcast, true, K, [
            FLAT, BIN, BIN, BIN, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BIN, BIN, BIN,
            BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (Reduce, true, K, [
            LIN, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM,
            BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, IOB, IOB]),
        (Reduce, false, K, [
            LIN, LIN, LIN, LIN, LIN, LIN, LIN, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB,
            IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB, IOB]),
        (Allgather, true, K, [
            BRUCK, RDB, BRUCK, BRUCK, RDB, BRUCK, BRUCK, RDB, BRUCK, BRUCK, NE, RING, RING, NE, RING, RING,
            NE, RING, RING, NE, RING, RING, RDB, BRUCK, BRUCK, RDB, BRUCK, BRUCK, RDB, BRUCK, BRUCK, RDB,
            BRUCK]),
        (Allgatherv, true, K, [
            RING, NE, RING, RING, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK,
            BRUCK, BRUCK, NE, RING, RING, RING, RING, RING, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK,
            BRUCK, BRUCK, BRUCK, BRUCK]),
        (Alltoall, true, K, [
            LS, LS, LS, LS, LS, LS, LS, LS, LS, LS, LIN, LIN, LIN, LIN, LIN, LIN, LS, LS, LS, LS, LS, LS,
            LS, LS, LS, LIN, LIN, LIN, LS, LS, LS, BRUCK, BRUCK]),
        (Gather, true, K, [
            BNM, LIN, LIN, LIN, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM,
            BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM]),
        (Scatter, true, K, [
            LIN, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB,
            LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB, LNB]),
        (ReduceScatter, true, 64 * K, [
            RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RING, RH, RH, RH, RH,
            RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH]),
    ];
    for (coll, comm, m, names) in tables {
        for (i, &p) in PS.iter().enumerate() {
            one(Ompi, *coll, p, *comm, &grid_spec(*coll, p, *m), names[i]);
        }
    }
}

// ---------------------------------------------------------------------------------------
// MPICH grids
// ---------------------------------------------------------------------------------------

#[test]
fn mpich_bcast_grid() {
    // p<8 binomial. p a power of two: <=12288 binomial, <=512K scatter + rd allgather,
    // else scatter + ring allgather. Otherwise <=12288 binomial, else scatter + ring.
    let pow2 = [BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, SRDB, SRDB, SRDB, SRING, SRING];
    let other = [
        BNM, BNM, BNM, BNM, BNM, BNM, BNM, BNM, SRING, SRING, SRING, SRING, SRING,
    ];
    let small = [BNM; 13];
    let rows: &[Row] = &[
        (2, small),
        (3, small),
        (4, small),
        (5, small),
        (7, small),
        (8, pow2),
        (12, other),
        (16, pow2),
        (17, other),
        (32, pow2),
        (64, pow2),
        (100, other),
        (128, pow2),
        (256, pow2),
        (512, pow2),
        (1000, other),
        (1024, pow2),
    ];
    grid(Mpich, Bcast, true, rows);
}

#[test]
fn mpich_allreduce_grid() {
    // 0 B (commutative: smp -> rdb), <=8 B rdb, count < pof2 rdb, else reduce_scatter_allgather.
    // count = m/8: 64 B -> 8, 512 B -> 64, 1K -> 128, 4K -> 512, 8K -> 1024.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (3,    [RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (4,    [RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (5,    [RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (7,    [RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (8,    [RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (12,   [RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (16,   [RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (17,   [RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (32,   [RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (64,   [RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (100,  [RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (128,  [RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (256,  [RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (512,  [RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (1000, [RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB, RAB]),
        (1024, [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RAB, RAB, RAB, RAB, RAB, RAB]),
    ];
    grid(Mpich, Allreduce, true, rows);
    // A non-commutative op is a user op: always recursive doubling.
    constant(Mpich, Allreduce, false, RDB);
}

#[test]
fn mpich_reduce_grid() {
    // <=2048 binomial; built-in op: count < pof2 binomial, else reduce_scatter_gather.
    let most = [BNM, BNM, BNM, BNM, BNM, BNM, SG, SG, SG, SG, SG, SG, SG];
    let rows: Vec<Row> = P
        .iter()
        .map(|&p| {
            if p == 1024 {
                // 4 KiB is 512 elements < 1024.
                (p, [BNM, BNM, BNM, BNM, BNM, BNM, BNM, SG, SG, SG, SG, SG, SG])
            } else {
                (p, most)
            }
        })
        .collect();
    grid(Mpich, Reduce, true, &rows);
    constant(Mpich, Reduce, false, BNM);
}

#[test]
fn mpich_allgather_and_allgatherv_grid() {
    // total = m·p. Power of two: <512K rd, else ring. Otherwise <81920 bruck, else ring.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RING, RING]),
        (3,    [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING]),
        (4,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RING, RING, RING]),
        (5,    [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING]),
        (7,    [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING]),
        (8,    [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RING, RING, RING, RING]),
        (12,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING, RING]),
        (16,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RING, RING, RING, RING]),
        (17,   [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING, RING]),
        (32,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RDB, RING, RING, RING, RING, RING]),
        (64,   [RDB, RDB, RDB, RDB, RDB, RDB, RDB, RING, RING, RING, RING, RING, RING]),
        (100,  [BRUCK, BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING, RING, RING, RING]),
        (128,  [RDB, RDB, RDB, RDB, RDB, RDB, RING, RING, RING, RING, RING, RING, RING]),
        (256,  [RDB, RDB, RDB, RDB, RDB, RDB, RING, RING, RING, RING, RING, RING, RING]),
        (512,  [RDB, RDB, RDB, RDB, RDB, RING, RING, RING, RING, RING, RING, RING, RING]),
        (1000, [BRUCK, BRUCK, BRUCK, BRUCK, RING, RING, RING, RING, RING, RING, RING, RING, RING]),
        (1024, [RDB, RDB, RDB, RDB, RING, RING, RING, RING, RING, RING, RING, RING, RING]),
    ];
    grid(Mpich, Allgather, true, rows);
    grid(Mpich, Allgatherv, true, rows);
}

#[test]
fn mpich_alltoall_grid() {
    // Not in place. p<=8 (csel quirk): <=32768 scattered (linear), else pairwise.
    // Otherwise <=256 brucks, <=32768 scattered (linear), else pairwise.
    let small = [LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, LIN, PW, PW, PW, PW];
    let large = [BRUCK, BRUCK, BRUCK, BRUCK, LIN, LIN, LIN, LIN, LIN, PW, PW, PW, PW];
    let rows: Vec<Row> = P.iter().map(|&p| (p, if p <= 8 { small } else { large })).collect();
    grid(Mpich, Alltoall, true, &rows);
}

#[test]
fn mpich_reduce_scatter_grid() {
    // total = m·p. Commutative: <512K recursive halving, else pairwise.
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (2,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, PW, PW]),
        (3,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, PW, PW]),
        (4,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, PW, PW, PW]),
        (5,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, PW, PW, PW]),
        (7,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, RH, PW, PW, PW]),
        (8,    [RH, RH, RH, RH, RH, RH, RH, RH, RH, PW, PW, PW, PW]),
        (12,   [RH, RH, RH, RH, RH, RH, RH, RH, RH, PW, PW, PW, PW]),
        (16,   [RH, RH, RH, RH, RH, RH, RH, RH, RH, PW, PW, PW, PW]),
        (17,   [RH, RH, RH, RH, RH, RH, RH, RH, RH, PW, PW, PW, PW]),
        (32,   [RH, RH, RH, RH, RH, RH, RH, RH, PW, PW, PW, PW, PW]),
        (64,   [RH, RH, RH, RH, RH, RH, RH, PW, PW, PW, PW, PW, PW]),
        (100,  [RH, RH, RH, RH, RH, RH, RH, PW, PW, PW, PW, PW, PW]),
        (128,  [RH, RH, RH, RH, RH, RH, PW, PW, PW, PW, PW, PW, PW]),
        (256,  [RH, RH, RH, RH, RH, RH, PW, PW, PW, PW, PW, PW, PW]),
        (512,  [RH, RH, RH, RH, RH, PW, PW, PW, PW, PW, PW, PW, PW]),
        (1000, [RH, RH, RH, RH, RH, PW, PW, PW, PW, PW, PW, PW, PW]),
        (1024, [RH, RH, RH, RH, PW, PW, PW, PW, PW, PW, PW, PW, PW]),
    ];
    grid(Mpich, ReduceScatter, true, rows);
    // Non-commutative: noncommutative / recursive doubling -> recursive_halving.
    constant(Mpich, ReduceScatter, false, RH);
}

#[test]
fn mpich_fixed_choices() {
    for comm in [true, false] {
        constant(Mpich, Alltoallv, comm, LIN);
        constant(Mpich, Gather, comm, BNM);
        constant(Mpich, Scatter, comm, BNM);
        constant(Mpich, Gatherv, comm, LIN);
        constant(Mpich, Scatterv, comm, LIN);
        constant(Mpich, Barrier, comm, BRUCK);
        constant(Mpich, Scan, comm, LIN);
        constant(Mpich, Exscan, comm, LIN);
    }
}

// ---------------------------------------------------------------------------------------
// MPICH thresholds
// ---------------------------------------------------------------------------------------

#[test]
fn mpich_thresholds() {
    // bcast (avg <= X keys).
    le(Mpich, Bcast, 8, true, 12288, BNM, SRDB);
    le(Mpich, Bcast, 8, true, 524288, SRDB, SRING);
    le(Mpich, Bcast, 1024, true, 524288, SRDB, SRING);
    le(Mpich, Bcast, 12, true, 12288, BNM, SRING);
    le(Mpich, Bcast, 7, true, 12288, BNM, BNM);
    // bcast: comm_size<8 is pruned strictly: 7 small, 8 and 9 not.
    for (p, want) in [(7, BNM), (8, SRDB), (9, SRING), (15, SRING), (16, SRDB), (17, SRING)] {
        one(Mpich, Bcast, p, true, &grid_spec(Bcast, p, 16 * K), want);
    }

    // allreduce: 0 / <=8 / count < pof2.
    le(Mpich, Allreduce, 2, true, 8, RDB, RAB); // 9 B = 2 elements >= pof2 2
    le(Mpich, Allreduce, 4, true, 8, RDB, RDB); // 9 B = 2 elements < 4
    one(Mpich, Allreduce, 4, true, &grid_spec(Allreduce, 4, 24), RDB); // 3 elements
    one(Mpich, Allreduce, 4, true, &grid_spec(Allreduce, 4, 25), RAB); // 4 elements
    one(Mpich, Allreduce, 1024, true, &grid_spec(Allreduce, 1024, 8184), RDB); // 1023
    one(Mpich, Allreduce, 1024, true, &grid_spec(Allreduce, 1024, 8185), RAB); // 1024
    one(Mpich, Allreduce, 1000, true, &grid_spec(Allreduce, 1000, 4088), RDB); // 511 < 512
    one(Mpich, Allreduce, 1000, true, &grid_spec(Allreduce, 1000, 4089), RAB); // 512
    one(Mpich, Allreduce, 2, false, &grid_spec(Allreduce, 2, 0), RDB);
    one(Mpich, Allreduce, 2, false, &grid_spec(Allreduce, 2, MI), RDB);
    // Element size: 4 KiB on 1024 ranks is rabenseifner with 4-byte ints, rdb with doubles.
    let s = grid_spec(Allreduce, 1024, 4 * K);
    assert_eq!(Mpich.choose_typed(Allreduce, 1024, &s, true, 4), RAB);
    assert_eq!(Mpich.choose_typed(Allreduce, 1024, &s, true, 8), RDB);
    assert_eq!(Mpich.choose(Allreduce, 1024, &s, true), RDB);

    // reduce: <=2048 / count < pof2.
    le(Mpich, Reduce, 2, true, 2048, BNM, SG);
    le(Mpich, Reduce, 1024, true, 2048, BNM, BNM); // 2049 B = 257 elements < 1024
    one(Mpich, Reduce, 1024, true, &grid_spec(Reduce, 1024, 8184), BNM);
    one(Mpich, Reduce, 1024, true, &grid_spec(Reduce, 1024, 8185), SG);
    le(Mpich, Reduce, 2, false, 2048, BNM, BNM);

    // allgather: total = block·p.
    for (p, m, want) in [
        (4, 131071, RDB),
        (4, 131072, RING),
        (5, 16383, BRUCK),
        (5, 16384, RING),
        (3, 27306, BRUCK),
        (3, 27307, RING),
        (1024, 511, RDB),
        (1024, 512, RING),
    ] {
        one(Mpich, Allgather, p, true, &grid_spec(Allgather, p, m), want);
    }
    // allgatherv / reduce_scatter: total = Σ counts.
    let t = |coll: Collective, p: u32, thr: u64, below: &str, above: &str, comm: bool| {
        lt_with(total_spec, Mpich, coll, p, comm, thr, below, above)
    };
    t(Allgatherv, 4, 524288, RDB, RING, true);
    t(Allgatherv, 5, 81920, BRUCK, RING, true);
    t(Allgatherv, 1000, 81920, BRUCK, RING, true);
    t(ReduceScatter, 4, 524288, RH, PW, true);
    t(ReduceScatter, 5, 524288, RH, PW, true);
    t(ReduceScatter, 4, 524288, RH, RH, false);
    // Irregular counts on a power of two, non-commutative: still recursive_halving.
    one(Mpich, ReduceScatter, 8, false, &total_spec(ReduceScatter, 8, 100), RH);

    // alltoall: per-destination block; p <= 8 takes the small branch (csel `<=` quirk).
    le(Mpich, Alltoall, 8, true, 32768, LIN, PW);
    le(Mpich, Alltoall, 2, true, 32768, LIN, PW);
    le(Mpich, Alltoall, 9, true, 256, BRUCK, LIN);
    le(Mpich, Alltoall, 9, true, 32768, LIN, PW);
    for (p, want) in [(7, LIN), (8, LIN), (9, BRUCK), (16, BRUCK)] {
        one(Mpich, Alltoall, p, true, &grid_spec(Alltoall, p, 64), want);
    }
}

// ---------------------------------------------------------------------------------------
// API
// ---------------------------------------------------------------------------------------

#[test]
fn parse_and_names() {
    assert_eq!(Selector::parse("ompi"), Some(Ompi));
    assert_eq!(Selector::parse("mpich"), Some(Mpich));
    assert_eq!(Selector::parse("openmpi"), None);
    assert_eq!(Selector::parse(""), None);
    for s in Selector::ALL {
        assert_eq!(Selector::parse(s.name()), Some(s));
    }
    assert_eq!(DEFAULT_ELEMENT_BYTES, 8);
}

#[test]
fn notes_cover_both_libraries() {
    let all = notes();
    assert!(all
        .iter()
        .all(|n| n.starts_with("ompi:") || n.starts_with("mpich:") || n.starts_with("both:")));
    for (sel, needle) in [
        (Ompi, "knomial"),
        (Ompi, "basic_linear"),
        (Ompi, "butterfly"),
        (Ompi, "coll/basic"),
        (Mpich, "scattered"),
        (Mpich, "exscan"),
        (Mpich, "smp"),
        (Mpich, "in place"),
    ] {
        let mine = sel.notes();
        assert!(mine.iter().any(|n| n.contains(needle)), "{sel:?} notes lack '{needle}'");
        assert!(mine
            .iter()
            .all(|n| !n.starts_with(if sel == Ompi { "mpich:" } else { "ompi:" })));
    }
}
