//! Progress on standard error (issue 20, item 5): `--progress` shows how far a replay,
//! a sweep or a set of replications has come; without it, nothing is written when
//! standard error is not a terminal (as here), so logs and pipes stay clean.

use std::path::{Path, PathBuf};
use std::process::Output;

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

fn simpi(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_simpi"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A replay long enough to reach the engine's progress callback (every 2^20 events):
/// a recursive-doubling allreduce on 65,536 ranks has 16 rounds of a send and a
/// receive per rank, over two million events.
const BIG: [&str; 7] = [
    "replay",
    "--pattern",
    "rd-allreduce",
    "--ranks",
    "65536",
    "--bytes",
    "8",
];

#[test]
fn a_replay_reports_simulated_time_share_event_rate_and_memory() {
    let mut args = BIG.to_vec();
    args.push("--progress");
    let err = stderr(&simpi(&args));
    let lines: Vec<&str> = err.lines().collect();
    assert!(!lines.is_empty(), "no progress line");
    for l in &lines {
        let (share, rest) = l
            .strip_prefix("simulated ")
            .and_then(|l| l.split_once(", "))
            .map(|(_, r)| r.split_once("% of operations, ").unwrap())
            .unwrap_or_else(|| panic!("{l}"));
        let share: f64 = share.parse().unwrap();
        assert!(share > 0.0 && share < 100.0, "{l}");
        assert!(
            rest.contains(" events (") && rest.contains("/s), ") && rest.ends_with(" MiB"),
            "{l}"
        );
    }
}

#[test]
fn without_a_terminal_a_replay_writes_no_progress() {
    let out = simpi(&BIG);
    assert_eq!(stderr(&out), "");
    assert!(String::from_utf8_lossy(&out.stdout).contains("makespan"));
}

#[test]
fn a_sweep_counts_its_points() {
    let thesis = repo("examples/thesis.goal");
    let t = thesis.to_str().unwrap();
    let err = stderr(&simpi(&["sweep", t, "--vary", "L=1,2,3,4", "-j", "1", "--progress"]));
    // The first point is always shown; later ones are drawn at most five times a second.
    let first = err.lines().next().unwrap_or_default();
    assert!(first.starts_with("1/4 points done, "), "{err}");
    for l in err.lines() {
        let done: usize = l.split('/').next().unwrap().parse().unwrap();
        assert!((1..=4).contains(&done) && l.contains(" points/s"), "{l}");
    }
    assert_eq!(stderr(&simpi(&["sweep", t, "--vary", "L=1,2,3,4"])), "");
}

#[test]
fn replications_are_counted() {
    let thesis = repo("examples/thesis.goal");
    let noise = repo("tests/golden/noise/hand-two-ranks/noise.txt");
    let mut args = vec!["replay", thesis.to_str().unwrap(), "--model", "loggops"];
    let noise_arg = noise.to_str().unwrap().to_string();
    args.extend(["--noise", &noise_arg, "--replications", "3", "--progress"]);
    let err = stderr(&simpi(&args));
    assert!(err.starts_with("1/3 replications done, "), "{err}");
}
