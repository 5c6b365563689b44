//! `simpi replay --timeline` (issue 16, item 6) end to end: a file's extension names its
//! format or is refused (exit 2), the rank and window filters, Chrome tracks that hold
//! only properly nested spans, and a timeline written in full even when standard output
//! closes early.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

/// An empty directory for one test.
fn workdir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn simpi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpi")).args(args).output().unwrap()
}

fn thesis() -> String {
    repo("examples/thesis.goal").to_str().unwrap().to_string()
}

/// The complete events of a Chrome trace: `(pid, tid, name, start ps, end ps)`.
fn slices(path: &Path) -> Vec<(u64, u64, String, u64, u64)> {
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let ps = |v: &serde_json::Value| (v.as_f64().unwrap() * 1e6).round() as u64;
    doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            let start = ps(&e["ts"]);
            (
                e["pid"].as_u64().unwrap(),
                e["tid"].as_u64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
                start,
                start + ps(&e["dur"]),
            )
        })
        .collect()
}

#[test]
fn issue16_timeline_unknown_extension_is_exit_2() {
    let dir = workdir("timeline-ext");
    let file = dir.join("x.txt");
    let out = simpi(&["replay", &thesis(), "--timeline", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("'.txt'") && err.contains(".json") && err.contains(".paje"),
        "{err}"
    );
    assert!(!file.exists(), "nothing is written");
    assert!(out.stdout.is_empty(), "refused before running");
}

#[test]
fn issue16_timeline_filter_values_are_exit_2() {
    let dir = workdir("timeline-filter-values");
    let file = dir.join("t.json");
    let file = file.to_str().unwrap();
    let t = thesis();
    for (args, needle) in [
        (vec!["--timeline", file, "--timeline-ranks", "0-x"], "'x'"),
        (vec!["--timeline", file, "--timeline-ranks", "3-1"], "backwards"),
        (
            vec!["--timeline", file, "--timeline-window", "2ms:1ms"],
            "ends before it starts",
        ),
        (vec!["--timeline", file, "--timeline-window", "100:200ns"], "unit"),
        (vec!["--timeline-ranks", "0"], "--timeline"),
        // The thesis example has ranks 0 and 1.
        (
            vec!["--timeline", file, "--timeline-ranks", "0,2"],
            "rank 2 does not exist",
        ),
    ] {
        let mut all = vec!["replay", t.as_str()];
        all.extend(&args);
        let out = simpi(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn issue16_chrome_tracks_properly_nested() {
    // The reproduction of the issue: 80 spans, 15 improperly nested on one track each.
    let dir = workdir("timeline-nested");
    let goal = dir.join("random.goal");
    let out = simpi(&[
        "schedgen",
        "random",
        "--ranks",
        "8",
        "--cpus",
        "2",
        "--nics",
        "2",
        "-o",
        goal.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json = dir.join("x.json");
    let out = simpi(&["replay", goal.to_str().unwrap(), "--timeline", json.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = slices(&json);
    // 32 messages (4 per rank), each a send and a receive, and 16 computations.
    assert_eq!(s.len(), 80);
    let mut lanes_used = std::collections::BTreeSet::new();
    for (i, a) in s.iter().enumerate() {
        lanes_used.insert((a.0, a.1));
        for b in &s[i + 1..] {
            if (a.0, a.1) != (b.0, b.1) {
                continue;
            }
            let disjoint = a.4 <= b.3 || b.4 <= a.3;
            let nested = (a.3 <= b.3 && b.4 <= a.4) || (b.3 <= a.3 && a.4 <= b.4);
            assert!(disjoint || nested, "{a:?} and {b:?} overlap on one track");
        }
    }
    assert!(
        lanes_used.len() > 8,
        "overlapping spans need more than one lane per rank"
    );
}

#[test]
fn issue16_timeline_filters_cut_the_file() {
    let dir = workdir("timeline-filters");
    let json = dir.join("t.json");
    let out = simpi(&[
        "replay",
        &thesis(),
        "--timeline",
        json.to_str().unwrap(),
        "--timeline-ranks",
        "1",
        "--timeline-window",
        "2us:",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Rank 1 after 2 us: its receive (0..5654 ns) alone; compute and send end by 1600 ns.
    assert_eq!(slices(&json), [(1, 0, "recv".to_string(), 0, 5_654_000)]);
    let paje = dir.join("t.paje");
    let out = simpi(&[
        "replay",
        &thesis(),
        "--timeline",
        paje.to_str().unwrap(),
        "--timeline-ranks",
        "0",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&paje).unwrap();
    assert!(text.contains("C_0_1 CT_Lane C_0 \"rank 0 lane 1\""), "{text}");
    assert!(!text.contains("C_1"), "{text}");
}

#[test]
fn issue16_broken_pipe_is_quiet_and_keeps_the_timeline() {
    // `simpi replay ... --timeline t.json | head -c 8`, with 20,000 lines (about 400 KB,
    // more than a pipe holds) on standard output.
    let dir = workdir("timeline-pipe");
    let json = dir.join("t.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_simpi"))
        .args([
            "replay",
            "--pattern",
            "binomial-bcast",
            "--ranks",
            "20000",
            "--format",
            "loggopsim",
        ])
        .args(["--timeline", json.to_str().unwrap(), "--timeline-ranks", "0-1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 8];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(&first, b"Host 0: ");
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.code().is_none() || out.status.success(), "{:?}", out.status);
    // The timeline was written before the output: complete, with rank 0's sends.
    let s = slices(&json);
    assert!(s.iter().any(|x| x.0 == 0 && x.2 == "send"), "{s:?}");
    assert!(s.iter().all(|x| x.0 <= 1));
}

#[test]
fn issue16_chrome_flow_arrows_and_message_args_from_a_run() {
    // The thesis example: each rank sends 10 bytes (tag 0) to the other, so there are
    // two arrows, each from a send on one rank to the receive on the other.
    let dir = workdir("timeline-arrows");
    let out = dir.join("t.json");
    let run = simpi(&["replay", &thesis(), "--timeline", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let events = doc["traceEvents"].as_array().unwrap();
    for e in events.iter().filter(|e| e["ph"] == "X" && e["name"] != "compute") {
        let pid = e["pid"].as_u64().unwrap();
        assert_eq!(e["args"]["bytes"], 10, "{e}");
        assert_eq!(e["args"]["peer"], 1 - pid, "{e}");
        assert_eq!(e["args"]["tag"], 0, "{e}");
    }
    let ends = |ph: &str| -> Vec<(u64, u64, u64)> {
        let mut v: Vec<_> = events
            .iter()
            .filter(|e| e["ph"] == ph)
            .map(|e| {
                (
                    e["id"].as_u64().unwrap(),
                    e["pid"].as_u64().unwrap(),
                    e["tid"].as_u64().unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (starts, finishes) = (ends("s"), ends("f"));
    assert_eq!(starts.len(), 2);
    assert_eq!(finishes.len(), 2);
    // Each arrow starts at a send (lane of the send slice) and ends on the other rank's
    // receive lane.
    let lane_of = |pid: u64, name: &str| {
        slices(&out)
            .into_iter()
            .find(|s| s.0 == pid && s.2 == name)
            .map(|s| s.1)
            .unwrap()
    };
    for ((id_s, pid_s, tid_s), (id_f, pid_f, tid_f)) in starts.into_iter().zip(finishes) {
        assert_eq!(id_s, id_f);
        assert_eq!(pid_f, 1 - pid_s);
        assert_eq!(tid_s, lane_of(pid_s, "send"));
        assert_eq!(tid_f, lane_of(pid_f, "recv"));
    }
}
