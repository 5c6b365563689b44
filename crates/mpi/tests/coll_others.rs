//! Closed-form LogGOPS end times of the alltoall(v), gather(v), scatter(v),
//! reduce_scatter, barrier and scan/exscan algorithms.
//!
//! LogGOPS rules: see `common/mod.rs`.
//!
mod common;

use common::*;
use simpi_mpi::coll::{Algorithm, CollSpec, Collective};

// ---------------------------------------------------------------------------------------
// Alltoall

#[test]
fn closed_form_alltoall_pairwise_and_ring() {
    // All ranks are in step: each of the n-1 send-receive steps (the self step is a local
    // copy) takes 2o + L + (s-1)G, the partner's message arriving o + L after the step
    // began and costing o + (s-1)G; the NIC gap g + (s-1)G fits in a step. This holds
    // for the XOR partners (powers of two) and the shifted ones (other sizes) alike.
    let p = BASE;
    for name in ["pairwise", "ring"] {
        let a = alg(Collective::Alltoall, name);
        for n in [1u32, 2, 3, 4, 5, 8, 12, 16] {
            for s in [1u64, 64, 1000] {
                let want = (n as i64 - 1) * (2 * p.o + p.l + (s as i64 - 1) * p.gg);
                let got = run(a, n, p, &|r| spec(Collective::Alltoall, n, r, 0, s));
                assert!(got.iter().all(|&t| t == want), "{name} n={n} s={s}: {got:?} != {want}");
            }
        }
    }
}

#[test]
fn closed_form_alltoall_bruck() {
    // Round k (k = 1, 2, 4, … < n) is a send-receive of the positions i in 1..n with bit
    // k set, m_k·s bytes, all ranks in step: 2o + L + (m_k·s - 1)G per round.
    let p = BASE;
    let a = alg(Collective::Alltoall, "bruck");
    for n in [1u32, 2, 3, 5, 7, 8, 13, 16] {
        for s in [1u64, 50] {
            let mut want = 0i64;
            let mut k = 1;
            while k < n {
                let m = (1..n).filter(|i| i & k != 0).count() as u64;
                want += 2 * p.o + p.l + (m as i64 * s as i64 - 1) * p.gg;
                k <<= 1;
            }
            let got = run(a, n, p, &|r| spec(Collective::Alltoall, n, r, 0, s));
            assert!(got.iter().all(|&t| t == want), "n={n} s={s}: {got:?} != {want}");
        }
    }
}

#[test]
fn closed_form_alltoall_linear() {
    // Every rank sends at once to r-1, r-2, …: its k-th send starts at k·c with
    // c = max(o, g + (s-1)G). Rank d is the k-th destination of rank d+1+k, so its
    // messages arrive at o + L + k·c, k = 0..n-2. L ≥ (n-2)c: the sends are over before the
    // first arrival; each arrival costs o + (s-1)G ≥ c, so they are taken in back to back:
    // every rank ends at o + L + (n-1)(o + (s-1)G). linear_sync (unlimited requests by
    // default) posts the same operations.
    let p = BASE;
    for name in ["linear", "linear_sync"] {
        let a = alg(Collective::Alltoall, name);
        for n in [2u32, 3, 4, 5, 8, 9] {
            for s in [1u64, 100, 300] {
                assert!(p.l >= (n as i64 - 2) * p.gap(s));
                let want = p.o + p.l + (n as i64 - 1) * p.rx(s);
                let got = run(a, n, p, &|r| spec(Collective::Alltoall, n, r, 0, s));
                assert!(got.iter().all(|&t| t == want), "{name} n={n} s={s}: {got:?} != {want}");
            }
        }
        let got = run(a, 1, p, &|r| spec(Collective::Alltoall, 1, r, 0, 10));
        assert_eq!(got, vec![0]);
    }
}

// ---------------------------------------------------------------------------------------
// Alltoallv

/// Rank `s`'s block for rank `d` in the alltoallv tests: uneven, 1..=40 bytes.
fn pair_bytes(s: u32, d: u32) -> u64 {
    ((s * 11 + d * 5 + s * d) % 40 + 1) as u64
}

fn alltoallv_spec(n: u32, me: u32, m: &dyn Fn(u32, u32) -> u64) -> CollSpec {
    let mut s = CollSpec::new(Collective::Alltoallv, n, me, 0);
    s.send_counts = (0..n).map(|d| m(me, d)).collect();
    s.recv_counts = (0..n).map(|src| m(src, me)).collect();
    s
}

#[test]
fn closed_form_alltoallv_pairwise() {
    // n-1 send-receive steps (see `sendrecv_steps`): in step i rank r sends M[r][to] and
    // receives M[from][r], with to = from = r XOR i for powers of two, else to = r + i
    // and from = r - i. Uneven sizes put the ranks out of step, which the recurrence
    // follows.
    let p = BASE;
    let a = alg(Collective::Alltoallv, "pairwise");
    for n in [2u32, 3, 4, 6, 8, 11, 16] {
        let pow2 = n.is_power_of_two();
        let to = move |r: u32, i: u32| if pow2 { r ^ i } else { (r + i) % n };
        let from = move |r: u32, i: u32| if pow2 { r ^ i } else { (r + n - i) % n };
        let want = sendrecv_steps(
            p,
            n,
            n - 1,
            vec![0; n as usize],
            &from,
            &|r, i| pair_bytes(r, to(r, i)),
            &|r, i| pair_bytes(from(r, i), r),
        );
        let got = run(a, n, p, &|r| alltoallv_spec(n, r, &pair_bytes));
        assert_eq!(got, want, "n={n}");
    }
}

#[test]
fn closed_form_alltoallv_bruck() {
    // Equal blocks of s bytes. Batches of 4 peers; in batch ii every rank sends to
    // r-ii-i (i ascending, skipping itself) back to back, every c = max(o, g + (s-1)G),
    // and rank d is the k-th destination of exactly one sender for each k < m (m peers
    // in the batch: min(4, n) - 1 in the first, min(4, n - ii) after). The batch thus
    // ends o + L + m(o + (s-1)G) after it began (arrivals k·c apart, each taking
    // o + (s-1)G ≥ c), and the next batch starts then on every rank.
    let p = BASE;
    let a = alg(Collective::Alltoallv, "bruck");
    for n in [2u32, 3, 4, 5, 8, 9, 13] {
        for s in [1u64, 100] {
            let mut want = 0i64;
            let mut ii = 0;
            while ii < n {
                let m = 4.min(n - ii) - u32::from(ii == 0);
                want += p.o + p.l + m as i64 * p.rx(s);
                ii += 4;
            }
            let got = run(a, n, p, &|r| alltoallv_spec(n, r, &|_, _| s));
            assert!(got.iter().all(|&t| t == want), "n={n} s={s}: {got:?} != {want}");
        }
    }
}

#[test]
fn closed_form_alltoallv_linear() {
    // Equal blocks of s bytes. Every rank sends at once to 0, 1, … (skipping itself), the
    // k-th send at k·c, c = max(o, g + (s-1)G). Rank d is the (d-1)-th destination of the
    // d ranks below it and the d-th of the n-1-d above, so its messages arrive at
    // o + L + (d-1)c (d of them) and o + L + d·c (the rest). With L ≥ (n-2)c its own sends
    // are over by then, and the arrivals are taken in back to back (o + (s-1)G ≥ c):
    // rank d ends at o + L + max(d-1, 0)·c + (n-1)(o + (s-1)G).
    let p = BASE;
    let a = alg(Collective::Alltoallv, "linear");
    for n in [2u32, 3, 4, 7, 9] {
        for s in [1u64, 100, 300] {
            let c = p.gap(s);
            assert!(p.l >= (n as i64 - 2) * c);
            let want: Vec<i64> = (0..n as i64)
                .map(|d| p.o + p.l + (d - 1).max(0) * c + (n as i64 - 1) * p.rx(s))
                .collect();
            let got = run(a, n, p, &|r| alltoallv_spec(n, r, &|_, _| s));
            assert_eq!(got, want, "n={n} s={s}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Gather, gatherv

#[test]
fn closed_form_gather_linear() {
    // Every non-root sends at 0; all messages arrive at o + L and the root takes them in
    // one after the other, o + (s-1)G each (its blocking receives in rank order match the
    // arrival order, and a message taken in before its receive is posted lets that
    // receive complete at once). Root: o + L + (n-1)(o + (s-1)G); others: o.
    let p = BASE;
    let a = alg(Collective::Gather, "linear");
    for n in [1u32, 2, 3, 5, 8, 16] {
        for root in [0, n / 2, n - 1] {
            for s in [1u64, 500] {
                let want: Vec<i64> = (0..n)
                    .map(|r| {
                        if n == 1 {
                            0
                        } else if r == root {
                            p.o + p.l + (n as i64 - 1) * p.rx(s)
                        } else {
                            p.o
                        }
                    })
                    .collect();
                let got = run(a, n, p, &|r| spec(Collective::Gather, n, r, root, s));
                assert_eq!(got, want, "n={n} root={root} s={s}");
            }
        }
    }
}

#[test]
fn closed_form_gather_binomial() {
    // In-order binomial tree over relative ranks: v's children are v + m for m = 1, 2, 4,
    // … below v's lowest set bit; child c brings min(m, n - c) blocks. A leaf sends at 0.
    // Node v takes its children's messages in as they arrive (at D(c) + o + L, each costing
    // o + (blocks·s - 1)G, one after the other), which gives D(v), the time its last
    // receive is done and it sends to its parent. Root ends at D(0), the others at
    // D(v) + o.
    let p = BASE;
    let a = alg(Collective::Gather, "binomial");
    for n in [1u32, 2, 3, 4, 5, 7, 8, 12, 16] {
        for root in [0, n - 1, n / 3] {
            for s in [1u64, 100] {
                let mut d = vec![0i64; n as usize];
                for v in (0..n).rev() {
                    let low = subtree_span(v, n);
                    let mut msgs: Vec<(i64, i64)> = (0..32)
                        .map(|k| 1u32 << k)
                        .filter(|&m| m < low && v + m < n)
                        .map(|m| {
                            let c = v + m;
                            let blocks = m.min(n - c) as u64;
                            (d[c as usize] + p.o + p.l, p.rx(blocks * s))
                        })
                        .collect();
                    msgs.sort();
                    let mut e = 0;
                    for (arr, cost) in msgs {
                        e = e.max(arr) + cost;
                    }
                    d[v as usize] = e;
                }
                let want: Vec<i64> = (0..n)
                    .map(|r| {
                        let v = (r + n - root) % n;
                        if v == 0 {
                            d[0]
                        } else {
                            d[v as usize] + p.o
                        }
                    })
                    .collect();
                let got = run(a, n, p, &|r| spec(Collective::Gather, n, r, root, s));
                assert_eq!(got, want, "n={n} root={root} s={s}");
            }
        }
    }
}

#[test]
fn closed_form_gather_linear_sync() {
    // Each rank's block of s bytes goes in two messages: a first segment of f bytes (SimGrid's
    // rule: the whole block up to 1024 bytes, else 1024 bytes in whole elements) and the
    // rest, s2 = s - f (empty when the block is whole: b = -1).
    // The root serves the other ranks one by one, in rank order (the k-th at t'_k). It
    // sends the empty go-ahead at t'_k; the rank takes it in by t'_k + o + L + o - G, = D_k,
    // sends its first segment then, and the second max(o, g + (f-1)G) later, ending o
    // after that. The first segment reaches the root at D_k + o + L and is taken in by
    // t_{k+1} = D_k + o + L + o + (f-1)G, i.e. q = 4o + 2L + (f-2)G after t'_k. The second
    // segment arrived meanwhile (it left less than o + (f-1)G after the first, as g < o),
    // earlier than the root's next go-ahead was queued, so the root takes it in first
    // (o + (s2-1)G) and sends the next go-ahead at t'_{k+1} = t'_k + q + o + (s2-1)G. After
    // the last rank the root takes in the last second segment: it ends at
    // (n-1)(q + o + (s2-1)G).
    let p = BASE;
    let a = alg(Collective::Gather, "linear_sync");
    // (s, element bytes, f): 1200 bytes of 24-byte elements: 1024/24 = 42 r 16, more
    // than half an element, so 43 elements.
    let cases = [
        (1u64, 1u64, 1u64),
        (64, 1, 64),
        (1000, 1, 1000),
        (1024, 1, 1024),
        (3000, 1, 1024),
        (2000, 8, 1024),
        (1200, 24, 1032),
    ];
    for n in [1u32, 2, 3, 5, 8, 16] {
        for root in [0, n / 2, n - 1] {
            for (s, elem, f) in cases {
                let q = 4 * p.o + 2 * p.l + (f as i64 - 2) * p.gg;
                let step = q + p.rx(s - f);
                let mut want = vec![0i64; n as usize];
                for (k, i) in (0..n).filter(|&i| i != root).enumerate() {
                    let d = k as i64 * step + p.o + p.l + p.rx(0);
                    want[i as usize] = d + p.gap(f) + p.o;
                }
                want[root as usize] = (n as i64 - 1) * step;
                let got = run(a, n, p, &|r| {
                    let mut sp = spec(Collective::Gather, n, r, root, s);
                    sp.elem = elem;
                    sp
                });
                assert_eq!(got, want, "n={n} root={root} s={s} elem={elem}");
            }
        }
    }
}

#[test]
fn closed_form_gatherv_linear() {
    // As the linear gather, with rank i's block of c_i bytes (some empty: b = -1, so
    // o - G): all arrive at o + L, taken in one after the other. Root:
    // o + L + Σ_{i≠root} (o + (c_i - 1)G); others: o.
    let p = BASE;
    let a = alg(Collective::Gatherv, "linear");
    for n in [2u32, 3, 6, 9, 17] {
        for root in [0, n - 1] {
            let c = counts(n, n as u64, true);
            let want: Vec<i64> = (0..n)
                .map(|r| {
                    if r == root {
                        p.o + p.l + (0..n).filter(|&i| i != root).map(|i| p.rx(c[i as usize])).sum::<i64>()
                    } else {
                        p.o
                    }
                })
                .collect();
            let got = run(a, n, p, &|r| {
                let mut s = spec(Collective::Gatherv, n, r, root, 0);
                s.counts = c.clone();
                s
            });
            assert_eq!(got, want, "n={n} root={root} counts={c:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Scatter, scatterv

#[test]
fn closed_form_scatter_linear() {
    // The root sends to the other ranks in rank order, back to back: the k-th send starts
    // at k·c, c = max(o, g + (s-1)G); its receiver is done at k·c + o + L + o + (s-1)G.
    // The root ends at (n-2)c + o. Blocking sends (linear) and sends started at once then
    // waited for (linear_nb) give the same times.
    let p = BASE;
    for name in ["linear", "linear_nb"] {
        let a = alg(Collective::Scatter, name);
        for n in [1u32, 2, 3, 5, 8, 16] {
            for root in [0, n / 2, n - 1] {
                for s in [1u64, 200, 1000] {
                    let c = p.gap(s);
                    let mut want = vec![0i64; n as usize];
                    for (k, i) in (0..n).filter(|&i| i != root).enumerate() {
                        want[i as usize] = k as i64 * c + p.msg(s);
                    }
                    if n > 1 {
                        want[root as usize] = (n as i64 - 2) * c + p.o;
                    }
                    let got = run(a, n, p, &|r| spec(Collective::Scatter, n, r, root, s));
                    assert_eq!(got, want, "{name} n={n} root={root} s={s}");
                }
            }
        }
    }
}

#[test]
fn closed_form_scatter_binomial() {
    // In-order binomial tree over relative ranks. Node v is done receiving at A(v)
    // (A(0) = 0); it then sends to its children v + m, m = 1, 2, 4, … below its lowest
    // set bit, in that order, with blocking sends: the k-th starts at t_k, t_0 = A(v),
    // t_{k+1} = t_k + max(o, g + (b_k·s - 1)G) where b_k = min(m, n - c) blocks go to child
    // c, which is done at A(c) = t_k + o + L + o + (b_k·s - 1)G. A node ends at
    // t_last + o, a leaf at A(v).
    let p = BASE;
    let a = alg(Collective::Scatter, "binomial");
    for n in [1u32, 2, 3, 4, 6, 8, 11, 16] {
        for root in [0, n - 1, n / 2] {
            for s in [1u64, 150] {
                let mut arr = vec![0i64; n as usize];
                let mut end = vec![0i64; n as usize];
                for v in 0..n {
                    let low = subtree_span(v, n);
                    let mut t = arr[v as usize];
                    end[v as usize] = t;
                    let mut m = 1;
                    while m < low && v + m < n {
                        let c = v + m;
                        let bytes = m.min(n - c) as u64 * s;
                        arr[c as usize] = t + p.msg(bytes);
                        end[v as usize] = t + p.o;
                        t += p.gap(bytes);
                        m <<= 1;
                    }
                }
                let want: Vec<i64> = (0..n).map(|r| end[((r + n - root) % n) as usize]).collect();
                let got = run(a, n, p, &|r| spec(Collective::Scatter, n, r, root, s));
                assert_eq!(got, want, "n={n} root={root} s={s}");
            }
        }
    }
}

#[test]
fn closed_form_scatterv_linear() {
    // The root starts all sends at once, in rank order; they leave back to back: the next
    // one starts max(o, g + (c_i - 1)G) after the previous one (c_i its size; empty blocks
    // are sent too, b = -1). Rank i is done o + L + o + (c_i - 1)G after its send starts;
    // the root ends o after its last send starts.
    let p = BASE;
    let a = alg(Collective::Scatterv, "linear");
    for n in [2u32, 3, 6, 9, 17] {
        for root in [0, n / 2] {
            let c = counts(n, 3 + n as u64, true);
            let mut want = vec![0i64; n as usize];
            let mut t = 0;
            let mut last = 0;
            for i in (0..n).filter(|&i| i != root) {
                want[i as usize] = t + p.msg(c[i as usize]);
                last = t;
                t += p.gap(c[i as usize]);
            }
            want[root as usize] = last + p.o;
            let got = run(a, n, p, &|r| {
                let mut s = spec(Collective::Scatterv, n, r, root, 0);
                s.counts = c.clone();
                s
            });
            assert_eq!(got, want, "n={n} root={root} counts={c:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Reduce_scatter

fn reduce_scatter_spec(n: u32, me: u32, c: &[u64]) -> CollSpec {
    let mut s = CollSpec::new(Collective::ReduceScatter, n, me, 0);
    s.counts = c.to_vec();
    s
}

#[test]
fn closed_form_reduce_scatter_ring() {
    // Step k = 1..n-1: rank r sends block r-k to the right at T_r(k) (T_r(1) = 0) and
    // takes in the left neighbour's step-k message, block r-1-k, at
    // max(T_{r-1}(k) + o + L, T_r(k) + o), for o + (c_{r-1-k} - 1)G. Its next send starts
    // when that is done and its NIC is free (T_r(k) + g + (c_{r-k} - 1)G). The last
    // receive (its own block) ends the rank: `sendrecv_steps` with from = r-1.
    // Equal counts give (n-1)(2o + L + (s-1)G) on every rank.
    let p = BASE;
    let a = alg(Collective::ReduceScatter, "ring");
    for n in [2u32, 3, 4, 5, 8, 13, 16] {
        for salt in [0u64, 1] {
            let c = counts(n, salt, false);
            let want = sendrecv_steps(
                p,
                n,
                n - 1,
                vec![0; n as usize],
                &|r, _| (r + n - 1) % n,
                &|r, k| c[((r + n - k % n) % n) as usize],
                &|r, k| c[((r + 2 * n - 1 - k % n) % n) as usize],
            );
            let got = run(a, n, p, &|r| reduce_scatter_spec(n, r, &c));
            assert_eq!(got, want, "n={n} counts={c:?}");
        }
        let s = 33u64;
        let eq = vec![s; n as usize];
        let want = (n as i64 - 1) * (2 * p.o + p.l + (s as i64 - 1) * p.gg);
        let got = run(a, n, p, &|r| reduce_scatter_spec(n, r, &eq));
        assert!(got.iter().all(|&t| t == want), "n={n}: {got:?} != {want}");
    }
}

#[test]
fn closed_form_reduce_scatter_pairwise() {
    // Step i = 1..n-1, a send-receive: rank r sends c_{r+i} bytes to r+i and receives
    // c_r bytes from r-i (sent in the same step): `sendrecv_steps`.
    let p = BASE;
    let a = alg(Collective::ReduceScatter, "pairwise");
    for n in [2u32, 3, 4, 7, 8, 12] {
        let c = counts(n, 5, false);
        let want = sendrecv_steps(
            p,
            n,
            n - 1,
            vec![0; n as usize],
            &|r, i| (r + n - i) % n,
            &|r, i| c[((r + i) % n) as usize],
            &|r, _| c[r as usize],
        );
        let got = run(a, n, p, &|r| reduce_scatter_spec(n, r, &c));
        assert_eq!(got, want, "n={n} counts={c:?}");
    }
}

#[test]
fn closed_form_reduce_scatter_recursive_halving() {
    // Powers of two: no folding, every rank starts at 0. In the step with mask
    // m = n/2, n/4, …, 1 rank x's current range is the aligned run of 2m blocks holding
    // x; it sends the half not holding x to x XOR m and receives the partner's part of
    // its own half: `sendrecv_steps` (the ranks stay within far less than o + L of each
    // other, so every partner's message arrives after the rank's own send).
    let p = BASE;
    let a = alg(Collective::ReduceScatter, "recursive_halving");
    for n in [2u32, 4, 8, 16] {
        let c = counts(n, 2, false);
        let half = |x: u32, m: u32, mine: bool| -> u64 {
            let base = x / (2 * m) * (2 * m);
            let lo = if (x & m == 0) == mine { base } else { base + m };
            c[lo as usize..(lo + m) as usize].iter().sum()
        };
        let mask = |i: u32| n >> i;
        let want = sendrecv_steps(
            p,
            n,
            n.trailing_zeros(),
            vec![0; n as usize],
            &|x, i| x ^ mask(i),
            &|x, i| half(x, mask(i), false),
            &|x, i| half(x, mask(i), true),
        );
        let got = run(a, n, p, &|r| reduce_scatter_spec(n, r, &c));
        assert_eq!(got, want, "n={n} counts={c:?}");
    }
    // n = 3, blocks of s bytes (s ≤ 101, so that g + (s-1)G ≤ o). p' = 2: rank 0 sends
    // its 3s bytes to rank 1 at 0; rank 1 (new rank 0, holding new block 0 = blocks
    // {0, 1}) and rank 2 (new rank 1, new block 1 = block 2) exchange: rank 1 sends s
    // bytes, rank 2 sends 2s bytes, at 0. Both messages reach rank 1 at o + L, rank 0's
    // first (lower rank, earlier send): it is taken in by F = o + L + o + (3s-1)G, then
    // rank 2's, by F + o + (2s-1)G, before rank 1's own send, which starts then (its
    // receive is already complete). Rank 1 then sends s bytes back to rank 0 at
    // X = F + o + (2s-1)G + o and ends at X + o; rank 0 ends at X + o + L + o + (s-1)G;
    // rank 2 takes rank 1's message in by F + o + (2s-1)G + o + L + o + (s-1)G.
    for s in [1u64, 10, 100] {
        let f = p.msg(3 * s);
        let sent = f + p.rx(2 * s);
        let x = sent + p.o;
        let want = vec![x + p.msg(s), x + p.o, sent + p.msg(s)];
        let got = run(a, 3, p, &|r| reduce_scatter_spec(3, r, &[s, s, s]));
        assert_eq!(got, want, "n=3 s={s}");
    }
}

// ---------------------------------------------------------------------------------------
// Barrier (zero-byte messages, G = 0: sender CPU o, receiver CPU o, hop h = 2o + L)

fn barrier(a: &Algorithm, n: u32) -> Vec<i64> {
    run(a, n, SYNC, &|r| spec(Collective::Barrier, n, r, 0, 0))
}

#[test]
fn closed_form_barrier_linear() {
    // All ranks > 0 send at 0; rank 0 takes the n-1 messages in from o + L on, o each:
    // done at D = o + L + (n-1)o. It then sends to 1, 2, … every max(o, g) = o: rank i's
    // message leaves at D + (i-1)o and is taken in by D + (i-1)o + 2o + L. Rank 0 ends
    // at D + (n-2)o + o.
    let p = SYNC;
    let a = alg(Collective::Barrier, "linear");
    assert_eq!(barrier(a, 1), vec![0]);
    for n in [2u32, 3, 5, 8, 16, 17] {
        let d = p.o + p.l + (n as i64 - 1) * p.o;
        let want: Vec<i64> = (0..n as i64)
            .map(|i| {
                if i == 0 {
                    d + (n as i64 - 1) * p.o
                } else {
                    d + (i - 1) * p.o + 2 * p.o + p.l
                }
            })
            .collect();
        assert_eq!(barrier(a, n), want, "n={n}");
    }
}

#[test]
fn closed_form_barrier_double_ring() {
    // The token makes two rounds of n hops of h = 2o + L. Rank i > 0 receives it at i·h
    // and (n+i)·h and ends o after sending it on the second time; rank 0 sends at 0 and
    // n·h, and ends when it gets it back at 2n·h.
    let p = SYNC;
    let h = 2 * p.o + p.l;
    let a = alg(Collective::Barrier, "double_ring");
    for n in [2u32, 3, 4, 7, 16] {
        let want: Vec<i64> = (0..n as i64)
            .map(|i| {
                if i == 0 {
                    2 * n as i64 * h
                } else {
                    (n as i64 + i) * h + p.o
                }
            })
            .collect();
        assert_eq!(barrier(a, n), want, "n={n}");
    }
}

#[test]
fn closed_form_barrier_recursive_doubling() {
    // Powers of two: log2(n) send-receives, all ranks in step, h = 2o + L each.
    let p = SYNC;
    let (o, l) = (p.o, p.l);
    let a = alg(Collective::Barrier, "recursive_doubling");
    assert_eq!(barrier(a, 1), vec![0]);
    for n in [2u32, 4, 8, 16] {
        let want = n.trailing_zeros() as i64 * (2 * o + l);
        let got = barrier(a, n);
        assert!(got.iter().all(|&t| t == want), "n={n}: {got:?} != {want}");
    }
    // n = 3 (p' = 2): at 0 rank 1 sends to 0 (exchange) and rank 2 sends to 0 (its
    // send-receive). Both arrive at o + L, rank 1's first: rank 0 takes them in by 2o + L
    // and 3o + L, its receive from 2 completing then; it sends to 1 at 3o + L (the
    // exchange's receive is already complete) and to 2 at 4o + L, ending at 5o + L.
    // Rank 1 is done at 3o + L + 2o + L, rank 2 at 4o + L + 2o + L.
    assert_eq!(barrier(a, 3), vec![5 * o + l, 5 * o + 2 * l, 6 * o + 2 * l]);
    // n = 5 (p' = 4, rank 4 pairs with 0). At 0: 1 → 0, 2 → 3, 3 → 2 (mask 1) and 4 → 0.
    // At o + L: rank 0 takes in 1's then 4's message (done 3o + L); ranks 2 and 3 take
    // theirs in by 2o + L and send for mask 2 (2 → 0, 3 → 1), arriving at 3o + 2L.
    // Rank 0 sends to 1 at 3o + L (arrives 4o + 2L) and to 2 at 4o + L (arrives 5o + 2L).
    // Rank 0 takes 2's message in at 3o + 2L (done 4o + 2L), sends to 4 then: ends
    // 5o + 2L; rank 4 is done at 4o + 2L + 2o + L. Rank 1 takes in 3's message
    // (3o + 2L .. 4o + 2L), then 0's (.. 5o + 2L), then sends to 3: ends 6o + 2L; rank 3
    // is done at 5o + 2L + 2o + L. Rank 2 takes 0's message in by 6o + 2L.
    assert_eq!(
        barrier(a, 5),
        vec![
            5 * o + 2 * l,
            6 * o + 2 * l,
            6 * o + 2 * l,
            7 * o + 3 * l,
            6 * o + 3 * l
        ]
    );
}

#[test]
fn closed_form_barrier_tree() {
    // Up: rank r's children are r + j for j = 1, 2, 4, … below its lowest set bit (all
    // j for rank 0) with r + j < n. U(r): its CPU is done with the children's messages,
    // taken in as they arrive (U(child) + o + L, o each); it then sends to its parent.
    // Down: r takes its parent's message in at max(arrival, U(r) + o) + o = Dn(r) (rank 0:
    // Dn = U), then sends to its children, largest j first, every o. A rank ends o after
    // its last send, or at Dn(r) without children.
    let p = SYNC;
    let a = alg(Collective::Barrier, "tree");
    assert_eq!(barrier(a, 1), vec![0]);
    for n in [2u32, 3, 4, 5, 6, 7, 8, 11, 16] {
        let children = |r: u32| -> Vec<u32> {
            let low = subtree_span(r, n);
            (0..32)
                .map(|k| 1u32 << k)
                .filter(|&j| j < low && r + j < n)
                .map(|j| r + j)
                .collect()
        };
        let mut up = vec![0i64; n as usize];
        for r in (0..n).rev() {
            let mut arr: Vec<i64> = children(r).iter().map(|&c| up[c as usize] + p.o + p.l).collect();
            arr.sort();
            let mut e = 0;
            for x in arr {
                e = e.max(x) + p.o;
            }
            up[r as usize] = e;
        }
        let mut dn = vec![0i64; n as usize];
        let mut want = vec![0i64; n as usize];
        dn[0] = up[0];
        for r in 0..n {
            let t = dn[r as usize];
            let kids = children(r);
            want[r as usize] = t;
            for (k, &c) in kids.iter().rev().enumerate() {
                let sent = t + k as i64 * p.o;
                dn[c as usize] = (sent + p.o + p.l).max(up[c as usize] + p.o) + p.o;
                want[r as usize] = sent + p.o;
            }
        }
        assert_eq!(barrier(a, n), want, "n={n}");
    }
}

// ---------------------------------------------------------------------------------------
// Scan, exscan

#[test]
fn closed_form_scan_and_exscan_linear() {
    // Rank r sends its vector to r+1, r+2, … at once: the k-th send starts at k·c,
    // c = max(o, g + (s-1)G). Rank d is the k-th destination of rank d-1-k, so its d
    // messages arrive at o + L + k·c, k < d; with L ≥ (n-2)c its own sends are over by
    // then, and the arrivals are taken in back to back (o + (s-1)G ≥ c): rank d ≥ 1 ends
    // at o + L + d(o + (s-1)G), rank 0 at (n-2)c + o. Exscan sends the same messages.
    let p = P { l: 10_000, ..BASE };
    for coll in [Collective::Scan, Collective::Exscan] {
        let a = alg(coll, "linear");
        for n in [1u32, 2, 3, 5, 8, 16, 17] {
            for s in [1u64, 8, 100] {
                let c = p.gap(s);
                assert!(p.l >= (n as i64 - 2) * c);
                let want: Vec<i64> = (0..n as i64)
                    .map(|d| {
                        if d > 0 {
                            p.o + p.l + d * p.rx(s)
                        } else if n > 1 {
                            (n as i64 - 2) * c + p.o
                        } else {
                            0
                        }
                    })
                    .collect();
                let got = run(a, n, p, &|r| spec(coll, n, r, 0, s));
                assert_eq!(got, want, "{coll} n={n} s={s}");
            }
        }
    }
}
