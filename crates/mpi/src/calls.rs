//! MPI semantics of one rank's calls, written once over the [`OpSink`] seam: what each
//! call adds and what it waits for. Every front end (a trace being replayed, a pattern,
//! a live program, a schedule being exported) makes its calls through [`RankCalls`].
//!
//! * A blocking call waits for everything the program waited for so far (the
//!   *frontier*) and becomes the new frontier. A non-blocking call (`isend`, `irecv`, a
//!   non-blocking collective) waits for the frontier but nothing waits for it until a
//!   completion call adds its request to the frontier.
//! * A request waited for implies what it waited for: those entries leave the frontier
//!   (without this, request loops with no blocking call made edges quadratic).
//! * A frontier of more than [`JOIN_AT`] entries becomes a join (a zero-length compute
//!   that takes no CPU) before the next operation, so that many requests completed
//!   together and many posted after them do not need an edge each.
//! * A collective is expanded by its algorithm after an entry: the frontier's single
//!   operation, or a zero-length compute (which waits for the CPU) after all of it.
//!
//! A rank's program may go on as long as its frontier is done ([`RankCalls::frontier`]).

use crate::coll::emit::{Chooser, Placement, Template};
use crate::coll::{Algorithm, CollSpec};
use crate::error::Error;
use crate::op::{Op, NO_CPU};
use crate::sink::OpSink;
use smallvec::SmallVec;
use std::sync::Arc;

/// A frontier longer than this is joined before an operation is added after it.
pub const JOIN_AT: usize = 8;

/// Largest buffer of one collective call on one rank: 1 TiB, beyond any process's
/// memory. Segmented algorithms cut buffers into pieces of a few KiB; a typo of a few
/// digits more would otherwise ask for billions of them.
pub const MAX_COLL_BYTES: u64 = 1 << 40;

/// An outstanding request: the operation whose completion completes it, and what it
/// waited for (the first `len` entries of the frontier of generation `gen`).
#[derive(Copy, Clone, Debug)]
pub struct Req<R> {
    /// The operation.
    pub op: R,
    gen: u32,
    len: u32,
    /// Requests of the rank made before this one.
    order: u64,
    /// The handle its tests share, once tested.
    pub target: Option<u32>,
}

impl<R> Req<R> {
    /// Requests of its rank made before it: requests sort by it in the order they were
    /// made.
    pub fn order(&self) -> u64 {
        self.order
    }
}

/// What identifies a collective call for its template: the same key, the same ops.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct TemplateKey {
    /// The communicator's index; with the spec's size it fixes the translation to world
    /// ranks.
    comm: usize,
    /// The algorithm, by address: registry entries are statics.
    alg: usize,
    spec: CollSpec,
}

/// A rank's last collective calls and their templates, latest last.
type Remembered = Vec<(TemplateKey, Arc<Template>)>;

/// The communicator a collective runs on.
#[derive(Copy, Clone, Debug)]
pub struct CollComm<'a> {
    /// Its index in the communicator table (0 for the world, and for a rank's
    /// MPI_COMM_SELF, whose `members` is that rank alone).
    pub index: usize,
    /// Its members as world ranks, in communicator order; `None` for the world.
    pub members: Option<&'a [u32]>,
    /// The matching context of its collective traffic.
    pub context: u32,
}

/// One rank's MPI state: its frontier and the collectives it has expanded.
#[derive(Debug)]
pub struct RankCalls<R> {
    rank: u32,
    /// What the next blocking call must wait for, less what [`RankCalls::wait`] found
    /// implied (usually one entry: kept inline).
    after: SmallVec<[R; 2]>,
    /// Changes whenever `after` changes other than by growing: a request's `len` is a
    /// prefix of `after` only within the generation it was added in.
    after_gen: u32,
    /// Entries dropped from `after` as implied since it was last set anew: the frontier
    /// had `after.len() + hidden` entries, which decides whether a collective needs an
    /// entry join.
    hidden: u32,
    /// The last calls' templates, latest last (none until the first collective).
    templates: Option<Box<Remembered>>,
    /// Requests made so far.
    requests: u64,
}

impl<R: Copy + PartialEq + std::fmt::Debug> RankCalls<R> {
    /// The state of rank `rank` before its first call.
    pub fn new(rank: u32) -> RankCalls<R> {
        RankCalls {
            rank,
            after: SmallVec::new(),
            after_gen: 0,
            hidden: 0,
            templates: None,
            requests: 0,
        }
    }

    /// The rank.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// What the program waits for before its next call may start: it may go on once
    /// all of these are done.
    pub fn frontier(&self) -> &[R] {
        &self.after
    }

    /// The next blocking call waits for `l` only.
    fn then(&mut self, l: R) {
        self.reset_after(&[l]);
    }

    /// Sets the frontier anew, to `ops`.
    fn reset_after(&mut self, ops: &[R]) {
        self.after.clear();
        self.after.extend_from_slice(ops);
        self.after_gen = self.after_gen.wrapping_add(1);
        self.hidden = 0;
    }

    /// Replaces a long frontier by a join of it.
    fn join_after<S: OpSink<Ref = R>>(&mut self, s: &mut S) -> Result<(), Error> {
        let j = s.push_join()?;
        for &a in &self.after {
            s.requires(j, a);
        }
        let had = self.after.len() as u32 + self.hidden;
        self.reset_after(&[j]);
        // The frontier still counts what it had (whether a collective needs its own
        // entry join depends on that).
        self.hidden = had - 1;
        Ok(())
    }

    /// Adds `op` after the frontier.
    fn add<S: OpSink<Ref = R>>(&mut self, s: &mut S, op: Op, ctx: u32) -> Result<R, Error> {
        if self.after.len() > JOIN_AT {
            self.join_after(s)?;
        }
        let l = s.push(op, ctx)?;
        for &a in &self.after {
            s.requires(l, a);
        }
        Ok(l)
    }

    /// A request of operation `l`, which waits for the whole frontier.
    fn request(&mut self, l: R) -> Req<R> {
        self.requests += 1;
        Req {
            op: l,
            gen: self.after_gen,
            len: self.after.len() as u32,
            order: self.requests - 1,
            target: None,
        }
    }

    /// MPI_Isend of `bytes` to world rank `to` with `tag` in context `ctx`.
    pub fn isend<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        to: u32,
        tag: u32,
        bytes: u64,
        ctx: u32,
    ) -> Result<Req<R>, Error> {
        let l = self.add(s, Op::send(bytes, to, tag, 0, 0), ctx)?;
        Ok(self.request(l))
    }

    /// MPI_Issend: an [`RankCalls::isend`] whose request completes only once a
    /// matching receive is posted.
    pub fn issend<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        to: u32,
        tag: u32,
        bytes: u64,
        ctx: u32,
    ) -> Result<Req<R>, Error> {
        let q = self.isend(s, to, tag, bytes, ctx)?;
        s.synchronous(q.op)?;
        Ok(q)
    }

    /// MPI_Irecv of `bytes` from world rank `from` (or [`crate::ANY_SOURCE`]).
    pub fn irecv<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        from: u32,
        tag: u32,
        bytes: u64,
        ctx: u32,
    ) -> Result<Req<R>, Error> {
        let l = self.add(s, Op::recv(bytes, from, tag, 0, 0), ctx)?;
        Ok(self.request(l))
    }

    /// MPI_Send (blocking); returns its operation.
    pub fn send<S: OpSink<Ref = R>>(&mut self, s: &mut S, to: u32, tag: u32, bytes: u64, ctx: u32) -> Result<R, Error> {
        let l = self.add(s, Op::send(bytes, to, tag, 0, 0), ctx)?;
        self.then(l);
        Ok(l)
    }

    /// MPI_Ssend (blocking, synchronous: it returns once a matching receive is
    /// posted); returns its operation.
    pub fn ssend<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        to: u32,
        tag: u32,
        bytes: u64,
        ctx: u32,
    ) -> Result<R, Error> {
        let l = self.send(s, to, tag, bytes, ctx)?;
        s.synchronous(l)?;
        Ok(l)
    }

    /// A send of a trace: synchronous (MPI_Ssend) if `sync` and the sink simulates it,
    /// else standard. Gives the operation and whether a synchronous send was taken as a
    /// standard one (for the reader to count and say).
    pub fn send_traced<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        (to, tag, bytes, ctx): (u32, u32, u64, u32),
        sync: bool,
    ) -> Result<(R, bool), Error> {
        if sync && s.takes_synchronous() {
            Ok((self.ssend(s, to, tag, bytes, ctx)?, false))
        } else {
            Ok((self.send(s, to, tag, bytes, ctx)?, sync))
        }
    }

    /// The non-blocking form of [`RankCalls::send_traced`] (MPI_Issend if `sync`).
    pub fn isend_traced<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        (to, tag, bytes, ctx): (u32, u32, u64, u32),
        sync: bool,
    ) -> Result<(Req<R>, bool), Error> {
        if sync && s.takes_synchronous() {
            Ok((self.issend(s, to, tag, bytes, ctx)?, false))
        } else {
            Ok((self.isend(s, to, tag, bytes, ctx)?, sync))
        }
    }

    /// MPI_Cancel of receive request `req`: an operation that, when this rank reaches
    /// it, takes the receive out of matching if it has not matched yet (it then
    /// completes, having received nothing). Local: nothing waits for it.
    pub fn cancel<S: OpSink<Ref = R>>(&mut self, s: &mut S, req: &Req<R>) -> Result<(), Error> {
        let c = self.add(s, Op::calc(0, 0), 0)?;
        s.cancels(c, req.op)
    }

    /// MPI_Recv (blocking); returns its operation.
    pub fn recv<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        from: u32,
        tag: u32,
        bytes: u64,
        ctx: u32,
    ) -> Result<R, Error> {
        let l = self.add(s, Op::recv(bytes, from, tag, 0, 0), ctx)?;
        self.then(l);
        Ok(l)
    }

    /// MPI_Sendrecv: the send (if any) and the receive (if any) both wait for the
    /// frontier and become it.
    pub fn sendrecv<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        send: Option<(u32, u32, u64)>,
        recv: Option<(u32, u32, u64)>,
        ctx: u32,
    ) -> Result<(), Error> {
        let mut ends = Vec::with_capacity(2);
        if let Some((to, tag, bytes)) = send {
            ends.push(self.add(s, Op::send(bytes, to, tag, 0, 0), ctx)?);
        }
        if let Some((from, tag, bytes)) = recv {
            ends.push(self.add(s, Op::recv(bytes, from, tag, 0, 0), ctx)?);
        }
        if !ends.is_empty() {
            self.reset_after(&ends);
        }
        Ok(())
    }

    /// A one-sided put of `bytes` to world rank `target` with `tag` in context `ctx`
    /// (MPI_Put, MPI_Accumulate): this rank's send waits for the frontier; the
    /// target's receive is posted now as the target's operation, served by its NIC
    /// (its program takes no part). The request completes once both ends are done.
    pub fn put<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        target: u32,
        tag: u32,
        bytes: u64,
        ctx: u32,
    ) -> Result<Req<R>, Error> {
        let send = self.add(s, Op::send(bytes, target, tag, 0, 0), ctx)?;
        let recv = s.push_for(target, Op::recv(bytes, self.rank, tag, NO_CPU, 0), ctx)?;
        let end = s.push_join()?;
        s.requires(end, send);
        s.requires(end, recv);
        Ok(self.request(end))
    }

    /// A one-sided fetch from world rank `target` (MPI_Get, MPI_Get_accumulate,
    /// MPI_Fetch_and_op, MPI_Compare_and_swap): a request of `ask` bytes goes to the
    /// target in context `ctx.0`; the target answers with `answer` bytes in context
    /// `ctx.1` once the request is in (both its operations posted now as the
    /// target's, served by its NIC). The request completes when the answer has arrived.
    pub fn get<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        target: u32,
        tag: u32,
        (ask, answer): (u64, u64),
        ctx: (u32, u32),
    ) -> Result<Req<R>, Error> {
        let me = self.rank;
        self.add(s, Op::send(ask, target, tag, 0, 0), ctx.0)?;
        let asked = s.push_for(target, Op::recv(ask, me, tag, NO_CPU, 0), ctx.0)?;
        let answered = s.push_for(target, Op::send(answer, me, tag, NO_CPU, 0), ctx.1)?;
        s.requires(answered, asked);
        let got = self.add(s, Op::recv(answer, target, tag, 0, 0), ctx.1)?;
        Ok(self.request(got))
    }

    /// A computation of `ps` picoseconds.
    pub fn compute<S: OpSink<Ref = R>>(&mut self, s: &mut S, ps: u64) -> Result<(), Error> {
        let l = self.add(s, Op::calc(ps, 0), 0)?;
        self.then(l);
        Ok(())
    }

    /// Completion of `reqs` together (MPI_Wait, MPI_Waitall, a test that found them
    /// complete): the frontier grows by their operations. A request's op started only
    /// once the first `len` entries of the frontier had completed; if the frontier has
    /// only grown since (same generation), those entries are implied and dropped.
    pub fn wait(&mut self, reqs: &[Req<R>]) {
        let implied = reqs
            .iter()
            .filter(|q| q.gen == self.after_gen)
            .map(|q| q.len as usize)
            .max()
            .unwrap_or(0)
            .min(self.after.len());
        if implied > 0 {
            self.after.drain(..implied);
            self.hidden += implied as u32;
            self.after_gen = self.after_gen.wrapping_add(1);
        }
        self.after.extend(reqs.iter().map(|q| q.op));
    }

    /// MPI_Waitany over `reqs` (not empty): a join done once any of them is, then a
    /// zero-length compute (the call's return, which waits for the CPU) after it and
    /// the frontier. The call returns no earlier than the program reaches it, whether a
    /// whole schedule or the live store runs it.
    pub fn wait_any<S: OpSink<Ref = R>>(&mut self, s: &mut S, reqs: &[Req<R>]) -> Result<(), Error> {
        let any = s.push_join()?;
        for q in reqs {
            s.requires(any, q.op);
        }
        s.any_of(any);
        let ret = self.add(s, Op::calc(0, 0), 0)?;
        s.requires(ret, any);
        self.then(ret);
        Ok(())
    }

    /// MPI_Test of `req`: a compute of `cost_ps` that the run may lengthen (SMPI's
    /// growing test sleeps) or skip (an earlier test found the request complete).
    pub fn test<S: OpSink<Ref = R>>(&mut self, s: &mut S, req: &mut Req<R>, cost_ps: u64) -> Result<(), Error> {
        let l = self.add(s, Op::calc(cost_ps, 0), 0)?;
        let target = match req.target {
            Some(t) => t,
            None => {
                let t = s.test_target(req.op);
                req.target = Some(t);
                t
            }
        };
        s.test_of(l, target);
        self.then(l);
        Ok(())
    }

    /// A blocking collective `spec` on `comm` with `alg`; algorithms built of other
    /// collectives take theirs from `choose`.
    pub fn collective<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        comm: CollComm<'_>,
        spec: CollSpec,
        alg: &'static Algorithm,
        choose: &Chooser<'_>,
    ) -> Result<(), Error> {
        if let Some(end) = self.expand(s, comm, spec, alg, choose)? {
            self.then(end);
        }
        Ok(())
    }

    /// A non-blocking collective: its operations wait for the frontier (which it leaves
    /// as it was); its end is a request (none if it does nothing on this rank).
    pub fn icollective<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        comm: CollComm<'_>,
        spec: CollSpec,
        alg: &'static Algorithm,
        choose: &Chooser<'_>,
    ) -> Result<Option<Req<R>>, Error> {
        let gen = self.after_gen;
        let len = self.after.len() as u32;
        let end = self.expand(s, comm, spec, alg, choose)?;
        Ok(end.map(|op| {
            self.requests += 1;
            Req {
                op,
                gen,
                len,
                order: self.requests - 1,
                target: None,
            }
        }))
    }

    /// Expands a collective after the frontier; returns its last operation.
    fn expand<S: OpSink<Ref = R>>(
        &mut self,
        s: &mut S,
        comm: CollComm<'_>,
        spec: CollSpec,
        alg: &'static Algorithm,
        choose: &Chooser<'_>,
    ) -> Result<Option<R>, Error> {
        check_sizes(&spec)?;
        // As many entries as the frontier had (implied ones included): the entry costs
        // a zero-length compute, which waits for the CPU.
        let entry = match self.after.len() as u32 + self.hidden {
            0 => None,
            1 => Some(self.after[0]),
            _ => {
                let j = s.push(Op::calc(0, 0), 0)?;
                for &a in &self.after {
                    s.requires(j, a);
                }
                Some(j)
            }
        };
        let key = TemplateKey {
            comm: comm.index,
            alg: alg as *const Algorithm as usize,
            spec,
        };
        // Programs repeat a few calls at a time (a benchmark loops over one size, then
        // the next; a solver alternates two or three calls).
        let remembered = s.remembered_calls();
        if remembered == 0 {
            let t = s.template(alg, &key.spec, choose)?;
            let at = Placement {
                me: key.spec.me,
                size: key.spec.size,
                members: comm.members,
                ctx: comm.context,
            };
            return s.instantiate(&t, at, entry);
        }
        let cache = self.templates.get_or_insert_with(Default::default);
        let t = match cache.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                let hit = cache.remove(i);
                let t = Arc::clone(&hit.1);
                cache.push(hit);
                t
            }
            None => {
                let t = s.template(alg, &key.spec, choose)?;
                if cache.len() >= remembered {
                    cache.remove(0);
                }
                cache.push((key.clone(), Arc::clone(&t)));
                t
            }
        };
        let at = Placement {
            me: key.spec.me,
            size: key.spec.size,
            members: comm.members,
            ctx: comm.context,
        };
        s.instantiate(&t, at, entry)
    }
}

/// Refuses collectives whose sizes overflow when added up, or whose buffers exceed
/// [`MAX_COLL_BYTES`].
fn check_sizes(s: &CollSpec) -> Result<(), Error> {
    let sum = |v: &[u64]| v.iter().try_fold(0u64, |a, &b| a.checked_add(b));
    if s.bytes.checked_mul(s.size as u64).is_none()
        || sum(&s.counts).is_none()
        || sum(&s.send_counts).is_none()
        || sum(&s.recv_counts).is_none()
    {
        return Err(Error::BadParameter(format!(
            "the {} moves more than 2^64 bytes in all",
            s.coll
        )));
    }
    let most = [s.bytes]
        .into_iter()
        .chain(s.counts.iter().copied())
        .chain(s.send_counts.iter().copied())
        .chain(s.recv_counts.iter().copied())
        .max()
        .unwrap_or(0);
    if most > MAX_COLL_BYTES {
        return Err(Error::BadParameter(format!(
            "the {} has a buffer of {most} bytes, more than the {MAX_COLL_BYTES} (1 TiB) a rank may have",
            s.coll
        )));
    }
    Ok(())
}
