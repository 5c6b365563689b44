//! The error type of the facade: what went wrong, typed by where, each rendered as the
//! message a user reads (file, line and what was expected; or every blocked rank).

use std::fmt;

/// Why a workload could not be loaded or simulated.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A GOAL schedule is malformed.
    Goal(simpi_trace::GoalError),
    /// A TIT trace is malformed or unreadable.
    Trace(simpi_trace::tit::TitError),
    /// An OTF2 trace is malformed or unreadable.
    Otf2(simpi_trace::otf2::Otf2Error),
    /// A DUMPI trace is malformed or unreadable.
    Dumpi(simpi_trace::dumpi::DumpiError),
    /// A noise trace is malformed or unreadable.
    Noise(simpi_trace::noise::NoiseError),
    /// A platform or host file is malformed, or a route is missing.
    Platform(simpi_platform::PlatformError),
    /// An input file cannot be read at all.
    Io {
        /// The file.
        path: String,
        /// What the system said.
        msg: String,
    },
    /// A setting is out of its domain; the message names it.
    Setting(String),
    /// A preset or measurements file is malformed; the message names file and line.
    Input(String),
    /// The simulation of the workload at `path` stopped with the engine's error (a
    /// trace's line its program reached, a clock overflow, a missing route).
    Run {
        /// The workload.
        path: String,
        /// Why.
        error: simpi_mpi::Error,
    },
    /// The workload cannot complete (a deadlock or an unmatched message): the report
    /// lists every blocked rank and what it waits for.
    Stall(String),
}

impl Error {
    /// True if an input file is at fault (malformed or unreadable), rather than a
    /// setting or the workload.
    pub fn is_input(&self) -> bool {
        !matches!(self, Error::Setting(_) | Error::Stall(_))
    }

    /// True if the workload itself cannot complete (rather than being malformed).
    pub fn is_stall(&self) -> bool {
        matches!(self, Error::Stall(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Goal(e) => write!(f, "{e}"),
            Error::Trace(e) => write!(f, "{e}"),
            Error::Otf2(e) => write!(f, "{e}"),
            Error::Dumpi(e) => write!(f, "{e}"),
            Error::Platform(e) => write!(f, "{e}"),
            Error::Noise(e) => write!(f, "{e}"),
            Error::Io { path, msg } => write!(f, "{path}: {msg}"),
            Error::Setting(m) | Error::Input(m) | Error::Stall(m) => f.write_str(m),
            // A trace's own error already names its file and line.
            Error::Run {
                error: e @ simpi_mpi::Error::Input { .. },
                ..
            } => write!(f, "{e}"),
            Error::Run { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<simpi_trace::GoalError> for Error {
    fn from(e: simpi_trace::GoalError) -> Error {
        Error::Goal(e)
    }
}

impl From<simpi_trace::tit::TitError> for Error {
    fn from(e: simpi_trace::tit::TitError) -> Error {
        Error::Trace(e)
    }
}

impl From<simpi_trace::dumpi::DumpiError> for Error {
    fn from(e: simpi_trace::dumpi::DumpiError) -> Error {
        Error::Dumpi(e)
    }
}

impl From<simpi_trace::otf2::Otf2Error> for Error {
    fn from(e: simpi_trace::otf2::Otf2Error) -> Error {
        Error::Otf2(e)
    }
}

impl From<simpi_trace::noise::NoiseError> for Error {
    fn from(e: simpi_trace::noise::NoiseError) -> Error {
        Error::Noise(e)
    }
}

impl From<simpi_platform::PlatformError> for Error {
    fn from(e: simpi_platform::PlatformError) -> Error {
        Error::Platform(e)
    }
}
