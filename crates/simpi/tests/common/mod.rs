//! Shared helpers of the facade's tests.

use simpi::{CollChoice, LoadOptions, SimOptions, TimeUnit};
use std::path::{Path, PathBuf};

/// The case directories (those holding an `expected.txt`) of `tests/golden/<set>`, sorted.
#[allow(dead_code)]
pub fn cases(set: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden")
        .join(set);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.txt").exists())
        .collect();
    v.sort();
    v
}

/// Simulation options of the reference tests: no progress, no recording.
pub fn quiet() -> SimOptions<'static> {
    SimOptions {
        progress: None,
        max_blocked_ranks: 8,
        record: false,
    }
}

/// Load options of the tests: detected format, GOAL times in ns, `speed` and `coll`,
/// MPI_Test costing `test_cost` seconds, no call records; `whole` converts a trace to a
/// schedule before running it.
#[allow(dead_code)]
pub fn load_options<'a>(
    speed: &'a (dyn Fn(u32) -> f64 + Sync),
    coll: &'a CollChoice,
    test_cost: f64,
    whole: bool,
) -> LoadOptions<'a> {
    LoadOptions {
        format: None,
        unit: TimeUnit::Ns,
        speed,
        collectives: coll,
        test_cost,
        calls: false,
        whole,
    }
}

/// `goal` written to a file of its own: tests run as threads of one process, so two
/// must never share a path.
#[allow(dead_code)]
pub fn goal_file(goal: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("simpi-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{k}.goal"));
    std::fs::write(&path, goal).unwrap();
    path
}

/// The GOAL schedule of a `b`-byte token passed around `n` ranks `laps` times: each
/// rank sends once it has received, rank 0 first sends and then receives (as the
/// calibration program's token does).
#[allow(dead_code)]
pub fn token_goal(n: u32, laps: u32, b: u64) -> String {
    let mut g = format!("num_ranks {n}\n");
    for r in 0..n {
        g += &format!("rank {r} {{\n");
        for k in 0..laps {
            g += &format!(
                "s{k}: send {b}b to {} tag 0\nr{k}: recv {b}b from {} tag 0\n",
                (r + 1) % n,
                (r + n - 1) % n
            );
            let (first, then) = if r == 0 { ("s", "r") } else { ("r", "s") };
            g += &format!("{then}{k} requires {first}{k}\n");
            if k > 0 {
                g += &format!("{first}{k} requires {then}{}\n", k - 1);
            }
        }
        g += "}\n";
    }
    g
}
