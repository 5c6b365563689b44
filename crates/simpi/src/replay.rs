//! Replaying recorded or generated workloads: GOAL schedules under LogGOPS or over a
//! platform with the flow or hybrid model.

use crate::report::Report;
use crate::Error;
use simpi_kernel::TimeUnit;
use simpi_mpi::{run_flow, run_loggops, FlowError, OpId, Outcome, Progress, Schedule, Stall};
use simpi_net::{HybridParams, LogGops};
use simpi_platform::{HostId, Platform};
use simpi_trace::goal::locate_ops;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// Which network model to replay under.
pub enum Model<'a> {
    /// LogGOPS with LogGOPSim's semantics; parameters in picoseconds.
    LogGops(LogGops),
    /// Flows over a platform: rank `r` runs on `hosts[r]`.
    Flow {
        /// The platform.
        platform: &'a Platform,
        /// Host of each rank.
        hosts: Vec<HostId>,
        /// The flow or hybrid model's parameters.
        params: HybridParams,
    },
}

/// How to replay a GOAL schedule.
pub struct ReplayOptions<'p> {
    /// The unit of times in the schedule.
    pub unit: TimeUnit,
    /// The network model.
    pub model: Model<'p>,
    /// Called about every million events with the run's progress.
    pub progress: Option<&'p mut dyn FnMut(Progress)>,
    /// How many blocked ranks a stall report lists in detail.
    pub max_blocked_ranks: usize,
}

/// Reads the GOAL schedule at `path` and simulates it.
pub fn replay_goal(path: &Path, opts: ReplayOptions<'_>) -> Result<Report, Error> {
    let t0 = Instant::now();
    let mut sched = simpi_trace::read_goal_file(path, opts.unit).map_err(|e| Error::Input(e.to_string()))?;
    let load_seconds = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let result = match opts.model {
        Model::LogGops(m) => run_loggops(&mut sched, &m, opts.progress).map_err(FlowError::Stall),
        Model::Flow {
            platform,
            hosts,
            params,
        } => {
            if hosts.len() < sched.num_ranks() as usize {
                return Err(Error::Input(format!(
                    "the schedule has {} ranks but only {} are mapped to hosts",
                    sched.num_ranks(),
                    hosts.len()
                )));
            }
            run_flow(&mut sched, platform, &hosts, params, opts.progress, false)
        }
    };
    let sim_seconds = t1.elapsed().as_secs_f64();
    match result {
        Ok(out) => Ok(report(&sched, out, load_seconds, sim_seconds)),
        Err(FlowError::Route(e)) => Err(Error::Input(format!("{}: {e}", path.display()))),
        Err(FlowError::Stall(stall)) => Err(Error::Stall(render_stall(
            path,
            opts.unit,
            &sched,
            &stall,
            opts.max_blocked_ranks,
        ))),
    }
}

fn report(sched: &Schedule, out: Outcome, load_seconds: f64, sim_seconds: f64) -> Report {
    let mut warnings = Vec::new();
    if out.stats.size_mismatches > 0 {
        warnings.push(format!(
            "{} receive(s) matched a message of a different size; the message size was used",
            out.stats.size_mismatches
        ));
    }
    Report {
        end_times: out.end_times,
        events: out.stats.events,
        ops: sched.num_ops() as u64,
        load_seconds,
        sim_seconds,
        peak_rss_bytes: crate::report::peak_rss_bytes(),
        warnings,
    }
}

/// The stall report, with the file lines of the operations it shows.
fn render_stall(path: &Path, unit: TimeUnit, sched: &Schedule, stall: &Stall, shown: usize) -> String {
    let mut wanted = Vec::new();
    for r in stall.ranks.iter().take(shown) {
        let mut ids: Vec<OpId> = r.waiting_on_dependencies.iter().take(1).copied().collect();
        for p in &r.pending {
            ids.push(match p {
                simpi_mpi::Pending::PostedRecv { op } | simpi_mpi::Pending::RendezvousSend { op } => *op,
                simpi_mpi::Pending::UnreceivedMessage { send, .. } => *send,
            });
        }
        for id in ids {
            wanted.push((sched.rank_of(id), sched.local_index(id)));
        }
    }
    let lines: HashMap<(u32, u32), u32> = locate_ops(path, unit, &wanted);
    let file = path.display().to_string();
    let locate = |id: OpId| {
        let key = (sched.rank_of(id), sched.local_index(id));
        lines.get(&key).map(|l| format!("{file}:{l}"))
    };
    stall.render(sched, shown, &locate)
}
