//! `simpi compare`: a trace directory written by hand, two ranks on two hosts joined by
//! one link, replayed under `--model flow`, whose predicted times follow by hand from
//! latency + bytes / bandwidth; the measured times are chosen. Also malformed times
//! files and refused options; and one traced run of a real MPI program.

mod common;

use common::{compile, require, simpi, workdir};
use std::path::{Path, PathBuf};

/// Hosts a and b (1 Gflop/s) joined by one link of 1 MB/s and 1 ms.
const PLATFORM: &str = "routing = \"full\"
[[host]]
name = \"a\"
speed = \"1Gf\"
[[host]]
name = \"b\"
speed = \"1Gf\"
[[link]]
name = \"l\"
bandwidth = \"1MBps\"
latency = \"1ms\"
sharing = \"shared\"
[[route]]
src = \"a\"
dst = \"b\"
links = [\"l\"]
";

/// Rank 0 computes 1e6 flops and sends 1000 bytes to rank 1, which receives them and
/// computes 2e6 flops. Under the flow model (no factors, no envelope, a send completes
/// at once, the message flows when sent):
///   rank 0: compute 0..1 ms, send at 1 ms (0 s): ends at 1 ms;
///   message: latency 1 ms + 1000 B / 1e6 B/s = 1 ms, arrives at 3 ms;
///   rank 1: recv 0..3 ms, compute 3..5 ms: ends at 5 ms.
/// Measured (chosen): rank 0 enters MPI_Finalize at 1.3 ms, rank 1 at 6.2 ms; compute
/// 1.2 + 2.2 = 3.4 ms, recv 4 ms, send 0.1 ms.
fn trace_dir(name: &str) -> (PathBuf, PathBuf) {
    let d = workdir(name);
    let t = d.join("trace");
    std::fs::create_dir_all(&t).unwrap();
    let write = |f: &str, text: &str| std::fs::write(t.join(f), text).unwrap();
    write("index.txt", "rank-0.tit\nrank-1.tit\n");
    write("rank-0.tit", "0 init\n0 compute 1e6\n0 send 1 0 1000 6\n0 finalize\n");
    write("rank-1.tit", "1 init\n1 recv 0 0 1000 6\n1 compute 2e6\n1 finalize\n");
    write(
        "rank-0.times",
        "init 0.000000000 0.000000000\ncompute 0.000000000 0.001200000\n\
         send 0.001200000 0.001300000\nfinalize 0.001300000 0.001310000\n",
    );
    write(
        "rank-1.times",
        "init 0.000000000 0.000000000\nrecv 0.000000000 0.004000000\n\
         compute 0.004000000 0.006200000\nfinalize 0.006200000 0.006300000\n",
    );
    let p = d.join("platform.toml");
    std::fs::write(&p, PLATFORM).unwrap();
    (t, p)
}

fn compare(args: &[&str]) -> std::process::Output {
    simpi().arg("compare").args(args).output().unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1e-12)
}

#[track_caller]
fn assert_close(v: &serde_json::Value, expected: f64) {
    let x = v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"));
    assert!(close(x, expected), "{x} != {expected}");
}

#[test]
fn json_gives_the_hand_computed_times_and_errors() {
    let (t, p) = trace_dir("compare-json");
    let out = compare(&[
        t.to_str().unwrap(),
        "--model",
        "flow",
        "--platform",
        p.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v["makespan"];
    assert_close(&m["measured_s"], 0.0062);
    assert_close(&m["predicted_s"], 0.005);
    assert_close(&m["error"], (6.2f64 / 5.0).ln()); // 0.21511...
    assert_close(&m["ln_ratio"], -(6.2f64 / 5.0).ln());
    assert_close(&m["ratio"], 5.0 / 6.2);
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2);
    for (r, measured, predicted) in [(0, 0.0013, 0.001), (1, 0.0062, 0.005)] {
        assert_eq!(ranks[r]["rank"], r);
        assert_close(&ranks[r]["measured_s"], measured);
        assert_close(&ranks[r]["predicted_s"], predicted);
        assert_close(&ranks[r]["error"], (measured / predicted).ln());
    }
    // Markers (init, finalize) are not call types; the rest by measured time.
    let calls = v["calls"].as_array().unwrap();
    let names: Vec<&str> = calls.iter().map(|c| c["call"].as_str().unwrap()).collect();
    assert_eq!(names, ["recv", "compute", "send"]);
    for (c, count, measured, predicted) in [(0, 1, 0.004, 0.003), (1, 2, 0.0034, 0.003)] {
        assert_eq!(calls[c]["count"], count);
        assert_eq!(calls[c]["predicted_count"], count);
        assert_close(&calls[c]["measured_s"], measured);
        assert_close(&calls[c]["predicted_s"], predicted);
        assert_close(&calls[c]["error"], (measured / predicted).ln());
    }
    // The flow model's send completes at once: no ratio.
    assert_close(&calls[2]["measured_s"], 0.0001);
    assert_eq!(calls[2]["predicted_s"], 0);
    assert!(calls[2]["error"].is_null());
    let (e0, e1) = (1.3f64.ln(), 1.24f64.ln());
    assert_close(&v["mean_rank_error"], (e0 + e1) / 2.0);
    assert_close(&v["worst_rank_error"], e0);
    assert_eq!(v["worst_rank"], 0);
}

#[test]
fn the_table_shows_the_same_numbers() {
    let (t, p) = trace_dir("compare-human");
    // The index file names the directory as well.
    let index = t.join("index.txt");
    let out = compare(&[
        index.to_str().unwrap(),
        "--model",
        "flow",
        "--platform",
        p.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let words = |prefix: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(prefix))
            .unwrap_or_else(|| panic!("no line {prefix:?} in:\n{text}"));
        line.split_whitespace().map(String::from).collect()
    };
    // ln(6.2/5) = 0.21511, ln(1.3) = 0.26236, ln(4/3) = 0.28768, ln(3.4/3) = 0.12516.
    assert_eq!(
        words("makespan"),
        [
            "makespan",
            "measured",
            "6.200000",
            "ms",
            "predicted",
            "5.000000",
            "ms",
            "error",
            "0.2151"
        ]
    );
    assert!(
        text.contains("predicted / measured = 0.8065 (ln -0.2151: under)"),
        "{text}"
    );
    assert_eq!(words("0 "), ["0", "1.300000", "ms", "1.000000", "ms", "0.2624"]);
    assert_eq!(words("1 "), ["1", "6.200000", "ms", "5.000000", "ms", "0.2151"]);
    assert_eq!(
        words("recv"),
        ["recv", "1", "1", "4.000000", "ms", "3.000000", "ms", "0.2877"]
    );
    assert_eq!(
        words("compute"),
        ["compute", "2", "2", "3.400000", "ms", "3.000000", "ms", "0.1252"]
    );
    assert_eq!(words("send"), ["send", "1", "1", "100.000000", "us", "0", "-"]);
    assert!(!text.contains("finalize") && !text.contains("init"), "{text}");
    // mean (0.26236 + 0.21511) / 2 = 0.23874.
    assert!(
        text.contains("ranks: mean |ln(predicted/measured)| 0.2387, worst 0.2624 (rank 0)"),
        "{text}"
    );
}

#[test]
fn a_malformed_or_missing_times_file_is_named() {
    let (t, p) = trace_dir("compare-malformed");
    let args = |t: &Path| {
        vec![
            t.to_str().unwrap().to_string(),
            "--model".into(),
            "flow".into(),
            "--platform".into(),
            p.to_str().unwrap().into(),
        ]
    };
    let times = t.join("rank-1.times");
    std::fs::write(&times, "init 0 0\nrecv 0.0 4ms\nfinalize 0.0062 0.0063\n").unwrap();
    let out = simpi().arg("compare").args(args(&t)).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with(&format!("simpi: {}:2: ", times.display())), "{err}");
    // Without a finalize line the rank's end is unknown.
    std::fs::write(&times, "init 0 0\nrecv 0.0 0.004\n").unwrap();
    let out = simpi().arg("compare").args(args(&t)).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}:2: ", times.display())) && err.contains("finalize"),
        "{err}"
    );
    std::fs::remove_file(&times).unwrap();
    let out = simpi().arg("compare").args(args(&t)).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&times.display().to_string()), "{err}");
}

#[test]
fn options_of_other_outputs_and_bad_model_settings_are_refused() {
    let (t, p) = trace_dir("compare-options");
    let (t, p) = (t.to_str().unwrap(), p.to_str().unwrap());
    for (args, what) in [
        (
            vec![t, "--model", "flow", "--platform", p, "--timeline", "x.json"],
            "--timeline",
        ),
        (vec![t, "--model", "flow", "--platform", p, "--report"], "--report"),
        (
            vec![t, "--model", "flow", "--platform", p, "--format", "loggopsim"],
            "--format",
        ),
        (vec![t, "--model", "flow"], "--platform"),
        (vec![t, "--model", "flow", "--platform", p, "-L", "5"], "-L"),
        (vec![t, "--model", "nosuch"], "nosuch"),
        (vec![], "DIR"),
    ] {
        let out = compare(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(what), "{args:?}: {err}");
    }
}

/// A traced run of a real program: every call type it makes is measured and predicted
/// under the same name, as often on both sides (but waits, which make no operation).
#[test]
fn a_traced_run_lines_up_with_its_replay() {
    for t in ["mpicc", "mpirun"] {
        require(t);
    }
    let dir = workdir("compare-real");
    let src = dir.join("app.c");
    std::fs::write(
        &src,
        "#include <mpi.h>\n\
         int main(int argc, char **argv) {\n\
           int me, n; double x = 1, y = 0; volatile double s = 0;\n\
           MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &me); MPI_Comm_size(MPI_COMM_WORLD, &n);\n\
           for (int i = 0; i < 5; i++) {\n\
             for (int k = 0; k < 200000; k++) s += k;\n\
             MPI_Request r;\n\
             if (me == 0) { MPI_Isend(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); }\n\
             if (me == 1) MPI_Recv(&y, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n\
             MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);\n\
           }\n\
           MPI_Finalize(); return 0;\n\
         }\n",
    )
    .unwrap();
    let exe = dir.join("app");
    compile(&src, &exe);
    let trace = dir.join("trace");
    let out = simpi()
        .arg("trace")
        .arg("-o")
        .arg(&trace)
        .arg("--")
        .args(["mpirun", "--oversubscribe", "-np", "2"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = simpi()
        .arg("compare")
        .arg(&trace)
        .args(["-L", "1000", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = v["calls"].as_array().unwrap();
    let count = |name: &str| {
        let c = calls
            .iter()
            .find(|c| c["call"] == name)
            .unwrap_or_else(|| panic!("no {name} in {calls:?}"));
        (c["count"].as_u64().unwrap(), c["predicted_count"].as_u64().unwrap())
    };
    assert_eq!(count("isend"), (5, 5));
    // A wait makes no operation in the replay (the rank's next operation waits for the
    // request's): it is measured, has no predicted time, and no error.
    assert_eq!(count("wait"), (5, 0));
    let wait = calls.iter().find(|c| c["call"] == "wait").unwrap();
    assert!(wait["measured_s"].as_f64().unwrap() > 0.0 && wait["error"].is_null());
    assert_eq!(count("recv"), (5, 5));
    assert_eq!(count("allreduce"), (10, 10));
    let (measured, predicted) = count("compute");
    assert!(
        measured >= 5 && measured == predicted,
        "compute {measured} vs {predicted}"
    );
    // Every call is measured, and the measured makespan is a rank's entry into
    // MPI_Finalize: positive.
    assert!(calls.iter().all(|c| c["count"].as_u64().unwrap() > 0), "{calls:?}");
    assert!(v["makespan"]["measured_s"].as_f64().unwrap() > 0.0);
    assert!(v["makespan"]["error"].as_f64().is_some());
    assert_eq!(v["ranks"].as_array().unwrap().len(), 2);
}
