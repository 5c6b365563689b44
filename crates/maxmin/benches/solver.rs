//! Cost of one flow start or end in a large system, solved incrementally versus from
//! scratch: 10^5 flows on a three-level fat tree of 4096 hosts (32-port switches).
//! `cargo bench -p simpi-maxmin` prints the times; see docs/models.md.

use criterion::{criterion_group, criterion_main, Criterion};
use simpi_kernel::Rng;
use simpi_maxmin::{CnstId, Policy, System, VarId};

/// Links of a k-ary 3-level fat tree as constraints; returns the route of (src, dst).
struct FatTree {
    k: u32,
    host_up: Vec<CnstId>,
    host_down: Vec<CnstId>,
    edge_up: Vec<CnstId>,
    edge_down: Vec<CnstId>,
    agg_up: Vec<CnstId>,
    agg_down: Vec<CnstId>,
}

impl FatTree {
    fn new(s: &mut System, k: u32) -> FatTree {
        let hosts = k * k * k / 4;
        let mut mk = |n: u32| {
            (0..n)
                .map(|_| s.add_constraint(1.25e9, Policy::Shared))
                .collect::<Vec<_>>()
        };
        FatTree {
            k,
            host_up: mk(hosts),
            host_down: mk(hosts),
            edge_up: mk(k * k * k / 4),
            edge_down: mk(k * k * k / 4),
            agg_up: mk(k * k * k / 4),
            agg_down: mk(k * k * k / 4),
        }
    }
    fn route(&self, a: u32, b: u32, path: u32) -> Vec<(CnstId, f64)> {
        let k = self.k;
        let per_edge = k / 2;
        let per_pod = k * k / 4;
        let mut r = vec![(self.host_up[a as usize], 1.0), (self.host_down[b as usize], 1.0)];
        let (ea, eb) = (a / per_edge, b / per_edge);
        if ea != eb {
            let up = (ea * per_edge + path % per_edge) as usize;
            let down = (eb * per_edge + path % per_edge) as usize;
            r.push((self.edge_up[up], 1.0));
            r.push((self.edge_down[down], 1.0));
            if a / per_pod != b / per_pod {
                let i = (path as usize * 7) % self.agg_up.len();
                r.push((self.agg_up[i], 1.0));
                r.push((self.agg_down[(i + 1) % self.agg_down.len()], 1.0));
            }
        }
        r
    }
}

fn build(local: bool) -> (System, FatTree, Vec<VarId>, Rng) {
    let mut s = System::new();
    let t = FatTree::new(&mut s, 32);
    let hosts = 32 * 32 * 32 / 4;
    let mut rng = Rng::new(1);
    let mut vars = Vec::new();
    for i in 0..100_000u32 {
        let a = rng.below(hosts as u64) as u32;
        // "local": neighbours under the same edge switch (stencil-like traffic),
        // otherwise uniformly random pairs.
        let b = if local {
            (a / 16) * 16 + rng.below(16) as u32
        } else {
            rng.below(hosts as u64) as u32
        };
        vars.push(s.add_variable(1.0 + (i % 7) as f64 * 1e-3, Some(1e9), &t.route(a, b, i)));
    }
    s.solve();
    (s, t, vars, rng)
}

fn bench(c: &mut Criterion) {
    for (name, local) in [("local", true), ("random", false)] {
        let (mut s, t, mut vars, mut rng) = build(local);
        let hosts = 32 * 32 * 32 / 4;
        c.bench_function(&format!("flow end+start, incremental, {name} pairs"), |bench| {
            bench.iter(|| {
                let i = rng.below(vars.len() as u64) as usize;
                s.remove_variable(vars[i]);
                let a = rng.below(hosts) as u32;
                let b = if local {
                    (a / 16) * 16 + rng.below(16) as u32
                } else {
                    rng.below(hosts) as u32
                };
                vars[i] = s.add_variable(1.0, Some(1e9), &t.route(a, b, i as u32));
                s.solve();
            })
        });
        c.bench_function(&format!("flow end+start, full re-solve, {name} pairs"), |bench| {
            bench.iter(|| {
                let i = rng.below(vars.len() as u64) as usize;
                s.remove_variable(vars[i]);
                let a = rng.below(hosts) as u32;
                let b = if local {
                    (a / 16) * 16 + rng.below(16) as u32
                } else {
                    rng.below(hosts) as u32
                };
                vars[i] = s.add_variable(1.0, Some(1e9), &t.route(a, b, i as u32));
                s.solve_all();
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
