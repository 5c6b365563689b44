//! `simpi replay`: runs a schedule, a trace or a pattern under a model and prints the
//! result; the machine is set up by the facade (`simpi::setup`).

use crate::{EXIT_INPUT, EXIT_STALL};
use clap::{Args, ValueEnum};
use simpi::{
    count_ranks, load, simulate, Error, Format, LoadOptions, Machine, MappingSpec, ModelSpec, Pattern, PatternParams,
    Preset, PresetChanges, SimOptions, SimTime, TimeUnit, Workload,
};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Copy, Clone, ValueEnum, PartialEq)]
enum ModelName {
    /// LogGOPS with LogGOPSim's semantics.
    Loggops,
    /// Flows over the platform's routes, max-min sharing; messages flow when sent.
    Flow,
    /// SMPI's hybrid model: piece-wise factors, overheads, protocol thresholds.
    Hybrid,
    /// Every message takes the same time (--constant-time), whatever its size or
    /// route, under SMPI's protocol (SimGrid's Constant network model).
    Constant,
}

#[derive(Copy, Clone, ValueEnum)]
enum PresetName {
    /// SimGrid 3.32's SMPI defaults.
    Smpi,
    /// No factors, overheads, envelope, TCP bound or cross-traffic.
    Plain,
}

#[derive(Copy, Clone, ValueEnum)]
enum MappingKind {
    /// Consecutive ranks on a host (see --ranks-per-host), hosts in platform order.
    Block,
    /// Rank r on host r mod hosts.
    RoundRobin,
}

#[derive(Copy, Clone, ValueEnum)]
enum OutFormat {
    /// A short summary for people.
    Human,
    /// LogGOPSim's `Host <i>: <t>` lines, in the schedule's time unit.
    Loggopsim,
}

#[derive(Copy, Clone, ValueEnum)]
enum InputFormat {
    /// LogGOPSim's GOAL schedule.
    Goal,
    /// SimGrid time-independent trace (index file or trace file).
    Tit,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// The GOAL schedule or TIT trace (index file) to replay.
    #[arg(required_unless_present = "pattern")]
    file: Option<PathBuf>,
    /// Replay a pattern generated in the process instead of a file: binomial-bcast,
    /// binomial-reduce, rd-allreduce, ring-allreduce, dissemination-barrier,
    /// linear-alltoall or stencil3d (as `simpi schedgen` writes them).
    #[arg(long, conflicts_with = "file")]
    pattern: Option<String>,
    /// Pattern: number of ranks.
    #[arg(long, default_value_t = 8, requires = "pattern")]
    ranks: u32,
    /// Pattern: message size in bytes (whole vector for reductions, per pair for
    /// all-to-all, per face for the stencil).
    #[arg(long, default_value_t = 8, requires = "pattern")]
    bytes: u64,
    /// Pattern: number of repetitions.
    #[arg(long, default_value_t = 1, requires = "pattern")]
    iterations: u32,
    /// Pattern: compute time at the start of every iteration, in the time unit.
    #[arg(long, default_value_t = 0, requires = "pattern")]
    compute: u64,
    /// Pattern stencil3d: the grid wraps around (a 3D torus: six neighbours each).
    #[arg(long, requires = "pattern")]
    periodic: bool,
    /// Input format (default: detected from the file).
    #[arg(long, value_enum)]
    input: Option<InputFormat>,
    #[command(flatten)]
    trace: crate::trace_options::TraceOptions,
    /// Print the time breakdown per rank and statistics per MPI call.
    #[arg(long)]
    report: bool,
    /// Write a timeline: `.json` for Chrome trace events (Perfetto), `.paje` for ViTE.
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// The network model.
    #[arg(long, value_enum, default_value = "loggops")]
    model: ModelName,
    /// Platform file (.toml, or SimGrid .xml) for the flow and hybrid models.
    #[arg(long)]
    platform: Option<PathBuf>,
    /// Parameter set of the hybrid model.
    #[arg(long, value_enum, default_value = "smpi")]
    preset: PresetName,
    /// Constant model: the time every message takes, e.g. `10us` (SimGrid's is 1 s).
    #[arg(long, default_value = "1s")]
    constant_time: String,
    /// How ranks are placed on hosts.
    #[arg(long, value_enum, default_value = "block")]
    mapping: MappingKind,
    /// Ranks per host for the block mapping.
    #[arg(long, default_value_t = 1)]
    ranks_per_host: u32,
    /// A host file (one host name per line, optionally `name:count`), instead of --mapping.
    #[arg(long)]
    hostfile: Option<PathBuf>,
    /// Hybrid: latency factors by size, SimGrid syntax `bound:factor;...`.
    #[arg(long)]
    lat_factor: Option<String>,
    /// Hybrid: bandwidth factors by size, SimGrid syntax.
    #[arg(long)]
    bw_factor: Option<String>,
    /// Hybrid: send overhead `bound:a:b;...` (a + b*size seconds).
    #[arg(long)]
    os: Option<String>,
    /// Hybrid: receive overhead `bound:a:b;...`.
    #[arg(long = "or")]
    or_: Option<String>,
    /// Hybrid: messages below this many bytes flow before the receive is posted.
    #[arg(long)]
    async_small: Option<u64>,
    /// Hybrid: sends below this many bytes are detached (rendezvous above).
    #[arg(long)]
    detached: Option<u64>,
    /// Hybrid: weight-S in bytes (0: equal sharing).
    #[arg(long)]
    weight_s: Option<f64>,
    /// Hybrid: whether each MPI_Test of a trace that finds its request incomplete makes
    /// the next test cost one more --test-cost, until one finds its request complete
    /// (SimGrid's smpi/grow-injected-times; default true, false for --model flow).
    #[arg(long, value_name = "BOOL")]
    grow_injected_times: Option<bool>,
    /// LogGOPS latency L, in the time unit.
    #[arg(short = 'L', default_value_t = 2500)]
    l: u64,
    /// LogGOPS overhead per message o, in the time unit.
    #[arg(short = 'o', default_value_t = 1500)]
    o: u64,
    /// LogGOPS gap per message g, in the time unit.
    #[arg(short = 'g', default_value_t = 1000)]
    g: u64,
    /// LogGOPS gap per byte G, in the time unit.
    #[arg(short = 'G', default_value_t = 6)]
    big_g: u64,
    /// LogGOPS overhead per byte O, in the time unit.
    #[arg(short = 'O', default_value_t = 0)]
    big_o: u64,
    /// Largest eager message in bytes; larger messages use rendezvous.
    #[arg(short = 'S', default_value_t = 65535)]
    s: u64,
    /// Unit of the schedule's times and of L, o, g, G, O.
    #[arg(long, default_value = "ns")]
    time_unit: TimeUnit,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: OutFormat,
    /// Print one JSON object instead: makespan_ps, per-rank end_ps, events, wall_seconds.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// Report progress on stderr (default: when stderr is a terminal).
    #[arg(long)]
    progress: bool,
    /// How many blocked ranks to describe when the schedule cannot complete.
    #[arg(long, default_value_t = 20)]
    max_blocked_ranks: usize,
}

pub fn run(a: ReplayArgs) -> Result<(), (u8, String)> {
    let show_progress = a.progress || std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut progress = |p: simpi_mpi_progress::Progress| {
        if show_progress && (a.progress || started.elapsed().as_secs() >= 2) {
            eprint!(
                "\r{:5.1}% of operations done, {} events, simulated time {}   ",
                100.0 * p.ops_done as f64 / p.ops_total.max(1) as f64,
                p.events,
                p.now
            );
        }
    };
    match (&a.platform, a.model) {
        (None, ModelName::Loggops | ModelName::Constant) | (Some(_), ModelName::Flow | ModelName::Hybrid) => {}
        (Some(_), ModelName::Constant) => return Err((EXIT_INPUT, "the constant model needs no --platform".into())),
        (Some(_), ModelName::Loggops) => {
            return Err((
                EXIT_INPUT,
                "--platform is used by the flow and hybrid models: add --model flow or --model hybrid".into(),
            ))
        }
        (None, _) => return Err((EXIT_INPUT, "the flow and hybrid models need --platform FILE".into())),
    }
    let format = a.input.map(|f| match f {
        InputFormat::Goal => Format::Goal,
        InputFormat::Tit => Format::Tit,
    });
    let input_err = |e: Error| (EXIT_INPUT, e.to_string());
    let pattern = match &a.pattern {
        None => None,
        Some(name) => Some(Pattern::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Pattern::ALL.iter().map(|(_, n, _)| *n).collect();
            (
                EXIT_INPUT,
                format!("unknown pattern '{name}': expected one of {}", names.join(", ")),
            )
        })?),
    };
    let ranks = match (&a.file, pattern) {
        (Some(f), _) => count_ranks(f, format).map_err(input_err)?,
        (None, _) => a.ranks,
    };
    let machine = Machine::new(&model_spec(&a)?, ranks).map_err(input_err)?;
    let flops = a.trace.speed()?;
    let speed = |r: u32| machine.speed(r).unwrap_or(flops);
    let coll = a.trace.collectives()?;
    let mut workload = match (&a.file, pattern) {
        (Some(file), _) => load(
            file,
            &LoadOptions {
                format,
                unit: a.time_unit,
                speed: &speed,
                collectives: &coll,
                test_cost: a.trace.test_cost,
                calls: a.report || a.timeline.is_some(),
                whole: false,
            },
        )
        .map_err(input_err)?,
        (None, Some(p)) => {
            let params = PatternParams {
                ranks: a.ranks,
                bytes: a.bytes,
                iterations: a.iterations,
                compute: a.compute,
                periodic: a.periodic,
            };
            Workload::pattern(p, params, a.time_unit).map_err(input_err)?
        }
        (None, None) => unreachable!("clap requires a file or a pattern"),
    };
    let model = machine.model();
    let opts = SimOptions {
        progress: Some(&mut progress),
        max_blocked_ranks: a.max_blocked_ranks,
        record: a.report || a.timeline.is_some(),
    };
    let result = simulate(&mut workload, &model, opts);
    if show_progress && started.elapsed().as_secs() >= 2 {
        eprintln!();
    }
    let report = result.map_err(|e| match e {
        Error::Stall(m) => (EXIT_STALL, m),
        other => (EXIT_INPUT, other.to_string()),
    })?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let io = |e: std::io::Error| (EXIT_INPUT, format!("writing output: {e}"));
    if a.json {
        report.write_json(&mut out).map_err(io)?;
    } else {
        match a.format {
            OutFormat::Human => {
                out.write_all(report.summary().as_bytes()).map_err(io)?;
                if a.report {
                    out.write_all(report.details().as_bytes()).map_err(io)?;
                }
            }
            OutFormat::Loggopsim => report.write_loggopsim(&mut out, a.time_unit).map_err(io)?,
        }
    }
    if let Some(path) = &a.timeline {
        let f =
            std::fs::File::create(path).map_err(|e| (EXIT_INPUT, format!("{}: cannot create: {e}", path.display())))?;
        let w = std::io::BufWriter::new(f);
        let ranks = report.end_times.len() as u32;
        let r = if path.extension().is_some_and(|e| e == "paje" || e == "trace") {
            simpi::timeline::write_paje(w, ranks, &report.spans)
        } else {
            simpi::timeline::write_chrome(w, ranks, &report.spans)
        };
        r.map_err(|e| (EXIT_INPUT, format!("{}: {e}", path.display())))?;
    }
    for w in &report.warnings {
        if a.json || matches!(a.format, OutFormat::Loggopsim) {
            eprintln!("simpi: warning: {w}");
        }
    }
    out.flush().map_err(io)
}

/// Re-exported so the progress callback can name its argument type.
mod simpi_mpi_progress {
    pub use simpi::Progress;
}

/// The model the arguments ask for.
fn model_spec(a: &ReplayArgs) -> Result<ModelSpec, (u8, String)> {
    let changes = PresetChanges {
        lat_factor: a.lat_factor.clone(),
        bw_factor: a.bw_factor.clone(),
        os: a.os.clone(),
        or: a.or_.clone(),
        async_small: a.async_small,
        detached: a.detached,
        weight_s: a.weight_s,
        grow_test_costs: a.grow_injected_times,
    };
    let base = match (a.model, a.preset) {
        (ModelName::Flow, _) => Preset::flow(),
        (_, PresetName::Smpi) => Preset::smpi(),
        (_, PresetName::Plain) => Preset::plain(),
    };
    let preset = || changes.apply(base.clone()).map_err(|e| (EXIT_INPUT, e.to_string()));
    Ok(match (a.model, &a.platform) {
        (ModelName::Loggops, _) => ModelSpec::LogGops {
            params: [a.l, a.o, a.g, a.big_g, a.big_o, a.s],
            unit: a.time_unit,
        },
        (ModelName::Constant, _) => {
            let secs = simpi::platform::units::time(&a.constant_time)
                .map_err(|e| (EXIT_INPUT, format!("--constant-time: {e}")))?;
            ModelSpec::Constant {
                time: SimTime::from_secs_f64(secs),
                preset: simpi::setup::constant_preset(preset()?),
            }
        }
        (_, Some(platform)) => ModelSpec::Flow {
            platform: platform.clone(),
            mapping: match (&a.hostfile, a.mapping) {
                (Some(f), _) => MappingSpec::HostFile(f.clone()),
                (None, MappingKind::Block) => MappingSpec::Block {
                    per_host: a.ranks_per_host,
                },
                (None, MappingKind::RoundRobin) => MappingSpec::RoundRobin,
            },
            preset: preset()?,
        },
        (_, None) => unreachable!("checked: the flow models have a platform"),
    })
}
