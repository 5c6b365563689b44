//! The packet network model through the facade: a chain of messages on a flat cluster
//! (1 GB/s links of 100 ns; each route is the sender's up link and the receiver's down
//! link), whose end times are sums of the idle-path closed form (`crates/net/tests/
//! packet.rs`): wire bytes × 1,000 ps + 2 × 100 ns + one router delay.

use simpi::platform::cluster::{cluster_platform, ClusterSpec};
use simpi::platform::HostId;
mod common;

use simpi::{load, simulate, CollChoice, HostRules, LoadOptions, LogGops, Model, PacketParams, Protocol, TimeUnit};

fn run(goal: &str, params: PacketParams) -> (Vec<u64>, Vec<(String, u64, u64)>) {
    run_with(goal, params, HostRules::Smpi(Protocol::flow()), 1e9, TimeUnit::Us)
}

fn run_with(
    goal: &str,
    params: PacketParams,
    rules: HostRules,
    bandwidth: f64,
    unit: TimeUnit,
) -> (Vec<u64>, Vec<(String, u64, u64)>) {
    let path = common::goal_file(goal);
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::by_name("ompi").unwrap();
    let opts = LoadOptions {
        unit,
        ..common::load_options(&speed, &coll, 0.0, false)
    };
    let mut w = load(&path, &opts).unwrap();
    let platform = cluster_platform(&ClusterSpec::flat("c", 4, 1e9, bandwidth, 1e-7)).unwrap();
    let model = Model::Packet {
        platform: &platform,
        hosts: (0..4).map(HostId).collect(),
        rules,
        params,
    };
    let r = simulate(&mut w, &model, common::quiet()).unwrap();
    let links = r.links.iter().map(|l| (l.link.clone(), l.bytes, l.packets)).collect();
    (r.end_times.iter().map(|t| t.ps()).collect(), links)
}

/// 0 -> 1 -> 2 -> 3 with 1 B, 10,000 B and 100,000 B messages (detached sends, no
/// overheads: each rank ends when its message has arrived).
const CHAIN: &str = "num_ranks 4
rank 0 { l1: send 1b to 1 tag 0 }
rank 1 { l1: recv 1b from 0 tag 0
l2: send 10000b to 2 tag 0
l2 requires l1 }
rank 2 { l1: recv 10000b from 1 tag 0
l2: send 100000b to 3 tag 0
l2 requires l1 }
rank 3 { l1: recv 100000b from 2 tag 0 }
";

#[test]
fn a_chain_takes_the_sum_of_idle_path_times() {
    // Generic preset (no header, no router delay): hops of 201,000, 10,200,000 and
    // 100,200,000 ps.
    let (ends, links) = run(CHAIN, PacketParams::generic());
    assert_eq!(ends, vec![0, 201_000, 10_401_000, 110_601_000]);
    // The busiest link first: rank 2's up link and rank 3's down link carried
    // 100,000 B in 49 packets of 2,048 B (48 full ones and 1,696 B).
    assert_eq!(links[0].1, 100_000);
    assert_eq!(links[0].2, 49);
    assert_eq!(links.len(), 6);
}

#[test]
fn the_ib_preset_adds_headers_and_a_switch() {
    // 2,156 B of payload per packet plus 20 B of header; 100 ns through the switch.
    // 1 B: 1 packet, 21 B on the wire: 21,000 + 200,000 + 100,000 = 321,000 ps.
    // 10,000 B: 5 packets, 10,100 B: 10,100,000 + 300,000 = 10,400,000 ps.
    // 100,000 B: 47 packets, 100,940 B: 100,940,000 + 300,000 = 101,240,000 ps.
    let (ends, _) = run(CHAIN, PacketParams::ib());
    assert_eq!(ends, vec![0, 321_000, 10_721_000, 111_961_000]);
}

#[test]
fn loggops_hosts_send_through_the_network_instead_of_taking_l() {
    // LogGOPS costs around the network, as the LogGOPSim + InfiniBand thesis couples
    // them: o = 50 ns, g = 100 ns, G = 6 ps/B, L = 10 us (unused: the network replaces
    // it); links of 2 GB/s and 100 ns, the ib preset (20 B of header, 100 ns switch).
    // Rank 0's CPU is busy sending for o: it ends at 50,000 ps. The 180 B message
    // enters the network at 50,000 ps and takes 200 B / 2 GB/s + 2 x 100 ns + 100 ns
    // = 400,000 ps; rank 1's CPU receives it for o + max((s - 1) O, (s - 1) G), as
    // LogGOPSim charges a receive: 450,000 + 50,000 + 179 x 6 = 501,074 ps.
    let goal = "num_ranks 2
rank 0 { l1: send 180b to 1 tag 0 }
rank 1 { l1: recv 180b from 0 tag 0 }
";
    let m = LogGops {
        l: 10_000_000,
        o: 50_000,
        g: 100_000,
        big_g: 6,
        big_o: 0,
        s: 65535,
    };
    let (ends, _) = run_with(goal, PacketParams::ib(), HostRules::LogGops(m), 2e9, TimeUnit::Ps);
    assert_eq!(ends, vec![50_000, 501_074]);
}
