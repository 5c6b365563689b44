//! The tracer on a real MPI run: every call of a program that uses each traced function is in
//! the trace as often as an independent counter (ltrace, which counts the program's calls
//! into MPI_* through its PLT) saw it, untraced calls are reported, and the trace replays.
//!
//! Needs an MPI with mpicc and mpirun, and ltrace (`.ci/run` and `scripts/test` install
//! Open MPI and ltrace).

mod common;

use common::{compile, require, simpi, workdir};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The test program `name` of tests/mpi, compiled into `dir`.
fn compile_test_program(name: &str, dir: &Path) -> PathBuf {
    let exe = dir.join("app");
    compile(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mpi").join(name),
        &exe,
    );
    exe
}

/// ltrace -c's table: function → calls.
fn ltrace_counts(path: &Path) -> BTreeMap<String, u64> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() == 5 && f[4].starts_with("MPI_") {
            m.insert(f[4].to_string(), f[3].parse().unwrap());
        }
    }
    assert!(!m.is_empty(), "{} holds no counts", path.display());
    m
}

fn counts(v: &serde_json::Value) -> BTreeMap<String, u64> {
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, n)| (k.clone(), n.as_u64().unwrap()))
        .collect()
}

#[test]
fn every_call_is_traced_as_often_as_an_independent_counter_saw_it() {
    for t in ["mpicc", "mpirun", "ltrace"] {
        require(t);
    }
    let dir = workdir("tracer-every");
    let exe = compile_test_program("every_call.c", &dir);
    let counter = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/tracer/ltrace-count.sh");
    let trace = dir.join("trace");
    let lt = dir.join("ltrace");
    let out = simpi()
        .arg("trace")
        .arg("-o")
        .arg(&trace)
        .arg("--")
        .args(["mpirun", "--oversubscribe", "-np", "4"])
        .arg(&counter)
        .arg(&lt)
        .arg(&exe)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "simpi trace failed: {stderr}");
    assert!(stderr.contains("4 ranks"), "{stderr}");
    // The one call the tracer does not know is reported, with its count.
    assert!(stderr.contains("MPI_Alltoallw: 4 calls on 4 rank(s)"), "{stderr}");

    let info = simpi().arg("trace-info").arg(&trace).arg("--json").output().unwrap();
    assert!(info.status.success());
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let ranks = info["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 4);
    // 73 traced functions exist; together the ranks call all of them but MPI_Init (the
    // program starts with MPI_Init_thread; some calls are made by some ranks only).
    let mut everywhere = std::collections::BTreeSet::new();
    for rank in ranks {
        everywhere.extend(counts(&rank["in_trace"]).into_keys());
    }
    assert_eq!(everywhere.len(), 72, "functions in the trace: {everywhere:?}");
    assert!(!everywhere.contains("MPI_Init"));
    for (r, rank) in ranks.iter().enumerate() {
        let independent = ltrace_counts(&lt.join(format!("ltrace.{r}")));
        let called = counts(&rank["called"]);
        let in_trace = counts(&rank["in_trace"]);
        assert_eq!(
            called, independent,
            "rank {r}: the tracer's counters differ from ltrace's"
        );
        for (f, n) in &in_trace {
            assert_eq!(independent.get(f), Some(n), "rank {r}: {f} is in the trace {n} times");
        }
        for (f, n) in &independent {
            let untraced = f == "MPI_Alltoallw"
                || f.starts_with("MPI_Type_")
                || f.starts_with("MPI_Group_")
                || f.starts_with("MPI_Comm_rank")
                || f.starts_with("MPI_Comm_size")
                || f.starts_with("MPI_Comm_group")
                || f.starts_with("MPI_Buffer_")
                || ["MPI_Wtime", "MPI_Get_count", "MPI_Cart_shift"].contains(&f.as_str());
            if !untraced {
                assert_eq!(in_trace.get(f), Some(n), "rank {r}: {f} called {n} times");
            }
        }
        assert!(rank["computes"].as_u64().unwrap() > 0);
    }

    // Call-by-call times: one line per trace line, intervals in order.
    let tit = std::fs::read_to_string(trace.join("rank-0.tit")).unwrap();
    let times = std::fs::read_to_string(trace.join("rank-0.times")).unwrap();
    assert_eq!(tit.lines().count(), times.lines().count());
    for (a, b) in tit.lines().zip(times.lines()) {
        let action = a
            .split_whitespace()
            .find(|w| !w.starts_with('@') && w.parse::<u32>().is_err())
            .unwrap();
        let f: Vec<&str> = b.split_whitespace().collect();
        assert_eq!(f[0], action, "times line '{b}' for trace line '{a}'");
        let (s, e): (f64, f64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        assert!(s <= e && s >= 0.0, "{b}");
    }

    // The trace replays: every message finds its match.
    let out = simpi()
        .arg("replay")
        .arg(trace.join("index.txt"))
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "replay failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rep: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rep["ranks"].as_array().unwrap().len(), 4);
    assert!(rep["makespan_ps"].as_u64().unwrap() > 0);
}

#[test]
fn a_failing_program_is_reported() {
    for t in ["mpicc", "mpirun"] {
        require(t);
    }
    let dir = workdir("tracer-fail");
    let src = dir.join("fail.c");
    std::fs::write(
        &src,
        "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Barrier(MPI_COMM_WORLD); MPI_Abort(MPI_COMM_WORLD, 3); return 0; }\n",
    )
    .unwrap();
    let exe = dir.join("fail");
    compile(&src, &exe);
    let out = simpi()
        .arg("trace")
        .arg("-o")
        .arg(dir.join("trace"))
        .arg("--")
        .args(["mpirun", "--oversubscribe", "-np", "2"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the traced command failed"), "{stderr}");
}

/// `name` -> (calls, calls made while simpi's wrapper ran) from the next tracer's file.
fn next_counts(path: &Path) -> BTreeMap<String, (u64, u64)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), (f[1].parse().unwrap(), f[2].parse().unwrap()))
        })
        .collect()
}

#[test]
fn a_chained_tracer_records_the_same_run_through_simpis() {
    for t in ["mpicc", "mpirun"] {
        require(t);
    }
    let dir = workdir("tracer-chain");
    let exe = compile_test_program("chained.c", &dir);
    // A second PMPI tracer, as libdumpi or liballprof would be.
    let lib = dir.join("libnext.so");
    let out = std::process::Command::new("mpicc")
        .args(["-O1", "-fPIC", "-shared", "-o"])
        .arg(&lib)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mpi/next_tracer.c"))
        .arg("-ldl")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace = dir.join("trace");
    let out = simpi()
        .arg("trace")
        .arg("--chain")
        .arg(&lib)
        .arg("-o")
        .arg(&trace)
        .arg("--")
        .args(["mpirun", "--oversubscribe", "-np", "2", "-x", "NEXT_TRACER_DIR"])
        .arg(&exe)
        .env("NEXT_TRACER_DIR", &dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "simpi trace failed: {stderr}");

    let info = simpi().arg("trace-info").arg(&trace).arg("--json").output().unwrap();
    assert!(info.status.success());
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    for r in 0..2 {
        let next = next_counts(&dir.join(format!("next-{r}.txt")));
        let called = counts(&info["ranks"][r]["called"]);
        // What chained.c calls on this rank (5 rounds); simpi's own PMPI calls (its clock
        // origin's allreduce) go past the next tracer.
        let (send, recv) = if r == 0 { (5, 0) } else { (0, 5) };
        let expected = [
            ("MPI_Init", 1),
            ("MPI_Comm_rank", 1),
            ("MPI_Send", send),
            ("MPI_Recv", recv),
            ("MPI_Barrier", 5),
            ("MPI_Allreduce", 5),
            ("MPI_Finalize", 1),
        ];
        for (f, n) in expected {
            // Every call reached the next tracer once, from within simpi's wrapper.
            assert_eq!(next.get(f), Some(&(n, n)), "rank {r}: {f} in the next tracer");
            assert_eq!(
                called.get(f).copied().unwrap_or(0),
                n,
                "rank {r}: {f} in simpi's counts"
            );
        }
    }
    // Both traces are of the same run: the TIT trace is complete and replays.
    let tit = std::fs::read_to_string(trace.join("rank-1.tit")).unwrap();
    assert_eq!(tit.lines().filter(|l| l.contains(" recv ")).count(), 5, "{tit}");
    assert!(tit.lines().last().unwrap().ends_with("finalize"), "{tit}");
    let times = std::fs::read_to_string(trace.join("rank-1.times")).unwrap();
    for b in times.lines() {
        let f: Vec<&str> = b.split_whitespace().collect();
        let (s, e): (f64, f64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        assert!(s <= e && s >= 0.0, "{b}");
    }
    let out = simpi()
        .arg("replay")
        .arg(trace.join("index.txt"))
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
