//! `simpi`: replay traces and schedules on simulated clusters, generate schedules.

mod bench;
mod calibrate;
mod compare;
mod comparison;
mod convert;
mod platform_cmd;
mod progress;
mod replay;
mod run;
mod schedgen;
mod sweep;
mod sweep_python;
mod testbed;
mod trace_options;
mod tracer;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "simpi",
    version,
    about = "Predict how long an MPI application takes on a cluster you may not have"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a GOAL schedule or a TIT trace and report when every rank finishes.
    Replay(Box<replay::ReplayArgs>),
    /// Replay a trace directory written by `simpi trace` (with replay's model options) and
    /// set the prediction beside the run's measured times: makespan, ranks, call types.
    Compare(Box<compare::CompareArgs>),
    /// Replay a grid of settings and inputs: one table row per point, and plots; on
    /// the local cores or a Dask cluster.
    Sweep(Box<sweep::SweepArgs>),
    /// Write the GOAL schedule of a collective or application pattern.
    Schedgen(schedgen::SchedgenArgs),
    /// Check or summarise a platform file.
    Platform(platform_cmd::PlatformArgs),
    /// Convert a trace (collectives expanded) or schedule to GOAL.
    Convert(convert::ConvertArgs),
    /// List the collective algorithms.
    ListAlgorithms,
    /// Run an MPI program under simpi's tracer: `simpi trace -o DIR -- mpirun -np 4 ./app`.
    Trace(tracer::TraceArgs),
    /// Summarise a trace directory written by `simpi trace`.
    TraceInfo(tracer::TraceInfoArgs),
    /// Run an MPI program on an emulated Ethernet cluster of network namespaces.
    Testbed(testbed::TestbedArgs),
    /// Measure one-way message times with your MPI (MPIBench's method) and write the
    /// distributions file `--model stochastic` draws from: `simpi bench -o d.dist --
    /// mpirun -np 8`.
    Bench(bench::BenchArgs),
    /// Measure the network with your MPI and fit the hybrid model and LogGOPS to it:
    /// writes the preset file `simpi replay --preset FILE` reads: `simpi calibrate -o
    /// p.toml --platform P -- mpirun -np 2`.
    Calibrate(calibrate::CalibrateArgs),
    /// Run a real C MPI program, built with simpicc, on a simulated cluster: `simpi
    /// run -np 4 ./app args` (on-line simulation).
    Run(Box<run::RunArgs>),
}

/// Exit code for malformed input.
pub const EXIT_INPUT: u8 = 1;
/// Exit code for a bad command line (clap uses it too).
pub const EXIT_USAGE: u8 = 2;
/// Exit code for a workload that cannot complete (deadlock, unmatched message).
pub const EXIT_STALL: u8 = 3;

/// True if the user typed flag `id` (rather than it taking its default).
pub fn given(m: &ArgMatches, id: &str) -> bool {
    m.try_get_raw(id).is_ok_and(|v| v.is_some()) && m.value_source(id) == Some(ValueSource::CommandLine)
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    let matches = Cli::command().get_matches_from(mpiexec_style(std::env::args_os()));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let sub = |name: &str| {
        matches
            .subcommand_matches(name)
            .expect("the subcommand that was parsed")
    };
    let result = match cli.command {
        Command::Replay(a) => replay::run(*a, sub("replay")),
        Command::Compare(a) => compare::run(*a, sub("compare")),
        Command::Sweep(a) => sweep::run(*a),
        Command::Schedgen(a) => schedgen::run(a, sub("schedgen")),
        Command::Platform(a) => platform_cmd::run(a),
        Command::Convert(a) => convert::run(a, sub("convert")),
        Command::ListAlgorithms => convert::list_algorithms(),
        Command::Trace(a) => tracer::run(a),
        Command::TraceInfo(a) => tracer::trace_info(a),
        Command::Testbed(a) => testbed::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Run(a) => run::run(*a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, msg)) => {
            eprintln!("simpi: {}", msg.trim_end());
            ExitCode::from(code)
        }
    }
}

/// `simpi run -np N ...` as mpiexec users type it: `-np` becomes `--np` (clap has no
/// long options with one dash), and `--compute record FILE` `--compute record=FILE`,
/// among simpi's options only, never in the program's.
fn mpiexec_style(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut v: Vec<std::ffi::OsString> = args.collect();
    if v.get(1).is_none_or(|a| a != "run") {
        return v;
    }
    let mut i = 2;
    while i < v.len() {
        let a = v[i].to_string_lossy();
        if a == "-np" {
            v[i] = "--np".into();
            i += 2;
        } else if a == "--compute" && v.get(i + 1).is_some_and(|h| h == "record" || h == "replay") {
            // `--compute record FILE`: two values, given to clap as one.
            if i + 2 < v.len() {
                let mut joined = v.remove(i + 1);
                joined.push("=");
                joined.push(&v[i + 1]);
                v[i + 1] = joined;
            }
            i += 2;
        } else if run::TAKES_VALUE.contains(&a.as_ref()) {
            i += 2;
        } else if a.starts_with('-') && a != "--" {
            i += 1;
        } else {
            // The program: what follows is its own.
            break;
        }
    }
    v
}

/// Output piped into a command that stops reading (`simpi ... | head`) ends simpi quietly,
/// as it does `cat`: Rust ignores SIGPIPE, which would turn every later write into an
/// error message or a panic in `println!`.
fn restore_default_sigpipe() {
    // SAFETY: setting a signal's disposition to the default, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
