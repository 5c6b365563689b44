//! Simulating a loaded workload under LogGOPS or over a platform with the flow or hybrid
//! model, and the GOAL shortcut used by tests.

use crate::analysis::{breakdown, call_stats, spans};
use crate::report::Report;
use crate::workload::{load, CollChoice, Format, LoadOptions, Workload};
use crate::Error;
use simpi_kernel::SimTime;
use simpi_kernel::TimeUnit;
use simpi_mpi::{run_flow, run_loggops_with, run_smpi, OpId, Preset, Progress, Protocol, Schedule, Stall};
use simpi_net::{ConstantNetwork, LogGops};
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
        /// The protocol and the flow network's parameters.
        preset: Preset,
    },
    /// Every message takes the same time (SimGrid's `Constant` network model) under an
    /// SMPI protocol.
    Constant {
        /// The time of every transfer.
        time: SimTime,
        /// The protocol.
        protocol: Protocol,
    },
}

/// How to simulate.
pub struct SimOptions<'p> {
    /// Called about every million events with the run's progress.
    pub progress: Option<&'p mut dyn FnMut(Progress)>,
    /// How many blocked ranks a stall report lists in detail.
    pub max_blocked_ranks: usize,
    /// Record every operation's times, for breakdowns, call statistics and timelines.
    pub record: bool,
}

/// Simulates `w` under `model`.
pub fn simulate(w: &mut Workload, model: &Model<'_>, opts: SimOptions<'_>) -> Result<Report, Error> {
    let t1 = Instant::now();
    let sched = &mut w.schedule;
    let result = match model {
        Model::LogGops(m) => run_loggops_with(sched, m, opts.progress, opts.record),
        Model::Flow {
            platform,
            hosts,
            preset,
        } => {
            if hosts.len() < sched.num_ranks() as usize {
                return Err(Error::Input(format!(
                    "the workload has {} ranks but only {} are mapped to hosts",
                    sched.num_ranks(),
                    hosts.len()
                )));
            }
            run_flow(sched, platform, hosts, preset.clone(), opts.progress, opts.record)
        }
        Model::Constant { time, protocol } => {
            let hosts: Vec<HostId> = (0..sched.num_ranks()).map(HostId).collect();
            let net = ConstantNetwork::new(*time);
            run_smpi(sched, net, protocol.clone(), &hosts, opts.progress, opts.record)
        }
    };
    let sim_seconds = t1.elapsed().as_secs_f64();
    match result {
        Ok(out) => {
            let mut warnings = w.warnings.clone();
            if out.stats.size_mismatches > 0 {
                warnings.push(format!(
                    "{} receive(s) matched a message of a different size; the message size was used",
                    out.stats.size_mismatches
                ));
            }
            let ends: Vec<u64> = out.end_times.iter().map(|t| t.ps()).collect();
            let mut records = out.records;
            let (breakdown, calls, spans) = if records.is_empty() {
                (Vec::new(), Vec::new(), Vec::new())
            } else {
                let sp = spans(&mut records, w.calls.as_deref());
                (breakdown(&records, &ends), call_stats(&sp), sp)
            };
            Ok(Report {
                end_times: out.end_times,
                events: out.stats.events,
                ops: sched.num_ops() as u64,
                load_seconds: w.load_seconds,
                sim_seconds,
                peak_rss_bytes: crate::report::peak_rss_bytes(),
                warnings,
                breakdown,
                calls,
                spans,
            })
        }
        Err(simpi_mpi::Error::Stall(stall)) => Err(Error::Stall(render_stall(w, &stall, opts.max_blocked_ranks))),
        Err(e) => Err(Error::Input(format!("{}: {e}", w.path.display()))),
    }
}

/// How to replay a GOAL schedule (the short path used by the golden tests).
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
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::new(Box::new(crate::default_algorithm));
    let mut w = load(
        path,
        &LoadOptions {
            format: Some(Format::Goal),
            unit: opts.unit,
            speed: &speed,
            collectives: &coll,
            test_cost: 0.0,
            calls: false,
        },
    )?;
    simulate(
        &mut w,
        &opts.model,
        SimOptions {
            progress: opts.progress,
            max_blocked_ranks: opts.max_blocked_ranks,
            record: false,
        },
    )
}

/// The stall report, with the GOAL file lines of the operations it shows.
fn render_stall(w: &Workload, stall: &Stall, shown: usize) -> String {
    let sched: &Schedule = &w.schedule;
    let lines: HashMap<(u32, u32), u32> = if w.format == Format::Goal {
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
        locate_ops(&w.path, w.unit, &wanted)
    } else {
        HashMap::new()
    };
    let file = w.path.display().to_string();
    let describe = |id: OpId| {
        let key = (sched.rank_of(id), sched.local_index(id));
        let what = simpi_mpi::engine::store::describe_op(sched.op(id));
        match lines.get(&key) {
            Some(l) => format!("{what} ({file}:{l})"),
            None => format!("{what} (operation #{} of rank {})", key.1, key.0),
        }
    };
    stall.render(shown, &describe)
}
