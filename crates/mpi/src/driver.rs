//! The driver API: a front end that produces each rank's calls as it goes (a live C or
//! Fortran program, whose next MPI call exists only once the previous one returned)
//! posts them here, runs the simulation until some rank may go on, and learns which
//! send matched which receive, to copy the payload.
//!
//! ```text
//! let mut d = Driver::new(ranks, rules);
//! loop {
//!     let go_on = d.run()?;             // ranks that may make their next call now
//!     if go_on.is_empty() { break }     // every rank finalized and everything is done
//!     for r in go_on { d.post(r, next_call_of(r))? }
//!     for (send, recv) in d.take_matches() { copy the payload }
//! }
//! let outcome = d.finish()?;
//! ```
//!
//! A rank given to the driver by [`Driver::run`] is paused at the current simulated
//! time until its call is posted; time spent computing between calls is a
//! [`Call::Compute`]. Every rank [`Driver::run`] returns must get a call before the
//! next [`Driver::run`].

use crate::calls::{CollComm, RankCalls, Req};
use crate::coll::{first_algorithm, Algorithm, CollSpec};
use crate::comm::CommTable;
use crate::engine::{Engine, OpStore, Outcome, Rules, RunStatus};
use crate::error::Error;
use crate::live::{Live, OpRef, Program, Step};
use crate::sink::OpSink;
use crate::ANY_SOURCE;
use simpi_kernel::{MixHashMap, SimTime};
use std::collections::VecDeque;
use std::sync::Arc;

/// Communicators a driver simulates (indices 0 to this, exclusive).
pub const MAX_COMMS: u32 = 1 << 30;

/// A front end's name for a message operation or request.
pub type Handle = u64;

/// One MPI call of a rank. `comm` names the communicator (0 is `MPI_COMM_WORLD`): its
/// own matching contexts. Ranks are world ranks; the front end translates a
/// communicator's ranks.
#[derive(Clone, Debug)]
pub enum Call {
    /// MPI_Send; `handle` names the message.
    Send {
        /// Destination.
        to: u32,
        /// Tag.
        tag: u32,
        /// Bytes.
        bytes: u64,
        /// The message's name in [`Driver::take_matches`].
        handle: Handle,
        /// The communicator.
        comm: u32,
        /// MPI_Ssend: it returns once a matching receive is posted.
        sync: bool,
    },
    /// MPI_Recv from `from` (or [`crate::ANY_SOURCE`]).
    Recv {
        /// Source.
        from: u32,
        /// Tag (or [`crate::ANY_TAG`]).
        tag: u32,
        /// Bytes.
        bytes: u64,
        /// The receive's name in [`Driver::take_matches`].
        handle: Handle,
        /// The communicator.
        comm: u32,
    },
    /// MPI_Isend: `handle` names the request too.
    Isend {
        /// Destination.
        to: u32,
        /// Tag.
        tag: u32,
        /// Bytes.
        bytes: u64,
        /// The request.
        handle: Handle,
        /// The communicator.
        comm: u32,
        /// MPI_Issend: the request completes once a matching receive is posted.
        sync: bool,
    },
    /// MPI_Irecv.
    Irecv {
        /// Source.
        from: u32,
        /// Tag.
        tag: u32,
        /// Bytes.
        bytes: u64,
        /// The request.
        handle: Handle,
        /// The communicator.
        comm: u32,
    },
    /// MPI_Waitall over requests (unknown handles complete at once).
    Wait(Vec<Handle>),
    /// MPI_Waitany (and MPI_Waitsome) over requests, not empty: the rank goes on once
    /// one of them is done; [`Driver::is_done`] says which. Requests stay pending
    /// until taken.
    WaitAny(Vec<Handle>),
    /// MPI_Test of a request: a compute of `cost_ps` (the protocol may grow it), after
    /// which [`Driver::take_tested`] says whether the test found the request complete.
    Test {
        /// The request.
        handle: Handle,
        /// What the test costs, in picoseconds.
        cost_ps: u64,
    },
    /// Time computing, in picoseconds.
    Compute(u64),
    /// A collective with `alg` (algorithms made of others use the first registered
    /// ones).
    Collective {
        /// What the rank knows of the call: on the world, `me` is set from the rank;
        /// on another communicator, `me` and `size` are the rank's there.
        spec: CollSpec,
        /// The algorithm.
        alg: &'static Algorithm,
        /// The communicator.
        comm: u32,
        /// Its members as world ranks, in its rank order; `None` for the world.
        members: Option<Arc<[u32]>>,
    },
    /// A non-blocking collective: as [`Call::Collective`], and `handle` names its
    /// request (complete at once if the algorithm gives this rank nothing to do).
    ICollective {
        /// What the rank knows of the call, as for [`Call::Collective`].
        spec: CollSpec,
        /// The algorithm.
        alg: &'static Algorithm,
        /// The communicator.
        comm: u32,
        /// Its members as world ranks, in its rank order; `None` for the world.
        members: Option<Arc<[u32]>>,
        /// The request.
        handle: Handle,
    },
    /// A one-sided put (MPI_Put, MPI_Accumulate) of `bytes` to `target` on window
    /// `comm`'s one-sided context: `handle` names its request, done once the target
    /// has the data. The target's program takes no part.
    Put {
        /// The target.
        target: u32,
        /// Tag: tells this transfer from the origin's others in flight.
        tag: u32,
        /// Bytes.
        bytes: u64,
        /// The window's communicator.
        comm: u32,
        /// The request.
        handle: Handle,
    },
    /// A one-sided fetch (MPI_Get and the fetching accumulates): a request of `ask`
    /// bytes to `target`, which answers with `answer` bytes; `handle` names the
    /// request, done once the answer arrived.
    Get {
        /// The target.
        target: u32,
        /// Tag: tells this transfer from the origin's others in flight.
        tag: u32,
        /// Bytes of the request.
        ask: u64,
        /// Bytes of the answer.
        answer: u64,
        /// The window's communicator.
        comm: u32,
        /// The request.
        handle: Handle,
    },
    /// MPI_Cancel of receive request `handle` (an unknown or completed one is left
    /// alone): see [`Driver::take_cancelled`].
    Cancel(Handle),
    /// MPI_Finalize: the rank makes no more calls.
    Finalize,
}

/// The program of a driver: each rank's posted calls, and what it reports back.
pub struct Posted {
    queues: Vec<VecDeque<Call>>,
    requests: Vec<MixHashMap<Handle, Req<OpRef>>>,
    /// Handles of message operations by slot (with the slot's generation).
    handles: MixHashMap<u32, (u32, Handle)>,
    go_on: Vec<u32>,
    /// Per rank: it has no call to make (it paused and nothing was posted since).
    paused: Vec<bool>,
    matches: Vec<(Handle, Handle)>,
    cancelled: Vec<Handle>,
    /// Non-blocking collectives that gave their rank nothing to do (no request).
    empty: std::collections::HashSet<Handle>,
}

impl Posted {
    fn name(&mut self, op: OpRef, handle: Handle) {
        self.handles.insert(op.slot, (op.gen, handle));
    }

    fn handle_of(&mut self, op: OpRef) -> Option<Handle> {
        match self.handles.remove(&op.slot) {
            Some((gen, h)) if gen == op.gen => Some(h),
            _ => None,
        }
    }
}

impl Program<OpRef> for Posted {
    fn step<S: OpSink<Ref = OpRef>>(
        &mut self,
        rank: u32,
        calls: &mut RankCalls<OpRef>,
        s: &mut S,
    ) -> Result<Step, Error> {
        let Some(call) = self.queues[rank as usize].pop_front() else {
            self.go_on.push(rank);
            self.paused[rank as usize] = true;
            return Ok(Step::Pause);
        };
        self.paused[rank as usize] = false;
        match call {
            Call::Send {
                to,
                tag,
                bytes,
                handle,
                comm,
                sync,
            } => {
                let ctx = CommTable::p2p_context(comm as usize);
                let op = if sync {
                    calls.ssend(s, to, tag, bytes, ctx)?
                } else {
                    calls.send(s, to, tag, bytes, ctx)?
                };
                self.name(op, handle);
            }
            Call::Recv {
                from,
                tag,
                bytes,
                handle,
                comm,
            } => {
                let op = calls.recv(s, from, tag, bytes, CommTable::p2p_context(comm as usize))?;
                self.name(op, handle);
            }
            Call::Isend {
                to,
                tag,
                bytes,
                handle,
                comm,
                sync,
            } => {
                let ctx = CommTable::p2p_context(comm as usize);
                let q = if sync {
                    calls.issend(s, to, tag, bytes, ctx)?
                } else {
                    calls.isend(s, to, tag, bytes, ctx)?
                };
                self.name(q.op, handle);
                self.requests[rank as usize].insert(handle, q);
            }
            Call::Irecv {
                from,
                tag,
                bytes,
                handle,
                comm,
            } => {
                let q = calls.irecv(s, from, tag, bytes, CommTable::p2p_context(comm as usize))?;
                self.name(q.op, handle);
                self.requests[rank as usize].insert(handle, q);
            }
            Call::Wait(handles) => {
                let reqs: Vec<Req<OpRef>> = handles
                    .iter()
                    .filter_map(|h| self.requests[rank as usize].remove(h))
                    .collect();
                calls.wait(&reqs);
                for t in reqs.iter().filter_map(|q| q.target) {
                    s.forget_target(t);
                }
            }
            Call::WaitAny(handles) => {
                let reqs: Vec<Req<OpRef>> = handles
                    .iter()
                    .filter_map(|h| self.requests[rank as usize].get(h).copied())
                    .collect();
                if !reqs.is_empty() && reqs.len() == handles.len() {
                    calls.wait_any(s, &reqs)?;
                }
                // An unknown request is complete: the call returns at once.
            }
            Call::Test { handle, cost_ps } => match self.requests[rank as usize].get_mut(&handle) {
                Some(req) => calls.test(s, req, cost_ps)?,
                None => calls.compute(s, cost_ps)?,
            },
            Call::Compute(ps) => calls.compute(s, ps)?,
            Call::Collective {
                mut spec,
                alg,
                comm,
                members,
            } => {
                let comm = placed(rank, comm, &members, &mut spec);
                calls.collective(s, comm, spec, alg, &first_algorithm)?;
            }
            Call::ICollective {
                mut spec,
                alg,
                comm,
                members,
                handle,
            } => {
                let comm = placed(rank, comm, &members, &mut spec);
                match calls.icollective(s, comm, spec, alg, &first_algorithm)? {
                    Some(q) => {
                        self.requests[rank as usize].insert(handle, q);
                    }
                    None => {
                        self.empty.insert(handle);
                    }
                }
            }
            Call::Put {
                target,
                tag,
                bytes,
                comm,
                handle,
            } => {
                let q = calls.put(s, target, tag, bytes, CommTable::rma_context(comm as usize, false))?;
                self.requests[rank as usize].insert(handle, q);
            }
            Call::Get {
                target,
                tag,
                ask,
                answer,
                comm,
                handle,
            } => {
                let ctx = (
                    CommTable::rma_context(comm as usize, false),
                    CommTable::rma_context(comm as usize, true),
                );
                let q = calls.get(s, target, tag, (ask, answer), ctx)?;
                self.requests[rank as usize].insert(handle, q);
            }
            Call::Cancel(handle) => {
                if let Some(&q) = self.requests[rank as usize].get(&handle) {
                    calls.cancel(s, &q)?;
                }
            }
            Call::Finalize => return Ok(Step::Ended),
        }
        Ok(Step::Called)
    }

    fn cancelled(&mut self, recv: OpRef) {
        if let Some(h) = self.handle_of(recv) {
            self.cancelled.push(h);
        }
    }

    fn matched(&mut self, send: OpRef, recv: OpRef) {
        if let (Some(a), Some(b)) = (self.handle_of(send), self.handle_of(recv)) {
            self.matches.push((a, b));
        }
    }
}

/// Communicator `comm` of a collective call of `rank` (`members` as the call gave
/// them); on the world the rank's place in `spec` is the rank itself.
fn placed<'m>(rank: u32, comm: u32, members: &'m Option<Arc<[u32]>>, spec: &mut CollSpec) -> CollComm<'m> {
    if members.is_none() {
        spec.me = rank;
    }
    CollComm {
        index: comm as usize,
        members: members.as_deref(),
        context: CommTable::coll_context(comm as usize),
    }
}

/// A simulation driven call by call.
pub struct Driver<R: Rules<Live<Posted>>> {
    engine: Engine<'static, Live<Posted>, R>,
    finished: bool,
}

impl<R: Rules<Live<Posted>>> Driver<R> {
    /// A simulation of `ranks` ranks under `rules`; operations name one CPU and one NIC.
    pub fn new(ranks: u32, rules: R) -> Driver<R> {
        Driver::recording(ranks, rules, false)
    }

    /// [`Driver::new`], keeping a record of every operation (in the outcome's
    /// `records`) if `record`.
    pub fn recording(ranks: u32, rules: R, record: bool) -> Driver<R> {
        let prog = Posted {
            queues: vec![VecDeque::new(); ranks as usize],
            requests: vec![MixHashMap::default(); ranks as usize],
            handles: MixHashMap::default(),
            go_on: Vec::new(),
            paused: vec![false; ranks as usize],
            matches: Vec::new(),
            cancelled: Vec::new(),
            empty: std::collections::HashSet::new(),
        };
        Driver {
            engine: Engine::new(Live::new(prog, ranks, 1, 1), rules, None, record),
            finished: false,
        }
    }

    /// Runs until some ranks may make their next call, and returns them (in rank
    /// order); none once the simulation is over.
    pub fn run(&mut self) -> Result<Vec<u32>, Error> {
        if self.finished {
            return Ok(Vec::new());
        }
        let status = self.engine.run()?;
        let store = &mut self.engine.core().store;
        store.unpause();
        let prog = store.program_mut();
        let mut go_on = std::mem::take(&mut prog.go_on);
        // A rank that paused and has had calls posted since went on with them.
        go_on.retain(|&r| prog.paused[r as usize]);
        go_on.sort_unstable();
        go_on.dedup();
        if status == RunStatus::Finished && go_on.is_empty() {
            self.finished = true;
        }
        Ok(go_on)
    }

    /// Posts `call` as rank `rank`'s next call. A rank [`Driver::run`] returned goes on
    /// with its first posted call; calls may be posted ahead.
    pub fn post(&mut self, rank: u32, call: Call) -> Result<(), Error> {
        if rank >= self.engine.store().num_ranks() {
            return Err(Error::BadParameter(format!("rank {rank} does not exist")));
        }
        if let Call::Send { comm, .. }
        | Call::Recv { comm, .. }
        | Call::Isend { comm, .. }
        | Call::Irecv { comm, .. }
        | Call::Collective { comm, .. }
        | Call::ICollective { comm, .. }
        | Call::Put { comm, .. }
        | Call::Get { comm, .. } = call
        {
            // Two matching contexts per communicator must fit a u32.
            if comm >= MAX_COMMS {
                return Err(Error::BadParameter(format!(
                    "communicator {comm}: at most {MAX_COMMS} are simulated"
                )));
            }
        }
        if let Call::Collective {
            spec, members: Some(m), ..
        } = &call
        {
            if m.len() != spec.size as usize || m.get(spec.me as usize) != Some(&rank) {
                return Err(Error::BadParameter(format!(
                    "rank {rank}: a collective on {} members as member {} of {}, which is not this rank",
                    m.len(),
                    spec.me,
                    spec.size
                )));
            }
            if let Some(&w) = m.iter().find(|&&w| w >= self.engine.store().num_ranks()) {
                return Err(Error::BadParameter(format!("communicator member {w} does not exist")));
            }
        }
        if let Call::Send { to, .. }
        | Call::Isend { to, .. }
        | Call::Put { target: to, .. }
        | Call::Get { target: to, .. } = call
        {
            if to >= self.engine.store().num_ranks() {
                return Err(Error::BadParameter(format!("destination {to} does not exist")));
            }
        }
        if let Call::Recv { from, .. } | Call::Irecv { from, .. } = call {
            if from >= self.engine.store().num_ranks() && from != ANY_SOURCE {
                return Err(Error::BadParameter(format!("source {from} does not exist")));
            }
        }
        let core = self.engine.core();
        let paused = core.store.program().queues[rank as usize].is_empty();
        core.store.program_mut().queues[rank as usize].push_back(call);
        if paused {
            let mut ready = std::mem::take(&mut core.ready);
            core.store.go_on(rank, &mut ready);
            core.ready = ready;
            if let Some(e) = core.store.take_error() {
                return Err(e);
            }
            self.engine.flush_ready();
            // Going on with this rank cleared the request to pause, but another rank
            // may have paused since the last run (a call of its that completed at
            // once, such as a zero-length computation): the next run must stop now
            // for it, not at the next event.
            let store = &mut self.engine.core().store;
            let prog = store.program();
            if prog.go_on.iter().any(|&r| prog.paused[r as usize]) {
                store.request_pause();
            }
        }
        Ok(())
    }

    /// Whether rank `rank`'s last MPI_Test of request `handle` found it complete (an
    /// unknown request is complete). A complete request is forgotten: a later wait for
    /// it completes at once.
    pub fn take_tested(&mut self, rank: u32, handle: Handle) -> bool {
        let store = &mut self.engine.core().store;
        let Some(req) = store.program().requests.get(rank as usize).and_then(|m| m.get(&handle)) else {
            return true;
        };
        let found = req.target.is_some_and(|t| store.target_found(t));
        if found {
            let req = store.program_mut().requests[rank as usize].remove(&handle);
            if let Some(t) = req.and_then(|q| q.target) {
                store.release_target(t);
            }
        }
        found
    }

    /// Whether non-blocking collective `handle`, once the rank reached it, had nothing
    /// for its rank to do (it made no request: waits for it end at once).
    pub fn was_empty(&mut self, handle: Handle) -> bool {
        self.engine.core().store.program().empty.contains(&handle)
    }

    /// Whether rank `rank`'s request `handle` is done (an unknown request is).
    pub fn is_done(&mut self, rank: u32, handle: Handle) -> bool {
        let store = &mut self.engine.core().store;
        match store.program().requests.get(rank as usize).and_then(|m| m.get(&handle)) {
            Some(req) => store.op_done(req.op),
            None => true,
        }
    }

    /// Forgets rank `rank`'s request `handle` (done, or freed by the program): a
    /// later wait for it completes at once.
    pub fn forget(&mut self, rank: u32, handle: Handle) {
        let store = &mut self.engine.core().store;
        let req = store
            .program_mut()
            .requests
            .get_mut(rank as usize)
            .and_then(|m| m.remove(&handle));
        if let Some(t) = req.and_then(|q| q.target) {
            store.release_target(t);
        }
    }

    /// The receives cancelled since the last call (they completed, receiving nothing).
    pub fn take_cancelled(&mut self) -> Vec<Handle> {
        std::mem::take(&mut self.engine.core().store.program_mut().cancelled)
    }

    /// The (send, receive) handles matched since the last call.
    pub fn take_matches(&mut self) -> Vec<(Handle, Handle)> {
        std::mem::take(&mut self.engine.core().store.program_mut().matches)
    }

    /// Whether nothing is in flight: no transfer, compute or other event pending (the
    /// ranks given back by [`Driver::run`] are the only ones that can act).
    pub fn idle(&mut self) -> bool {
        self.engine.idle()
    }

    /// The current simulated time.
    pub fn now(&mut self) -> SimTime {
        SimTime(self.engine.core().now)
    }

    /// The result, once [`Driver::run`] returned no rank.
    pub fn finish(mut self) -> Result<Outcome, Error> {
        self.engine.finish()
    }
}
