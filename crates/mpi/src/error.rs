//! The error type of `simpi-mpi`.

use crate::engine::Stall;
use crate::schedule::BuildError;
use std::fmt;

/// Why a run, or building its operations, failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The workload cannot complete: the report lists every blocked rank and what it
    /// waits for. The user's program (or trace) deadlocks.
    Stall(Box<Stall>),
    /// Simulated time ran past the clock's end (2^64 ps, about 213 days).
    TimeOverflow,
    /// The network model refused a transfer (no route between two hosts).
    Network(simpi_net::Error),
    /// A front end's input is wrong where a rank's program reached it: the file, the
    /// 1-based line (0: not at a line) and what was expected.
    Input {
        /// The file.
        file: String,
        /// The line, 0 if the error is not at a line.
        line: u32,
        /// What is wrong.
        msg: String,
    },
    /// Operations that cannot form a schedule (a cycle, a rank out of range).
    Build(BuildError),
    /// A setting is out of its domain (the message names it).
    BadParameter(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Stall(s) => write!(
                f,
                "the workload cannot complete: {} rank(s) are blocked",
                s.blocked_ranks
            ),
            Error::TimeOverflow => f.write_str("the simulated time passes the clock's end (2^64 ps, about 213 days)"),
            Error::Network(e) => write!(f, "{e}"),
            Error::Input { file, line: 0, msg } => write!(f, "{file}: {msg}"),
            Error::Input { file, line, msg } => write!(f, "{file}:{line}: {msg}"),
            Error::Build(e) => write!(f, "{e}"),
            Error::BadParameter(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<simpi_net::Error> for Error {
    fn from(e: simpi_net::Error) -> Error {
        match e {
            simpi_net::Error::TimeOverflow => Error::TimeOverflow,
            other => Error::Network(other),
        }
    }
}

impl From<BuildError> for Error {
    fn from(e: BuildError) -> Error {
        Error::Build(e)
    }
}
