//! OTF2 traces of MPI programs (Score-P's format), read with the OTF2 library.
//!
//! The library runs in a decoder process forked per trace (`otf2/sandbox.rs`,
//! `otf2/child.rs`): it crashes or loops on some malformed files, which must cost an
//! error naming the file, not the program. It sends the global definitions, which
//! `otf2/defs.rs` checks and maps (ranks, regions, communicators), then each rank's
//! events as the rank reaches them (`otf2/feed.rs`), which `otf2/program.rs` turns into
//! MPI calls, with collectives read back from Score-P's byte counts (`otf2/colls.rs`).
//!
//! A trace is opened by its anchor file (`traces.otf2`), run live by the engine
//! ([`open_otf2`]) or converted into a whole schedule ([`read_otf2`]); calls cost and
//! expand as a TIT trace's do ([`TitOptions`]). See `docs/formats.md` for what is read
//! and what is refused.

#[cfg(not(otf2_missing))]
mod child;
mod colls;
mod defs;
mod feed;
#[cfg(not(otf2_missing))]
mod ffi;
mod program;
mod sandbox;
mod wire;

pub use program::{Otf2Program, MIN_COMPUTE, REFERENCE_FLOPS};
pub use sandbox::STALL;

use crate::tit::TitOptions;
use crate::trace_program::whole_schedule;
use feed::Feed;
use sandbox::{Decoder, Paths};
use simpi_mpi::live::{OpRef, Program};
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// A problem in an OTF2 archive, with the file (and the event, where known).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Otf2Error {
    /// The file: anchor, global or local definitions, or a location's events.
    pub file: String,
    /// Position of the event among its location's events (from 1), 0 if not at one.
    pub event: u64,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for Otf2Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.event == 0 {
            write!(f, "{}: {}", self.file, self.msg)
        } else {
            write!(f, "{}: event {}: {}", self.file, self.event, self.msg)
        }
    }
}

impl std::error::Error for Otf2Error {}

/// A trace converted into a whole schedule (every reader's: [`crate::tit::TitTrace`]).
pub type Otf2Trace = crate::tit::TitTrace;

/// True if `path` is an OTF2 anchor file: its header names the format (`OTF2` after two
/// bytes of file type and byte order).
pub fn looks_like_otf2(path: &Path) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = [0u8; 6];
    f.read_exact(&mut head).is_ok() && &head[2..6] == b"OTF2"
}

/// The definitions of the archive at `anchor`, from a new decoder (which then serves
/// its events).
fn open_defs(anchor: &Path, stall: Duration) -> Result<(Decoder, defs::Defs), Otf2Error> {
    definitions(spawn(anchor, stall)?)
}

/// A decoder process for the archive whose anchor file is `anchor`.
fn spawn(anchor: &Path, stall: Duration) -> Result<Decoder, Otf2Error> {
    if !anchor.is_file() {
        return Err(Otf2Error {
            file: anchor.display().to_string(),
            event: 0,
            msg: "not a file (give the archive's anchor file, e.g. traces.otf2)".into(),
        });
    }
    Decoder::spawn(Paths::new(anchor), stall)
}

/// The definitions `d` sends, checked.
fn definitions(mut d: Decoder) -> Result<(Decoder, defs::Defs), Otf2Error> {
    let (list, _) = d.definitions()?;
    let defs = defs::build(list).map_err(|msg| Otf2Error {
        file: d.paths().global_defs(),
        event: 0,
        msg,
    })?;
    Ok((d, defs))
}

/// Number of ranks of the OTF2 trace whose anchor file is `path` (reads its definitions).
pub fn otf2_ranks(path: &Path) -> Result<u32, Otf2Error> {
    Ok(open_defs(path, STALL)?.1.ranks.len() as u32)
}

/// Opens the OTF2 trace at `path` as a program for the live engine: its definitions are
/// read, its events as ranks reach them.
pub fn open_otf2<'o>(path: &Path, opts: &'o TitOptions<'o>) -> Result<Otf2Program<'o, OpRef>, Otf2Error> {
    open_otf2_within(path, opts, STALL)
}

/// [`open_otf2`], calling the OTF2 library stuck once it is silent for `stall`.
pub fn open_otf2_within<'o>(
    path: &Path,
    opts: &'o TitOptions<'o>,
    stall: Duration,
) -> Result<Otf2Program<'o, OpRef>, Otf2Error> {
    open_program(path, opts, stall)
}

fn open_program<'o, R: Copy + PartialEq + std::fmt::Debug>(
    path: &Path,
    opts: &'o TitOptions<'o>,
    stall: Duration,
) -> Result<Otf2Program<'o, R>, Otf2Error> {
    program(open_defs(path, stall)?, opts)
}

fn program<'o, R: Copy + PartialEq + std::fmt::Debug>(
    (mut d, defs): (Decoder, defs::Defs),
    opts: &'o TitOptions<'o>,
) -> Result<Otf2Program<'o, R>, Otf2Error> {
    d.select(&defs.ranks)?;
    let p = defs.ranks.len();
    Ok(Otf2Program::new(Feed::new(d, p), Arc::new(defs), opts))
}

/// Reads the OTF2 trace at `path` into a whole schedule.
pub fn read_otf2(path: &Path, opts: &TitOptions<'_>) -> Result<Otf2Trace, Otf2Error> {
    read_otf2_within(path, opts, STALL)
}

/// [`read_otf2`], calling the OTF2 library stuck once it is silent for `stall`.
pub fn read_otf2_within(path: &Path, opts: &TitOptions<'_>, stall: Duration) -> Result<Otf2Trace, Otf2Error> {
    schedule(open_program(path, opts, stall)?)
}

fn schedule(prog: Otf2Program<'_, u32>) -> Result<Otf2Trace, Otf2Error> {
    whole_schedule(prog, |e, r, prog| match e {
        simpi_mpi::Error::Input { file, msg, .. } => Otf2Error { file, event: 0, msg },
        other => Otf2Error {
            file: prog.file(r).unwrap_or_default(),
            event: 0,
            msg: other.to_string(),
        },
    })
}

/// Reads the OTF2 trace at `path` into a whole schedule as [`read_otf2`] does, and also
/// returns every byte its decoder process sent: a script for [`read_otf2_script`] (the
/// fuzz target's seeds are made so).
#[doc(hidden)]
pub fn record_otf2_script(path: &Path, opts: &TitOptions<'_>) -> Result<(Otf2Trace, Vec<u8>), Otf2Error> {
    let stream = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut d = spawn(path, STALL)?;
    d.tap(stream.clone());
    let trace = schedule(program(definitions(d)?, opts)?)?;
    let bytes = std::mem::take(&mut *stream.lock().unwrap_or_else(|p| p.into_inner()));
    Ok((trace, bytes))
}

/// Reads a whole schedule from `stream`, the bytes a decoder process sent (see
/// [`record_otf2_script`]), without the OTF2 library or a process: everything the
/// reader does with what the library decodes (definitions checked, events turned into
/// MPI calls, collectives read back) runs in this process, where a coverage-guided
/// fuzzer sees it. Files are named as in an archive `script/traces.otf2`.
#[doc(hidden)]
pub fn read_otf2_script(stream: &[u8], opts: &TitOptions<'_>) -> Result<Otf2Trace, Otf2Error> {
    let d = Decoder::scripted(Paths::new(Path::new("script/traces.otf2")), stream.to_vec());
    schedule(program(definitions(d)?, opts)?)
}
