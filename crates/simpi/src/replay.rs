//! Replaying recorded or generated workloads: GOAL schedules under LogGOPS.

use crate::report::Report;
use crate::Error;
use simpi_kernel::TimeUnit;
use simpi_mpi::{run_loggops, OpId, Progress};
use simpi_net::LogGops;
use simpi_trace::goal::locate_ops;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// How to replay a GOAL schedule.
pub struct ReplayOptions<'p> {
    /// The unit of times in the schedule (and of the LogGOPS parameters given in it).
    pub unit: TimeUnit,
    /// The LogGOPS parameters, in picoseconds.
    pub model: LogGops,
    /// Called about every million events with the run's progress.
    pub progress: Option<&'p mut dyn FnMut(Progress)>,
    /// How many blocked ranks a stall report lists in detail.
    pub max_blocked_ranks: usize,
}

/// Reads the GOAL schedule at `path` and simulates it under LogGOPS.
pub fn replay_goal(path: &Path, opts: ReplayOptions<'_>) -> Result<Report, Error> {
    let t0 = Instant::now();
    let mut sched = simpi_trace::read_goal_file(path, opts.unit).map_err(|e| Error::Input(e.to_string()))?;
    let load_seconds = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let result = run_loggops(&mut sched, &opts.model, opts.progress);
    let sim_seconds = t1.elapsed().as_secs_f64();
    match result {
        Ok(out) => {
            let mut warnings = Vec::new();
            if out.stats.size_mismatches > 0 {
                warnings.push(format!(
                    "{} receive(s) matched a message of a different size; the message size was used",
                    out.stats.size_mismatches
                ));
            }
            Ok(Report {
                end_times: out.end_times,
                events: out.stats.events,
                ops: sched.num_ops() as u64,
                load_seconds,
                sim_seconds,
                peak_rss_bytes: crate::report::peak_rss_bytes(),
                warnings,
            })
        }
        Err(stall) => {
            // Point at lines in the file for the ops the report will show.
            let shown = opts.max_blocked_ranks;
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
            let lines: HashMap<(u32, u32), u32> = locate_ops(path, opts.unit, &wanted);
            let file = path.display().to_string();
            let locate = |id: OpId| {
                let key = (sched.rank_of(id), sched.local_index(id));
                lines.get(&key).map(|l| format!("{file}:{l}"))
            };
            Err(Error::Stall(stall.render(&sched, shown, &locate)))
        }
    }
}
