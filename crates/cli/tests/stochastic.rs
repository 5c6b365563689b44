//! `simpi replay --model stochastic` (issue 19): its settings' refusals, a faulty
//! distributions file named by file and line, a run whose time follows from the file,
//! and replications as JSON.

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

fn scratch(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("simpi-cli-stochastic-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn settings_the_model_would_ignore_are_refused() {
    let thesis = repo("examples/thesis.goal");
    let t = thesis.to_str().unwrap();
    let d = repo("examples/synthetic.dist");
    let d = d.to_str().unwrap();
    for (args, want) in [
        (vec![t, "--model", "stochastic"], "give --distributions FILE"),
        (
            vec![t, "--distributions", d],
            "--distributions is for --model stochastic",
        ),
        (
            vec![t, "--model", "stochastic", "--distributions", d, "-o", "5"],
            "-o is a LogGOPS parameter",
        ),
        (
            vec![t, "--model", "stochastic", "--distributions", d, "--os", "0:1e-6:0"],
            "--os is a setting of SMPI's protocol",
        ),
        (
            vec![t, "--model", "stochastic", "--distributions", d, "--noise-cosched"],
            "--noise-cosched places the noise",
        ),
        (
            vec![
                t,
                "--model",
                "stochastic",
                "--distributions",
                d,
                "--replications",
                "3",
                "--report",
            ],
            "--report describes one run",
        ),
    ] {
        let mut all = vec!["replay"];
        all.extend(args.iter());
        let out = simpi(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_faulty_distributions_file_is_named_with_its_line() {
    let bad = scratch("bad.dist", "unit us\ndist 8 1\nbucket 5 4 1\n");
    let thesis = repo("examples/thesis.goal");
    let out = simpi(&[
        "replay",
        thesis.to_str().unwrap(),
        "--model",
        "stochastic",
        "--distributions",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("bad.dist:3: a bucket ends after it starts"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_thesis_exchange_and_its_replications() {
    // 10-byte messages take 2 us alone and 4 us beside another (point masses): the
    // exchange after 100 ns of compute ends at 2.1 and 4.1 us, in every replication.
    let d = scratch(
        "stepped.dist",
        "unit ps\ndist 10 1\nbucket 2000000 2000000.5 1\ndist 10 2\nbucket 4000000 4000000.5 1\n",
    );
    let thesis = repo("examples/thesis.goal");
    let base = [
        "replay",
        thesis.to_str().unwrap(),
        "--model",
        "stochastic",
        "--distributions",
        d.to_str().unwrap(),
    ];
    let out = simpi(&[&base[..], &["--format", "loggopsim"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    // Which rank's message starts first is the engine's order; the two times are not.
    let mut ends: Vec<u64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    ends.sort();
    assert_eq!(ends, [2100, 4100]);
    let out = simpi(&[&base[..], &["--replications", "5", "--json"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(json.contains("\"draws\": \"message_times\""), "{json}");
    assert!(
        json.contains("\"makespans_ps\": [4100000, 4100000, 4100000, 4100000, 4100000]"),
        "{json}"
    );
}
