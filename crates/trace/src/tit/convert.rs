//! Reading a TIT trace: its index or file ([`super::source`]), the communicators every
//! rank creates (a first pass over the text: a rank may use a communicator whose other
//! members create it later), then the trace as a rank program ([`super::program`]),
//! either run into a whole schedule ([`read_tit`], for export) or handed to the engine
//! to run live ([`open_tit`]), each rank's file read as the rank reaches it.

use super::actions::{parse, Action};
use super::program::{words, Args, TitOptions, TitProgram};
use super::source::{Source, SourceError};
use crate::quote::{quote, BOM};
use simpi_mpi::calls::RankCalls;
use simpi_mpi::comm::{CommTable, Creation};
use simpi_mpi::live::{OpRef, Program, Step};
use simpi_mpi::{CallRecord, Error, Schedule, ScheduleBuilder};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// A trace converted into a whole schedule.
#[derive(Debug)]
pub struct TitTrace {
    /// The schedule.
    pub schedule: Schedule,
    /// Its communicators.
    pub comms: Arc<CommTable>,
    /// Every MPI call, in each rank's program order (empty unless
    /// [`TitOptions::calls`]).
    pub calls: Vec<CallRecord>,
    /// Things the user should know.
    pub warnings: Vec<String>,
}

/// A problem in a trace, with its file and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TitError {
    /// File.
    pub file: String,
    /// 1-based line, 0 if not at a line.
    pub line: u32,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for TitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.msg)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.msg)
        }
    }
}

impl std::error::Error for TitError {}

impl From<SourceError> for TitError {
    fn from(e: SourceError) -> Self {
        TitError {
            file: e.file,
            line: e.line,
            msg: e.msg,
        }
    }
}

/// The [`TitError`] of an error a rank's program met.
fn tit_error(e: Error, file: &Path) -> TitError {
    match e {
        Error::Input { file, line, msg } => TitError { file, line, msg },
        other => TitError {
            file: file.display().to_string(),
            line: 0,
            msg: other.to_string(),
        },
    }
}

/// Number of ranks of the TIT trace at `path` (reads only the index, or the shared file).
pub fn tit_ranks(path: &Path) -> Result<u32, TitError> {
    Ok(Source::open(path)?.ranks() as u32)
}

/// True if `path` looks like a TIT trace or index rather than a GOAL schedule: its first
/// meaningful line (after a byte-order mark, blank lines and `#` comments) is
/// `<rank> <action>` or a file name, not GOAL's `num_ranks N` or `rank R {`, nor a GOAL
/// comment (`//`, `/*`: TIT has none). Reads at most the first 1 MiB.
pub fn looks_like_tit(path: &Path) -> bool {
    use std::io::Read;
    let Ok(f) = std::fs::File::open(path) else { return false };
    let mut head = Vec::new();
    if f.take(1 << 20).read_to_end(&mut head).is_err() {
        return false;
    }
    let head = head.strip_prefix(BOM).unwrap_or(&head);
    let text = String::from_utf8_lossy(head);
    for line in text.lines().take(1000) {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with("//") || t.starts_with("/*") {
            return false;
        }
        let mut w = t.split_ascii_whitespace();
        return match (w.next(), w.next()) {
            (Some("num_ranks"), _) => false,
            (Some("rank"), Some(r)) => !r.starts_with(|c: char| c.is_ascii_digit()),
            _ => true,
        };
    }
    false
}

/// Traces with at least this many ranks are read on two threads where that helps (the
/// communicator pass, and conversion into a schedule).
pub const PARALLEL_RANKS: u32 = 8;

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Opens the TIT trace at `path` (index file or trace file) as a program for the live
/// engine: its communicators are known, its lines are read as ranks reach them.
pub fn open_tit<'o>(path: &Path, opts: &'o TitOptions<'o>) -> Result<TitProgram<'o, OpRef>, TitError> {
    let (src, comms) = open_with(path, threads())?;
    Ok(TitProgram::new(src, comms, opts, threads() >= 2))
}

/// Reads the TIT trace at `path` (index file or trace file) into a whole schedule.
pub fn read_tit(path: &Path, opts: &TitOptions<'_>) -> Result<TitTrace, TitError> {
    read_tit_on(path, opts, threads())
}

/// [`read_tit`] with at most `threads` threads: traces of [`PARALLEL_RANKS`] ranks or more
/// are read in two halves when `threads >= 2`, with the same result as one pass.
pub fn read_tit_on(path: &Path, opts: &TitOptions<'_>, threads: usize) -> Result<TitTrace, TitError> {
    let (src, comms) = open_with(path, threads)?;
    let p = src.ranks() as u32;
    let two = p >= PARALLEL_RANKS && threads >= 2;
    let convert = |ranks: std::ops::Range<u32>| -> Result<(Schedule, TitProgram<'_, u32>), TitError> {
        let mut prog = TitProgram::<u32>::new(Arc::clone(&src), Arc::clone(&comms), opts, false);
        let mut b = ScheduleBuilder::new(p);
        for r in ranks {
            let file = src.file_of(r as usize);
            let at0 = |e: simpi_mpi::BuildError| TitError {
                file: file.display().to_string(),
                line: 0,
                msg: e.to_string(),
            };
            b.begin_rank(r as u64).map_err(at0)?;
            let mut calls = RankCalls::<u32>::new(r);
            loop {
                match prog.step(r, &mut calls, &mut b).map_err(|e| tit_error(e, file))? {
                    Step::Called => {}
                    Step::Ended => break,
                    Step::Pause => unreachable!("a trace never pauses"),
                }
            }
            b.end_rank().map_err(at0)?;
            prog.done_with(r as usize);
        }
        Ok((b.finish(), prog))
    };
    let (first, second) = if two {
        let mid = p / 2;
        std::thread::scope(|sc| {
            let upper = sc.spawn(|| convert(mid..p));
            let lower = convert(0..mid);
            (lower, Some(upper.join().expect("conversion thread panicked")))
        })
    } else {
        (convert(0..p), None)
    };
    // The lower half's error comes first, as in a sequential pass.
    let (mut schedule, mut prog) = first?;
    if let Some(second) = second {
        let (upper, mut prog2) = second?;
        schedule.append(upper).map_err(|e| TitError {
            file: src.file_of(0).display().to_string(),
            line: 0,
            msg: e.to_string(),
        })?;
        prog.absorb(&mut prog2);
    }
    Ok(TitTrace {
        schedule,
        comms,
        calls: prog.take_calls(),
        warnings: prog.warnings(),
    })
}

/// The source and its communicators.
fn open_with(path: &Path, threads: usize) -> Result<(Arc<Source>, Arc<CommTable>), TitError> {
    let src = Source::open(path)?;
    let p = src.ranks() as u32;
    if p == 0 {
        return Err(TitError {
            file: path.display().to_string(),
            line: 0,
            msg: "the trace has no rank".into(),
        });
    }
    let comms = scan_comms(&src, p >= PARALLEL_RANKS && threads >= 2)?;
    Ok((Arc::new(src), Arc::new(comms)))
}

/// Text that every action [`is_creator`] accepts contains.
const CREATOR_TEXT: &[&str] = &["comm_", "cart_", "graph_"];

/// Actions that may define a communicator.
fn is_creator(name: &str) -> bool {
    name.starts_with("comm_")
        || matches!(
            name,
            "cart_create" | "cart_sub" | "graph_create" | "dist_graph_create" | "dist_graph_create_adjacent"
        )
}

/// The communicators every rank's creation calls define (in two halves on two threads
/// for large traces).
fn scan_comms(src: &Source, two: bool) -> Result<CommTable, TitError> {
    let p = src.ranks() as u32;
    type Found = (Vec<Vec<(Creation, u32)>>, Vec<String>);
    let find = |ranks: std::ops::Range<u32>| -> Result<Found, TitError> {
        let mut creations: Vec<Vec<(Creation, u32)>> = Vec::with_capacity(ranks.len());
        let mut files: Vec<String> = Vec::with_capacity(ranks.len());
        let mut skipped = 0;
        for r in ranks {
            files.push(src.file_of(r as usize).display().to_string());
            // Most ranks create no communicator: one search of their text instead of
            // splitting every line.
            if !src.mentions(r as usize, CREATOR_TEXT)? {
                creations.push(Vec::new());
                continue;
            }
            let mut found = Vec::new();
            let mut cur = src.cursor(r as usize);
            while let Some((line, text)) = src.next_line(&mut cur, r as usize, &mut skipped)? {
                let (_, name, rest) = words(text);
                if !is_creator(name) {
                    continue;
                }
                let mut args = Args::default();
                let args = args.collect(rest);
                if args.is_empty() {
                    continue;
                }
                let at = |msg: String| TitError {
                    file: src.file_of(r as usize).display().to_string(),
                    line,
                    msg,
                };
                let Action::Comm(c) = parse(name, args, 0, false).map_err(at)? else {
                    continue;
                };
                found.push((*c, line));
            }
            creations.push(found);
        }
        Ok((creations, files))
    };
    let (creations, files) = if two {
        let mid = p / 2;
        let (lower, upper) = std::thread::scope(|sc| {
            let upper = sc.spawn(|| find(mid..p));
            (find(0..mid), upper.join().expect("trace reader thread panicked"))
        });
        let (mut c, mut f) = lower?;
        let (c2, f2) = upper?;
        c.extend(c2);
        f.extend(f2);
        (c, f)
    } else {
        find(0..p)?
    };
    let table = CommTable::build(p, &creations).map_err(|(r, line, msg)| TitError {
        file: files[r as usize].clone(),
        line,
        msg,
    })?;
    check_outsiders(&table, &creations, &files)?;
    Ok(table)
}

/// Checks the creation calls that made no communicator on their rank (`comm_split` with
/// MPI_UNDEFINED, `comm_create` outside the group: new id `-`), which building the table
/// does not look at: their parent must exist, and a rank splitting it must be in it.
fn check_outsiders(table: &CommTable, creations: &[Vec<(Creation, u32)>], files: &[String]) -> Result<(), TitError> {
    for (r, list) in creations.iter().enumerate() {
        for (c, line) in list {
            let (parent, split) = match c {
                Creation::Split { parent, new: None, .. } => (parent, true),
                Creation::Create { parent, new: None, .. } => (parent, false),
                _ => continue,
            };
            let at = |msg: String| TitError {
                file: files[r].clone(),
                line: *line,
                msg,
            };
            if parent == "self" {
                continue;
            }
            let Some((_, comm)) = table.get(parent) else {
                return Err(at(format!("unknown parent communicator {}", quote(parent))));
            };
            if split && comm.rank_of(r as u32).is_none() {
                return Err(at(format!(
                    "rank {r} splits {} but is not a member of it",
                    quote(parent)
                )));
            }
        }
    }
    Ok(())
}
