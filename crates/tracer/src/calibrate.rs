//! `simpi calibrate`'s measurement program (`simpi_calibrate.c`): built on first use
//! against the MPI of `mpicc`, run with the user's launcher; its samples come back as
//! text (`simpi::calibrate::measurements` reads and fits them).

use crate::{cache_root, io, tempdir, Error};
use std::process::Command;

/// The program's source, compiled on the user's machine.
const CALIBRATE_C: &str = include_str!("../simpi_calibrate.c");

/// Which of the program's measurements a run takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Everything.
    All,
    /// Only the pair of ranks 0 and 1 (best run with two ranks, alone).
    Pair,
    /// Only what ranks sharing CPUs do: the compute kernel, a waiting rank's claim on
    /// the cores, the all-to-all (run with every rank that shares them).
    Cpus,
}

impl Part {
    /// The program's argument for it.
    fn arg(self) -> &'static str {
        match self {
            Part::All => "all",
            Part::Pair => "pair",
            Part::Cpus => "cpus",
        }
    }
}

/// What to measure and how to launch it.
#[derive(Clone, Debug)]
pub struct CalibrateConfig {
    /// The MPI compiler wrapper whose MPI is measured.
    pub mpicc: String,
    /// The launcher's words before the program, e.g. `mpirun -np 2`, or `simpi testbed
    /// --nodes 2 --`.
    pub launcher: Vec<String>,
    /// Message sizes, in bytes.
    pub sizes: Vec<u64>,
    /// Samples per size and kind (fewer for sizes whose ping-pong takes long).
    pub repeats: u32,
    /// Which measurements to take.
    pub part: Part,
}

/// Builds the program, runs it under the launcher and returns what it wrote.
pub fn run(c: &CalibrateConfig) -> Result<String, Error> {
    if c.launcher.is_empty() {
        return Err(Error::Usage(
            "give the launcher after --, e.g. simpi calibrate -o p.toml --platform P -- mpirun -np 2".into(),
        ));
    }
    if c.sizes.is_empty() || c.repeats == 0 {
        return Err(Error::Usage(
            "--sizes and --repeats need at least one value each".into(),
        ));
    }
    if c.sizes.len() > 512 {
        return Err(Error::Usage(format!("--sizes: {} sizes, at most 512", c.sizes.len())));
    }
    if let Some(big) = c.sizes.iter().find(|&&s| s > i32::MAX as u64) {
        return Err(Error::Usage(format!(
            "--sizes: {big} bytes is more than one MPI_Send of bytes can carry"
        )));
    }
    let exe = crate::program::build("simpi_calibrate", CALIBRATE_C, &c.mpicc)?;
    let work = tempdir(&cache_root())?;
    let out = work.join("measurements.txt");
    let list: Vec<String> = c.sizes.iter().map(u64::to_string).collect();
    let status = Command::new(&c.launcher[0])
        .args(&c.launcher[1..])
        .arg(&exe)
        .arg(&out)
        .arg(list.join(","))
        .arg(c.repeats.to_string())
        .arg(c.part.arg())
        .status()
        .map_err(|error| Error::Run {
            program: c.launcher[0].clone(),
            error,
        })?;
    if !status.success() {
        let _ = std::fs::remove_dir_all(&work);
        return Err(Error::CommandFailed { status, dir: work });
    }
    let text = std::fs::read_to_string(&out).map_err(io("read", &out));
    let _ = std::fs::remove_dir_all(&work);
    text.map_err(|_| {
        Error::Usage(format!(
            "{} ended without the measurement writing its samples: the words after -- must launch a program (e.g. mpirun -np 2)",
            c.launcher.join(" ")
        ))
    })
}
