//! Simulating a loaded workload under LogGOPS or over a platform with the flow or hybrid
//! model, and the GOAL shortcut used by tests.

use crate::analysis::{breakdown, call_stats, spans_messages_owners};
use crate::report::Report;
use crate::workload::{load, Body, CollChoice, Format, LoadOptions, Workload};
use crate::Error;
use simpi_kernel::SimTime;
use simpi_kernel::TimeUnit;
use simpi_mpi::coll::CollSpec;
use simpi_mpi::engine::{OpStore, ScheduleStore};
use simpi_mpi::live::Live;
use simpi_mpi::noise::HostNoise;
use simpi_mpi::{
    run_loggops_noisy_on, run_loggops_on, run_smpi_on, OpId, Outcome, Preset, Progress, Protocol, Schedule, Stall,
};
use simpi_net::{ConstantNetwork, FlowNetwork, LogGops};
use simpi_platform::{HostId, Platform};
use simpi_trace::goal::locate_ops;
use simpi_trace::schedgen::PatternProgram;
use simpi_trace::tit::{open_tit, TitOptions};
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// Which network model to replay under.
pub enum Model<'a> {
    /// LogGOPS with LogGOPSim's semantics; parameters in picoseconds.
    LogGops(LogGops),
    /// LogGOPS with OS noise charged as LogGOPSim charges it (see
    /// [`crate::montecarlo`] for replications).
    NoisyLogGops {
        /// The parameters, in picoseconds.
        params: LogGops,
        /// The noise trace and each rank's offset into it.
        noise: &'a HostNoise<'a>,
    },
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

/// Runs the operations of `store` under `model`; gives the store back with the result.
fn run_model<S: OpStore>(
    store: S,
    model: &Model<'_>,
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> Result<(Result<Outcome, simpi_mpi::Error>, S), Error> {
    let p = store.num_ranks();
    Ok(match model {
        Model::LogGops(m) => run_loggops_on(store, m, progress, record),
        Model::NoisyLogGops { params, noise } => run_loggops_noisy_on(store, params, noise, progress, record),
        Model::Flow {
            platform,
            hosts,
            preset,
        } => {
            if hosts.len() < p as usize {
                return Err(Error::Setting(format!(
                    "the workload has {p} ranks but only {} are mapped to hosts",
                    hosts.len()
                )));
            }
            let net = FlowNetwork::new(platform, preset.network.clone());
            let hosts = hosts[..p as usize].to_vec();
            run_smpi_on(store, net, preset.protocol.clone(), hosts, progress, record)
        }
        Model::Constant { time, protocol } => {
            let hosts: Vec<HostId> = (0..p).map(HostId).collect();
            run_smpi_on(
                store,
                ConstantNetwork::new(*time),
                protocol.clone(),
                hosts,
                progress,
                record,
            )
        }
    })
}

/// Simulates `w` under `model`.
pub fn simulate(w: &mut Workload<'_>, model: &Model<'_>, opts: SimOptions<'_>) -> Result<Report, Error> {
    let t1 = Instant::now();
    let shown = opts.max_blocked_ranks;
    let path = w.path.display().to_string();
    let located = |error: simpi_mpi::Error| Error::Run {
        path: path.clone(),
        error,
    };
    let (result, ops) = match &mut w.body {
        Body::Schedule(sched) => {
            let (result, store) = run_model(ScheduleStore::new(sched), model, opts.progress, opts.record)?;
            drop(store);
            let result = match result {
                Err(simpi_mpi::Error::Stall(stall)) => {
                    return Err(Error::Stall(render_goal_stall(w, &stall, shown)));
                }
                r => r.map_err(located)?,
            };
            (result, w.schedule().map_or(0, |s| s.num_ops() as u64))
        }
        Body::Pattern { pattern, params } => {
            let compute_ps = params.compute.saturating_mul(w.unit.ps_per_unit());
            let prog = PatternProgram::new(*pattern, *params, compute_ps);
            let p = prog.ranks();
            // Before the live store allocates its per-rank state.
            crate::memory::check_ranks_fit(p.into())?;
            let (result, store) = run_model(Live::new(prog, p, 1, 1), model, opts.progress, opts.record)?;
            let result = match result {
                Err(simpi_mpi::Error::Stall(stall)) => {
                    let describe = |id: OpId| store.describe(id.0);
                    return Err(Error::Stall(stall.render(shown, &describe)));
                }
                r => r.map_err(located)?,
            };
            let ops = result.stats.ops;
            (result, ops)
        }
        Body::Trace => {
            let o = w.options.expect("a trace has its load options");
            let choose = |s: &CollSpec| o.collectives.choose(s);
            let topts = TitOptions {
                speed: o.speed,
                choose: &choose,
                test_cost: o.test_cost,
                calls: o.calls,
            };
            let prog = open_tit(&w.path, &topts)?;
            let p = prog.ranks();
            // Before the live store allocates its per-rank state.
            crate::memory::check_ranks_fit(p.into())?;
            let (result, mut store) = run_model(Live::new(prog, p, 1, 1), model, opts.progress, opts.record)?;
            let result = match result {
                Err(simpi_mpi::Error::Stall(stall)) => {
                    // A line the stuck ranks never reached may be malformed: that is
                    // the error to report.
                    store.program_mut().check_unread().map_err(located)?;
                    let describe = |id: OpId| store.describe(id.0);
                    return Err(Error::Stall(stall.render(shown, &describe)));
                }
                r => r.map_err(located)?,
            };
            let mut prog = store.into_program();
            w.warnings.extend(prog.warnings());
            if o.calls {
                w.calls = Some(prog.take_calls());
            }
            let ops = result.stats.ops;
            (result, ops)
        }
    };
    let sim_seconds = t1.elapsed().as_secs_f64();
    let out = result;
    let mut warnings = w.warnings.clone();
    if out.stats.size_mismatches > 0 {
        warnings.push(format!(
            "{} receive(s) matched a message of a different size; the message size was used",
            out.stats.size_mismatches
        ));
    }
    let ends: Vec<u64> = out.end_times.iter().map(|t| t.ps()).collect();
    let mut records = out.records;
    let (breakdown, calls, spans, messages, flows, critical) = if records.is_empty() {
        Default::default()
    } else {
        let (sp, messages, flows, span_of) = spans_messages_owners(&mut records, w.calls.as_deref());
        let path = crate::critical::walk(&records, &ends);
        let critical = crate::critical::steps(&records, &path, &span_of, &sp);
        (
            breakdown(&records, &ends),
            call_stats(&sp),
            sp,
            messages,
            flows,
            critical,
        )
    };
    Ok(Report {
        end_times: out.end_times,
        events: out.stats.events,
        ops,
        load_seconds: w.load_seconds,
        sim_seconds,
        peak_rss_bytes: crate::report::peak_rss_bytes(),
        warnings,
        breakdown,
        calls,
        spans,
        messages,
        flows,
        critical,
    })
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
            whole: false,
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
fn render_goal_stall(w: &Workload<'_>, stall: &Stall, shown: usize) -> String {
    let sched: &Schedule = w.schedule().expect("a schedule");
    let lines: HashMap<(u32, u32), u32> = if w.format == Some(Format::Goal) {
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
