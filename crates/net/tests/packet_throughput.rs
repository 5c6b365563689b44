//! Throughput of the packet network under open-loop traffic against the analytic
//! bounds of the topology (Dally and Towles, "Principles and Practices of
//! Interconnection Networks", ch. 3: a network's ideal throughput is the injection
//! rate at which its busiest channel is full), and adaptive routing against minimal
//! on a dragonfly's adversarial pattern (Kim, Dally, Scott and Abts, "Technology-
//! Driven, Highly-Scalable Dragonfly Topology", ISCA 2008).
//!
//! Every host offers one-packet messages at a fixed rate; the accepted rate is what the
//! network delivers per host in the second half of the run. One packet per message,
//! because completions are what is counted: with several packets per message, a
//! host's injection serves its waiting messages in turn (as flows share a link), so
//! past saturation ever more messages are part-sent and fewer complete although the
//! links stay busy.

mod common;

use common::accepted;
use simpi_net::{PacketNetwork, PacketParams, Routing};
use simpi_platform::cluster::Sharing;
use simpi_platform::generate::{self, LinkSpec, NodeSpec};
use simpi_platform::model::{HostId, Platform};

const B: f64 = 1e9;

fn node() -> NodeSpec {
    NodeSpec {
        speed: 1e9,
        cores: 1,
        link: LinkSpec {
            bandwidth: B,
            latency: 1e-7,
        },
        sharing: Sharing::SplitDuplex,
        limiter_factor: None,
        loopback: None,
    }
}

/// A destination other than `s`, uniformly among `n` hosts.
fn uniform(n: u32) -> impl Fn(u32, u64) -> u32 {
    move |s, r| {
        let d = (r % (n as u64 - 1)) as u32;
        d + (d >= s) as u32
    }
}

/// The most messages of all-to-all traffic any one link carries on the platform's
/// routes: under uniform traffic at rate λ per host that link carries λ·max/(n-1).
fn busiest_link(p: &Platform) -> u64 {
    let n = p.num_hosts() as u32;
    let mut load = std::collections::HashMap::new();
    for s in 0..n {
        for d in (0..n).filter(|&d| d != s) {
            for l in p.route(HostId(s), HostId(d)).unwrap().links {
                *load.entry(l).or_insert(0u64) += 1;
            }
        }
    }
    *load.values().max().unwrap()
}

#[test]
fn uniform_traffic_on_a_torus_is_within_5_percent_of_8b_over_k() {
    // Uniform traffic at λ per host on a k x k torus (k odd): of the n - 1 = k² - 1
    // destinations, k have each offset d = ±1 .. ±(k-1)/2 in a dimension, and a
    // message crosses |d| links of that dimension in its direction. Summed over all
    // hosts, one direction of a dimension carries n·λ·k·Σd/(k²-1) = n·λ·k/8, spread
    // evenly over its n links: λ·k/8 each, so λ ≤ 8b/k. Offered at that bound, the
    // network must accept at least 95 % of it.
    for k in [9u32, 15] {
        let p = generate::torus("t", &[k, k], &node()).unwrap();
        let n = p.num_hosts() as u32;
        let bound = 8.0 * B / k as f64;
        // The routes' busiest link says the same: (n-1)·b/max = 8b/k.
        let from_routes = (n - 1) as f64 * B / busiest_link(&p) as f64;
        assert!(
            (from_routes / bound - 1.0).abs() < 1e-12,
            "{from_routes} against {bound}"
        );
        let mut net = PacketNetwork::new(&p, PacketParams::generic()).unwrap();
        let got = accepted(&mut net, n, bound, 2048, 4_800_000_000, uniform(n));
        assert!(got <= bound * 1.001, "k = {k}: accepted {got} above the bound {bound}");
        assert!(got >= 0.95 * bound, "k = {k}: accepted {:.4} of 8b/k", got / bound);
    }
}

/// A dragonfly of `g` groups, each of one chassis of `g` routers with one host:
/// `g` hosts per group, one global link between each pair of groups; every link 1 GB/s.
fn dragonfly(g: u32) -> Platform {
    generate::dragonfly("d", (g, 1), (1, 1), (g, 1), 1, &node()).unwrap()
}

/// Every host of group `x` sends to a random host of group `x + 1` (Kim et al.'s
/// worst case for minimal routing; "nearest-group" traffic).
fn next_group(g: u32) -> impl Fn(u32, u64) -> u32 {
    move |s, r| ((s / g + 1) % g) * g + (r % g as u64) as u32
}

fn with_routing(base: PacketParams, routing: Routing, seed: u64) -> PacketParams {
    PacketParams { routing, seed, ..base }
}

#[test]
fn nearest_group_traffic_fills_the_one_global_link_with_minimal_routes() {
    // All g hosts of a group share the single global link to the next group: the
    // bound is b / g per host.
    let g = 9;
    let p = dragonfly(g);
    let bound = B / g as f64;
    let mut net = PacketNetwork::new(&p, PacketParams::generic()).unwrap();
    let got = accepted(&mut net, g * g, bound, 2048, 4_800_000_000, next_group(g));
    assert!(got <= bound * 1.001, "accepted {got} above the bound {bound}");
    assert!(got >= 0.95 * bound, "accepted {:.4} of b/g", got / bound);
}

#[test]
fn detours_beat_minimal_routes_on_the_adversarial_pattern() {
    // Valiant sends each packet through a random group other than its source's (one
    // of g - 1; the destination's means the minimal route): each directed global
    // link then carries 2/(g-1) of a group's traffic (first and second legs), so the
    // bound rises from b/g to b(g-1)/(2g) per host: (g-1)/2 times minimal's, 4 for
    // g = 9. Kim et al. report the same contrast on their worst-case pattern:
    // minimal routing limited to one global channel per group, Valiant near half of
    // capacity. Offered at Valiant's bound, minimal must reach 95 % of its own bound
    // and Valiant 90 % of the factor over minimal, under both presets. UGAL-L too with
    // the generic preset's virtual output queues; with the dragonfly preset's small
    // FIFO buffers its local queues signal congestion late (measured: 84 % of
    // Valiant's bound, 3.4 times minimal), so there it must reach 3 times.
    // Progressive adaptive routing (`adaptive` on a dragonfly) may still turn at the
    // router with the global link, where the queue shows: 90 % of the factor under
    // both presets (measured: 100 % and 97 % of Valiant's bound).
    let g = 9;
    let p = dragonfly(g);
    let n = g * g;
    let min_bound = B / g as f64;
    let val_bound = B * (g - 1) as f64 / (2 * g) as f64;
    let factor = (g - 1) as f64 / 2.0;
    for (base, ugal_factor) in [
        (PacketParams::generic(), 0.9 * factor),
        (PacketParams::dragonfly(), 3.0),
    ] {
        let bytes = base.payload();
        let run = |routing| {
            let mut net = PacketNetwork::new(&p, with_routing(base.clone(), routing, 1)).unwrap();
            accepted(&mut net, n, val_bound, bytes, 4_800_000_000, next_group(g))
        };
        let (minimal, valiant, ugal) = (run(Routing::Minimal), run(Routing::Valiant), run(Routing::Ugal));
        let progressive = run(Routing::Adaptive);
        let what = format!(
            "{bytes}-byte packets: minimal {:.4} of its bound, valiant {:.4}, ugal {:.4} and progressive {:.4} of valiant's",
            minimal / min_bound,
            valiant / val_bound,
            ugal / val_bound,
            progressive / val_bound
        );

        assert!(minimal >= 0.95 * min_bound && minimal <= 1.001 * min_bound, "{what}");
        assert!(valiant <= 1.001 * val_bound, "{what}");
        assert!(valiant / minimal >= 0.9 * factor, "{what}");
        assert!(ugal / minimal >= ugal_factor, "{what}");
        assert!(progressive / minimal >= 0.9 * factor, "{what}");
    }
}

#[test]
fn the_same_seed_gives_the_same_detours() {
    // Detours are drawn per (seed, message, packet): the same seed repeats a run to
    // the picosecond, another seed takes other groups and ends otherwise.
    let g = 5;
    let p = dragonfly(g);
    let msgs: Vec<(u64, u32, u32, u64)> = (0..g * g)
        .map(|s| (s as u64 * 1000, s, next_group(g)(s, s as u64 * 7), 64 * 1024))
        .collect();
    let ends = |routing, seed| {
        common::run(
            &mut PacketNetwork::new(&p, with_routing(PacketParams::generic(), routing, seed)).unwrap(),
            &msgs,
        )
    };
    for routing in [Routing::Valiant, Routing::Ugal, Routing::Adaptive] {
        assert_eq!(ends(routing, 3), ends(routing, 3));
        assert_ne!(ends(routing, 3), ends(routing, 4));
    }
    // Minimal routing draws nothing.
    assert_eq!(ends(Routing::Minimal, 3), ends(Routing::Minimal, 4));
}

#[test]
fn each_routing_needs_a_topology_that_offers_its_choices() {
    let torus = generate::torus("t", &[3, 3], &node()).unwrap();
    let (dragonfly, fat_tree) = (dragonfly(3), fat_tree());
    let refusal = |p: &Platform, routing| {
        PacketNetwork::new(p, with_routing(PacketParams::generic(), routing, 0))
            .err()
            .map(|e| e.to_string())
    };
    for (p, routing, needs) in [
        (&torus, Routing::Valiant, "no dragonfly"),
        (&torus, Routing::Ugal, "no dragonfly"),
        (&fat_tree, Routing::Ugal, "no dragonfly"),
    ] {
        let e = refusal(p, routing).expect("refused");
        assert!(e.contains(needs), "{e}");
    }
    assert_eq!(refusal(&fat_tree, Routing::Adaptive), None);
    assert_eq!(refusal(&torus, Routing::Adaptive), None);
    assert_eq!(refusal(&dragonfly, Routing::Adaptive), None);
    let flat = generate::flat("f", 4, &node(), None).unwrap();
    let e = refusal(&flat, Routing::Adaptive).expect("refused");
    assert!(e.contains("no fat tree, torus or dragonfly"), "{e}");
    assert_eq!(refusal(&dragonfly, Routing::Ugal), None);
}

/// The fat tree of the adaptive-routing tests: 8 leaf switches of 4 hosts, each leaf
/// linked to all 4 top switches.
fn fat_tree() -> Platform {
    generate::fat_tree("ft", 2, &[4, 8], &[1, 4], &[1, 1], &node()).unwrap()
}

/// d-mod-k's worst permutation on [`fat_tree`]: host `i` of leaf `L` sends to host
/// `L mod 4` of leaf `L + 1 + i`. Every destination has one source, but the static
/// route climbs by the destination's place in its leaf, the same for the four hosts of
/// a leaf: they share one of its four up-links.
fn same_up_port(s: u32, _draw: u64) -> u32 {
    let (leaf, i) = (s / 4, s % 4);
    4 * ((leaf + 1 + i) % 8) + leaf % 4
}

#[test]
fn adaptive_climbs_beat_d_mod_k_on_its_worst_permutation() {
    // Minimal (d-mod-k): four hosts share each used up-link, b/4 per host. Adaptive
    // climbs spread a leaf's packets over its four up-links; what then limits them is
    // the down-links from the top switches, where packets of one leaf's hosts can
    // meet (the choice sees only the leaf's own queues). Offered at b, minimal must
    // reach 95 % of b/4 and adaptive at least twice that.
    let p = fat_tree();
    let bound = B / 4.0;
    let base = PacketParams::generic();
    let run = |routing| {
        let mut net = PacketNetwork::new(&p, with_routing(base.clone(), routing, 0)).unwrap();
        accepted(&mut net, 32, B, base.payload(), 2_400_000_000, same_up_port)
    };
    let (minimal, adaptive) = (run(Routing::Minimal), run(Routing::Adaptive));
    let what = format!(
        "minimal {:.4} of b/4, adaptive {:.4} of b",
        minimal / bound,
        adaptive / B
    );
    eprintln!("{what}");
    assert!(minimal >= 0.95 * bound && minimal <= 1.001 * bound, "{what}");
    assert!(adaptive >= 2.0 * minimal && adaptive <= 1.001 * B, "{what}");
}

/// Transpose on a k x k torus: (x, y) sends to (y, x); a host of the diagonal sends
/// half a ring away in x.
fn transpose(k: u32) -> impl Fn(u32, u64) -> u32 {
    move |s, _| {
        let (x, y) = (s % k, s / k);
        if x == y {
            (x + k / 2) % k + y * k
        } else {
            y + x * k
        }
    }
}

/// The most flows of `pick`'s permutation any one link carries on the static routes.
fn busiest_link_of(p: &Platform, pick: impl Fn(u32, u64) -> u32) -> u64 {
    let mut load = std::collections::HashMap::new();
    for s in 0..p.num_hosts() as u32 {
        for l in p.route(HostId(s), HostId(pick(s, 0))).unwrap().links {
            *load.entry(l).or_insert(0u64) += 1;
        }
    }
    *load.values().max().unwrap()
}

#[test]
fn adaptive_hops_on_a_torus_carry_the_transpose_that_dimension_order_cannot() {
    // Transpose on an 8 x 8 torus. Dimension order (x first) sends the flows of a row
    // along x to the diagonal, then along y: the busiest link carries 4 flows, so the
    // hosts through it get b/4 at most. Minimal adaptive routing can move each flow to
    // its y-first route where x-first is loaded. Offered at 0.4 b: dimension order
    // must saturate (below 75 % accepted), adaptive carry at least 95 %. Under
    // uniform traffic at the 8b/k bound of a 9 x 9 torus, adaptive must accept 95 %
    // of it, as dimension order does (it does not trade the common case for the
    // adversarial one).
    let k = 8u32;
    let p = generate::torus("t", &[k, k], &node()).unwrap();
    let n = k * k;
    assert_eq!(busiest_link_of(&p, transpose(k)), 4);
    let offered = 0.4 * B;
    let run = |routing, rate, pick: &dyn Fn(u32, u64) -> u32| {
        let mut net = PacketNetwork::new(&p, with_routing(PacketParams::generic(), routing, 0)).unwrap();
        accepted(&mut net, n, rate, 2048, 2_400_000_000, pick)
    };
    let minimal = run(Routing::Minimal, offered, &transpose(k));
    let adaptive = run(Routing::Adaptive, offered, &transpose(k));
    let p9 = generate::torus("t", &[9, 9], &node()).unwrap();
    let bound = 8.0 * B / 9.0;
    let mut net = PacketNetwork::new(&p9, with_routing(PacketParams::generic(), Routing::Adaptive, 0)).unwrap();
    let uniform_adaptive = accepted(&mut net, 81, bound, 2048, 2_400_000_000, uniform(81));
    let what = format!(
        "transpose: minimal {:.4}, adaptive {:.4} of offered; uniform: adaptive {:.4} of 8b/k",
        minimal / offered,
        adaptive / offered,
        uniform_adaptive / bound
    );
    eprintln!("{what}");
    assert!(minimal < 0.75 * offered, "{what}");
    assert!(adaptive >= 0.95 * offered && adaptive <= 1.001 * offered, "{what}");
    assert!(uniform_adaptive >= 0.95 * bound, "{what}");
}
