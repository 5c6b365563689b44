//! `simpi bench`'s measurement program (`simpi_bench.c`, MPIBench's method): built on
//! first use against the MPI of `mpicc`, run with the user's launcher, its samples read
//! back. Turning samples into histograms is the network model's business
//! (`simpi_net::Distributions::from_samples`).

use crate::{cache_root, io, tempdir, Error};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The program's source, compiled on the user's machine.
const BENCH_C: &str = include_str!("../simpi_bench.c");

/// Who sends to whom at a contention level.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Level k: pairs 0..k-1 send at once, rank i to rank i + n/2 (MPIBench's). On one
    /// switch the pairs share no link.
    Pairs,
    /// Level k: ranks 1..k send to rank 0 at once: k messages share the links into it,
    /// contention as the stochastic model's scoreboard counts it.
    FanIn,
}

impl Pattern {
    /// Its name on the command line and the program's.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Pairs => "pairs",
            Pattern::FanIn => "fan-in",
        }
    }

    /// The pattern of that name.
    pub fn by_name(name: &str) -> Option<Pattern> {
        [Pattern::Pairs, Pattern::FanIn].into_iter().find(|p| p.name() == name)
    }

    /// Who sends at level k, as the distributions file's header says.
    pub fn levels(self) -> &'static str {
        match self {
            Pattern::Pairs => "level k: pairs rank i -> i + n/2, i < k",
            Pattern::FanIn => "level k: ranks 1..k -> rank 0 at once",
        }
    }
}

/// What to measure and how to launch it.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// The MPI compiler wrapper whose MPI is measured.
    pub mpicc: String,
    /// The launcher's words before the program, e.g. `mpirun -np 8`, or `simpi
    /// testbed --nodes 8 --`.
    pub launcher: Vec<String>,
    /// Message sizes, in bytes.
    pub sizes: Vec<u64>,
    /// Contention levels: how many pairs send at once (each at most half the ranks), or
    /// with [`Pattern::FanIn`] how many ranks send to rank 0 at once (at most n - 1).
    pub levels: Vec<u32>,
    /// Timed messages per pair, size and level.
    pub repeats: u32,
    /// Untimed messages before them.
    pub warmup: u32,
    /// Who sends to whom.
    pub pattern: Pattern,
}

/// One measured message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Its size.
    pub bytes: u64,
    /// Pairs sending at once.
    pub level: u32,
    /// One-way time, seconds (receiver's clock minus sender's, offset corrected).
    pub seconds: f64,
}

/// Builds (or finds in the cache) the measurement program for the MPI of `mpicc`.
pub fn build(mpicc: &str) -> Result<PathBuf, Error> {
    crate::program::build("simpi_bench", BENCH_C, mpicc)
}

/// A comma-separated list, as the program reads it.
fn list<T: ToString>(v: &[T]) -> String {
    v.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

/// Builds the program, runs it under the launcher and reads its samples.
pub fn run(c: &BenchConfig) -> Result<Vec<Sample>, Error> {
    if c.launcher.is_empty() {
        return Err(Error::Usage(
            "give the launcher after --, e.g. simpi bench -o d.dist -- mpirun -np 4".into(),
        ));
    }
    if c.sizes.is_empty() || c.levels.is_empty() || c.repeats == 0 {
        return Err(Error::Usage(
            "--sizes, --levels and --repeats need at least one value each".into(),
        ));
    }
    if let Some(big) = c.sizes.iter().find(|&&s| s > i32::MAX as u64) {
        return Err(Error::Usage(format!(
            "--sizes: {big} bytes is more than one MPI_Send of bytes can carry"
        )));
    }
    // The measurement program's lists hold 256 values each.
    if c.sizes.len() > 256 {
        return Err(Error::Usage(format!("--sizes: {} sizes, at most 256", c.sizes.len())));
    }
    if c.levels.len() > 256 {
        return Err(Error::Usage(format!(
            "--levels: {} levels, at most 256",
            c.levels.len()
        )));
    }
    if c.levels.contains(&0) {
        return Err(Error::Usage("--levels count senders at once, from 1".into()));
    }
    let exe = build(&c.mpicc)?;
    let root = cache_root();
    let work = tempdir(&root)?;
    let samples_path = work.join("samples.txt");
    let status = Command::new(&c.launcher[0])
        .args(&c.launcher[1..])
        .arg(&exe)
        .arg(&samples_path)
        .arg(list(&c.sizes))
        .arg(list(&c.levels))
        .arg(c.repeats.to_string())
        .arg(c.warmup.to_string())
        .arg(c.pattern.name())
        .status()
        .map_err(|error| Error::Run {
            program: c.launcher[0].clone(),
            error,
        })?;
    if !status.success() {
        let _ = std::fs::remove_dir_all(&work);
        return Err(Error::CommandFailed { status, dir: work });
    }
    if !samples_path.exists() {
        let _ = std::fs::remove_dir_all(&work);
        return Err(Error::Usage(format!(
            "{} ended without the measurement writing its samples: the words after -- must launch a program (e.g. mpirun -np 4)",
            c.launcher.join(" ")
        )));
    }
    let read = read_samples(&samples_path);
    let _ = std::fs::remove_dir_all(&work);
    read
}

/// Reads the program's `<bytes> <level> <seconds>` lines.
pub fn read_samples(path: &Path) -> Result<Vec<Sample>, Error> {
    let text = std::fs::read_to_string(path).map_err(io("read", path))?;
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bad = |message: &'static str| Error::Format {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let w: Vec<&str> = line.split_whitespace().collect();
        let [bytes, level, seconds] = w.as_slice() else {
            return Err(bad("expected '<bytes> <level> <seconds>'"));
        };
        v.push(Sample {
            bytes: bytes.parse().map_err(|_| bad("a size is a whole number of bytes"))?,
            level: level.parse().map_err(|_| bad("a level is a whole number of pairs"))?,
            seconds: seconds
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite())
                .ok_or_else(|| bad("a time is a finite number of seconds"))?,
        });
    }
    if v.is_empty() {
        return Err(Error::Format {
            path: path.to_path_buf(),
            line: 0,
            message: "the measurement wrote no sample",
        });
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_read_and_faults_named() {
        let d = std::env::temp_dir().join(format!("simpi-bench-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("s.txt");
        std::fs::write(&p, "8 1 4.0e-06\n1024 2 1.5e-05\n").unwrap();
        let s = read_samples(&p).unwrap();
        assert_eq!(
            s,
            vec![
                Sample {
                    bytes: 8,
                    level: 1,
                    seconds: 4e-6
                },
                Sample {
                    bytes: 1024,
                    level: 2,
                    seconds: 1.5e-5
                }
            ]
        );
        std::fs::write(&p, "8 1 4.0e-06\n8 x 1\n").unwrap();
        let e = read_samples(&p).unwrap_err().to_string();
        assert!(e.ends_with("s.txt:2: a level is a whole number of pairs"), "{e}");
        std::fs::write(&p, "8 1 nan\n").unwrap();
        assert!(read_samples(&p).unwrap_err().to_string().contains("finite number"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
