//! `simpi calibrate` and `--preset FILE`: measurements written from closed-form times
//! are fitted back, the preset file replays a ping-pong to those times, LogGOPS from a
//! preset file gives the thesis's one-message time, faults have their exit codes, and
//! one run measures a real Open MPI.

#[allow(dead_code)]
mod common;

use common::{require, simpi, workdir};
use std::path::Path;

/// Two hosts joined by a 100 Mbit/s, 50 us link each way (a 100 us, two-link route).
const PLATFORM: &str =
    "[topology]\nkind = \"flat\"\nhosts = 2\nspeed = \"1Gf\"\nlink = { bandwidth = \"100Mbps\", latency = \"50us\" }\n";
const L: f64 = 100e-6;
const B: f64 = 12.5e6;

/// The chosen network: overheads os = 5 us + 1 ns/B and or = 3 us + 0.5 ns/B below
/// 65536 B (detached, flowing before the receive); the network's time alpha L + (s +
/// 16) / (beta B) with alpha 2, beta 0.8 below 65536 B and alpha 5, beta 0.95 above.
fn os(s: f64) -> f64 {
    5e-6 + 1e-9 * s
}
fn or(s: f64) -> f64 {
    3e-6 + 0.5e-9 * s
}
fn one_way(s: u64) -> f64 {
    let x = (s + 16) as f64;
    if s < 65536 {
        os(s as f64) + 2.0 * L + x / (0.8 * B) + or(s as f64)
    } else {
        5.0 * L + x / (0.95 * B)
    }
}

fn sizes() -> Vec<u64> {
    let mut v: Vec<u64> = (0..=84).map(|k| 2f64.powf(k as f64 / 4.0).round() as u64).collect();
    v.insert(0, 0);
    v.dedup();
    v
}

/// The measurement file the program would write on that network, three equal samples
/// per size: a late receiver waits for rendezvous sends (0.5 s here).
fn measurements() -> String {
    let mut m = String::new();
    for s in sizes() {
        for _ in 0..3 {
            m.push_str(&format!("pingpong {s} {:.12e}\n", one_way(s)));
            if s < 65536 {
                m.push_str(&format!(
                    "send {s} {:.12e}\nrecv {s} {:.12e}\n",
                    os(s as f64),
                    or(s as f64)
                ));
            } else {
                m.push_str(&format!("send {s} 0.5\nrecv {s} {:.12e}\n", one_way(s)));
            }
        }
    }
    m.push_str("gap 1 4e-6\nflops 0 2e9\nflops 0 2.2e9\ndetached 65536 0\n");
    m
}

fn fitted(d: &Path) -> std::process::Output {
    std::fs::write(d.join("p.toml"), PLATFORM).unwrap();
    std::fs::write(d.join("m.txt"), measurements()).unwrap();
    simpi()
        .current_dir(d)
        .args([
            "calibrate",
            "--from",
            "m.txt",
            "--platform",
            "p.toml",
            "-o",
            "fit.toml",
            "--plot",
            "fit.svg",
        ])
        .output()
        .unwrap()
}

/// Makespan in seconds of `simpi replay` with `args`.
/// `simpi calibrate` in `d` on the measurement `files` and `p.toml`, writing `out`.
fn calibrate_from(d: &Path, files: &[&str], out: &str) -> std::process::Output {
    let mut c = simpi();
    c.current_dir(d).arg("calibrate");
    for f in files {
        c.args(["--from", f]);
    }
    c.args(["--platform", "p.toml", "-o", out]).output().unwrap()
}

fn makespan(d: &Path, args: &[&str]) -> f64 {
    let o = simpi()
        .current_dir(d)
        .arg("replay")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let ps: f64 = out
        .split("\"makespan_ps\":")
        .nth(1)
        .and_then(|r| r.split([',', '}']).next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no makespan in {out}"));
    ps * 1e-12
}

#[test]
fn a_fit_of_closed_form_measurements_replays_their_one_way_times() {
    let d = workdir("calibrate-closed");
    let o = fitted(&d);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8(o.stdout).unwrap();
    assert!(
        report.contains("detached below 65536 bytes, flowing before the receive below 65536 bytes"),
        "{report}"
    );
    assert!(!report.contains("warning"), "{report}");
    let svg = std::fs::read_to_string(d.join("fit.svg")).unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("one-way time") && svg.contains("</svg>"),
        "{svg:.200}"
    );
    let preset = std::fs::read_to_string(d.join("fit.toml")).unwrap();
    // The host speed is the median of the two kernel rates.
    assert!(preset.contains("speed = 2.100000e9"), "{preset}");
    // A ping-pong of s bytes (GOAL, times in ns) replayed with the fitted preset takes
    // twice the chosen one-way time.
    for s in [8u64, 1000, 30000, 100000, 2000000] {
        let g = format!(
            "num_ranks 2\nrank 0 {{ l1: send {s}b to 1 tag 0\nl2: recv {s}b from 1 tag 1\nl2 requires l1 }}\n\
             rank 1 {{ l1: recv {s}b from 0 tag 0\nl2: send {s}b to 0 tag 1\nl2 requires l1 }}\n"
        );
        std::fs::write(d.join("pp.goal"), g).unwrap();
        let t = makespan(
            &d,
            &[
                "pp.goal",
                "--model",
                "hybrid",
                "--platform",
                "p.toml",
                "--preset",
                "fit.toml",
            ],
        );
        let want = 2.0 * one_way(s);
        assert!((t / want - 1.0).abs() < 1e-4, "{s} B: replayed {t}, chosen {want}");
    }
}

#[test]
fn loggops_parameters_come_from_the_preset_file_unless_given_on_the_line() {
    let d = workdir("calibrate-loggops");
    let preset =
        "[protocol]\nos = \"\"\nor = \"\"\nasync_small = 0\ndetached = 65536\nenvelope = 16\ngrow_test_costs = true\n\
                  [network]\nlat_factor = \"\"\nbw_factor = \"\"\n\
                  [loggops]\nL = 3e-6\no = 1e-6\ng = 2e-6\nG = 5e-9\nO = 0\nS = 65535\n";
    std::fs::write(d.join("l.toml"), preset).unwrap();
    std::fs::write(
        d.join("m.goal"),
        "num_ranks 2\nrank 0 { l1: send 10b to 1 tag 0 }\nrank 1 { l1: recv 10b from 0 tag 0 }\n",
    )
    .unwrap();
    // One eager message: o + L + o + (10 - 1) G = 1 + 3 + 1 + 0.045 us.
    let t = makespan(&d, &["m.goal", "--model", "loggops", "--preset", "l.toml"]);
    assert!((t - 5.045e-6).abs() < 1e-12, "{t}");
    // -L on the line (in the time unit, ns) replaces the file's L only.
    let t = makespan(
        &d,
        &["m.goal", "--model", "loggops", "--preset", "l.toml", "-L", "1000"],
    );
    assert!((t - 3.045e-6).abs() < 1e-12, "{t}");
    // Without [loggops], the loggops model has nothing to take.
    std::fs::write(d.join("n.toml"), &preset[..preset.find("[loggops]").unwrap()]).unwrap();
    let o = simpi()
        .current_dir(&d)
        .args(["replay", "m.goal", "--model", "loggops", "--preset", "n.toml"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no [loggops] section"));
}

#[test]
fn faults_have_their_exit_codes() {
    let d = workdir("calibrate-faults");
    std::fs::write(d.join("p.toml"), PLATFORM).unwrap();
    // No launcher and no measurements: a bad command line.
    let o = simpi()
        .current_dir(&d)
        .args(["calibrate", "--platform", "p.toml"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    // A largest size no MPI_Send carries: refused by its own flag's name, before the
    // default sizes up to it are listed (up to 2^64 - 1 that list never ended).
    for max in ["18446744073709551615", "2147483648"] {
        let o = simpi()
            .current_dir(&d)
            .args([
                "calibrate",
                "--platform",
                "p.toml",
                "--max-size",
                max,
                "--",
                "/bin/true",
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("--max-size: {max} bytes is more than one MPI_Send")),
            "{err}"
        );
    }
    // A size or time past what a fit can carry: bad input at its line, not a wrapped
    // bound or a clamped LogGOPS time in the preset.
    std::fs::write(
        d.join("huge.txt"),
        "pingpong 8 1e-5\npingpong 16 1e-5\npingpong 18446744073709551615 1e-3\n",
    )
    .unwrap();
    std::fs::write(d.join("long.txt"), "pingpong 8 1e-5\npingpong 16 1e10\n").unwrap();
    for (f, want) in [
        ("huge.txt", "huge.txt:3: a message size is at most 2^50 bytes"),
        ("long.txt", "long.txt:2: a measured time is at most 1e6 s"),
    ] {
        let o = simpi()
            .current_dir(&d)
            .args(["calibrate", "--from", f, "--platform", "p.toml", "-o", "x.toml"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(want), "{err}");
    }
    // A malformed measurement: bad input, named by file and line.
    std::fs::write(d.join("bad.txt"), "pingpong 8 1e-5\npingpong eight 1e-5\n").unwrap();
    let o = simpi()
        .current_dir(&d)
        .args(["calibrate", "--from", "bad.txt", "--platform", "p.toml"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bad.txt:2:"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // A second file's fault names that file and its own line.
    std::fs::write(
        d.join("good.txt"),
        "pingpong 8 1e-5\npingpong 8 1e-5\npingpong 8 1e-5\n",
    )
    .unwrap();
    let o = simpi()
        .current_dir(&d)
        .args([
            "calibrate",
            "--from",
            "good.txt",
            "--from",
            "bad.txt",
            "--platform",
            "p.toml",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.txt:2:") && !err.contains("good.txt"), "{err}");
    // A preset that is neither a name nor a file (exit 2), and a preset file with a
    // bad value (exit 1, file and line).
    let o = simpi()
        .current_dir(&d)
        .args(["replay", "x.goal", "--preset", "fast"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    std::fs::write(
        d.join("bad.toml"),
        "[protocol]\nos = \"\"\nor = \"\"\nasync_small = 0\ndetached = 1\nenvelope = 0\ngrow_test_costs = true\n[network]\nlat_factor = \"0:-2\"\nbw_factor = \"\"\n",
    )
    .unwrap();
    std::fs::write(d.join("x.goal"), "num_ranks 1\nrank 0 { l1: calc 5 }\n").unwrap();
    let o = simpi()
        .current_dir(&d)
        .args(["replay", "x.goal", "--platform", "p.toml", "--preset", "bad.toml"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.toml:9:") && err.contains("latency factor"), "{err}");
}

/// Measures the machine's Open MPI in a directory of its own (`name`): `simpi calibrate`
/// with sizes up to `max_size`, `repeats` samples, then `extra` and the 2-rank launcher;
/// gives the measurements written.
fn calibrate_real_mpi(name: &str, max_size: &str, repeats: &str, extra: &[&str]) -> (std::path::PathBuf, String) {
    require("mpicc");
    require("mpirun");
    let d = workdir(name);
    std::fs::write(d.join("p.toml"), PLATFORM).unwrap();
    let o = simpi()
        .current_dir(&d)
        .args([
            "calibrate",
            "--platform",
            "p.toml",
            "-o",
            "mine.toml",
            "--max-size",
            max_size,
        ])
        .args(["--repeats", repeats, "--measurements", "m.txt"])
        .args(extra)
        .args(["--", "mpirun", "-np", "2", "--oversubscribe"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = std::fs::read_to_string(d.join("m.txt")).unwrap();
    (d, m)
}

#[test]
fn a_real_mpi_is_measured_and_fitted() {
    let (d, m) = calibrate_real_mpi("calibrate-mpi", "256KiB", "5", &[]);
    for kind in [
        "pingpong 0 ",
        "pingpong 262144 ",
        "send 1024 ",
        "recv 1024 ",
        "gap 1 ",
        "flops 0 ",
    ] {
        assert!(m.contains(kind), "no '{kind}' sample");
    }
    // Five samples per size and kind.
    assert_eq!(m.lines().filter(|l| l.starts_with("pingpong 1024 ")).count(), 5);
    let preset = std::fs::read_to_string(d.join("mine.toml")).unwrap();
    assert!(
        preset.contains("[protocol]") && preset.contains("[loggops]"),
        "{preset}"
    );
}

#[test]
fn the_bundled_testbed_preset_reads_and_replays() {
    // examples/testbed-100Mbps.preset.toml, fitted on the testbed (docs/validation.md):
    // one 1 MB message over a 100 us, 12.5 MB/s route takes, with its rendezvous
    // segment's factors, at least the bare transfer time (80 ms) and at most twice it.
    let d = workdir("calibrate-bundled");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/testbed-100Mbps.preset.toml");
    std::fs::write(d.join("p.toml"), PLATFORM).unwrap();
    std::fs::write(
        d.join("m.goal"),
        "num_ranks 2\nrank 0 { l1: send 1000000b to 1 tag 0 }\nrank 1 { l1: recv 1000000b from 0 tag 0 }\n",
    )
    .unwrap();
    let t = makespan(
        &d,
        &["m.goal", "--platform", "p.toml", "--preset", example.to_str().unwrap()],
    );
    assert!(t > 0.08 && t < 0.16, "{t}");
}

#[test]
fn a_pair_and_a_shared_machine_measured_apart_are_fitted_together() {
    // The pair's samples in one file, eight ranks' all-to-all on two shared cores in
    // another. No spinning measured: busy_wait = 1. An all-to-all of 1 MiB blocks taking
    // 1.5 s, far beyond the network's 0.62 s, was held by the CPUs: 112 stack tasks and 8
    // spinners on 2 cores give k = 1.5 * 2 / ((2^20 + 16) * 120).
    let d = workdir("calibrate-two-files");
    std::fs::write(d.join("p.toml"), format!("shared_cores = 2\n{PLATFORM}")).unwrap();
    std::fs::write(d.join("pair.txt"), measurements()).unwrap();
    std::fs::write(
        d.join("all.txt"),
        "ranks 8 0\nalltoall 1048576 1.5\nalltoall 1048576 1.5\n",
    )
    .unwrap();
    // Fits the files given, writes `out`, gives its text.
    let fit = |files: &[&str], out: &str| {
        let o = calibrate_from(&d, files, out);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(d.join(out)).unwrap()
    };
    let preset = fit(&["pair.txt", "all.txt"], "fit.toml");
    let k: f64 = preset
        .lines()
        .find_map(|l| l.strip_prefix("stack_per_byte = "))
        .unwrap_or_else(|| panic!("{preset}"))
        .parse()
        .unwrap();
    let want = 1.5 * 2.0 / ((1048576.0 + 16.0) * 120.0);
    assert!((k / want - 1.0).abs() < 1e-9, "fitted {k}, closed form {want}");
    // The pair alone: no all-to-all, no stack work.
    let preset = fit(&["pair.txt"], "pair.toml");
    assert!(preset.contains("stack_per_byte = 0.0"), "{preset}");
}

#[test]
fn a_real_mpi_measures_the_pair_and_the_shared_machine_apart() {
    let (_, m) = calibrate_real_mpi(
        "calibrate-mpi-shared",
        "128KiB",
        "3",
        &["--shared-launcher", "mpirun -np 3 --oversubscribe"],
    );
    let count = |p: &str| m.lines().filter(|l| l.starts_with(p)).count();
    // The pair ran once; the kernel and the all-to-all under three ranks, whose count
    // the merged samples keep.
    assert_eq!(count("pingpong 1024 "), 3);
    assert_eq!((count("ranks 2 "), count("ranks 3 ")), (0, 1));
    assert_eq!(
        count("flops 0 "),
        3,
        "the kernel runs on the shared launcher's ranks only"
    );
    assert_eq!((count("alltoall 65536 "), count("alltoall 131072 ")), (3, 3));
    assert_eq!(count("spin 2 "), 3);
}

/// The GOAL schedule of 8 ranks each sending `b` bytes to the next (`all` false) or to
/// every other, all at once.
fn exchange_goal(all: bool, b: u64) -> String {
    let mut g = "num_ranks 8\n".to_string();
    for r in 0..8 {
        g += &format!("rank {r} {{\n");
        for i in 1..if all { 8 } else { 2 } {
            g += &format!(
                "s{i}: send {b}b to {} tag 0\nr{i}: recv {b}b from {} tag 0\n",
                (r + i) % 8,
                (r + 8 - i) % 8
            );
        }
        g += "}\n";
    }
    g
}

#[test]
fn rings_and_all_to_alls_on_shared_cpus_are_fitted_to_replay_their_times() {
    // Eight ranks on two shared cores: a 1 MiB ring taking 0.2 s (the network alone
    // takes 0.09 s: the CPUs held it) and a 1 MiB all-to-all taking 1.5 s (beyond what
    // the ring's CPU cost gives it: the converging ports lost). The fitted preset,
    // written and read back, must replay both patterns to their measured times, on an
    // 8-host platform of the measured route.
    let d = workdir("calibrate-rings");
    std::fs::write(d.join("p.toml"), format!("shared_cores = 2\n{PLATFORM}")).unwrap();
    std::fs::write(d.join("pair.txt"), measurements()).unwrap();
    std::fs::write(
        d.join("cpus.txt"),
        "ranks 8 0\nring 1048576 0.2\nalltoall 1048576 1.5\n",
    )
    .unwrap();
    let o = calibrate_from(&d, &["pair.txt", "cpus.txt"], "fit.toml");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let preset = std::fs::read_to_string(d.join("fit.toml")).unwrap();
    let value = |key: &str| -> f64 {
        preset
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in {preset}"))
            .parse()
            .unwrap()
    };
    assert!(
        value("stack_per_byte = ") > 0.0 && value("converging_loss = ") > 0.0,
        "{preset}"
    );
    let eight = PLATFORM.replace("hosts = 2", "hosts = 8").replace(
        "latency = \"50us\" }",
        "latency = \"50us\", sharing = \"split-duplex\" }",
    );
    std::fs::write(d.join("p8.toml"), format!("shared_cores = 2\n{eight}")).unwrap();
    for (all, want) in [(false, 0.2), (true, 1.5)] {
        let goal = format!("x{all}.goal");
        std::fs::write(d.join(&goal), exchange_goal(all, 1048576)).unwrap();
        let got = makespan(
            &d,
            &[
                &goal,
                "--model",
                "hybrid",
                "--platform",
                "p8.toml",
                "--preset",
                "fit.toml",
            ],
        );
        assert!(
            (got / want - 1.0).abs() < 1e-3,
            "all-to-all {all}: replayed {got} s, measured {want} s"
        );
    }
    // A measurement file that says 100000 ranks: refused before any simulation.
    std::fs::write(d.join("huge.txt"), "ranks 100000 0\nring 1048576 0.2\n").unwrap();
    let o = calibrate_from(&d, &["pair.txt", "huge.txt"], "huge.toml");
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("huge.txt:1: rings and all-to-alls of 100000 ranks: the fit simulates 3 to 128"),
        "{err}"
    );
}
