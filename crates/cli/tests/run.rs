//! `simpi run` as a user types it: mpiexec's `-np`, the default machine, JSON output,
//! and the documented exit codes when a rank fails or the program deadlocks. The
//! programs are those of `crates/cmpi/tests/programs`, built with the workspace's
//! simpicc (beside the simpi binary).

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

fn target_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_simpi"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The test programs these tests run, compiled once into a private directory.
fn built() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("simpi-run-cli-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cmpi/tests/programs");
        for name in [
            "failures",
            "pingpong",
            "collectives",
            "persist",
            "icoll",
            "comms",
            "anysource",
            "rma",
            "ssend",
            "datatypes",
        ] {
            let ok = Command::new(target_dir().join("simpicc"))
                .arg("-o")
                .arg(dir.join(name))
                .arg(src.join(format!("{name}.c")))
                .status()
                .expect("simpicc runs (cargo test --workspace builds it)")
                .success();
            assert!(ok, "simpicc failed on {name}.c");
        }
        dir
    })
}

fn simpi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpi")).args(args).output().unwrap()
}

fn program(name: &str) -> String {
    built().join(name).display().to_string()
}

#[test]
fn mpiexec_style_np_runs_the_program_on_the_default_cluster_and_writes_json() {
    let json = std::env::temp_dir().join(format!("simpi-run-{}.json", std::process::id()));
    let pp = program("pingpong");
    let out = simpi(&[
        "run",
        "-np",
        "2",
        "--compute",
        "none",
        "--json",
        json.to_str().unwrap(),
        &pp,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("simpi run: 2 ranks, simulated time"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    assert_eq!(v["ranks"], 2);
    // Ten rounds of two messages each way over the default cluster take time.
    assert!(v["makespan_s"].as_f64().unwrap() > 0.0);
    let ends = v["end_times_s"].as_array().unwrap();
    assert_eq!(ends.len(), 2);
    // The same run again gives the same simulated times (compute not simulated).
    let again = simpi(&["run", "-n", "2", "--compute", "none", &pp]);
    assert!(String::from_utf8_lossy(&again.stderr)
        .contains(&format!("simulated time {:.9} s", v["makespan_s"].as_f64().unwrap())));
}

#[test]
fn a_program_s_own_np_argument_is_left_to_it() {
    // `-np` after the program is the program's: failures.c ignores it, and exits 2 if
    // it were rewritten to `--np`.
    let out = simpi(&["run", "-np", "2", "--compute", "none", &program("failures"), "-np"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// True once process `pid` is gone (or a zombie nobody reaped yet).
fn ended(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the command name in parentheses.
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

#[test]
fn ranks_end_when_simpi_run_is_killed() {
    // Rank 0 sleeps outside MPI, rank 1 waits in MPI_Recv; neither would ever end by
    // itself. Once simpi run dies, the kernel must end both (they do not poll).
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_simpi"))
        .args(["run", "-np", "2", "--compute", "none", &program("failures"), "orphan"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let pids: Vec<i32> = (0..2)
        .map(|_| {
            let line = lines.next().unwrap().unwrap();
            line.strip_prefix("pid ").unwrap().parse().unwrap()
        })
        .collect();
    assert!(pids.iter().all(|&p| !ended(p)), "the ranks run before the kill");
    child.kill().unwrap();
    child.wait().unwrap();
    let start = std::time::Instant::now();
    while !pids.iter().all(|&p| ended(p)) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "ranks {pids:?} still run 20 s after simpi run was killed"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn failures_end_the_run_with_the_documented_exit_codes() {
    let f = program("failures");
    for (mode, code, want) in [
        (
            "crash",
            1,
            "rank 1 ended without calling MPI_Finalize (killed by signal 11)",
        ),
        ("abort", 1, "rank 1 called MPI_Abort with error code 7"),
        ("deadlock", 3, "blocked"),
    ] {
        let out = simpi(&["run", "-np", "2", "--compute", "none", &f, mode]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{mode}: {err}");
        assert!(err.contains(want), "{mode}: {err}");
    }
    let out = simpi(&["run", "-np", "0", &f]);
    assert_eq!(out.status.code(), Some(2));
    let out = simpi(&["run", "-np", "2", "--compute-scale", "-1", &f]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn compute_record_and_replay_take_a_file_and_a_replay_repeats_the_recorded_times() {
    let rec = std::env::temp_dir().join(format!("simpi-run-record-{}.txt", std::process::id()));
    let r = rec.to_str().unwrap();
    let pp = program("pingpong");
    let first = simpi(&["run", "-np", "2", "--compute", "record", r, &pp]);
    let err = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{err}");
    let time = |e: &str| {
        e.split("simulated time ")
            .nth(1)
            .map(|t| t.split(' ').next().unwrap_or("").to_string())
    };
    let recorded = time(&err).expect("a summary line");
    let again = simpi(&["run", "-np", "2", "--compute", "replay", r, &pp]);
    let err2 = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err2}");
    assert_eq!(time(&err2), Some(recorded));
    std::fs::remove_file(&rec).unwrap();
    let bad = simpi(&["run", "-np", "2", "--compute", "sometimes", &pp]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn a_timeline_shows_each_rank_s_sends_and_receives() {
    let t = std::env::temp_dir().join(format!("simpi-run-timeline-{}.json", std::process::id()));
    let out = simpi(&[
        "run",
        "-np",
        "2",
        "--compute",
        "none",
        "--timeline",
        t.to_str().unwrap(),
        &program("pingpong"),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&t).unwrap()).unwrap();
    std::fs::remove_file(&t).unwrap();
    // pingpong: ten rounds, each rank sends ten messages and receives ten.
    let events = v["traceEvents"].as_array().expect("trace events");
    for rank in 0..2 {
        for kind in ["send", "recv"] {
            let n = events
                .iter()
                .filter(|e| e["ph"] == "X" && e["name"] == kind && e["pid"] == rank)
                .count();
            assert_eq!(n, 10, "rank {rank} {kind}");
        }
    }
}

#[test]
fn a_report_splits_each_rank_s_time_and_counts_the_operations() {
    let out = simpi(&["run", "-np", "2", "--compute", "none", "--report", &program("pingpong")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("time per rank"), "{err}");
    // Ten rounds: twenty receives and twenty sends in all.
    let count = |kind: &str| {
        err.lines()
            .find(|l| l.split_whitespace().next() == Some(kind))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<u32>().ok())
    };
    assert_eq!(count("recv"), Some(20), "{err}");
    assert_eq!(count("send"), Some(20), "{err}");
}

#[test]
fn the_constant_model_takes_the_message_time_given_and_other_models_refuse_it() {
    let pp = program("pingpong");
    // Ten round trips are twenty messages one after the other; rank 0 reads the clock
    // twice (10 ns each, --wtime-cost's default) and checks it measured 200.01 us.
    let out = simpi(&[
        "run",
        "-np",
        "2",
        "--compute",
        "none",
        "--model",
        "constant",
        "--constant-time",
        "10us",
        &pp,
        "0.00020001",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("simulated time 0.000200020 s"), "{err}");
    // SimGrid's default: a second per message.
    let out = simpi(&["run", "-np", "2", "--compute", "none", "--model", "constant", &pp]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("simulated time 20.000000010 s"), "{err}");
    let out = simpi(&["run", "-np", "2", "--constant-time", "10us", &pp]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--constant-time is for --model constant"));
}

#[test]
fn the_packet_model_routes_on_line_runs_as_replay_does() {
    // Ranks 0 and 1 in groups 0 and 2 of a dragonfly of 3 groups (one host per router,
    // 1 us links): the minimal route has 5 links; a Valiant detour through group 1 has
    // more (two global links), so Valiant's ping-pong takes longer, and the same seed
    // repeats it exactly.
    let dir = std::env::temp_dir().join(format!("simpi-run-packet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let platform = dir.join("df.toml");
    std::fs::write(
        &platform,
        "[topology]\nkind = \"dragonfly\"\ndragonfly = \"3,1;1,1;3,1;1\"\n\
         link = { bandwidth = \"1GBps\", latency = \"1us\", sharing = \"split-duplex\" }\n",
    )
    .unwrap();
    let hosts = dir.join("hosts");
    std::fs::write(&hosts, "node-0\nnode-8\n").unwrap();
    let pp = program("pingpong");
    let time = |extra: &[&str]| {
        let mut args = vec!["run", "-np", "2", "--compute", "none", "--model", "packet"];
        args.extend([
            "--platform",
            platform.to_str().unwrap(),
            "--hostfile",
            hosts.to_str().unwrap(),
        ]);
        args.extend(extra);
        args.push(&pp);
        let out = simpi(&args);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{err}");
        let t = err.split("simulated time ").nth(1).unwrap().split(' ').next().unwrap();
        t.parse::<f64>().unwrap()
    };
    let minimal = time(&[]);
    let valiant = time(&["--routing", "valiant", "--seed", "3"]);
    assert!(valiant > minimal, "valiant {valiant} s, minimal {minimal} s");
    assert_eq!(time(&["--routing", "valiant", "--seed", "3"]), valiant);
    std::fs::remove_dir_all(&dir).unwrap();
    // Routing belongs to the packet model, a seed to detours.
    let out = simpi(&["run", "-np", "2", "--routing", "valiant", &pp]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--routing is for --model packet"));
    let out = simpi(&["run", "-np", "2", "--model", "packet", "--seed", "3", &pp]);
    assert_eq!(out.status.code(), Some(2));
    // The model's settings are checked as replay checks them (one check for both).
    let out = simpi(&["run", "-np", "2", "--model", "flow", "--preset", "smpi", &pp]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--preset is for --model hybrid or constant"));
}

/// The numbers of JSON array `key` in `text` (the files `--json` writes).
fn json_numbers(text: &str, key: &str) -> Vec<u64> {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {text}"))
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// Runs `name` on `np` ranks with `opts` and `--record-tit`, then replays the trace
/// with the command the run printed; gives each rank's end time in picoseconds from
/// both, and the trace's directory.
fn run_then_replay(name: &str, np: u32, opts: &[&str]) -> (Vec<u64>, Vec<u64>, PathBuf) {
    let tag = format!("{name}-{np}-{}-{}", opts.len(), std::process::id());
    let dir = std::env::temp_dir().join(format!("simpi-run-tit-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    let run_json = std::env::temp_dir().join(format!("simpi-run-tit-{tag}.json"));
    let np = np.to_string();
    let mut args = vec!["run", "-np", &np, "--json", run_json.to_str().unwrap()];
    args.extend_from_slice(opts);
    args.extend_from_slice(&["--record-tit", dir.to_str().unwrap()]);
    let prog = program(name);
    args.push(&prog);
    let out = simpi(&args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{name}: {err}");
    let ran = json_numbers(&std::fs::read_to_string(&run_json).unwrap(), "end_ps");
    std::fs::remove_file(&run_json).unwrap();
    // The command the run printed, as a user would paste it.
    let cmd = err
        .split("replay it with")
        .nth(1)
        .and_then(|rest| rest.lines().nth(1))
        .unwrap_or_else(|| panic!("no replay command in: {err}"));
    let words: Vec<&str> = cmd.split_whitespace().collect();
    assert_eq!(words[..2], ["simpi", "replay"], "{cmd}");
    let mut replay_args: Vec<&str> = words[1..].to_vec();
    replay_args.push("--json");
    let out = simpi(&replay_args);
    assert!(out.status.success(), "{cmd}: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let replayed = v["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["end_ps"].as_u64().unwrap())
        .collect();
    (ran, replayed, dir)
}

#[test]
fn a_run_recorded_as_tit_replays_to_the_same_times_on_every_rank() {
    let constant = [
        "--compute",
        "none",
        "--model",
        "constant",
        "--constant-time",
        "5us",
        "--wtime-cost",
        "0",
        "--test-cost",
        "1e-6",
    ];
    let cases: [(&str, u32, &[&str]); 9] = [
        // Collectives of every kind, on the default machine (hybrid model).
        ("collectives", 4, &["--compute", "none"]),
        ("collectives", 5, &["--compute", "none", "--model", "flow"]),
        // The v-collectives and reduce_scatter.
        ("datatypes", 3, &["--compute", "none"]),
        ("datatypes", 5, &["--compute", "none", "--model", "flow"]),
        // Non-blocking collectives in flight together on one communicator.
        ("icoll", 5, &["--compute", "none"]),
        // Waitany, waitsome, split and created communicators, MPI_COMM_SELF.
        ("comms", 4, &constant),
        // Synchronous sends, blocking and not, to a late receiver.
        ("ssend", 2, &constant),
        ("anysource", 4, &["--compute", "none"]),
        // Measured computation: the trace carries the simulated picoseconds.
        ("pingpong", 2, &["--compute", "measure"]),
    ];
    for (name, np, opts) in cases {
        let (ran, replayed, dir) = run_then_replay(name, np, opts);
        assert_eq!(ran.len(), np as usize);
        assert!(ran.iter().any(|&t| t > 0), "{name}: the run takes time");
        assert_eq!(ran, replayed, "{name} on {np} ranks with {opts:?}");
        let index = std::fs::read_to_string(dir.join("index.txt")).unwrap();
        assert_eq!(index.lines().count(), np as usize, "{name}: one file per rank");
        if opts.contains(&"measure") {
            let rank0 = std::fs::read_to_string(dir.join("rank-0.tit")).unwrap();
            assert!(rank0.contains(" sleep "), "{name}: the computation is in the trace");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn runs_without_a_tit_form_report_their_result_and_leave_no_trace() {
    // One-sided calls; persistent collectives started in different orders on different
    // ranks (the replay tells non-blocking collectives apart by their order).
    for (name, np, why) in [
        ("rma", "2", "one-sided communication"),
        ("persist", "4", "in different orders"),
    ] {
        let dir = std::env::temp_dir().join(format!("simpi-run-tit-{name}-{}", std::process::id()));
        let out = simpi(&[
            "run",
            "-np",
            np,
            "--compute",
            "none",
            "--record-tit",
            dir.to_str().unwrap(),
            &program(name),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(why) && err.contains("no trace written"), "{name}: {err}");
        // The run's own result is still reported.
        assert!(err.contains("simulated time"), "{name}: {err}");
        assert!(!dir.exists());
    }
}

/// Each rank's end time in picoseconds from `simpi run --json` of `name` on `np`
/// ranks with `opts` (the run must succeed).
fn end_ps(name: &str, np: u32, opts: &[&str]) -> Vec<u64> {
    let json = std::env::temp_dir().join(format!(
        "simpi-run-ends-{name}-{}-{}.json",
        opts.len(),
        std::process::id()
    ));
    let np = np.to_string();
    let prog = program(name);
    let mut args = vec!["run", "-np", &np, "--compute", "none", "--json", json.to_str().unwrap()];
    args.extend_from_slice(opts);
    args.push(&prog);
    let out = simpi(&args);
    assert!(
        out.status.success(),
        "{name} {opts:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ends = json_numbers(&std::fs::read_to_string(&json).unwrap(), "end_ps");
    std::fs::remove_file(&json).unwrap();
    ends
}

#[test]
fn ranks_in_simpi_s_process_give_the_times_of_ranks_in_their_own() {
    // The default machine under the hybrid model, and a SimGrid platform with a host
    // file under the flow model: every rank's end time is the same to the picosecond.
    let xml = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/smpi-replay/osu_allreduce");
    let platform = xml.join("platform.xml").display().to_string();
    let hostfile = xml.join("hostfile").display().to_string();
    let flow = ["--platform", &platform, "--hostfile", &hostfile, "--model", "flow"];
    for (name, np, opts) in [
        ("pingpong", 2, &[][..]),
        ("collectives", 5, &[][..]),
        ("datatypes", 3, &flow[..]),
        ("rma", 4, &flow[..]),
        ("icoll", 5, &[][..]),
    ] {
        let apart = end_ps(name, np, opts);
        let mut together = opts.to_vec();
        together.push("--in-process");
        assert_eq!(end_ps(name, np, &together), apart, "{name} on {np} ranks {opts:?}");
        // A rank's stack of 256 KiB holds these programs.
        together.extend(["--stack-size", "256KiB"]);
        assert_eq!(end_ps(name, np, &together), apart, "{name} with a small stack");
    }
    // Shared globals: pingpong has none that differ between ranks, collectives keeps
    // its rank in one and fails when the ranks share it.
    let pp = end_ps("pingpong", 2, &[]);
    assert_eq!(end_ps("pingpong", 2, &["--in-process", "--shared-globals"]), pp);
    let f = program("collectives");
    let out = simpi(&[
        "run",
        "-np",
        "3",
        "--compute",
        "none",
        "--in-process",
        "--shared-globals",
        &f,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_rank_in_simpi_s_process_that_fails_is_named_with_the_documented_exit_code() {
    let f = program("failures");
    for (mode, code, want) in [
        (
            "crash",
            1,
            "rank 1 ended without calling MPI_Finalize (killed by signal 11, in simpi's process",
        ),
        ("exit", 1, "rank 1 ended without calling MPI_Finalize (exit status 4)"),
        ("abort", 1, "rank 1 called MPI_Abort with error code 7"),
        ("deadlock", 3, "blocked"),
    ] {
        let out = simpi(&["run", "-np", "2", "--compute", "none", "--in-process", &f, mode]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{mode}: {err}");
        assert!(err.contains(want), "{mode}: {err}");
    }
    // Flags for ranks in simpi's process need it; a stack below 64 KiB is refused.
    for args in [
        &["--shared-globals"][..],
        &["--stack-size", "1MiB"][..],
        &["--in-process", "--stack-size", "1KiB"][..],
        &["--in-process", "--cores", "all"][..],
    ] {
        let mut all = vec!["run", "-np", "2"];
        all.extend_from_slice(args);
        all.push(&f);
        let out = simpi(&all);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A program that cannot be a library (not position-independent) is refused by name.
    let dir = std::env::temp_dir().join(format!("simpi-run-nopie-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let nopie = dir.join("nopie");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cmpi/tests/programs/pingpong.c");
    let built = Command::new(target_dir().join("simpicc"))
        .args(["-no-pie", "-fno-pic", "-o"])
        .arg(&nopie)
        .arg(&src)
        .status()
        .unwrap();
    assert!(built.success());
    let out = simpi(&["run", "-np", "2", "--in-process", nopie.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("not position-independent") && err.contains("without --in-process"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
