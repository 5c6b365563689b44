//! `simpi sweep`: the table's shape and values (the thesis example under LogGOPS ends at
//! 100 + L + 2o + 9G, docs/models.md), the same bytes for any job count, exit codes, the
//! plots, and that every setting of `simpi replay` can be swept or fixed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(p)
        .display()
        .to_string()
}

fn thesis() -> String {
    repo("examples/thesis.goal")
}

fn simpi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpi")).args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn workdir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
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

fn ok(out: Output) -> String {
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    text(&out.stdout)
}

/// Thesis example: both ranks compute 100 ns, then exchange 10 bytes.
fn thesis_ns(l: u64, o: u64, big_g: u64) -> u64 {
    100 + l + 2 * o + 9 * big_g
}

fn list(v: impl Iterator<Item = u64>) -> String {
    v.map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

#[test]
fn the_csv_has_a_row_per_point_in_grid_order() {
    let t = thesis();
    let out = ok(simpi(&[
        "sweep",
        &t,
        "--vary",
        "L=1000,2000",
        "--vary",
        "G=3,6",
        "-o",
        "100",
    ]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "input,L,G,makespan,makespan_ps,events");
    assert_eq!(lines.len(), 5);
    for (line, (l, g)) in lines[1..].iter().zip([(1000, 3), (1000, 6), (2000, 3), (2000, 6)]) {
        let ps = thesis_ns(l, 100, g) * 1000;
        // Four operations and two messages a point.
        let s = ps as f64 / 1e12;
        assert_eq!(*line, format!("{t},{l},{g},{s:e},{ps},8").replace("e-6", "e-06"));
    }
}

#[test]
fn any_job_count_prints_the_same_bytes() {
    let t = thesis();
    let l = format!("L={}", list((1..=8).map(|i| i * 500)));
    let g = format!("G={}", list(1..=8));
    let one = ok(simpi(&["sweep", &t, "--vary", &l, "--vary", &g, "--jobs", "1"]));
    let two = ok(simpi(&["sweep", &t, "--vary", &l, "--vary", &g, "--jobs", "2"]));
    let many = ok(simpi(&["sweep", &t, "--vary", &l, "--vary", &g, "--jobs", "7"]));
    assert_eq!(one.lines().count(), 65);
    assert_eq!(one, two);
    assert_eq!(one, many);
    for line in one.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (l, g): (u64, u64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        assert_eq!(f[4], (thesis_ns(l, 1500, g) * 1000).to_string());
    }
}

#[test]
fn json_output_has_the_csvs_rows() {
    let t = thesis();
    let d = workdir("json");
    let file = d.join("t.json");
    let args = [
        "sweep",
        t.as_str(),
        "--vary",
        "L=1000,2000",
        "--vary",
        "time-unit=ns,ps",
    ];
    let stdout = ok(simpi(&[&args[..], &["--json"]].concat()));
    ok(simpi(&[&args[..], &["--output", file.to_str().unwrap()]].concat()));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), stdout);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    // L is a number; the time unit a string. In ps every time is 1000 times shorter.
    assert_eq!(rows[1]["L"], 1000);
    assert_eq!(rows[1]["time_unit"], "ps");
    assert_eq!(rows[1]["makespan_ps"], thesis_ns(1000, 1500, 6));
    assert_eq!(rows[2]["makespan_ps"], thesis_ns(2000, 1500, 6) * 1000);
    assert_eq!(rows[0]["input"], t.as_str());
}

#[test]
fn a_pattern_sweep_has_no_input_column() {
    // One 1000-byte message between two ranks: L + 2o + 999G = 8494 ns with o = 0,
    // 8694 ns with o = 100 (two operations and a message: three events).
    let out = ok(simpi(&[
        "sweep",
        "--pattern",
        "binomial-bcast",
        "--ranks",
        "2",
        "--bytes",
        "1000",
        "--vary",
        "o=0,100",
    ]));
    assert_eq!(
        out,
        "o,makespan,makespan_ps,events\n0,8.494e-06,8494000,3\n100,8.694e-06,8694000,3\n"
    );
}

#[test]
fn bad_command_lines_exit_2() {
    let t = thesis();
    let cases: &[(&[&str], &str)] = &[
        (&["--vary", "L=1000,x"], "point 1 (input="),
        (&["--vary", "L=1000,x"], "-L x): -L: 'x' is not a whole number"),
        (&["--vary", "latency=1"], "'latency' is not a setting of simpi replay"),
        (&["--vary", "L"], "expected KEY=V1,V2,..."),
        (&["--vary", "L=1,,2"], "an empty value"),
        (&["--vary", "L=1", "--vary", "L=2"], "-L is swept twice"),
        (&["--vary", "L=1", "-L", "2"], "-L is both swept and fixed"),
        (
            &["--vary", "model=loggops,constant", "-L", "5"],
            "--model constant): -L is a LogGOPS parameter",
        ),
        (&["--vary", "ranks=2,4"], "--ranks is a pattern parameter"),
        (
            &["--pattern", "binomial-bcast"],
            "give input files or --pattern, not both",
        ),
        (&["-o", "t.csv"], "write the table with --output FILE"),
        (&["--output", "t.txt"], ".csv, .json or .parquet"),
        (&["--plots", "p", "--breakdown-point", "1"], "the sweep has 1 points"),
        (&["--jobs", "0"], "not a whole number of at least 1"),
        (&["--jobs", "2", "--dask", "tcp://127.0.0.1:1"], "cannot be used with"),
    ];
    for (args, needle) in cases {
        let mut all = vec!["sweep", t.as_str()];
        all.extend_from_slice(args);
        assert_exit(&simpi(&all), 2, needle);
    }
    assert_exit(&simpi(&["sweep", "--vary", "L=1"]), 2, "nothing to sweep");
}

#[test]
fn python_missing_is_a_command_line_error_saying_what_to_install() {
    let t = thesis();
    for extra in [&["--dask", "tcp://127.0.0.1:1"][..], &["--output", "t.parquet"][..]] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_simpi"));
        c.args(["sweep", &t, "--vary", "L=1,2"]).args(extra);
        let out = c.env("SIMPI_PYTHON", "/nonexistent/python3").output().unwrap();
        assert_exit(&out, 2, "pip install './crates/python[");
    }
}

#[test]
fn a_failing_point_gives_its_exit_code_and_name() {
    let d = workdir("fail");
    let stuck = d.join("stuck.goal");
    std::fs::write(
        &stuck,
        "num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 0\n}\nrank 1 {\n}\n",
    )
    .unwrap();
    let (t, s) = (thesis(), stuck.display().to_string());
    let out = simpi(&["sweep", &t, &s, "--vary", "L=1,2", "--jobs", "2"]);
    assert_exit(
        &out,
        3,
        &format!("point 2 (input={s}, -L 1): the schedule cannot complete"),
    );
    assert!(out.stdout.is_empty());
    let missing = d.join("missing.goal").display().to_string();
    assert_exit(&simpi(&["sweep", &missing, "--vary", "L=1"]), 1, "missing.goal");
}

#[test]
fn plots_show_each_swept_setting_and_a_breakdown() {
    let d = workdir("plots");
    let plots = d.join("plots");
    let t = thesis();
    ok(simpi(&[
        "sweep",
        &t,
        "--vary",
        "L=1000,2000,4000",
        "--vary",
        "G=1,6",
        "--plots",
        plots.to_str().unwrap(),
        "--breakdown-point",
        "3",
    ]));
    let mut names: Vec<String> = std::fs::read_dir(&plots)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["breakdown-point-3.svg", "makespan-vs-G.svg", "makespan-vs-L.svg"]
    );
    let by_l = std::fs::read_to_string(plots.join("makespan-vs-L.svg")).unwrap();
    // A line per value of G, a dot per point.
    assert_eq!(by_l.matches("<polyline").count(), 2);
    assert_eq!(by_l.matches("<circle").count(), 6);
    assert!(by_l.contains(">G=6<"));
    // Point 3 is L=2000 G=6. Each rank computes 100 ns, sends (o = 1500 ns of its CPU,
    // communication) while its receive is posted, waits for the peer's message in
    // flight (L = 2000 ns, waiting), then takes it in (o + 9G = 1554 ns, communication):
    // compute 0.1 us, communication 3.054 us, waiting 2 us, no idle time.
    let b = std::fs::read_to_string(plots.join("breakdown-point-3.svg")).unwrap();
    assert!(b.contains("-L 2000, -G 6"), "{b}");
    for rank in 0..2 {
        assert!(b.contains(&format!("rank {rank}: compute 0.1 us")), "{b}");
        assert!(b.contains(&format!("rank {rank}: communication 3.054 us")), "{b}");
        assert!(b.contains(&format!("rank {rank}: waiting 2 us")), "{b}");
        assert!(!b.contains(&format!("rank {rank}: idle")), "{b}");
    }
}

/// The long flags in a `--help` text.
fn long_flags(help: &str) -> Vec<String> {
    let mut v: Vec<String> = help
        .split_whitespace()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches([',', '.', ')']).to_string())
        .filter(|w| w.chars().skip(2).all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn every_replay_setting_is_a_sweep_setting() {
    let replay = long_flags(&ok(simpi(&["replay", "--help"])));
    let sweep = long_flags(&ok(simpi(&["sweep", "--help"])));
    // The replay's outputs, its progress and its threads have no place in a table of
    // points; nor have replications (a point is one run: a sweep varies --seed).
    let outputs = [
        "--format",
        "--help",
        "--jobs",
        "--json",
        "--progress",
        "--replications",
        "--report",
        "--timeline",
        "--timeline-ranks",
        "--timeline-window",
    ];
    for flag in &replay {
        if !outputs.contains(&flag.as_str()) && flag.as_str() != "--html" {
            assert!(sweep.contains(flag), "simpi sweep has no {flag}");
            let key = flag.trim_start_matches('-');
            // ...and each can be swept: the value "?" is refused by the setting's own
            // parser or check (exit 2), or read as a file that is not there (exit 1).
            let vary = format!("{key}=?");
            let out = if key == "pattern" {
                simpi(&["sweep", "--vary", &vary])
            } else {
                simpi(&["sweep", &thesis(), "--vary", &vary])
            };
            let err = text(&out.stderr);
            assert!(matches!(out.status.code(), Some(1 | 2)), "{flag}: {err}");
            assert!(
                err.contains(&format!("{key} ?")) && !err.contains("is not a setting"),
                "{flag}: {err}"
            );
        }
    }
    for short in ["-L", "-o", "-g", "-G", "-O", "-S"] {
        let key = &short[1..];
        let out = simpi(&["sweep", &thesis(), "--vary", &format!("{key}=1,2")]);
        assert!(out.status.success(), "{short}: {}", text(&out.stderr));
    }
}

#[test]
fn each_point_s_warnings_are_printed_with_the_point() {
    // Rank 1 receives from ranks 0 and 2, whose sends may overlap; the distributions go
    // to one message in flight, so a point whose draws make them overlap warns, as
    // `simpi replay` of that point does.
    let d = workdir("warnings");
    let goal = d.join("three.goal");
    std::fs::write(
        &goal,
        "num_ranks 3\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\nl2: recv 8b from 2 tag 0\n}\nrank 2 {\nl1: calc 500000\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\n",
    )
    .unwrap();
    let dist = d.join("one.dist");
    std::fs::write(&dist, "unit us\ndist 8 1\nbucket 0 1000 1\n").unwrap();
    let (g, f) = (goal.display().to_string(), dist.display().to_string());
    let common = ["--model", "stochastic", "--distributions", f.as_str()];
    let mut warned = Vec::new();
    for seed in 1..=6 {
        let mut args = vec!["replay", g.as_str(), "--seed"];
        let s = seed.to_string();
        args.push(&s);
        args.extend(common);
        let out = text(&simpi(&args).stdout);
        if out.contains("met more contention than was measured") {
            warned.push(seed);
        }
    }
    assert!(!warned.is_empty() && warned.len() < 6, "seeds that warned: {warned:?}");
    let mut args = vec!["sweep", g.as_str(), "--vary", "seed=1,2,3,4,5,6"];
    args.extend(common);
    let out = simpi(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    for seed in 1..=6 {
        let line = format!(
            "point {} (input={g}, --seed {seed}): 1 message(s) met more contention",
            seed - 1
        );
        assert_eq!(err.contains(&line), warned.contains(&seed), "seed {seed}: {err}");
    }
}
