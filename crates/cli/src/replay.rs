//! `simpi replay`: runs a GOAL schedule under LogGOPS and prints the result.

use crate::{EXIT_INPUT, EXIT_STALL};
use clap::{Args, ValueEnum};
use simpi::{replay_goal, Error, LogGops, ReplayOptions, TimeUnit};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Copy, Clone, ValueEnum)]
enum Model {
    /// LogGOPS with LogGOPSim's semantics.
    Loggops,
}

#[derive(Copy, Clone, ValueEnum)]
enum Format {
    /// A short summary for people.
    Human,
    /// LogGOPSim's `Host <i>: <t>` lines, in the schedule's time unit.
    Loggopsim,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// The GOAL schedule to replay.
    file: PathBuf,
    /// The network model.
    #[arg(long, value_enum, default_value = "loggops")]
    model: Model,
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
    format: Format,
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
    let Model::Loggops = a.model;
    let overflow = |what: &str| {
        (
            EXIT_INPUT,
            format!("{what} overflows 2^64 picoseconds in unit {}", a.time_unit.name()),
        )
    };
    let k = a.time_unit.ps_per_unit();
    let model = LogGops {
        l: a.l.checked_mul(k).ok_or_else(|| overflow("-L"))?,
        o: a.o.checked_mul(k).ok_or_else(|| overflow("-o"))?,
        g: a.g.checked_mul(k).ok_or_else(|| overflow("-g"))?,
        big_g: a.big_g.checked_mul(k).ok_or_else(|| overflow("-G"))?,
        big_o: a.big_o.checked_mul(k).ok_or_else(|| overflow("-O"))?,
        s: a.s,
    };
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
    let opts = ReplayOptions {
        unit: a.time_unit,
        model,
        progress: Some(&mut progress),
        max_blocked_ranks: a.max_blocked_ranks,
    };
    let result = replay_goal(&a.file, opts);
    if show_progress && started.elapsed().as_secs() >= 2 {
        eprintln!();
    }
    let report = result.map_err(|e| match e {
        Error::Input(m) => (EXIT_INPUT, m),
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
            Format::Human => out.write_all(report.summary().as_bytes()).map_err(io)?,
            Format::Loggopsim => report.write_loggopsim(&mut out, a.time_unit).map_err(io)?,
        }
    }
    for w in &report.warnings {
        if a.json || matches!(a.format, Format::Loggopsim) {
            eprintln!("simpi: warning: {w}");
        }
    }
    out.flush().map_err(io)
}

/// Re-exported so the progress callback can name its argument type.
mod simpi_mpi_progress {
    pub use simpi::Progress;
}
