//! `simpi replay --report` on a TIT trace lists every MPI call of the trace (the loader
//! keeps per-call records only when a report or timeline asks for them).

use std::path::Path;
use std::process::Command;

#[test]
fn the_report_counts_every_call_of_the_trace() {
    // OSU latency on two ranks: each rank's file has 528 sends, 528 receives and 24
    // barriers (counted with `awk '{print $2}' | sort | uniq -c` on the two files).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/smpi-replay/osu_latency");
    let replay = |report: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_simpi"));
        c.current_dir(&dir)
            .args(["replay", "trace.txt", "--model", "hybrid", "--platform", "platform.xml"])
            .args(["--hostfile", "hostfile"]);
        if report {
            c.arg("--report");
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let text = replay(true);
    let count = |call: &str| -> Option<u64> {
        text.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|w| w.first() == Some(&call))
            .map(|w| w[1].parse().unwrap())
    };
    assert_eq!(count("send"), Some(2 * 528), "{text}");
    assert_eq!(count("recv"), Some(2 * 528), "{text}");
    assert_eq!(count("barrier"), Some(2 * 24), "{text}");
    assert!(!replay(false).contains("barrier"), "a call table without --report");
}
