//! An OTF2 trace as a rank program: each step reads a rank's events up to the end of
//! its next MPI region (an `Enter`/`Leave` pair of an MPI function) and makes the call
//! the region's events record, through [`RankCalls`]:
//!
//! * `MpiSend`/`MpiRecv` are blocking point-to-point calls (both in one region:
//!   MPI_Sendrecv); `MpiIsend` and `MpiIrecvRequest` post requests, named by their OTF2
//!   request ids; `MpiIsendComplete`, `MpiIrecv` and `NonBlockingCollectiveComplete`
//!   complete them, all those of one region together (MPI_Waitall). A receive request
//!   is posted with the sender, tag and size its completion records (read ahead,
//!   `feed.rs`); one cancelled or never completed is not posted.
//! * `MpiCollectiveEnd` is a blocking collective (`colls.rs`), expanded by the chosen
//!   algorithm on its communicator; `NonBlockingCollectiveRequest` starts one.
//! * MPI_Test with an `MpiRequestTest` tests that request (SMPI's test cost); a test
//!   that completes requests waits for them, then costs a test; MPI_Testany, Testall,
//!   Testsome, MPI_Iprobe and MPI_Improbe cost a test.
//! * Computation is the time outside MPI calls: from the `Leave` of one call to the
//!   `Enter` of the next, in the clock's ticks, taken at [`REFERENCE_FLOPS`] flop/s as
//!   `simpi trace` writes TIT `compute` lines, then run at the host's speed; gaps under
//!   [`MIN_COMPUTE`] seconds add up until they reach it. Time before the first MPI call
//!   ends (MPI_Init) is not computation. The time of an MPI region that records no
//!   modelled event and is not a call simpi models (MPI_Comm_rank, MPI-IO...) counts as
//!   computation, as it does in a trace of `simpi trace`, which does not trace them.
//!   The tracer's buffer flushes (`BufferFlush`, from its time to its stop time) are
//!   not computation.
//! * One-sided MPI (MPI_Put, MPI_Win_*...) is refused; so are events on
//!   intercommunicators.

use super::colls;
use super::defs::{CommDef, Defs};
use super::feed::Feed;
use super::wire::{Coll, Ev, Kind, Outcome, P2p};
use super::Otf2Error;
use crate::tit::TitOptions;
use crate::trace_program::{msg, seconds_to_ps};
use simpi_kernel::MixHashMap;
use simpi_mpi::calls::{CollComm, RankCalls, Req};
use simpi_mpi::coll::CollSpec;
use simpi_mpi::comm::{CommTable, IcollContexts};
use simpi_mpi::live::{Program, Step};
use simpi_mpi::sink::OpSink;
use simpi_mpi::{CallRecord, Error};
use std::sync::Arc;

/// Flop/s at which measured computation becomes flops: `simpi trace`'s default
/// `--speed`, so that a host of this speed replays the measured time.
pub const REFERENCE_FLOPS: f64 = 1e9;

/// Shortest computation made on its own, in seconds (`simpi trace`'s `--min-compute`):
/// shorter gaps add up until they reach it.
pub const MIN_COMPUTE: f64 = 1e-6;

/// MPI functions that are calls even when their region records no event: the replay
/// models them (a send to MPI_PROC_NULL, a wait on a null request, communicator
/// management), so their time is MPI time, as in a trace of `simpi trace`.
const CALLS: &[&str] = &[
    "MPI_Init",
    "MPI_Init_thread",
    "MPI_Finalize",
    "MPI_Send",
    "MPI_Ssend",
    "MPI_Bsend",
    "MPI_Rsend",
    "MPI_Isend",
    "MPI_Issend",
    "MPI_Ibsend",
    "MPI_Irsend",
    "MPI_Recv",
    "MPI_Irecv",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_Probe",
    "MPI_Iprobe",
    "MPI_Mprobe",
    "MPI_Improbe",
    "MPI_Send_init",
    "MPI_Ssend_init",
    "MPI_Bsend_init",
    "MPI_Rsend_init",
    "MPI_Recv_init",
    "MPI_Start",
    "MPI_Startall",
    "MPI_Request_free",
    "MPI_Cancel",
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    "MPI_Test",
    "MPI_Testany",
    "MPI_Testall",
    "MPI_Testsome",
    "MPI_Barrier",
    "MPI_Comm_split",
    "MPI_Comm_dup",
    "MPI_Comm_create",
    "MPI_Comm_create_group",
    "MPI_Comm_split_type",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Comm_free",
];

/// Calls of one-sided MPI, which simpi does not model.
fn one_sided(name: &str) -> bool {
    name.starts_with("MPI_Win_")
        || matches!(
            name,
            "MPI_Put"
                | "MPI_Get"
                | "MPI_Accumulate"
                | "MPI_Get_accumulate"
                | "MPI_Fetch_and_op"
                | "MPI_Compare_and_swap"
                | "MPI_Rput"
                | "MPI_Rget"
                | "MPI_Raccumulate"
                | "MPI_Rget_accumulate"
        )
}

/// A communicator as a rank sees it: its members as world ranks (none: the world), its
/// index in the table, whether events name partners by world rank.
type View = (Option<Arc<[u32]>>, usize, bool);

/// An MPI region being read: its region, how deep MPI regions nest in it, its events.
struct Open {
    region: u32,
    depth: u32,
    events: Vec<Ev>,
}

/// One rank's replay state.
struct RankState<R> {
    /// Outstanding requests by OTF2 request id.
    reqs: MixHashMap<u64, Req<R>>,
    /// Up to when computation is accounted (ticks); none before the first call ends.
    mark: Option<u64>,
    /// Computation not made yet, in ticks (shorter than [`MIN_COMPUTE`]).
    carry: u64,
    /// Time of the last event (events of a location never go back).
    last_time: u64,
    /// Position of the last event read.
    pos: u64,
    /// The MPI region being read.
    open: Option<Open>,
    /// Finished: its events ended.
    ended: bool,
    /// Each non-blocking collective's matching context.
    icoll_contexts: IcollContexts,
}

impl<R> Default for RankState<R> {
    fn default() -> Self {
        RankState {
            reqs: MixHashMap::default(),
            mark: None,
            carry: 0,
            last_time: 0,
            pos: 0,
            open: None,
            ended: false,
            icoll_contexts: IcollContexts::default(),
        }
    }
}

/// Counts of things the user should know.
#[derive(Default)]
struct Counts {
    /// Receive and collective requests never completed in the trace (not posted).
    unfinished: u64,
    /// Requests cancelled.
    cancelled: u64,
    /// Completions of requests the trace never posted.
    unknown: u64,
    /// MPI events outside any MPI region, made as calls of their own.
    loose: u64,
    /// Synchronous sends taken as standard ones (a whole schedule).
    sync_as_standard: u64,
    /// Requests posted under an ID whose earlier request was still outstanding.
    reused: u64,
}

/// A whole OTF2 trace as a [`Program`].
pub struct Otf2Program<'o, R> {
    feed: Feed,
    defs: Arc<Defs>,
    opts: &'o TitOptions<'o>,
    ranks: Vec<RankState<R>>,
    counts: Counts,
    /// Seconds per tick.
    tick: f64,
    /// [`MIN_COMPUTE`] in ticks.
    min_ticks: u64,
    /// Every call, when asked for.
    calls: Vec<CallRecord>,
    compute_name: Arc<str>,
    /// Event files by rank.
    files: Vec<String>,
}

impl<'o, R: Copy + PartialEq + std::fmt::Debug> Otf2Program<'o, R> {
    /// The program of the archive whose definitions are `defs` and events come from `feed`.
    pub(crate) fn new(feed: Feed, defs: Arc<Defs>, opts: &'o TitOptions<'o>) -> Self {
        let p = defs.ranks.len();
        let tick = 1.0 / defs.resolution as f64;
        let files = defs.ranks.iter().map(|&l| feed.decoder().paths().events(l)).collect();
        Otf2Program {
            feed,
            ranks: (0..p).map(|_| RankState::default()).collect(),
            counts: Counts::default(),
            tick,
            min_ticks: (MIN_COMPUTE * defs.resolution as f64).ceil() as u64,
            defs,
            opts,
            calls: Vec::new(),
            compute_name: Arc::from("compute"),
            files,
        }
    }

    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// The communicators.
    pub fn comms(&self) -> &Arc<CommTable> {
        &self.defs.table
    }

    /// Things the user should know, once the trace has run.
    pub fn warnings(&self) -> Vec<String> {
        let c = &self.counts;
        let mut w = Vec::new();
        if c.unfinished > 0 {
            w.push(format!(
                "{} request(s) of receives or non-blocking collectives never completed in the trace and were not posted",
                c.unfinished
            ));
        }
        if c.cancelled > 0 {
            w.push(format!("{} request(s) were cancelled", c.cancelled));
        }
        if c.unknown > 0 {
            w.push(format!(
                "{} completion(s) named requests the trace never posted: receives and collectives \
                 among them were made there, blocking; the others were ignored",
                c.unknown
            ));
        }
        if c.loose > 0 {
            w.push(format!(
                "{} MPI event(s) outside any MPI region were made as calls of their own",
                c.loose
            ));
        }
        if c.sync_as_standard > 0 {
            w.push(crate::trace_program::sync_as_standard_warning(c.sync_as_standard));
        }
        if c.reused > 0 {
            w.push(crate::trace_program::reused_requests_warning(c.reused));
        }
        w
    }

    /// The calls recorded (empty unless [`TitOptions::calls`]).
    pub fn take_calls(&mut self) -> Vec<CallRecord> {
        std::mem::take(&mut self.calls)
    }

    /// Drops rank `r`'s state (a schedule being built has passed it).
    pub(crate) fn done_with(&mut self, r: usize) {
        self.feed.close(r);
        self.ranks[r] = RankState::default();
    }

    /// The error at rank `r`'s current event.
    fn at(&self, r: usize, msg: String) -> Error {
        let pos = self.ranks[r].pos;
        Error::Input {
            file: self.files[r].clone(),
            line: 0,
            msg: if pos > 0 { format!("event {pos}: {msg}") } else { msg },
        }
    }

    /// Makes the computation since the mark, up to `t` (ticks), once it adds up to
    /// [`MIN_COMPUTE`]; returns whether it made one.
    fn compute_until<S: OpSink<Ref = R>>(
        &mut self,
        r: usize,
        t: u64,
        calls: &mut RankCalls<R>,
        s: &mut S,
    ) -> Result<bool, String> {
        let st = &mut self.ranks[r];
        let Some(mark) = st.mark else { return Ok(false) };
        st.carry = st.carry.saturating_add(t.saturating_sub(mark));
        st.mark = Some(t);
        if st.carry == 0 || st.carry < self.min_ticks {
            return Ok(false);
        }
        let seconds = st.carry as f64 * self.tick;
        st.carry = 0;
        let ps = seconds_to_ps(seconds * REFERENCE_FLOPS / (self.opts.speed)(r as u32))?;
        calls.compute(s, ps).map_err(msg)?;
        Ok(true)
    }

    /// Communicator `comm` as rank `r` sees it.
    fn comm(&self, r: u32, comm: u32) -> Result<View, String> {
        match self.defs.comms.get(&comm) {
            None => Err(format!("communicator {comm} is not defined")),
            Some(CommDef::Unmodelled(what)) => Err(format!("communicator {comm} is {what}")),
            Some(CommDef::OwnSelf) => Ok((Some(Arc::from([r])), 0, false)),
            Some(CommDef::Table { index, members, global }) => Ok((Some(Arc::clone(members)), *index, *global)),
        }
    }

    /// The world rank of partner `peer` of a point-to-point event on `comm`.
    fn partner(&self, r: u32, p: &P2p) -> Result<(u32, u32), String> {
        let (members, index, global) = self.comm(r, p.comm)?;
        let n = members.as_ref().map_or(self.ranks.len() as u32, |m| m.len() as u32);
        let world = if global {
            (p.peer < self.ranks.len() as u32).then_some(p.peer)
        } else {
            members
                .as_ref()
                .map_or(Some(p.peer), |m| m.get(p.peer as usize).copied())
                .filter(|&w| (w as usize) < self.ranks.len())
        };
        let world = world.ok_or_else(|| {
            format!(
                "partner {} is out of range: communicator {} has {n} ranks",
                p.peer, p.comm
            )
        })?;
        Ok((world, CommTable::p2p_context(index)))
    }

    /// Makes the calls of the region `name` (none: events outside any region) from its
    /// events.
    fn make<S: OpSink<Ref = R>>(
        &mut self,
        r: usize,
        name: &str,
        events: &[Ev],
        calls: &mut RankCalls<R>,
        s: &mut S,
    ) -> Result<(), String> {
        let rank = r as u32;
        let sends = events.iter().filter(|e| matches!(e.kind, Kind::Send(_))).count();
        let recvs = events.iter().filter(|e| matches!(e.kind, Kind::Recv(_))).count();
        let others = events
            .iter()
            .filter(|e| {
                !matches!(
                    e.kind,
                    Kind::Send(_) | Kind::Recv(_) | Kind::Measurement(_) | Kind::BufferFlush(_)
                )
            })
            .count();
        // MPI_Sendrecv: one send and one receive, posted together.
        if sends == 1 && recvs == 1 && others == 0 {
            let send = events.iter().find_map(|e| match e.kind {
                Kind::Send(p) => Some(p),
                _ => None,
            });
            let recv = events.iter().find_map(|e| match e.kind {
                Kind::Recv(p) => Some(p),
                _ => None,
            });
            let (send, recv) = (send.expect("counted"), recv.expect("counted"));
            let (to, sctx) = self.partner(rank, &send)?;
            let (from, rctx) = self.partner(rank, &recv)?;
            if sctx != rctx {
                return Err("a send and a receive of one call on different communicators".into());
            }
            // With itself on both sides it is a copy (as SMPI does): nothing moves.
            if to == rank && from == rank {
                return Ok(());
            }
            calls
                .sendrecv(
                    s,
                    Some((to, send.tag, send.len)),
                    Some((from, recv.tag, recv.len)),
                    sctx,
                )
                .map_err(msg)?;
            return self.after_events(r, name, events, calls, s, true);
        }
        let mut done: Vec<Req<R>> = Vec::new();
        let mut completed = false;
        for e in events {
            let is_completion = matches!(
                e.kind,
                Kind::IsendComplete(_) | Kind::Irecv(_, _, true) | Kind::CollectiveComplete(_, _, true)
            );
            if !is_completion && !done.is_empty() {
                Self::finish(calls, &mut done);
            }
            match e.kind {
                Kind::Send(p) => {
                    let (to, ctx) = self.partner(rank, &p)?;
                    let sync = name == "MPI_Ssend";
                    let (_, standard) = calls.send_traced(s, (to, p.tag, p.len, ctx), sync).map_err(msg)?;
                    self.counts.sync_as_standard += u64::from(standard);
                }
                Kind::Recv(p) | Kind::Irecv(p, _, false) => {
                    // A completion without its request is a receive at this point.
                    if matches!(e.kind, Kind::Irecv(..)) {
                        self.counts.unknown += 1;
                    }
                    let (from, ctx) = self.partner(rank, &p)?;
                    calls.recv(s, from, p.tag, p.len, ctx).map_err(msg)?;
                }
                Kind::Isend(p, q) => {
                    let (to, ctx) = self.partner(rank, &p)?;
                    let sync = name == "MPI_Issend";
                    let (req, standard) = calls.isend_traced(s, (to, p.tag, p.len, ctx), sync).map_err(msg)?;
                    self.counts.sync_as_standard += u64::from(standard);
                    if self.ranks[r].reqs.insert(q, req).is_some() {
                        self.counts.reused += 1;
                    }
                }
                Kind::IrecvRequest(q, out) => match out {
                    Outcome::Done(p) => {
                        let (from, ctx) = self.partner(rank, &p)?;
                        let req = calls.irecv(s, from, p.tag, p.len, ctx).map_err(msg)?;
                        if self.ranks[r].reqs.insert(q, req).is_some() {
                            self.counts.reused += 1;
                        }
                    }
                    Outcome::Cancelled => self.counts.cancelled += 1,
                    Outcome::Never | Outcome::Pending => self.counts.unfinished += 1,
                },
                Kind::IsendComplete(q) | Kind::Irecv(_, q, true) | Kind::CollectiveComplete(_, q, true) => {
                    completed = true;
                    match self.ranks[r].reqs.remove(&q) {
                        Some(req) => {
                            if let Some(t) = req.target {
                                s.forget_target(t);
                            }
                            done.push(req);
                        }
                        None => self.counts.unknown += 1,
                    }
                }
                Kind::CollectiveComplete(c, _, false) => {
                    // Its start was not traced: a blocking collective here.
                    self.counts.unknown += 1;
                    self.collective(rank, &c, false, calls, s)?;
                }
                Kind::CollectiveEnd(c) => {
                    self.collective(rank, &c, false, calls, s)?;
                }
                Kind::CollectiveRequest(q, out) => match out {
                    Outcome::Done(c) => {
                        if let Some(req) = self.collective(rank, &c, true, calls, s)? {
                            if self.ranks[r].reqs.insert(q, req).is_some() {
                                self.counts.reused += 1;
                            }
                        }
                    }
                    Outcome::Cancelled => self.counts.cancelled += 1,
                    Outcome::Never | Outcome::Pending => self.counts.unfinished += 1,
                },
                Kind::RequestCancelled(q) => {
                    if let Some(req) = self.ranks[r].reqs.remove(&q) {
                        if let Some(t) = req.target {
                            s.forget_target(t);
                        }
                        self.counts.cancelled += 1;
                    }
                }
                Kind::RequestTest(_) | Kind::CollectiveBegin | Kind::Measurement(_) | Kind::BufferFlush(_) => {}
                Kind::Enter(_) | Kind::Leave(_) => {}
            }
        }
        Self::finish(calls, &mut done);
        self.after_events(r, name, events, calls, s, completed)
    }

    /// Completes the requests `done` together.
    fn finish(calls: &mut RankCalls<R>, done: &mut Vec<Req<R>>) {
        if !done.is_empty() {
            calls.wait(done);
            done.clear();
        }
    }

    /// The costs of tests and probes, after the region's events.
    fn after_events<S: OpSink<Ref = R>>(
        &mut self,
        r: usize,
        name: &str,
        events: &[Ev],
        calls: &mut RankCalls<R>,
        s: &mut S,
        completed: bool,
    ) -> Result<(), String> {
        let cost = || seconds_to_ps(self.opts.test_cost);
        let cost = cost()?;
        match name {
            "MPI_Test" if !completed => {
                // A test that found its request incomplete: the run decides what it costs.
                let tested = events.iter().find_map(|e| match e.kind {
                    Kind::RequestTest(q) => Some(q),
                    _ => None,
                });
                if let Some(q) = tested {
                    if let Some(req) = self.ranks[r].reqs.get_mut(&q) {
                        calls.test(s, req, cost).map_err(msg)?;
                    }
                }
            }
            "MPI_Test" | "MPI_Testany" | "MPI_Testall" | "MPI_Testsome" | "MPI_Iprobe" | "MPI_Improbe" => {
                calls.compute(s, cost).map_err(msg)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// A collective on this rank: blocking, or started (`nonblocking`: its request).
    fn collective<S: OpSink<Ref = R>>(
        &mut self,
        rank: u32,
        c: &Coll,
        nonblocking: bool,
        calls: &mut RankCalls<R>,
        s: &mut S,
    ) -> Result<Option<Req<R>>, String> {
        let (members, index, _) = self.comm(rank, c.comm)?;
        let (n, me) = match &members {
            Some(m) => (
                m.len() as u32,
                m.iter().position(|&w| w == rank).ok_or_else(|| {
                    format!(
                        "rank {rank} calls a collective on communicator {}, which it is not in",
                        c.comm
                    )
                })? as u32,
            ),
            None => (self.ranks.len() as u32, rank),
        };
        let Some(spec) = colls::spec(c, n, me)? else {
            return Ok(None);
        };
        // The world's members are not listed to the expansion: rank i is world rank i.
        let list = if index == 0 && members.as_ref().is_some_and(|m| m.len() == self.ranks.len()) {
            None
        } else {
            members
        };
        let context = if nonblocking {
            self.ranks[rank as usize].icoll_contexts.next(index)
        } else {
            CommTable::coll_context(index)
        };
        let comm = CollComm {
            index,
            members: list.as_deref(),
            context,
        };
        let opts = self.opts;
        let choose = |sp: &CollSpec| (opts.choose)(sp);
        let alg = choose(&spec);
        if nonblocking {
            calls.icollective(s, comm, spec, alg, &choose).map_err(msg)
        } else {
            calls.collective(s, comm, spec, alg, &choose).map_err(msg)?;
            Ok(None)
        }
    }

    /// Reads rank `r`'s events up to the end of its next call and makes it.
    fn advance<S: OpSink<Ref = R>>(&mut self, r: usize, calls: &mut RankCalls<R>, s: &mut S) -> Result<Step, Error> {
        let defs = Arc::clone(&self.defs);
        let is_mpi = |reg: u32| defs.regions.get(&reg).map(|x| x.mpi);
        loop {
            let ev = match self.feed.next(r) {
                Ok(Some(e)) => e,
                Ok(None) => {
                    self.ranks[r].ended = true;
                    if let Some(o) = &self.ranks[r].open {
                        let name = self.region_name(o.region);
                        return Err(self.at(r, format!("the events end inside {name}")));
                    }
                    return Ok(Step::Ended);
                }
                Err(e) => return Err(otf2_to_mpi(e)),
            };
            let last = self.ranks[r].last_time;
            self.ranks[r].pos = ev.pos;
            if ev.time < last {
                return Err(self.at(
                    r,
                    format!("time goes back: {} ticks, after an event at {last}", ev.time),
                ));
            }
            self.ranks[r].last_time = ev.time;
            s.at_line(ev.pos.min(u32::MAX as u64) as u32);
            let open = self.ranks[r].open.is_some();
            match (open, ev.kind) {
                (false, Kind::Enter(reg)) => match is_mpi(reg) {
                    None => return Err(self.at(r, format!("region {reg} is not defined"))),
                    Some(false) => {}
                    Some(true) => {
                        let name = self.region_name(reg);
                        if one_sided(&name) {
                            return Err(self.at(
                                r,
                                format!("{name} is one-sided communication, which simpi does not model"),
                            ));
                        }
                        let before = s.created();
                        let made = self.compute_until(r, ev.time, calls, s).map_err(|m| self.at(r, m))?;
                        self.ranks[r].open = Some(Open {
                            region: reg,
                            depth: 1,
                            events: Vec::new(),
                        });
                        if made {
                            self.record(r, Arc::clone(&self.compute_name), before, s.created());
                            return Ok(Step::Called);
                        }
                    }
                },
                (false, Kind::Leave(reg)) => match is_mpi(reg) {
                    None => return Err(self.at(r, format!("region {reg} is not defined"))),
                    Some(false) => {}
                    Some(true) => {
                        let name = self.region_name(reg);
                        return Err(self.at(r, format!("leaves {name}, which it did not enter")));
                    }
                },
                (false, Kind::Measurement(_)) => {}
                (false, Kind::BufferFlush(stop)) => {
                    // The tracer's own time: computation up to the flush, none during it.
                    let st = &mut self.ranks[r];
                    if let Some(mark) = st.mark {
                        st.carry = st.carry.saturating_add(ev.time.saturating_sub(mark));
                        st.mark = Some(stop.max(ev.time));
                    }
                }
                (false, _) => {
                    // An MPI event outside any MPI region: a call of its own.
                    self.counts.loose += 1;
                    let before = s.created();
                    let made = self.compute_until(r, ev.time, calls, s).map_err(|m| self.at(r, m))?;
                    if made {
                        self.record(r, Arc::clone(&self.compute_name), before, s.created());
                    }
                    let before = s.created();
                    self.make(r, "", &[ev], calls, s).map_err(|m| self.at(r, m))?;
                    self.ranks[r].mark = Some(ev.time);
                    self.record(r, Arc::from("MPI event"), before, s.created());
                    return Ok(Step::Called);
                }
                (true, Kind::Enter(reg)) => {
                    if is_mpi(reg) == Some(true) {
                        self.ranks[r].open.as_mut().expect("open").depth += 1;
                    }
                }
                (true, Kind::Leave(reg)) => {
                    if is_mpi(reg) == Some(true) {
                        let o = self.ranks[r].open.as_mut().expect("open");
                        o.depth -= 1;
                        if o.depth == 0 {
                            let open = self.ranks[r].open.take().expect("open");
                            if open.region != reg {
                                let (a, b) = (self.region_name(open.region), self.region_name(reg));
                                return Err(self.at(r, format!("leaves {b} inside {a}")));
                            }
                            return self.close(r, open, ev.time, calls, s);
                        }
                    }
                }
                (true, _) => self.ranks[r].open.as_mut().expect("open").events.push(ev),
            }
        }
    }

    /// Makes the call of the MPI region `open`, which ends at `t`.
    fn close<S: OpSink<Ref = R>>(
        &mut self,
        r: usize,
        open: Open,
        t: u64,
        calls: &mut RankCalls<R>,
        s: &mut S,
    ) -> Result<Step, Error> {
        let name = self.region_name(open.region);
        let modelled = open.events.iter().any(|e| {
            !matches!(
                e.kind,
                Kind::CollectiveBegin | Kind::Measurement(_) | Kind::BufferFlush(_)
            )
        });
        if !modelled && !CALLS.contains(&&*name) {
            // Not a call simpi models: its time stays computation.
            return Ok(Step::Called);
        }
        let before = s.created();
        self.make(r, &name, &open.events, calls, s).map_err(|m| self.at(r, m))?;
        let st = &mut self.ranks[r];
        st.mark = Some(t);
        self.record(r, name, before, s.created());
        Ok(Step::Called)
    }

    fn region_name(&self, reg: u32) -> Arc<str> {
        self.defs
            .regions
            .get(&reg)
            .map_or_else(|| Arc::from(format!("region {reg}")), |x| Arc::clone(&x.name))
    }

    fn record(&mut self, r: usize, name: Arc<str>, first: u64, end: u64) {
        if self.opts.calls && end > first {
            self.calls.push(CallRecord {
                rank: r as u32,
                name,
                first,
                end,
            });
        }
    }

    /// Reads what the ranks have not reached and reports the first error, in rank order
    /// (a run that stopped early, because it deadlocked, would otherwise hide it).
    pub fn check_unread(&mut self) -> Result<(), Error> {
        for r in 0..self.ranks.len() {
            if self.ranks[r].ended {
                continue;
            }
            loop {
                match self.feed.next(r) {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => return Err(otf2_to_mpi(e)),
                }
            }
        }
        Ok(())
    }
}

/// An [`Otf2Error`] as the MPI layer's input error.
pub(crate) fn otf2_to_mpi(e: Otf2Error) -> Error {
    Error::Input {
        file: e.file,
        line: 0,
        msg: if e.event > 0 {
            format!("event {}: {}", e.event, e.msg)
        } else {
            e.msg
        },
    }
}

impl<R: Copy + PartialEq + std::fmt::Debug> Program<R> for Otf2Program<'_, R> {
    fn step<S: OpSink<Ref = R>>(&mut self, rank: u32, calls: &mut RankCalls<R>, sink: &mut S) -> Result<Step, Error> {
        let r = rank as usize;
        if self.ranks[r].ended {
            return Ok(Step::Ended);
        }
        self.advance(r, calls, sink)
    }

    fn line(&self, rank: u32) -> u32 {
        self.ranks[rank as usize].pos.min(u32::MAX as u64) as u32
    }

    fn file(&self, rank: u32) -> Option<String> {
        Some(self.files[rank as usize].clone())
    }
}
