//! Files for the readers that take a path: each thread writes the fuzzer's input into a
//! scratch directory of its own, whose files of the previous input are removed first, so
//! that nothing an earlier input wrote can change what a later one reads.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Every scratch directory of the process, for [`remove_all`].
static DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The line that separates the parts of an input made of several files.
pub const SEPARATOR: &[u8] = b"\n%%\n";

/// Where scratch directories go: `SIMPI_FUZZ_TMP` if set, else `/dev/shm` (memory, so
/// that writing a file per input costs little), else the system's temporary directory.
fn base() -> PathBuf {
    if let Some(d) = std::env::var_os("SIMPI_FUZZ_TMP") {
        return PathBuf::from(d);
    }
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

thread_local! {
    /// This thread's directory, made on first use.
    static DIR: RefCell<Option<PathBuf>> = const { RefCell::new(None) };
    /// The files written for the current input.
    static WRITTEN: RefCell<Vec<PathBuf>> = const { RefCell::new(Vec::new()) };
}

/// This thread's scratch directory, without the files written for the previous input
/// (removed one by one: cheaper than making the directory again at every input).
pub fn fresh_dir() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    WRITTEN.with(|w| {
        for f in w.borrow_mut().drain(..) {
            let _ = std::fs::remove_file(f);
        }
    });
    DIR.with(|d| {
        d.borrow_mut()
            .get_or_insert_with(|| {
                let n = NEXT.fetch_add(1, Ordering::Relaxed);
                let dir = base().join(format!("simpi-fuzz-{}-{n}", std::process::id()));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).expect("the scratch directory can be created");
                DIRS.lock().unwrap_or_else(|e| e.into_inner()).push(dir.clone());
                dir
            })
            .clone()
    })
}

/// Removes this thread's scratch directory (when a regression test's thread ends).
pub fn remove_dir() {
    WRITTEN.with(|w| w.borrow_mut().clear());
    if let Some(dir) = DIR.with(|d| d.borrow_mut().take()) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Removes the scratch directories of processes that are gone (a crash leaves its own:
/// libFuzzer exits without running exit hooks).
#[allow(dead_code)] // the regression test's threads remove theirs
pub fn remove_stale() {
    let Ok(entries) = std::fs::read_dir(base()) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("simpi-fuzz-")) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().filter(|p| p.parse::<u32>().is_ok()) else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Removes every scratch directory of the process (when a fuzz target exits).
#[allow(dead_code)] // the regression test removes each thread's instead
pub fn remove_all() {
    for dir in DIRS.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Writes `bytes` to `dir/name` (`name` may have one directory level, made if needed).
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent().filter(|p| !p.is_dir()) {
        std::fs::create_dir_all(parent).expect("a scratch subdirectory can be created");
    }
    std::fs::write(&path, bytes).expect("a scratch file can be written");
    WRITTEN.with(|w| w.borrow_mut().push(path.clone()));
    path
}

/// The parts of `data` between [`SEPARATOR`] lines, at most `max` (the last part keeps
/// any further separators).
pub fn parts(data: &[u8], max: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while out.len() + 1 < max {
        match memfind(rest, SEPARATOR) {
            Some(i) => {
                out.push(&rest[..i]);
                rest = &rest[i + SEPARATOR.len()..];
            }
            None => break,
        }
    }
    out.push(rest);
    out
}

fn memfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
