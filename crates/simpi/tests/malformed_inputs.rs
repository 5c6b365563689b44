//! Malformed input must give an error, never a panic. Valid inputs from the repository
//! (GOAL schedules, SimGrid TIT traces, XML and TOML platforms, host files) are mutated
//! a few thousand times with a seeded generator (a byte deleted or inserted, lines
//! duplicated, swapped or cut, numbers replaced by extreme or broken ones, names replaced
//! by unknown ones). Each mutant is read, and what reads is simulated; whatever the
//! outcome, nothing may panic, and a rejected file is named in its error.

use simpi::platform::{self, HostId, Mapping};
use simpi::{load, simulate, CollChoice, LoadOptions, LogGops, Model, SimOptions, TimeUnit, Workload};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[path = "../../../tests/support/mutate.rs"]
#[allow(dead_code)] // this file mutates with its own generator; it shares the scratch directories
mod mutate;
use mutate::scratch;

/// xorshift64*: a seeded source of mutations.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const NUMBERS: [&str; 12] = [
    "-1",
    "0",
    "18446744073709551616",
    "1e999",
    "nan",
    "",
    "-",
    "4294967295",
    "99999999999",
    "0.5",
    "-0",
    "1e-320",
];

/// One random edit of `text`.
fn mutate(text: &str, g: &mut Gen) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        return String::new();
    }
    let i = g.below(lines.len());
    match g.below(7) {
        0 => {
            // Delete one byte (at a char boundary).
            let l = &mut lines[i];
            if !l.is_empty() {
                let at = g.below(l.len());
                if l.is_char_boundary(at) && l.is_char_boundary(at + 1) {
                    l.remove(at);
                }
            }
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 => {
            let j = g.below(lines.len());
            lines.swap(i, j);
        }
        3 => lines.truncate(i),
        4 => {
            // Replace a number token.
            let words: Vec<&str> = lines[i].split(' ').collect();
            let numeric: Vec<usize> = (0..words.len())
                .filter(|&k| words[k].bytes().any(|b| b.is_ascii_digit()))
                .collect();
            if !numeric.is_empty() {
                let k = numeric[g.below(numeric.len())];
                let mut w: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                w[k] = NUMBERS[g.below(NUMBERS.len())].to_string();
                lines[i] = w.join(" ");
            }
        }
        5 => {
            // Replace a word with an unknown one.
            let mut w: Vec<String> = lines[i].split(' ').map(str::to_owned).collect();
            let k = g.below(w.len());
            w[k] = "zzunknown".into();
            lines[i] = w.join(" ");
        }
        _ => {
            let l = &mut lines[i];
            let at = g.below(l.len() + 1);
            if l.is_char_boundary(at) {
                let c = b" -0123456789{}[]\"=,.:<>/#@xyz"[g.below(29)] as char;
                l.insert(at, c);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Runs `f` and fails the test with the mutant's text if it panics.
fn no_panic(what: &str, mutant: &str, f: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        panic!("{what} panicked on this input:\n{mutant}");
    }
}

/// Reads `path` (GOAL times in `unit`) with Open MPI's collective selector and hosts
/// of 1 Gflop/s.
fn read(path: &Path, unit: TimeUnit) -> Result<Workload<'static>, String> {
    fn speed(_r: u32) -> f64 {
        1e9
    }
    static OMPI: std::sync::LazyLock<CollChoice> = std::sync::LazyLock::new(|| CollChoice::by_name("ompi").unwrap());
    let opts = LoadOptions {
        format: None,
        unit,
        speed: &speed,
        collectives: &OMPI,
        test_cost: 1e-4,
        calls: false,
        whole: false,
    };
    load(path, &opts).map_err(|e| e.to_string())
}

fn quiet() -> SimOptions<'static> {
    SimOptions {
        progress: None,
        max_blocked_ranks: 8,
        record: false,
    }
}

fn loggops() -> Model<'static> {
    Model::LogGops(LogGops {
        l: 2_500,
        o: 1_500,
        g: 1_000,
        big_g: 6,
        big_o: 0,
        s: 65_536,
    })
}

/// Reads `path` as a workload and, if it reads, simulates it under LogGOPS. Returns the
/// error text, if any.
fn load_and_run(path: &Path) -> Option<String> {
    let mut w = match read(path, TimeUnit::Ns) {
        Ok(w) => w,
        Err(e) => return Some(e),
    };
    simulate(&mut w, &loggops(), quiet()).err().map(|e| e.to_string())
}

/// Reads and runs the mutant at `path` (whose text, `m`, is shown if it panics); an
/// error must name `place`, or be a stall report. True if the mutant was rejected.
fn runs_or_says_where(what: &str, m: &str, path: &Path, place: &str) -> bool {
    let mut rejected = false;
    no_panic(what, m, || {
        if let Some(e) = load_and_run(path) {
            rejected = true;
            assert!(e.contains(place) || e.contains("blocked"), "error without a place: {e}");
        }
    });
    rejected
}

/// Fails unless more than `least` mutants were rejected: mutations that never break
/// anything would test nothing.
fn bites(rejected: u32, least: u32) {
    assert!(
        rejected > least,
        "only {rejected} mutants were rejected: the mutations do not bite"
    );
}

/// `n` mutants of `text` (every third one mutated twice).
fn mutants<'a>(text: &'a str, n: usize, g: &'a mut Gen) -> impl Iterator<Item = String> + 'a {
    (0..n).map(move |k| {
        let m = mutate(text, g);
        if k % 3 == 0 {
            mutate(&m, g)
        } else {
            m
        }
    })
}

#[test]
fn mutated_goal_schedules_give_errors_not_panics() {
    let d = scratch("goal");
    let seeds = [
        root().join("examples/thesis.goal"),
        root().join("tests/golden/smpi/ring-fattree/schedule.goal"),
        root().join("tests/golden/wildcards/schedule.goal"),
    ];
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut rejected = 0;
    for seed in &seeds {
        let text = std::fs::read_to_string(seed).unwrap_or_else(|e| panic!("{}: {e}", seed.display()));
        for m in mutants(&text, 400, &mut g) {
            let p = d.join("m.goal");
            std::fs::write(&p, &m).unwrap();
            rejected += runs_or_says_where("the GOAL reader or the LogGOPS run", &m, &p, "m.goal") as u32;
        }
    }
    bites(rejected, 100);
}

#[test]
fn mutated_tit_traces_give_errors_not_panics() {
    // Mutate one rank file of a recorded NPB IS trace and of an OSU trace at a time.
    let mut g = Gen(0x1234_5678_9abc_def1);
    let mut rejected = 0;
    for case in ["npb_is_S", "osu_alltoall"] {
        let src = root().join("tests/golden/smpi-replay").join(case);
        let d = scratch(case);
        let files = d.join("trace.txt_files");
        std::fs::create_dir_all(&files).unwrap();
        let index = std::fs::read_to_string(src.join("trace.txt")).unwrap();
        let names: Vec<String> = index.lines().map(str::to_owned).collect();
        let texts: Vec<String> = names
            .iter()
            .map(|n| std::fs::read_to_string(src.join(n)).unwrap())
            .collect();
        for n in 0..250 {
            let k = g.below(names.len());
            let mut m = mutate(&texts[k], &mut g);
            if n % 3 == 0 {
                m = mutate(&m, &mut g);
            }
            for (j, name) in names.iter().enumerate() {
                let body = if j == k { &m } else { &texts[j] };
                std::fs::write(d.join(name), body).unwrap();
            }
            // Sometimes the index itself is what is broken.
            let idx = if n % 10 == 0 {
                mutate(&index, &mut g)
            } else {
                index.clone()
            };
            std::fs::write(d.join("trace.txt"), &idx).unwrap();
            let index = d.join("trace.txt");
            rejected += runs_or_says_where("the TIT reader or the LogGOPS run", &m, &index, "trace.txt") as u32;
        }
    }
    bites(rejected, 50);
}

#[test]
fn mutated_platforms_and_host_files_give_errors_not_panics() {
    let d = scratch("platform");
    let toml = "name = \"t\"\n[topology]\nkind = \"torus\"\ndims = [2, 3, 2]\nspeed = \"1Gf\"\n\
                link = { bandwidth = \"125MBps\", latency = \"50us\", sharing = \"split-duplex\" }\n\
                limiter = 1.5\nloopback = { bandwidth = \"10GBps\", latency = \"0us\" }\n";
    let explicit = "routing = \"floyd\"\n[[host]]\nname = \"a\"\nspeed = \"1Gf\"\n[[host]]\nname = \"b\"\n\
                    speed = \"2Gf\"\n[[router]]\nname = \"r\"\n[[link]]\nname = \"l\"\nbandwidth = \"1GBps\"\n\
                    latency = \"10us\"\nsharing = \"split-duplex\"\n[[link]]\nname = \"m\"\n\
                    bandwidth = \"1GBps\"\nlatency = \"10us\"\n[[route]]\nsrc = \"a\"\ndst = \"r\"\n\
                    links = [\"l:up\"]\n[[route]]\nsrc = \"r\"\ndst = \"b\"\nlinks = [\"m\"]\n";
    let mut seeds: Vec<(String, String)> = vec![("p.toml".into(), toml.into()), ("p.toml".into(), explicit.into())];
    for case in [
        "smpi/ring-fattree",
        "smpi/pairwise-torus",
        "smpi/pairwise-cabinets",
        "smpi-replay/npb_is_S",
    ] {
        let p = root().join("tests/golden").join(case).join("platform.xml");
        seeds.push(("p.xml".into(), std::fs::read_to_string(&p).unwrap()));
    }
    for (name, text) in &seeds {
        assert!(
            {
                let p = d.join(name);
                std::fs::write(&p, text).unwrap();
                platform::load(&p).is_ok()
            },
            "seed platform does not load:\n{text}"
        );
    }
    let mut g = Gen(0x0bad_cafe_f00d_d00d);
    let mut rejected = 0;
    for (name, text) in &seeds {
        for m in mutants(text, 300, &mut g) {
            let p = d.join(name);
            std::fs::write(&p, &m).unwrap();
            no_panic(
                "the platform reader, routing or the host file",
                &m,
                || match platform::load(&p) {
                    Err(e) => {
                        rejected += 1;
                        let e = e.to_string();
                        assert!(e.contains(name.as_str()), "error without the file: {e}");
                    }
                    Ok(pl) => {
                        let n = pl.num_hosts();
                        if n > 0 {
                            let (a, b) = (HostId(0), HostId(n as u32 - 1));
                            let _ = pl.route(a, b);
                            let _ = pl.route(b, a);
                        }
                        // A host file naming the first host twice and an unknown one.
                        let hf = d.join("hostfile");
                        let first = pl.hosts().first().map(|h| h.name.clone()).unwrap_or_default();
                        std::fs::write(&hf, format!("{first}:2\n{first}\nnope\n")).unwrap();
                        let _ = Mapping::from_host_file(&pl, &hf, 3);
                        std::fs::write(&hf, format!("{first}:0\n{first}:-1\n\n{first}:x\n")).unwrap();
                        let _ = Mapping::from_host_file(&pl, &hf, 2);
                    }
                },
            );
        }
    }
    bites(rejected, 100);
}

#[test]
fn time_past_the_clocks_end_is_an_error_not_a_wrapped_answer() {
    let d = scratch("clock");
    // One computation longer than 2^64 ps (1e300 flops at 1 Gflop/s): the reader says where.
    let one = d.join("one.txt");
    std::fs::write(&one, "0 init\n0 compute 1e300\n0 finalize\n").unwrap();
    let e = load_and_run(&one).expect("accepted a computation of 1e291 s");
    assert!(e.contains("one.txt:2") && e.contains("213 days"), "{e}");
    // Two of 1e7 s each: each fits, their sum (2e19 ps) does not. LogGOPS keeps
    // LogGOPSim's wrapping arithmetic, so this must be caught before the run.
    let two = d.join("two.txt");
    std::fs::write(&two, "0 init\n0 compute 1e16\n0 compute 1e16\n0 finalize\n").unwrap();
    let e = load_and_run(&two).expect("a wrapped clock was reported as a result");
    assert!(e.contains("two.txt") && e.contains("clock's end"), "{e}");
    // The same under the flow model, which detects it while running.
    let p = platform::load(&root().join("bench/smpi/platforms/flat.xml")).unwrap();
    let mut w = read(&two, TimeUnit::Ns).unwrap();
    let model = Model::Flow {
        platform: &p,
        hosts: vec![HostId(0)],
        preset: simpi::Preset::smpi(),
    };
    let Err(e) = simulate(&mut w, &model, quiet()) else {
        panic!("a saturated clock was reported as a result");
    };
    assert!(e.to_string().contains("clock's end"), "{e}");
    // Two CPUs of 1e19 ps each run side by side: that fits.
    let par = d.join("par.goal");
    std::fs::write(
        &par,
        "num_ranks 1\nrank 0 {\nl1: calc 10000000000000000000\nl2: calc 10000000000000000000 cpu 1\n}\n",
    )
    .unwrap();
    let mut w = read(&par, TimeUnit::Ps).unwrap();
    let out = simulate(&mut w, &loggops(), quiet()).unwrap();
    assert_eq!(out.end_times[0].ps(), 10_000_000_000_000_000_000);
}

#[test]
fn mutated_preset_and_measurement_files_give_errors_not_panics() {
    use simpi::calibrate::{self, measurements};
    use simpi::preset_file;
    // Presets: the bundled one mutated; each that reads also replays a ping on a flat
    // platform (what reads must run).
    let d = scratch("preset");
    let toml = d.join("p.toml");
    std::fs::write(
        &toml,
        "[topology]\nkind = \"flat\"\nhosts = 2\nlink = { bandwidth = \"1GBps\", latency = \"1us\" }\n",
    )
    .unwrap();
    let p = platform::load(&toml).unwrap();
    let ping = d.join("ping.goal");
    std::fs::write(
        &ping,
        "num_ranks 2\nrank 0 { l1: send 70000b to 1 tag 0 }\nrank 1 { l1: recv 70000b from 0 tag 0 }\n",
    )
    .unwrap();
    let text = std::fs::read_to_string(root().join("examples/testbed-100Mbps.preset.toml")).unwrap();
    let mut g = Gen(0x2545_f491_4f6c_dd1d);
    let mut rejected = 0;
    for m in mutants(&text, 600, &mut g) {
        no_panic("the preset reader", &m, || match preset_file::parse(&m, "m.toml") {
            Err(e) => {
                rejected += 1;
                assert!(e.to_string().starts_with("m.toml:"), "error without a place: {e}");
            }
            Ok(f) => {
                let mut w = read(&ping, TimeUnit::Ns).unwrap();
                let model = Model::Flow {
                    platform: &p,
                    hosts: vec![HostId(0), HostId(1)],
                    preset: f.preset,
                };
                let _ = simulate(&mut w, &model, quiet());
            }
        });
    }
    bites(rejected, 100);
    // Measurements: a consistent set (one-way 100 us + 10 ns/B, overheads 5 us, a
    // detached limit at 64 KiB, exchanges, a stream, a kernel) mutated; each that reads
    // is fitted, and a fitted preset must read back from the file it writes.
    let route = calibrate::Route {
        latency: 50e-6,
        bandwidth: 1.25e7,
        shared_cores: Some(2),
    };
    let mut text = String::new();
    for k in 0..=40 {
        let b = 2f64.powf(k as f64 / 2.0).round() as u64;
        for _ in 0..3 {
            text.push_str(&format!(
                "pingpong {b} {:e}\nsend {b} 5e-6\nrecv {b} 5e-6\n",
                1e-4 + 1e-8 * b as f64
            ));
            if b >= 262144 {
                text.push_str(&format!("bidir {b} {:e}\n", 1.1e-4 + 1.1e-8 * b as f64));
            }
        }
    }
    text.push_str("gap 1 2e-6\nflops 0 1e9\nsolo 0 2e9\nspin 7 1e9\ndetached 65536 0\n");
    let mut rejected = 0;
    for m in mutants(&text, 400, &mut g) {
        no_panic(
            "the measurements reader and the fit",
            &m,
            || match measurements::parse(&m, "m.txt") {
                Err(e) => {
                    rejected += 1;
                    assert!(e.to_string().starts_with("m.txt"), "error without a place: {e}");
                }
                Ok(ms) => {
                    if let Ok(c) = calibrate::fit(&ms, route) {
                        let written = preset_file::to_text(&c.file, "fitted");
                        if let Err(e) = preset_file::parse(&written, "fitted.toml") {
                            panic!("a fitted preset does not read back: {e}\n{written}");
                        }
                        let _ = calibrate::report(&c);
                        let _ = calibrate::fit_plot(&c.fits);
                    }
                }
            },
        );
    }
    bites(rejected, 50);
}
