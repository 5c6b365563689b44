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
use simpi_mpi::live::OpRef;
use simpi_mpi::noise::HostNoise;
use simpi_mpi::CallRecord;
use simpi_mpi::{
    run_loggops_noisy_on, run_loggops_on, run_loggops_over, run_smpi_on, CpuSharing, OpId, Outcome, Preset, Progress,
    Protocol, Schedule, Stall,
};
use simpi_net::{
    ConstantNetwork, Distributions, FlowNetwork, LinkLoad, LogGops, NetworkModel, PacketNetwork, PacketParams,
    Scoreboard, StochasticNetwork,
};
use simpi_platform::{HostId, Platform};
use simpi_trace::allprof::open_allprof;
use simpi_trace::dumpi::open_dumpi;
use simpi_trace::goal::locate_ops;
use simpi_trace::otf2::open_otf2;
use simpi_trace::schedgen::PatternProgram;
use simpi_trace::tit::{open_tit, TitOptions};
use simpi_trace::TraceProgram;
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
    /// Packets over a platform: rank `r` runs on `hosts[r]`.
    Packet {
        /// The platform.
        platform: &'a Platform,
        /// Host of each rank.
        hosts: Vec<HostId>,
        /// What the hosts do around the network.
        rules: HostRules,
        /// How packets are cut, buffered and forwarded.
        params: PacketParams,
    },
    /// Every message takes a time drawn from measured distributions (PEVPM's model);
    /// the hosts add nothing (the measurements hold their costs).
    Stochastic {
        /// The measured message times.
        distributions: &'a Distributions,
        /// The platform whose routes count contention per link (none: contention is
        /// every message in flight, and rank `r` is host `r`).
        platform: Option<&'a Platform>,
        /// Host of each rank (with a platform).
        hosts: Vec<HostId>,
        /// The seed of the draws.
        seed: u64,
        /// The replication of a Monte Carlo run (its own draws).
        replication: u64,
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

/// What the hosts do around a network model.
#[derive(Clone, Debug)]
pub enum HostRules {
    /// SMPI's protocol.
    Smpi(Protocol),
    /// LogGOPS's CPU and NIC costs, messages crossing the network instead of taking L
    /// (the LogGOPSim + InfiniBand thesis's coupling).
    LogGops(LogGops),
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

/// How many of the busiest links the timeline shows over time.
const TIMELINE_LINKS: usize = 8;

/// What a run gives back: its outcome, the store, and what the network saw.
type Ran<S> = (Result<Outcome, simpi_mpi::Error>, S, NetSummary);

/// What the network model saw during a run.
#[derive(Default)]
struct NetSummary {
    /// What each link carried, hottest first.
    links: Vec<LinkLoad>,
    /// What the model could not do as measured or specified.
    warnings: Vec<String>,
    /// The messages' network times, if the model keeps them.
    message_times: Option<simpi_net::Latencies>,
    /// The busiest links' use over time, if the model keeps it.
    link_series: Vec<simpi_net::LinkSeries>,
}

/// The hosts of a workload's `p` ranks, if the mapping covers them all.
fn mapped(hosts: &[HostId], p: u32) -> Result<Vec<HostId>, Error> {
    match hosts.get(..p as usize) {
        Some(h) => Ok(h.to_vec()),
        None => Err(Error::Setting(format!(
            "the workload has {p} ranks but only {} are mapped to hosts",
            hosts.len()
        ))),
    }
}

/// Which ranks share CPUs on `platform`, rank `r` on `hosts[r]`: all of them if the
/// platform runs on one machine, else those on one host with fewer cores than ranks.
pub fn cpu_sharing(platform: &Platform, hosts: &[HostId]) -> CpuSharing {
    match platform.shared_cores() {
        Some(c) => CpuSharing::from_machines(&vec![0; hosts.len()], |_| c),
        None => {
            let ids: Vec<u64> = hosts.iter().map(|h| h.0 as u64).collect();
            CpuSharing::from_machines(&ids, |h| platform.host(HostId(h as _)).cores)
        }
    }
}

/// Runs the operations of `store` under `model`; gives the store back with the result.
fn run_model<S: OpStore>(
    store: S,
    model: &Model<'_>,
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> Result<Ran<S>, Error> {
    let p = store.num_ranks();
    let no_links = |(out, store): (Result<Outcome, simpi_mpi::Error>, S)| (out, store, NetSummary::default());
    let with_links = |(out, store): (Result<Outcome, simpi_mpi::Error>, S), net: &dyn NetworkModel| {
        let mut links = net.link_loads();
        // Hottest first; equal ones in the order the run first used them.
        links.sort_by_key(|l| std::cmp::Reverse(l.busy));
        let warnings = net.warnings();
        let message_times = net.message_times();
        let link_series = net.link_series(TIMELINE_LINKS);
        (
            out,
            store,
            NetSummary {
                links,
                warnings,
                message_times,
                link_series,
            },
        )
    };
    Ok(match model {
        Model::LogGops(m) => no_links(run_loggops_on(store, m, progress, record)),
        Model::NoisyLogGops { params, noise } => no_links(run_loggops_noisy_on(store, params, noise, progress, record)),
        Model::Flow {
            platform,
            hosts,
            preset,
        } => {
            let mut net = FlowNetwork::new(platform, preset.network.clone());
            let hosts = mapped(hosts, p)?;
            let cpus = cpu_sharing(platform, &hosts);
            let ran = run_smpi_on(store, &mut net, preset.protocol.clone(), hosts, cpus, progress, record);
            with_links(ran, &net)
        }
        Model::Packet {
            platform,
            hosts,
            rules,
            params,
        } => {
            let mut net = PacketNetwork::new(platform, params.clone()).map_err(|e| Error::Setting(e.to_string()))?;
            // Links over time only for runs that record (a report or a timeline).
            net.keep_series(record);
            let hosts = mapped(hosts, p)?;
            let ran = match rules {
                HostRules::Smpi(protocol) => {
                    let cpus = cpu_sharing(platform, &hosts);
                    run_smpi_on(store, &mut net, protocol.clone(), hosts, cpus, progress, record)
                }
                HostRules::LogGops(m) => run_loggops_over(store, m, &mut net, hosts, progress, record),
            };
            with_links(ran, &net)
        }
        Model::Stochastic {
            distributions,
            platform,
            hosts,
            seed,
            replication,
        } => {
            let scoreboard = match platform {
                Some(p) => Scoreboard::Links(p),
                None => Scoreboard::Global,
            };
            let mut net = StochasticNetwork::new(distributions, scoreboard, *seed, *replication);
            let hosts = match platform {
                Some(_) => mapped(hosts, p)?,
                None => (0..p).map(HostId).collect(),
            };
            // The measured times hold what hosts add: every send eager and free, no
            // overheads (the flow model's protocol). Ranks that share a platform's
            // cores still share them for compute.
            let cpus = platform.map_or_else(CpuSharing::none, |pl| cpu_sharing(pl, &hosts));
            let ran = run_smpi_on(store, &mut net, Protocol::flow(), hosts, cpus, progress, record);
            with_links(ran, &net)
        }
        Model::Constant { time, protocol } => {
            let hosts: Vec<HostId> = (0..p).map(HostId).collect();
            no_links(run_smpi_on(
                store,
                ConstantNetwork::new(*time),
                protocol.clone(),
                hosts,
                CpuSharing::none(),
                progress,
                record,
            ))
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
    let (result, ops, net) = match &mut w.body {
        Body::Schedule(sched) => {
            let (result, store, net) = run_model(ScheduleStore::new(sched), model, opts.progress, opts.record)?;
            drop(store);
            let result = match result {
                Err(simpi_mpi::Error::Stall(stall)) => {
                    return Err(Error::Stall(render_goal_stall(w, &stall, shown)));
                }
                r => r.map_err(located)?,
            };
            (result, w.schedule().map_or(0, |s| s.num_ops() as u64), net)
        }
        Body::Pattern { pattern, params } => {
            let compute_ps = params.compute.saturating_mul(w.unit.ps_per_unit());
            let prog = PatternProgram::new(*pattern, *params, compute_ps);
            let p = prog.ranks();
            // Before the live store allocates its per-rank state.
            crate::memory::check_ranks_fit(p.into())?;
            let (result, store, net) = run_model(Live::new(prog, p, 1, 1), model, opts.progress, opts.record)?;
            let result = match result {
                Err(simpi_mpi::Error::Stall(stall)) => {
                    let describe = |id: OpId| store.describe(id.0);
                    return Err(Error::Stall(stall.render(shown, &describe)));
                }
                r => r.map_err(located)?,
            };
            let ops = result.stats.ops;
            (result, ops, net)
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
            let run = match w.format {
                Some(Format::Otf2) => run_trace(open_otf2(&w.path, &topts)?, model, opts.progress, opts.record, shown),
                Some(Format::Allprof) => {
                    run_trace(open_allprof(&w.path, &topts)?, model, opts.progress, opts.record, shown)
                }
                Some(Format::Dumpi) => {
                    run_trace(open_dumpi(&w.path, &topts)?, model, opts.progress, opts.record, shown)
                }
                _ => run_trace(open_tit(&w.path, &topts)?, model, opts.progress, opts.record, shown),
            };
            let TraceRun {
                outcome: result,
                warnings,
                calls,
                net,
            } = run.map_err(|e| match e {
                TraceRunError::Engine(error) => located(error),
                TraceRunError::Other(e) => e,
            })?;
            w.warnings.extend(warnings);
            if o.calls {
                w.calls = Some(calls);
            }
            let ops = result.stats.ops;
            (result, ops, net)
        }
    };
    let sim_seconds = t1.elapsed().as_secs_f64();
    let out = result;
    let mut warnings = w.warnings.clone();
    warnings.extend(net.warnings);
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
        links: net.links,
        message_times: net.message_times,
        link_series: net.link_series,
    })
}

/// What a live trace's run gives: its outcome, the trace's warnings and calls, and what
/// the network saw.
struct TraceRun {
    outcome: Outcome,
    warnings: Vec<String>,
    calls: Vec<CallRecord>,
    net: NetSummary,
}

/// Why a live trace did not run: the engine's error (to be located at the workload) or
/// one already complete.
enum TraceRunError {
    Engine(simpi_mpi::Error),
    Other(Error),
}

/// Runs trace `prog` live under `model`: the outcome, the trace's warnings, its calls.
fn run_trace<P: TraceProgram<OpRef>>(
    prog: P,
    model: &Model<'_>,
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
    shown: usize,
) -> Result<TraceRun, TraceRunError> {
    let p = prog.ranks();
    // Before the live store allocates its per-rank state.
    crate::memory::check_ranks_fit(p.into()).map_err(TraceRunError::Other)?;
    let (result, mut store, net) =
        run_model(Live::new(prog, p, 1, 1), model, progress, record).map_err(TraceRunError::Other)?;
    let result = match result {
        Err(simpi_mpi::Error::Stall(stall)) => {
            // Input the stuck ranks never reached may be malformed: that is the error
            // to report.
            store.program_mut().check_unread().map_err(TraceRunError::Engine)?;
            let describe = |id: OpId| store.describe(id.0);
            return Err(TraceRunError::Other(Error::Stall(stall.render(shown, &describe))));
        }
        r => r.map_err(TraceRunError::Engine)?,
    };
    let mut prog = store.into_program();
    let warnings = prog.warnings();
    Ok(TraceRun {
        outcome: result,
        warnings,
        calls: prog.take_calls(),
        net,
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
