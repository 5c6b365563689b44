//! The flow network against SimGrid 3.32: one-message times observed in SimGrid runs
//! (recorded in the SMPI notes of this project: a send posted at 1e-8 s because of an
//! MPI_Wtime call, so 1e-8 is subtracted), and sharing cases worked out by hand.

mod common;

use common::run as run_messages;
use simpi_kernel::SimTime;
use simpi_net::{FlowNetwork, FlowParams};

/// Network parameters and the envelope the MPI protocol adds to every message (SMPI's
/// 16 bytes with its calibration, none without).
#[derive(Clone)]
struct Net {
    params: FlowParams,
    envelope: u64,
}

impl Net {
    fn smpi() -> Net {
        Net {
            params: FlowParams::smpi(),
            envelope: 16,
        }
    }

    fn plain() -> Net {
        Net {
            params: FlowParams::plain(),
            envelope: 0,
        }
    }
}
use simpi_platform::cluster::{cluster_platform, ClusterSpec};
use simpi_platform::model::{Platform, Policy};
use simpi_platform::zone::{TableKind, TableRoute, TableZone, ZoneRouting};

/// Runs flows started at time 0 and returns each token's completion time in seconds.
fn run(p: &Platform, net: Net, flows: &[(u32, u32, u64)]) -> Vec<f64> {
    let timed: Vec<(u64, u32, u32, u64)> = flows.iter().map(|&(a, b, bytes)| (0, a, b, bytes)).collect();
    let (end, _) = run_timed(p, net, &timed, true);
    end.into_iter().map(|ps| SimTime(ps).as_secs_f64()).collect()
}

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

#[test]
fn one_message_matches_simgrid_across_factor_boundaries() {
    // Platform A of the notes: a cluster, 125 MBps, 50 us, split-duplex (L = 100 us).
    let p = cluster_platform(&ClusterSpec::flat("c", 2, 1e9, 1.25e8, 50e-6)).unwrap();
    let observed = [
        (0u64, 0.000201634619),
        (240, 0.000203998907),
        (241, 0.000204008758),
        (65455, 0.001099383038),
        (65456, 0.001099394502),
        (65457, 0.001721175933),
        (100000, 0.002014942024),
    ];
    for (s, t) in observed {
        let got = run(&p, Net::smpi(), &[(0, 1, s)])[0];
        let want = t - 1e-8;
        assert!(rel(got, want) < 1e-8, "size {s}: got {got}, SimGrid {want}");
    }
}

#[test]
fn tcp_gamma_bounds_a_long_fat_link() {
    // One fat-pipe link, 1 GBps, 10 ms; 1e6 bytes. Bound 4194304 / (2 * 0.01) < 1e9.
    // SimGrid: 0.121505084402 (including the 1e-8 Wtime step).
    let mut p = Platform::new("z", ZoneRouting::Table(TableZone::new(TableKind::Full)));
    let root = p.root();
    p.add_host(root, "a", 1e9, 1).unwrap();
    p.add_host(root, "b", 1e9, 1).unwrap();
    let l = p.add_link("l", 1e9, 0.01, Policy::Fatpipe).unwrap();
    let mut t = TableZone::new(TableKind::Full);
    t.add_route(
        &p,
        0,
        1,
        TableRoute {
            links: vec![l],
            gateways: None,
        },
        true,
    )
    .unwrap();
    p.zone_mut(root).routing = ZoneRouting::Table(t);
    p.seal().unwrap();
    let got = run(&p, Net::smpi(), &[(0, 1, 1_000_000)])[0];
    assert!(rel(got, 0.121505084402 - 1e-8) < 1e-8, "{got}");
}

#[test]
fn weight_s_and_cross_traffic_share_like_simgrid() {
    // Hosts A, B, C; lA = lB = lC = 100 MBps, latencies 10 us, 100 us, 10 us; routes
    // A->C = [lA, lC], B->C = [lB, lC] (symmetrical, shared links: cross-traffic puts
    // 1.05 on each). 1e6 bytes from A and B at once. SimGrid: 0.018320876369 and
    // 0.022557172995 (these flows were started at time 0 in the SimGrid run).
    let mut p = Platform::new("z", ZoneRouting::Table(TableZone::new(TableKind::Full)));
    let root = p.root();
    for h in ["A", "B", "C"] {
        p.add_host(root, h, 1e9, 1).unwrap();
    }
    let la = p.add_link("lA", 1e8, 10e-6, Policy::Shared).unwrap();
    let lb = p.add_link("lB", 1e8, 100e-6, Policy::Shared).unwrap();
    let lc = p.add_link("lC", 1e8, 10e-6, Policy::Shared).unwrap();
    let mut t = TableZone::new(TableKind::Full);
    t.add_route(
        &p,
        0,
        2,
        TableRoute {
            links: vec![la, lc],
            gateways: None,
        },
        true,
    )
    .unwrap();
    t.add_route(
        &p,
        1,
        2,
        TableRoute {
            links: vec![lb, lc],
            gateways: None,
        },
        true,
    )
    .unwrap();
    p.zone_mut(root).routing = ZoneRouting::Table(t);
    p.seal().unwrap();
    let got = run(&p, Net::smpi(), &[(0, 2, 1_000_000), (1, 2, 1_000_000)]);
    assert!(rel(got[0], 0.018320876369) < 1e-9, "{got:?}");
    assert!(rel(got[1], 0.022557172995) < 1e-9, "{got:?}");
}

#[test]
fn plain_flows_share_a_backbone_equally() {
    // 4 flows cross a 100 MB/s backbone; private links 1 GB/s, 1 us each way, backbone
    // 5 us: latency 7 us, then each gets 25 MB/s: 1e6 bytes take 40 ms.
    let mut s = ClusterSpec::flat("c", 8, 1e9, 1e9, 1e-6);
    s.backbone = Some((1e8, 5e-6, Policy::Shared));
    let p = cluster_platform(&s).unwrap();
    let flows: Vec<(u32, u32, u64)> = (0..4).map(|i| (i, i + 4, 1_000_000)).collect();
    for t in run(&p, Net::plain(), &flows) {
        assert!(rel(t, 7e-6 + 0.04) < 1e-9, "{t}");
    }
}

#[test]
fn a_finishing_flow_frees_bandwidth_for_the_others() {
    // Two flows on one 100 MB/s backbone, 1e6 and 3e6 bytes, no latency worth noting
    // (links of 0 latency). Both at 50 MB/s until the first ends at 20 ms; the second
    // has 2e6 left, now at 100 MB/s: 20 ms more, ends at 40 ms.
    let mut s = ClusterSpec::flat("c", 4, 1e9, 1e12, 0.0);
    s.backbone = Some((1e8, 0.0, Policy::Shared));
    let p = cluster_platform(&s).unwrap();
    let got = run(&p, Net::plain(), &[(0, 2, 1_000_000), (1, 3, 3_000_000)]);
    assert!(rel(got[0], 0.02) < 1e-9 && rel(got[1], 0.04) < 1e-9, "{got:?}");
}

#[test]
fn long_routes_both_ways_share_by_cross_traffic() {
    // Hosts A and B joined by a chain of 6 shared links (1e8 B/s, 10 us each), used both
    // ways: with cross-traffic a route lists 12 constraints, more than are kept inline.
    // One 1e6-byte flow each way: each flow crosses every link forward (coefficient 1)
    // and backward (0.05), so 2 * 1.05 x = 1e8 and each ends at 6 * 10 us + 1e6 * 2.1 /
    // 1e8 = 21.06 ms. Without cross-traffic 2 x = 1e8: 20.06 ms.
    let mut p = Platform::new("z", ZoneRouting::Table(TableZone::new(TableKind::Full)));
    let root = p.root();
    p.add_host(root, "A", 1e9, 1).unwrap();
    p.add_host(root, "B", 1e9, 1).unwrap();
    let links: Vec<_> = (0..6)
        .map(|i| p.add_link(&format!("l{i}"), 1e8, 10e-6, Policy::Shared).unwrap())
        .collect();
    let mut t = TableZone::new(TableKind::Full);
    t.add_route(&p, 0, 1, TableRoute { links, gateways: None }, true)
        .unwrap();
    p.zone_mut(root).routing = ZoneRouting::Table(t);
    p.seal().unwrap();
    let both = [(0, 1, 1_000_000), (1, 0, 1_000_000)];
    let mut params = Net::plain();
    params.params.cross_traffic = Some(0.05);
    for got in run(&p, params, &both) {
        assert!(rel(got, 60e-6 + 0.021) < 1e-9, "{got}");
    }
    for got in run(&p, Net::plain(), &both) {
        assert!(rel(got, 60e-6 + 0.02) < 1e-9, "{got}");
    }
    // A cross traffic of 0 (a preset may say so) loads the reverse links with nothing:
    // the times without it (the max-min solver once panicked on the 0 coefficients).
    let mut zero = Net::plain();
    zero.params.cross_traffic = Some(0.0);
    for got in run(&p, zero, &both) {
        assert!(rel(got, 60e-6 + 0.02) < 1e-9, "{got}");
    }
}

/// Completion times (ps) of flows `(start ps, src, dst, bytes)`, started as the network's
/// clock passes their start, with single-bottleneck groups on or off; and how many
/// re-shares updated a group.
fn run_timed(p: &Platform, net: Net, flows: &[(u64, u32, u32, u64)], grouping: bool) -> (Vec<u64>, u64) {
    let mut model = FlowNetwork::new(p, net.params).with_grouping(grouping);
    let with_envelope: Vec<_> = flows
        .iter()
        .map(|&(t, a, b, bytes)| (t, a, b, bytes + net.envelope))
        .collect();
    let end = run_messages(&mut model, &with_envelope);
    (end, model.group_updates())
}

#[test]
fn flows_timed_as_a_group_end_when_they_would_one_by_one() {
    // An overloaded backbone (32 hosts at 125 MB/s into 1 GB/s, split-duplex host links),
    // cross traffic, the SMPI factors (so rates differ by message size), flows of 1 kB
    // to 200 kB in bursts: with the group, every flow must end within a few picoseconds
    // of where it ends when each is re-timed on its own.
    let mut s = ClusterSpec::flat("c", 32, 1e9, 1.25e8, 50e-6);
    s.backbone = Some((1e9, 10e-6, Policy::Shared));
    s.sharing = simpi_platform::cluster::Sharing::SplitDuplex;
    let p = cluster_platform(&s).unwrap();
    let mut seed = 7u64;
    let mut rnd = |m: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % m
    };
    let flows: Vec<(u64, u32, u32, u64)> = (0..3000)
        .map(|_| {
            let a = rnd(32) as u32;
            let b = (a + 1 + rnd(31) as u32) % 32;
            // Starts in bursts, many flows at the same picosecond; half the bursts close
            // together (flows overlap), half after the network has gone idle.
            let burst = rnd(200);
            let at = if burst < 100 {
                burst * 500_000_000
            } else {
                burst * 20_000_000_000
            };
            // One size per burst (one latency: they join the sharing together) or any.
            let bytes = if rnd(2) == 0 {
                1000 + burst * 997
            } else {
                1000 + rnd(200_000)
            };
            (at, a, b, bytes)
        })
        .collect();
    let (alone, none) = run_timed(&p, Net::smpi(), &flows, false);
    let (grouped, updates) = run_timed(&p, Net::smpi(), &flows, true);
    assert_eq!(none, 0);
    assert!(
        updates > 1000,
        "only {updates} group updates: the group was hardly used"
    );
    for (i, (a, g)) in alone.iter().zip(&grouped).enumerate() {
        assert!(
            *a != u64::MAX && a.abs_diff(*g) <= 4,
            "flow {i}: {a} ps one by one, {g} ps grouped"
        );
    }
}

#[test]
fn a_backbone_shared_twice_after_an_idle_gap_gives_processor_sharing_times() {
    // Four flows of 1, 2, 3 and 4 MB on one 100 MB/s backbone (host links 1 TB/s, no
    // latency), twice: at 0 and, after the network has gone idle, at 1 s. Processor
    // sharing: the 1 MB flow ends at 4 x 1 MB / 100 MB/s = 40 ms, the next after
    // 3 x 1 MB more (70 ms), then 90 ms and 100 ms. The second burst joins the sharing
    // all at once after the first one's group has emptied: the group must take in
    // every flow on the backbone, not only those that joined at its last re-share.
    let mut s = ClusterSpec::flat("c", 8, 1e9, 1e12, 0.0);
    s.backbone = Some((1e8, 0.0, Policy::Shared));
    let p = cluster_platform(&s).unwrap();
    let mut flows = Vec::new();
    for start in [0u64, 1_000_000_000_000] {
        for i in 0..4u32 {
            flows.push((start, i, i + 4, (i as u64 + 1) * 1_000_000));
        }
    }
    let want = [0.04, 0.07, 0.09, 0.10];
    for grouping in [true, false] {
        let (got, updates) = run_timed(&p, Net::plain(), &flows, grouping);
        assert_eq!(updates > 0, grouping, "{updates} group updates");
        for (i, &ps) in got.iter().enumerate() {
            let w = want[i % 4] + if i < 4 { 0.0 } else { 1.0 };
            assert!(
                rel(ps as f64 * 1e-12, w) < 1e-9,
                "grouping {grouping}, flow {i}: {ps} ps, want {w} s"
            );
        }
    }
}

#[test]
fn converging_flows_lose_bandwidth_as_ln_of_their_number() {
    // Split-duplex host links of 1e8 B/s, no latency, converging loss 0.3. Three 1e6-byte
    // flows into host 0: its down link carries 3 and delivers 1e8 / (1 + 0.3 ln 3), a
    // third each; the senders' up links carry one each and lose nothing. All end at
    // 3e6 (1 + 0.3 ln 3) / 1e8 s.
    let mut s = ClusterSpec::flat("c", 4, 1e9, 1e8, 0.0);
    s.sharing = simpi_platform::cluster::Sharing::SplitDuplex;
    let p = cluster_platform(&s).unwrap();
    let mut net = Net::plain();
    net.params.converging_loss = 0.3;
    let three: Vec<(u64, u32, u32, u64)> = (1..4).map(|h| (0, h, 0, 1_000_000)).collect();
    let want = 3e6 * (1.0 + 0.3 * 3f64.ln()) / 1e8;
    for grouping in [true, false] {
        for ps in run_timed(&p, net.clone(), &three, grouping).0 {
            assert!(rel(SimTime(ps).as_secs_f64(), want) < 1e-9, "{ps} ps, want {want} s");
        }
    }
    // Two flows into host 0, of 1e6 and 3e6 bytes: each at 1e8 / (2 (1 + 0.3 ln 2))
    // until the first ends at t1 = 2e6 (1 + 0.3 ln 2) / 1e8; the second, alone, gets the
    // whole 1e8 for its last 2e6 bytes: it ends at t1 + 0.02.
    let two = [(0, 1, 0, 1_000_000), (0, 2, 0, 3_000_000)];
    let t1 = 2e6 * (1.0 + 0.3 * 2f64.ln()) / 1e8;
    for grouping in [true, false] {
        let got: Vec<f64> = run_timed(&p, net.clone(), &two, grouping)
            .0
            .into_iter()
            .map(|ps| SimTime(ps).as_secs_f64())
            .collect();
        assert!(rel(got[0], t1) < 1e-9 && rel(got[1], t1 + 0.02) < 1e-9, "{got:?}");
    }
    // Two flows into host 0 from one host converge with no other host's: no loss, the
    // two share 1e8 and end at 20 ms.
    let same = [(0, 1, 0, 1_000_000), (0, 1, 0, 1_000_000)];
    for grouping in [true, false] {
        for ps in run_timed(&p, net.clone(), &same, grouping).0 {
            assert!(rel(SimTime(ps).as_secs_f64(), 0.02) < 1e-9, "{ps} ps, want 20 ms");
        }
    }
    // Without the loss the three share 1e8: 30 ms.
    let untimed: Vec<(u32, u32, u64)> = three.iter().map(|&(_, a, b, n)| (a, b, n)).collect();
    for t in run(&p, Net::plain(), &untimed) {
        assert!(rel(t, 0.03) < 1e-9, "{t}");
    }
}
