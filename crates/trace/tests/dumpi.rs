//! The DUMPI reader against independent references: sst-dumpi's own `dumpi2ascii`
//! (its text of recorded runs, `tests/golden/dumpi`), `simpi trace`'s TIT traces of the
//! same runs (`simpi trace --chain libdumpi.so`: both tracers record one run), and a
//! closed-form LogGOPS time of a recorded ping-pong; and on mutated
//! files (10,000 mutants, `SIMPI_FUZZ_SCALE` multiplies them), errors naming the file,
//! never a panic.

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
    // (trace directory, its .bin and dumpi2ascii's text of a rank, least number of calls)
    let golden = root().join("tests/golden/dumpi");
    let mut cases = Vec::new();
    for r in [0, 3] {
        let d = golden.join("osu_alltoall");
        cases.push((
            d.join(format!("dumpi/osu_alltoall-{r:04}.bin")),
            d.join(format!("dumpi2ascii/osu_alltoall-{r:04}.txt")),
            90,
        ));
    }
    for r in [0, 1] {
        let d = golden.join("jacobi");
        cases.push((
            d.join(format!("dumpi/jacobi-{r:04}.bin")),
            d.join(format!("dumpi2ascii/jacobi-{r:04}.txt")),
            34,
        ));
        let d = golden.join("pingpong");
        cases.push((
            d.join(format!("pingpong-{r:04}.bin")),
            d.join(format!("pingpong-{r:04}.txt")),
            5,
        ));
    }
    for (bin, txt, least) in cases {
        let printed = parse_ascii(&std::fs::read_to_string(&txt).unwrap());
        let decoded: Vec<DumpiCall> = dumpi_calls(&bin).unwrap();
        assert!(printed.len() >= least, "{}: {}", txt.display(), printed.len());
        assert_eq!(decoded.len(), printed.len(), "{}: number of calls", bin.display());
        for (d, p) in decoded.iter().zip(&printed) {
            let at = format!("{}, record at byte {}", bin.display(), d.offset);
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
    // With computation made free (hosts of 1e30 flop/s), what is left is the calls, and
    // those replay alike.
    let speed = |_r: u32| 1e30;
    let opts = TitOptions {
        speed: &speed,
        choose: &first,
        test_cost: 0.0,
        calls: false,
    };
    for (meta, index, ranks) in [
        (case().join("dumpi/osu_alltoall.meta"), case().join("tit/index.txt"), 4),
        (
            allreduce().join("dumpi/osu_allreduce.meta"),
            allreduce().join("tit/index.txt"),
            4,
        ),
        (jacobi().join("dumpi/jacobi.meta"), jacobi().join("tit/index.txt"), 2),
    ] {
        let d = read_dumpi(&meta, &opts).unwrap();
        let t = read_tit(&index, &opts).unwrap();
        let (de, te) = (loggops_ends(d.schedule), loggops_ends(t.schedule));
        assert_eq!(de.len(), ranks);
        assert_eq!(de, te, "{}", meta.display());
    }
}

fn jacobi() -> PathBuf {
    root().join("tests/golden/dumpi/jacobi")
}

fn allreduce() -> PathBuf {
    root().join("tests/golden/dumpi/osu_allreduce")
}

#[test]
fn dumpi_and_tit_traces_of_one_run_replay_within_one_percent() {
    // Each case is ONE run recorded by both tracers (bench/dumpi/record_chain.sh: simpi's
    // tracer chained to libdumpi), so both see the same computation; what separates them
    // is libdumpi's own time per call (2 to 4 us, inside simpi's call, between DUMPI's).
    // bench/dumpi/jacobi.c: 2 ranks, 10 steps of about 1.1 ms; OSU alltoall (16 KiB) and
    // allreduce (64 KiB) on 4 ranks, 20 iterations.
    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose: &first,
        test_cost: 0.0,
        calls: false,
    };
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (dir, name, bound) in [
        (jacobi(), "jacobi", 0.01),
        (allreduce(), "osu_allreduce", 0.01),
        // Holds for this recording (the first of three), not for every one: under LogGOPS
        // the 16 KiB blocks take 98 us at the NICs and queue in the order the ranks
        // arrive, so microseconds of difference reorder them. The other two same-run
        // recordings differed by 2.0 and 3.7 % (bench/dumpi/README.md).
        (case(), "osu_alltoall", 0.01),
    ] {
        let meta = dir.join(format!("dumpi/{name}.meta"));
        let d = loggops_ends(read_dumpi(&meta, &opts).unwrap().schedule);
        let t = loggops_ends(read_tit(&dir.join("tit/index.txt"), &opts).unwrap().schedule);
        let (dm, tm) = (*d.iter().max().unwrap() as f64, *t.iter().max().unwrap() as f64);
        // At least 5 ms, at most 50 ms.
        assert!(dm > 5e9 && dm < 5e10, "{name}: {dm}");
        let diff = (dm - tm).abs() / tm;
        report.push(format!("{name}: dumpi {dm} ps, tit {tm} ps, {:.3} %", 100.0 * diff));
        if diff >= bound {
            failures.push(report.last().unwrap().clone());
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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

/// Wall-clock gaps (ns) between the calls simpi models (MPI_Comm_rank is local), from
/// `dumpi2ascii`'s text of one rank: after MPI_Init, between the two messages, before
/// MPI_Finalize.
fn pingpong_gaps(r: u32) -> [u64; 3] {
    let dir = root().join("tests/golden/dumpi/pingpong");
    let text = std::fs::read_to_string(dir.join(format!("pingpong-{r:04}.txt"))).unwrap();
    let calls: Vec<Printed> = parse_ascii(&text)
        .into_iter()
        .filter(|p| p.name != "MPI_Comm_rank")
        .collect();
    let names: Vec<&str> = calls.iter().map(|p| p.name.as_str()).collect();
    let expected = if r == 0 {
        ["MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Finalize"]
    } else {
        ["MPI_Init", "MPI_Recv", "MPI_Send", "MPI_Finalize"]
    };
    assert_eq!(names, expected);
    let gap = |k: usize| calls[k + 1].wall.0 - calls[k].wall.1;
    let gaps = [gap(0), gap(1), gap(2)];
    // Every gap is at least MIN_COMPUTE (1 us), so each is a computation of its own.
    assert!(gaps.iter().all(|&g| g >= 1000), "{gaps:?}");
    gaps
}

#[test]
fn a_recorded_ping_pong_replays_in_closed_form() {
    // Rank 0 computes c0, sends 8 bytes, computes a0, receives 8 bytes, computes f0;
    // rank 1 computes c1, receives, computes b1, sends back, computes f1 (computation at
    // the reference 1e9 flop/s on 1e9 flop/s hosts: measured nanoseconds as they are).
    // LogGOPS (docs/models.md) with L=2500 o=1500 g=1000 G=6 O=0 ns, b = 8 - 1 bytes:
    //   T1 = max(c0 + o + L, c1)            the ping is received on rank 1
    //   S1 = T1 + o + b*G + b1              the pong is sent
    //   end1 = S1 + o + f1
    //   T0 = max(S1 + o + L, c0 + o + a0)   the pong is received on rank 0
    //   end0 = T0 + o + b*G + f0
    let [c0, a0, f0] = pingpong_gaps(0);
    let [c1, b1, f1] = pingpong_gaps(1);
    let (l, o, g) = (2500u64, 1500u64, 6 * 7u64);
    let t1 = (c0 + o + l).max(c1);
    let s1 = t1 + o + g + b1;
    let end1 = s1 + o + f1;
    let t0 = (s1 + o + l).max(c0 + o + a0);
    let end0 = t0 + o + g + f0;
    // This recording: 19,649 + 8,423 + 1,943 ns on rank 0, 20,601 + 5,408 + 2,103 on rank 1.
    assert_eq!((end0, end1), (38_084, 34_202));

    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose: &first,
        test_cost: 0.0,
        calls: false,
    };
    let meta = root().join("tests/golden/dumpi/pingpong/pingpong.meta");
    let whole = loggops_ends(read_dumpi(&meta, &opts).unwrap().schedule);
    assert_eq!(whole, vec![end0 * 1000, end1 * 1000]);
    let model = LogGops::from_units(simpi_kernel::TimeUnit::Ns, 2500, 1500, 1000, 6, 0, 65535);
    let prog = open_dumpi(&meta, &opts).unwrap();
    let (r, _) = simpi_mpi::run_loggops_on(Live::new(prog, 2, 1, 1), &model, None, false);
    let live: Vec<u64> = r.expect("replays").end_times.iter().map(|t| t.ps()).collect();
    assert_eq!(live, whole);
}
