//! On-line simulation: `simpi run` starts the real program once per rank, each rank's
//! process loaded with simpi's MPI library (crate `simpi-cmpi`), and simulates every
//! MPI call that involves other ranks with the same engine, models and collective
//! algorithms as replay, through the driver API (`simpi_mpi::driver`).
//!
//! Determinism: the ranks run in parallel between MPI calls, but the simulator takes
//! their calls in the order of the simulation (all ranks that may go on at the current
//! simulated time, in rank order), never in the order they arrive on the wall clock.
//! With `Compute::None` the simulated times depend only on the calls.

mod annotations;
mod collect;
mod comms;
mod coroutines;
mod crash;
mod loadable;
mod processes;
mod ranks;
pub mod record;
mod remote;
mod tit;
mod windows;

pub use coroutines::InProcess;

use crate::replay::{cpu_sharing, HostRules, Model};
use crate::workload::CollChoice;
use crate::Error;
use annotations::Annotations;
use collect::{CallKey, Collectives};
use comms::Comms;
use coroutines::Coroutines;
use processes::Processes;
use ranks::Ranks;
use simpi_kernel::SimTime;
use simpi_mpi::coll::{CollSpec, Collective as Coll};
use simpi_mpi::driver::{Call as DCall, Driver, Handle, Posted};
use simpi_mpi::engine::smpi::SmpiRules;
use simpi_mpi::engine::Rules;
use simpi_mpi::live::Live;
use simpi_mpi::{CpuSharing, Outcome};
use simpi_net::{ConstantNetwork, FlowNetwork, PacketNetwork};
use simpi_platform::HostId;
use simpi_wire::{
    abi, Call, CollKind, Collective, Completing, Completion, NewComm, Region, Reply, Request, Timed, PENDING,
};
use std::collections::HashMap;
use std::ffi::OsString;
use std::sync::Arc;
use windows::Windows;

/// What CPU time between MPI calls counts for.
#[derive(Clone, Debug)]
pub enum Compute {
    /// Nothing: only the network and the MPI calls take simulated time.
    None,
    /// Measured CPU time, times `ps_per_ns` simulated picoseconds per nanosecond.
    Measure {
        /// Simulated picoseconds per nanosecond of this machine's CPU time (1000: the
        /// simulated host is as fast as this machine's core).
        ps_per_ns: f64,
    },
    /// As `Measure`, and the computation before each call written to this file once
    /// the run ends (see `Replay`).
    Record {
        /// As for `Measure`.
        ps_per_ns: f64,
        /// The record to write.
        path: std::path::PathBuf,
    },
    /// The computation before each call read from a record that `Record` wrote: the
    /// run gives the recorded run's simulated times bit for bit (as long as the
    /// program makes the same calls).
    Replay {
        /// The record.
        path: std::path::PathBuf,
    },
}

/// How to run a program.
pub struct RunOptions<'a> {
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Ranks.
    pub ranks: u32,
    /// The model (flow, hybrid, packet under SMPI's protocol, or constant).
    pub model: Model<'a>,
    /// The collective algorithms.
    pub colls: &'a CollChoice,
    /// What compute counts for.
    pub compute: Compute,
    /// What each MPI_Test costs, in picoseconds (SimGrid's `smpi/test`).
    pub test_cost_ps: u64,
    /// What each read of the clock (MPI_Wtime) costs, in picoseconds (SimGrid's
    /// `smpi/wtime`): a loop that waits for the clock to advance then ends.
    pub clock_cost_ps: u64,
    /// Keep a record of every operation (for a timeline): `RunOutcome::records`.
    pub record: bool,
    /// Write the run as a TIT trace into this directory (`index.txt`, `rank-<r>.tit`):
    /// `simpi replay` of it on the same machine gives the same times (see `tit.rs`).
    pub record_tit: Option<std::path::PathBuf>,
    /// Run the simulator and every rank on one core (as SMPI runs everything in one
    /// thread): each blocking call hands the CPU over twice, and on this VM a hand-over
    /// to another core cost 3 times one on the same core. Spread them (false) when
    /// ranks compute much between calls.
    pub one_core: bool,
    /// Run the ranks as coroutines of this process (`None`: a process per rank).
    pub in_process: Option<InProcess>,
}

/// What a run gives back.
#[derive(Debug)]
pub struct RunOutcome {
    /// When each rank called MPI_Finalize, in simulated time.
    pub end_times: Vec<SimTime>,
    /// MPI calls simulated.
    pub calls: u64,
    /// One record per operation, if the run was asked to keep them.
    pub records: Vec<simpi_mpi::OpRecord>,
    /// With [`RunOptions::record_tit`]: the trace's index file, or why the run has no
    /// TIT form (the run's results stand).
    pub tit: Option<Result<std::path::PathBuf, String>>,
}

impl RunOutcome {
    /// The latest end time.
    pub fn makespan(&self) -> SimTime {
        self.end_times.iter().copied().max().unwrap_or_default()
    }
}

/// Runs the program of `opts` on the simulated machine.
pub fn run(opts: RunOptions<'_>) -> Result<RunOutcome, Error> {
    if opts.ranks == 0 {
        return Err(Error::Setting("simpi run needs at least one rank".into()));
    }
    if let Compute::Measure { ps_per_ns } | Compute::Record { ps_per_ns, .. } = opts.compute {
        if !(ps_per_ns.is_finite() && ps_per_ns > 0.0) {
            return Err(Error::Setting(format!(
                "the compute scale must be a positive number, not {ps_per_ns}"
            )));
        }
    }
    simpi_wire::heap::reuse_large_blocks();
    let n = opts.ranks;
    let hosts_of = |hosts: &[HostId]| -> Result<Vec<HostId>, Error> {
        hosts
            .get(..n as usize)
            .map(<[HostId]>::to_vec)
            .ok_or_else(|| Error::Setting(format!("{n} ranks but only {} are mapped to hosts", hosts.len())))
    };
    match &opts.model {
        Model::Flow {
            platform,
            hosts,
            preset,
        } => {
            let hosts = hosts_of(hosts)?;
            let cpus = cpu_sharing(platform, &hosts);
            let net = FlowNetwork::new(platform, preset.network.clone());
            let on = host_numbers(&hosts);
            let speeds = hosts.iter().map(|&h| platform.host_speed(h)).collect();
            let rules = SmpiRules::new(net, preset.protocol.clone(), hosts, 1).with_sharing(cpus);
            Session::new(&opts, on, speeds).drive(Driver::recording(n, rules, opts.record))
        }
        Model::Packet {
            platform,
            hosts,
            rules: HostRules::Smpi(protocol),
            params,
        } => {
            let hosts = hosts_of(hosts)?;
            let cpus = cpu_sharing(platform, &hosts);
            let net = PacketNetwork::new(platform, params.clone()).map_err(|e| Error::Setting(e.to_string()))?;
            let on = host_numbers(&hosts);
            let speeds = hosts.iter().map(|&h| platform.host_speed(h)).collect();
            let rules = SmpiRules::new(net, protocol.clone(), hosts, 1).with_sharing(cpus);
            Session::new(&opts, on, speeds).drive(Driver::recording(n, rules, opts.record))
        }
        Model::Constant { time, protocol } => {
            let hosts = (0..n).map(HostId).collect();
            let rules = SmpiRules::new(ConstantNetwork::new(*time), protocol.clone(), hosts, 1)
                .with_sharing(CpuSharing::none());
            // No platform: hosts of 1 Gflop/s (the default cluster's).
            Session::new(&opts, (0..n).collect(), vec![1e9; n as usize]).drive(Driver::recording(n, rules, opts.record))
        }
        _ => Err(Error::Setting(
            "simpi run simulates with --model flow, hybrid, packet (SMPI's protocol) or constant".into(),
        )),
    }
}

/// Held by the in-process run under way (see [`InProcess`]).
static IN_PROCESS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Unsuccessful probes in a row, each with nothing in flight and no call made since
/// the one before, after which a probing rank waits for a message that cannot come.
const IDLE_PROBES: u64 = 3;

/// Each rank's host, as a number (ranks on one host share MPI_COMM_TYPE_SHARED).
fn host_numbers(hosts: &[HostId]) -> Vec<u32> {
    hosts.iter().map(|h| h.0).collect()
}

/// What a rank's reply will hold once the simulation lets it go on.
enum Awaiting {
    /// The answer to MPI_Init.
    Welcome,
    /// Nothing but the time.
    Nothing,
    /// A blocking receive's message, and where the rank's memory may take it
    /// directly.
    Recv(Handle, Option<Region>),
    /// Requests' completions: the driver's handle and what each is.
    Wait(Vec<(Handle, Req)>),
    /// A collective's result, the rank's rank in its communicator, and where the
    /// rank's memory may take the result directly.
    Coll(CallKey, u32, Option<Region>),
    /// Data known when the call was made.
    Data(Vec<u8>),
    /// MPI_Iprobe's answer: (communicator, source in it or any, tag or any).
    Probe(u32, i32, i32),
    /// A communicator-making call's new communicator: the call, its kind, and the
    /// rank's rank in the parent.
    Made(CallKey, CollKind, u32),
    /// Which of the rank's requests (with their driver handles and what each is) a
    /// Waitany, Waitsome, Testany, Testall or Testsome completes.
    Completing(Vec<(u64, Handle, Req)>, Completing),
    /// A test's outcome: the rank's request, the driver's handle, what it is.
    Test(u64, Handle, Req),
    /// MPI_Win_test's outcome on a window.
    WinTest(u32),
}

/// What a request of a rank is: what its completion gives back.
#[derive(Clone, Copy, Debug)]
enum Req {
    Send,
    /// A receive, and where the rank's memory may take its message directly.
    Recv(Option<Region>),
    /// A non-blocking collective: the call, the rank's rank in its communicator, and
    /// where the rank's memory may take the result directly.
    Coll(CallKey, u32, Option<Region>),
}

/// A message sent and not yet received, as a probe sees it.
#[derive(Clone, Debug)]
struct Unmatched {
    comm: u32,
    /// The sender's rank in `comm`.
    source: i32,
    tag: i32,
    bytes: u64,
    /// When it was sent, in simulated picoseconds.
    at: u64,
}

/// The state of one run.
struct Session<'o> {
    opts: &'o RunOptions<'o>,
    colls: Collectives,
    comms: Comms,
    /// Each rank's host number.
    hosts: Vec<u32>,
    awaiting: Vec<Awaiting>,
    /// Per rank: its request ids, with the driver's handle and what each is.
    requests: Vec<HashMap<u64, (Handle, Req)>>,
    /// Messages sent and not yet matched, by send handle.
    sent: HashMap<Handle, Completion>,
    /// Messages matched, by receive handle.
    arrived: HashMap<Handle, Completion>,
    /// Per world rank: the messages sent to it and not yet matched, by send handle
    /// (handles grow with sending: the order MPI_Iprobe looks in).
    unmatched: Vec<std::collections::BTreeMap<Handle, Unmatched>>,
    /// MPI calls other than probes made so far, and per rank the count at its last
    /// unsuccessful probe with the number of such probes in a row (a rank probing for
    /// a message no rank will send would spin for ever).
    progress: u64,
    probing: Vec<(u64, u64)>,
    /// The destination of each message in `unmatched`, by send handle.
    sent_to: HashMap<Handle, u32>,
    /// The run cannot go on (a deadlock found outside the engine).
    stalled: bool,
    /// When the call being posted is made, in simulated picoseconds: now, plus the
    /// compute before it (exact unless the rank waits for a shared CPU).
    call_at: u64,
    /// Per rank: it called MPI_Finalize.
    finalized: Vec<bool>,
    /// Per rank: calls it made after the one posted last, without waiting for replies
    /// (the last of them it waits for); empty when the rank waits for the reply to the
    /// call posted last.
    queued: Vec<std::collections::VecDeque<Timed>>,
    /// Per rank: simulated time it computed before requests for the time, to post
    /// before its next call.
    carried: Vec<u64>,
    next_handle: Handle,
    calls: u64,
    windows: Windows,
    annotations: Annotations,
    /// Each rank's process id.
    pids: Vec<i32>,
    /// The smallest contiguous buffer the ranks leave in their memory for this
    /// process to read and write (`u64::MAX`: it cannot reach them).
    remote_min: u64,
    /// Each rank's host speed, in flop/s.
    speeds: Vec<f64>,
    /// Per rank: the computation before each call so far (`Compute::Record`), or
    /// what is left of the record (`Compute::Replay`).
    recorded: Vec<Vec<u64>>,
    replayed: Vec<std::collections::VecDeque<u64>>,
    /// The run as a TIT trace, if asked for.
    tit: Option<tit::TitWriter>,
}

impl<'o> Session<'o> {
    fn new(opts: &'o RunOptions<'o>, hosts: Vec<u32>, speeds: Vec<f64>) -> Session<'o> {
        let n = opts.ranks as usize;
        Session {
            opts,
            colls: Collectives::new(opts.ranks),
            comms: Comms::new(opts.ranks),
            hosts,
            awaiting: (0..n).map(|_| Awaiting::Welcome).collect(),
            requests: vec![HashMap::new(); n],
            sent: HashMap::new(),
            arrived: HashMap::new(),
            unmatched: vec![std::collections::BTreeMap::new(); n],
            progress: 0,
            probing: vec![(0, 0); n],
            sent_to: HashMap::new(),
            call_at: 0,
            stalled: false,
            finalized: vec![false; n],
            queued: (0..n).map(|_| std::collections::VecDeque::new()).collect(),
            carried: vec![0; n],
            next_handle: 0,
            calls: 0,
            windows: Windows::default(),
            annotations: Annotations::default(),
            pids: Vec::new(),
            remote_min: u64::MAX,
            speeds,
            recorded: vec![Vec::new(); n],
            replayed: Vec::new(),
            tit: opts
                .record_tit
                .as_deref()
                .map(|dir| tit::TitWriter::new(dir, opts.ranks)),
        }
    }

    /// Starts the ranks and runs them to the end; kills them all on an error.
    fn drive<R: Rules<Live<Posted>>>(mut self, d: Driver<R>) -> Result<RunOutcome, Error> {
        if self.opts.one_core && self.opts.in_process.is_none() {
            // The ranks inherit it.
            ranks::keep_to_one_core();
        }
        if let Compute::Replay { path } = &self.opts.compute {
            self.replayed = record::read(path, self.opts.ranks).map_err(Error::Input)?;
        }
        let (program, args, n) = (&self.opts.program, &self.opts.args, self.opts.ranks);
        // One run's ranks at a time in this process: simpi's MPI library, loaded
        // once, holds them (another thread's in-process run waits for this one).
        let _alone = self
            .opts
            .in_process
            .map(|_| IN_PROCESS.lock().unwrap_or_else(|p| p.into_inner()));
        let mut ranks: Box<dyn Ranks> = match self.opts.in_process {
            None => Box::new(Processes::start(program, args, n).map_err(Error::Setting)?),
            Some(how) => Box::new(Coroutines::start(program, args, n, how).map_err(Error::Setting)?),
        };
        self.pids = ranks.pids();
        if self.pids.first().is_some_and(|&pid| remote::reachable(pid)) {
            self.remote_min = remote::MIN_BYTES;
        }
        match self.simulate(d, ranks.as_mut()) {
            Ok(outcome) => {
                let failed = ranks.wait_all();
                if let Some((r, how)) = failed.first() {
                    return Err(Error::Input(format!("rank {r} failed after MPI_Finalize ({how})")));
                }
                if let Compute::Record { path, .. } = &self.opts.compute {
                    record::write(path, &self.recorded).map_err(Error::Input)?;
                }
                if let (Compute::Replay { path }, Some(r)) =
                    (&self.opts.compute, self.replayed.iter().position(|q| !q.is_empty()))
                {
                    return Err(Error::Input(format!(
                        "rank {r} made fewer MPI calls than {} recorded for it: not the recorded run",
                        path.display()
                    )));
                }
                Ok(RunOutcome {
                    end_times: outcome.end_times,
                    calls: self.calls,
                    records: outcome.records,
                    tit: self.tit.take().map(tit::TitWriter::finish),
                })
            }
            Err(e) => {
                ranks.kill_all();
                Err(e)
            }
        }
    }

    fn simulate<R: Rules<Live<Posted>>>(&mut self, mut d: Driver<R>, ranks: &mut dyn Ranks) -> Result<Outcome, Error> {
        let n = self.opts.ranks;
        for r in 0..n {
            match ranks.receive(r).map_err(Error::Input)? {
                Request::Hello => {}
                Request::Abort { code, message } => return Err(aborted(r, code, &message)),
                Request::Calls { .. } => {
                    return Err(Error::Input(format!("rank {r} made an MPI call before MPI_Init")));
                }
            }
        }
        let mut go = d.run().map_err(engine_error)?;
        while !go.is_empty() {
            self.collect_matches(&mut d);
            let now = d.now().0;
            for &r in &go {
                let reply =
                    self.reply(&mut d, r, now).map_err(
                        |e| {
                            if self.stalled {
                                Error::Stall(e)
                            } else {
                                Error::Input(e)
                            }
                        },
                    )?;
                // Calls still queued: this one was posted ahead, the rank did not
                // wait for its reply.
                if self.queued[r as usize].is_empty() {
                    ranks.answer(r, &reply).map_err(Error::Input)?;
                }
            }
            for &r in &go {
                let mut next = match self.queued[r as usize].pop_front() {
                    Some(t) => t,
                    None => self.receive_calls(ranks, r)?,
                };
                // A request for the time is no call: its compute goes before the
                // rank's next call, and the rank learns the time at once.
                while matches!(next.call, Call::Sync) {
                    let ps = self.compute_ps(r, next.compute_ns, next.clock_ps)?;
                    let carried = &mut self.carried[r as usize];
                    *carried = carried
                        .checked_add(ps)
                        .ok_or_else(|| Error::Input(format!("rank {r} computed beyond the simulated clock's range")))?;
                    next = match self.queued[r as usize].pop_front() {
                        Some(t) => t,
                        None => {
                            let now_ps = now.checked_add(*carried).ok_or_else(|| {
                                Error::Input(format!("rank {r} computed beyond the simulated clock's range"))
                            })?;
                            let reply = Reply::Done {
                                now_ps,
                                completions: Vec::new(),
                            };
                            ranks.answer(r, &reply).map_err(Error::Input)?;
                            self.receive_calls(ranks, r)?
                        }
                    };
                }
                self.calls += 1;
                if !matches!(next.call, Call::Iprobe { .. }) {
                    self.progress += 1;
                }
                self.post(&mut d, r, (next.compute_ns, next.clock_ps), next.call)?;
                // A finalized rank never goes on again: it is answered now.
                if self.finalized[r as usize] {
                    ranks
                        .answer(
                            r,
                            &Reply::Done {
                                now_ps: now,
                                completions: Vec::new(),
                            },
                        )
                        .map_err(Error::Input)?;
                }
            }
            go = d.run().map_err(engine_error)?;
        }
        match d.finish() {
            Err(simpi_mpi::Error::Stall(stall)) => {
                let describe = |id: simpi_mpi::OpId| format!("operation {}", id.0);
                Err(Error::Stall(stall.render(10, &describe)))
            }
            r => r.map_err(engine_error),
        }
    }

    /// Rank `r`'s next message: its calls posted ahead, queued, and the first of them
    /// (or the call it waits for).
    fn receive_calls(&mut self, ranks: &mut dyn Ranks, r: u32) -> Result<Timed, Error> {
        match ranks.receive(r).map_err(Error::Input)? {
            Request::Hello => Err(Error::Input(format!("rank {r} called MPI_Init twice"))),
            Request::Abort { code, message } => Err(aborted(r, code, &message)),
            Request::Calls { mut ahead, mut last } => {
                if ahead.iter().any(|t| matches!(t.call, Call::Finalize)) {
                    return Err(Error::Input(format!(
                        "rank {r} went on after MPI_Finalize without waiting for it"
                    )));
                }
                for t in ahead.iter_mut().chain(std::iter::once(&mut last)) {
                    self.fetch(r, t)?;
                }
                let q = &mut self.queued[r as usize];
                q.extend(ahead);
                q.push_back(last);
                Ok(q.pop_front().expect("a call was just queued"))
            }
        }
    }

    fn handle(&mut self) -> Handle {
        self.next_handle += 1;
        self.next_handle
    }

    fn collect_matches<R: Rules<Live<Posted>>>(&mut self, d: &mut Driver<R>) {
        for (s, r) in d.take_matches() {
            if let Some(c) = self.sent.remove(&s) {
                self.arrived.insert(r, c);
            }
            if let Some(to) = self.sent_to.remove(&s) {
                self.unmatched[to as usize].remove(&s);
            }
        }
        for r in d.take_cancelled() {
            self.arrived
                .insert(r, completion(simpi_wire::CANCELLED, abi::ANY_TAG, Vec::new()));
        }
    }

    /// The simulated time rank `r` computed before a call: its CPU time (if
    /// simulated) and what its clock reads cost, or the record's (`Compute::Replay`).
    fn compute_ps(&mut self, r: u32, compute_ns: u64, clock_ps: u64) -> Result<u64, Error> {
        // The CPU time between calls (if simulated) and what the clock reads cost.
        let mut ps = clock_ps;
        if let Compute::Measure { ps_per_ns } | Compute::Record { ps_per_ns, .. } = self.opts.compute {
            let cpu = (compute_ns as f64 * ps_per_ns).round();
            ps = match cpu {
                c if c < u64::MAX as f64 => ps.checked_add(c as u64),
                _ => None,
            }
            .ok_or_else(|| {
                Error::Input(format!(
                    "rank {r} computed {compute_ns} ns, beyond the simulated clock's range"
                ))
            })?;
        }
        match &self.opts.compute {
            Compute::Record { .. } => self.recorded[r as usize].push(ps),
            Compute::Replay { path } => {
                ps = self.replayed[r as usize].pop_front().ok_or_else(|| {
                    Error::Input(format!(
                        "rank {r} makes more MPI calls than {} recorded for it: not the recorded run",
                        path.display()
                    ))
                })?;
            }
            _ => {}
        }
        Ok(ps)
    }

    /// Posts a call of rank `r` that takes no time (a zero-length computation, which
    /// still waits for the rank's CPU).
    fn post_nothing<R: Rules<Live<Posted>>>(&mut self, d: &mut Driver<R>, r: u32) -> Result<(), Error> {
        if let Some(w) = &mut self.tit {
            w.compute(r, 0);
        }
        d.post(r, DCall::Compute(0)).map_err(engine_error)
    }

    /// Posts rank `r`'s compute and call.
    fn post<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        (compute_ns, clock_ps): (u64, u64),
        call: Call,
    ) -> Result<(), Error> {
        self.call_at = d.now().0;
        let ps = self
            .compute_ps(r, compute_ns, clock_ps)?
            .checked_add(std::mem::take(&mut self.carried[r as usize]))
            .ok_or_else(|| Error::Input(format!("rank {r} computed beyond the simulated clock's range")))?;
        if ps > 0 {
            d.post(r, DCall::Compute(ps)).map_err(engine_error)?;
            self.call_at = self.call_at.saturating_add(ps);
            if let Some(w) = &mut self.tit {
                w.compute(r, ps);
            }
        }
        let awaiting = match call {
            Call::Send {
                comm,
                to,
                tag,
                sync,
                data,
                ..
            } => {
                self.post_send(d, r, (comm, to, tag, sync), data, None)?;
                Awaiting::Nothing
            }
            Call::Isend {
                comm,
                to,
                tag,
                sync,
                request,
                data,
                ..
            } => {
                self.post_send(d, r, (comm, to, tag, sync), data, Some(request))?;
                Awaiting::Nothing
            }
            Call::Recv {
                comm,
                from,
                tag,
                capacity,
                into,
            } => Awaiting::Recv(self.post_recv(d, r, (comm, from, tag), capacity, None)?, into),
            Call::Irecv {
                comm,
                from,
                tag,
                capacity,
                request,
                into,
            } => {
                self.post_recv(d, r, (comm, from, tag), capacity, Some((request, into)))?;
                Awaiting::Nothing
            }
            Call::Wait { requests } => {
                let mut list = Vec::with_capacity(requests.len());
                for q in requests {
                    let hq = self.requests[r as usize]
                        .remove(&q)
                        .ok_or_else(|| Error::Input(format!("rank {r} waits for request {q}, which it never made")))?;
                    list.push(hq);
                }
                d.post(r, DCall::Wait(list.iter().map(|&(h, _)| h).collect()))
                    .map_err(engine_error)?;
                Awaiting::Wait(list)
            }
            Call::Test { request } => {
                let Some(&(h, kind)) = self.requests[r as usize].get(&request) else {
                    return Err(Error::Input(format!(
                        "rank {r} tests request {request}, which it never made"
                    )));
                };
                let cost_ps = self.opts.test_cost_ps;
                d.post(r, DCall::Test { handle: h, cost_ps }).map_err(engine_error)?;
                Awaiting::Test(request, h, kind)
            }
            Call::GroupComm { members, tag } => {
                // Timed as nothing: the members agree without the others of the parent.
                let index = self.comms.group_comm(r, members, tag).map_err(Error::Input)?;
                self.post_nothing(d, r)?;
                Awaiting::Data(NewComm::SameMembers(index).encode())
            }
            Call::Intercomm { local, remote, tag } => {
                let index = self.comms.intercomm(r, local, remote, tag).map_err(Error::Input)?;
                self.post_nothing(d, r)?;
                Awaiting::Data(NewComm::SameMembers(index).encode())
            }
            Call::Iprobe { comm, from, tag } => {
                self.comms.place(comm, r).map_err(Error::Input)?;
                // As SMPI's, the probe costs a test's time, then looks.
                d.post(r, DCall::Compute(self.opts.test_cost_ps))
                    .map_err(engine_error)?;
                if let Some(w) = &mut self.tit {
                    w.compute(r, self.opts.test_cost_ps);
                }
                Awaiting::Probe(comm, from, tag)
            }
            Call::Completing { requests, how } => {
                let mut list = Vec::with_capacity(requests.len());
                for q in requests {
                    let &(h, kind) = self.requests[r as usize]
                        .get(&q)
                        .ok_or_else(|| Error::Input(format!("rank {r} completes request {q}, which it never made")))?;
                    list.push((q, h, kind));
                }
                let Some(&(_, first, _)) = list.first() else {
                    return Err(Error::Input(format!("rank {r} completes an empty list of requests")));
                };
                let call = if how.waits() {
                    DCall::WaitAny(list.iter().map(|x| x.1).collect())
                } else {
                    DCall::Test {
                        handle: first,
                        cost_ps: self.opts.test_cost_ps,
                    }
                };
                d.post(r, call).map_err(engine_error)?;
                Awaiting::Completing(list, how)
            }
            Call::Collective(c) => {
                let kind = c.kind;
                let at = c.recv_at;
                let (key, me) = self.post_collective(d, r, c, None)?;
                match kind {
                    CollKind::Dup | CollKind::Split | CollKind::SplitShared | CollKind::Create | CollKind::Merge => {
                        Awaiting::Made(key, kind, me)
                    }
                    _ => Awaiting::Coll(key, me, at),
                }
            }
            Call::ICollective { request, coll } => {
                if matches!(
                    coll.kind,
                    CollKind::Dup | CollKind::Split | CollKind::SplitShared | CollKind::Create | CollKind::Merge
                ) {
                    return Err(Error::Input(format!(
                        "rank {r}: a non-blocking {:?} is not simulated",
                        coll.kind
                    )));
                }
                let h = self.handle();
                let at = coll.recv_at;
                let (key, me) = self.post_collective(d, r, coll, Some(h))?;
                self.requests[r as usize].insert(request, (h, Req::Coll(key, me, at)));
                Awaiting::Nothing
            }
            Call::Win(c) => {
                if let Some(w) = &mut self.tit {
                    w.refuse(r, "one-sided communication (MPI_Win_*, MPI_Put, MPI_Get...)");
                }
                self.post_win(d, r, c)?
            }
            Call::Sample { key, sample_ns } => {
                self.post_nothing(d, r)?;
                Awaiting::Data(self.annotations.sample(key, sample_ns))
            }
            Call::SharedMalloc { key, size } => {
                let m = self
                    .annotations
                    .shared(key, size)
                    .map_err(|e| Error::Input(format!("rank {r}: {e}")))?;
                self.post_nothing(d, r)?;
                Awaiting::Data(m.encode())
            }
            Call::Sync => return Err(Error::Input(format!("rank {r}: a clock request posted as a call"))),
            Call::Cancel { request } => {
                // Only receives are cancelled: a send completes as usual, which MPI
                // allows (the program sees MPI_Test_cancelled false).
                if let Some(&(h, Req::Recv(_))) = self.requests[r as usize].get(&request) {
                    d.post(r, DCall::Cancel(h)).map_err(engine_error)?;
                    if let Some(w) = &mut self.tit {
                        w.refuse(r, "MPI_Cancel of a receive");
                    }
                }
                Awaiting::Nothing
            }
            Call::Finalize => {
                d.post(r, DCall::Finalize).map_err(engine_error)?;
                self.finalized[r as usize] = true;
                Awaiting::Nothing
            }
        };
        self.awaiting[r as usize] = awaiting;
        Ok(())
    }

    /// Posts rank `r`'s collective `c` (non-blocking if it names a driver handle);
    /// returns the call's key and the rank's rank in its communicator.
    fn post_collective<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        c: Collective,
        handle: Option<Handle>,
    ) -> Result<(CallKey, u32), Error> {
        let comm = c.comm;
        let kind = c.kind;
        // A merge or a duplicate of an intercommunicator is one call of both groups.
        let both = kind == CollKind::Merge
            || (matches!(kind, CollKind::Dup | CollKind::Split | CollKind::Create) && self.comms.is_inter(comm));
        let inter = self.comms.is_inter(comm) && !both;
        if inter
            && !matches!(
                kind,
                CollKind::Barrier
                    | CollKind::Bcast
                    | CollKind::Reduce
                    | CollKind::Allreduce
                    | CollKind::Gather
                    | CollKind::Scatter
                    | CollKind::Allgather
                    | CollKind::Alltoall
                    | CollKind::ReduceScatterBlock
                    | CollKind::Gatherv
                    | CollKind::Scatterv
                    | CollKind::Allgatherv
                    | CollKind::Alltoallv
            )
        {
            return Err(Error::Input(format!(
                "rank {r}: {kind:?} on intercommunicator {comm}: not simulated yet"
            )));
        }
        let (at, members) = if both || inter {
            let (all, at) = self.comms.union(comm, r).map_err(Error::Input)?;
            (at, Some(all))
        } else {
            let at = self.comms.place(comm, r).map_err(Error::Input)?;
            let members = if kind == CollKind::Dup {
                None
            } else {
                self.comms.member_list(comm, r).map_err(Error::Input)?
            };
            (at, members)
        };
        let mut idle = false;
        let mut members = members;
        let (spec, key) = if inter {
            // The other group's data, as MPI defines the collective there. The time: a
            // rooted collective over the root and the other group (the root first),
            // the root's group otherwise idle; the others over both groups.
            let first = self.comms.first_group(comm).map_err(Error::Input)?;
            let me = at.me as usize;
            let all = members.clone().unwrap_or_else(|| Arc::from(Vec::new()));
            let (mine, other) = if me < first {
                (0..first, first..all.len())
            } else {
                (first..all.len(), 0..first)
            };
            let rooted = matches!(
                kind,
                CollKind::Bcast
                    | CollKind::Reduce
                    | CollKind::Gather
                    | CollKind::Scatter
                    | CollKind::Gatherv
                    | CollKind::Scatterv
            );
            let spec = if matches!(kind, CollKind::Allgatherv | CollKind::Alltoallv) {
                // Timed as an alltoallv over both groups: each rank's blocks go to the
                // other group's ranks, none to its own.
                let union = |per_peer: &[u64]| -> Result<Vec<u64>, Error> {
                    if per_peer.len() != other.len() {
                        return Err(Error::Input(format!(
                            "rank {r}: a {kind:?} on intercommunicator {comm} needs one count per rank of the other group"
                        )));
                    }
                    let mut v = vec![0; all.len()];
                    v[other.clone()].copy_from_slice(per_peer);
                    Ok(v)
                };
                let sent = match kind {
                    CollKind::Allgatherv => vec![c.data.len() as u64; other.len()],
                    _ => c.send_counts.clone(),
                };
                let t = timing(&c, CollKind::Alltoallv, union(&sent)?, union(&c.recv_counts)?);
                spec_of(&t, at.size, at.me, 0)?
            } else if !rooted {
                spec_of(&c, at.size, at.me, 0)?
            } else if c.root == abi::PROC_NULL as u32 {
                idle = true;
                spec_of(&c, 1, 0, 0)?
            } else {
                let (root, group, pos) = if c.root == abi::ROOT as u32 {
                    (r, other, 0)
                } else {
                    let k = other.start + c.root as usize;
                    if k >= other.end {
                        return Err(Error::Input(format!(
                            "rank {r}: root {} is not in the other group of intercommunicator {comm}",
                            c.root
                        )));
                    }
                    (all[k], mine.clone(), 1 + me - mine.start)
                };
                let list: Vec<u32> = std::iter::once(root).chain(all[group].iter().copied()).collect();
                let spec = match kind {
                    // The root knows every block (the first, its own, is empty); the
                    // others their own.
                    CollKind::Gatherv | CollKind::Scatterv => {
                        let mut counts = vec![0; list.len()];
                        let given = if kind == CollKind::Gatherv {
                            &c.recv_counts
                        } else {
                            &c.send_counts
                        };
                        if pos == 0 {
                            if given.len() != list.len() - 1 {
                                return Err(Error::Input(format!(
                                    "rank {r}: a {kind:?} root on intercommunicator {comm} needs one count per rank of the other group"
                                )));
                            }
                            counts[1..].copy_from_slice(given);
                        } else {
                            counts[pos] = match kind {
                                CollKind::Gatherv => c.data.len() as u64,
                                _ => given.first().copied().unwrap_or(0),
                            };
                        }
                        let (sc, rc) = if kind == CollKind::Gatherv {
                            (Vec::new(), counts)
                        } else {
                            (counts, Vec::new())
                        };
                        spec_of(&timing(&c, kind, sc, rc), list.len() as u32, pos as u32, 0)?
                    }
                    _ => spec_of(&c, list.len() as u32, pos as u32, 0)?,
                };
                members = Some(Arc::from(list));
                spec
            };
            let key = self.colls.join_sides(r, at, c, Some(first)).map_err(Error::Input)?;
            (spec, key)
        } else {
            let spec = spec_of(&c, at.size, at.me, c.root)?;
            (spec, self.colls.join(r, at, c).map_err(Error::Input)?)
        };
        if let Some(w) = &mut self.tit {
            if both || inter {
                if kind != CollKind::Dup {
                    w.refuse(r, "a collective on an intercommunicator");
                }
            } else if kind != CollKind::Dup && !idle {
                let name = comm_name(&self.comms, comm, r).map_err(Error::Input)?;
                w.collective(r, &name, &spec, handle.map(|h| (h, comm, key.2)));
            }
        }
        // Each call's messages match only its own: see `instance_comm`.
        let comm = instance_comm(comm, key.2);
        let call = if kind == CollKind::Dup || idle {
            // Numbering the copy needs no message (SMPI's does not either); a rank of
            // the root's group other than the root takes no part.
            if let Some(w) = &mut self.tit {
                w.compute(r, 0);
            }
            DCall::Compute(0)
        } else {
            let alg = self.opts.colls.choose(&spec);
            match handle {
                None => DCall::Collective {
                    spec,
                    alg,
                    comm,
                    members,
                },
                Some(handle) => DCall::ICollective {
                    spec,
                    alg,
                    comm,
                    members,
                    handle,
                },
            }
        };
        d.post(r, call).map_err(engine_error)?;
        Ok((key, at.me))
    }

    /// Posts rank `r`'s send of `data` on (communicator, destination, tag,
    /// synchronous) (non-blocking if it names a `request`).
    fn post_send<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        (comm, to, tag, sync): (u32, u32, i32, bool),
        data: Vec<u8>,
        request: Option<u64>,
    ) -> Result<(), Error> {
        let me = self.comms.place(comm, r).map_err(Error::Input)?.me;
        let to = self.comms.world_rank(comm, r, to).map_err(Error::Input)?;
        let tag = checked_tag(r, tag, false)?;
        let (h, bytes) = (self.handle(), data.len() as u64);
        let call = match request {
            None => DCall::Send {
                to,
                tag,
                bytes,
                handle: h,
                comm,
                sync,
            },
            Some(q) => {
                self.requests[r as usize].insert(q, (h, Req::Send));
                DCall::Isend {
                    to,
                    tag,
                    bytes,
                    handle: h,
                    comm,
                    sync,
                }
            }
        };
        let at = self.call_at;
        self.unmatched[to as usize].insert(
            h,
            Unmatched {
                comm,
                source: me as i32,
                tag: tag as i32,
                bytes: data.len() as u64,
                at,
            },
        );
        self.sent_to.insert(h, to);
        self.sent.insert(h, completion(me as i32, tag as i32, data));
        if let Some(w) = &mut self.tit {
            if self.comms.is_inter(comm) {
                w.refuse(r, "point-to-point on an intercommunicator");
            } else {
                let name = comm_name(&self.comms, comm, r).map_err(Error::Input)?;
                w.send(r, &name, to, tag, bytes, sync, request.map(|_| h));
            }
        }
        d.post(r, call).map_err(engine_error)
    }

    /// Posts rank `r`'s receive on (communicator, source, tag) (non-blocking if it
    /// names a `request`, with where its message may go); returns its handle.
    fn post_recv<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        (comm, from, tag): (u32, i32, i32),
        capacity: u64,
        request: Option<(u64, Option<Region>)>,
    ) -> Result<Handle, Error> {
        let from = match from {
            abi::ANY_SOURCE => simpi_mpi::ANY_SOURCE,
            f if f >= 0 => self.comms.world_rank(comm, r, f as u32).map_err(Error::Input)?,
            f => {
                return Err(Error::Input(format!(
                    "rank {r} receives from rank {f}, which does not exist"
                )))
            }
        };
        let tag = checked_tag(r, tag, true)?;
        let h = self.handle();
        if let Some(w) = &mut self.tit {
            if self.comms.is_inter(comm) {
                w.refuse(r, "point-to-point on an intercommunicator");
            } else {
                let name = comm_name(&self.comms, comm, r).map_err(Error::Input)?;
                w.recv(r, &name, from, tag, capacity, request.as_ref().map(|_| h));
            }
        }
        let call = match request {
            None => DCall::Recv {
                from,
                tag,
                bytes: capacity,
                handle: h,
                comm,
            },
            Some((q, into)) => {
                self.requests[r as usize].insert(q, (h, Req::Recv(into)));
                DCall::Irecv {
                    from,
                    tag,
                    bytes: capacity,
                    handle: h,
                    comm,
                }
            }
        };
        d.post(r, call).map_err(engine_error)?;
        Ok(h)
    }

    /// What request `h` of rank `r`, of kind `kind`, gives back now that it is done.
    fn completed(&mut self, r: u32, h: Handle, kind: Req) -> Result<Completion, String> {
        match kind {
            Req::Send => Ok(completion(-1, 0, Vec::new())),
            Req::Recv(into) => {
                let m = self
                    .arrived
                    .remove(&h)
                    .ok_or_else(|| format!("rank {r}: a receive completed without its message"))?;
                let len = m.data.len() as u64;
                match into {
                    // A large message that fits: written where the rank will read it.
                    Some(at) if len >= self.remote_min && len <= at.len => {
                        remote::write(self.pids[r as usize], at.addr, &m.data).map_err(|e| format!("rank {r}: {e}"))?;
                        Ok(Completion {
                            data: Vec::new(),
                            placed: Some(len),
                            ..m
                        })
                    }
                    _ => Ok(m),
                }
            }
            Req::Coll(key, me, at) => self.coll_result(r, key, me, at),
        }
    }

    /// Rank `r`'s result of collective `key`, where it is `me`: written into the
    /// rank's memory at `at` if it fits there exactly, else carried by the reply.
    fn coll_result(&mut self, r: u32, key: CallKey, me: u32, at: Option<Region>) -> Result<Completion, String> {
        let pid = self.pids[r as usize];
        self.colls.result_with(me, key, |data| match at {
            Some(at) if at.len == data.len() as u64 && !data.is_empty() => {
                remote::write(pid, at.addr, data).map_err(|e| format!("rank {r}: {e}"))?;
                Ok(Completion {
                    source: -1,
                    tag: 0,
                    data: Vec::new(),
                    placed: Some(at.len),
                })
            }
            _ => Ok(completion(-1, 0, data.to_vec())),
        })
    }

    /// Reads from rank `r`'s memory the data its calls left there (a collective's
    /// [`Collective::send_at`], a send's `from`): the rank waits for its last call, and
    /// may not change the buffer of a non-blocking one before it completes.
    fn fetch(&self, r: u32, t: &mut Timed) -> Result<(), Error> {
        let (data, at) = match &mut t.call {
            Call::Collective(c) | Call::ICollective { coll: c, .. } => (&mut c.data, c.send_at.take()),
            Call::Send { data, from, .. } | Call::Isend { data, from, .. } => (data, from.take()),
            _ => return Ok(()),
        };
        if let Some(at) = at {
            let len =
                usize::try_from(at.len).map_err(|_| Error::Input(format!("rank {r}: a buffer of {} bytes", at.len)))?;
            *data = remote::read_vec(self.pids[r as usize], at.addr, len)
                .map_err(|e| Error::Input(format!("rank {r}: {e}")))?;
        }
        Ok(())
    }

    /// Rank `r`'s reply, now that it may go on at `now` picoseconds.
    fn reply<R: Rules<Live<Posted>>>(&mut self, d: &mut Driver<R>, r: u32, now: u64) -> Result<Reply, String> {
        let completions = match std::mem::replace(&mut self.awaiting[r as usize], Awaiting::Nothing) {
            Awaiting::Welcome => {
                return Ok(Reply::Welcome {
                    rank: r,
                    size: self.opts.ranks,
                    now_ps: now,
                    compute_scale: match self.opts.compute {
                        // A replayed run's clock moves only with the record.
                        Compute::None | Compute::Replay { .. } => 0.0,
                        Compute::Measure { ps_per_ns } | Compute::Record { ps_per_ns, .. } => ps_per_ns,
                    },
                    clock_cost_ps: self.opts.clock_cost_ps,
                    host_flops: self.speeds[r as usize],
                    remote_min: self.remote_min,
                });
            }
            Awaiting::Nothing => Vec::new(),
            Awaiting::Data(data) => vec![completion(-1, 0, data)],
            Awaiting::Recv(h, into) => vec![self.completed(r, h, Req::Recv(into))?],
            Awaiting::Wait(list) => {
                if let Some(w) = &mut self.tit {
                    // Written now that the engine has reached every call before it.
                    let handles: Vec<Handle> = list.iter().map(|&(h, _)| h).collect();
                    w.wait_all(r, &handles, &empty_of(d, &handles));
                }
                let mut v = Vec::with_capacity(list.len());
                for (h, kind) in list {
                    v.push(self.completed(r, h, kind)?);
                }
                v
            }
            Awaiting::Coll(key, me, at) => vec![self.coll_result(r, key, me, at)?],
            Awaiting::Probe(comm, from, tag) => {
                let found = self.unmatched[r as usize].values().find(|m| {
                    m.at <= now
                        && m.comm == comm
                        && (from == abi::ANY_SOURCE || from == m.source)
                        && (tag == abi::ANY_TAG || tag == m.tag)
                });
                match found {
                    Some(m) => {
                        self.probing[r as usize] = (self.progress, 0);
                        vec![completion(m.source, m.tag, m.bytes.to_le_bytes().to_vec())]
                    }
                    None => {
                        // Nothing in flight and no call since the last miss: no message
                        // can come, the probes would go on for ever.
                        let (seen, misses) = self.probing[r as usize];
                        let idle = d.idle() && seen == self.progress;
                        let misses = if idle { misses + 1 } else { 0 };
                        if misses >= IDLE_PROBES {
                            let why = format!(
                                "rank {r} probes for a message from {from} with tag {tag} on communicator \
                                 {comm}, but no message is in flight and no rank can make a call: deadlock"
                            );
                            self.stalled = true;
                            return Err(why);
                        }
                        self.probing[r as usize] = (self.progress, misses);
                        Vec::new()
                    }
                }
            }
            Awaiting::Completing(list, how) => {
                let done: Vec<bool> = list.iter().map(|&(_, h, _)| d.is_done(r, h)).collect();
                let first = done.iter().position(|&x| x);
                let report = |i: usize| match how {
                    Completing::WaitAny | Completing::TestAny => Some(i) == first,
                    Completing::WaitSome | Completing::TestSome => done[i],
                    Completing::TestAll => done.iter().all(|&x| x),
                };
                let mut v = Vec::with_capacity(list.len());
                for (i, &(q, h, kind)) in list.iter().enumerate() {
                    v.push(if !report(i) {
                        completion(PENDING, 0, Vec::new())
                    } else {
                        d.forget(r, h);
                        self.requests[r as usize].remove(&q);
                        self.completed(r, h, kind)?
                    });
                }
                if how.waits() && first.is_none() {
                    return Err(format!(
                        "rank {r}: a wait for one of its requests returned with none done"
                    ));
                }
                if let Some(w) = &mut self.tit {
                    let all: Vec<Handle> = list.iter().map(|x| x.1).collect();
                    let reported: Vec<Handle> = (0..list.len()).filter(|&i| report(i)).map(|i| list[i].1).collect();
                    let empty = empty_of(d, &all);
                    match how {
                        Completing::WaitAny => w.wait_some(r, &all, &reported, true, &empty),
                        Completing::WaitSome => w.wait_some(r, &all, &reported, false, &empty),
                        _ => w.test_some(r, &all, &reported, self.opts.test_cost_ps, &empty),
                    }
                }
                v
            }
            Awaiting::Made(key, kind, me) => {
                let parts = if kind == CollKind::Dup {
                    Vec::new()
                } else {
                    self.colls.parts(key)?
                };
                let hosts = &self.hosts;
                let made = self
                    .comms
                    .create((key.0, key.2, kind), r, &parts, |w| hosts[w as usize])?;
                self.colls.result(me, key)?;
                vec![completion(-1, 0, made.encode())]
            }
            Awaiting::WinTest(win) => self.win_tested(d, r, win)?,
            Awaiting::Test(request, h, kind) => {
                let complete = d.take_tested(r, h);
                if let Some(w) = &mut self.tit {
                    let done = [h];
                    let done = &done[..usize::from(complete)];
                    w.test_some(r, &[h], done, self.opts.test_cost_ps, &empty_of(d, &[h]));
                }
                if !complete {
                    Vec::new()
                } else {
                    self.requests[r as usize].remove(&request);
                    vec![self.completed(r, h, kind)?]
                }
            }
        };
        Ok(Reply::Done {
            now_ps: now,
            completions,
        })
    }
}

/// Which of `handles` are non-blocking collectives that had nothing to do.
fn empty_of<R: Rules<Live<Posted>>>(d: &mut Driver<R>, handles: &[Handle]) -> Vec<Handle> {
    handles.iter().copied().filter(|&h| d.was_empty(h)).collect()
}

/// What communicator `comm` of world rank `r` is to a TIT trace (an error for an
/// intercommunicator, which the format cannot name).
fn comm_name(comms: &Comms, comm: u32, r: u32) -> Result<tit::CommName, String> {
    Ok(match comm {
        0 => tit::CommName::World,
        comms::SELF_INDEX => tit::CommName::Own,
        c => tit::CommName::Other(c, comms.member_list(c, r)?),
    })
}

/// A tag as the engine takes it: 0 to MPI_TAG_UB, or MPI_ANY_TAG where `wild`.
fn checked_tag(r: u32, tag: i32, wild: bool) -> Result<u32, Error> {
    match tag {
        abi::ANY_TAG if wild => Ok(simpi_mpi::ANY_TAG),
        t if (0..=abi::TAG_UB).contains(&t) => Ok(t as u32),
        t => Err(Error::Input(format!(
            "rank {r} used tag {t}, outside 0..={}",
            abi::TAG_UB
        ))),
    }
}

fn completion(source: i32, tag: i32, data: Vec<u8>) -> Completion {
    Completion {
        source,
        tag,
        data,
        placed: None,
    }
}

fn aborted(r: u32, code: i32, message: &str) -> Error {
    Error::Input(format!("rank {r} called MPI_Abort with error code {code}: {message}"))
}

fn engine_error(e: simpi_mpi::Error) -> Error {
    Error::Input(format!("simulation: {e}"))
}

/// Collective calls of one communicator that can be in flight together, each with its
/// own matching context: half the slots for calls in order (reused in turn), half for
/// persistent collectives' starts (by a hash of their numbers).
const INSTANCE_SLOTS: u64 = 1024;
/// The first communicator index of those contexts: above every index the ranks' own
/// communicators take (the driver numbers communicators below `MAX_COMMS`).
const INSTANCE_BASE: u64 = (simpi_mpi::driver::MAX_COMMS / 2) as u64;

/// The communicator index whose matching context carries the `seq`-th collective call
/// on communicator `comm`. The algorithms' messages use fixed tags, so two calls in
/// flight at once (non-blocking collectives, or a blocking one while a non-blocking
/// one is pending) could match each other's messages when a rank's steps of the later
/// call post a receive before those of the earlier one; the data would then be right
/// (it is computed per call) but the times not, and a rank could finish a call before
/// a contribution to it was made. MPI keeps collective calls apart; so does this.
/// Past 2^19 communicators, the communicator's own context (no longer apart).
fn instance_comm(comm: u32, seq: u64) -> u32 {
    let half = INSTANCE_SLOTS / 2;
    let slot = if seq & collect::PERSISTENT == 0 {
        seq % half
    } else {
        half + (seq.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % half
    };
    let at = INSTANCE_BASE + u64::from(comm) * INSTANCE_SLOTS + slot;
    if at < u64::from(simpi_mpi::driver::MAX_COMMS) {
        at as u32
    } else {
        comm
    }
}

/// Collective `c` as timed: of `kind`, with these per-rank byte counts, no data.
fn timing(c: &Collective, kind: CollKind, send_counts: Vec<u64>, recv_counts: Vec<u64>) -> Collective {
    Collective {
        kind,
        comm: c.comm,
        root: c.root,
        op: c.op,
        datatype: c.datatype,
        count: c.count,
        send_counts,
        recv_counts,
        data: Vec::new(),
        send_at: None,
        recv_at: None,
        persistent: None,
    }
}

/// The engine's description of collective `c` on rank `me` of `n`.
fn spec_of(c: &Collective, n: u32, me: u32, root: u32) -> Result<CollSpec, Error> {
    let elem = abi::datatype(c.datatype).map(|t| t.size).unwrap_or(1).max(1);
    let vector = c
        .count
        .checked_mul(elem)
        .ok_or_else(|| Error::Input(format!("rank {me}: a collective of {} elements overflows", c.count)))?;
    let (coll, bytes) = match c.kind {
        CollKind::Barrier => (Coll::Barrier, 0),
        CollKind::Bcast => (Coll::Bcast, c.count),
        CollKind::Reduce => (Coll::Reduce, vector),
        CollKind::Allreduce => (Coll::Allreduce, vector),
        CollKind::Scan => (Coll::Scan, vector),
        CollKind::Exscan => (Coll::Exscan, vector),
        CollKind::Gather => (Coll::Gather, c.count),
        CollKind::Allgather => (Coll::Allgather, c.count),
        CollKind::Scatter => (Coll::Scatter, c.count),
        CollKind::Alltoall => (Coll::Alltoall, c.count),
        CollKind::ReduceScatterBlock => (Coll::ReduceScatter, vector.saturating_mul(n.into())),
        CollKind::Alltoallv => (Coll::Alltoallv, 0),
        // Timed as an allgather of each rank's color and key (SMPI gathers them to the
        // first rank and sends each its group); a duplicate is not timed.
        CollKind::Split | CollKind::SplitShared | CollKind::Create | CollKind::Merge => (Coll::Allgather, 8),
        CollKind::Dup => (Coll::Barrier, 0),
        CollKind::Gatherv => (Coll::Gatherv, 0),
        CollKind::Scatterv => (Coll::Scatterv, 0),
        CollKind::Allgatherv => (Coll::Allgatherv, 0),
        CollKind::ReduceScatter => (Coll::ReduceScatter, 0),
    };
    if root >= n {
        return Err(Error::Input(format!("rank {me}: root {root} does not exist")));
    }
    let mut spec = CollSpec::new(coll, n, me, bytes);
    spec.root = root;
    spec.elem = elem;
    let per_rank = |v: &[u64], what: &str| -> Result<Vec<u64>, Error> {
        if v.len() == n as usize {
            Ok(v.to_vec())
        } else {
            Err(Error::Input(format!(
                "rank {me}: {what} needs one count per rank, not {}",
                v.len()
            )))
        }
    };
    match c.kind {
        CollKind::Alltoallv => {
            spec.send_counts = per_rank(&c.send_counts, "MPI_Alltoallv")?;
            spec.recv_counts = per_rank(&c.recv_counts, "MPI_Alltoallv")?;
        }
        CollKind::Gatherv | CollKind::Allgatherv | CollKind::ReduceScatter => {
            spec.counts = per_rank(&c.recv_counts, "a v-collective")?;
        }
        CollKind::Scatterv => spec.counts = per_rank(&c.send_counts, "MPI_Scatterv")?,
        // Every rank gets one block of the vector.
        CollKind::ReduceScatterBlock => spec.counts = vec![vector; n as usize],
        _ => {}
    }
    Ok(spec)
}
