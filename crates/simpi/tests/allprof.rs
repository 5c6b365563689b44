//! liballprof traces (`tests/golden/allprof/`): a hand-written one whose end times are
//! derived by hand (`handwritten/README.md`), and OSU collectives recorded by
//! `bench/allprof/record.sh`, each ONE run recorded by both tracers (`simpi trace
//! --chain libmpipclog.so`: simpi's tracer forwards each call to liballprof's). Replaying
//! the liballprof and the TIT trace on the same platform and model must agree within 1 %
//! (one measured exception, below), and exactly without computation.

mod common;

use simpi::platform::{self, Mapping};
use simpi::{load, simulate, CollChoice, Format, LogGops, Model, Preset, TimeUnit};
use std::path::{Path, PathBuf};

fn golden(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden/allprof")
        .join(case)
}

/// The per-rank end times (ps) of `input` under `model`, read live or `whole`.
fn end_times(input: &Path, model: &Model<'_>, coll: &CollChoice, whole: bool) -> Vec<u64> {
    end_times_at(input, model, coll, whole, 1e9)
}

/// [`end_times`] on hosts of `flops` flop/s.
fn end_times_at(input: &Path, model: &Model<'_>, coll: &CollChoice, whole: bool, flops: f64) -> Vec<u64> {
    let speed = move |_r: u32| flops;
    let mut w = load(input, &common::load_options(&speed, coll, 1e-4, whole))
        .unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let out = simulate(&mut w, model, common::quiet()).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    out.end_times.iter().map(|t| t.ps()).collect()
}

#[test]
fn the_hand_written_trace_ends_when_derived_by_hand() {
    let dir = golden("handwritten");
    let first = dir.join("pmpi-trace-rank-0.txt");
    assert_eq!(Format::detect(&first), Format::Allprof);
    assert_eq!(simpi::count_ranks(&first, None).unwrap(), 3);
    let model = Model::LogGops(LogGops::from_units(TimeUnit::Ns, 1000, 100, 0, 0, 0, 65535));
    let coll = CollChoice::by_name("first").unwrap();
    let want: Vec<u64> = std::fs::read_to_string(dir.join("expected.txt"))
        .unwrap()
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap() * 1000)
        .collect();
    // README.md's derivation.
    assert_eq!(want, vec![33_200_000, 40_200_000, 38_100_000]);
    assert_eq!(end_times(&first, &model, &coll, false), want, "read live");
    assert_eq!(end_times(&first, &model, &coll, true), want, "converted to a schedule");
}

/// The recorded cases: directories with a liballprof and a TIT trace.
fn recorded() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(golden(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("lap").is_dir() && p.join("tit/index.txt").exists())
        .collect();
    v.sort();
    v
}

#[test]
fn liballprof_and_tit_traces_of_one_run_replay_within_one_percent() {
    let cases = recorded();
    assert!(cases.len() >= 2, "recorded cases missing: {cases:?}");
    let p = platform::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/smpi-replay/osu_allreduce/platform.xml"),
    )
    .unwrap();
    let coll = CollChoice::by_name("ompi").unwrap();
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for dir in &cases {
        let lap = dir.join("lap/pmpi-trace-rank-0.txt");
        let tit = dir.join("tit/index.txt");
        assert_eq!(Format::detect(&lap), Format::Allprof);
        let ranks = simpi::count_ranks(&lap, None).unwrap();
        assert_eq!(ranks, simpi::count_ranks(&tit, None).unwrap());
        let mapping = Mapping::block(&p, ranks, 1);
        let hybrid = Model::Flow {
            platform: &p,
            hosts: (0..ranks).map(|r| mapping.host(r)).collect(),
            preset: Preset::smpi(),
        };
        let loggops = Model::LogGops(LogGops::from_units(TimeUnit::Ns, 2500, 1500, 1000, 6, 0, 65535));
        for (name, model) in [("hybrid", &hybrid), ("loggops", &loggops)] {
            let makespan =
                |f: &Path, flops: f64| *end_times_at(f, model, &coll, false, flops).iter().max().unwrap() as f64;
            // Without computation (hosts of 10^15 flop/s) only the calls remain: the two
            // readers must make the same ones.
            let (a0, b0) = (makespan(&tit, 1e15), makespan(&lap, 1e15));
            if (a0 - b0).abs() / a0 > 1e-6 {
                failures.push(format!(
                    "{} {name}: without computation TIT {a0} ps, liballprof {b0} ps",
                    dir.display()
                ));
            }
            let (a, b) = (makespan(&tit, 1e9), makespan(&lap, 1e9));
            let diff = (a - b).abs() / a;
            report.push(format!(
                "{} {name}: TIT {a:.0} ps, liballprof {b:.0} ps, {:.3} %",
                dir.display(),
                100.0 * diff
            ));
            // The one exception, measured: LogGOPS's alltoall of 16 KiB blocks queues
            // 98 us transfers at the NICs in the order the ranks arrive, and
            // liballprof's clock counts whole microseconds: this run's TIT trace with
            // its times cut to whole microseconds replays 6.1 % shorter (9.01 against
            // 9.60 ms), and the liballprof trace 10.0 % (8.64 ms); three same-run
            // recordings were 7.5 to 10.0 % apart, the same calls without computation
            // agreeing exactly. That replay jumps by a transfer on far smaller
            // differences: the TIT trace's own computation moved by at most 10 ns puts
            // 8 of 20 copies more than 1 % away (bench/allprof/perturb.py).
            let bound = if dir.ends_with("osu_alltoall") && name == "loggops" {
                0.12
            } else {
                0.01
            };
            if diff > bound {
                failures.push(report.last().unwrap().clone());
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_recorded_trace_replays_the_same_live_and_converted() {
    let model = Model::LogGops(LogGops::from_units(TimeUnit::Ns, 2500, 1500, 1000, 6, 0, 65535));
    let coll = CollChoice::by_name("ompi").unwrap();
    for dir in recorded() {
        let lap = dir.join("lap/pmpi-trace-rank-0.txt");
        assert_eq!(
            end_times(&lap, &model, &coll, false),
            end_times(&lap, &model, &coll, true),
            "{}",
            dir.display()
        );
    }
}

#[test]
fn refused_calls_and_bad_lines_are_errors_at_their_line() {
    let coll = CollChoice::by_name("ompi").unwrap();
    let speed = |_r: u32| 1e9;
    let tmp = std::env::temp_dir().join(format!("simpi-allprof-refused-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let src = golden("handwritten");
    for r in 0..3 {
        let f = format!("pmpi-trace-rank-{r}.txt");
        std::fs::copy(src.join(&f), tmp.join(&f)).unwrap();
    }
    let first = tmp.join("pmpi-trace-rank-0.txt");
    let rank1 = tmp.join("pmpi-trace-rank-1.txt");
    let text = std::fs::read_to_string(src.join("pmpi-trace-rank-1.txt")).unwrap();
    let cases = [
        // One-sided communication, by name, at its line (line 5 of rank 1's file).
        (
            "MPI_Comm_rank:207:6100,1,2:66:207",
            "MPI_Put:207:1:2:3:4:5:6:7:8:207",
            ":5: MPI_Put is not a call simpi models",
        ),
        // A send whose partner is outside its communicator.
        (
            "MPI_Isend:242:4096:50:1,1,1:0:8:",
            "MPI_Isend:242:4096:50:1,1,1:3:8:",
            ":7: destination 3 is out of range",
        ),
        // A field missing.
        (
            "MPI_Wait:243:444:31:244",
            "MPI_Wait:243:444:244",
            ":8: MPI_Wait has 1 argument field(s); liballprof writes 2",
        ),
    ];
    for (from, to, want) in cases {
        assert!(text.contains(from), "{from}");
        std::fs::write(&rank1, text.replace(from, to)).unwrap();
        for whole in [false, true] {
            let e = load(&first, &common::load_options(&speed, &coll, 1e-4, whole))
                .and_then(|mut w| {
                    let model = Model::LogGops(LogGops::from_units(TimeUnit::Ns, 1000, 100, 0, 0, 0, 65535));
                    simulate(&mut w, &model, common::quiet()).map(|_| ())
                })
                .err()
                .unwrap_or_else(|| panic!("{to}: no error"))
                .to_string();
            assert!(e.contains("pmpi-trace-rank-1.txt") && e.contains(want), "{to}: {e}");
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
