//! `simpi schedgen`: writes GOAL schedules of common patterns.

use crate::EXIT_INPUT;
use clap::Args;
use simpi_trace::schedgen::{generate, Params, Pattern};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct SchedgenArgs {
    /// The pattern: binomial-bcast, binomial-reduce, rd-allreduce, ring-allreduce,
    /// dissemination-barrier, linear-alltoall or stencil3d.
    pattern: String,
    /// Number of ranks.
    #[arg(long, default_value_t = 8)]
    ranks: u32,
    /// Message size in bytes (whole vector for reductions, per pair for all-to-all, per
    /// face for the stencil).
    #[arg(long, default_value_t = 8)]
    bytes: u64,
    /// Number of repetitions.
    #[arg(long, default_value_t = 1)]
    iterations: u32,
    /// Compute time at the start of every iteration, in GOAL time units.
    #[arg(long, default_value_t = 0)]
    compute: u64,
    /// Output file (default: standard output).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(a: SchedgenArgs) -> Result<(), (u8, String)> {
    let pattern = Pattern::from_name(&a.pattern).ok_or_else(|| {
        let names: Vec<&str> = Pattern::ALL.iter().map(|(_, n, _)| *n).collect();
        (
            EXIT_INPUT,
            format!(
                "unknown pattern '{}': expected one of {}",
                a.pattern,
                names.join(", ")
            ),
        )
    })?;
    if a.ranks == 0 || a.ranks == u32::MAX {
        return Err((
            EXIT_INPUT,
            format!("--ranks must be between 1 and {}", u32::MAX - 1),
        ));
    }
    if a.iterations == 0 {
        return Err((EXIT_INPUT, "--iterations must be at least 1".into()));
    }
    let p = Params {
        ranks: a.ranks,
        bytes: a.bytes,
        iterations: a.iterations,
        compute: a.compute,
    };
    let io = |e: std::io::Error| (EXIT_INPUT, format!("writing the schedule: {e}"));
    match &a.output {
        Some(path) => {
            let f = std::fs::File::create(path).map_err(|e| {
                (
                    EXIT_INPUT,
                    format!("{}: cannot create: {e}", path.display()),
                )
            })?;
            generate(pattern, &p, f).map_err(io)?;
        }
        None => {
            let out = std::io::stdout();
            let mut w = generate(pattern, &p, out.lock()).map_err(io)?;
            w.flush().map_err(io)?;
        }
    }
    Ok(())
}
