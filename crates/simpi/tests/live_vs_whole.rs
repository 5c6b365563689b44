//! The live store against whole schedules: a trace replayed live (each rank's calls
//! read and turned into operations as the rank reaches them) and the same trace
//! converted to a whole schedule first must give bit-identical end times, under SMPI's
//! protocol and under LogGOPS; a pattern run in the process and its GOAL file must too.
//! The whole schedule is the reference here because it is built without the engine:
//! every operation and dependency exists before the run.

mod common;

use simpi::platform::{self, Mapping};
use simpi::{load, simulate, CollChoice, LogGops, Model, Pattern, PatternParams, Preset, TimeUnit, Workload};
use std::path::Path;

fn end_times(dir: &Path, whole: bool, loggops: bool) -> Vec<u64> {
    let p = platform::load(&dir.join("platform.xml")).unwrap();
    let ranks = std::fs::read_to_string(dir.join("hostfile")).unwrap().lines().count() as u32;
    let mapping = Mapping::block(&p, ranks, 1);
    let mut coll = CollChoice::by_name("ompi").unwrap();
    for a in std::fs::read_to_string(dir.join("algorithms.txt"))
        .unwrap()
        .split_whitespace()
    {
        coll.add_override(a.split_once(':').unwrap().0).unwrap();
    }
    let speed = |_r: u32| 1e9;
    let mut w = load(
        &dir.join("trace.txt"),
        &common::load_options(&speed, &coll, 1e-4, whole),
    )
    .unwrap();
    assert_eq!(w.schedule().is_some(), whole);
    let model = if loggops {
        Model::LogGops(LogGops::loggopsim_defaults(TimeUnit::Ns))
    } else {
        Model::Flow {
            platform: &p,
            hosts: (0..ranks).map(|r| mapping.host(r)).collect(),
            preset: Preset::smpi(),
        }
    };
    let out = simulate(&mut w, &model, common::quiet()).unwrap();
    out.end_times.iter().map(|t| t.ps()).collect()
}

#[test]
fn recorded_traces_replay_live_as_their_whole_schedules() {
    let cases = common::cases("smpi-replay");
    assert!(cases.len() >= 12, "reference cases missing: {}", cases.len());
    let mut differ = Vec::new();
    for dir in &cases {
        for loggops in [false, true] {
            if end_times(dir, true, loggops) != end_times(dir, false, loggops) {
                differ.push(format!("{} (loggops: {loggops})", dir.display()));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "live and whole replays differ:\n{}",
        differ.join("\n")
    );
}

#[test]
fn patterns_in_the_process_replay_as_their_goal_files() {
    let dir = std::env::temp_dir().join(format!("simpi-live-vs-whole-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = Model::LogGops(LogGops::loggopsim_defaults(TimeUnit::Ns));
    for &(pattern, name, _) in Pattern::ALL.iter() {
        for ranks in [1u32, 5, 16, 37] {
            let params = PatternParams {
                ranks,
                bytes: 100_000,
                iterations: 2,
                compute: 700,
                periodic: ranks == 16,
            };
            let file = dir.join(format!("{name}-{ranks}.goal"));
            let f = std::fs::File::create(&file).unwrap();
            simpi_trace::schedgen::generate(pattern, &params, f).unwrap();
            let speed = |_r: u32| 1e9;
            let coll = CollChoice::by_name("ompi").unwrap();
            let opts = common::load_options(&speed, &coll, 0.0, false);
            let mut from_file = load(&file, &opts).unwrap();
            let mut live = Workload::pattern(pattern, params, TimeUnit::Ns).unwrap();
            let a = simulate(&mut from_file, &model, common::quiet()).unwrap();
            let b = simulate(&mut live, &model, common::quiet()).unwrap();
            assert_eq!(a.end_times, b.end_times, "{name} on {ranks} ranks");
            assert!(
                a.end_times.iter().any(|t| t.ps() > 0) || ranks == 1,
                "{name}: nothing ran"
            );
        }
    }
}

/// Linear algorithms on 300 ranks: the barrier root's sends wait for 299 receives,
/// more than a byte holds, so the live store keeps that call's counts wide while the
/// other ranks' stay narrow; both must replay as the whole schedule does.
#[test]
fn steps_waiting_for_hundreds_replay_live_as_the_whole_schedule() {
    let dir = std::env::temp_dir().join(format!("simpi-live-wide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("trace.txt");
    let ranks = 300;
    let mut text = String::new();
    for r in 0..ranks {
        // Rank r computes r * 10 us (1e4 flops at 1 Gflop/s), then the barrier.
        text += &format!("{r} init\n{r} compute {}\n{r} barrier\n", 10_000 * r);
        text += &format!("{r} gather 100 100 0\n{r} allreduce 64 0\n{r} finalize\n");
    }
    std::fs::write(&file, text).unwrap();
    let mut coll = CollChoice::by_name("ompi").unwrap();
    coll.add_override("gather=linear").unwrap();
    coll.add_override("barrier=linear").unwrap();
    let speed = |_r: u32| 1e9;
    let model = Model::LogGops(LogGops::loggopsim_defaults(TimeUnit::Ns));
    let run = |whole: bool| {
        let mut w = load(&file, &common::load_options(&speed, &coll, 0.0, whole)).unwrap();
        simulate(&mut w, &model, common::quiet()).unwrap().end_times
    };
    let (whole, live) = (run(true), run(false));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(whole.len(), ranks);
    assert_eq!(whole, live);
    // Nobody leaves the barrier before the last rank enters it, after 299 * 10 us.
    let last_in = 299 * 10_000_000;
    assert!(live.iter().all(|t| t.ps() > last_in), "a rank left the barrier early");
}
