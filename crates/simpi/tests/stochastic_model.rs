//! The stochastic model through the facade (issue 19): message times drawn from
//! measured distributions at the contention each message meets, hosts adding nothing.
//! Golden values come from the distributions written here: point masses give exact
//! times, a uniform histogram gives a known mean.

use simpi::platform::cluster::{cluster_platform, ClusterSpec};
use simpi::platform::HostId;
use simpi::{load, simulate, CollChoice, Distributions, LoadOptions, Model, SimTime, TimeUnit};
use std::path::Path;
mod common;

/// 10-byte messages: 1,000 ns alone, 3,000 ns with two in flight (point masses: each
/// bucket is half a picosecond wide, so a draw rounds to its start).
const STEPPED: &str = "unit ps
dist 10 1
bucket 1000000 1000000.5 7
dist 10 2
bucket 3000000 3000000.5 7
";

fn dists(text: &str) -> Distributions {
    Distributions::parse(Path::new("d.txt"), text).unwrap()
}

fn load_goal(goal: &str) -> simpi::Workload<'static> {
    let path = common::goal_file(goal);
    let speed: &'static (dyn Fn(u32) -> f64 + Sync) = &|_r: u32| 1e9;
    let coll: &'static CollChoice = Box::leak(Box::new(CollChoice::by_name("ompi").unwrap()));
    let opts = LoadOptions {
        unit: TimeUnit::Ns,
        ..common::load_options(speed, coll, 0.0, false)
    };
    load(&path, &opts).unwrap()
}

fn ends_ns(r: &simpi::Report) -> Vec<u64> {
    r.end_times.iter().map(|t| t.ps() / 1000).collect()
}

#[test]
fn the_thesis_exchange_takes_its_drawn_times() {
    // Both ranks compute 100 ns, then send 10 bytes to each other: the two messages
    // start together, one alone (1,000 ns), the other beside it (3,000 ns). Sends are
    // eager and free; each rank ends when the other's message has arrived.
    let thesis =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/thesis.goal")).unwrap();
    let mut w = load_goal(&thesis);
    let d = dists(STEPPED);
    let model = Model::Stochastic {
        distributions: &d,
        platform: None,
        hosts: Vec::new(),
        seed: 1,
        replication: 0,
    };
    let r = simulate(&mut w, &model, common::quiet()).unwrap();
    let mut ends = ends_ns(&r);
    ends.sort();
    assert_eq!(ends, vec![1100, 3100]);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

/// Two pairs exchange at once: 0 -> 1 and 2 -> 3.
const TWO_PAIRS: &str = "num_ranks 4
rank 0 { l1: send 10b to 1 tag 0 }
rank 1 { l1: recv 10b from 0 tag 0 }
rank 2 { l1: send 10b to 3 tag 0 }
rank 3 { l1: recv 10b from 2 tag 0 }
";

#[test]
fn contention_is_global_without_a_platform_and_per_link_with_one() {
    let d = dists(STEPPED);
    // Globally the second message meets the first: 1,000 and 3,000 ns.
    let mut w = load_goal(TWO_PAIRS);
    let global = Model::Stochastic {
        distributions: &d,
        platform: None,
        hosts: Vec::new(),
        seed: 1,
        replication: 0,
    };
    let r = simulate(&mut w, &global, common::quiet()).unwrap();
    let mut receivers = [ends_ns(&r)[1], ends_ns(&r)[3]];
    receivers.sort();
    assert_eq!(receivers, [1000, 3000]);
    // On a flat cluster the pairs share no link (each route is the sender's up link
    // and the receiver's down link): both alone.
    let platform = cluster_platform(&ClusterSpec::flat("c", 4, 1e9, 1e9, 1e-7)).unwrap();
    let mut w = load_goal(TWO_PAIRS);
    let links = Model::Stochastic {
        distributions: &d,
        platform: Some(&platform),
        hosts: (0..4).map(HostId).collect(),
        seed: 1,
        replication: 0,
    };
    let r = simulate(&mut w, &links, common::quiet()).unwrap();
    assert_eq!(ends_ns(&r), vec![0, 1000, 0, 1000]);
    // Both pairs into one receiver's down link: 0 -> 1 and 2 -> 1 meet there.
    let into_one = "num_ranks 4
rank 0 { l1: send 10b to 1 tag 0 }
rank 1 { l1: recv 10b from 0 tag 0
l2: recv 10b from 2 tag 1 }
rank 2 { l1: send 10b to 1 tag 1 }
rank 3 { }
";
    let mut w = load_goal(into_one);
    let r = simulate(&mut w, &links, common::quiet()).unwrap();
    assert_eq!(ends_ns(&r)[1], 3000);
}

#[test]
fn more_contention_than_measured_is_a_warning() {
    // Only contention 1 measured; the second message meets 2.
    let d = dists("unit ns\ndist 10 1\nbucket 1000 1000.0001 1\n");
    let mut w = load_goal(TWO_PAIRS);
    let model = Model::Stochastic {
        distributions: &d,
        platform: None,
        hosts: Vec::new(),
        seed: 1,
        replication: 0,
    };
    let r = simulate(&mut w, &model, common::quiet()).unwrap();
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].starts_with("1 message(s) met more contention than was measured (up to 2 in flight"),
        "{}",
        r.warnings[0]
    );
}

#[test]
fn replications_sample_the_distribution_and_repeat_bit_for_bit() {
    // One message whose time is uniform on 0..1000 ns: over 400 replications the mean
    // makespan is 500 ns give or take 1000/sqrt(12 x 400) = 14.4 ns (one standard error).
    let d = dists("unit ns\ndist 0 1\nbucket 0 1000 5\n");
    let one = "num_ranks 2\nrank 0 { l1: send 8b to 1 tag 0 }\nrank 1 { l1: recv 8b from 0 tag 0 }\n";
    let w = load_goal(one);
    let model = Model::Stochastic {
        distributions: &d,
        platform: None,
        hosts: Vec::new(),
        seed: 42,
        replication: 0,
    };
    let reps = simpi::montecarlo::replicate_model(&w, &model, 400, 2, 4, &|| {}).unwrap();
    let st = reps.stats().unwrap();
    assert!((st.mean - 500e3).abs() < 5.0 * 14.4e3, "mean {} ps", st.mean);
    assert!(
        st.min < 50e3 as u64 && st.max > 950e3 as u64,
        "{} .. {}",
        st.min,
        st.max
    );
    // The same seed on one thread: the same makespans; another seed: others.
    let again = simpi::montecarlo::replicate_model(&w, &model, 400, 1, 4, &|| {}).unwrap();
    assert_eq!(again.makespans, reps.makespans);
    let other = Model::Stochastic {
        distributions: &d,
        platform: None,
        hosts: Vec::new(),
        seed: 43,
        replication: 0,
    };
    let third = simpi::montecarlo::replicate_model(&w, &other, 400, 2, 4, &|| {}).unwrap();
    assert_ne!(third.makespans, reps.makespans);
    assert!(reps.makespans.iter().all(|t| *t <= SimTime(1_000_000)));
}
