//! One point of a sweep, replayed as `simpi replay` replays its settings: count the
//! ranks, set up the machine, load the file or make the pattern, simulate.

use super::keys::Point;
use super::FLAGS;
use crate::montecarlo::{read_noise, simulate_noisy, Noise};
use crate::mpi::noise::Placement;
use crate::{count_ranks, load, simulate, Error, LoadOptions, Machine, Model, Report, SimOptions, Workload};
use std::fmt;

/// What kind of failure stopped a point, by the exit code `simpi replay` gives it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// A setting out of its domain (exit code 2).
    Setting,
    /// Malformed or unreadable input (exit code 1).
    Input,
    /// The workload cannot complete (exit code 3).
    Stall,
}

impl FailureKind {
    /// The exit code of the command line.
    pub fn exit_code(self) -> u8 {
        match self {
            FailureKind::Input => 1,
            FailureKind::Setting => 2,
            FailureKind::Stall => 3,
        }
    }
}

/// Why a replay failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Its kind.
    pub kind: FailureKind,
    /// The message a user reads (file and line for an input's fault).
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Failure {
    /// The facade's error, sorted as `simpi replay` sorts it.
    fn of(e: Error, p: &Point) -> Failure {
        let (kind, message) = match (e, &p.replay.platform) {
            (Error::Setting(m), _) => (FailureKind::Setting, m),
            (Error::Stall(m), _) => (FailureKind::Stall, m),
            // A missing route is the platform's fault, not the workload's.
            (
                Error::Run {
                    path,
                    error: crate::mpi::Error::Network(route),
                },
                Some(platform),
            ) => (
                FailureKind::Input,
                format!("{}: {route} (a route {path} needs)", platform.display()),
            ),
            (other, _) => (FailureKind::Input, other.to_string()),
        };
        Failure { kind, message }
    }
}

/// Replays the point; `record` keeps every operation's times for the report's
/// breakdown (a sweep's table needs only the end times).
pub fn replay(p: &Point, record: bool) -> Result<Report, Failure> {
    let fail = |e: Error| Failure::of(e, p);
    let s = &p.replay;
    let ranks = match &s.source {
        Some(f) => count_ranks(f, s.format).map_err(fail)?,
        None => p.params.ranks,
    };
    let machine = Machine::new(&s.model_spec().map_err(fail)?, ranks).map_err(fail)?;
    let speed = |r: u32| machine.speed(r).unwrap_or(p.speed);
    let coll = s.collectives(FLAGS).map_err(|message| Failure {
        kind: FailureKind::Setting,
        message,
    })?;
    let mut workload = match (&s.source, s.pattern) {
        (Some(file), _) => load(
            file,
            &LoadOptions {
                format: s.format,
                unit: s.time_unit,
                speed: &speed,
                collectives: &coll,
                test_cost: p.test_cost,
                calls: record,
                whole: false,
            },
        )
        .map_err(fail)?,
        (None, Some(pattern)) => Workload::pattern(pattern, p.params, s.time_unit).map_err(fail)?,
        (None, None) => {
            return Err(Failure {
                kind: FailureKind::Setting,
                message: "nothing to replay".into(),
            })
        }
    };
    let opts = SimOptions {
        progress: None,
        max_blocked_ranks: p.max_blocked_ranks,
        record,
    };
    let Some(path) = &s.noise.trace else {
        return simulate(&mut workload, &machine.model(), opts).map_err(fail);
    };
    // With noise (LogGOPS only: the settings' check refuses it elsewhere), the run of
    // replication 0 of the point's seed.
    let trace = read_noise(path, s.time_unit).map_err(fail)?;
    let Model::LogGops(params) = machine.model() else {
        return Err(fail(Error::Setting(format!(
            "{}: needs --model loggops",
            path.display()
        ))));
    };
    let noise = Noise {
        trace: &trace,
        placement: if s.noise.cosched {
            Placement::Cosched
        } else {
            Placement::Independent
        },
        seed: s.noise.seed,
    };
    simulate_noisy(&mut workload, params, &noise, 0, opts).map_err(fail)
}
