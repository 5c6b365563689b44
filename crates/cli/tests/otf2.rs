//! OTF2 on the command line: `simpi trace --otf2` writes one real MPI run both as a TIT
//! trace and as an OTF2 archive, and the two replay within 1 % of each other (under
//! LogGOPS and the hybrid model on a platform); the archive is detected by its header or
//! named with `--input otf2`, and converts to a GOAL schedule that replays as it does
//! (within 1 %: its synchronous sends become standard ones);
//! a broken archive exits with code 1 and names its file.
//!
//! Needs an MPI with mpicc and mpirun, and the OTF2 library (`scripts/setup`).

mod common;

use common::{compile, require, simpi, workdir};
use std::path::Path;

fn makespan(args: &[&dyn AsRef<std::ffi::OsStr>]) -> u64 {
    let out = simpi()
        .arg("replay")
        .args(args.iter().map(|a| a.as_ref()))
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "replay failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rep: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    rep["makespan_ps"].as_u64().unwrap()
}

#[test]
fn a_run_traced_as_tit_and_otf2_replays_the_same_from_both() {
    for t in ["mpicc", "mpirun", "otf2-config"] {
        require(t);
    }
    let dir = workdir("otf2-every");
    let exe = dir.join("app");
    compile(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mpi/every_call.c"),
        &exe,
    );
    let trace = dir.join("trace");
    let out = simpi()
        .args(["trace", "--otf2", "-o"])
        .arg(&trace)
        .args(["--", "mpirun", "--oversubscribe", "-np", "4"])
        .arg(&exe)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "simpi trace --otf2 failed: {stderr}");
    let (tit, otf2) = (trace.join("index.txt"), trace.join("traces.otf2"));
    assert!(otf2.is_file() && trace.join("traces.def").is_file());
    let platform =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/smpi-replay/osu_allreduce/platform.xml");
    for model in [vec![], vec!["--platform".as_ref(), platform.as_os_str()]] {
        let with = |input: &Path| {
            let mut a: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&input];
            for m in &model {
                a.push(m);
            }
            makespan(&a)
        };
        let (a, b) = (with(&tit) as f64, with(&otf2) as f64);
        assert!(
            (a - b).abs() <= 0.01 * a,
            "{model:?}: the TIT trace replays in {a} ps, the OTF2 trace in {b} ps"
        );
    }
    // Named rather than detected: the same run.
    assert_eq!(makespan(&[&otf2]), makespan(&[&otf2, &"--input", &"otf2"]));
    // Converted to GOAL, it replays as it does live but for its synchronous sends,
    // which a GOAL schedule has no mode for: the two ranks' MPI_Ssend and the four
    // MPI_Issend of every_call.c become standard sends, and the conversion says so.
    let goal = dir.join("every.goal");
    let out = simpi()
        .arg("convert")
        .arg(&otf2)
        .args(["--to", "goal", "-o"])
        .arg(&goal)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("6 synchronous send(s)"), "{err}");
    let (g, live) = (makespan(&[&goal]) as f64, makespan(&[&otf2]) as f64);
    assert!((g - live).abs() <= 0.01 * live, "GOAL {g} ps, live {live} ps");
}

#[test]
fn a_broken_archive_exits_1_and_names_its_file() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/otf2/handwritten");
    let dir = workdir("otf2-broken");
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    for f in [
        "traces.otf2",
        "traces.def",
        "traces/0.def",
        "traces/0.evt",
        "traces/1.def",
        "traces/2.def",
        "traces/2.evt",
    ] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    // Rank 1's events are cut short.
    let evt = std::fs::read(src.join("traces/1.evt")).unwrap();
    std::fs::write(dir.join("traces/1.evt"), &evt[..evt.len() / 2]).unwrap();
    let out = simpi().arg("replay").arg(dir.join("traces.otf2")).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("traces/1.evt"), "{stderr}");
}
