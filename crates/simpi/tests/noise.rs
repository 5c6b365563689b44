//! OS noise and Monte Carlo replications under the LogGOPS rules.
//!
//! Golden cases under `tests/golden/noise/<case>/` hold a schedule, a noise trace
//! (`noise.txt`), LogGOPS flags (`args`), each rank's offset into the trace in whole
//! time units (`offsets.txt`) and the expected end times (`expected.txt`: `Host <i>: <t>`
//! lines, `max <t>` for the latest only, or `stall`). `hand-*` cases are derived by
//! hand in their schedule's comments; `lgs-*` cases are LogGOPSim's own output with the
//! offsets it drew (`bench/noise/golden.sh`). `SIMPI_NOISE_GOLDEN=DIR` adds the cases
//! under DIR (`bench/noise/compare_loggopsim.sh` checks larger ones that way).

mod common;

use simpi::montecarlo::{read_noise, replicate, simulate_noisy, Noise, Replications};
use simpi::mpi::noise::{HostNoise, NoiseTrace, Placement};
use simpi::{load, replay_goal, simulate, CollChoice, Error, LogGops, Model, Pattern, PatternParams};
use simpi::{ReplayOptions, SimTime, TimeUnit, Workload};
use std::path::{Path, PathBuf};

fn golden(set: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden")
        .join(set)
}

fn cases_in(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.txt").exists())
        .collect();
    v.sort();
    v
}

/// LogGOPS flags as LogGOPSim takes them (its defaults for the rest), in ns.
fn params(args: &str) -> LogGops {
    let mut v = [2500u64, 1500, 1000, 6, 0, 65535];
    let toks: Vec<&str> = args.split_whitespace().collect();
    for pair in toks.chunks(2) {
        let i = ["-L", "-o", "-g", "-G", "-O", "-S"]
            .iter()
            .position(|f| *f == pair[0])
            .unwrap_or_else(|| panic!("unknown argument {}", pair[0]));
        v[i] = pair[1].parse().unwrap();
    }
    LogGops::from_units(TimeUnit::Ns, v[0], v[1], v[2], v[3], v[4], v[5])
}

fn run_case(dir: &Path) -> Result<(), String> {
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).map_err(|e| format!("{}/{f}: {e}", dir.display()));
    let model = params(&read("args")?);
    let trace = read_noise(&dir.join("noise.txt"), TimeUnit::Ns).map_err(|e| e.to_string())?;
    // Offsets in whole ns, as LogGOPSim draws them.
    let offsets: Vec<u64> = read("offsets.txt")?
        .lines()
        .map(|l| l.trim().parse::<u64>().unwrap() * 1000)
        .collect();
    let noise = HostNoise::with_offsets(&trace, offsets);
    let result = replay_goal(
        &dir.join("schedule.goal"),
        ReplayOptions {
            unit: TimeUnit::Ns,
            model: Model::NoisyLogGops {
                params: model,
                noise: &noise,
            },
            progress: None,
            max_blocked_ranks: 5,
        },
    );
    let expected = read("expected.txt")?;
    let got = match result {
        Err(Error::Stall(_)) => "stall".to_string(),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
        Ok(r) if expected.starts_with("max ") => format!("max {}", r.makespan().ps() as f64 / 1000.0),
        Ok(r) => {
            let mut out = Vec::new();
            r.write_loggopsim(&mut out, TimeUnit::Ns).unwrap();
            String::from_utf8(out).unwrap()
        }
    };
    if got.trim() != expected.trim() {
        return Err(format!(
            "{}: end times differ\n--- expected\n{}\n--- got\n{}",
            dir.display(),
            expected.trim(),
            got.trim()
        ));
    }
    Ok(())
}

#[test]
fn noisy_end_times_by_hand_and_from_loggopsim() {
    let mut cases = cases_in(&golden("noise"));
    assert!(cases.iter().any(|c| c.ends_with("hand-two-ranks")), "{cases:?}");
    assert!(cases.len() >= 11, "noise cases missing: {cases:?}");
    if let Some(extra) = std::env::var_os("SIMPI_NOISE_GOLDEN") {
        cases.extend(cases_in(Path::new(&extra)));
    }
    let failures: Vec<String> = cases.iter().filter_map(|d| run_case(d).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// The trace of the placement tests: one detour, 500..600 ns, period 1000 ns.
fn one_detour() -> NoiseTrace {
    NoiseTrace::new(&[(0, 0), (500_000, 100_000), (1_000_000, 0)]).unwrap()
}

/// `ranks` ranks that each compute 200 ns from 0, nothing else, as a GOAL file.
fn computes(ranks: u32) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("simpi-noise-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("computes-{ranks}.goal"));
    let mut text = format!("num_ranks {ranks}\n");
    for r in 0..ranks {
        text += &format!("rank {r} {{\nc: calc 200\n}}\n");
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn ends(path: &Path, noise: &HostNoise<'_>) -> Vec<u64> {
    let model = Model::NoisyLogGops {
        params: LogGops::loggopsim_defaults(TimeUnit::Ns),
        noise,
    };
    let opts = ReplayOptions {
        unit: TimeUnit::Ns,
        model,
        progress: None,
        max_blocked_ranks: 5,
    };
    replay_goal(path, opts)
        .unwrap()
        .end_times
        .iter()
        .map(|t| t.ps())
        .collect()
}

/// A 200 ns computation on a rank with offset `off` ns, by hand: placed at
/// x = off mod 800 in the trace, it meets the detour at 500 whole if 300 < x < 500, is
/// inside it with 600 - x left if 500 <= x < 600, and misses it otherwise.
fn by_hand(off_ns: u64) -> u64 {
    let x = off_ns % 800;
    200 + match x {
        301..=499 => 100,
        500..=599 => 600 - x,
        _ => 0,
    }
}

#[test]
fn independent_and_cosched_offsets_by_hand() {
    let trace = one_detour();
    let ranks = 4096;
    let path = computes(ranks);
    let noise = HostNoise::draw(&trace, ranks, Placement::Independent, 1000, 42, 0);
    let got = ends(&path, &noise);
    let mut hit = 0;
    for (r, (&end, &off)) in got.iter().zip(noise.offsets()).enumerate() {
        assert_eq!(off % 1000, 0, "offsets are whole ns");
        assert!(off < 1_000_000);
        assert_eq!(end, by_hand(off / 1000) * 1000, "rank {r}, offset {off} ps");
        hit += (end > 200_000) as u32;
    }
    // An offset uniform over 0..1000 ns hits the detour when it is in 301..600: 299 of
    // 1000 values; 4096 ranks: 1225 expected, standard deviation 29.
    assert!((1080..1370).contains(&hit), "{hit} ranks met the detour");
    // Co-scheduled: every rank has the one offset, so the one end time.
    for replication in 0..20 {
        let noise = HostNoise::draw(&trace, 64, Placement::Cosched, 1000, 42, replication);
        let got = ends(&computes(64), &noise);
        let off = noise.offsets()[0];
        assert!(got.iter().all(|&e| e == by_hand(off / 1000) * 1000), "{got:?}");
    }
}

#[test]
fn zero_length_detours_change_nothing() {
    // A trace whose detours take no time: every rank's end is the noiseless one.
    let trace = NoiseTrace::new(&[(5_000, 0), (70_000, 0), (900_000, 0)]).unwrap();
    for case in [
        "rd-allreduce-33-100000",
        "binomial-bcast-17-8",
        "linear-alltoall-17-100000",
    ] {
        let path = golden("loggopsim").join(case).join("schedule.goal");
        let plain = replay_goal(
            &path,
            ReplayOptions {
                unit: TimeUnit::Ns,
                model: Model::LogGops(LogGops::loggopsim_defaults(TimeUnit::Ns)),
                progress: None,
                max_blocked_ranks: 5,
            },
        )
        .unwrap();
        let noise = HostNoise::draw(&trace, plain.end_times.len() as u32, Placement::Independent, 1, 3, 0);
        assert_eq!(
            ends(&path, &noise),
            plain.end_times.iter().map(|t| t.ps()).collect::<Vec<_>>(),
            "{case}"
        );
    }
}

fn workload(path: &Path) -> Workload<'static> {
    static SPEED: fn(u32) -> f64 = |_| 1e9;
    let coll: &'static CollChoice = Box::leak(Box::new(CollChoice::by_name("ompi").unwrap()));
    load(path, &common::load_options(&SPEED, coll, 0.0, false)).unwrap()
}

fn synthetic(dir: &Path) -> PathBuf {
    // 2.5 us every 100 us, 1 s of it.
    let path = dir.join("synthetic.txt");
    let text: String = (0..=10_000).map(|i| format!("{} 2500\n", i * 100_000)).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn run(w: &Workload<'_>, trace: &NoiseTrace, seed: u64, n: u32, threads: usize) -> Replications {
    let noise = Noise {
        trace,
        placement: Placement::Independent,
        seed,
    };
    replicate(w, LogGops::loggopsim_defaults(TimeUnit::Ns), &noise, n, threads, 5).unwrap()
}

#[test]
fn replications_depend_on_the_seed_alone() {
    let path = golden("loggopsim").join("rd-allreduce-33-8").join("schedule.goal");
    let w = workload(&path);
    let dir = std::env::temp_dir().join(format!("simpi-noise-seed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = read_noise(&synthetic(&dir), TimeUnit::Ns).unwrap();
    let one = run(&w, &trace, 7, 24, 1);
    for threads in [2, 3, 8] {
        assert_eq!(
            run(&w, &trace, 7, 24, threads).makespans,
            one.makespans,
            "{threads} threads"
        );
    }
    assert_eq!(run(&w, &trace, 7, 24, 2).makespans, one.makespans, "again");
    assert_ne!(run(&w, &trace, 8, 24, 2).makespans, one.makespans, "another seed");
    // Replication i is the single run with the offsets of (seed, i).
    let noise = Noise {
        trace: &trace,
        placement: Placement::Independent,
        seed: 7,
    };
    for i in [0u64, 5, 23] {
        let mut w = workload(&path);
        let r = simulate_noisy(
            &mut w,
            LogGops::loggopsim_defaults(TimeUnit::Ns),
            &noise,
            i,
            common::quiet(),
        )
        .unwrap();
        assert_eq!(r.makespan(), one.makespans[i as usize], "replication {i}");
    }
    // Noise changes the run. (Not always for the worse: a detour can break up
    // contention for a NIC or a CPU; here LogGOPSim too ends some runs at 71688 ns,
    // below the noiseless 76230 ns.)
    let mut w0 = workload(&path);
    let model = Model::LogGops(LogGops::loggopsim_defaults(TimeUnit::Ns));
    let quiet = simulate(&mut w0, &model, common::quiet()).unwrap().makespan();
    assert_eq!(quiet, SimTime(76_230_000));
    assert!(one.makespans.iter().any(|&m| m != quiet), "no replication met a detour");
    let s = one.stats().unwrap();
    assert!(s.min as f64 <= s.ci95.0 && s.ci95.0 <= s.mean && s.mean <= s.ci95.1 && s.ci95.1 <= s.max as f64);
    let mut json = Vec::new();
    one.write_json(&mut json).unwrap();
    let json = String::from_utf8(json).unwrap();
    assert!(
        json.starts_with("{\"replications\": 24, \"seed\": 7, \"draws\": \"noise\", \"placement\": \"independent\""),
        "{json}"
    );
    assert!(json.contains(&format!("\"makespan_min_ps\": {}", s.min)), "{json}");
}

#[test]
fn patterns_in_the_process_get_the_noise_of_their_goal_files() {
    let dir = std::env::temp_dir().join(format!("simpi-noise-pattern-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = read_noise(&synthetic(&dir), TimeUnit::Ns).unwrap();
    for (pattern, ranks) in [
        (Pattern::RecursiveDoublingAllreduce, 64),
        (Pattern::Stencil3d, 27),
        (Pattern::BinomialBcast, 40),
    ] {
        let params = PatternParams {
            ranks,
            bytes: 8,
            iterations: 3,
            compute: 20_000,
            periodic: false,
        };
        let file = dir.join(format!("{}.goal", pattern.name()));
        simpi_trace::schedgen::generate(pattern, &params, std::fs::File::create(&file).unwrap()).unwrap();
        let from_file = run(&workload(&file), &trace, 3, 6, 2);
        let live = Workload::pattern(pattern, params, TimeUnit::Ns).unwrap();
        assert_eq!(
            run(&live, &trace, 3, 6, 2).makespans,
            from_file.makespans,
            "{}",
            pattern.name()
        );
        assert!(from_file.makespans.iter().all(|&m| m > SimTime::ZERO));
    }
}

#[test]
fn mutated_noise_traces_replay_or_say_where() {
    // The malformed-input treatment of the facade (the reader alone is mutated harder in
    // crates/trace/tests/malformed_noise.rs): every mutant of the hand case's trace is
    // read and, if it reads, replayed with two replications; nothing may panic, and an
    // error about the trace names it.
    let case = golden("noise").join("hand-two-ranks");
    let text = std::fs::read_to_string(case.join("noise.txt")).unwrap();
    let dir = std::env::temp_dir().join(format!("simpi-noise-mutants-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("noise.txt");
    let w = workload(&case.join("schedule.goal"));
    let mut g = 0x5eed_00a1u64;
    let mut next = |n: usize| {
        g = g.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((g >> 33) % n as u64) as usize
    };
    let (mut rejected, mut overflowed) = (0, 0);
    let numbers = [
        "-1",
        "1e30",
        "18446744073709551",
        "18446744073709551615",
        "0",
        "x",
        "",
        "3 4",
        "\n",
        "#",
    ];
    for _ in 0..300 {
        // Replace a random field (or a whole line) with something odd, or swap two lines.
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        let l = next(lines.len());
        match next(3) {
            0 => {
                let other = next(lines.len());
                lines.swap(l, other)
            }
            1 => lines[l] = numbers[next(numbers.len())].to_string(),
            _ => {
                let mut f: Vec<String> = lines[l].split_whitespace().map(String::from).collect();
                if !f.is_empty() {
                    let i = next(f.len());
                    f[i] = numbers[next(numbers.len())].to_string();
                }
                lines[l] = f.join(" ");
            }
        }
        std::fs::write(&path, lines.join("\n")).unwrap();
        let trace = match read_noise(&path, TimeUnit::Ns) {
            Ok(t) => t,
            Err(e) => {
                rejected += 1;
                assert!(e.to_string().starts_with(&path.display().to_string()), "{e}");
                continue;
            }
        };
        let noise = Noise {
            trace: &trace,
            placement: Placement::Independent,
            seed: next(100) as u64,
        };
        match replicate(&w, params("-L 100 -o 10 -g 5 -G 0 -O 0"), &noise, 2, 2, 5) {
            Ok(r) => assert_eq!(r.makespans.len(), 2),
            // Detours of 10^30 ns do not fit the clock: the run says so.
            Err(e) => {
                overflowed += 1;
                assert!(e.to_string().contains("clock"), "{e}");
            }
        }
    }
    assert!(rejected > 50, "only {rejected} of 300 mutants were refused");
    assert!(overflowed > 0, "no mutant overflowed the clock");
}
