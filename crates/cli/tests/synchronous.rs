//! Synchronous sends in traces: `simpi replay` simulates them as synchronous (the send
//! ends once its late receive is posted and the data has crossed), `simpi convert`
//! writes them as standard sends and says how many.

use std::process::Command;

/// A TIT trace: rank 0 sends 8 bytes with `send` (blocking `Ssend`, or `ISsend` and a
/// wait); rank 1 posts the receive after sleeping 1 ms.
fn trace(send: &str) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("simpi-sync-{}-{n}.txt", std::process::id()));
    let text = format!("0 init\n0 {send}\n0 finalize\n1 init\n1 sleep 0.001\n1 recv 0 0 8\n1 finalize\n");
    std::fs::write(&path, text).unwrap();
    path
}

/// Each rank's end time (ps) of `simpi replay TRACE ARGS --json`.
fn ends(trace: &std::path::Path, args: &[&str]) -> Vec<u64> {
    let out = Command::new(env!("CARGO_BIN_EXE_simpi"))
        .arg("replay")
        .arg(trace)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["end_ps"].as_u64().unwrap())
        .collect()
}

const CONSTANT: [&str; 4] = ["--model", "constant", "--constant-time", "5us"];

#[test]
fn a_synchronous_send_to_a_late_receiver_ends_when_its_data_arrives() {
    let standard = trace("send 1 0 8");
    let blocking = trace("Ssend 1 0 8");
    let nonblocking = trace("ISsend 1 0 8\n0 waitall 1 0 1 0");
    // The receive is posted at 1 ms; the 5 us message then crosses.
    let ms = 1_000_000_000;
    for t in [&blocking, &nonblocking] {
        assert_eq!(ends(t, &CONSTANT)[0], ms + 5_000_000, "{}", t.display());
        // LogGOPS: not before the receive is posted.
        assert!(ends(t, &["--model", "loggops"])[0] >= ms, "{}", t.display());
    }
    // A standard send of 8 bytes leaves at once.
    assert_eq!(ends(&standard, &CONSTANT)[0], 0);
    assert!(ends(&standard, &["--model", "loggops"])[0] < ms);
    for t in [standard, blocking, nonblocking] {
        std::fs::remove_file(t).unwrap();
    }
}

#[test]
fn convert_writes_synchronous_sends_as_standard_ones_and_counts_them() {
    let t = trace("Ssend 1 0 8");
    let out = Command::new(env!("CARGO_BIN_EXE_simpi"))
        .args(["convert", "--to", "goal"])
        .arg(&t)
        .output()
        .unwrap();
    std::fs::remove_file(&t).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("send 8b to 1 tag 0"));
    assert!(
        err.contains("1 synchronous send(s)") && err.contains("standard sends"),
        "{err}"
    );
}
