//! `Protocol::wake_delay`: a receive posted on a rank that shares its host's cores with
//! more ranks than cores completes that much after its message arrives; a message that
//! was in before its receive, or a rank with a core of its own, waits for nothing.
//! Times are closed forms: each hop of a token adds exactly the delay.

mod common;

use simpi::platform::{HostId, Platform};
use simpi::{load, simulate, CollChoice, Model, Preset};

/// Four hosts of 100 Mbit/s, 50 us links on one machine of `cores` cores.
fn machine(cores: u32) -> Platform {
    let text = format!(
        "shared_cores = {cores}\n[topology]\nkind = \"flat\"\nhosts = 4\nspeed = \"1Gf\"\n\
         link = {{ bandwidth = \"100Mbps\", latency = \"50us\", sharing = \"split-duplex\" }}\n"
    );
    // One file per call: the tests run at once.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("simpi-wake-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("p.toml");
    std::fs::write(&p, text).unwrap();
    simpi::platform::load(&p).unwrap()
}

/// Every rank's end time in picoseconds, GOAL times in ns.
fn ends(p: &Platform, wake: f64, goal: &str) -> Vec<u64> {
    let ranks: u32 = goal.split_whitespace().nth(1).unwrap().parse().unwrap();
    let path = common::goal_file(goal);
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::by_name("ompi").unwrap();
    let mut w = load(&path, &common::load_options(&speed, &coll, 0.0, false)).unwrap();
    // Small messages flow at once (as an eager MPI's do), not when their receive is
    // posted (SMPI's default): one can be in before its receive.
    let mut preset = Preset::smpi();
    preset.protocol.async_small = preset.protocol.detached;
    preset.protocol.cpu_overheads = true;
    preset.protocol.wake_delay = wake;
    let model = Model::Flow {
        platform: p,
        hosts: (0..ranks).map(HostId).collect(),
        preset,
    };
    simulate(&mut w, &model, common::quiet())
        .unwrap()
        .end_times
        .iter()
        .map(|t| t.ps())
        .collect()
}

/// An 8-byte token passed around four ranks three times (12 hops).
fn token() -> String {
    common::token_goal(4, 3, 8)
}

#[test]
fn every_hop_of_a_token_on_shared_cores_waits_the_delay() {
    let p = machine(2);
    let base = ends(&p, 0.0, &token());
    let woken = ends(&p, 1e-4, &token());
    // Rank 0 ends with the last of 12 hops, each 1e-4 s = 1e8 ps later.
    assert_eq!(woken[0] - base[0], 12 * 100_000_000, "{base:?} {woken:?}");
    // Rank r's last receive is the (4·2 + r)-th hop.
    for r in 1..4 {
        assert_eq!(woken[r] - base[r], (8 + r as u64) * 100_000_000, "rank {r}");
    }
}

#[test]
fn ranks_with_cores_of_their_own_notice_at_once() {
    let p = machine(4);
    assert_eq!(ends(&p, 1e-4, &token()), ends(&p, 0.0, &token()));
}

#[test]
fn a_message_in_before_its_receive_is_found_at_once() {
    // Rank 1 computes 5 ms before receiving: the message is long in.
    let goal = "num_ranks 4\nrank 0 { l1: send 8b to 1 tag 0 }\n\
                rank 1 { l1: calc 5000000\nl2: recv 8b from 0 tag 0\nl2 requires l1 }\n\
                rank 2 { }\nrank 3 { }\n";
    let p = machine(2);
    assert_eq!(ends(&p, 1e-4, goal), ends(&p, 0.0, goal));
    // Posted first, it waits.
    let early = "num_ranks 4\nrank 0 { l1: calc 5000000\nl2: send 8b to 1 tag 0\nl2 requires l1 }\n\
                 rank 1 { l1: recv 8b from 0 tag 0 }\nrank 2 { }\nrank 3 { }\n";
    assert_eq!(ends(&p, 1e-4, early)[1] - ends(&p, 0.0, early)[1], 100_000_000);
}
