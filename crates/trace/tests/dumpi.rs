//! The DUMPI reader against independent references: sst-dumpi's own `dumpi2ascii`
//! (its text of ranks 0 and 7 of a recorded OSU alltoall, `tests/golden/dumpi`), and
//! `simpi trace`'s TIT trace of the same program; and on mutated files (10,000 mutants,
//! `SIMPI_FUZZ_SCALE` multiplies them), errors naming the file, never a panic.

use simpi_mpi::coll::{registry, Algorithm, CollSpec};
use simpi_mpi::engine::ScheduleStore;
use simpi_mpi::live::Live;
use simpi_net::LogGops;
use simpi_trace::dumpi::{dumpi_calls, open_dumpi, read_dumpi, DumpiCall};
use simpi_trace::tit::{read_tit, TitOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[path = "../../../tests/support/mutate.rs"]
#[allow(dead_code)] // the text edits are for text formats
mod mutate;
use mutate::{no_panic, root, scale, scratch, Rng};

fn first(s: &CollSpec) -> &'static Algorithm {
    registry().into_iter().find(|a| a.coll == s.coll).expect("an algorithm")
}

fn case() -> PathBuf {
    root().join("tests/golden/dumpi/osu_alltoall")
}

/// `S.NNNNNNNNN` seconds as nanoseconds, exactly.
fn ns(t: &str) -> u64 {
    let (s, f) = t.split_once('.').expect("a decimal time");
    assert_eq!(f.len(), 9, "{t}");
    s.parse::<u64>().unwrap() * 1_000_000_000 + f.parse::<u64>().unwrap()
}

/// One call as `dumpi2ascii` prints it.
#[derive(Debug, Default)]
struct Printed {
    name: String,
    wall: (u64, u64),
    cpu: (u64, u64),
    thread: u16,
    /// Scalar arguments (`int count=1`, `MPI_Comm comm=2 (MPI_COMM_WORLD)`,
    /// `MPI_Request request=[2]`), in printed order.
    ints: Vec<i64>,
}

fn parse_ascii(text: &str) -> Vec<Printed> {
    let mut out = Vec::new();
    let mut cur: Option<Printed> = None;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 11 && (words[1] == "entering" || words[1] == "returning") {
            let wall = ns(words[4].trim_end_matches(','));
            let cpu = ns(words[6]);
            let thread: u16 = words[10].trim_end_matches('.').parse().unwrap();
            if words[1] == "entering" {
                cur = Some(Printed {
                    name: words[0].to_string(),
                    wall: (wall, 0),
                    cpu: (cpu, 0),
                    thread,
                    ints: Vec::new(),
                });
            } else {
                let mut p = cur.take().expect("a call returns after it enters");
                assert_eq!(p.name, words[0]);
                p.wall.1 = wall;
                p.cpu.1 = cpu;
                out.push(p);
            }
        } else if let Some(p) = cur.as_mut() {
            // `type name=value`: scalars only (statuses, strings and arrays are left out).
            let Some((_, value)) = line.split_once('=') else {
                continue;
            };
            if line.starts_with("MPI_Status") || line.starts_with("string") || value.contains(',') {
                continue;
            }
            let v = value.trim_start_matches('[').split([']', ' ']).next().unwrap();
            if let Ok(v) = v.parse::<i64>() {
                p.ints.push(v);
            }
        }
    }
    out
}

#[test]
fn decoded_calls_are_dumpi2ascii_s() {
    for r in [0, 7] {
        let bin = case().join(format!("dumpi/osu_alltoall-{r:04}.bin"));
        let text = std::fs::read_to_string(case().join(format!("dumpi2ascii/osu_alltoall-{r:04}.txt"))).unwrap();
        let printed = parse_ascii(&text);
        let decoded: Vec<DumpiCall> = dumpi_calls(&bin).unwrap();
        assert!(printed.len() > 300, "{}", printed.len());
        assert_eq!(decoded.len(), printed.len(), "rank {r}: number of calls");
        for (d, p) in decoded.iter().zip(&printed) {
            let at = format!("rank {r}, record at byte {}", d.offset);
            assert_eq!(d.name, p.name, "{at}");
            assert_eq!(d.wall, Some(p.wall), "{at}");
            assert_eq!(d.cpu, Some(p.cpu), "{at}");
            assert_eq!(d.thread, Some(p.thread), "{at}");
            assert_eq!(d.ints, p.ints, "{at}: {}", d.name);
        }
    }
}

/// End times of a whole schedule under LogGOPS.
fn loggops_ends(mut s: simpi_mpi::Schedule) -> Vec<u64> {
    let model = LogGops::from_units(simpi_kernel::TimeUnit::Ns, 2500, 1500, 1000, 6, 0, 65535);
    let (r, _) = simpi_mpi::run_loggops_on(ScheduleStore::new(&mut s), &model, None, false);
    r.expect("replays").end_times.iter().map(|t| t.ps()).collect()
}

#[test]
fn dumpi_and_tit_traces_of_one_program_communicate_alike() {
    // The two traces are separate runs: their measured computation differs. With
    // computation made free (hosts of 1e30 flop/s), what is left is the calls.
    let speed = |_r: u32| 1e30;
    let opts = TitOptions {
        speed: &speed,
        choose: &first,
        test_cost: 0.0,
        calls: false,
    };
    let d = read_dumpi(&case().join("dumpi/osu_alltoall.meta"), &opts).unwrap();
    let t = read_tit(&case().join("tit/index.txt"), &opts).unwrap();
    let (de, te) = (loggops_ends(d.schedule), loggops_ends(t.schedule));
    assert_eq!(de.len(), 8);
    assert_eq!(de, te);
    // With the measured computation, both run; the DUMPI run measured more of it (its
    // end times are later), within a factor of three on this recording.
    let speed = |_r: u32| 1e9;
    let opts = TitOptions { speed: &speed, ..opts };
    let d = loggops_ends(
        read_dumpi(&case().join("dumpi/osu_alltoall.meta"), &opts)
            .unwrap()
            .schedule,
    );
    let t = loggops_ends(read_tit(&case().join("tit/index.txt"), &opts).unwrap().schedule);
    let (dm, tm) = (*d.iter().max().unwrap(), *t.iter().max().unwrap());
    assert!(dm > tm && dm < 3 * tm, "{dm} {tm}");
}

#[test]
fn a_rank_file_opens_the_whole_trace() {
    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose: &first,
        test_cost: 1e-6,
        calls: false,
    };
    let by_meta = loggops_ends(
        read_dumpi(&case().join("dumpi/osu_alltoall.meta"), &opts)
            .unwrap()
            .schedule,
    );
    let by_bin = loggops_ends(
        read_dumpi(&case().join("dumpi/osu_alltoall-0003.bin"), &opts)
            .unwrap()
            .schedule,
    );
    assert_eq!(by_meta, by_bin);
}

/// One random binary edit of `t`.
fn edit(t: &[u8], g: &mut Rng) -> Vec<u8> {
    if t.is_empty() {
        return vec![g.next() as u8];
    }
    let i = g.below(t.len());
    let mut m = t.to_vec();
    match g.below(7) {
        0 => m[i] = [0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe][g.below(6)],
        1 => m[i] ^= 1 << g.below(8),
        2 => {
            let n = 1 + g.below(8);
            m.drain(i..(i + n).min(t.len()));
        }
        3 => {
            let n = 1 + g.below(8);
            let bytes: Vec<u8> = (0..n).map(|_| g.next() as u8).collect();
            m.splice(i..i, bytes);
        }
        4 => {
            let n = 1 + g.below(32);
            let span = t[i..(i + n).min(t.len())].to_vec();
            let at = g.below(t.len());
            m.splice(at..at, span);
        }
        5 => m.truncate(i),
        _ => {
            for b in m.iter_mut().skip(i).take(8) {
                *b = 0xff;
            }
        }
    }
    m
}

#[test]
fn mutated_dumpi_traces_give_errors_not_panics() {
    let seed = case().join("dumpi");
    let dir = scratch("dumpi");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&seed)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    for n in &names {
        std::fs::copy(seed.join(n), dir.join(n)).unwrap();
    }
    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose: &first,
        test_cost: 1e-6,
        calls: false,
    };
    let model = LogGops::from_units(simpi_kernel::TimeUnit::Ns, 2500, 1500, 1000, 6, 0, 65535);
    let meta = dir.join("osu_alltoall.meta");
    let shown = dir.display().to_string();
    let mut g = Rng(0xd0_5eed);
    let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
    let total = scale(10_000);
    for k in 0..total {
        let f = &names[g.below(names.len())];
        let path: &Path = &dir.join(f);
        let original = std::fs::read(path).unwrap();
        let mut m = edit(&original, &mut g);
        for _ in 0..g.below(3) {
            m = edit(&m, &mut g);
        }
        std::fs::write(path, &m).unwrap();
        let label = format!("{f} mutated (mutant {k})");
        let kind = no_panic("the DUMPI reader", label.as_bytes(), || {
            match read_dumpi(&meta, &opts) {
                Ok(mut t) => {
                    let r = simpi_mpi::run_loggops_on(ScheduleStore::new(&mut t.schedule), &model, None, false).0;
                    if r.is_ok() {
                        "replays"
                    } else {
                        "converts, cannot complete"
                    }
                }
                Err(e) => {
                    assert!(e.0.starts_with(&shown), "the error does not name a file: {e}");
                    "refused"
                }
            }
        });
        *outcomes.entry(kind).or_default() += 1;
        if k % 4 == 0 {
            no_panic("the live DUMPI replay", label.as_bytes(), || {
                if let Ok(prog) = open_dumpi(&meta, &opts) {
                    let p = prog.ranks();
                    let (r, mut store) = simpi_mpi::run_loggops_on(Live::new(prog, p, 1, 1), &model, None, false);
                    if let Err(simpi_mpi::Error::Input { file, .. }) = &r {
                        assert!(file.starts_with(&shown), "{file}");
                    }
                    if r.is_err() {
                        let _ = store.program_mut().check_unread();
                    }
                }
            });
        }
        std::fs::write(path, &original).unwrap();
    }
    eprintln!("{total} mutants: {outcomes:?}");
    assert!(
        outcomes.get("refused").copied().unwrap_or(0) > total / 10,
        "{outcomes:?}"
    );
}
