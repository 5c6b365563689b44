//! Helpers of the tests that run real MPI programs.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `simpi` binary, with one tracer build shared by the tests of this target
/// directory, and Open MPI allowed to run as root.
pub fn simpi() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_simpi"));
    c.env(
        "SIMPI_CACHE_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("simpi-cache"),
    );
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    c
}

/// An empty directory for one test.
pub fn workdir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Fails the test with what to install if `tool` is missing.
pub fn require(tool: &str) {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "{tool} is not installed: run scripts/test (it installs Open MPI and ltrace) or apt-get install openmpi-bin libopenmpi-dev ltrace"
    );
}

/// Compiles the C MPI program `src` with mpicc into `exe`.
pub fn compile(src: &Path, exe: &Path) {
    let out = Command::new("mpicc")
        .arg("-O1")
        .arg("-o")
        .arg(exe)
        .arg(src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mpicc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
