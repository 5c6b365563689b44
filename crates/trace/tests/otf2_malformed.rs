//! Malformed OTF2 archives give errors naming a file of the archive, or valid replays;
//! never a panic or a hang. Real archives (`tests/golden/otf2`: two recorded runs and the
//! hand-written trace) are copied and one of their files (anchor, global or local
//! definitions, a location's events) is mutated by a seeded generator: bytes set to
//! extreme values, flipped, deleted, inserted, a span duplicated, the file cut short.
//! 4,000 mutants in all, to keep CI short (`SIMPI_FUZZ_SCALE` multiplies them for a
//! longer hunt). Each is converted into a schedule, which is then simulated under LogGOPS; every fourth is also replayed live.
//! The OTF2 library crashes or loops on some of them: that must be an error naming the
//! file, which the decoder process makes of it.

use simpi_mpi::coll::{registry, Algorithm, CollSpec};
use simpi_mpi::engine::ScheduleStore;
use simpi_mpi::live::Live;
use simpi_net::LogGops;
use simpi_trace::otf2::{open_otf2_within, read_otf2_within, Otf2Error};
use simpi_trace::tit::TitOptions;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "../../../tests/support/mutate.rs"]
#[allow(dead_code)] // the text edits are for text formats
mod mutate;
use mutate::{no_panic, root, scale, scratch, Rng};

/// How long the decoder may stay silent here: a mutant that makes the library loop costs
/// this much.
const STALL: Duration = Duration::from_secs(2);

/// A mutant takes at most this long, or the reader hangs.
const SLOWEST: Duration = Duration::from_secs(60);

fn first(s: &CollSpec) -> &'static Algorithm {
    registry().into_iter().find(|a| a.coll == s.coll).expect("an algorithm")
}

/// The files of an archive directory, relative to it.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v = vec![PathBuf::from("traces.otf2"), PathBuf::from("traces.def")];
    let mut rest: Vec<PathBuf> = std::fs::read_dir(dir.join("traces"))
        .unwrap()
        .map(|e| PathBuf::from("traces").join(e.unwrap().file_name()))
        .collect();
    rest.sort();
    v.extend(rest);
    v
}

/// One random binary edit of `t`.
fn edit(t: &[u8], g: &mut Rng) -> Vec<u8> {
    if t.is_empty() {
        return vec![g.next() as u8];
    }
    let i = g.below(t.len());
    let mut m = t.to_vec();
    match g.below(7) {
        // A byte set to an extreme value.
        0 => m[i] = [0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe][g.below(6)],
        // A bit flipped.
        1 => m[i] ^= 1 << g.below(8),
        // Up to 8 bytes deleted.
        2 => {
            let n = 1 + g.below(8);
            m.drain(i..(i + n).min(t.len()));
        }
        // Up to 8 random bytes inserted.
        3 => {
            let n = 1 + g.below(8);
            let bytes: Vec<u8> = (0..n).map(|_| g.next() as u8).collect();
            m.splice(i..i, bytes);
        }
        // A span duplicated.
        4 => {
            let n = 1 + g.below(32);
            let span = t[i..(i + n).min(t.len())].to_vec();
            let at = g.below(t.len());
            m.splice(at..at, span);
        }
        // The file cut short.
        5 => m.truncate(i),
        // Eight bytes (a timestamp, a size) set to all ones.
        _ => {
            for b in m.iter_mut().skip(i).take(8) {
                *b = 0xff;
            }
        }
    }
    m
}

fn copy_archive(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to.join("traces")).unwrap();
    for f in files(from) {
        std::fs::copy(from.join(&f), to.join(&f)).unwrap();
    }
}

/// The error names a file of the mutant's archive (the anchor, definitions, events).
fn names_a_file(e: &Otf2Error, dir: &Path) {
    let dir = dir.display().to_string();
    assert!(
        e.file.starts_with(&dir),
        "the error does not name a file of the archive: {e}"
    );
    assert!(e.to_string().starts_with(&e.file), "{e}");
}

#[test]
fn mutated_otf2_archives_give_errors_not_panics_or_hangs() {
    let start = Instant::now();
    let seeds = ["handwritten", "osu_allreduce", "every_call"].map(|c| root().join("tests/golden/otf2").join(c));
    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose: &first,
        test_cost: 1e-6,
        calls: false,
    };
    let model = LogGops::from_units(simpi_kernel::TimeUnit::Ns, 2500, 1500, 1000, 6, 0, 65535);
    let work = scratch("otf2");
    let mut g = Rng(0x5eed_07f2);
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let (mut total, mut rejected) = (0usize, 0usize);
    let per_seed = scale(4_000).div_ceil(seeds.len());
    for (i, seed) in seeds.iter().enumerate() {
        // The seed itself reads.
        assert!(read_otf2_within(&seed.join("traces.otf2"), &opts, STALL).is_ok());
        let list = files(seed);
        let dir = work.join(format!("seed{i}"));
        copy_archive(seed, &dir);
        for k in 0..per_seed {
            // Events are most of an archive: half the mutants edit an event file.
            let f = if g.below(2) == 0 {
                list[2 + g.below(list.len() - 2)].clone()
            } else {
                list[g.below(list.len())].clone()
            };
            let original = std::fs::read(dir.join(&f)).unwrap();
            let mut m = edit(&original, &mut g);
            for _ in 0..g.below(3) {
                m = edit(&m, &mut g);
            }
            std::fs::write(dir.join(&f), &m).unwrap();
            let anchor = dir.join("traces.otf2");
            // The next mutant starts from the seed again.
            let restore = || std::fs::write(dir.join(&f), &original).unwrap();
            let label = format!("{} with {} mutated (mutant {k})", seed.display(), f.display());
            let t0 = Instant::now();
            let whole = no_panic("the OTF2 reader", label.as_bytes(), || {
                read_otf2_within(&anchor, &opts, STALL)
            });
            total += 1;
            let mut whole = whole;
            let kind = match &mut whole {
                Ok(t) => {
                    // What converts must simulate without a panic (it may stall).
                    let r = no_panic("LogGOPS on a mutant", label.as_bytes(), || {
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
                    names_a_file(e, &dir);
                    if e.msg.contains("crashed") {
                        "library crashed"
                    } else if e.msg.contains("no progress") {
                        "library stuck"
                    } else if e.msg.contains("OTF2 library cannot read") {
                        "library refused"
                    } else {
                        "refused by simpi"
                    }
                }
            };
            *outcomes.entry(kind.to_string()).or_default() += 1;
            // Every fourth mutant also runs live: events read as ranks reach them.
            if k % 4 == 0 {
                no_panic("the live OTF2 replay", label.as_bytes(), || {
                    match open_otf2_within(&anchor, &opts, STALL) {
                        Ok(prog) => {
                            let p = prog.ranks();
                            let (r, mut store) =
                                simpi_mpi::run_loggops_on(Live::new(prog, p, 1, 1), &model, None, false);
                            if let Err(simpi_mpi::Error::Input { file, .. }) = &r {
                                assert!(file.starts_with(&dir.display().to_string()), "{file}");
                            }
                            if r.is_err() {
                                let _ = store.program_mut().check_unread();
                            }
                        }
                        Err(e) => names_a_file(&e, &dir),
                    }
                });
            }
            assert!(
                t0.elapsed() < SLOWEST,
                "{label} took {:?}: the reader hangs",
                t0.elapsed()
            );
            restore();
        }
    }
    eprintln!(
        "{total} OTF2 mutants in {:.1} s: {outcomes:?}",
        start.elapsed().as_secs_f64()
    );
    mutate::bites("OTF2", rejected, total, total / 4);
    let _ = std::fs::remove_dir_all(&work);
}
