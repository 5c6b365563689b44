//! liballprof traces (LogGOPSim's PMPI tracer): one text file per rank, each MPI call a
//! line `MPI_<Name>:<start>:<arguments>:<end>` with times in microseconds and the
//! call's arguments as its C wrapper prints them (`allprof/line.rs`). The trace is
//! given by rank 0's file (`pmpi-trace-rank-0.txt`); the other ranks' files are found
//! from its name (`allprof/files.rs`).
//!
//! A first pass reads every file once, checking every line and following
//! communicator handles to the communicators MPI_Comm_split and MPI_Comm_dup make
//! (`allprof/handles.rs`); then the trace runs as a rank program, each rank's file read
//! as the rank reaches it (`allprof/program.rs`), live in the engine ([`open_allprof`])
//! or converted into a whole schedule ([`read_allprof`]). Calls cost and expand as a TIT
//! trace's do ([`TitOptions`]); errors are [`TitError`]s, at a file and line. See
//! `docs/formats.md` for what is read and what is refused.

mod calls;
mod files;
mod handles;
mod line;
mod program;

pub use program::AllprofProgram;

use crate::tit::{TitError, TitOptions, TitTrace};
use crate::trace_program::whole_schedule;
use simpi_mpi::live::{OpRef, Program};
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// True if `path` looks like a liballprof trace file: it starts with the tracer's
/// banner, or its first line that is not a comment is a call with a start time.
pub fn looks_like_allprof(path: &Path) -> bool {
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if f.take(64 << 10).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    for l in text.lines() {
        let l = l.trim();
        if l.starts_with("# htor's PMPI Tracer") {
            return true;
        }
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let mut f = l.split(':');
        let name = f.next().unwrap_or("");
        let start = f.next().unwrap_or("");
        return name.len() > 4
            && name.starts_with("MPI_")
            && name[4..].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && (start == "-" || line::time(start).is_ok_and(|t| t.is_some()));
    }
    false
}

/// Number of ranks of the liballprof trace whose rank 0 file is `path` (the files that
/// follow it).
pub fn allprof_ranks(path: &Path) -> Result<u32, TitError> {
    Ok(files::rank_files(path)?.len() as u32)
}

fn open_program<'o, R: Copy + PartialEq + std::fmt::Debug>(
    path: &Path,
    opts: &'o TitOptions<'o>,
) -> Result<AllprofProgram<'o, R>, TitError> {
    let files = files::rank_files(path)?;
    let comms = program::scan_comms(&files)?;
    Ok(AllprofProgram::new(files, Arc::new(comms), opts))
}

/// Opens the liballprof trace whose rank 0 file is `path` as a program for the live
/// engine: every file is checked and its communicators found, then each rank's lines
/// are read as the rank reaches them.
pub fn open_allprof<'o>(path: &Path, opts: &'o TitOptions<'o>) -> Result<AllprofProgram<'o, OpRef>, TitError> {
    open_program(path, opts)
}

/// Reads the liballprof trace whose rank 0 file is `path` into a whole schedule.
pub fn read_allprof(path: &Path, opts: &TitOptions<'_>) -> Result<TitTrace, TitError> {
    let prog: AllprofProgram<'_, u32> = open_program(path, opts)?;
    whole_schedule(prog, |e, r, prog| match e {
        simpi_mpi::Error::Input { file, line, msg } => TitError { file, line, msg },
        other => TitError {
            file: prog.file(r).unwrap_or_default(),
            line: 0,
            msg: other.to_string(),
        },
    })
}
