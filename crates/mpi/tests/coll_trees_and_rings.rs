//! Closed-form LogGOPS end times of the broadcast (flat tree, pipeline, chain, binary;
//! split binary and scatter + ring or recursive-doubling allgather on a pure-latency
//! network),
//! reduce (linear, binomial, pipeline, in-order binary, Rabenseifner), allreduce (ring,
//! segmented ring, logical ring, Rabenseifner, reduce + broadcast) and
//! allgather and allgatherv (ring, pair, Bruck, recursive doubling, neighbour exchange)
//! algorithms.
//!
//! LogGOPS rules: see `common/mod.rs`. Golden values come from the derivations in the
//! comments, computed from each algorithm's documented message pattern (trees and rings
//! are rebuilt here from their definitions, not taken from the code under test).

mod common;

use common::*;
use simpi_mpi::coll::Collective;

/// A network where the NIC gap dominates: g > 2o, so that a rank of a segmented tree
/// finishes receiving segment k and forwarding it before segment k+1 arrives.
const TREE: P = P {
    l: 2000,
    o: 300,
    g: 700,
    gg: 2,
};

/// Open MPI's segment size for the segmented broadcasts.
const SEGMENT: u64 = 32 * 1024;

/// The segment size of the segmented ring allreduce.
const RING_SEGMENT: u64 = 1 << 20;

/// End times (indexed by rank) of a broadcast of `s` bytes from `root` down the tree given
/// by `parent` (in ranks relative to the root; parents have smaller numbers and list
/// their children in increasing order), cut into segments of `seg` bytes, where every
/// rank forwards segment k to all its children, one send after the other, before it
/// forwards segment k+1.
///
/// Derivation, with `s` a multiple of `seg` or at most `seg` (all segments equal, b =
/// segment - 1), R = o + bG (receiver CPU per segment) and N = g + bG (NIC per send):
/// the root sends segment k to its i-th child at (k·f + i)·N, f its child count, as its
/// NIC allows. A child whose parent sends segment k at S has it at S + o + L + R and
/// forwards it at once: its sends of segment k start at that time + i·N. Segments reach
/// a rank f·N apart; since N ≥ R + o (g ≥ 2o) a rank has taken in segment k and started
/// its sends of it before segment k+1 arrives, and no rank has more children than the
/// root, so nobody queues. A rank with children ends o after its last send starts; a
/// leaf when it has the last segment.
fn segmented_tree_bcast(p: P, parent: &[Option<u32>], root: u32, s: u64, seg: u64) -> Vec<i64> {
    let n = parent.len();
    let k_segs = if s <= seg { 1 } else { s / seg };
    assert!(s <= seg || s.is_multiple_of(seg), "the derivation needs equal segments");
    let bytes = s.min(seg);
    let (r, nic) = (p.rx(bytes), p.nic(bytes));
    assert!(p.g > 2 * p.o);
    let mut children = vec![Vec::new(); n];
    for (v, par) in parent.iter().enumerate().skip(1) {
        let par = par.unwrap() as usize;
        assert!(par < v);
        children[par].push(v);
    }
    let f = children[0].len() as i64;
    // base[v]: when v starts its sends of the last segment; got[v]: when it has it.
    let last = k_segs as i64 - 1;
    let mut base = vec![0i64; n];
    let mut got = vec![0i64; n];
    base[0] = last * f * nic;
    let mut end = vec![0i64; n];
    for (v, par) in parent.iter().enumerate() {
        if let Some(par) = *par {
            let par = par as usize;
            let i = children[par].iter().position(|&c| c == v).unwrap() as i64;
            got[v] = base[par] + i * nic + p.o + p.l + r;
            base[v] = got[v];
        }
        end[v] = match children[v].len() {
            0 => got[v],
            c => base[v] + (c as i64 - 1) * nic + p.o,
        };
    }
    let n = n as u32;
    (0..n).map(|real| end[((real + n - root) % n) as usize]).collect()
}

/// Checks a segmented broadcast against [`segmented_tree_bcast`] on several sizes, roots
/// and message sizes.
fn check_tree_bcast(name: &str, seg: &dyn Fn(u32, u64) -> u64, parent_of: &dyn Fn(u32) -> Vec<Option<u32>>) {
    let a = alg(Collective::Bcast, name);
    for n in [1u32, 2, 3, 5, 6, 9, 13] {
        for root in [0, n - 1, n / 2] {
            for s in [1u64, 1000, SEGMENT, 3 * SEGMENT] {
                let want = segmented_tree_bcast(TREE, &parent_of(n), root, s, seg(n, s));
                let got = run(a, n, TREE, &|r| spec(Collective::Bcast, n, r, root, s));
                assert_eq!(got, want, "{name} n={n} root={root} s={s}");
            }
        }
    }
}

#[test]
fn closed_form_flattree_bcast() {
    // The root sends the whole message to every rank, in rank order: a one-level tree
    // without segments.
    check_tree_bcast("flattree", &|_, _| u64::MAX, &|n| {
        (0..n).map(|v| (v > 0).then_some(0)).collect()
    });
}

#[test]
fn closed_form_pipeline_bcast() {
    // One chain from the root: the parent of v is v - 1. Segments as SimGrid 3.32's
    // bcast__ompi_pipeline chooses them: 128 KiB if n < 1.6134e-6 s + 2.1102, else 64 KiB
    // if n < 2.3679e-6 s + 1.1787, else 16 KiB if n < 3.2118e-6 s + 8.7936, else 128 KiB.
    let seg = |n: u32, s: u64| {
        let (n, s) = (n as f64, s as f64);
        if n < 1.6134e-6 * s + 2.1102 {
            128 * 1024
        } else if n < 2.3679e-6 * s + 1.1787 {
            64 * 1024
        } else if n < 3.2118e-6 * s + 8.7936 {
            16 * 1024
        } else {
            128 * 1024
        }
    };
    check_tree_bcast("pipeline", &seg, &|n| (0..n).map(|v| v.checked_sub(1)).collect());
}

#[test]
fn closed_form_chain_bcast() {
    // Four chains of consecutive ranks hang from the root, the first (n-1) mod 4 of them
    // one rank longer; 32 KiB segments.
    check_tree_bcast("chain", &|_, _| SEGMENT, &|n| {
        let mut parent = vec![None; n as usize];
        let chains = 4.min(n.saturating_sub(1)).max(1);
        let (len, extra) = ((n.saturating_sub(1)) / chains, (n.saturating_sub(1)) % chains);
        let mut v = 1;
        for c in 0..chains {
            for i in 0..len + u32::from(c < extra) {
                parent[v as usize] = Some(if i == 0 { 0 } else { v - 1 });
                v += 1;
            }
        }
        parent
    });
}

#[test]
fn closed_form_binary_bcast() {
    // Open MPI's binary tree, 32 KiB segments. Level λ holds ranks 2^λ - 1 ..= 2^(λ+1) - 2,
    // and a rank u on level λ - 1 has children u + 2^(λ-1) and u + 2^λ: the parent of v
    // is v - 2^(λ-1) if that is still on level λ - 1, else v - 2^λ.
    check_tree_bcast("binary", &|_, _| SEGMENT, &|n| {
        (0..n)
            .map(|v| {
                (v > 0).then(|| {
                    let level = 31 - (v + 1).leading_zeros();
                    let near = v - (1 << (level - 1));
                    if near + 2 <= 1 << level {
                        near
                    } else {
                        v - (1 << level)
                    }
                })
            })
            .collect()
    });
}

#[test]
fn closed_form_linear_reduce() {
    // Every other rank sends at 0; all messages reach the root at o + L and are taken in
    // back to back (o ≥ g: the CPU is the bottleneck), whatever order the root posts its
    // receives in. Root: o + L + (n-1)(o + (s-1)G); others: o.
    let p = BASE;
    let a = alg(Collective::Reduce, "linear");
    for n in [1u32, 2, 3, 6, 9] {
        for root in [0, n - 1] {
            for s in [1u64, 64, 5000] {
                let want: Vec<i64> = (0..n)
                    .map(|r| match (r == root, n) {
                        (true, 1) => 0,
                        (true, _) => p.o + p.l + (n as i64 - 1) * p.rx(s),
                        (false, _) => p.o,
                    })
                    .collect();
                let got = run(a, n, p, &|r| spec(Collective::Reduce, n, r, root, s));
                assert_eq!(got, want, "n={n} root={root} s={s}");
            }
        }
    }
}

#[test]
fn closed_form_pipeline_reduce() {
    // The chain root <- 1 <- 2 <- ... <- n-1 (ranks relative to the root), 32 KiB
    // segments (SimGrid's rule gives 32 KiB when n > 0.0033/1024 s + 1.6761 and
    // n <= 0.0410/1024 s + 9.7128, true for all the sizes here): the last rank sends its segments back to back, every other rank combines
    // segment k from its child and forwards it once its previous send is done. Data flows
    // as in the pipeline broadcast from rank n-1 down the reversed chain, so position u
    // of that broadcast is relative rank n-1-u here.
    let a = alg(Collective::Reduce, "pipeline");
    for n in [1u32, 2, 3, 6] {
        let chain: Vec<Option<u32>> = (0..n).map(|v| v.checked_sub(1)).collect();
        for root in [0, n - 1, n / 2] {
            for s in [1u64, 1000, SEGMENT, 3 * SEGMENT] {
                let by_position = segmented_tree_bcast(TREE, &chain, 0, s, SEGMENT);
                let want: Vec<i64> = (0..n)
                    .map(|r| by_position[(n - 1 - (r + n - root) % n) as usize])
                    .collect();
                let got = run(a, n, TREE, &|r| spec(Collective::Reduce, n, r, root, s));
                assert_eq!(got, want, "n={n} root={root} s={s}");
            }
        }
    }
}

#[test]
fn closed_form_rabenseifner_reduce() {
    // On 2^k ranks, s = 2^k·m: the reduce-scatter by recursive halving is lockstep and
    // ends for all at T0 = sum over j = 1..k of 2o + L + (s/2^j - 1)G, each rank then
    // holding one block of m bytes. The gather then halves the active ranks k times: in
    // step j the ranks whose highest bit differing from the root's is 2^(k-j) send their
    // 2^(j-1) blocks at T(j-1) (CPU free at T(j-1) + o, when they end) and their partners
    // have them at T(j) = T(j-1) + o + L + o + (2^(j-1)·m - 1)G. The root ends at T(k).
    // scatter_gather is the same scheme under MPICH's other name.
    let p = BASE;
    for name in ["rabenseifner", "scatter_gather"] {
        let a = alg(Collective::Reduce, name);
        for k in 0..=4u32 {
            let n = 1u32 << k;
            for m in [1u64, 40, 900] {
                let s = m * n as u64;
                let mut t = vec![(1..=k).map(|j| lockstep(p, s >> j)).sum::<i64>()];
                for j in 1..=k {
                    let prev = t[j as usize - 1];
                    t.push(prev + p.o + p.l + p.rx((1u64 << (j - 1)) * m));
                }
                for root in [0, n - 1, n / 2] {
                    let want: Vec<i64> = (0..n)
                        .map(|r| match r ^ root {
                            0 => t[k as usize],
                            d => {
                                let step = k - (31 - d.leading_zeros());
                                t[step as usize - 1] + p.o
                            }
                        })
                        .collect();
                    let got = run(a, n, p, &|r| spec(Collective::Reduce, n, r, root, s));
                    assert_eq!(got, want, "{name} n={n} root={root} s={s}");
                }
            }
        }
    }
}

/// When every rank of a tree reduction of `s` bytes (eager, one segment) sends to its
/// parent. A leaf sends at 0; a child's message arrives o + L after it sends; a rank takes
/// the arrivals in, in arrival order (whatever order it posts its receives in), each when
/// its CPU is free, for o + (s-1)G each, and sends when the last is done. `children[v]`
/// lists v's children. Returns every rank's send time (for the root: its last receive).
fn tree_reduce_times(p: P, children: &[Vec<u32>], s: u64) -> Vec<i64> {
    fn at(v: usize, p: P, children: &[Vec<u32>], s: u64, memo: &mut Vec<Option<i64>>) -> i64 {
        if let Some(t) = memo[v] {
            return t;
        }
        let mut arrivals: Vec<i64> = children[v]
            .iter()
            .map(|&c| at(c as usize, p, children, s, memo) + p.o + p.l)
            .collect();
        arrivals.sort_unstable();
        let done = arrivals.iter().fold(0, |cpu, &a| a.max(cpu) + p.rx(s));
        memo[v] = Some(done);
        done
    }
    let mut memo = vec![None; children.len()];
    (0..children.len()).map(|v| at(v, p, children, s, &mut memo)).collect()
}

/// The binomial reduce of `s` bytes, ranks relative to root 0: rank v receives from
/// v + 2^j for every 2^j below its lowest set bit (all j for the root) with v + 2^j < n.
/// Returns (send time of each rank, root's last receive done).
fn binomial_reduce_times(p: P, n: u32, s: u64) -> (Vec<i64>, i64) {
    let children: Vec<Vec<u32>> = (0..n)
        .map(|v| {
            let low = subtree_span(v, n);
            (0..32)
                .map(|j| 1u32 << j)
                .filter(|&b| b < low && v + b < n)
                .map(|b| v + b)
                .collect()
        })
        .collect();
    let send = tree_reduce_times(p, &children, s);
    let root_done = send[0];
    (send, root_done)
}

/// Open MPI's in-order binary tree over ranks `lo .. lo + size`, topped by the last: its
/// children are the tops of the upper part `lo + size/2 .. top` and of the lower part
/// `lo .. lo + size/2`, each when not empty.
fn in_order_tree(children: &mut [Vec<u32>], lo: u32, size: u32) {
    if size <= 1 {
        return;
    }
    let top = lo + size - 1;
    let half = size / 2;
    for (from, len) in [(lo + half, size - half - 1), (lo, half)] {
        if len > 0 {
            children[top as usize].push(from + len - 1);
            in_order_tree(children, from, len);
        }
    }
}

#[test]
fn closed_form_in_order_binary_reduce() {
    // The tree reduction above on the in-order binary tree topped by rank n-1, the
    // message in one piece. Every rank but the top ends o after its send; the top o after
    // its send (root elsewhere: it then sends the result to the root) or at its last
    // receive (root on top). A root below the top takes that result in at
    // max(top's send + o + L, its own send + o) + o + (s-1)G.
    let p = BASE;
    let a = alg(Collective::Reduce, "in_order_binary");
    for n in [1u32, 2, 3, 4, 5, 7, 8, 12, 16] {
        let mut children = vec![Vec::new(); n as usize];
        in_order_tree(&mut children, 0, n);
        for root in [n - 1, 0, n / 2] {
            for s in [1u64, 100, 5000] {
                let send = tree_reduce_times(p, &children, s);
                let top = (n - 1) as usize;
                let want: Vec<i64> = (0..n as usize)
                    .map(|r| match (r == top, r == root as usize) {
                        (true, true) => send[r],
                        (true, false) => send[r] + p.o,
                        (false, true) => (send[top] + p.o + p.l).max(send[r] + p.o) + p.rx(s),
                        (false, false) => send[r] + p.o,
                    })
                    .collect();
                let got = run(a, n, p, &|r| spec(Collective::Reduce, n, r, root, s));
                assert_eq!(got, want, "n={n} root={root} s={s}");
            }
        }
    }
}

#[test]
fn closed_form_binomial_reduce() {
    // A rank ends o after its send starts; the root when its last receive is done.
    let p = BASE;
    let a = alg(Collective::Reduce, "binomial");
    for n in [1u32, 2, 3, 4, 7, 8, 11, 16] {
        for root in [0, n - 1] {
            for s in [1u64, 100, 3000] {
                let (send, root_done) = binomial_reduce_times(p, n, s);
                let want: Vec<i64> = (0..n)
                    .map(|r| {
                        let v = (r + n - root) % n;
                        if v == 0 {
                            root_done
                        } else {
                            send[v as usize] + p.o
                        }
                    })
                    .collect();
                let got = run(a, n, p, &|r| spec(Collective::Reduce, n, r, root, s));
                assert_eq!(got, want, "n={n} root={root} s={s}");
            }
        }
    }
}

#[test]
fn closed_form_reduce_broadcast_allreduce() {
    // A binomial reduce to rank 0 and then a binomial broadcast from it. Every other rank
    // is idle long before the broadcast reaches it, so the broadcast starts when the root
    // has its last receive: end(r) = reduce root time + binomial broadcast end(r).
    let p = BASE;
    let a = alg(Collective::Allreduce, "redbcast");
    for n in [1u32, 2, 3, 5, 8, 12] {
        for s in [1u64, 200, 4096] {
            let (_, root_done) = binomial_reduce_times(p, n, s);
            let want: Vec<i64> = binomial_bcast_ends(p, n, s)
                .into_iter()
                .map(|t| root_done + t)
                .collect();
            let got = run(a, n, p, &|r| spec(Collective::Allreduce, n, r, 0, s));
            assert_eq!(got, want, "n={n} s={s}");
        }
    }
}

/// One step in which every rank sends `bytes` to a neighbour and receives as many from
/// another, all ranks starting together: the partner's message arrives o + L after the
/// step starts (the rank's own send has the CPU until o), and takes o + (bytes-1)G; the
/// NIC gap g + (bytes-1)G fits. So 2o + L + (bytes-1)G.
fn lockstep(p: P, bytes: u64) -> i64 {
    2 * p.o + p.l + (bytes as i64 - 1) * p.gg
}

fn all_equal(got: &[i64], want: i64) -> bool {
    got.iter().all(|&t| t == want)
}

#[test]
fn closed_form_ring_allreduce() {
    // The message is cut into n equal blocks (s a multiple of n): n-1 reduce-scatter and
    // n-1 allgather steps, each moving one block: 2(n-1) lockstep steps of s/n bytes.
    let p = BASE;
    let a = alg(Collective::Allreduce, "ring");
    for n in [1u32, 2, 3, 4, 7, 8] {
        for m in [1u64, 10, 1000] {
            let s = m * n as u64;
            let want = 2 * (n as i64 - 1) * lockstep(p, m);
            let got = run(a, n, p, &|r| spec(Collective::Allreduce, n, r, 0, s));
            assert!(all_equal(&got, want), "n={n} s={s}: {got:?} != {want}");
        }
    }
}

#[test]
fn closed_form_rabenseifner_allreduce() {
    // On 2^k ranks, s a multiple of 2^k: a reduce-scatter by recursive halving (step j
    // exchanges s/2^j bytes) then an allgather by recursive doubling (the same sizes in
    // reverse): 2k lockstep steps, twice the sum over j of 2o + L + (s/2^j - 1)G.
    let p = BASE;
    let a = alg(Collective::Allreduce, "rabenseifner");
    for k in 0..=4u32 {
        let n = 1u32 << k;
        for m in [1u64, 24, 1000] {
            let s = m * n as u64;
            let want: i64 = 2 * (1..=k).map(|j| lockstep(p, s >> j)).sum::<i64>();
            let got = run(a, n, p, &|r| spec(Collective::Allreduce, n, r, 0, s));
            assert!(all_equal(&got, want), "n={n} s={s}: {got:?} != {want}");
        }
    }
}

#[test]
fn closed_form_segmented_ring_allreduce() {
    // SimGrid's ompi_ring_segmented on s = n·B bytes (1-byte elements): below one 1 MiB
    // segment per rank (B < 1 MiB) it is the logical ring, 2(n-1) lockstep steps of B.
    // Otherwise each block is cut into P phases, P = floor(B / 1 MiB) plus one if the
    // rest exceeds half a segment. A phase is n-1 steps of blocking sends, each waiting
    // for the previous receive: lockstep steps of B/P bytes; then n-1 lockstep steps pass
    // whole blocks. Total (n-1)·(P·step(B/P) + step(B)).
    let p = BASE;
    let a = alg(Collective::Allreduce, "segmented_ring");
    for n in [2u32, 3, 5, 8] {
        for block in [
            1000u64,
            RING_SEGMENT - 4,
            2 * RING_SEGMENT,
            3 * RING_SEGMENT,
            RING_SEGMENT + 700_000,
            RING_SEGMENT + 100_000,
        ] {
            let s = block * n as u64;
            let phases = if block < RING_SEGMENT {
                1
            } else {
                block / RING_SEGMENT + u64::from(block % RING_SEGMENT > RING_SEGMENT / 2)
            };
            assert_eq!(block % phases, 0, "the derivation needs equal segments");
            let want = (n as i64 - 1) * (phases as i64 * lockstep(p, block / phases) + lockstep(p, block));
            let got = run(a, n, p, &|r| spec(Collective::Allreduce, n, r, 0, s));
            assert!(all_equal(&got, want), "n={n} s={s}: {got:?} != {want}");
        }
    }
}

#[test]
fn closed_form_logical_ring_allreduce() {
    // SimGrid's lr on s = n·B bytes: 2(n-1) lockstep send-receives of B bytes. Fewer
    // bytes than ranks: a binomial reduce to rank 0, then a binomial broadcast.
    let p = BASE;
    let a = alg(Collective::Allreduce, "lr");
    for n in [2u32, 3, 4, 7, 8] {
        for block in [1u64, 30, 2000] {
            let s = block * n as u64;
            let want = 2 * (n as i64 - 1) * lockstep(p, block);
            let got = run(a, n, p, &|r| spec(Collective::Allreduce, n, r, 0, s));
            assert!(all_equal(&got, want), "n={n} s={s}: {got:?} != {want}");
        }
        let s = n as u64 - 1;
        let (_, root_done) = binomial_reduce_times(p, n, s);
        let want: Vec<i64> = binomial_bcast_ends(p, n, s)
            .into_iter()
            .map(|t| root_done + t)
            .collect();
        let got = run(a, n, p, &|r| spec(Collective::Allreduce, n, r, 0, s));
        assert_eq!(got, want, "n={n} s={s}");
    }
}

#[test]
fn closed_form_ring_and_pair_allgather() {
    // n-1 lockstep steps, each moving one block of s bytes (the ring passes blocks to the
    // right; pair and shifted exchange their own block with a different partner each
    // step).
    let p = BASE;
    for name in ["ring", "pair", "shifted"] {
        let a = alg(Collective::Allgather, name);
        for n in [1u32, 2, 3, 4, 6, 8, 9] {
            for s in [1u64, 77, 2048] {
                let want = (n as i64 - 1) * lockstep(p, s);
                let got = run(a, n, p, &|r| spec(Collective::Allgather, n, r, 0, s));
                assert!(all_equal(&got, want), "{name} n={n} s={s}: {got:?} != {want}");
            }
        }
    }
}

#[test]
fn closed_form_bruck_allgather() {
    // Round j (distance 2^j < n) moves min(2^j, n - 2^j) blocks: every rank then holds
    // min(2^(j+1), n) blocks. Lockstep rounds of that many blocks of s bytes.
    let p = BASE;
    let a = alg(Collective::Allgather, "bruck");
    for n in [1u32, 2, 3, 5, 6, 8, 11, 16] {
        for s in [1u64, 50, 999] {
            let want: i64 = (0..32)
                .map(|j| 1u32 << j)
                .take_while(|&d| d < n)
                .map(|d| lockstep(p, d.min(n - d) as u64 * s))
                .sum();
            let got = run(a, n, p, &|r| spec(Collective::Allgather, n, r, 0, s));
            assert!(all_equal(&got, want), "n={n} s={s}: {got:?} != {want}");
        }
    }
}

#[test]
fn closed_form_recursive_doubling_allgather() {
    // On 2^k ranks, step j exchanges the 2^j blocks gathered so far with rank XOR 2^j.
    let p = BASE;
    let a = alg(Collective::Allgather, "rdb");
    for k in 0..=4u32 {
        let n = 1 << k;
        for s in [1u64, 300] {
            let want: i64 = (0..k).map(|j| lockstep(p, (1u64 << j) * s)).sum();
            let got = run(a, n, p, &|r| spec(Collective::Allgather, n, r, 0, s));
            assert!(all_equal(&got, want), "n={n} s={s}: {got:?} != {want}");
        }
    }
    // Other sizes fall back to Bruck's rounds of min(2^j, n - 2^j) blocks.
    for n in [3u32, 5, 6, 7] {
        for s in [1u64, 300] {
            let want: i64 = (0..32)
                .map(|j| 1u32 << j)
                .take_while(|&d| d < n)
                .map(|d| lockstep(p, d.min(n - d) as u64 * s))
                .sum();
            let got = run(a, n, p, &|r| spec(Collective::Allgather, n, r, 0, s));
            assert!(all_equal(&got, want), "n={n} s={s}: {got:?} != {want}");
        }
    }
}

#[test]
fn closed_form_neighbor_exchange_allgather() {
    // Even n: a first step swapping own blocks with the pair mate (s bytes), then n/2 - 1
    // steps each forwarding the two blocks of one pair (2s bytes). Odd n falls back to
    // the ring: n-1 steps of s bytes.
    let p = BASE;
    let a = alg(Collective::Allgather, "neighbor_exchange");
    for n in [2u32, 4, 6, 8, 10, 3, 7] {
        for s in [1u64, 40, 512] {
            let want = if n.is_multiple_of(2) {
                lockstep(p, s) + (n as i64 / 2 - 1) * lockstep(p, 2 * s)
            } else {
                (n as i64 - 1) * lockstep(p, s)
            };
            let got = run(a, n, p, &|r| spec(Collective::Allgather, n, r, 0, s));
            assert!(all_equal(&got, want), "n={n} s={s}: {got:?} != {want}");
        }
    }
}

#[test]
fn closed_form_ring_and_shifted_allgatherv() {
    // Step i (1..n-1), as blocking send-receives. Ring: rank r sends block r-i+1 (its
    // own first, then what it received) to r+1 and receives block r-i from r-1. Shifted
    // (SimGrid's allgatherv__ring): r sends its own block to r+i and receives block r-i
    // from r-i. Blocks differ in size, so ranks drift apart by a few G:
    // `sendrecv_steps` follows each rank's step starts.
    let p = BASE;
    for n in [2u32, 3, 5, 8] {
        for salt in [0u64, 3] {
            let c = counts_nonzero(n, salt);
            let block = |b: i64| c[b.rem_euclid(n as i64) as usize];
            let back = |r: u32, i: u32| r as i64 - i as i64;
            let ring = sendrecv_steps(
                p,
                n,
                n - 1,
                vec![0; n as usize],
                &|r, _| (r + n - 1) % n,
                &|r, i| block(back(r, i) + 1),
                &|r, i| block(back(r, i)),
            );
            let shifted = sendrecv_steps(
                p,
                n,
                n - 1,
                vec![0; n as usize],
                &|r, i| (r + n - i) % n,
                &|r, _| c[r as usize],
                &|r, i| block(back(r, i)),
            );
            // The patterns differ once a partner is not a neighbour.
            assert!(n < 3 || ring != shifted, "n={n}: the two closed forms coincide");
            for (name, want) in [("ring", ring), ("shifted", shifted)] {
                let got = run(alg(Collective::Allgatherv, name), n, p, &|r| {
                    let mut sp = spec(Collective::Allgatherv, n, r, 0, 0);
                    sp.counts = c.clone();
                    sp
                });
                assert_eq!(got, want, "{name} n={n} counts={c:?}");
            }
        }
    }
}

#[test]
fn closed_form_allgatherv_with_equal_blocks() {
    // With every block s bytes the allgatherv algorithms move exactly what their
    // allgather counterparts move: Bruck's rounds of min(2^j, n - 2^j) blocks, the
    // neighbour exchange's s then (n/2 - 1) x 2s (ring on odd n), and on powers of two
    // recursive doubling's 2^j blocks in step j. All lockstep.
    let p = BASE;
    let bruck = |n: u32, s: u64| -> i64 {
        (0..32)
            .map(|j| 1u32 << j)
            .take_while(|&d| d < n)
            .map(|d| lockstep(p, d.min(n - d) as u64 * s))
            .sum()
    };
    let exchange = |n: u32, s: u64| -> i64 {
        if n.is_multiple_of(2) {
            lockstep(p, s) + (n as i64 / 2 - 1) * lockstep(p, 2 * s)
        } else {
            (n as i64 - 1) * lockstep(p, s)
        }
    };
    let doubling = |n: u32, s: u64| -> i64 { (0..n.trailing_zeros()).map(|j| lockstep(p, (1u64 << j) * s)).sum() };
    type Formula<'a> = &'a dyn Fn(u32, u64) -> i64;
    let cases: [(&str, Formula, &[u32]); 4] = [
        ("bruck", &bruck, &[1, 2, 3, 5, 8, 11]),
        ("neighbor_exchange", &exchange, &[2, 4, 6, 3, 7]),
        ("rdb", &doubling, &[1, 2, 4, 8, 16]),
        ("mpich_rdb", &doubling, &[1, 2, 4, 8, 16]),
    ];
    for (name, formula, sizes) in cases {
        let a = alg(Collective::Allgatherv, name);
        for &n in sizes {
            for s in [1u64, 64, 700] {
                let want = formula(n, s);
                let got = run(a, n, p, &|r| {
                    let mut sp = spec(Collective::Allgatherv, n, r, 0, 0);
                    sp.counts = vec![s; n as usize];
                    sp
                });
                assert!(all_equal(&got, want), "{name} n={n} s={s}: {got:?} != {want}");
            }
        }
    }
}

/// Uneven per-rank block sizes, 1..=40 bytes.
fn counts_nonzero(n: u32, salt: u64) -> Vec<u64> {
    (0..n as u64)
        .map(|i| (i * 7 + salt * 13 + i * i * 3) % 40 + 1)
        .collect()
}

/// A pure-latency network (o = g = G = 0): a message takes exactly L and nothing is ever
/// busy, so times follow from the dependency structure alone: a rank acts as soon as
/// what it waits for has arrived.
const LATENCY: P = P {
    l: 5000,
    o: 0,
    g: 0,
    gg: 0,
};

/// When each relative rank has its piece after MPICH's binomial scatter on a pure-latency
/// network: rank v gets it from v minus its lowest set bit, so after popcount(v) hops.
fn scatter_times(n: u32) -> Vec<i64> {
    (0..n).map(|v| v.count_ones() as i64 * LATENCY.l).collect()
}

/// When each rank holds every block after MPICH's recursive-doubling allgather on a
/// pure-latency network, rank v starting at `start[v]`: in step j (mask 2^j) v takes
/// max(own time, partner's + L) from the partner v XOR 2^j when it exists; then, in a
/// group of 2^j whose sibling group is incomplete (c of its ranks exist), what its first
/// c ranks received goes down a binary tree: at distance 2^m (m = j-1 .. 0), v receives
/// from v - 2^m when that one is among the first c of its aligned group of 2^(m+1) and v
/// is not (MPICH's fix-up).
fn mpich_rdb_times(n: u32, mut t: Vec<i64>) -> Vec<i64> {
    let l = LATENCY.l;
    let (mut mask, mut j) = (1u32, 0u32);
    while mask < n {
        let prev = t.clone();
        for v in 0..n {
            let d = v ^ mask;
            if d < n {
                t[v as usize] = prev[v as usize].max(prev[d as usize] + l);
            }
        }
        let (mut m, mut k) = (mask >> 1, j);
        while m > 0 {
            let prev = t.clone();
            for v in 0..n {
                let (mine, sib) = ((v >> j) << j, ((v ^ mask) >> j) << j);
                if sib + mask <= n {
                    continue;
                }
                let c = n as i64 - mine as i64 - mask as i64;
                let root_k = ((v >> k) << k) as i64;
                let d = v ^ m;
                if d < v && (d as i64) < root_k + c && v as i64 >= root_k + c {
                    t[v as usize] = prev[v as usize].max(prev[d as usize] + l);
                }
            }
            m >>= 1;
            k -= 1;
        }
        mask <<= 1;
        j += 1;
    }
    t
}

#[test]
fn closed_form_mpich_rdb_allgather_and_allgatherv_on_a_pure_latency_network() {
    // All ranks start at 0; the recurrence above (MPICH's fix-up on sizes that are not
    // powers of two). The allgatherv runs the same pattern whatever its block sizes.
    for n in [1u32, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 16] {
        let want = mpich_rdb_times(n, vec![0; n as usize]);
        let got = run(alg(Collective::Allgather, "mpich_rdb"), n, LATENCY, &|r| {
            spec(Collective::Allgather, n, r, 0, 100)
        });
        assert_eq!(got, want, "allgather n={n}");
        let counts = counts_nonzero(n, 3);
        let got = run(alg(Collective::Allgatherv, "mpich_rdb"), n, LATENCY, &|r| {
            let mut sp = spec(Collective::Allgatherv, n, r, 0, 0);
            sp.counts = counts.clone();
            sp
        });
        assert_eq!(got, want, "allgatherv n={n} counts={counts:?}");
    }
}

#[test]
fn closed_form_scatter_allgather_bcasts_on_a_pure_latency_network() {
    // After the scatter (s a multiple of n: no empty pieces) every rank starts its
    // allgather at once. Ring: step k+1 starts at max(own step k start, left neighbour's
    // step k start + L); recursive doubling: the same with the partner v XOR 2^j when it
    // exists. On sizes that are not powers of two, a group of 2^j whose sibling group is
    // incomplete (c of its ranks exist) then passes what its first c ranks received down
    // a binary tree: at distance 2^m (m = j-1 .. 0), v receives from v - 2^m when that
    // one is among the first c of its aligned group of 2^(m+1) and v is not (MPICH's
    // fix-up). Sends cost nothing here; a rank ends when its last message is in.
    let l = LATENCY.l;
    for (name, doubling) in [("scatter_ring_allgather", false), ("scatter_rdb_allgather", true)] {
        let a = alg(Collective::Bcast, name);
        for n in [2u32, 3, 4, 5, 6, 7, 8, 12, 16] {
            for root in [0, n - 1] {
                let mut t = scatter_times(n);
                if doubling {
                    t = mpich_rdb_times(n, t);
                } else {
                    for _ in 1..n {
                        t = (0..n)
                            .map(|v| t[v as usize].max(t[((v + n - 1) % n) as usize] + l))
                            .collect();
                    }
                }
                let want: Vec<i64> = (0..n).map(|r| t[((r + n - root) % n) as usize]).collect();
                let s = 64 * n as u64;
                let got = run(a, n, LATENCY, &|r| spec(Collective::Bcast, n, r, root, s));
                assert_eq!(got, want, "{name} n={n} root={root}");
            }
        }
    }
}

#[test]
fn closed_form_split_binary_bcast_on_a_pure_latency_network() {
    // Open MPI's binary tree (level of v: floor(log2(v + 1)), odd ranks under the root's
    // first child, even under its second); each half of the message goes down one
    // subtree, so a rank at level λ has its half at λ·L. It then swaps halves with its
    // counterpart (v + 1 for odd v, v - 1 for even: the same level), which has its half
    // at the same time: both end at (λ + 1)·L. The last rank of an even count has no
    // counterpart, gets the other half from the root at L and ends at λ·L.
    // On two ranks the root's one child gets both halves from it and ends at L. The root
    // ends at 0. Halves shorter than a segment (1 KiB below 370728 bytes) run the
    // pipeline instead: rank v ends at v·L.
    let l = LATENCY.l;
    let a = alg(Collective::Bcast, "split_binary");
    for n in [1u32, 2, 3, 4, 5, 6, 7, 10, 15, 16, 23] {
        let end = |v: u32| -> i64 {
            if v == 0 {
                return 0;
            }
            let level = 31 - (v + 1).leading_zeros();
            let other = if v % 2 == 1 { v + 1 } else { v - 1 };
            if other < n {
                (level as i64 + 1) * l
            } else {
                level as i64 * l
            }
        };
        for root in [0, n - 1] {
            for s in [64u64, 2047, 4096, 3 * 32 * 1024 + 10, 400_000] {
                let tree = s >= 2048;
                let want: Vec<i64> = (0..n)
                    .map(|r| {
                        let v = (r + n - root) % n;
                        if tree {
                            end(v)
                        } else {
                            i64::from(v) * l
                        }
                    })
                    .collect();
                let got = run(a, n, LATENCY, &|r| spec(Collective::Bcast, n, r, root, s));
                assert_eq!(got, want, "n={n} root={root} s={s}");
            }
        }
    }
}
