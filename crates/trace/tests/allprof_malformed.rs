//! Malformed liballprof traces give errors naming a rank's file (and a line, unless the
//! error is about a whole file), or valid replays; never a panic or a hang. Real traces
//! (`tests/golden/allprof`: two recorded OSU runs and the hand-written trace) are copied
//! and one rank's file is mutated by the shared text mutator (tokens replaced by
//! extreme numbers, lines deleted, duplicated or swapped, bytes edited, the file cut
//! short). 10,000 mutants in all (`SIMPI_FUZZ_SCALE` multiplies them). Each is
//! converted into a schedule, which is then simulated under LogGOPS; every fourth is
//! also replayed live.

use simpi_mpi::coll::{registry, Algorithm, CollSpec};
use simpi_mpi::engine::ScheduleStore;
use simpi_mpi::live::Live;
use simpi_net::LogGops;
use simpi_trace::allprof::{open_allprof, read_allprof};
use simpi_trace::tit::{TitError, TitOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "../../../tests/support/mutate.rs"]
#[allow(dead_code)]
mod mutate;
use mutate::{bites, mutant, no_panic, root, scale, scratch, Rng};

/// A mutant takes at most this long, or the reader hangs.
const SLOWEST: Duration = Duration::from_secs(30);

fn first(s: &CollSpec) -> &'static Algorithm {
    registry().into_iter().find(|a| a.coll == s.coll).expect("an algorithm")
}

/// The rank files of a trace directory.
fn rank_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("pmpi-trace-rank-"))
        })
        .collect();
    v.sort();
    v
}

/// The error names a file of the mutant's trace, and a line unless about a whole file.
fn has_its_place(e: &TitError, dir: &Path) {
    let d = dir.display().to_string();
    assert!(
        e.file.starts_with(&d),
        "the error does not name a file of the trace: {e}"
    );
    let whole_file = ["cannot open", "cannot read", "not a file", "expected rank 0's file"]
        .iter()
        .any(|m| e.msg.starts_with(m));
    assert!(e.line > 0 || whole_file, "an error without a line: {e}");
}

#[test]
fn mutated_allprof_traces_give_errors_not_panics_or_hangs() {
    let start = Instant::now();
    let golden = root().join("tests/golden/allprof");
    let seeds = [
        golden.join("handwritten"),
        golden.join("osu_alltoall/lap"),
        golden.join("osu_allreduce/lap"),
    ];
    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose: &first,
        test_cost: 1e-6,
        calls: false,
    };
    let model = LogGops::from_units(simpi_kernel::TimeUnit::Ns, 2500, 1500, 1000, 6, 0, 65535);
    let work = scratch("allprof");
    let mut g = Rng(0x5eed_a11f);
    let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut total, mut rejected) = (0usize, 0usize);
    let per_seed = scale(10_000).div_ceil(seeds.len());
    for (i, seed) in seeds.iter().enumerate() {
        let files = rank_files(seed);
        let first_file = files[0].file_name().unwrap().to_owned();
        // The seed itself reads.
        assert!(read_allprof(&files[0], &opts).is_ok(), "{}", seed.display());
        let dir = work.join(format!("seed{i}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let texts: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        for f in &files {
            std::fs::copy(f, dir.join(f.file_name().unwrap())).unwrap();
        }
        let anchor = dir.join(&first_file);
        for k in 0..per_seed {
            let r = g.below(files.len());
            let target = dir.join(files[r].file_name().unwrap());
            let m = mutant(&texts[r], &mut g);
            std::fs::write(&target, &m).unwrap();
            let label = format!("{} with rank {r} mutated (mutant {k})", seed.display());
            let t0 = Instant::now();
            let whole = no_panic("the liballprof reader", &m, || read_allprof(&anchor, &opts));
            total += 1;
            let kind = match whole {
                Ok(mut t) => {
                    let r = no_panic("LogGOPS on a mutant", &m, || {
                        simpi_mpi::run_loggops_on(ScheduleStore::new(&mut t.schedule), &model, None, false).0
                    });
                    if r.is_ok() {
                        "replays"
                    } else {
                        "converts, cannot complete"
                    }
                }
                Err(e) => {
                    rejected += 1;
                    has_its_place(&e, &dir);
                    "refused"
                }
            };
            *outcomes.entry(kind).or_default() += 1;
            if k % 4 == 0 {
                no_panic("the live liballprof replay", &m, || {
                    match open_allprof(&anchor, &opts) {
                        Ok(prog) => {
                            let p = prog.ranks();
                            let (r, _) = simpi_mpi::run_loggops_on(Live::new(prog, p, 1, 1), &model, None, false);
                            if let Err(simpi_mpi::Error::Input { file, line, .. }) = &r {
                                assert!(file.starts_with(&dir.display().to_string()), "{file}");
                                assert!(*line > 0, "{label}: a live error without a line");
                            }
                        }
                        Err(e) => has_its_place(&e, &dir),
                    }
                });
            }
            assert!(t0.elapsed() < SLOWEST, "{label} took {:?}", t0.elapsed());
            std::fs::write(&target, &texts[r]).unwrap();
        }
    }
    bites("liballprof", rejected, total, total / 4);
    eprintln!(
        "liballprof: {total} mutants, {rejected} rejected, {outcomes:?}, {:?}",
        start.elapsed()
    );
}
