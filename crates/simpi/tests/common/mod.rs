//! Shared helpers of the tests against SimGrid reference cases.

use simpi::SimOptions;
use std::path::{Path, PathBuf};

/// The case directories (those holding an `expected.txt`) of `tests/golden/<set>`, sorted.
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
