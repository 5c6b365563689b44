//! SimGrid time-independent traces of real programs (OSU micro-benchmarks, NPB IS),
//! recorded and replayed by SimGrid 3.32 (`tests/golden/smpi-replay/`, made by
//! `bench/smpi-replay/run.sh`), replayed by simpi with the hybrid model's `smpi` preset and
//! the same collective algorithms. The issue asks for 2 %; simpi reproduces SimGrid's
//! replay to the precision SimGrid prints its time with (6 decimals), which is what this
//! test holds it to.

mod common;

use simpi::platform::{self, Mapping};
use simpi::{load, simulate, CollChoice, LoadOptions, Model, Preset, TimeUnit};
use std::path::Path;

/// simpi's replay of one case: its makespan in seconds.
fn replay(dir: &Path) -> f64 {
    let p = platform::load(&dir.join("platform.xml")).unwrap();
    // The ranks run on node-0, node-1, ... in order: the hostfile lists them so.
    let hosts: Vec<String> = std::fs::read_to_string(dir.join("hostfile"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let ranks = hosts.len() as u32;
    for (r, h) in hosts.iter().enumerate() {
        assert_eq!(h, &format!("node-{r}"), "{}: unexpected hostfile", dir.display());
    }
    let mapping = Mapping::block(&p, ranks, 1);
    let mut coll = CollChoice::by_name("ompi").unwrap();
    let algos = std::fs::read_to_string(dir.join("algorithms.txt")).unwrap();
    for a in algos.split_whitespace() {
        // op=simpi_name:simgrid_name
        let (op_algo, _simgrid) = a.split_once(':').unwrap();
        coll.add_override(op_algo).unwrap();
    }
    let speed = |_r: u32| 1e9; // the platform's hosts: 1 Gflop/s
    let mut w = load(
        &dir.join("trace.txt"),
        &LoadOptions {
            format: None,
            unit: TimeUnit::Ns,
            speed: &speed,
            collectives: &coll,
            test_cost: 1e-4, // SimGrid's smpi/test default
            calls: false,
            whole: false,
        },
    )
    .unwrap();
    let model = Model::Flow {
        platform: &p,
        hosts: (0..ranks).map(|r| mapping.host(r)).collect(),
        preset: Preset::smpi(),
    };
    let opts = common::quiet();
    let out = simulate(&mut w, &model, opts).unwrap();
    out.end_times.iter().map(|t| t.as_secs_f64()).fold(0.0, f64::max)
}

#[test]
fn simgrid_traces_replay_as_simgrid_replays_them() {
    let cases = common::cases("smpi-replay");
    assert!(cases.len() >= 12, "reference cases missing: {}", cases.len());
    let mut failures = Vec::new();
    for dir in &cases {
        let want: f64 = std::fs::read_to_string(dir.join("expected.txt"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let got = replay(dir);
        // SimGrid prints 6 decimals: allow its rounding plus a part per million.
        let tolerance = 5e-7 + 1e-6 * want;
        if (got - want).abs() > tolerance {
            failures.push(format!("{}: simpi {got:.9} s, SimGrid {want:.6} s", dir.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
