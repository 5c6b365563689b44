//! The command line's contract (issue 16, items 1, 2, 7 and 8): a bad value or a flag
//! the run would ignore is a command-line error (exit code 2) before anything runs, a
//! faulty input is exit code 1 naming the file at fault, and output into a closed pipe
//! ends quietly.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

fn simpi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpi")).args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The OSU allreduce trace and its platform, as strings for argument lists.
fn osu() -> (String, String) {
    let d = repo("tests/golden/smpi-replay/osu_allreduce");
    (
        d.join("trace.txt").display().to_string(),
        d.join("platform.xml").display().to_string(),
    )
}

fn thesis() -> String {
    repo("examples/thesis.goal").display().to_string()
}

fn assert_exit(out: &Output, code: i32, needle: &str) {
    let err = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "stderr: {err}\nstdout: {}",
        text(&out.stdout)
    );
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
}

#[test]
fn issue16_model_parameters_out_of_their_domain_exit_2() {
    let (t, p) = osu();
    let cases: &[(&str, &str)] = &[
        ("--bw-factor=0:0", "bandwidth factor"),
        ("--bw-factor=0:-1", "bandwidth factor"),
        ("--bw-factor=0:nan", "bandwidth factor"),
        ("--bw-factor=0:inf", "bandwidth factor"),
        ("--lat-factor=0:-1", "latency factor"),
        ("--lat-factor=0:nan", "latency factor"),
        ("--lat-factor=abc", "bound:value"),
        ("--os=0:-1", "overhead"),
        ("--os=0:nan", "overhead"),
        ("--or=0:-1", "overhead"),
        ("--test-cost=-1", "--test-cost"),
        ("--test-cost=nan", "--test-cost"),
        ("--test-cost=1e10", "clock"),
        ("--weight-s=-1", "--weight-s"),
        ("--weight-s=nan", "--weight-s"),
        ("--ranks-per-host=0", "--ranks-per-host"),
    ];
    for (flag, needle) in cases {
        let out = simpi(&["replay", &t, "--platform", &p, flag]);
        assert_exit(&out, 2, needle);
    }
}

#[test]
fn issue16_flags_the_run_would_ignore_exit_2() {
    let (t, p) = osu();
    let g = thesis();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["replay", &t, "--platform", &p, "-L", "5"],
            "-L is a LogGOPS parameter",
        ),
        (vec!["replay", &g, "--lat-factor", "0:1"], "--lat-factor"),
        (
            vec!["replay", &g, "--coll", "allreduce=ring"],
            "--coll applies to TIT traces",
        ),
        (vec!["replay", &g, "--speed", "1e9"], "--speed"),
        (vec!["replay", &t, "--platform", &p, "--speed", "1e9"], "--speed"),
        (vec!["replay", &g, "--hostfile", "h"], "--hostfile"),
        (vec!["replay", &g, "--format", "loggopsim", "--report"], "--report"),
        (vec!["replay", &g, "--json", "--report"], "--report"),
        (vec!["replay", &g, "--constant-time", "1us"], "--constant-time"),
        (
            vec!["replay", &t, "--platform", &p, "--model", "flow", "--preset", "plain"],
            "--preset",
        ),
        (
            vec!["replay", &g, "--model", "constant", "--bw-factor", "0:2"],
            "--bw-factor",
        ),
        (vec!["replay", "--pattern", "rd-allreduce", "--periodic"], "--periodic"),
        (
            vec!["replay", "--pattern", "rd-allreduce", "--input", "goal"],
            "--input is the format of a file: a pattern has none",
        ),
        (vec!["replay", &g, "--platform", &p, "--model", "loggops"], "--platform"),
        (vec!["replay", &g, "--model", "flow"], "--platform"),
        (vec!["schedgen", "rd-allreduce", "--seed", "3"], "random pattern"),
        (vec!["schedgen", "random", "--periodic"], "random pattern"),
    ];
    for (args, needle) in cases {
        let out = simpi(&args);
        assert_exit(&out, 2, needle);
    }
}

#[test]
fn issue16_bad_values_exit_2() {
    let g = thesis();
    for args in [
        vec!["schedgen", "foo"],
        vec!["schedgen", "rd-allreduce", "--ranks", "0"],
        vec!["schedgen", "rd-allreduce", "--iterations", "0"],
        vec!["replay", "--pattern", "foo"],
        vec!["replay", "--pattern", "rd-allreduce", "--ranks", "0"],
        vec!["replay", &g, "--time-unit", "parsec"],
        vec!["replay", &g, "--model", "constant", "--constant-time", "-1s"],
        vec!["replay", &g, "--model", "constant", "--constant-time", "1e9s"],
    ] {
        let out = simpi(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
    }
}

#[test]
fn issue16_simgrid_algorithm_names_are_accepted() {
    // `simpi list-algorithms` prints "[SimGrid: ompi_bruck]" for barrier bruck: both
    // names select the same algorithm, so both runs end at the same time.
    let (t, p) = osu();
    let makespan = |alg: &str| {
        let out = simpi(&["replay", &t, "--platform", &p, "--coll", alg, "--json"]);
        assert!(out.status.success(), "{alg}: {}", text(&out.stderr));
        let json = text(&out.stdout);
        json[..json.find("\"wall_seconds\"").unwrap()].to_string()
    };
    assert_eq!(makespan("barrier=ompi_bruck"), makespan("barrier=bruck"));
    assert_eq!(makespan("allreduce=rab_rdb"), makespan("allreduce=rabenseifner"));
    assert_ne!(makespan("allreduce=rab_rdb"), makespan("allreduce=ring"));
}

#[test]
fn issue16_a_schedule_reads_from_standard_input() {
    let g = std::fs::read(thesis()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_simpi"))
        .args(["replay", "-", "--format", "loggopsim"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&g).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The thesis's worked example: both ranks end at 5654 ns.
    assert_eq!(text(&out.stdout), "Host 0: 5654\nHost 1: 5654\n");

    // Errors name standard input, not a temporary file.
    let mut child = Command::new(env!("CARGO_BIN_EXE_simpi"))
        .args(["replay", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"num_ranks 2\nrank 0 {\nl1: send 10b to 1 tag 0 junk\n}\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_exit(&out, 1, "<stdin>:3");
}

#[test]
fn issue16_num_ranks_out_of_range_says_so() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-num-ranks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("neg.goal");
    std::fs::write(&f, "num_ranks -1\nrank 0 {\n}\n").unwrap();
    let out = simpi(&["replay", f.to_str().unwrap()]);
    assert_exit(&out, 1, "neg.goal:1:11: expected the number of ranks, found '-1'");
}

#[test]
fn issue16_a_missing_route_blames_the_platform() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-no-route-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let platform = dir.join("two-hosts-no-route.xml");
    std::fs::write(
        &platform,
        "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n\
         <host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n</zone>\n</platform>\n",
    )
    .unwrap();
    let trace = dir.join("send.tit");
    std::fs::write(&trace, "0 init\n1 init\n0 send 1 0 100\n1 recv 0 0 100\n").unwrap();
    let out = simpi(&[
        "replay",
        trace.to_str().unwrap(),
        "--platform",
        platform.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with(&format!("simpi: {}:", platform.display())), "{err}");
}

#[test]
fn issue16_output_into_a_closed_pipe_ends_quietly() {
    // `simpi replay ... | head -c 8`: the reader goes away after 8 bytes of 360 KB.
    let mut child = Command::new(env!("CARGO_BIN_EXE_simpi"))
        .args([
            "replay",
            "--pattern",
            "rd-allreduce",
            "--ranks",
            "16384",
            "--format",
            "loggopsim",
        ])
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
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    // Killed by SIGPIPE, as `cat` is, or a clean exit: never an error code or a panic.
    assert!(out.status.code().is_none() || out.status.success(), "{:?}", out.status);
}

fn scratch(name: &str, file: &str, body: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(file);
    std::fs::write(&f, body).unwrap();
    f.display().to_string()
}

#[test]
fn issue16_times_beyond_the_clock_are_errors_not_wrapped_answers() {
    let (_, p) = osu();
    // 2^60 bytes under LogGOPS: G = 6 ns per byte makes 6.9e18 ns, far past 2^64 ps.
    let goal = |bytes: u64| {
        scratch(
            &format!("clock-goal-{bytes}"),
            "big.goal",
            &format!("num_ranks 2\nrank 0 {{\nl1: send {bytes}b to 1 tag 0\n}}\nrank 1 {{\nl1: recv {bytes}b from 0 tag 0\n}}\n"),
        )
    };
    for e in [52, 60, 63] {
        assert_exit(&simpi(&["replay", &goal(1 << e)]), 1, "clock's end");
    }
    // 2^51 bytes fit: sent eagerly (-S above it), LogGOPS gives o + (s-1)G + L + o.
    let out = simpi(&[
        "replay",
        &goal(1 << 51),
        "--format",
        "loggopsim",
        "-S",
        "4611686018427387904",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let expected = ((1u64 << 51) - 1) * 6 + 2500 + 2 * 1500;
    assert!(
        text(&out.stdout).contains(&format!("Host 1: {expected}")),
        "{}",
        text(&out.stdout)
    );
    // 1e15 bytes over 125 MB/s links take about 8e6 s: they fit in 2^64 ps (1.8e7 s);
    // thirty in a row (2.4e8 s) do not.
    let one = scratch(
        "clock-tit-1",
        "one.tit",
        "0 init\n1 init\n0 send 1 0 1e15\n1 recv 0 0 1e15\n",
    );
    let many: String = std::iter::once("0 init\n1 init\n".to_string())
        .chain((0..30).map(|_| "0 send 1 0 1e15\n1 recv 0 0 1e15\n".to_string()))
        .collect();
    let many = scratch("clock-tit-30", "thirty.tit", &many);
    // The issue's reproduction: one message of 3e15 bytes (2.4e7 s) is already too long.
    let huge = scratch(
        "clock-tit-3e15",
        "huge.tit",
        "0 init\n1 init\n0 send 1 0 3e15\n1 recv 0 0 3e15\n",
    );
    for model in ["flow", "hybrid"] {
        assert_exit(
            &simpi(&["replay", &huge, "--platform", &p, "--model", model]),
            1,
            "clock's end",
        );
        let out = simpi(&["replay", &one, "--platform", &p, "--model", model, "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_exit(
            &simpi(&["replay", &many, "--platform", &p, "--model", model]),
            1,
            "clock's end",
        );
    }
    // Ranks sharing a host's core, with send overheads past the clock's end: a task of
    // the shared CPU ended "at the end" again and again, a hang (found by cli_values).
    let both = scratch(
        "clock-shared-cpu",
        "shared.tit",
        "0 init\n1 init\n2 init\n3 init\n0 isend 1 1 100 6\n1 irecv 0 1 100 6\n\
         0 send 2 2 200000 6\n2 recv 0 2 200000 6\n0 allreduce 1000 1e3 6\n1 allreduce 1000 1e3 6\n\
         2 allreduce 1000 1e3 6\n3 allreduce 1000 1e3 6\n",
    );
    assert_exit(
        &simpi(&[
            "replay",
            &both,
            "--platform",
            &p,
            "--model",
            "hybrid",
            "--ranks-per-host",
            "2",
            "--lat-factor",
            "0:0",
            "--os",
            "0:1e110",
        ]),
        1,
        "clock's end",
    );
}

#[test]
fn schedgen_refuses_a_schedule_past_max_size_and_leaves_no_file() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-max-size-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("ring.goal");
    let path = f.to_str().unwrap();
    // A ring allreduce makes 2(N-1) steps per rank: 5000 ranks is gigabytes of GOAL.
    let out = simpi(&["schedgen", "ring-allreduce", "--ranks", "5000", "-o", path]);
    assert_exit(&out, 2, "more than the 1 GiB");
    assert!(text(&out.stderr).contains("--max-size"));
    assert!(!f.exists(), "a refused schedule left a file");
    let out = simpi(&[
        "schedgen",
        "ring-allreduce",
        "--ranks",
        "4",
        "--max-size",
        "100",
        "-o",
        path,
    ]);
    assert_exit(&out, 2, "more than the 100 bytes");
    assert!(!f.exists(), "a refused schedule left a file");
    // With room, it is written: 4 ranks, 2(4-1) sends each.
    let out = simpi(&[
        "schedgen",
        "ring-allreduce",
        "--ranks",
        "4",
        "--max-size",
        "1MiB",
        "-o",
        path,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let goal = std::fs::read_to_string(&f).unwrap();
    assert!(goal.contains("num_ranks 4"));
    assert_eq!(goal.matches(" send ").count(), 4 * 2 * 3, "{goal}");
    for bad in ["0", "1XB", "99999999999TiB", "-5", "1.5GiB"] {
        let out = simpi(&["schedgen", "ring-allreduce", &format!("--max-size={bad}")]);
        assert_exit(&out, 2, "size");
    }
}

#[test]
fn packet_model_settings_are_checked_and_its_links_reported() {
    let (t, p) = osu();
    // A buffer that cannot hold one packet, and contradicting protocol thresholds, are
    // command-line errors.
    let out = simpi(&[
        "replay",
        &t,
        "--platform",
        &p,
        "--model",
        "packet",
        "--packet-buffer",
        "100",
    ]);
    assert_exit(&out, 2, "packet buffer: 100 bytes cannot hold one 2048-byte packet");
    let out = simpi(&[
        "replay",
        &thesis(),
        "--model",
        "constant",
        "--async-small",
        "100",
        "--detached",
        "10",
    ]);
    assert_exit(&out, 2, "--async-small must not exceed --detached");
    let out = simpi(&["replay", &t, "--platform", &p, "--model", "flow", "--queues", "fifo"]);
    assert_exit(&out, 2, "--queues is for --model packet, not --model flow");
    // Detours on a platform that has none: refused with the flag and the platform's name.
    let out = simpi(&[
        "replay",
        &t,
        "--platform",
        &p,
        "--model",
        "packet",
        "--routing",
        "ugal",
        "--seed",
        "1",
    ]);
    assert_exit(&out, 2, &format!("--routing ugal: the platform {p} has no dragonfly"));
    let out = simpi(&[
        "replay",
        &t,
        "--platform",
        &p,
        "--model",
        "packet",
        "--routing",
        "adaptive",
    ]);
    assert_exit(
        &out,
        2,
        &format!("--routing adaptive: the platform {p} has no fat tree"),
    );
    // A limit without the lanes it limits, and lanes for a model without packets.
    let packet = ["replay", &t, "--platform", &p, "--model", "packet"];
    let out = simpi(&[&packet[..], &["--priority-limit", "4096"]].concat());
    assert_exit(&out, 2, "--priority-limit needs --priority-up-to");
    let out = simpi(&[
        "replay",
        &t,
        "--platform",
        &p,
        "--model",
        "flow",
        "--priority-up-to",
        "1",
    ]);
    assert_exit(&out, 2, "--priority-up-to is for --model packet, not --model flow");
    let out = simpi(&[&packet[..], &["--priority-up-to", "1", "--priority-limit", "some"]].concat());
    assert_exit(&out, 2, "--priority-limit");
    // Every message on the high lane is the one-lane network: each lane has the
    // buffers one lane has. (A bound of 0 would still put SMPI's empty messages and
    // rendezvous requests on the high lane.)
    let time = |extra: &[&str]| {
        let out = simpi(&[&packet[..], extra].concat());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout).lines().next().unwrap_or_default().to_string()
    };
    let one = time(&[]);
    assert_eq!(time(&["--priority-up-to", "1000000000"]), one);
    // The JSON report lists what each link carried, busiest first.
    let out = simpi(&["replay", &t, "--platform", &p, "--model", "packet", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = text(&out.stdout);
    let links = &json[json.find("\"links\": [{\"link\": ").expect("links in the JSON")..];
    let busy: Vec<u64> = links
        .split("\"busy_ps\": ")
        .skip(1)
        .map(|s| s[..s.find(',').unwrap()].parse().unwrap())
        .collect();
    assert!(busy.len() > 1 && busy.windows(2).all(|w| w[0] >= w[1]), "{busy:?}");
}

/// Three hosts stream 1 MiB each into host 4; at 100 us host 3 sends it 16 KiB, after
/// which host 4 tells host 5. The small message shares the link into host 4 with the
/// three streams (a quarter of it) unless it travels on the high-priority lane: there
/// it has the link (strict), two packets in three (a limit of two packets) or one in
/// two (a limit of 0). The lane's bound is an MPI message size: 16,383 bytes leaves
/// the 16,384-byte message on the low lane.
#[test]
fn the_high_priority_lane_speeds_the_small_message_by_its_share() {
    let goal = scratch(
        "priority",
        "incast.goal",
        "num_ranks 6\n\
         rank 0 {\nl1: send 1048576b to 4 tag 0\n}\n\
         rank 1 {\nl1: send 1048576b to 4 tag 0\n}\n\
         rank 2 {\nl1: send 1048576b to 4 tag 0\n}\n\
         rank 3 {\nl1: calc 100000\nl2: send 16384b to 4 tag 1\nl2 requires l1\n}\n\
         rank 4 {\nl1: recv 1048576b from 0 tag 0\nl2: recv 1048576b from 1 tag 0\n\
         l3: recv 1048576b from 2 tag 0\nl4: recv 16384b from 3 tag 1\n\
         l5: send 8b to 5 tag 2\nl5 requires l4\n}\n\
         rank 5 {\nl1: recv 8b from 4 tag 2\n}\n",
    );
    let platform = scratch(
        "priority",
        "flat.toml",
        "[topology]\nkind = \"flat\"\nhosts = 6\n\
         link = { bandwidth = \"1GBps\", latency = \"100ns\", sharing = \"split-duplex\" }\n",
    );
    let told = |extra: &[&str]| -> u64 {
        let args = [
            &["replay", &goal, "--platform", &platform, "--model", "packet", "--json"][..],
            extra,
        ]
        .concat();
        let out = simpi(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let json = text(&out.stdout);
        let ranks = &json[json.find("\"ranks\": [").expect("ranks")..];
        let last = ranks.match_indices("\"end_ps\": ").nth(5).expect("six ranks").0;
        let v = &ranks[last + 10..];
        v[..v.find(|c: char| !c.is_ascii_digit()).unwrap()].parse().unwrap()
    };
    let shared = told(&[]) - 100_000_000;
    let strict = told(&["--priority-up-to", "16384"]) - 100_000_000;
    let two = told(&["--priority-up-to", "16384", "--priority-limit", "4096"]) - 100_000_000;
    let alternate = told(&["--priority-up-to", "16384", "--priority-limit", "0"]) - 100_000_000;
    assert_eq!(told(&["--priority-up-to", "16383"]) - 100_000_000, shared);
    // 16,400 bytes with SMPI's envelope, 1 ns each on the link alone: a quarter, two
    // thirds and a half of the link, give or take the packet in flight, the latencies
    // and the hosts' overheads.
    let full = 16_400_000;
    let near = |t: u64, share: f64| {
        let want = full as f64 / share;
        assert!(
            (t as f64 - want).abs() < 0.15 * want,
            "{t} ps against {want} ps for a share of {share}"
        );
    };
    near(shared, 0.25);
    near(strict, 1.0);
    near(two, 2.0 / 3.0);
    near(alternate, 0.5);
    assert!(strict < two && two < alternate && alternate < shared);
}

/// A scratch directory of this test binary's own.
fn scratch_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("command-line-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn convert_refuses_trace_options_on_a_goal_schedule() {
    for flags in [
        vec!["--speed", "5"],
        vec!["--coll", "bcast=binomial"],
        vec!["--coll-selector", "mpich"],
        vec!["--test-cost", "1"],
        // Given on the line, even at its default value.
        vec!["--speed", "1e9"],
    ] {
        let mut args = vec!["convert", "--to", "goal"];
        let t = thesis();
        args.push(&t);
        args.extend(&flags);
        assert_exit(
            &simpi(&args),
            2,
            &format!("{} applies to traces; {t} is a GOAL schedule", flags[0]),
        );
    }
}

#[test]
fn convert_warns_when_a_world_tag_may_equal_a_sub_communicator_s() {
    // GOAL carries a communicator in the tag's high bits (c · 2^24 + tag): world tag
    // 33554437 = 2 · 2^24 + 5 is c1's tag 5 there, and the receives would swap.
    let d = scratch_dir("tags");
    let trace = d.join("t.txt");
    std::fs::write(
        &trace,
        "0 init\n1 init\n0 comm_dup world c1\n1 comm_dup world c1\n0 @c1 send 1 5 8\n0 send 1 33554437 100000\n\
         1 recv 0 33554437 100000\n1 @c1 recv 0 5 8\n",
    )
    .unwrap();
    let out = simpi(&[
        "convert",
        "--to",
        "goal",
        "-o",
        d.join("t.goal").to_str().unwrap(),
        trace.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("2 tag(s) too large to carry their communicator in GOAL"),
        "{}",
        text(&out.stderr)
    );
    // Large world tags alone stay apart: no warning.
    let world = d.join("w.txt");
    std::fs::write(&world, "0 init\n1 init\n0 send 1 33554437 8\n1 recv 0 33554437 8\n").unwrap();
    let out = simpi(&["convert", "--to", "goal", world.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("tag(s)"), "{}", text(&out.stderr));
}

#[test]
fn a_receive_of_another_size_is_reported_under_every_model() {
    let d = scratch_dir("sizes");
    let trace = d.join("t.txt");
    std::fs::write(
        &trace,
        "0 init\n1 init\n0 send 1 0 1000000\n1 recv 0 0 10\n0 finalize\n1 finalize\n",
    )
    .unwrap();
    let (_, p) = osu();
    let t = trace.display().to_string();
    for model in [
        vec!["--model", "loggops"],
        vec!["--model", "constant"],
        vec!["--model", "hybrid", "--platform", &p],
        vec!["--model", "flow", "--platform", &p],
    ] {
        let mut args = vec!["replay", t.as_str()];
        args.extend(&model);
        let out = simpi(&args);
        assert_eq!(out.status.code(), Some(0), "{model:?}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("1 receive(s) matched a message of a different size"),
            "{model:?}: {}",
            text(&out.stdout)
        );
    }
}

#[test]
fn an_overhead_past_the_clock_from_valid_factors_is_time_beyond_the_clock() {
    // 1e308 s per byte is a valid factor; for a message of any size the overhead passes
    // the clock (as +inf): the run says so instead of asserting or wrapping.
    let (t, p) = osu();
    for flag in ["--or", "--os"] {
        let out = simpi(&[
            "replay",
            &t,
            "--model",
            "hybrid",
            "--platform",
            &p,
            flag,
            "0:1.5e-6:1e308",
        ]);
        assert_exit(&out, 1, "the simulated time passes the clock's end");
    }
}
