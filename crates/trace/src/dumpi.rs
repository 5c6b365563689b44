//! DUMPI traces (SST's binary MPI traces, written by sst-dumpi's `libdumpi`), read by a
//! decoder written from the format, without the library.
//!
//! A run leaves a text `.meta` file (`numprocs=`, `fileprefix=`...) and one binary
//! file per rank, `<fileprefix>-<rank, 4 digits>.bin` (`dumpi/record.rs`: its index,
//! header, datatype sizes and call records; `dumpi/layouts.rs`: each call's fields).
//! The input is the `.meta` file or any rank's `.bin` file. A pre-pass reads every
//! rank's communicator calls (`dumpi/comms.rs`); then the trace runs live, each rank's
//! file read as the rank reaches its calls ([`open_dumpi`]), or is converted into a
//! whole schedule ([`read_dumpi`]). Calls cost and expand as a TIT trace's do
//! ([`TitOptions`]); `dumpi/program.rs` says what each call becomes. See
//! `docs/formats.md`.

mod comms;
mod layouts;
mod program;
mod record;

pub use program::DumpiProgram;

use crate::tit::TitOptions;
use crate::trace_program::whole_schedule;
use comms::Tracker;
use record::{Arg, BinReader};
use simpi_mpi::comm::{CommTable, Creation};
use simpi_mpi::live::OpRef;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most ranks a trace may have (its `numprocs`).
const MAX_RANKS: u32 = 1 << 24;

/// A problem in a DUMPI trace; the message names the file (and the record's byte offset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpiError(pub String);

impl fmt::Display for DumpiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DumpiError {}

/// A trace converted into a whole schedule (every reader's: [`crate::tit::TitTrace`]).
pub type DumpiTrace = crate::tit::TitTrace;

/// One call record as decoded, for inspection (`dumpi2ascii` shows the same).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpiCall {
    /// The MPI function (`MPI_Send`...).
    pub name: &'static str,
    /// Byte offset of the record in its file.
    pub offset: u64,
    /// Wall-clock entry and exit, in ns since the epoch the file's bias counts from.
    pub wall: Option<(u64, u64)>,
    /// CPU-time entry and exit, in ns.
    pub cpu: Option<(u64, u64)>,
    /// The thread.
    pub thread: Option<u16>,
    /// Integer fields in stream order (arrays, statuses and strings are left out).
    pub ints: Vec<i64>,
}

/// True if `path` looks like a DUMPI trace: a rank file's magic, or a `.meta` file's
/// keys.
pub fn looks_like_dumpi(path: &Path) -> bool {
    use std::io::Read;
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if f.take(4096).read_to_end(&mut head).is_err() {
        return false;
    }
    if head.len() >= 8 && u64::from_be_bytes(head[..8].try_into().expect("8 bytes")) == record::MAGIC {
        return true;
    }
    let text = String::from_utf8_lossy(&head);
    let has = |k: &str| text.lines().any(|l| l.starts_with(k));
    has("numprocs=") && has("fileprefix=")
}

/// The rank files of the trace at `path` (a `.meta` or a `.bin` file), in rank order.
pub fn dumpi_files(path: &Path) -> Result<Vec<PathBuf>, DumpiError> {
    let shown = path.display().to_string();
    let err = |m: String| DumpiError(format!("{shown}: {m}"));
    let dir = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let is_bin = bytes.len() >= 8 && u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes")) == record::MAGIC;
    let (prefix, ranks) = if is_bin {
        // `<prefix>-NNNN.bin`: its meta file if there is one, else the files present.
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let stem = name
            .strip_suffix(".bin")
            .and_then(|s| s.rsplit_once('-'))
            .map(|(p, _)| p.to_string());
        let Some(prefix) = stem else {
            return Ok(vec![path.to_path_buf()]);
        };
        let meta = dir.join(format!("{prefix}.meta"));
        if meta.is_file() {
            return dumpi_files(&meta);
        }
        let mut n = 0u32;
        while dir.join(rank_file(&prefix, n)).is_file() {
            n += 1;
        }
        if n == 0 {
            return Ok(vec![path.to_path_buf()]);
        }
        (prefix, n)
    } else {
        let text = String::from_utf8_lossy(&bytes);
        let mut prefix = None;
        let mut ranks = None;
        for (k, line) in text.lines().enumerate() {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            match key.trim() {
                "fileprefix" => prefix = Some(value.trim().to_string()),
                "numprocs" => {
                    let n: u32 = value
                        .trim()
                        .parse()
                        .map_err(|_| DumpiError(format!("{shown}:{}: numprocs is not a count: {value}", k + 1)))?;
                    if n == 0 || n > MAX_RANKS {
                        return Err(DumpiError(format!(
                            "{shown}:{}: numprocs {n} is out of range (1 to {MAX_RANKS})",
                            k + 1
                        )));
                    }
                    ranks = Some(n);
                }
                _ => {}
            }
        }
        let prefix = prefix.ok_or_else(|| err("no fileprefix= line: not a DUMPI .meta file".into()))?;
        let ranks = ranks.ok_or_else(|| err("no numprocs= line: not a DUMPI .meta file".into()))?;
        // The prefix may be a path as the program saw it: its file name is beside the meta.
        let prefix = Path::new(&prefix)
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .ok_or_else(|| err(format!("fileprefix '{prefix}' names no file")))?;
        (prefix, ranks)
    };
    Ok((0..ranks).map(|r| dir.join(rank_file(&prefix, r))).collect())
}

/// Rank `r`'s file name.
fn rank_file(prefix: &str, r: u32) -> String {
    format!("{prefix}-{r:04}.bin")
}

/// Number of ranks of the trace at `path`.
pub fn dumpi_ranks(path: &Path) -> Result<u32, DumpiError> {
    Ok(dumpi_files(path)?.len() as u32)
}

/// Every call record of one rank's `.bin` file, decoded.
pub fn dumpi_calls(bin: &Path) -> Result<Vec<DumpiCall>, DumpiError> {
    let mut rd = BinReader::open(bin).map_err(DumpiError)?;
    let mut out = Vec::new();
    while let Some(rec) = rd.next_record().map_err(DumpiError)? {
        out.push(DumpiCall {
            name: rec.name(),
            offset: rec.offset,
            wall: rec.wall.map(|s| (s.start, s.stop)),
            cpu: rec.cpu.map(|s| (s.start, s.stop)),
            thread: rec.thread,
            ints: rec
                .args
                .iter()
                .filter_map(|a| match a {
                    Arg::Int(v) => Some(*v),
                    _ => None,
                })
                .collect(),
        });
    }
    Ok(out)
}

/// The communicators the ranks' files create, from a pass over every file.
fn comm_table(files: &[PathBuf]) -> Result<CommTable, DumpiError> {
    let p = files.len() as u32;
    let mut all = Vec::with_capacity(files.len());
    for (r, f) in files.iter().enumerate() {
        let mut rd = BinReader::open(f).map_err(DumpiError)?;
        let mut t = Tracker::new(p, r as u32);
        let mut made: Vec<(Creation, u32)> = Vec::new();
        while let Some(rec) = rd.next_record().map_err(DumpiError)? {
            let c = t.follow(&rec).map_err(|m| {
                DumpiError(format!(
                    "{}: record {} (byte {}, {}): {m}",
                    f.display(),
                    rd.records(),
                    rec.offset,
                    rec.name()
                ))
            })?;
            if let Some(c) = c {
                made.push((c, rd.records().min(u32::MAX as u64) as u32));
            }
        }
        debug_assert_eq!(t.ranks(), p);
        all.push(made);
    }
    CommTable::build(p, &all)
        .map_err(|(r, rec, m)| DumpiError(format!("{}: record {rec}: {m}", files[r as usize].display())))
}

fn open_program<'o, R: Copy + PartialEq + std::fmt::Debug>(
    path: &Path,
    opts: &'o TitOptions<'o>,
) -> Result<DumpiProgram<'o, R>, DumpiError> {
    let files = dumpi_files(path)?;
    let table = comm_table(&files)?;
    Ok(DumpiProgram::new(files, Arc::new(table), opts))
}

/// Opens the DUMPI trace at `path` (its `.meta` or a `.bin` file) as a program for the
/// live engine: its communicators are read first, each rank's calls as it reaches them.
pub fn open_dumpi<'o>(path: &Path, opts: &'o TitOptions<'o>) -> Result<DumpiProgram<'o, OpRef>, DumpiError> {
    open_program(path, opts)
}

/// Reads the DUMPI trace at `path` into a whole schedule.
pub fn read_dumpi(path: &Path, opts: &TitOptions<'_>) -> Result<DumpiTrace, DumpiError> {
    let prog: DumpiProgram<'_, u32> = open_program(path, opts)?;
    whole_schedule(prog, |e, _, _| DumpiError(e.to_string()))
}
