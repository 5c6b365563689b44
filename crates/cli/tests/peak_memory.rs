//! The peak memory a replay reports is its own, not that of the process that started it
//! (`getrusage`'s `ru_maxrss` carries the parent's peak across fork and exec).

use std::path::Path;
use std::process::Command;

#[test]
fn a_replay_started_by_a_large_process_reports_its_own_peak_memory() {
    // 256 MiB touched here, in the parent; the bundled example needs a few MiB.
    let big = vec![1u8; 256 << 20];
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/thesis.goal");
    let out = Command::new(env!("CARGO_BIN_EXE_simpi"))
        .arg("replay")
        .arg(&example)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("peak memory"))
        .unwrap_or_else(|| panic!("no peak memory line in:\n{text}"));
    let mib: f64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(
        mib > 0.0 && mib < 128.0,
        "{line} (the parent holds {} MiB)",
        big.len() >> 20
    );
    std::hint::black_box(&big);
}
