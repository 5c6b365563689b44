//! `simpi bench -o FILE -- mpirun -np 8`: measures one-way message times with the
//! user's MPI (MPIBench's method, `simpi_tracer::bench`) and writes them as the
//! distributions file the stochastic model draws from.

use crate::{EXIT_INPUT, EXIT_USAGE};
use clap::Args;
use simpi::Distributions;
use simpi_tracer::bench::{BenchConfig, Pattern, Sample};
use simpi_tracer::Error;
use std::path::PathBuf;

/// Arguments of `simpi bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// The distributions file to write (docs/models.md, "Stochastic model").
    #[arg(short = 'o', long, default_value = "simpi-bench.dist")]
    output: PathBuf,
    /// Message sizes in bytes [default: 0 and the powers of two up to 1 MiB].
    #[arg(long, value_delimiter = ',', value_name = "BYTES,...")]
    sizes: Vec<u64>,
    /// Protocol thresholds of the MPI (e.g. its eager limit): each is measured with the
    /// sizes one below and one above, where times jump.
    #[arg(long, value_delimiter = ',', value_name = "BYTES,...")]
    thresholds: Vec<u64>,
    /// Contention levels: how many pairs of ranks send at once (rank i sends to i + n/2;
    /// each level at most n/2), or with `--pattern fan-in` how many ranks send to rank 0
    /// at once (at most n - 1).
    #[arg(long, value_delimiter = ',', value_name = "SENDERS,...", default_value = "1")]
    levels: Vec<u32>,
    /// Who sends at a level: `pairs` (MPIBench's: on one switch they share no link) or
    /// `fan-in` (k senders into one rank: k messages on its links, contention as the
    /// stochastic model's per-link scoreboard counts it).
    #[arg(long, default_value = "pairs", value_parser = pattern)]
    pattern: Pattern,
    /// Timed messages per pair, size and level.
    #[arg(long, default_value_t = 200)]
    repeats: u32,
    /// Untimed messages before them.
    #[arg(long, default_value_t = 10)]
    warmup: u32,
    /// Histogram buckets per factor of ten in time.
    #[arg(long, default_value_t = 20)]
    buckets_per_decade: u32,
    /// Also keep every sample here (`<bytes> <level> <seconds>` per line).
    #[arg(long, value_name = "FILE")]
    samples: Option<PathBuf>,
    /// The MPI compiler wrapper whose MPI is measured.
    #[arg(long, default_value = "mpicc")]
    mpicc: String,
    /// The launcher's words before the program (after `--`): `mpirun -np 8`, or
    /// `simpi testbed --nodes 8 --` for the emulated cluster.
    #[arg(last = true)]
    launcher: Vec<String>,
}

/// `--pattern`'s value.
fn pattern(s: &str) -> Result<Pattern, String> {
    Pattern::by_name(s).ok_or_else(|| format!("'{s}' is not a pattern: expected pairs or fan-in"))
}

/// The default sizes: 0, then 1 B to 1 MiB by factors of two.
fn default_sizes() -> Vec<u64> {
    std::iter::once(0).chain((0..=20).map(|k| 1u64 << k)).collect()
}

/// Runs `simpi bench`.
pub fn run(a: BenchArgs) -> Result<(), (u8, String)> {
    let mut sizes = if a.sizes.is_empty() {
        default_sizes()
    } else {
        a.sizes.clone()
    };
    for &t in &a.thresholds {
        sizes.extend([t.saturating_sub(1), t, t.saturating_add(1)]);
    }
    sizes.sort_unstable();
    sizes.dedup();
    if a.buckets_per_decade == 0 {
        return Err((EXIT_USAGE, "--buckets-per-decade must be at least 1".into()));
    }
    let c = BenchConfig {
        mpicc: a.mpicc.clone(),
        launcher: a.launcher.clone(),
        sizes,
        levels: a.levels.clone(),
        repeats: a.repeats,
        warmup: a.warmup,
        pattern: a.pattern,
    };
    let samples = simpi_tracer::bench::run(&c).map_err(|e| match e {
        Error::Usage(m) => (EXIT_USAGE, m),
        e => (EXIT_INPUT, e.to_string()),
    })?;
    if let Some(path) = &a.samples {
        let text: String = samples
            .iter()
            .map(|s| format!("{} {} {:e}\n", s.bytes, s.level, s.seconds))
            .collect();
        std::fs::write(path, text).map_err(|e| (EXIT_INPUT, format!("{}: cannot write: {e}", path.display())))?;
    }
    let triples: Vec<(u64, u32, f64)> = samples.iter().map(|s| (s.bytes, s.level, s.seconds)).collect();
    let d = Distributions::from_samples(&triples, a.buckets_per_decade).map_err(|m| (EXIT_INPUT, m))?;
    let comment = format!(
        "One-way message times measured by simpi bench (MPIBench's method): {} timed messages\n\
         per sender, size and level after {} untimed; {}; clocks offset-corrected\n\
         by ping-pong. Launcher: {}",
        a.repeats,
        a.warmup,
        a.pattern.levels(),
        a.launcher.join(" ")
    );
    std::fs::write(&a.output, d.to_text(&comment))
        .map_err(|e| (EXIT_INPUT, format!("{}: cannot write: {e}", a.output.display())))?;
    print!("{}", summary(&samples));
    println!("wrote {}", a.output.display());
    Ok(())
}

/// One line per size and level: samples, median, mean and 95th percentile in us, and
/// how many came out at or below zero (clock offsets corrected too far).
fn summary(samples: &[Sample]) -> String {
    let mut keys: Vec<(u64, u32)> = samples.iter().map(|s| (s.bytes, s.level)).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut out = format!(
        "{:>9} {:>6} {:>7} {:>11} {:>11} {:>11} {:>6}\n",
        "bytes", "level", "samples", "median us", "mean us", "p95 us", "<=0"
    );
    for (bytes, level) in keys {
        let mut t: Vec<f64> = samples
            .iter()
            .filter(|s| s.bytes == bytes && s.level == level)
            .map(|s| s.seconds * 1e6)
            .collect();
        t.sort_by(f64::total_cmp);
        let n = t.len();
        let mean = t.iter().sum::<f64>() / n as f64;
        let p95 = t[((n as f64 * 0.95).ceil() as usize).clamp(1, n) - 1];
        let low = t.iter().filter(|&&x| x <= 0.0).count();
        out.push_str(&format!(
            "{bytes:>9} {level:>6} {n:>7} {:>11.3} {mean:>11.3} {p95:>11.3} {low:>6}\n",
            t[n / 2]
        ));
    }
    out
}
