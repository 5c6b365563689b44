//! Behaviours pinned down while the engine became incremental, each found by running
//! the previous engine and this one on random inputs side by side. Expected values are
//! worked out by hand in each test.

mod common;

use simpi::platform;
use simpi::{load, simulate, CollChoice, LogGops, Model, Preset, TimeUnit};
use std::path::PathBuf;

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("simpi-regressions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Replays `path` under `model`: end times in ns, or the error's text.
fn run(path: &std::path::Path, model: &Model<'_>) -> Result<Vec<u64>, String> {
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::by_name("ompi").unwrap();
    let opts = common::load_options(&speed, &coll, 1e-4, false);
    let mut w = load(path, &opts).map_err(|e| e.to_string())?;
    let r = simulate(&mut w, model, common::quiet()).map_err(|e| e.to_string())?;
    Ok(r.end_times.iter().map(|t| t.ps() / 1000).collect())
}

fn loggops(g: u64, l: u64, o: u64) -> Model<'static> {
    Model::LogGops(LogGops::from_units(TimeUnit::Ns, l, o, g, 6, 0, 65535))
}

#[test]
fn an_empty_message_credit_below_zero_that_nothing_waits_for_is_loggopsims_answer() {
    // g = 0 < G = 6: the empty message's NIC time is 0 - 6 ns, below zero at time 0 on
    // both sides, as in LogGOPSim, but nothing uses either NIC again. Rank 0: o = 1500.
    // Rank 1: arrives at o + L = 4000, takes o - G = 1494 (the credit): 5494.
    let p = write("credit.txt", "0 send 1 0 0\n1 recv 0 0 0\n");
    assert_eq!(run(&p, &loggops(0, 2500, 1500)), Ok(vec![1500, 5494]));
}

#[test]
fn waiting_for_a_time_credited_below_zero_is_an_error_not_a_wrapped_answer() {
    // o = L = 0: rank 0 takes the empty message in at 0 for o - G = -6 ns, and its
    // reduction's compute (1e6 flops) must wait for that CPU: LogGOPSim would run it at
    // a wrapped time and end at 1 ms - 6 ns.
    let p = write("wrapped.txt", "0 reduce 0 1e6 0\n1 reduce 0 1e6 0\n");
    let e = run(&p, &loggops(1000, 0, 0)).unwrap_err();
    assert!(e.contains("below zero"), "{e}");
}

#[test]
fn a_malformed_line_past_a_deadlock_is_reported_as_the_error() {
    // Both ranks receive first: a deadlock at line 1 and 3. The trace is read as ranks
    // reach their lines, yet the bad line 2 is what is reported, as when it was read
    // whole before running.
    let p = write("bad.txt", "0 recv 1 0 10\n0 jump\n1 recv 0 0 10\n");
    let e = run(&p, &loggops(1000, 2500, 1500)).unwrap_err();
    assert!(e.contains("bad.txt:2") && e.contains("unknown action 'jump'"), "{e}");
}

#[test]
fn tests_of_requests_of_one_operation_share_what_they_found() {
    // Two non-blocking barriers on MPI_COMM_SELF do nothing: both requests are the
    // compute before them. The first test costs SimGrid's 100 us and finds it complete,
    // a null request for both: the second costs nothing. 1 us + 100 us (rank 1: 1 flop, 1 ns).
    let p = write(
        "self.txt",
        "0 compute 1000\n0 @self ibarrier\n0 @self ibarrier\n0 test -3 0 0\n0 test -3 0 1\n1 compute 1\n",
    );
    let plat =
        platform::load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/smpi/platforms/flat.xml")).unwrap();
    let model = Model::Flow {
        platform: &plat,
        hosts: vec![simpi::platform::HostId(0), simpi::platform::HostId(1)],
        preset: Preset::smpi(),
    };
    assert_eq!(run(&p, &model), Ok(vec![101_000, 1]));
}

#[test]
fn a_stall_report_names_the_lines_of_the_stuck_calls() {
    // Rank 0 waits at line 6, rank 1 at line 7: each receives from the other first.
    let p = write(
        "stuck.txt",
        "0 init\n1 init\n0 compute 5\n1 compute 5\n0 compute 5\n0 recv 1 0 10\n1 recv 0 0 10\n",
    );
    let e = run(&p, &loggops(1000, 2500, 1500)).unwrap_err();
    assert!(
        e.contains("recv 10b from 1 tag 0 (") && e.contains("stuck.txt:6)"),
        "{e}"
    );
    assert!(
        e.contains("recv 10b from 0 tag 0 (") && e.contains("stuck.txt:7)"),
        "{e}"
    );
    assert!(e.contains("blocked in the call at"), "{e}");
}
