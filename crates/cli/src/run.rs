//! `simpi run`: runs a real MPI program, built with `simpicc`, on a simulated cluster
//! (on-line simulation), and reports the simulated time.

use crate::{EXIT_INPUT, EXIT_STALL, EXIT_USAGE};
use clap::Args;
use simpi::online::{self, Compute, RunOptions};
use simpi::settings::{ModelName, Naming, PresetName, ReplaySettings, Setting, Syntax};
use simpi::setup::Machine;
use simpi::Error;
use simpi::SimTime;
use std::ffi::OsString;
use std::path::PathBuf;

#[derive(Args)]
#[command(
    after_help = "Without --platform the machine is a flat cluster of one host per rank: \
1 Gflop/s hosts, 1.25 GB/s links of 1 us latency, a 10 GB/s backbone, under SMPI's \
hybrid model and preset.\n\nThe program must be built with simpicc (target/release/simpicc). \
`simpi run -np 4 ./app` and `simpi run -n 4 ./app` (mpiexec's form) both work; the ranks' \
output goes to this terminal, simpi's summary to standard error."
)]
pub struct RunArgs {
    /// Ranks to start (`-np N` is accepted too).
    #[arg(short = 'n', long = "np", value_parser = clap::value_parser!(u32).range(1..))]
    np: u32,
    /// Platform file (.toml, or SimGrid .xml) [default: a flat cluster, see below].
    #[arg(long)]
    platform: Option<PathBuf>,
    /// Host file: rank r runs on the host named on line r.
    #[arg(long)]
    hostfile: Option<PathBuf>,
    /// The network model: hybrid, flow, packet or constant [default: hybrid].
    #[arg(long, value_parser = ["hybrid", "flow", "packet", "constant"])]
    model: Option<String>,
    /// Constant model: the time every message takes, e.g. `10us` [default: 1s, as
    /// SimGrid's].
    #[arg(long, value_parser = simpi::values::duration)]
    constant_time: Option<SimTime>,
    /// Packet model: the preset, generic, ib or dragonfly [default: generic] (see
    /// `simpi replay --help`).
    #[arg(long, value_parser = simpi::values::packet_preset)]
    packet_preset: Option<String>,
    /// Packet model: minimal, on a dragonfly valiant or ugal, on a fat tree, torus or
    /// dragonfly adaptive [default: minimal].
    #[arg(long, value_parser = simpi::values::routing)]
    routing: Option<simpi::Routing>,
    /// Packet model: the seed of the random detours of valiant, ugal and adaptive on a
    /// dragonfly [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// The hybrid model's parameters: smpi, plain, or a preset file [default: smpi].
    #[arg(long, value_name = "smpi|plain|FILE", value_parser = simpi::settings::PresetName::parse)]
    preset: Option<PresetName>,
    /// Use this algorithm for a collective, e.g. `--coll bcast=binomial` (repeatable).
    #[arg(long = "coll", value_name = "OP=ALGO")]
    coll: Vec<String>,
    /// Whose decision rules pick collective algorithms: ompi, mpich or first.
    #[arg(long, default_value = "ompi", value_parser = ["ompi", "mpich", "first"])]
    coll_selector: String,
    /// What CPU time between MPI calls counts for: none (only the network and the calls
    /// take time), measure (the process's CPU time, times --compute-scale), record FILE
    /// (measure, and write each call's computation to FILE) or replay FILE (take it
    /// from FILE: the recorded run's simulated times, bit for bit).
    #[arg(long, default_value = "measure", value_name = "HOW")]
    compute: String,
    /// With --compute measure: how much slower the simulated host is than this
    /// machine's core (2: a burst of 1 ms here takes 2 ms there).
    #[arg(long, default_value_t = 1.0)]
    compute_scale: f64,
    /// Seconds each MPI_Test costs (SimGrid's smpi/test).
    #[arg(long, default_value_t = 1e-4)]
    test_cost: f64,
    /// Seconds each read of the clock (MPI_Wtime) costs (SimGrid's smpi/wtime): a loop
    /// that waits for the clock to advance ends even with --compute none.
    #[arg(long, default_value_t = 1e-8)]
    wtime_cost: f64,
    /// Where the simulator and the ranks run: one (a single core: fastest when ranks
    /// compute little between calls) or all (the cores this process may use) [default:
    /// one with --compute none, all with --compute measure].
    #[arg(long, value_parser = ["one", "all"])]
    cores: Option<String>,
    /// Run the ranks as coroutines of simpi's own process, each with its own copy of
    /// the program (its own globals), instead of a process per rank: a call costs no
    /// process switch. The ranks share the C library's state and run one at a time;
    /// a rank that crashes ends the run (docs/online.md).
    #[arg(long)]
    in_process: bool,
    /// With --in-process: one copy of the program for every rank, whose global
    /// variables are then shared (SMPI's smpi/privatization:no).
    #[arg(long)]
    shared_globals: bool,
    /// With --in-process: each rank's stack, e.g. 16MiB [default: 8MiB].
    #[arg(long, value_name = "SIZE", value_parser = simpi::values::stack_size)]
    stack_size: Option<usize>,
    /// Write the result as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Print, after the summary, each rank's time split into computing, moving data,
    /// waiting and idle (average and maximum over the ranks) and the time per kind of
    /// operation.
    #[arg(long)]
    report: bool,
    /// Write a timeline of every rank's operations (sends, receives, computations):
    /// `.json` for Chrome trace events (Perfetto), `.paje` for Paje (ViTE).
    #[arg(long, value_name = "FILE", value_parser = simpi::timeline::Target::parse)]
    timeline: Option<simpi::timeline::Target>,
    /// Write the run as a time-independent trace into DIR (index.txt, one rank-<r>.tit
    /// per rank; and platform.toml without --platform), and print the `simpi replay`
    /// command that gives the run's times. A run the format cannot express (one-sided
    /// calls, intercommunicators, MPI_Cancel, requests of one source, destination and
    /// tag completed out of order, persistent collectives started in different orders)
    /// reports its results, then exits 1 without a trace (docs/online.md).
    #[arg(long, value_name = "DIR")]
    record_tit: Option<PathBuf>,
    /// The program and its arguments.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "PROGRAM"
    )]
    command: Vec<OsString>,
}

/// The options of `simpi run` that take a separate value (to find where the
/// program's own arguments begin).
pub const TAKES_VALUE: &[&str] = &[
    "-n",
    "--np",
    "--platform",
    "--hostfile",
    "--model",
    "--constant-time",
    "--preset",
    "--coll",
    "--coll-selector",
    "--compute",
    "--compute-scale",
    "--test-cost",
    "--wtime-cost",
    "--cores",
    "--stack-size",
    "--json",
    "--timeline",
    "--record-tit",
];

const NAMING: Naming = Naming {
    name: |s| match s {
        Setting::Model => "--model",
        Setting::ConstantTime => "--constant-time",
        Setting::Platform => "--platform",
        Setting::Preset => "--preset",
        Setting::HostFile => "--hostfile",
        Setting::PacketPreset => "--packet-preset",
        Setting::Routing => "--routing",
        Setting::Seed => "--seed",
        _ => "an option",
    },
    syntax: Syntax::Flags,
};

/// The default machine: a flat cluster of `n` hosts.
fn default_platform(n: u32) -> String {
    format!(
        "name = \"simpi-run-default\"\n[topology]\nkind = \"flat\"\nhosts = {n}\nspeed = \"1Gf\"\n\
         link = {{ bandwidth = \"1.25GBps\", latency = \"1us\", sharing = \"split-duplex\" }}\n\
         backbone = {{ bandwidth = \"10GBps\", latency = \"0us\", sharing = \"shared\" }}\n"
    )
}

/// `p` as one word of a shell command: quoted when it holds more than letters, digits
/// and `/._-=+:,`.
fn shell_word(p: &std::path::Path) -> String {
    let s = p.display().to_string();
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-=+:,".contains(c)) {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Where `--record-tit` put the trace, and the replay command that gives the run's
/// times (writing the default machine beside the trace when no platform was given).
fn replay_hint(a: &RunArgs, dir: &std::path::Path) -> Result<String, (u8, String)> {
    let mut cmd = format!("simpi replay {}", shell_word(&dir.join("index.txt")));
    match &a.platform {
        Some(p) => cmd += &format!(" --platform {}", shell_word(p)),
        None if a.model.as_deref() != Some("constant") => {
            let p = dir.join("platform.toml");
            std::fs::write(&p, default_platform(a.np)).map_err(|e| (EXIT_INPUT, format!("{}: {e}", p.display())))?;
            cmd += &format!(" --platform {}", shell_word(&p));
        }
        None => {}
    }
    if let Some(h) = &a.hostfile {
        cmd += &format!(" --hostfile {}", shell_word(h));
    }
    cmd += &format!(" --model {}", a.model.as_deref().unwrap_or("hybrid"));
    if let Some(t) = a.constant_time {
        cmd += &format!(" --constant-time {}ps", t.ps());
    }
    if let Some(p) = &a.packet_preset {
        cmd += &format!(" --packet-preset {p}");
    }
    if let Some(r) = a.routing {
        cmd += &format!(" --routing {}", r.name());
    }
    if let Some(seed) = a.seed {
        cmd += &format!(" --seed {seed}");
    }
    match &a.preset {
        Some(PresetName::Smpi) => cmd += " --preset smpi",
        Some(PresetName::Plain) => cmd += " --preset plain",
        Some(PresetName::File(p)) => cmd += &format!(" --preset {}", shell_word(p)),
        None => {}
    }
    for c in &a.coll {
        cmd += &format!(" --coll {}", shell_word(std::path::Path::new(c)));
    }
    cmd += &format!(" --coll-selector {} --test-cost {}", a.coll_selector, a.test_cost);
    Ok(format!(
        "simpi run: the run as a TIT trace in {}; replay it with\n  {cmd}",
        dir.display()
    ))
}

/// Runs `simpi run`.
pub fn run(a: RunArgs) -> Result<(), (u8, String)> {
    let usage = |m: String| (EXIT_USAGE, m);
    if !(a.compute_scale.is_finite() && a.compute_scale > 0.0) {
        return Err(usage(format!(
            "--compute-scale must be a positive number, not {}",
            a.compute_scale
        )));
    }
    if !(a.test_cost.is_finite() && a.test_cost >= 0.0 && a.test_cost * 1e12 < u64::MAX as f64) {
        return Err(usage(format!(
            "--test-cost must be a time in seconds on the simulated clock, not {}",
            a.test_cost
        )));
    }
    let test_cost_ps = SimTime::from_secs_f64(a.test_cost).0;
    if !(a.wtime_cost.is_finite() && a.wtime_cost >= 0.0 && a.wtime_cost * 1e12 < u64::MAX as f64) {
        return Err(usage(format!(
            "--wtime-cost must be a time in seconds on the simulated clock, not {}",
            a.wtime_cost
        )));
    }
    let clock_cost_ps = SimTime::from_secs_f64(a.wtime_cost).0;
    let ps_per_ns = 1000.0 * a.compute_scale;
    // `record FILE` arrives as `record=FILE` (see `mpiexec_style`).
    let compute = match a.compute.split_once('=').unwrap_or((a.compute.as_str(), "")) {
        ("none", "") => Compute::None,
        ("measure", "") => Compute::Measure { ps_per_ns },
        ("record", file) if !file.is_empty() => Compute::Record {
            ps_per_ns,
            path: PathBuf::from(file),
        },
        ("replay", file) if !file.is_empty() => Compute::Replay {
            path: PathBuf::from(file),
        },
        _ => {
            return Err(usage(format!(
                "--compute takes none, measure, record FILE or replay FILE, not `{}`",
                a.compute.replacen('=', " ", 1)
            )))
        }
    };
    let model = match a.model.as_deref() {
        Some("flow") => ModelName::Flow,
        Some("packet") => ModelName::Packet,
        Some("constant") => ModelName::Constant,
        _ => ModelName::Hybrid,
    };
    // Without a platform, a generated one in a private file, removed once loaded.
    let generated = match (&a.platform, model) {
        (None, m) if m != ModelName::Constant => {
            let path = std::env::temp_dir().join(format!("simpi-run-{}.toml", std::process::id()));
            std::fs::write(&path, default_platform(a.np))
                .map_err(|e| (EXIT_INPUT, format!("{}: {e}", path.display())))?;
            Some(path)
        }
        _ => None,
    };
    let mut s = ReplaySettings {
        model: Some(model),
        platform: a.platform.clone().or_else(|| generated.clone()),
        preset: a.preset.clone().unwrap_or(PresetName::Smpi),
        hostfile: a.hostfile.clone(),
        coll: a.coll.clone(),
        coll_selector: a.coll_selector.clone(),
        ..ReplaySettings::default()
    };
    s.given.insert(Setting::Model);
    s.packet.preset = a.packet_preset.clone();
    s.packet.routing = a.routing;
    if let Some(seed) = a.seed {
        s.noise.seed = seed;
    }
    if let Some(t) = a.constant_time {
        s.constant_time = t;
    }
    // A setting the chosen model would ignore is refused, as in replay.
    for (given, setting) in [
        (a.packet_preset.is_some(), Setting::PacketPreset),
        (a.routing.is_some(), Setting::Routing),
        (a.seed.is_some(), Setting::Seed),
        (a.constant_time.is_some(), Setting::ConstantTime),
        (a.preset.is_some(), Setting::Preset),
    ] {
        if given {
            s.given.insert(setting);
        }
    }
    if let Err(e) = s.check_model(NAMING) {
        if let Some(p) = &generated {
            let _ = std::fs::remove_file(p);
        }
        return Err(usage(e));
    }
    let machine = s.model_spec().and_then(|spec| Machine::new(&spec, a.np));
    if let Some(p) = &generated {
        let _ = std::fs::remove_file(p);
    }
    let machine = machine.map_err(|e| (if e.is_input() { EXIT_INPUT } else { EXIT_USAGE }, e.to_string()))?;
    let colls = s.collectives(NAMING).map_err(usage)?;
    if !a.in_process {
        for (given, flag) in [
            (a.shared_globals, "--shared-globals"),
            (a.stack_size.is_some(), "--stack-size"),
        ] {
            if given {
                return Err(usage(format!(
                    "{flag} is for ranks in simpi's process: give --in-process too"
                )));
            }
        }
    } else if a.cores.is_some() {
        return Err(usage(
            "--cores is for ranks in processes of their own: with --in-process every rank runs in simpi's thread"
                .into(),
        ));
    }
    let in_process = a.in_process.then(|| online::InProcess {
        shared_globals: a.shared_globals,
        stack_bytes: a.stack_size.unwrap_or(online::InProcess::DEFAULT_STACK),
    });
    let one_core = match a.cores.as_deref() {
        Some(c) => c == "one",
        None => matches!(compute, Compute::None | Compute::Replay { .. }),
    };
    let started = std::time::Instant::now();
    let out = online::run(RunOptions {
        program: a.command[0].clone(),
        args: a.command[1..].to_vec(),
        ranks: a.np,
        model: machine.model(),
        colls: &colls,
        compute,
        test_cost_ps,
        clock_cost_ps,
        record: a.timeline.is_some() || a.report,
        record_tit: a.record_tit.clone(),
        one_core,
        in_process,
    })
    .map_err(|e| match e {
        Error::Stall(_) => (EXIT_STALL, e.to_string()),
        Error::Setting(_) => (EXIT_USAGE, e.to_string()),
        _ => (EXIT_INPUT, e.to_string()),
    })?;
    let wall = started.elapsed().as_secs_f64();
    let makespan: SimTime = out.makespan();
    eprintln!(
        "simpi run: {} ranks, simulated time {:.9} s, {} MPI calls simulated in {:.3} s",
        a.np,
        makespan.as_secs_f64(),
        out.calls,
        wall
    );
    let mut records = out.records;
    let spans = if a.timeline.is_some() || a.report {
        simpi::analysis::spans(&mut records, None)
    } else {
        Vec::new()
    };
    if a.report {
        let ends: Vec<u64> = out.end_times.iter().map(|t| t.ps()).collect();
        let report = simpi::Report {
            end_times: out.end_times.clone(),
            events: 0,
            ops: records.len() as u64,
            load_seconds: 0.0,
            sim_seconds: wall,
            peak_rss_bytes: None,
            warnings: Vec::new(),
            breakdown: simpi::analysis::breakdown(&records, &ends),
            calls: simpi::analysis::call_stats(&spans),
            spans: Vec::new(),
            messages: Vec::new(),
            flows: Vec::new(),
            critical: Vec::new(),
            links: Vec::new(),
            message_times: None,
            link_series: Vec::new(),
        };
        eprint!("{}", report.details());
    }
    if let Some(target) = &a.timeline {
        let path = &target.path;
        let f =
            std::fs::File::create(path).map_err(|e| (EXIT_INPUT, format!("{}: cannot create: {e}", path.display())))?;
        let t = simpi::timeline::Timeline::of_spans(a.np, &spans);
        simpi::timeline::write(
            std::io::BufWriter::new(f),
            target.format,
            &t,
            &simpi::timeline::Filter::default(),
        )
        .map_err(|e| (EXIT_INPUT, format!("{}: {e}", path.display())))?;
    }
    if let Some(path) = &a.json {
        let ends: Vec<String> = out.end_times.iter().map(|t| format!("{}", t.as_secs_f64())).collect();
        let ends_ps: Vec<String> = out.end_times.iter().map(|t| t.ps().to_string()).collect();
        let text = format!(
            "{{\"ranks\": {}, \"makespan_s\": {}, \"makespan_ps\": {}, \"calls\": {}, \"wall_s\": {wall}, \
             \"end_times_s\": [{}], \"end_ps\": [{}]}}\n",
            a.np,
            makespan.as_secs_f64(),
            makespan.ps(),
            out.calls,
            ends.join(", "),
            ends_ps.join(", ")
        );
        std::fs::write(path, text).map_err(|e| (EXIT_INPUT, format!("{}: {e}", path.display())))?;
    }
    // The run's results are out; the trace, or why it has none, last.
    match (&out.tit, &a.record_tit) {
        (Some(Err(why)), _) => Err((EXIT_INPUT, why.clone())),
        (Some(Ok(_)), Some(dir)) => {
            eprintln!("{}", replay_hint(&a, dir)?);
            Ok(())
        }
        _ => Ok(()),
    }
}
