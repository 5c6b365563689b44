//! OTF2 traces (`tests/golden/otf2/`): a hand-written one whose end times are derived by
//! hand (`handwritten/make.py`), and real runs recorded by `bench/otf2/record.sh`, each
//! written by one run of `simpi trace --otf2` both as a TIT trace and as an OTF2 archive:
//! replaying the two on the same platform and model must agree within 1 %.

mod common;

use simpi::platform::{self, Mapping};
use simpi::{load, simulate, CollChoice, Format, LoadOptions, LogGops, Model, Preset, TimeUnit};
use std::path::{Path, PathBuf};

fn golden(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden/otf2")
        .join(case)
}

/// The per-rank end times (ps) of `input` under `model`, read live or `whole`.
fn end_times(input: &Path, model: &Model<'_>, coll: &CollChoice, whole: bool) -> Vec<u64> {
    let speed = |_r: u32| 1e9;
    let mut w = load(input, &common::load_options(&speed, coll, 1e-4, whole))
        .unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let out = simulate(&mut w, model, common::quiet()).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    out.end_times.iter().map(|t| t.ps()).collect()
}

#[test]
fn the_hand_written_trace_ends_when_derived_by_hand() {
    let dir = golden("handwritten");
    let anchor = dir.join("traces.otf2");
    assert_eq!(Format::detect(&anchor), Format::Otf2);
    // make.py's derivation: LogGOPS L=1000 o=100 g=0 G=0 O=0 ns, eager.
    let model = Model::LogGops(LogGops::from_units(TimeUnit::Ns, 1000, 100, 0, 0, 0, 65535));
    let coll = CollChoice::by_name("first").unwrap();
    let want: Vec<u64> = std::fs::read_to_string(dir.join("expected.txt"))
        .unwrap()
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap() * 1000)
        .collect();
    assert_eq!(want, vec![28_200_000, 26_300_000, 12_100_000]);
    assert_eq!(end_times(&anchor, &model, &coll, false), want, "read live");
    assert_eq!(end_times(&anchor, &model, &coll, true), want, "converted to a schedule");
}

/// The recorded cases: directories with both a TIT index and an OTF2 anchor.
fn recorded() -> Vec<PathBuf> {
    let root = golden("");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("index.txt").exists() && p.join("traces.otf2").exists())
        .collect();
    v.sort();
    v
}

#[test]
fn otf2_and_tit_traces_of_one_run_replay_within_one_percent() {
    let cases = recorded();
    assert!(cases.len() >= 4, "recorded cases missing: {cases:?}");
    let p = platform::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/smpi-replay/osu_allreduce/platform.xml"),
    )
    .unwrap();
    let coll = CollChoice::by_name("ompi").unwrap();
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for dir in &cases {
        let ranks = simpi::count_ranks(&dir.join("traces.otf2"), None).unwrap();
        assert_eq!(ranks, simpi::count_ranks(&dir.join("index.txt"), None).unwrap());
        let mapping = Mapping::block(&p, ranks, 1);
        let hybrid = Model::Flow {
            platform: &p,
            hosts: (0..ranks).map(|r| mapping.host(r)).collect(),
            preset: Preset::smpi(),
        };
        let loggops = Model::LogGops(LogGops::from_units(TimeUnit::Ns, 2500, 1500, 1000, 6, 0, 65535));
        for (name, model) in [("hybrid", &hybrid), ("loggops", &loggops)] {
            let tit = end_times(&dir.join("index.txt"), model, &coll, false);
            let otf2 = end_times(&dir.join("traces.otf2"), model, &coll, false);
            let (a, b) = (*tit.iter().max().unwrap() as f64, *otf2.iter().max().unwrap() as f64);
            let diff = (a - b).abs() / a;
            report.push(format!(
                "{} {name}: TIT {a:.0} ps, OTF2 {b:.0} ps, {:.5} %",
                dir.display(),
                100.0 * diff
            ));
            if diff > 0.01 {
                failures.push(report.last().unwrap().clone());
            }
            for (r, (x, y)) in tit.iter().zip(&otf2).enumerate() {
                let d = (*x as f64 - *y as f64).abs() / (*x as f64).max(1.0);
                if d > 0.01 {
                    failures.push(format!(
                        "{} {name}: rank {r} ends at {x} (TIT), {y} (OTF2)",
                        dir.display()
                    ));
                }
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_recorded_trace_replays_the_same_live_and_converted() {
    let dir = golden("every_call");
    let model = Model::LogGops(LogGops::from_units(TimeUnit::Ns, 2500, 1500, 1000, 6, 0, 65535));
    let coll = CollChoice::by_name("ompi").unwrap();
    let anchor = dir.join("traces.otf2");
    assert_eq!(
        end_times(&anchor, &model, &coll, false),
        end_times(&anchor, &model, &coll, true)
    );
}

#[test]
fn errors_name_the_file() {
    let coll = CollChoice::by_name("ompi").unwrap();
    let speed = |_r: u32| 1e9;
    let opts: LoadOptions<'_> = common::load_options(&speed, &coll, 1e-4, false);
    // An archive whose global definitions are gone.
    let tmp = std::env::temp_dir().join(format!("simpi-otf2-missing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let src = golden("handwritten");
    std::fs::copy(src.join("traces.otf2"), tmp.join("traces.otf2")).unwrap();
    let e = load(&tmp.join("traces.otf2"), &opts)
        .err()
        .expect("an error")
        .to_string();
    assert!(e.contains("traces"), "{e}");
    let _ = std::fs::remove_dir_all(&tmp);
}
