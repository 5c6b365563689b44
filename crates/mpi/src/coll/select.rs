//! Default algorithm selection of two MPI libraries, expressed with simpi's algorithm names.
//!
//! * [`Selector::Ompi`]: Open MPI 4.1's `coll/tuned` component with its fixed decision rules
//!   (`ompi/mca/coll/tuned/coll_tuned_decision_fixed.c`, identical in v4.1.0 to v4.1.8; line
//!   numbers below are those of v4.1.8), plus `coll/basic` for the operations tuned leaves
//!   out (gatherv, scatterv, scan, exscan: `coll_tuned_module.c:106,108,112,114`).
//! * [`Selector::Mpich`]: MPICH 4's `auto` selection, a csel search over
//!   `maint/tuning/coll/mpir/generic.json` (v4.2.3, identical to v4.1.2; line numbers below
//!   are those of v4.2.3), for a *flat* intracommunicator (no node hierarchy, so none of
//!   the `*_smp` compositions; see `src/mpi/coll/src/csel.c`).
//!
//! The message-size input is computed as each library computes it: Open MPI uses the whole
//! vector for bcast, reduce, allreduce and reduce_scatter, one rank's block for allgather,
//! alltoall, gather and scatter, and the *average* block `⌊Σ/p⌋` for allgatherv; MPICH uses
//! `avg_msg_size` (the vector, or the per-destination block of alltoall) or `total_msg_size`
//! (allgather: block·p; allgatherv and reduce_scatter: Σ counts), see `csel.c:869-1100`.
//!
//! The libraries also fall back to another algorithm inside some algorithms (e.g. Open MPI's
//! ring allreduce runs recursive doubling when `count < p`). Those fallbacks are applied
//! here, so the name returned is the algorithm that actually runs. Where they depend on the
//! element count, the count is `⌈bytes / element_bytes⌉` with the element size given to
//! [`Selector::choose_typed`] ([`DEFAULT_ELEMENT_BYTES`] for [`Selector::choose`]).
//!
//! Where a library runs an algorithm simpi does not have, the closest one is returned and
//! the substitution is listed in [`notes`].

use crate::coll::{pow2_floor, CollSpec, Collective};

/// Element size assumed by [`Selector::choose`] (an `MPI_DOUBLE`), used only where a
/// library's choice depends on the element count rather than on bytes.
pub const DEFAULT_ELEMENT_BYTES: u64 = 8;

/// Whose default algorithm selection to reproduce.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Selector {
    /// Open MPI 4.1, `coll/tuned` fixed decision rules.
    Ompi,
    /// MPICH 4 (4.1.2 to 4.2.3), default JSON selection on a flat communicator.
    Mpich,
}

/// Every substitution or assumption the selectors make, prefixed by the library.
const NOTES: &[&str] = &[
    "ompi: bcast knomial (alg 7, radix 4) -> binomial (we have no k-nomial tree)",
    "ompi: bcast basic_linear (alg 1) -> flattree",
    "ompi: bcast chain (alg 2) and pipeline (alg 3) are named as chosen; the fixed path runs both unsegmented with \
     fanout 1 (coll_tuned_decision_fixed.c:649-651, coll_base_topo.c:546)",
    "ompi: bcast scatter_allgather (alg 8) -> scatter_rdb_allgather; with count < p it runs basic_linear -> flattree \
     (coll_base_bcast.c:794)",
    "ompi: bcast split_binary_tree (alg 4) with count <= 1 runs chain (coll_base_bcast.c:418)",
    "ompi: bcast split_binary_tree (alg 4) runs each half unsegmented in the fixed path (segsize 0); split_binary \
     cuts 1 KiB / 8 KiB segments, SimGrid 3.32 ompi_split_bintree's rule",
    "ompi: gather linear_sync (alg 3) sends each block whole in the fixed path (first segment size 0); linear_sync \
     cuts a first segment of 1 KiB / 32 KiB, SimGrid 3.32 ompi_linear_sync's rule",
    "ompi: allreduce basic_linear (alg 1: linear reduce + linear bcast) and nonoverlapping (alg 2: tuned reduce + \
     tuned bcast) -> redbcast",
    "ompi: allreduce segmented_ring (alg 5) runs the plain ring because the fixed path passes segsize 0 \
     (coll_base_allreduce.c:656) -> ring",
    "ompi: allreduce ring with count < p runs recursive doubling (coll_base_allreduce.c:371) -> rdb",
    "ompi: allreduce rabenseifner (alg 6) with count < pof2(p) runs basic_linear (coll_base_allreduce.c:988) -> \
     redbcast",
    "ompi: reduce chain (alg 2, fanout 1, unsegmented) is the pipeline -> pipeline",
    "ompi: reduce binary (alg 4, k-ary tree rooted at root) -> in_order_binary (the binary tree we have)",
    "ompi: reduce rabenseifner (alg 7) with count < pof2(p) runs linear (coll_base_reduce.c:812) -> linear",
    "ompi: allgather recursive_doubling (alg 3) on a non-power-of-two p runs bruck (coll_base_allgather.c:275)",
    "ompi: allgather/allgatherv neighbor exchange on an odd p runs ring (coll_base_allgather.c:499, \
     coll_base_allgatherv.c:365)",
    "ompi: allgather two_proc (alg 6, p == 2) -> pair",
    "ompi: allgatherv default (alg 1: basic linear gatherv to 0 + tuned bcast) -> bruck (logarithmic, any p)",
    "ompi: allgatherv two_proc (alg 5, p == 2) -> ring (one exchange at p = 2)",
    "ompi: alltoall two_proc (alg 5, p == 2) -> pairwise (one exchange at p = 2)",
    "ompi: reduce_scatter non-overlapping (alg 1: tuned reduce + basic scatterv; always used for non-commutative \
     ops) -> recursive_halving",
    "ompi: reduce_scatter butterfly (alg 4) -> recursive_halving (same rounds and volume, other partner order)",
    "ompi: gatherv, scatterv, scan and exscan come from coll/basic -> linear",
    "ompi: the library returns before selecting when the count is 0 (bcast, reduce, allreduce, scan, exscan, \
     allgather, alltoall, ...); the rules are still evaluated here for 0 bytes",
    "mpich: flat communicator assumed (no *_smp node-aware compositions)",
    "mpich: allreduce of 0 bytes with a commutative op selects smp, which on a flat communicator only copies \
     locally -> rdb",
    "mpich: is_op_built_in is taken as the op's commutativity (every predefined op is commutative)",
    "mpich: alltoall/alltoallv send buffers are assumed not in place (pairwise_sendrecv_replace never chosen)",
    "mpich: alltoall/alltoallv scattered (batches of 32 isend/irecv, self included) -> linear",
    "mpich: reduce_scatter noncommutative (Traff butterfly) and recursive_doubling -> recursive_halving",
    "mpich: exscan recursive_doubling -> linear",
    "mpich: scan recursive_doubling -> linear",
    "mpich: the library returns before selecting for some zero counts (bcast, allgather, alltoall, gather, exscan); \
     the rules are still evaluated here for 0 bytes",
    "both: element counts (count < p, count < pof2) are ceil(bytes / element size), element size 8 by default",
];

/// The substitutions and assumptions of both selectors (each line starts with `ompi:`,
/// `mpich:` or `both:`).
pub fn notes() -> &'static [&'static str] {
    NOTES
}

impl Selector {
    /// Both selectors.
    pub const ALL: [Selector; 2] = [Selector::Ompi, Selector::Mpich];

    /// The selector called `name` (`ompi` or `mpich`).
    pub fn parse(name: &str) -> Option<Selector> {
        match name {
            "ompi" => Some(Selector::Ompi),
            "mpich" => Some(Selector::Mpich),
            _ => None,
        }
    }

    /// Its name on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Selector::Ompi => "ompi",
            Selector::Mpich => "mpich",
        }
    }

    /// The notes that concern this selector.
    pub fn notes(&self) -> Vec<&'static str> {
        let prefix = format!("{}:", self.name());
        NOTES
            .iter()
            .copied()
            .filter(|n| n.starts_with(&prefix) || n.starts_with("both:"))
            .collect()
    }

    /// The algorithm (simpi name) this library runs for `coll` on `comm_size` ranks with the
    /// sizes of `spec`, assuming [`DEFAULT_ELEMENT_BYTES`]-byte elements.
    pub fn choose(&self, coll: Collective, comm_size: u32, spec: &CollSpec, commutative: bool) -> &'static str {
        self.choose_typed(coll, comm_size, spec, commutative, DEFAULT_ELEMENT_BYTES)
    }

    /// As [`Selector::choose`], with elements of `element_bytes` bytes (used where the
    /// library looks at the element count).
    pub fn choose_typed(
        &self,
        coll: Collective,
        comm_size: u32,
        spec: &CollSpec,
        commutative: bool,
        element_bytes: u64,
    ) -> &'static str {
        let p = comm_size.max(1);
        let sizes = Sizes::new(coll, p, spec, element_bytes);
        match self {
            Selector::Ompi => ompi(coll, p, &sizes, commutative),
            Selector::Mpich => mpich(coll, p, &sizes, commutative),
        }
    }
}

/// The size inputs of one call.
struct Sizes {
    /// `spec.bytes`: the message or vector (bcast, reductions, scans), one rank's block
    /// (allgather, gather, scatter), one destination's block (alltoall).
    bytes: u64,
    /// Σ counts (allgatherv, reduce_scatter; `bytes·p` when the counts are missing).
    total: u64,
    /// Elements in `bytes`.
    count: u64,
}

impl Sizes {
    fn new(coll: Collective, p: u32, spec: &CollSpec, element_bytes: u64) -> Sizes {
        let vector = matches!(coll, Collective::Allgatherv | Collective::ReduceScatter);
        // Saturating: a selector only compares sizes with thresholds, and a size past
        // 2^64 (refused later, where the buffer is checked) is simply "large".
        let total = if vector && !spec.counts.is_empty() {
            spec.counts.iter().fold(0u64, |t, &c| t.saturating_add(c))
        } else {
            spec.bytes.saturating_mul(u64::from(p))
        };
        Sizes {
            bytes: spec.bytes,
            total,
            count: spec.bytes.div_ceil(element_bytes.max(1)),
        }
    }
}

/// The value of the first `(limit, alg)` with `s < limit`, else `last`: one `if (s < limit)
/// alg = …; else if …` chain of `coll_tuned_decision_fixed.c`.
fn below(s: u64, steps: &[(u64, u8)], last: u8) -> u8 {
    steps
        .iter()
        .find(|&&(limit, _)| s < limit)
        .map_or(last, |&(_, alg)| alg)
}

const K: u64 = 1024;
const M: u64 = 1024 * 1024;

// ---------------------------------------------------------------------------------------
// Open MPI 4.1: ompi/mca/coll/tuned/coll_tuned_decision_fixed.c @ v4.1.8 ("lines N" below)
// ---------------------------------------------------------------------------------------

fn ompi(coll: Collective, p: u32, z: &Sizes, commutative: bool) -> &'static str {
    let pow2 = p.is_power_of_two();
    let pof2 = u64::from(pow2_floor(p));
    let np = u64::from(p);
    match coll {
        Collective::Allreduce => {
            // S = dsize·count, the whole vector (lines 66-67).
            let alg = ompi_allreduce(p, z.bytes, commutative);
            match alg {
                // basic_linear, nonoverlapping: a reduce to 0 then a bcast.
                1 | 2 => "redbcast",
                3 => "rdb",
                // segmented_ring with segsize 0 is the ring (coll_base_allreduce.c:650-660);
                // the ring runs recursive doubling when count < p (coll_base_allreduce.c:371).
                4 | 5 if z.count < np => "rdb",
                4 | 5 => "ring",
                // redscat_allgather falls back to basic_linear (coll_base_allreduce.c:988).
                _ if z.count < pof2 || !commutative => "redbcast",
                _ => "rabenseifner",
            }
        }
        Collective::Bcast => {
            // S = dsize·count (lines 521-522).
            match ompi_bcast(p, z.bytes) {
                1 => "flattree",
                2 => "chain",
                3 => "pipeline",
                // split_binary_tree runs chain when a half is empty (coll_base_bcast.c:418).
                4 if z.count <= 1 => "chain",
                4 => "split_binary",
                5 => "binary",
                // 6 binomial; 7 knomial (radix 4, coll_tuned_bcast_decision.c:34): closest is binomial.
                6 | 7 => "binomial",
                // scatter_allgather falls back to basic_linear when count < p (coll_base_bcast.c:794).
                _ if z.count < np => "flattree",
                _ => "scatter_rdb_allgather",
            }
        }
        Collective::Reduce => {
            // S = dsize·count (lines 676-677).
            match ompi_reduce(p, z.bytes, commutative) {
                1 => "linear",
                // chain with fanout 1 (coll_base_topo.c:546) and no segments is the pipeline.
                2 | 3 => "pipeline",
                // binary (k-ary tree, fanout 2): closest is our in-order binary tree.
                4 | 6 => "in_order_binary",
                5 => "binomial",
                // redscat_gather falls back to linear (coll_base_reduce.c:812).
                _ if z.count < pof2 || pof2 < 2 || !commutative => "linear",
                _ => "rabenseifner",
            }
        }
        Collective::Allgather => {
            // S = dsize·scount, one rank's block (lines 1102-1107).
            match ompi_allgather(p, z.bytes) {
                2 => "bruck",
                // recursive doubling runs bruck on a non-power-of-two p (coll_base_allgather.c:275).
                3 if pow2 => "rdb",
                3 => "bruck",
                4 => "ring",
                // neighbor exchange runs ring on an odd p (coll_base_allgather.c:499).
                5 if p & 1 == 0 => "neighbor_exchange",
                5 => "ring",
                // two_proc (never 1 = linear: the table does not choose it).
                _ => "pair",
            }
        }
        Collective::Allgatherv => {
            // S = Σ dsize·rcounts[i] / p, the average block (lines 1258-1262).
            let s = z.total / np;
            match ompi_allgatherv(p, s) {
                // default = basic gatherv + bcast: closest logarithmic algorithm we have.
                1 | 2 => "bruck",
                // neighbor exchange runs ring on an odd p (coll_base_allgatherv.c:365).
                4 if p & 1 == 0 => "neighbor_exchange",
                // 3 ring; 5 two_proc (p == 2: one exchange, as the ring).
                _ => "ring",
            }
        }
        Collective::Alltoall => {
            // S = dsize·scount, one destination's block (lines 239-244).
            match ompi_alltoall(p, z.bytes) {
                1 => "linear",
                3 => "bruck",
                4 => "linear_sync",
                // 2 pairwise; 5 two_proc (p == 2: one exchange, as pairwise).
                _ => "pairwise",
            }
        }
        Collective::Alltoallv => {
            // Communicator size only (lines 436-448).
            let alg = if p < 4 {
                2
            } else if p < 64 {
                1
            } else if p < 128 {
                2
            } else if p < 256 {
                1
            } else if p < 1024 {
                2
            } else {
                1
            };
            if alg == 1 {
                "linear"
            } else {
                "pairwise"
            }
        }
        Collective::Barrier => {
            // Communicator size only (lines 482-498).
            let alg = if p < 4 {
                3
            } else if p < 8 {
                1
            } else if p < 64 {
                3
            } else if p < 256 {
                4
            } else if p < 512 {
                6
            } else if p < 1024 {
                4
            } else if p < 4096 {
                6
            } else {
                4
            };
            match alg {
                1 => "linear",
                3 => "recursive_doubling",
                4 => "bruck",
                _ => "tree",
            }
        }
        Collective::Gather => {
            // S = one rank's block (lines 1396-1403).
            let alg = if p < 4 {
                // lines 1413-1426
                below(z.bytes, &[(2, 3), (4, 1), (32 * K, 2), (64 * K, 1), (128 * K, 2)], 3)
            } else if p < 8 {
                // lines 1427-1438
                below(z.bytes, &[(K, 2), (8 * K, 1), (32 * K, 2), (256 * K, 1)], 3)
            } else if p < 256 {
                2 // lines 1439-1440
            } else if p < 512 {
                // lines 1441-1448
                below(z.bytes, &[(2 * K, 2), (8 * K, 1)], 2)
            } else {
                2 // lines 1449-1450
            };
            match alg {
                1 => "linear",
                2 => "binomial",
                _ => "linear_sync",
            }
        }
        Collective::Scatter => {
            // S = one rank's block (lines 1484-1490).
            let alg = if p < 4 {
                // lines 1500-1509
                below(z.bytes, &[(2, 3), (128 * K, 1), (256 * K, 3)], 1)
            } else if p < 8 {
                // lines 1510-1523
                below(z.bytes, &[(2 * K, 2), (4 * K, 1), (8 * K, 2), (32 * K, 1), (M, 3)], 1)
            } else if p < 16 {
                // lines 1524-1531
                below(z.bytes, &[(16 * K, 2), (M, 3)], 1)
            } else if p < 32 {
                // lines 1532-1539
                below(z.bytes, &[(16 * K, 2), (32 * K, 1)], 3)
            } else if p < 64 {
                // lines 1540-1549
                below(z.bytes, &[(512, 2), (8 * K, 3), (16 * K, 2)], 3)
            } else {
                // lines 1550-1555
                below(z.bytes, &[(512, 2)], 3)
            };
            match alg {
                1 => "linear",
                2 => "binomial",
                // linear_nb: isends + waitall (scatter_blocking_send_ratio 0).
                _ => "linear_nb",
            }
        }
        Collective::ReduceScatter => {
            // S = dsize·Σ rcounts, the whole vector (lines 838-842).
            match ompi_reduce_scatter(p, z.total, commutative) {
                3 => "ring",
                // 1 non-overlapping (reduce + scatterv), 2 recursive halving, 4 butterfly.
                _ => "recursive_halving",
            }
        }
        // coll/basic (coll_tuned_module.c:106,108,112,114): linear algorithms.
        Collective::Gatherv | Collective::Scatterv | Collective::Scan | Collective::Exscan => "linear",
    }
}

/// Allreduce: `coll_tuned_decision_fixed.c` lines 80-214.
fn ompi_allreduce(p: u32, s: u64, commutative: bool) -> u8 {
    if !commutative {
        if p < 4 {
            below(s, &[(128 * K, 3)], 1) // lines 81-86
        } else if p < 8 {
            3 // lines 87-88
        } else if p < 16 {
            below(s, &[(M, 3)], 2) // lines 89-94
        } else if p < 128 {
            3 // lines 95-96
        } else if p < 256 {
            below(s, &[(128 * K, 2), (512 * K, 3)], 2) // lines 97-104
        } else if p < 512 {
            below(s, &[(4 * K, 2), (512 * K, 3)], 2) // lines 105-112
        } else {
            below(s, &[(2 * K, 2)], 3) // lines 113-119
        }
    } else if p < 4 {
        // lines 121-136
        below(
            s,
            &[(8, 4), (4 * K, 3), (8 * K, 4), (16 * K, 3), (64 * K, 4), (256 * K, 5)],
            6,
        )
    } else if p < 8 {
        below(s, &[(16, 4), (8 * K, 3)], 6) // lines 137-144
    } else if p < 16 {
        below(s, &[(8 * K, 3)], 6) // lines 145-150
    } else if p < 32 {
        below(s, &[(64, 5), (4 * K, 3)], 6) // lines 151-158
    } else if p < 64 {
        below(s, &[(128, 5)], 6) // lines 159-164
    } else if p < 128 {
        below(s, &[(256 * K, 3)], 6) // lines 165-170
    } else if p < 256 {
        below(s, &[(128 * K, 2), (256 * K, 3)], 6) // lines 171-178
    } else if p < 512 {
        below(s, &[(4 * K, 2)], 6) // lines 179-184
    } else if p < 2048 {
        below(s, &[(2 * K, 2), (16 * K, 3)], 6) // lines 185-192
    } else if p < 4096 {
        below(s, &[(2 * K, 2), (4 * K, 5), (16 * K, 3)], 6) // lines 193-202
    } else {
        below(s, &[(2 * K, 2), (16 * K, 5), (32 * K, 3)], 6) // lines 203-213
    }
}

/// Bcast: `coll_tuned_decision_fixed.c` lines 539-647.
fn ompi_bcast(p: u32, s: u64) -> u8 {
    if p < 4 {
        // lines 539-560
        below(
            s,
            &[
                (32, 3),
                (256, 5),
                (512, 3),
                (K, 7),
                (32 * K, 1),
                (128 * K, 5),
                (256 * K, 2),
                (512 * K, 1),
                (M, 6),
            ],
            5,
        )
    } else if p < 8 {
        // lines 561-574
        below(s, &[(64, 5), (128, 6), (2 * K, 5), (8 * K, 6), (M, 1)], 2)
    } else if p < 16 {
        // lines 575-588
        below(s, &[(8, 7), (64, 5), (4 * K, 7), (16 * K, 5), (32 * K, 6)], 1)
    } else if p < 32 {
        below(s, &[(4 * K, 7), (M, 6)], 8) // lines 589-596
    } else if p < 64 {
        below(s, &[(2 * K, 6)], 7) // lines 597-602
    } else if p < 128 {
        7 // lines 603-604
    } else if p < 256 {
        // lines 605-616
        below(s, &[(2, 6), (16 * K, 5), (32 * K, 1), (64 * K, 5)], 7)
    } else if p < 1024 {
        below(s, &[(16 * K, 7), (32 * K, 4)], 7) // lines 617-624
    } else if p < 2048 {
        below(s, &[(512 * K, 7)], 8) // lines 625-630
    } else if p < 4096 {
        below(s, &[(256 * K, 7)], 8) // lines 631-636
    } else {
        below(s, &[(8 * K, 7), (16 * K, 5), (256 * K, 7)], 8) // lines 637-646
    }
}

/// Reduce: `coll_tuned_decision_fixed.c` lines 691-809.
fn ompi_reduce(p: u32, s: u64, commutative: bool) -> u8 {
    if !commutative {
        if p < 4 {
            below(s, &[(8, 6)], 1) // lines 692-697
        } else if p < 8 {
            1 // lines 698-699
        } else if p < 16 {
            // lines 700-711
            below(s, &[(K, 6), (8 * K, 1), (16 * K, 6), (256 * K, 1)], 6)
        } else if p < 128 {
            6 // lines 712-713
        } else if p < 256 {
            below(s, &[(512, 6), (K, 1)], 6) // lines 714-721
        } else {
            6 // lines 722-723
        }
    } else if p < 4 {
        // lines 726-741
        below(s, &[(8, 7), (16, 4), (32, 3), (256 * K, 1), (512 * K, 3), (M, 2)], 3)
    } else if p < 8 {
        // lines 742-755
        below(s, &[(4 * K, 4), (64 * K, 2), (256 * K, 5), (512 * K, 1), (M, 5)], 1)
    } else if p < 16 {
        below(s, &[(8 * K, 4)], 5) // lines 756-761
    } else if p < 32 {
        below(s, &[(4 * K, 4)], 5) // lines 762-767
    } else if p < 256 {
        5 // lines 768-769
    } else if p < 512 {
        below(s, &[(8 * K, 5), (16 * K, 6)], 5) // lines 770-777
    } else if p < 2048 {
        5 // lines 778-779
    } else if p < 4096 {
        // lines 780-791
        below(s, &[(512, 5), (K, 6), (8 * K, 5), (16 * K, 6)], 5)
    } else {
        // lines 792-807
        below(s, &[(16, 5), (32, 6), (K, 5), (2 * K, 6), (8 * K, 5), (16 * K, 6)], 5)
    }
}

/// Reduce_scatter: `coll_tuned_decision_fixed.c` lines 853-957.
fn ompi_reduce_scatter(p: u32, s: u64, commutative: bool) -> u8 {
    if !commutative {
        1 // lines 853-854
    } else if p < 4 {
        below(s, &[(64 * K, 3), (128 * K, 4)], 3) // lines 856-863
    } else if p < 8 {
        below(s, &[(8, 1), (256 * K, 2)], 3) // lines 864-871
    } else if p < 32 {
        below(s, &[(256 * K, 2)], 3) // lines 872-877
    } else if p < 64 {
        below(s, &[(64, 1), (2 * K, 2), (512 * K, 4)], 3) // lines 878-887
    } else if p < 128 {
        below(s, &[(256, 1), (512, 2), (2 * K, 4), (4 * K, 2)], 4) // lines 888-899
    } else if p < 256 {
        below(s, &[(256, 1), (512, 2)], 4) // lines 900-907
    } else if p < 512 {
        below(s, &[(256, 1), (K, 2)], 4) // lines 908-915
    } else if p < 1024 {
        below(s, &[(512, 1), (2 * K, 2), (8 * K, 4), (16 * K, 2)], 4) // lines 916-927
    } else if p < 2048 {
        below(s, &[(512, 1), (4 * K, 2), (16 * K, 4), (32 * K, 2)], 4) // lines 928-939
    } else if p < 4096 {
        below(s, &[(512, 1), (4 * K, 2)], 4) // lines 940-947
    } else {
        below(s, &[(K, 1), (8 * K, 2)], 4) // lines 948-955
    }
}

/// Allgather: `coll_tuned_decision_fixed.c` lines 1118-1220.
fn ompi_allgather(p: u32, s: u64) -> u8 {
    if p == 2 {
        6 // lines 1118-1119
    } else if p < 32 {
        3 // lines 1120-1121
    } else if p < 64 {
        below(s, &[(K, 3), (64 * K, 5)], 4) // lines 1122-1129
    } else if p < 128 {
        below(s, &[(512, 3), (64 * K, 5)], 4) // lines 1130-1137
    } else if p < 256 {
        // lines 1138-1149
        below(s, &[(512, 3), (128 * K, 5), (512 * K, 4), (M, 5)], 4)
    } else if p < 512 {
        // lines 1150-1165
        below(s, &[(32, 3), (128, 2), (K, 3), (128 * K, 5), (512 * K, 4), (M, 5)], 4)
    } else if p < 1024 {
        below(s, &[(64, 3), (256, 2), (2 * K, 3)], 5) // lines 1166-1175
    } else if p < 2048 {
        // lines 1176-1193
        below(
            s,
            &[(4, 3), (8, 2), (16, 3), (32, 2), (256, 3), (512, 2), (4 * K, 3)],
            5,
        )
    } else if p < 4096 {
        below(s, &[(32, 2), (128, 3), (512, 2), (4 * K, 3)], 5) // lines 1194-1205
    } else {
        below(s, &[(2, 3), (8, 2), (16, 3), (512, 2), (4 * K, 3)], 5) // lines 1206-1219
    }
}

/// Allgatherv: `coll_tuned_decision_fixed.c` lines 1271-1357.
fn ompi_allgatherv(p: u32, s: u64) -> u8 {
    if p == 2 {
        below(s, &[(2 * K, 3), (4 * K, 5), (8 * K, 3)], 5) // lines 1271-1280
    } else if p < 8 {
        // lines 1281-1294
        below(s, &[(256, 1), (4 * K, 4), (8 * K, 3), (16 * K, 4), (256 * K, 2)], 4)
    } else if p < 16 {
        below(s, &[(K, 1)], 2) // lines 1295-1300
    } else if p < 32 {
        below(s, &[(128, 1), (256 * K, 2)], 3) // lines 1301-1308
    } else if p < 64 {
        below(s, &[(256, 1), (8 * K, 2)], 3) // lines 1309-1316
    } else if p < 128 {
        below(s, &[(256, 1), (4 * K, 2)], 3) // lines 1317-1324
    } else if p < 256 {
        below(s, &[(K, 2), (64 * K, 4)], 3) // lines 1325-1332
    } else if p < 512 {
        below(s, &[(K, 2)], 3) // lines 1333-1338
    } else if p < 1024 {
        below(s, &[(512, 2), (K, 1), (4 * K, 2), (M, 4)], 3) // lines 1339-1350
    } else {
        below(s, &[(4 * K, 2)], 4) // lines 1351-1356
    }
}

/// Alltoall: `coll_tuned_decision_fixed.c` lines 253-405.
fn ompi_alltoall(p: u32, s: u64) -> u8 {
    if p == 2 {
        // lines 253-274
        below(
            s,
            &[
                (2, 2),
                (4, 5),
                (16, 2),
                (64, 5),
                (256, 2),
                (4 * K, 5),
                (32 * K, 2),
                (256 * K, 4),
                (M, 5),
            ],
            2,
        )
    } else if p < 8 {
        // lines 275-288
        below(s, &[(8 * K, 4), (16 * K, 1), (64 * K, 4), (512 * K, 1), (M, 2)], 1)
    } else if p < 16 {
        below(s, &[(256 * K, 4)], 1) // lines 289-294
    } else if p < 32 {
        // lines 295-310
        below(
            s,
            &[(4, 4), (512, 3), (8 * K, 4), (32 * K, 1), (256 * K, 4), (512 * K, 1)],
            4,
        )
    } else if p < 64 {
        below(s, &[(512, 3), (512 * K, 1)], 4) // lines 311-318
    } else if p < 128 {
        // lines 319-330
        below(s, &[(K, 3), (2 * K, 1), (4 * K, 4), (256 * K, 1)], 2)
    } else if p < 256 {
        below(s, &[(K, 3), (2 * K, 4), (256 * K, 1)], 2) // lines 331-340
    } else if p < 512 {
        below(s, &[(K, 3), (8 * K, 4), (32 * K, 1)], 2) // lines 341-350
    } else if p < 1024 {
        // lines 351-364
        below(s, &[(512, 3), (8 * K, 4), (16 * K, 1), (128 * K, 4), (256 * K, 1)], 2)
    } else if p < 2048 {
        // lines 365-378
        below(s, &[(512, 3), (K, 4), (2 * K, 1), (16 * K, 4), (256 * K, 1)], 4)
    } else if p < 4096 {
        // lines 379-390
        below(s, &[(K, 3), (4 * K, 4), (8 * K, 1), (128 * K, 4)], 1)
    } else {
        // lines 391-404
        below(s, &[(2 * K, 3), (8 * K, 4), (16 * K, 1), (32 * K, 4), (64 * K, 1)], 4)
    }
}

// ---------------------------------------------------------------------------------------
// MPICH 4: maint/tuning/coll/mpir/generic.json @ v4.2.3 ("lines N" below) and src/mpi/coll/src/csel.c
// ---------------------------------------------------------------------------------------

fn mpich(coll: Collective, p: u32, z: &Sizes, commutative: bool) -> &'static str {
    let pow2 = p.is_power_of_two();
    // count<pow2 compares with coll.pof2, the largest power of two <= p (csel.c:1288-1293).
    let pof2 = u64::from(pow2_floor(p));
    // Every predefined op is commutative, so a non-commutative op is a user op
    // (is_op_built_in=no); commutative ops are taken as predefined.
    let built_in = commutative;
    match coll {
        Collective::Bcast => {
            // avg_msg_size = type_size·count (csel.c:884-887). The comm_size<8 key is
            // decided while pruning, strictly (csel.c:625-630).
            let s = z.bytes;
            if p < 8 {
                "binomial" // lines 6-25
            } else if pow2 {
                // lines 48-62
                if s <= 12288 {
                    "binomial"
                } else if s <= 524288 {
                    "scatter_rdb_allgather"
                } else {
                    "scatter_ring_allgather"
                }
            } else if s <= 12288 {
                "binomial" // lines 81-86
            } else {
                "scatter_ring_allgather" // lines 87-90
            }
        }
        Collective::Allreduce => {
            // avg_msg_size = type_size·count (csel.c:874-877).
            let s = z.bytes;
            if s == 0 {
                // lines 103-113: commutative -> smp (a local copy on a flat communicator),
                // otherwise recursive doubling.
                "rdb"
            } else if s <= 8 || !built_in || z.count < pof2 {
                // lines 114-117; 120-123 (user op); 126-129 (count < pof2)
                "rdb"
            } else {
                "rabenseifner" // lines 130-133: reduce_scatter_allgather
            }
        }
        Collective::Reduce => {
            // Flat branch, lines 246-270; avg_msg_size = type_size·count (csel.c:894-897).
            if z.bytes <= 2048 || !built_in || z.count < pof2 {
                "binomial" // lines 248-251; 265-268 (user op); 256-259 (count < pof2)
            } else {
                "scatter_gather" // lines 260-263: reduce_scatter_gather
            }
        }
        Collective::Allgather | Collective::Allgatherv => {
            // total_msg_size = recvtype·recvcount·p (allgather) or recvtype·Σ recvcounts
            // (allgatherv) (csel.c:1025-1036).
            let total = if coll == Collective::Allgather {
                z.bytes.saturating_mul(u64::from(p))
            } else {
                z.total
            };
            if pow2 {
                // lines 146-156 / 178-188
                if total < 524288 {
                    "rdb"
                } else {
                    "ring"
                }
            } else if total < 81920 {
                "bruck" // lines 159-162 / 191-194
            } else {
                "ring" // lines 163-166 / 195-198
            }
        }
        Collective::Alltoall => {
            // Not in place (lines 442-470); avg_msg_size = sendtype·sendcount, one
            // destination's block (csel.c:904-907). The comm_size<8 key sits below the
            // message-dependent in-place key, so it is evaluated per call with <=
            // (csel.c:1224-1229): p = 8 takes the small-communicator branch.
            let s = z.bytes;
            if p <= 8 {
                // lines 444-454
                if s <= 32768 {
                    "linear" // scattered
                } else {
                    "pairwise"
                }
            } else if s <= 256 {
                "bruck" // lines 457-460
            } else if s <= 32768 {
                "linear" // lines 461-464: scattered
            } else {
                "pairwise" // lines 465-468
            }
        }
        // lines 485-488: scattered.
        Collective::Alltoallv => "linear",
        // lines 348-353, 366-371.
        Collective::Gather | Collective::Scatter => "binomial",
        // lines 384-391.
        Collective::Gatherv | Collective::Scatterv => "linear",
        Collective::ReduceScatter => {
            // total_msg_size = type_size·Σ recvcounts (csel.c:1066-1071).
            if commutative {
                if z.total < 524288 {
                    "recursive_halving" // lines 283-286
                } else {
                    "pairwise" // lines 287-290
                }
            } else {
                // lines 292-309: noncommutative (Traff butterfly; block-regular counts and p a
                // power of two) or recursive doubling (otherwise). Neither exists here;
                // recursive halving is the closest (log2 p rounds).
                "recursive_halving"
            }
        }
        // lines 422-427: k_dissemination with k = 2, i.e. dissemination.
        Collective::Barrier => "bruck",
        // lines 400-403 (a flat communicator is not node-consecutive, commutil.c:863-864):
        // recursive doubling; we only have the linear scan.
        Collective::Scan => "linear",
        // lines 410-413: recursive doubling; we only have the linear exscan.
        Collective::Exscan => "linear",
    }
}
