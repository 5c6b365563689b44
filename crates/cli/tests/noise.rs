//! `simpi replay --noise`: the flags' refusals, a faulty trace named by file and line,
//! and replications whose output does not depend on the number of threads.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

fn simpi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpi")).args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn assert_exit(out: &Output, code: i32, needle: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
}

fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("simpi-cli-noise-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A detour of 2.5 us every 50 us for 10 ms. Written once: the tests run as threads of
/// one process, and a second write would truncate the file under a replay reading it.
fn trace() -> String {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let p = scratch().join("noise.txt");
        let t: String = (0..=200).map(|i| format!("{}\t2500\n", i * 50_000)).collect();
        std::fs::write(&p, t).unwrap();
        p.display().to_string()
    })
    .clone()
}

fn goal() -> String {
    repo("tests/golden/loggopsim/rd-allreduce-33-8/schedule.goal")
        .display()
        .to_string()
}

#[test]
fn noise_flags_without_their_context_are_refused() {
    let (g, n) = (goal(), trace());
    assert_exit(
        &simpi(&["replay", &g, "--seed", "3"]),
        2,
        "--seed draws the noise's offsets",
    );
    assert_exit(&simpi(&["replay", &g, "--noise-cosched"]), 2, "give --noise too");
    assert_exit(&simpi(&["replay", &g, "--replications", "4"]), 2, "--replications");
    assert_exit(
        &simpi(&["replay", &g, "--noise", &n, "--model", "constant"]),
        2,
        "--model constant does not use it (use --model loggops)",
    );
    assert_exit(
        &simpi(&["replay", &g, "--noise", &n, "--replications", "4", "--report"]),
        2,
        "--report describes one run",
    );
    assert_exit(
        &simpi(&["replay", &g, "--noise", &n, "--replications", "0"]),
        2,
        "--replications",
    );
    // A billion replications' results would not fit: refused before any runs.
    assert_exit(
        &simpi(&["replay", &g, "--noise", &n, "--replications", "1000000000"]),
        2,
        "--replications 1000000000: at most 1048576 replications",
    );
}

#[test]
fn a_faulty_trace_is_named_with_its_line() {
    let bad = scratch().join("bad.txt");
    std::fs::write(&bad, "0 10\n100 -5\n").unwrap();
    let out = simpi(&["replay", &goal(), "--noise", &bad.display().to_string()]);
    assert_exit(
        &out,
        1,
        &format!("{}:2: duration '-5': a time cannot be negative", bad.display()),
    );
    // A period under one time unit: offsets are whole units, so all would be 0.
    let short = scratch().join("short.txt");
    std::fs::write(&short, "0 0.1\n0.5 0.1\n").unwrap();
    let s = short.display().to_string();
    let out = simpi(&[
        "replay",
        &goal(),
        "--time-unit",
        "ms",
        "--noise",
        &s,
        "--replications",
        "3",
    ]);
    assert_exit(
        &out,
        1,
        &format!("{s}:2: the period (this last start) is under one time unit (ms)"),
    );
    let ok = scratch().join("ok.txt");
    std::fs::write(&ok, "0 100\n500 100\n").unwrap();
    let fine = simpi(&[
        "replay",
        &goal(),
        "--time-unit",
        "us",
        "--noise",
        &ok.display().to_string(),
    ]);
    assert_eq!(fine.status.code(), Some(0), "{}", String::from_utf8_lossy(&fine.stderr));
}

#[test]
fn replications_print_the_same_statistics_on_any_number_of_threads() {
    let (g, n) = (goal(), trace());
    let json = |jobs: &str| {
        let out = simpi(&[
            "replay",
            &g,
            "--noise",
            &n,
            "--seed",
            "9",
            "--replications",
            "12",
            "--jobs",
            jobs,
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let s = text(&out.stdout);
        // Everything but the wall-clock time.
        s[..s.find("\"wall_seconds\"").unwrap()].to_string()
    };
    let one = json("1");
    assert!(one.starts_with("{\"replications\": 12, \"seed\": 9,"), "{one}");
    assert_eq!(json("2"), one);
    assert_eq!(json("5"), one);
    let human = simpi(&["replay", &g, "--noise", &n, "--replications", "12", "--noise-cosched"]);
    let h = text(&human.stdout);
    assert!(h.contains("replications 12  (seed 1, cosched noise offsets"), "{h}");
    assert!(h.contains("95% interval of the mean"), "{h}");
    // One replication is an ordinary run, with the ordinary report.
    let single = simpi(&["replay", &g, "--noise", &n, "--format", "loggopsim"]);
    assert_eq!(text(&single.stdout).lines().count(), 33);
}

#[test]
fn a_sweep_over_seeds_gives_each_seeds_run() {
    let (g, n) = (goal(), trace());
    let out = simpi(&["sweep", &g, "--noise", &n, "--vary", "seed=4,5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    for seed in ["4", "5"] {
        let run = simpi(&["replay", &g, "--noise", &n, "--seed", seed, "--json"]);
        let json = text(&run.stdout);
        let ps = json
            .split("\"makespan_ps\": ")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap();
        assert!(
            table
                .lines()
                .any(|l| l.contains(&format!(",{seed},")) && l.contains(&format!(",{ps},"))),
            "{table}\n{json}"
        );
    }
}
