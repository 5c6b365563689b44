//! `simpi schedgen`: writes GOAL schedules of common patterns.

use crate::{given, EXIT_INPUT, EXIT_USAGE};
use clap::{ArgMatches, Args};
use simpi::values;
use simpi_trace::schedgen::{generate_at_most, generate_random, Params, Pattern, RandomParams};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct SchedgenArgs {
    /// The pattern: binomial-bcast, binomial-reduce, rd-allreduce, ring-allreduce,
    /// dissemination-barrier, linear-alltoall, stencil3d, or random (for testing).
    #[arg(value_parser = pattern_or_random)]
    pattern: Generator,
    /// Number of ranks.
    #[arg(long, default_value_t = 8, value_parser = values::rank_count)]
    ranks: u32,
    /// Message size in bytes (whole vector for reductions, per pair for all-to-all, per
    /// face for the stencil).
    #[arg(long, default_value_t = 8)]
    bytes: u64,
    /// Number of repetitions.
    #[arg(long, default_value_t = 1, value_parser = values::at_least_one)]
    iterations: u32,
    /// Compute time at the start of every iteration, in GOAL time units.
    #[arg(long, default_value_t = 0)]
    compute: u64,
    /// stencil3d: the grid wraps around (a 3D torus: six neighbours each).
    #[arg(long)]
    periodic: bool,
    /// random: seed of the generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// random: number of messages (default: 4 per rank).
    #[arg(long)]
    messages: Option<u32>,
    /// random: number of computations (default: 2 per rank).
    #[arg(long)]
    computes: Option<u32>,
    /// random: CPUs per rank.
    #[arg(long, default_value_t = 1)]
    cpus: u8,
    /// random: NICs per rank.
    #[arg(long, default_value_t = 1)]
    nics: u8,
    /// Output file (default: standard output). It is created only once writing starts:
    /// a refused schedule leaves no file.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// The largest schedule written, estimated before writing: bytes, or with KiB, MiB,
    /// GiB or TiB (a pattern such as a ring allreduce grows as the square of the ranks).
    #[arg(long, default_value = "1GiB", value_parser = values::file_size)]
    max_size: u64,
}

/// A file created at the first write: nothing is left behind when the generator
/// refuses before writing.
struct CreateOnWrite {
    path: PathBuf,
    file: Option<std::fs::File>,
}

impl CreateOnWrite {
    fn file(&mut self) -> std::io::Result<&mut std::fs::File> {
        if self.file.is_none() {
            let f = std::fs::File::create(&self.path)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: cannot create: {e}", self.path.display())))?;
            self.file = Some(f);
        }
        Ok(self.file.as_mut().expect("just created"))
    }
}

impl Write for CreateOnWrite {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file()?.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file()?.flush()
    }
}

/// What writes the schedule.
#[derive(Copy, Clone)]
enum Generator {
    /// A named pattern.
    Pattern(Pattern),
    /// Random operations, for testing.
    Random,
}

/// A pattern's name, or `random`.
fn pattern_or_random(s: &str) -> Result<Generator, String> {
    if s == "random" {
        Ok(Generator::Random)
    } else {
        values::pattern(s)
            .map(Generator::Pattern)
            .map_err(|e| format!("{e}, random"))
    }
}

pub fn run(a: SchedgenArgs, m: &ArgMatches) -> Result<(), (u8, String)> {
    let random_only = ["seed", "messages", "computes", "cpus", "nics"];
    let Generator::Pattern(pattern) = a.pattern else {
        if let Some(flag) = ["iterations", "periodic"].into_iter().find(|f| given(m, f)) {
            return Err((EXIT_USAGE, format!("--{flag} is not a setting of the random pattern")));
        }
        return run_random(&a);
    };
    if let Some(flag) = random_only.into_iter().find(|f| given(m, f)) {
        return Err((EXIT_USAGE, format!("--{flag} is a setting of the random pattern only")));
    }
    if given(m, "periodic") && pattern != Pattern::Stencil3d {
        return Err((EXIT_USAGE, "--periodic is for the stencil3d pattern".into()));
    }
    let p = Params {
        ranks: a.ranks,
        bytes: a.bytes,
        iterations: a.iterations,
        compute: a.compute,
        periodic: a.periodic,
    };
    let io = |e: std::io::Error| match e.kind() {
        // Refused before writing: what was asked is the problem.
        std::io::ErrorKind::FileTooLarge => (EXIT_USAGE, format!("{e}; or raise --max-size")),
        std::io::ErrorKind::InvalidInput => (EXIT_USAGE, e.to_string()),
        _ => (EXIT_INPUT, format!("writing the schedule: {e}")),
    };
    match &a.output {
        Some(path) => {
            let f = CreateOnWrite {
                path: path.clone(),
                file: None,
            };
            generate_at_most(pattern, &p, f, a.max_size)
                .map_err(io)?
                .flush()
                .map_err(io)?;
        }
        None => {
            let out = std::io::stdout();
            let mut w = generate_at_most(pattern, &p, out.lock(), a.max_size).map_err(io)?;
            w.flush().map_err(io)?;
        }
    }
    Ok(())
}

fn run_random(a: &SchedgenArgs) -> Result<(), (u8, String)> {
    if a.cpus == 0 || a.nics == 0 {
        return Err((EXIT_USAGE, "--cpus and --nics must be at least 1".into()));
    }
    let p = RandomParams {
        ranks: a.ranks,
        messages: a.messages.unwrap_or(a.ranks.saturating_mul(4)),
        computes: a.computes.unwrap_or(a.ranks.saturating_mul(2)),
        max_bytes: a.bytes.max(1),
        max_compute: a.compute.max(1),
        cpus: a.cpus,
        nics: a.nics,
        seed: a.seed,
    };
    let io = |e: std::io::Error| (EXIT_INPUT, format!("writing the schedule: {e}"));
    match &a.output {
        Some(path) => {
            let f = std::fs::File::create(path)
                .map_err(|e| (EXIT_INPUT, format!("{}: cannot create: {e}", path.display())))?;
            generate_random(&p, f).map_err(io)?;
        }
        None => {
            let out = std::io::stdout();
            generate_random(&p, out.lock()).map_err(io)?.flush().map_err(io)?;
        }
    }
    Ok(())
}
