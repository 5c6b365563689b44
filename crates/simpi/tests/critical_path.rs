//! The critical path of real runs: small GOAL schedules replayed under LogGOPS with
//! LogGOPSim's defaults (L 2500, o 1500, g 1000, G 6, O 0, S 65535 ns), whose times and
//! chain of operations are derived by hand in each test's comments from LogGOPS's rules:
//! a send holds its CPU for o; its message can be taken in o + L after the send starts,
//! once the receiver's CPU is free, and taking it in holds that CPU for o + G·(bytes−1),
//! which is when a posted receive ends (the sum examples/thesis.goal's comment makes).

use simpi::critical::{Link, Step};
use simpi::{load, simulate, CollChoice, LoadOptions, LogGops, Model, SimOptions, TimeUnit};
use std::path::PathBuf;

/// Replays `goal` (written to a file named `name`) with recording on: the ranks' end
/// times (ns) and the critical path.
fn run(name: &str, goal: &str, s: u64) -> (Vec<u64>, Vec<Step>) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("critical-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, goal).unwrap();
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::new(Box::new(simpi::default_algorithm));
    let opts = LoadOptions {
        format: None,
        unit: TimeUnit::Ns,
        speed: &speed,
        collectives: &coll,
        test_cost: 0.0,
        calls: false,
        whole: false,
    };
    let mut w = load(&path, &opts).unwrap();
    let model = Model::LogGops(LogGops::from_units(TimeUnit::Ns, 2500, 1500, 1000, 6, 0, s));
    let sim = SimOptions {
        progress: None,
        max_blocked_ranks: 4,
        record: true,
    };
    let report = simulate(&mut w, &model, sim).unwrap();
    let ends = report.end_times.iter().map(|t| t.ps() / 1000).collect();
    (ends, report.critical)
}

/// A step as (rank, label, start ns, end ns, link).
fn brief(steps: &[Step]) -> Vec<(u32, &str, u64, u64, Link)> {
    steps
        .iter()
        .map(|s| (s.rank, s.label.as_str(), s.start / 1000, s.end / 1000, s.link))
        .collect()
}

#[test]
fn a_three_rank_chain_goes_back_to_rank_0s_late_compute() {
    // Rank 0 computes 10000 ns, then sends 8 bytes to rank 1: the send holds the CPU
    // 10000..11500, and its message can be taken in at 10000 + 1500 + 2500 = 14000.
    // Rank 1's receive, posted at 0, ends at 14000 + 1500 + 6·7 = 15542; its send to
    // rank 2 waits for it: 15542..17042, taken in at 19542 by rank 2's receive (posted
    // at 0), which ends at 21084. Rank 2's own compute of 500 ns, from 0, is on no path.
    let goal = "num_ranks 3
rank 0 {
c: calc 10000
s: send 8b to 1 tag 0
s requires c
}
rank 1 {
r: recv 8b from 0 tag 0
s: send 8b to 2 tag 0
s requires r
}
rank 2 {
c: calc 500
r: recv 8b from 1 tag 0
}
";
    let (ends, path) = run("chain.goal", goal, 65535);
    assert_eq!(ends, [11500, 17042, 21084]);
    let msg = Link::Message { bytes: 8 };
    assert_eq!(
        brief(&path),
        [
            (0, "compute", 0, 10000, Link::Start),
            (0, "send", 10000, 11500, Link::Rank),
            (1, "recv", 0, 15542, msg),
            (1, "send", 15542, 17042, Link::Rank),
            (2, "recv", 0, 21084, msg),
        ]
    );
}

#[test]
fn a_rendezvous_send_waits_for_the_late_posting_of_its_receive() {
    // S = 0: every message of a byte or more goes by rendezvous. Rank 0's send starts
    // at 0; its request can be taken in at 0 + 1500 + 2500 = 4000 by rank 1, whose CPU
    // computes until 9000, so it is taken in at 9000 (holding that CPU until 9000 + 1500
    // + 6·99 = 11094, rank 1's end), when rank 1 also posts its receive: the two match
    // and the send completes at 9000. Rank 0 then computes 9000..14000 and ends last.
    // The send waited for the posting, which waited for rank 1's compute.
    let goal = "num_ranks 2
rank 0 {
s: send 100b to 1 tag 0
c: calc 5000
c requires s
}
rank 1 {
c: calc 9000
r: recv 100b from 0 tag 0
r requires c
}
";
    let (ends, path) = run("rendezvous.goal", goal, 0);
    assert_eq!(ends, [14000, 11094]);
    assert_eq!(
        brief(&path),
        [
            (1, "compute", 0, 9000, Link::Start),
            (1, "recv", 9000, 9000, Link::Rank),
            (0, "send", 0, 9000, Link::Posted),
            (0, "compute", 9000, 14000, Link::Rank),
        ]
    );
}

#[test]
fn the_thesis_example_ends_with_rank_1s_message() {
    // Both ranks end together at 5654 (the file's comment): the walk starts at rank 0,
    // whose receive (posted at 0) waited for rank 1's send, after rank 1's compute.
    let goal = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/thesis.goal")).unwrap();
    let (ends, path) = run("thesis.goal", &goal, 65535);
    assert_eq!(ends, [5654, 5654]);
    assert_eq!(
        brief(&path),
        [
            (1, "compute", 0, 100, Link::Start),
            (1, "send", 100, 1600, Link::Rank),
            (0, "recv", 0, 5654, Link::Message { bytes: 10 }),
        ]
    );
}
