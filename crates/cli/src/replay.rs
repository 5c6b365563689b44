//! `simpi replay`: runs a schedule, a trace or a pattern under a model and prints the
//! result; the machine is set up by the facade (`simpi::setup`).

use crate::progress::{self, Meter};
use crate::{given, EXIT_INPUT, EXIT_STALL, EXIT_USAGE};
use clap::{ArgMatches, Args, ValueEnum};
use simpi::settings::{self, Naming, ReplaySettings, Setting, Syntax};
use simpi::{
    count_ranks, load, simulate, values, Error, Format, LoadOptions, Machine, PacketChanges, Pattern, PatternParams,
    Piecewise, PresetChanges, SimOptions, SimTime, TimeUnit, Workload,
};
use std::io::Write;
use std::path::PathBuf;

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
    /// Packets over the platform's routes: cut-through, credits, round-robin
    /// arbitration (--packet-preset, --mtu, --packet-buffer, --router-delay, --queues),
    /// under SMPI's protocol.
    Packet,
    /// Every message takes a time drawn from measured distributions for its size and
    /// the contention it meets (--distributions, --seed, --replications; PEVPM's model).
    Stochastic,
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
    /// OTF2 trace (its anchor file, e.g. traces.otf2).
    Otf2,
    /// liballprof trace (rank 0's file, e.g. pmpi-trace-rank-0.txt).
    #[value(alias = "allprof")]
    Liballprof,
    /// DUMPI trace (its .meta file, or a rank's .bin file).
    Dumpi,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// The GOAL schedule, TIT trace (index file), OTF2 trace (anchor file, e.g.
    /// traces.otf2), liballprof trace (rank 0's file) or DUMPI trace (.meta file) to
    /// replay; `-` reads a schedule, or
    /// a trace whose ranks are all in one file, from standard input.
    #[arg(required_unless_present = "pattern")]
    pub(crate) file: Option<PathBuf>,
    /// Replay a pattern generated in the process instead of a file: binomial-bcast,
    /// binomial-reduce, rd-allreduce, ring-allreduce, dissemination-barrier,
    /// linear-alltoall or stencil3d (as `simpi schedgen` writes them).
    #[arg(long, conflicts_with = "file", value_parser = values::pattern)]
    pattern: Option<Pattern>,
    /// Pattern: number of ranks.
    #[arg(long, default_value_t = 8, requires = "pattern", value_parser = values::rank_count)]
    ranks: u32,
    /// Pattern: message size in bytes (whole vector for reductions, per pair for
    /// all-to-all, per face for the stencil).
    #[arg(long, default_value_t = 8, requires = "pattern")]
    bytes: u64,
    /// Pattern: number of repetitions.
    #[arg(long, default_value_t = 1, requires = "pattern", value_parser = values::at_least_one)]
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
    /// Write a timeline: `.json` for Chrome trace events (Perfetto), `.paje` for Paje
    /// (ViTE); another extension is refused.
    #[arg(long, value_name = "FILE", value_parser = simpi::timeline::Target::parse)]
    timeline: Option<simpi::timeline::Target>,
    /// Write an HTML report (summary, timeline, critical path, time per rank, calls):
    /// one page, named `.html` or `.htm`, that opens offline.
    #[arg(long, value_name = "FILE", value_parser = simpi::html::target)]
    html: Option<PathBuf>,
    /// The input's name in the HTML report (standard input is replayed from a copy).
    #[arg(skip)]
    shown_name: Option<String>,
    /// Timeline: only these ranks, e.g. `0-3,8`.
    #[arg(long, value_name = "LIST", requires = "timeline", value_parser = simpi::timeline::RankSet::parse)]
    timeline_ranks: Option<simpi::timeline::RankSet>,
    /// Timeline: only the spans that overlap this window, e.g. `1ms:2ms` (`:2ms` and
    /// `1ms:` leave an end open).
    #[arg(long, value_name = "START:END", requires = "timeline", value_parser = simpi::timeline::Window::parse)]
    timeline_window: Option<simpi::timeline::Window>,
    /// The network model [default: hybrid with --platform, loggops without].
    #[arg(long, value_enum)]
    model: Option<ModelName>,
    /// Platform file (.toml, or SimGrid .xml) for the flow, hybrid and packet models.
    #[arg(long)]
    platform: Option<PathBuf>,
    /// Parameter set of the hybrid model: smpi (SimGrid 3.32's defaults), plain (no
    /// factors, overheads, envelope, TCP bound or cross-traffic), or a preset file as
    /// `simpi calibrate` writes it (its [loggops] section also serves --model loggops;
    /// -L -o -g -G -O -S given on the line override it).
    #[arg(long, default_value = "smpi", value_name = "smpi|plain|FILE", value_parser = settings::PresetName::parse)]
    preset: settings::PresetName,
    /// Constant model: the time every message takes, e.g. `10us` (SimGrid's is 1 s).
    #[arg(long, default_value = "1s", value_parser = values::duration)]
    constant_time: SimTime,
    /// Packet model: the preset, generic (2 KiB packets, buffers sized to each link's
    /// round trip, virtual output queues, no router delay) or ib (InfiniBand as the
    /// LogGOPSim + InfiniBand thesis simulated it) or dragonfly (CODES's synthetic
    /// dragonfly: 512-byte packets, 4 KiB channels) [default: generic].
    #[arg(long, value_parser = values::packet_preset)]
    packet_preset: Option<String>,
    /// Packet model: the largest packet on the wire, headers included, in bytes.
    #[arg(long, value_parser = values::at_least_one)]
    mtu: Option<u32>,
    /// Packet model: input buffer per virtual channel in bytes (0: sized to each
    /// link's round trip, so credits never slow an idle path).
    #[arg(long)]
    packet_buffer: Option<u64>,
    /// Packet model: the time through a router, e.g. `100ns`.
    #[arg(long, value_parser = values::duration)]
    router_delay: Option<SimTime>,
    /// Packet model: `voq` (a queue per output in each input buffer) or `fifo` (one
    /// queue: head-of-line blocking).
    #[arg(long, value_parser = values::queues)]
    queues: Option<bool>,
    /// Packet model: `minimal` (the platform's routes), on a dragonfly `valiant` (each
    /// packet through a random group) or `ugal` (UGAL-L: minimal or one random detour,
    /// whichever has the shorter queue times hops; --seed draws the detours), or
    /// `adaptive`: on a fat tree or torus the least loaded minimal way at each switch (a
    /// climb's parent port, a torus dimension left to correct), on a dragonfly
    /// progressive adaptive routing (UGAL-L's choice again at each router of the
    /// source group) [default: minimal].
    #[arg(long, value_parser = values::routing)]
    routing: Option<simpi::Routing>,
    /// Packet model: two virtual lanes with InfiniBand's high- and low-priority
    /// arbitration; messages of at most this many bytes travel on the high-priority
    /// lane, which a port serves first. Each lane has buffers of its own.
    #[arg(long, value_name = "BYTES")]
    priority_up_to: Option<u64>,
    /// Packet model, with --priority-up-to: the high-priority bytes a port sends in a
    /// row while a low-priority packet waits before that one goes (InfiniBand's limit
    /// of high priority; 0: the lanes alternate) [default: none, no limit].
    #[arg(long, value_name = "BYTES|none", value_parser = values::priority_limit)]
    priority_limit: Option<u64>,
    /// Packet model: what the hosts do around the network, `smpi` (SMPI's protocol,
    /// --preset and its changes) or `loggops` (LogGOPS's -o -g -G -O -S; messages cross
    /// the network instead of taking -L, as the LogGOPSim + InfiniBand thesis couples
    /// them) [default: smpi].
    #[arg(long, value_parser = values::host_protocol)]
    protocol: Option<settings::HostProtocol>,
    /// How ranks are placed on hosts.
    #[arg(long, value_enum, default_value = "block")]
    mapping: MappingKind,
    /// Ranks per host for the block mapping.
    #[arg(long, default_value_t = 1, value_parser = values::at_least_one)]
    ranks_per_host: u32,
    /// A host file (one host name per line, optionally `name:count`), instead of --mapping.
    #[arg(long)]
    hostfile: Option<PathBuf>,
    /// Hybrid: latency factors by size, SimGrid syntax `bound:factor;...`.
    #[arg(long, value_parser = values::lat_factors)]
    lat_factor: Option<Piecewise>,
    /// Hybrid: bandwidth factors by size, SimGrid syntax.
    #[arg(long, value_parser = values::bw_factors)]
    bw_factor: Option<Piecewise>,
    /// Hybrid: send overhead `bound:a:b;...` (a + b*size seconds).
    #[arg(long, value_parser = values::overheads)]
    os: Option<Piecewise>,
    /// Hybrid: receive overhead `bound:a:b;...`.
    #[arg(long = "or", value_parser = values::overheads)]
    or_: Option<Piecewise>,
    /// Hybrid: messages below this many bytes flow before the receive is posted.
    #[arg(long)]
    async_small: Option<u64>,
    /// Hybrid: sends below this many bytes are detached (rendezvous above).
    #[arg(long)]
    detached: Option<u64>,
    /// Hybrid: weight-S in bytes (0: equal sharing).
    #[arg(long, value_parser = values::non_negative)]
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
    #[arg(long, default_value = "ns", value_parser = values::time_unit)]
    time_unit: TimeUnit,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: OutFormat,
    /// Print one JSON object instead: makespan_ps, per-rank end_ps, events, wall_seconds.
    #[arg(long, conflicts_with = "format")]
    pub(crate) json: bool,
    /// Report progress on stderr (default: when stderr is a terminal).
    #[arg(long)]
    progress: bool,
    /// How many blocked ranks to describe when the schedule cannot complete.
    #[arg(long, default_value_t = 20)]
    max_blocked_ranks: usize,
    /// OS noise (--model loggops): a noise trace in LogGOPSim's format, one detour
    /// `<start> <duration>` per line in the time unit, charged as LogGOPSim charges it
    /// to every send's and receive's overhead o and every computation.
    #[arg(long, value_name = "FILE", value_parser = values::path)]
    noise: Option<PathBuf>,
    /// Noise: every rank reads the trace from one random offset (co-scheduled noise)
    /// instead of each from its own.
    #[arg(long)]
    noise_cosched: bool,
    /// The seed of the noise's offsets (replication i of seed S draws rank r's offset
    /// from (S, i, r) alone) and of the stochastic model's message times (drawn from
    /// (S, i, source, destination, the message's index between them)).
    #[arg(long, default_value_t = 1, value_parser = values::whole)]
    seed: u64,
    /// Run this many replications, each with new noise offsets or message times, and
    /// print the mean makespan, its 95% confidence interval, median, 95th percentile,
    /// min and max.
    #[arg(long, default_value_t = 1, value_parser = values::at_least_one)]
    replications: u32,
    /// Threads for --replications [default: all cores]; the result does not depend on it.
    #[arg(long, value_parser = values::at_least_one)]
    jobs: Option<u32>,
    /// The stochastic model's measured message times: histograms per message size and
    /// contention level (docs/models.md); with --platform, contention is counted on the
    /// busiest link of each route, else over every message in flight.
    #[arg(long, value_name = "FILE", value_parser = values::path)]
    distributions: Option<PathBuf>,
}

pub fn run(mut a: ReplayArgs, m: &ArgMatches) -> Result<(), (u8, String)> {
    let s = settings(&a, m);
    s.check(NAMING).map_err(|msg| (EXIT_USAGE, msg))?;
    if a.html.is_some() && a.replications > 1 {
        return Err((
            EXIT_USAGE,
            format!(
                "--html describes one run, and --replications {} gives statistics over {}: drop one of them",
                a.replications, a.replications
            ),
        ));
    }
    if a.file.as_deref() != Some(std::path::Path::new("-")) {
        return run_checked(a, &s);
    }
    // The readers read a file more than once (its rank count, then its operations),
    // so standard input is copied to a private file first.
    let copy = StdinCopy::new()?;
    a.file = Some(copy.path.clone());
    a.shown_name = Some("<stdin>".into());
    let shown = copy.path.display().to_string();
    run_checked(a, &s).map_err(|(code, msg)| (code, msg.replace(&shown, "<stdin>")))
}

/// Standard input saved to a file of this process, removed when dropped.
struct StdinCopy {
    path: PathBuf,
}

impl StdinCopy {
    fn new() -> Result<StdinCopy, (u8, String)> {
        let path = std::env::temp_dir().join(format!("simpi-stdin-{}", std::process::id()));
        let fail = |e: std::io::Error| (EXIT_INPUT, format!("copying standard input to {}: {e}", path.display()));
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(fail)?;
        let copy = StdinCopy { path: path.clone() };
        std::io::copy(&mut std::io::stdin().lock(), &mut f).map_err(fail)?;
        Ok(copy)
    }
}

impl Drop for StdinCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Loads the input of `a` and runs it once under the model of `s` (settings already
/// checked), recording operations and calls if `record`; `None` when `s` asks for
/// replications, whose statistics this prints instead. `simpi compare` runs its
/// predictions through here too.
pub(crate) fn simulate_once(
    a: &ReplayArgs,
    s: &ReplaySettings,
    record: bool,
) -> Result<Option<simpi::Report>, (u8, String)> {
    let mut meter = Meter::new(a.progress);
    let mut progress = |p: simpi::Progress| {
        meter.show(|elapsed| progress::run_line(&p, elapsed, simpi::report::rss_bytes()));
    };
    let format = s.format;
    let input_err = |e: Error| (EXIT_INPUT, e.to_string());
    let pattern = a.pattern;
    let ranks = match (&a.file, pattern) {
        (Some(f), _) => count_ranks(f, format).map_err(input_err)?,
        (None, _) => a.ranks,
    };
    let timeline_filter = simpi::timeline::Filter {
        ranks: a.timeline_ranks.clone(),
        window: a.timeline_window,
    };
    timeline_filter
        .check(ranks)
        .map_err(|m| (EXIT_USAGE, format!("--timeline-ranks: {m}")))?;
    // The model's settings contradict each other or leave their domain: a command-line
    // error; the machine's files are input.
    let spec = s
        .model_spec()
        .map_err(|e| (if e.is_input() { EXIT_INPUT } else { EXIT_USAGE }, e.to_string()))?;
    let machine =
        Machine::new(&spec, ranks).map_err(|e| (if e.is_input() { EXIT_INPUT } else { EXIT_USAGE }, e.to_string()))?;
    let flops = a.trace.speed;
    let speed = |r: u32| machine.speed(r).unwrap_or(flops);
    let coll = s.collectives(NAMING).map_err(|msg| (EXIT_USAGE, msg))?;
    let mut workload = match (&a.file, pattern) {
        (Some(file), _) => load(
            file,
            &LoadOptions {
                format,
                unit: a.time_unit,
                speed: &speed,
                collectives: &coll,
                test_cost: a.trace.test_cost,
                calls: record,
                whole: false,
            },
        )
        .map_err(input_err)?,
        (None, Some(p)) => Workload::pattern(p, pattern_params(a), a.time_unit).map_err(input_err)?,
        (None, None) => unreachable!("clap requires a file or a pattern"),
    };
    let model = machine.model();
    let noise_trace = match &s.noise.trace {
        Some(path) => Some(simpi::montecarlo::read_noise(path, a.time_unit).map_err(input_err)?),
        None => None,
    };
    let opts = SimOptions {
        progress: Some(&mut progress),
        max_blocked_ranks: a.max_blocked_ranks,
        record,
    };
    let result = match (&noise_trace, model) {
        (None, model @ simpi::Model::Stochastic { .. }) if s.noise.replications > 1 => {
            return replications_of_model(a, &workload, &model).map(|()| None);
        }
        (None, model) => simulate(&mut workload, &model, opts),
        (Some(trace), simpi::Model::LogGops(params)) => {
            let noise = simpi::montecarlo::Noise {
                trace,
                placement: if s.noise.cosched {
                    simpi::mpi::noise::Placement::Cosched
                } else {
                    simpi::mpi::noise::Placement::Independent
                },
                seed: s.noise.seed,
            };
            if s.noise.replications > 1 {
                return replications(a, &workload, params, &noise).map(|()| None);
            }
            simpi::montecarlo::simulate_noisy(&mut workload, params, &noise, 0, opts)
        }
        // The settings' check refuses noise under another model.
        (Some(_), _) => return Err((EXIT_USAGE, "--noise needs --model loggops".into())),
    };
    meter.finish();
    result.map(Some).map_err(|e| run_error(e, a))
}

fn run_checked(a: ReplayArgs, s: &ReplaySettings) -> Result<(), (u8, String)> {
    let record = a.report || a.timeline.is_some() || a.html.is_some();
    let Some(report) = simulate_once(&a, s, record)? else {
        return Ok(()); // replications, their statistics printed
    };
    let timeline_filter = simpi::timeline::Filter {
        ranks: a.timeline_ranks.clone(),
        window: a.timeline_window,
    };
    // The timeline first: a reader of standard output that stops early (`| head`) ends
    // the process, and must not cost the file.
    if let Some(target) = &a.timeline {
        let path = &target.path;
        let f =
            std::fs::File::create(path).map_err(|e| (EXIT_INPUT, format!("{}: cannot create: {e}", path.display())))?;
        let t = simpi::timeline::Timeline {
            ranks: report.end_times.len() as u32,
            spans: &report.spans,
            messages: &report.messages,
            flows: &report.flows,
            links: &report.link_series,
        };
        simpi::timeline::write(std::io::BufWriter::new(f), target.format, &t, &timeline_filter)
            .map_err(|e| (EXIT_INPUT, format!("{}: {e}", path.display())))?;
    }
    if let Some(path) = &a.html {
        write_html(path, &a, s, &report)?;
    }
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
    for w in &report.warnings {
        if a.json || matches!(a.format, OutFormat::Loggopsim) {
            eprintln!("simpi: warning: {w}");
        }
    }
    out.flush().map_err(io)
}

/// A failed run as an exit code and a message.
fn run_error(e: Error, a: &ReplayArgs) -> (u8, String) {
    match (e, &a.platform) {
        (Error::Stall(m), _) => (EXIT_STALL, m),
        // A missing route is the platform's fault, not the workload's.
        (
            Error::Run {
                path,
                error: simpi::mpi::Error::Network(route),
            },
            Some(platform),
        ) => (
            EXIT_INPUT,
            format!("{}: {route} (a route {path} needs)", platform.display()),
        ),
        (other, _) => (EXIT_INPUT, other.to_string()),
    }
}

/// Runs `--replications` of the workload with noise on threads and prints their
/// statistics.
fn replications(
    a: &ReplayArgs,
    workload: &Workload<'_>,
    params: simpi::LogGops,
    noise: &simpi::montecarlo::Noise<'_>,
) -> Result<(), (u8, String)> {
    let threads = a.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let counter = progress::Counter::new(a.progress, a.replications as usize, "replications");
    let reps = simpi::montecarlo::replicate_watched(
        workload,
        params,
        noise,
        a.replications,
        threads,
        a.max_blocked_ranks,
        &|| counter.tick(),
    );
    counter.finish();
    print_replications(a, &reps.map_err(|e| run_error(e, a))?)
}

/// Runs `--replications` of the workload under the stochastic model on threads and
/// prints their statistics.
fn replications_of_model(
    a: &ReplayArgs,
    workload: &Workload<'_>,
    model: &simpi::Model<'_>,
) -> Result<(), (u8, String)> {
    let threads = a.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let counter = progress::Counter::new(a.progress, a.replications as usize, "replications");
    let reps =
        simpi::montecarlo::replicate_model(workload, model, a.replications, threads, a.max_blocked_ranks, &|| {
            counter.tick()
        });
    counter.finish();
    print_replications(a, &reps.map_err(|e| run_error(e, a))?)
}

/// Prints replications' statistics as text or JSON.
fn print_replications(a: &ReplayArgs, reps: &simpi::montecarlo::Replications) -> Result<(), (u8, String)> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let io = |e: std::io::Error| (EXIT_INPUT, format!("writing output: {e}"));
    if a.json {
        reps.write_json(&mut out).map_err(io)?;
        for w in &reps.warnings {
            eprintln!("simpi: warning: {w}");
        }
    } else {
        out.write_all(reps.summary().as_bytes()).map_err(io)?;
    }
    out.flush().map_err(io)
}

/// Writes the HTML report of `report` to `path`.
fn write_html(
    path: &std::path::Path,
    a: &ReplayArgs,
    s: &ReplaySettings,
    report: &simpi::Report,
) -> Result<(), (u8, String)> {
    let input = match (&a.shown_name, &a.file, a.pattern) {
        (Some(name), _, _) => name.clone(),
        (None, Some(f), _) => f.display().to_string(),
        (None, None, Some(p)) => simpi::html::describe::pattern(p, &pattern_params(a), a.time_unit),
        (None, None, None) => String::new(),
    };
    let info = simpi::html::RunInfo {
        input,
        model: simpi::html::describe::model(s, NAMING),
    };
    let f = std::fs::File::create(path).map_err(|e| (EXIT_INPUT, format!("{}: cannot create: {e}", path.display())))?;
    simpi::html::write_report(std::io::BufWriter::new(f), report, &info)
        .map_err(|e| (EXIT_INPUT, format!("{}: {e}", path.display())))
}

/// How `simpi replay`'s messages name settings: by their flags.
pub(crate) const NAMING: Naming = Naming {
    name: |s| arg(s).1,
    syntax: Syntax::Flags,
};

/// Each setting's clap id and flag.
fn arg(s: Setting) -> (&'static str, &'static str) {
    match s {
        Setting::Pattern => ("pattern", "--pattern"),
        Setting::Ranks => ("ranks", "--ranks"),
        Setting::Bytes => ("bytes", "--bytes"),
        Setting::Iterations => ("iterations", "--iterations"),
        Setting::Compute => ("compute", "--compute"),
        Setting::Periodic => ("periodic", "--periodic"),
        Setting::InputFormat => ("input", "--input"),
        Setting::Model => ("model", "--model"),
        Setting::Platform => ("platform", "--platform"),
        Setting::Preset => ("preset", "--preset"),
        Setting::ConstantTime => ("constant_time", "--constant-time"),
        Setting::Mapping => ("mapping", "--mapping"),
        Setting::RanksPerHost => ("ranks_per_host", "--ranks-per-host"),
        Setting::HostFile => ("hostfile", "--hostfile"),
        Setting::LatFactor => ("lat_factor", "--lat-factor"),
        Setting::BwFactor => ("bw_factor", "--bw-factor"),
        Setting::Os => ("os", "--os"),
        Setting::Or => ("or_", "--or"),
        Setting::AsyncSmall => ("async_small", "--async-small"),
        Setting::Detached => ("detached", "--detached"),
        Setting::WeightS => ("weight_s", "--weight-s"),
        Setting::GrowInjectedTimes => ("grow_injected_times", "--grow-injected-times"),
        Setting::LatencyL => ("l", "-L"),
        Setting::OverheadO => ("o", "-o"),
        Setting::GapG => ("g", "-g"),
        Setting::GapPerByteG => ("big_g", "-G"),
        Setting::OverheadPerByteO => ("big_o", "-O"),
        Setting::EagerLimitS => ("s", "-S"),
        Setting::TimeUnit => ("time_unit", "--time-unit"),
        Setting::Coll => ("coll", "--coll"),
        Setting::CollSelector => ("coll_selector", "--coll-selector"),
        Setting::Speed => ("speed", "--speed"),
        Setting::TestCost => ("test_cost", "--test-cost"),
        Setting::Report => ("report", "--report"),
        Setting::OutputFormat => ("format", "--format"),
        Setting::Json => ("json", "--json"),
        Setting::Timeline => ("timeline", "--timeline"),
        Setting::TimelineRanks => ("timeline_ranks", "--timeline-ranks"),
        Setting::TimelineWindow => ("timeline_window", "--timeline-window"),
        Setting::PacketPreset => ("packet_preset", "--packet-preset"),
        Setting::Mtu => ("mtu", "--mtu"),
        Setting::PacketBuffer => ("packet_buffer", "--packet-buffer"),
        Setting::RouterDelay => ("router_delay", "--router-delay"),
        Setting::Queues => ("queues", "--queues"),
        Setting::Routing => ("routing", "--routing"),
        Setting::PriorityUpTo => ("priority_up_to", "--priority-up-to"),
        Setting::PriorityLimit => ("priority_limit", "--priority-limit"),
        Setting::Protocol => ("protocol", "--protocol"),
        Setting::Noise => ("noise", "--noise"),
        Setting::NoiseCosched => ("noise_cosched", "--noise-cosched"),
        Setting::Seed => ("seed", "--seed"),
        Setting::Replications => ("replications", "--replications"),
        Setting::Distributions => ("distributions", "--distributions"),
    }
}

/// The arguments as the facade's settings, with the flags typed on the command line.
pub(crate) fn settings(a: &ReplayArgs, m: &ArgMatches) -> ReplaySettings {
    ReplaySettings {
        source: a.file.clone(),
        format: a.input.map(|f| match f {
            InputFormat::Goal => Format::Goal,
            InputFormat::Tit => Format::Tit,
            InputFormat::Otf2 => Format::Otf2,
            InputFormat::Liballprof => Format::Allprof,
            InputFormat::Dumpi => Format::Dumpi,
        }),
        pattern: a.pattern,
        model: a.model.map(|m| match m {
            ModelName::Loggops => settings::ModelName::Loggops,
            ModelName::Flow => settings::ModelName::Flow,
            ModelName::Hybrid => settings::ModelName::Hybrid,
            ModelName::Constant => settings::ModelName::Constant,
            ModelName::Packet => settings::ModelName::Packet,
            ModelName::Stochastic => settings::ModelName::Stochastic,
        }),
        platform: a.platform.clone(),
        preset: a.preset.clone(),
        constant_time: a.constant_time,
        packet: PacketChanges {
            preset: a.packet_preset.clone(),
            mtu: a.mtu.map(u64::from),
            buffer: a.packet_buffer,
            router_delay: a.router_delay,
            voq: a.queues,
            routing: a.routing,
            priority_up_to: a.priority_up_to,
            priority_limit: a.priority_limit,
        },
        protocol: a.protocol.unwrap_or(settings::HostProtocol::Smpi),
        mapping: match a.mapping {
            MappingKind::Block => settings::MappingKind::Block,
            MappingKind::RoundRobin => settings::MappingKind::RoundRobin,
        },
        ranks_per_host: a.ranks_per_host,
        hostfile: a.hostfile.clone(),
        changes: PresetChanges {
            lat_factor: a.lat_factor.clone(),
            bw_factor: a.bw_factor.clone(),
            os: a.os.clone(),
            or: a.or_.clone(),
            async_small: a.async_small,
            detached: a.detached,
            weight_s: a.weight_s,
            grow_test_costs: a.grow_injected_times,
        },
        loggops: [a.l, a.o, a.g, a.big_g, a.big_o, a.s],
        time_unit: a.time_unit,
        coll_selector: a.trace.coll_selector.clone(),
        coll: a.trace.coll.clone(),
        report: a.report,
        output: match (a.json, a.format) {
            (true, _) => settings::Output::Json,
            (false, OutFormat::Human) => settings::Output::Human,
            (false, OutFormat::Loggopsim) => settings::Output::Loggopsim,
        },
        noise: settings::NoiseSettings {
            trace: a.noise.clone(),
            cosched: a.noise_cosched,
            seed: a.seed,
            replications: a.replications,
        },
        distributions: a.distributions.clone(),
        given: Setting::ALL.into_iter().filter(|s| given(m, arg(*s).0)).collect(),
    }
}

/// The pattern's parameters as the flags give them.
fn pattern_params(a: &ReplayArgs) -> PatternParams {
    PatternParams {
        ranks: a.ranks,
        bytes: a.bytes,
        iterations: a.iterations,
        compute: a.compute,
        periodic: a.periodic,
    }
}
