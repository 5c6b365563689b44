//! `simpi bench` (issue 19, MPIBench's measurement) with the machine's Open MPI: the
//! distributions file it writes holds every timed message, reads back as the stochastic
//! model's input, and shows what physics says (a 1 MiB message takes longer than an
//! 8-byte one). Needs mpicc and mpirun, as the tracer's tests do.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// simpi with `args`; Open MPI's mpirun is allowed to run as root (CI containers).
fn simpi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpi"))
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .unwrap()
}

fn workdir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn require(tool: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(found, "{tool} is not installed: run scripts/setup");
}

/// The median of one size's samples (seconds), from the `--samples` file.
fn median(samples: &str, bytes: u64) -> f64 {
    let mut t: Vec<f64> = samples
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].parse::<u64>().unwrap() == bytes).then(|| w[2].parse().unwrap())
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// Runs `simpi bench` with `args` on `ranks` ranks of the machine's Open MPI, in a
/// directory of its own (`name`); gives the distributions file written and the samples.
fn measure(name: &str, ranks: &str, args: &[&str]) -> (PathBuf, String) {
    require("mpicc");
    require("mpirun");
    let dir = workdir(name);
    let (dist, raw) = (dir.join("d.dist"), dir.join("samples.txt"));
    let mut all = vec![
        "bench",
        "-o",
        dist.to_str().unwrap(),
        "--samples",
        raw.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    all.extend(["--", "mpirun", "--oversubscribe", "-np", ranks]);
    let out = simpi(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let samples = std::fs::read_to_string(&raw).unwrap();
    (dist, samples)
}

#[test]
fn a_measurement_becomes_a_distributions_file() {
    let (dist, samples) = measure(
        "two",
        "2",
        &["--sizes", "8,1048576", "--repeats", "30", "--warmup", "3"],
    );
    // 30 timed messages of each size, one pair, level 1; none negative or absurd.
    assert_eq!(samples.lines().count(), 60);
    for l in samples.lines() {
        let s: f64 = l.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(s > -1e-6 && s < 1.0, "{l}");
    }
    assert!(
        median(&samples, 1 << 20) > median(&samples, 8),
        "1 MiB is not slower than 8 B"
    );
    // The file: a histogram per size whose counts add up to the timed messages.
    let text = std::fs::read_to_string(&dist).unwrap();
    assert!(
        text.starts_with("# One-way message times measured by simpi bench"),
        "{text}"
    );
    for size in ["8", "1048576"] {
        let head = format!("dist {size} 1\n");
        let at = text.find(&head).unwrap_or_else(|| panic!("no {head}in {text}"));
        let counts: u64 = text[at + head.len()..]
            .lines()
            .take_while(|l| l.starts_with("bucket "))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(counts, 30, "{size}");
    }
    // ...and the stochastic model reads it.
    let thesis = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/thesis.goal");
    let r = simpi(&[
        "replay",
        thesis.to_str().unwrap(),
        "--model",
        "stochastic",
        "--distributions",
        dist.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
}

#[test]
fn fan_in_levels_put_that_many_messages_into_one_rank() {
    // Three ranks: levels 1 and 2 send from ranks 1..k to rank 0 at once; each level
    // gives k samples per repeat.
    let (dist, samples) = measure(
        "fan-in",
        "3",
        &[
            "--sizes",
            "65536",
            "--levels",
            "1,2",
            "--pattern",
            "fan-in",
            "--repeats",
            "20",
        ],
    );
    let level = |k: &str| {
        samples
            .lines()
            .filter(|l| l.split_whitespace().nth(1) == Some(k))
            .count()
    };
    assert_eq!((level("1"), level("2")), (20, 40));
    let text = std::fs::read_to_string(&dist).unwrap();
    assert!(
        text.contains("ranks 1..k -> rank 0") && text.contains("dist 65536 2\n"),
        "{text}"
    );
    // A level beyond the senders there are is refused by the program.
    let out = simpi(&[
        "bench",
        "--sizes",
        "8",
        "--levels",
        "3",
        "--pattern",
        "fan-in",
        "--repeats",
        "2",
        "-o",
        dist.to_str().unwrap(),
        "--",
        "mpirun",
        "--oversubscribe",
        "-np",
        "3",
    ]);
    assert!(!out.status.success());
}

#[test]
fn bad_requests_are_refused() {
    let many: String = (0..300).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let many_levels: String = (1..=257).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    for (args, code, want) in [
        (
            vec!["bench", "--levels", "0", "--", "mpirun"],
            2,
            "--levels count senders",
        ),
        (vec!["bench"], 2, "give the launcher after --"),
        (
            vec!["bench", "--buckets-per-decade", "0", "--", "mpirun"],
            2,
            "at least 1",
        ),
        // The measurement program holds 256 sizes and levels: more were cut short.
        (
            vec!["bench", "--sizes", &many, "--", "mpirun"],
            2,
            "--sizes: 300 sizes, at most 256",
        ),
        (
            vec!["bench", "--levels", &many_levels, "--", "mpirun"],
            2,
            "--levels: 257 levels, at most 256",
        ),
    ] {
        let out = simpi(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
