//! `simpi trace -o DIR -- mpirun ... ./app`: runs an unmodified MPI program under simpi's
//! PMPI tracer (the `simpi-tracer` crate) and reports what it recorded; `simpi trace-info DIR`
//! summarises a trace directory.

use crate::EXIT_INPUT;
use clap::Args;
use simpi_tracer::{Error, TraceConfig};
use std::path::PathBuf;

/// Arguments of `simpi trace`.
#[derive(Args)]
pub struct TraceArgs {
    /// Directory for the trace (`index.txt`, `rank-<r>.tit`, `.times` and `.counts` files).
    #[arg(short = 'o', long, default_value = "simpi-trace")]
    output: PathBuf,
    /// Flop/s at which time between MPI calls is written as `compute` flops.
    #[arg(long, default_value = "1e9")]
    speed: f64,
    /// Shortest computation written on its own, in seconds (shorter gaps add up).
    #[arg(long, default_value = "1e-6")]
    min_compute: f64,
    /// Write compute as each rank's CPU time between calls rather than the wall clock's
    /// (for ranks that share cores, replayed on a platform that says so).
    #[arg(long)]
    cpu_compute: bool,
    /// The MPI compiler wrapper whose MPI the program runs with.
    #[arg(long, default_value = "mpicc")]
    mpicc: String,
    /// Also write the same run as an OTF2 archive (DIR/traces.otf2), with Score-P's
    /// conventions for MPI events (needs the OTF2 library, libotf2-trace-dev).
    #[arg(long)]
    otf2: bool,
    /// Chain another PMPI tracer (a shared library such as libdumpi.so or liballprof's
    /// libmpipclog.so) after simpi's, so that both record the same run (repeatable).
    #[arg(long, value_name = "LIB")]
    chain: Vec<PathBuf>,
    /// Build the tracing library, print its path and stop.
    #[arg(long)]
    build_only: bool,
    /// The command: `mpirun -np 4 ./app args` (after `--`), or a singleton `./app`.
    #[arg(last = true)]
    command: Vec<String>,
}

/// Arguments of `simpi trace-info`.
#[derive(Args)]
pub struct TraceInfoArgs {
    /// A directory written by `simpi trace`.
    dir: PathBuf,
    /// Print per-rank counts as JSON.
    #[arg(long)]
    json: bool,
}

/// The exit code and message of a tracer error.
fn failure(e: Error) -> (u8, String) {
    let code = match e {
        Error::Usage(_) => 2,
        _ => EXIT_INPUT,
    };
    (code, e.to_string())
}

/// Runs `simpi trace`.
pub fn run(a: TraceArgs) -> Result<(), (u8, String)> {
    if a.build_only {
        let lib = simpi_tracer::build_library_with(&a.mpicc, a.otf2).map_err(failure)?;
        println!("{}", lib.display());
        return Ok(());
    }
    let traced = simpi_tracer::run(&TraceConfig {
        output: a.output,
        speed: a.speed,
        min_compute: a.min_compute,
        cpu_compute: a.cpu_compute,
        mpicc: a.mpicc,
        otf2: a.otf2,
        chain: a.chain,
        command: a.command,
    })
    .map_err(failure)?;
    match &traced.trace {
        Ok(t) => eprint!("{}", simpi_tracer::summary::human(t, &traced.dir)),
        Err(e) => eprintln!("simpi trace: {e}"),
    }
    traced.into_result().map(|_| ()).map_err(failure)
}

/// Runs `simpi trace-info`.
pub fn trace_info(a: TraceInfoArgs) -> Result<(), (u8, String)> {
    print!("{}", simpi_tracer::trace_info(&a.dir, a.json).map_err(failure)?);
    Ok(())
}
