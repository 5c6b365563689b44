//! Every registered collective algorithm: (1) moves the right data, checked symbolically
//! on many communicator sizes, roots and sizes; (2) takes the time its closed-form
//! LogGOPS cost predicts on a contention-free network (formulas derived in the comments
//! of `closed_form_*` tests, per algorithm).

mod common;

use simpi_kernel::Rng;
use simpi_mpi::coll::verify::verify;
use simpi_mpi::coll::{find, registry, Algorithm, CollSpec, Collective};

const SIZES: [u32; 11] = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 17];

/// A spec of `coll` for rank `me` of `n`, with `bytes` and per-rank counts derived from
/// a seed (the same for every rank, so the ranks agree).
fn spec(coll: Collective, n: u32, me: u32, root: u32, bytes: u64, seed: u64) -> CollSpec {
    let mut s = CollSpec::new(coll, n, me, bytes);
    s.root = root;
    let mut rng = Rng::new(seed);
    let matrix: Vec<u64> = (0..n * n).map(|_| rng.below(3 * bytes.max(1) + 1)).collect();
    s.counts = (0..n).map(|r| matrix[r as usize]).collect();
    s.send_counts = (0..n).map(|d| matrix[(me * n + d) as usize]).collect();
    s.recv_counts = (0..n).map(|src| matrix[(src * n + me) as usize]).collect();
    s
}

/// Where an algorithm says a call is alike on every rank (`Algorithm::alike`), every
/// rank's recorded steps are rank 0's with peers moved as the answer says: XOR with the
/// rank, or plus the rank modulo the size. Checked rank by rank on sizes 1 to 70 and a
/// few larger ones, several roots, vector sizes and element sizes.
#[test]
fn algorithms_declared_alike_record_the_same_steps_on_every_rank() {
    use simpi_mpi::coll::emit::{Peers, Template};
    let mut declared = 0;
    let mut checked_calls = 0;
    for alg in registry() {
        let Some(alike) = alg.alike else { continue };
        declared += 1;
        let sizes: Vec<u32> = (1..=70).chain([96, 128, 255, 256, 1024]).collect();
        for n in sizes {
            for root in [0, n - 1, n / 2] {
                for (elem, bytes) in [(1u64, 0u64), (1, 1), (8, 8), (1, 1000), (8, 65_536 * 3 + 8), (1, 2051)] {
                    // The vector counts of `spec` are left out: no declared algorithm is
                    // a vector collective, and they cost O(n²) per rank.
                    let f = |me: u32| CollSpec {
                        elem,
                        root,
                        ..CollSpec::new(alg.coll, n, me, bytes)
                    };
                    let Some(how) = alike(&f(0)) else { continue };
                    checked_calls += 1;
                    let first = Template::record(alg, &f(0)).unwrap();
                    for me in 1..n {
                        let t = Template::record(alg, &f(me)).unwrap();
                        let at = format!("{alg:?} n={n} root={root} bytes={bytes} elem={elem} rank {me}");
                        assert_eq!(t.len(), first.len(), "{at}: step count");
                        assert_eq!(t.end(), first.end(), "{at}: last step");
                        for i in 0..t.len() as u32 {
                            let mut want = *first.op(i);
                            if want.kind != simpi_mpi::op::OpKind::Calc {
                                want.peer = match how {
                                    Peers::Xor => want.peer ^ me,
                                    Peers::Offset => (want.peer + me) % n,
                                    Peers::Absolute => want.peer,
                                };
                            }
                            assert_eq!(*t.op(i), want, "{at}: step {i}");
                            assert_eq!(t.deps(i), first.deps(i), "{at}: step {i}'s dependencies");
                        }
                    }
                }
            }
        }
    }
    assert!(
        registry().iter().all(|a| a.alike.is_none()
            || !matches!(
                a.coll,
                Collective::Alltoallv
                    | Collective::Allgatherv
                    | Collective::Gatherv
                    | Collective::Scatterv
                    | Collective::ReduceScatter
            )),
        "extend the check to vector counts"
    );
    // allreduce rdb, barrier dissemination and recursive doubling, alltoall bruck and ring.
    assert!(declared >= 5, "{declared} algorithms declare alike calls");
    assert!(checked_calls > 1000, "{checked_calls}");
}

#[test]
fn every_algorithm_moves_the_right_data() {
    let algs = registry();
    assert!(!algs.is_empty());
    let mut failures = Vec::new();
    for alg in &algs {
        for &n in &SIZES {
            let roots: Vec<u32> = [0, n - 1, n / 2].into_iter().collect();
            for root in roots {
                // Element sizes matter to algorithms that cut vectors by elements; the
                // last sizes are not whole numbers of 8-byte elements.
                for elem in [1u64, 8] {
                    for (k, bytes) in [1u64, 8, 1000, 65_536 * 3 + 7, 2051].into_iter().enumerate() {
                        let seed = (n as u64) * 131 + k as u64;
                        let f = |me: u32| CollSpec {
                            elem,
                            ..spec(alg.coll, n, me, root, bytes, seed)
                        };
                        if let Err(e) = verify(alg, &f) {
                            failures.push(format!("{alg:?} n={n} root={root} bytes={bytes} elem={elem}: {e}"));
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn algorithm_names_are_unique_and_sourced() {
    let algs = registry();
    for (i, a) in algs.iter().enumerate() {
        assert!(!a.source.is_empty(), "{a:?} has no source");
        assert!(
            algs[..i].iter().all(|b| b.coll != a.coll || b.name != a.name),
            "{a:?} registered twice"
        );
    }
}

/// L=2000 o=300 g=100 G=2 (ns), O=0, everything eager.
const SMALL_L: common::P = common::P {
    l: 2000,
    o: 300,
    g: 100,
    gg: 2,
};

/// Every rank's end time (ns) of `alg` on `n` ranks rooted at 0 under `p`.
fn times(alg: &Algorithm, n: u32, bytes: u64, p: common::P) -> Vec<i64> {
    common::run(alg, n, p, &|r| common::spec(alg.coll, n, r, 0, bytes))
}

#[test]
fn closed_form_binomial_bcast() {
    // Derivation: `common::binomial_bcast_ends`.
    let alg = find(Collective::Bcast, "binomial").unwrap();
    for n in [2u32, 5, 8, 13, 16] {
        for s in [1u64, 100, 4000] {
            let want = common::binomial_bcast_ends(SMALL_L, n, s);
            assert_eq!(times(alg, n, s, SMALL_L), want, "n={n} s={s}");
        }
    }
}

#[test]
fn closed_form_recursive_doubling_allreduce() {
    // With 2^k ranks every step is a simultaneous exchange: the send starts at the step's
    // start t (CPU until t+o), the partner's message arrives at t+o+L and is taken in by
    // t + 2o + L + (s-1)G, when the next step starts. k steps: k·(2o + L + (s-1)G), since
    // the NIC gap g + (s-1)G is shorter than a step.
    let alg = find(Collective::Allreduce, "rdb").unwrap();
    let p = SMALL_L;
    for k in 1..=5u32 {
        let n = 1 << k;
        for s in [1u64, 8, 4096] {
            let want = k as i64 * (2 * p.o + p.l + (s as i64 - 1) * p.gg);
            let got = times(alg, n, s, p);
            assert!(got.iter().all(|&t| t == want), "n={n} s={s}: {got:?} != {want}");
        }
    }
}

#[test]
fn closed_form_dissemination_barrier() {
    // Zero-byte messages with G = 0: each of ceil(log2 n) rounds costs 2o + L.
    let alg = find(Collective::Barrier, "bruck").unwrap();
    let p = common::P { gg: 0, ..SMALL_L };
    for n in [2u32, 3, 5, 8, 9, 16] {
        let rounds = 32 - (n - 1).leading_zeros();
        let want = rounds as i64 * (2 * p.o + p.l);
        let got = times(alg, n, 0, p);
        assert!(got.iter().all(|&t| t == want), "n={n}: {got:?} != {want}");
    }
}

#[test]
fn every_collective_has_an_algorithm_and_the_selectors_name_registered_ones() {
    use simpi_mpi::coll::select::Selector;
    for c in Collective::ALL {
        assert!(registry().iter().any(|a| a.coll == c), "no algorithm for {c}");
    }
    let mut missing = std::collections::BTreeSet::new();
    for sel in Selector::ALL {
        for n in [1u32, 2, 3, 4, 5, 7, 8, 9, 16, 17, 64, 100, 1024, 4097] {
            for bytes in [0u64, 1, 8, 100, 1000, 8192, 65_536, 1 << 20, 1 << 24] {
                for c in Collective::ALL {
                    let mut s = CollSpec::new(c, n, 0, bytes);
                    s.counts = vec![bytes; n as usize];
                    for commutative in [true, false] {
                        let name = sel.choose(c, n, &s, commutative);
                        if find(c, name).is_none() {
                            missing.insert(format!("{} {c}={name}", sel.name()));
                        }
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "selectors choose unregistered algorithms: {missing:?}"
    );
}

/// Flat-tree broadcast that forgets the last rank.
fn bcast_missing_one(s: &CollSpec, e: &mut dyn simpi_mpi::coll::Emitter) {
    use simpi_mpi::coll::Merge;
    if s.me == s.root {
        for r in (0..s.size).filter(|&r| r != s.root && r != s.size - 1) {
            e.send(r, 1, &[0], &[]);
        }
    } else if s.me != s.size - 1 {
        e.recv(s.root, 1, &[0], Merge::Copy, &[]);
    }
}

/// Ring allreduce that overwrites instead of combining.
fn allreduce_copying(s: &CollSpec, e: &mut dyn simpi_mpi::coll::Emitter) {
    use simpi_mpi::coll::Merge;
    let (n, r) = (s.size, s.me);
    e.layout(&vec![s.bytes / n as u64; n as usize]);
    let mut last = Vec::new();
    for k in 0..2 * (n - 1) {
        let out = (r + 2 * n - k) % n;
        let inb = (r + 2 * n - k - 1) % n;
        let snd = e.send((r + 1) % n, 2, &[out], &last);
        let rcv = e.recv((r + n - 1) % n, 2, &[inb], Merge::Copy, &last);
        last = vec![snd, rcv];
    }
}

/// Scatter whose root sends every rank the block of the next rank.
fn scatter_wrong_block(s: &CollSpec, e: &mut dyn simpi_mpi::coll::Emitter) {
    use simpi_mpi::coll::Merge;
    let n = s.size;
    if s.me == s.root {
        for r in (0..n).filter(|&r| r != s.root) {
            e.send(r, 3, &[(r + 1) % n], &[]);
        }
    } else {
        e.recv(s.root, 3, &[(s.me + 1) % n], Merge::Copy, &[]);
    }
}

#[test]
fn the_verifier_rejects_algorithms_that_move_the_wrong_data() {
    type Emit = fn(&CollSpec, &mut dyn simpi_mpi::coll::Emitter);
    let broken: [(Collective, Emit); 3] = [
        (Collective::Bcast, bcast_missing_one),
        (Collective::Allreduce, allreduce_copying),
        (Collective::Scatter, scatter_wrong_block),
    ];
    for (coll, emit) in broken {
        let alg = Algorithm {
            coll,
            name: "broken",
            source: "this test",
            simgrid: None,
            emit,
            alike: None,
        };
        let f = |me: u32| spec(coll, 4, me, 0, 400, 1);
        let err = verify(&alg, &f).expect_err("a broken algorithm passed");
        assert!(err.contains("does not end with the right data"), "{coll}: {err}");
    }
    // And the registered counterparts pass on the same specs.
    for (coll, name) in [
        (Collective::Bcast, "flattree"),
        (Collective::Allreduce, "ring"),
        (Collective::Scatter, "linear"),
    ] {
        let f = |me: u32| spec(coll, 4, me, 0, 400, 1);
        assert!(verify(find(coll, name).unwrap(), &f).is_ok(), "{coll}={name}");
    }
}
