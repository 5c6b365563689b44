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
