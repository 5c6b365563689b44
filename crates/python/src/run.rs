//! One replay, as `simpi replay` runs it through the facade: count the ranks, set up the
//! machine, load the file or make the pattern, simulate, write the timeline. Runs
//! without the Python interpreter's lock, so it only touches Rust data.

use crate::settings::{Settings, NAMING};
use simpi::{count_ranks, load, simulate, Error, LoadOptions, Machine, Report, SimOptions, Workload};

/// Why a replay failed, by the Python exception it becomes.
pub enum Failure {
    /// A setting out of its domain (`ValueError`; the command line's exit code 2).
    Setting(String),
    /// Malformed or unreadable input (`simpi.InputError`; exit code 1).
    Input(String),
    /// The workload cannot complete (`simpi.StallError`; exit code 3).
    Stall(String),
}

impl Failure {
    /// The facade's error, sorted as the command line sorts it.
    fn of(e: Error, s: &Settings) -> Failure {
        match (e, &s.replay.platform) {
            (Error::Setting(m), _) => Failure::Setting(m),
            (Error::Stall(m), _) => Failure::Stall(m),
            // A missing route is the platform's fault, not the workload's.
            (
                Error::Run {
                    path,
                    error: simpi::mpi::Error::Network(route),
                },
                Some(platform),
            ) => Failure::Input(format!("{}: {route} (a route {path} needs)", platform.display())),
            (other, _) => Failure::Input(other.to_string()),
        }
    }
}

/// Runs the replay `s` describes.
pub fn replay(s: &Settings) -> Result<Report, Failure> {
    let fail = |e: Error| Failure::of(e, s);
    let ranks = match &s.replay.source {
        Some(f) => count_ranks(f, s.replay.format).map_err(fail)?,
        None => s.params.ranks,
    };
    s.timeline_filter
        .check(ranks)
        .map_err(|m| Failure::Setting(format!("timeline_ranks: {m}")))?;
    let machine = Machine::new(&s.replay.model_spec().map_err(fail)?, ranks).map_err(fail)?;
    let speed = |r: u32| machine.speed(r).unwrap_or(s.speed);
    let coll = s.replay.collectives(NAMING).map_err(Failure::Setting)?;
    let record = s.replay.report || s.timeline.is_some();
    let mut workload = match (&s.replay.source, s.replay.pattern) {
        (Some(file), _) => load(
            file,
            &LoadOptions {
                format: s.replay.format,
                unit: s.replay.time_unit,
                speed: &speed,
                collectives: &coll,
                test_cost: s.test_cost,
                calls: record,
                whole: false,
            },
        )
        .map_err(fail)?,
        (None, Some(p)) => Workload::pattern(p, s.params, s.replay.time_unit).map_err(fail)?,
        (None, None) => return Err(Failure::Setting("nothing to replay".into())),
    };
    let opts = SimOptions {
        progress: None,
        max_blocked_ranks: s.max_blocked_ranks,
        record,
    };
    let report = simulate(&mut workload, &machine.model(), opts).map_err(fail)?;
    if let Some(target) = &s.timeline {
        let path = &target.path;
        let f = std::fs::File::create(path)
            .map_err(|e| Failure::Input(format!("{}: cannot create: {e}", path.display())))?;
        let t = simpi::timeline::Timeline {
            ranks: report.end_times.len() as u32,
            spans: &report.spans,
            messages: &report.messages,
            flows: &report.flows,
            links: &report.link_series,
        };
        simpi::timeline::write(std::io::BufWriter::new(f), target.format, &t, &s.timeline_filter)
            .map_err(|e| Failure::Input(format!("{}: {e}", path.display())))?;
    }
    Ok(report)
}
