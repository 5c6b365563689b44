//! A TIT trace as a rank program: each step reads a rank's next line and makes the MPI
//! call it records through [`RankCalls`] (SimGrid 3.32's replayer where it defines the
//! semantics). The same program fills a schedule (`read_tit`) or runs live in the
//! engine (`open_tit`), where each rank's file is read as the rank reaches it.
//!
//! * Requests are named by (source, destination, tag) as the trace writes them: a
//!   `wait` completes the oldest outstanding request with that key. Completion calls
//!   that list their requests (simpi's tracer) complete exactly those: `waitall n
//!   keys`, `waitany n key`, `waitsome n k keys`, and tests that found requests
//!   complete. Without a list (SimGrid), `waitall` waits for every request, `waitany`
//!   for any one (and the oldest request counts as the one it completed), and a test of
//!   a key with an outstanding request is a compute of `test_cost` seconds marked as a
//!   test of the oldest such request (the run decides what it costs and finds); SimGrid
//!   skips tests of keys without one.
//! * Collectives are expanded by the algorithm `choose` picks, in the communicator's
//!   collective context; reductions then compute their `comp` flops. `@self` is a
//!   communicator of one rank.
//! * `compute f` takes `f / speed(rank)` seconds; `sleep s` takes `s` seconds.
//! * Negative sources are MPI_ANY_SOURCE (SimGrid writes -333 or -555), negative tags
//!   MPI_ANY_TAG (-444); operations with a negative destination, or simpi's
//!   MPI_PROC_NULL (-2) as source, are dropped and counted.

use super::actions::{Action, Key, ICOLL_SOURCE, PROC_NULL, UNMODELLED_SOURCE};
use super::feed::{CommRef, Feed, NO_NAME};
use super::source::Source;
use crate::trace_program::{msg, seconds_to_ps};
use simpi_kernel::MixHashMap;
use simpi_mpi::calls::{CollComm, Req};
use simpi_mpi::coll::{Algorithm, CollSpec, Collective};
use simpi_mpi::comm::{CommTable, IcollContexts};
use simpi_mpi::live::{Program, Step};
use simpi_mpi::sink::OpSink;
use simpi_mpi::{CallRecord, Error, ANY_SOURCE, ANY_TAG};
use std::collections::VecDeque;
use std::sync::Arc;

/// How a trace's calls cost and expand.
#[derive(Clone, Copy)]
pub struct TitOptions<'a> {
    /// Flop/s of the host rank `r` runs on (for `compute` and reduction costs).
    pub speed: &'a (dyn Fn(u32) -> f64 + Sync),
    /// The algorithm of a collective call.
    pub choose: &'a (dyn Fn(&CollSpec) -> &'static Algorithm + Sync),
    /// Seconds an MPI_Test-like call costs.
    pub test_cost: f64,
    /// Whether to keep a [`CallRecord`] of every MPI call (reports and timelines use
    /// them; without, none is kept and a large trace runs leaner).
    pub calls: bool,
}

/// One rank's replay state.
pub(crate) struct TitRank<R> {
    /// Outstanding requests by (source, destination, tag), oldest first. Keys without
    /// any stay for a while ([`TitRank::prune_store`]).
    store: MixHashMap<Key, VecDeque<Req<R>>>,
    /// Requests in `store`.
    outstanding: usize,
    /// Non-blocking collectives started so far.
    icolls: i64,
    /// Each non-blocking collective's matching context.
    icoll_contexts: IcollContexts,
    /// The line read last (0 before the first).
    line: u32,
}

impl<R> Default for TitRank<R> {
    fn default() -> Self {
        TitRank {
            store: MixHashMap::default(),
            outstanding: 0,
            icolls: 0,
            icoll_contexts: IcollContexts::default(),
            line: 0,
        }
    }
}

/// What a rank's call may need of the trace as a whole.
pub(crate) struct Ctx<'t, 'o> {
    pub p: u32,
    pub comms: &'t CommTable,
    pub opts: &'t TitOptions<'o>,
    /// Sends to MPI_PROC_NULL dropped so far.
    pub dropped: &'t mut u64,
    /// Synchronous sends taken as standard ones so far (a whole schedule).
    pub sync_as_standard: &'t mut u64,
}

fn wild_tag(t: i64) -> u32 {
    if t < 0 || t >= ANY_TAG as i64 {
        ANY_TAG
    } else {
        t as u32
    }
}

/// Splits `<rank> [@comm] <action> <args>` into (comm id, action name, the arguments'
/// words).
pub(crate) fn words(text: &str) -> (Option<&str>, &str, std::str::SplitAsciiWhitespace<'_>) {
    let mut w = text.split_ascii_whitespace();
    w.next(); // rank
    let mut name = w.next().unwrap_or("");
    let mut comm = None;
    if let Some(c) = name.strip_prefix('@') {
        comm = Some(c);
        name = w.next().unwrap_or("");
    }
    (comm, name, w)
}

/// A line's arguments, on the stack unless there are many (vector collectives list one
/// count per rank): most lines have a handful, and allocating for each showed.
#[derive(Default)]
pub(crate) struct Args<'t> {
    inline: [&'t str; 16],
    spilled: Vec<&'t str>,
}

impl<'t> Args<'t> {
    pub(crate) fn collect(&mut self, words: impl Iterator<Item = &'t str>) -> &[&'t str] {
        let mut n = 0;
        for w in words {
            if n < self.inline.len() {
                self.inline[n] = w;
            } else {
                if n == self.inline.len() {
                    self.spilled.extend_from_slice(&self.inline);
                }
                self.spilled.push(w);
            }
            n += 1;
        }
        if n <= self.inline.len() {
            &self.inline[..n]
        } else {
            &self.spilled
        }
    }
}

impl<R: Copy + PartialEq + std::fmt::Debug> TitRank<R> {
    fn rank_arg(cx: &Ctx<'_, '_>, v: i64, what: &str) -> Result<u32, String> {
        if v < 0 || v >= cx.p as i64 {
            return Err(format!("{what} {v} is out of range: the trace has {} ranks", cx.p));
        }
        Ok(v as u32)
    }

    /// Stores under key `k` request `q`.
    fn post(&mut self, k: Key, q: Req<R>) {
        self.store.entry(k).or_default().push_back(q);
        self.outstanding += 1;
    }

    /// Makes the call of one trace line.
    pub(crate) fn action<S: OpSink<Ref = R>>(
        &mut self,
        calls: &mut simpi_mpi::calls::RankCalls<R>,
        s: &mut S,
        cx: &mut Ctx<'_, '_>,
        comm: CommRef,
        action: Action,
    ) -> Result<(), String> {
        let r = calls.rank();
        let self_comm = [r];
        let (ci, members) = match comm {
            CommRef::World => (0, None),
            // Each rank's MPI_COMM_SELF: nothing crosses it.
            CommRef::Own => (0, Some(&self_comm[..])),
            CommRef::Index(i) => (i as usize, Some(&cx.comms.comm(i as usize).members[..])),
        };
        let p2p = CommTable::p2p_context(ci);
        match action {
            Action::Init { .. } => {}
            Action::NoOp | Action::Comm(_) => {}
            Action::Start { peer, tag, bytes, recv } => self.start(calls, s, cx, peer, tag, bytes, recv, p2p)?,
            Action::Startall { starts } => {
                for (peer, tag, bytes, recv) in starts {
                    self.start(calls, s, cx, peer, tag, bytes, recv, p2p)?;
                }
            }
            Action::Send {
                blocking,
                sync,
                peer,
                tag,
                bytes,
            } => {
                if peer < 0 {
                    *cx.dropped += 1;
                    return Ok(());
                }
                let to = Self::rank_arg(cx, peer, "destination")?;
                let send = (to, wild_tag(tag), bytes, p2p);
                let standard = if blocking {
                    calls.send_traced(s, send, sync).map_err(msg)?.1
                } else {
                    let (q, standard) = calls.isend_traced(s, send, sync).map_err(msg)?;
                    self.post((r as i64, peer, tag), q);
                    standard
                };
                *cx.sync_as_standard += u64::from(standard);
            }
            Action::Recv {
                blocking,
                peer,
                tag,
                bytes,
            } => {
                if peer == PROC_NULL {
                    *cx.dropped += 1;
                    return Ok(());
                }
                let from = if peer < 0 {
                    ANY_SOURCE
                } else {
                    Self::rank_arg(cx, peer, "source")?
                };
                if blocking {
                    calls.recv(s, from, wild_tag(tag), bytes, p2p).map_err(msg)?;
                } else {
                    let q = calls.irecv(s, from, wild_tag(tag), bytes, p2p).map_err(msg)?;
                    self.post((peer, r as i64, tag), q);
                }
            }
            Action::Wait { src, dst, tag } => {
                let special = src == ICOLL_SOURCE || src == UNMODELLED_SOURCE;
                if !special && self.outstanding == 0 {
                    return Err("'wait' without any outstanding isend or irecv".into());
                }
                self.complete(calls, s, (src, dst, tag));
            }
            Action::Test { src, dst, tag, done } => {
                let cost = seconds_to_ps(cx.opts.test_cost)?;
                if done {
                    // simpi's tracer: the real test completed it.
                    self.complete(calls, s, (src, dst, tag));
                    calls.compute(s, cost).map_err(msg)?;
                } else if let Some(q) = self.store.get_mut(&(src, dst, tag)).filter(|q| !q.is_empty()) {
                    // SimGrid's replay takes the oldest request with the key and puts it
                    // (or, if the test finds it complete, a null request) back last; the
                    // test's cost and outcome are decided when it runs.
                    let mut req = q.pop_front().expect("stored keys have requests");
                    calls.test(s, &mut req, cost).map_err(msg)?;
                    q.push_back(req);
                }
            }
            Action::TestSome { done } => {
                self.complete_all(calls, s, done);
                let cost = seconds_to_ps(cx.opts.test_cost)?;
                calls.compute(s, cost).map_err(msg)?;
            }
            Action::Waitall { reqs: Some(reqs) } => self.complete_all(calls, s, reqs),
            Action::Waitall { reqs: None } => {
                let mut all: Vec<(u64, Req<R>)> = Vec::with_capacity(self.outstanding);
                for (_, q) in self.store.drain() {
                    all.extend(q.into_iter().map(|q| (0, q)));
                }
                self.outstanding = 0;
                // Oldest first: the order the requests were made in.
                for (i, q) in all.iter_mut() {
                    *i = q.order();
                }
                all.sort_unstable_by_key(|&(i, _)| i);
                let reqs: Vec<Req<R>> = all.into_iter().map(|(_, q)| q).collect();
                for q in &reqs {
                    if let Some(t) = q.target {
                        s.forget_target(t);
                    }
                }
                calls.wait(&reqs);
            }
            Action::Waitany { done: Some(k) } => self.complete(calls, s, k),
            Action::Waitsome { done } => self.complete_all(calls, s, done),
            Action::Waitany { done: None } => {
                let mut all: Vec<(u64, Key, Req<R>)> = self
                    .store
                    .iter()
                    .flat_map(|(&k, q)| q.iter().map(move |r| (r.order(), k, *r)))
                    .collect();
                all.sort_unstable_by_key(|&(i, _, _)| i);
                if let Some(&(oldest, key, _)) = all.first() {
                    let reqs: Vec<Req<R>> = all.iter().map(|&(_, _, q)| q).collect();
                    calls.wait_any(s, &reqs).map_err(msg)?;
                    // The call completed one request, which one the trace does not say:
                    // the oldest leaves the store (else every later waitany would wait
                    // for all requests ever made, and complete with the first).
                    let q = self.store.get_mut(&key).expect("stored");
                    if let Some(t) = q.iter().find(|r| r.order() == oldest).and_then(|r| r.target) {
                        s.forget_target(t);
                    }
                    q.retain(|r| r.order() != oldest);
                    self.outstanding -= 1;
                    self.prune_store();
                }
            }
            Action::SendRecv(sr) => {
                let super::actions::SendRecv {
                    sbytes,
                    dst,
                    rbytes,
                    src,
                    stag,
                    rtag,
                } = *sr;
                let to = if dst >= 0 {
                    Some(Self::rank_arg(cx, dst, "destination")?)
                } else {
                    None
                };
                let from = match src {
                    PROC_NULL => None,
                    v if v < 0 => Some(ANY_SOURCE),
                    v => Some(Self::rank_arg(cx, v, "source")?),
                };
                // With itself on both sides, SMPI copies the buffer and sends nothing
                // (`Request::sendrecv`): no time passes.
                if to == Some(r) && from == Some(r) {
                    return Ok(());
                }
                let send = to.map(|to| (to, wild_tag(stag), sbytes));
                let recv = from.map(|from| (from, wild_tag(rtag), rbytes));
                calls.sendrecv(s, send, recv, p2p).map_err(msg)?;
            }
            Action::Compute { flops } => {
                let ps = seconds_to_ps(flops / (cx.opts.speed)(r))?;
                calls.compute(s, ps).map_err(msg)?;
            }
            Action::Sleep { seconds } => calls.compute(s, seconds_to_ps(seconds)?).map_err(msg)?,
            Action::Nonblocking(coll) => {
                let k = self.icolls;
                self.icolls += 1;
                let (spec, _) = Self::coll_spec(cx, r, ci, members, *coll)?;
                let comm = CollComm {
                    index: ci,
                    members,
                    context: self.icoll_contexts.next(ci),
                };
                let alg = (cx.opts.choose)(&spec);
                // Every operation of the collective waits for the frontier (which it
                // leaves as it was): its end is a request.
                if let Some(q) = calls.icollective(s, comm, spec, alg, cx.opts.choose).map_err(msg)? {
                    self.post((ICOLL_SOURCE, r as i64, k), q);
                }
            }
            coll => {
                let (spec, comp) = Self::coll_spec(cx, r, ci, members, coll)?;
                let comm = CollComm {
                    index: ci,
                    members,
                    context: CommTable::coll_context(ci),
                };
                let alg = (cx.opts.choose)(&spec);
                calls.collective(s, comm, spec, alg, cx.opts.choose).map_err(msg)?;
                if comp > 0.0 {
                    let ps = seconds_to_ps(comp / (cx.opts.speed)(r))?;
                    calls.compute(s, ps).map_err(msg)?;
                }
            }
        }
        Ok(())
    }

    /// Starts a persistent request: a send to `peer`, or a receive (`recv`, or SimGrid's
    /// convention of naming this rank) from `peer` (any source when unknown).
    #[allow(clippy::too_many_arguments)]
    fn start<S: OpSink<Ref = R>>(
        &mut self,
        calls: &mut simpi_mpi::calls::RankCalls<R>,
        s: &mut S,
        cx: &mut Ctx<'_, '_>,
        peer: i64,
        tag: i64,
        bytes: u64,
        recv: bool,
        ctx: u32,
    ) -> Result<(), String> {
        let me = calls.rank() as i64;
        if peer == PROC_NULL {
            *cx.dropped += 1;
            return Ok(());
        }
        if recv || peer == me {
            let src = if recv { peer } else { -1 };
            let from = if src < 0 {
                ANY_SOURCE
            } else {
                Self::rank_arg(cx, src, "source")?
            };
            let q = calls.irecv(s, from, wild_tag(tag), bytes, ctx).map_err(msg)?;
            self.post((src, me, tag), q);
        } else {
            let to = Self::rank_arg(cx, peer, "destination")?;
            let q = calls.isend(s, to, wild_tag(tag), bytes, ctx).map_err(msg)?;
            self.post((me, peer, tag), q);
        }
        Ok(())
    }

    /// Waits for the oldest outstanding request with key `k`. A persistent receive
    /// stored without its source, and a SimGrid wait on a non-blocking collective (whose
    /// key holds internal values), fall back to the oldest candidate; an unknown request
    /// completes at once.
    fn complete<S: OpSink<Ref = R>>(&mut self, calls: &mut simpi_mpi::calls::RankCalls<R>, s: &mut S, k: Key) {
        if let Some(q) = self.take(s, k) {
            calls.wait(&[q]);
        }
    }

    /// [`TitRank::complete`] for several requests, completed together.
    fn complete_all<S: OpSink<Ref = R>>(
        &mut self,
        calls: &mut simpi_mpi::calls::RankCalls<R>,
        s: &mut S,
        keys: Vec<Key>,
    ) {
        let reqs: Vec<Req<R>> = keys.into_iter().filter_map(|k| self.take(s, k)).collect();
        calls.wait(&reqs);
    }

    /// Removes and returns the request a completion of key `k` completes.
    fn take<S: OpSink<Ref = R>>(&mut self, s: &mut S, k: Key) -> Option<Req<R>> {
        let (src, dst, tag) = k;
        if src == UNMODELLED_SOURCE {
            return None;
        }
        let pop = |store: &mut MixHashMap<Key, VecDeque<Req<R>>>, key: Key| store.get_mut(&key)?.pop_front();
        let store = &mut self.store;
        let found = pop(store, k).or_else(|| pop(store, (-1, dst, tag))).or_else(|| {
            // The oldest non-blocking collective still outstanding.
            let oldest = store
                .iter()
                .filter(|(key, q)| key.0 == ICOLL_SOURCE && !q.is_empty())
                .map(|(key, _)| *key)
                .min_by_key(|key| key.2)?;
            pop(store, oldest)
        });
        if let Some(q) = &found {
            if let Some(t) = q.target {
                s.forget_target(t);
            }
            self.outstanding -= 1;
            self.prune_store();
        }
        found
    }

    /// Drops the keys left without requests once they outnumber the outstanding
    /// requests (keeping them saves an allocation per request on keys that come back;
    /// dropping them bounds the scans of the store when tags never repeat).
    fn prune_store(&mut self) {
        if self.store.len() > 2 * self.outstanding + 64 {
            self.store.retain(|_, q| !q.is_empty());
        }
    }

    /// The spec of a collective action on communicator `ci` and the flops it computes
    /// afterwards.
    pub(crate) fn coll_spec(
        cx: &Ctx<'_, '_>,
        r: u32,
        ci: usize,
        members: Option<&[u32]>,
        a: Action,
    ) -> Result<(CollSpec, f64), String> {
        // The world communicator is not listed: rank i is world rank i.
        let (n, me) = match members {
            None => (cx.p, r),
            Some(m) => {
                // The world's copy (index 0) is MPI_COMM_SELF: one member, this rank.
                let me = if ci == 0 {
                    m.iter().position(|&x| x == r).map(|i| i as u32)
                } else {
                    cx.comms.comm(ci).rank_of(r)
                }
                .ok_or_else(|| format!("rank {r} calls a collective on a communicator it is not in"))?;
                (m.len() as u32, me)
            }
        };
        let root_of = |root: i64| -> Result<u32, String> {
            if root < 0 || root >= n as i64 {
                return Err(format!("root {root} is out of range: the communicator has {n} ranks"));
            }
            Ok(root as u32)
        };
        let mut comp = 0.0;
        let spec = |coll: Collective, bytes: u64| CollSpec::new(coll, n, me, bytes);
        let s = match a {
            Action::Barrier => spec(Collective::Barrier, 0),
            Action::Bcast { bytes, root, elem } => CollSpec {
                root: root_of(root)?,
                elem,
                ..spec(Collective::Bcast, bytes)
            },
            Action::Reduce {
                bytes,
                comp: c,
                root,
                elem,
            } => {
                comp = c;
                CollSpec {
                    root: root_of(root)?,
                    elem,
                    ..spec(Collective::Reduce, bytes)
                }
            }
            Action::Allreduce { bytes, comp: c, elem } => {
                comp = c;
                CollSpec {
                    elem,
                    ..spec(Collective::Allreduce, bytes)
                }
            }
            Action::Scan {
                exclusive,
                bytes,
                comp: c,
            } => {
                comp = c;
                spec(
                    if exclusive {
                        Collective::Exscan
                    } else {
                        Collective::Scan
                    },
                    bytes,
                )
            }
            Action::Alltoall { sbytes } => spec(Collective::Alltoall, sbytes),
            Action::Alltoallv { send, recv } => CollSpec {
                send_counts: send.into_vec(),
                recv_counts: recv.into_vec(),
                ..spec(Collective::Alltoallv, 0)
            },
            Action::Gather {
                all,
                sbytes,
                root,
                elem,
            } => CollSpec {
                root: if all { 0 } else { root_of(root)? },
                elem,
                ..spec(if all { Collective::Allgather } else { Collective::Gather }, sbytes)
            },
            Action::Gatherv(g) => {
                let super::actions::Gatherv {
                    all,
                    sbytes,
                    mut recv,
                    root,
                } = *g;
                // Non-roots know only their own contribution.
                recv[me as usize] = sbytes;
                CollSpec {
                    root: if all { 0 } else { root_of(root)? },
                    counts: recv,
                    ..spec(
                        if all {
                            Collective::Allgatherv
                        } else {
                            Collective::Gatherv
                        },
                        0,
                    )
                }
            }
            Action::Scatter { rbytes, root } => CollSpec {
                root: root_of(root)?,
                ..spec(Collective::Scatter, rbytes)
            },
            Action::Scatterv(sv) => {
                let super::actions::Scatterv { mut send, rbytes, root } = *sv;
                send[me as usize] = rbytes;
                CollSpec {
                    root: root_of(root)?,
                    counts: send,
                    ..spec(Collective::Scatterv, 0)
                }
            }
            Action::ReduceScatter { recv, comp: c } => {
                comp = c;
                CollSpec {
                    counts: recv,
                    ..spec(Collective::ReduceScatter, 0)
                }
            }
            other => unreachable!("not a collective: {other:?}"),
        };
        Ok((s, comp))
    }
}

/// A whole TIT trace as a [`Program`]: rank `r`'s steps take its parsed lines from a
/// read-ahead feed (`tit/feed.rs`).
pub struct TitProgram<'o, R> {
    src: Arc<Source>,
    feed: Feed,
    ranks: Vec<TitRank<R>>,
    comms: Arc<CommTable>,
    opts: &'o TitOptions<'o>,
    /// Sends to MPI_PROC_NULL dropped.
    pub(crate) dropped: u64,
    /// Synchronous sends taken as standard ones (a whole schedule has no such mode).
    pub(crate) sync_as_standard: u64,
    /// Every call, when asked for.
    pub(crate) calls: Vec<CallRecord>,
    /// Lines of other ranks, counted by schedules built before (see `absorb`).
    skipped: u64,
}

impl<'o, R: Copy + PartialEq + std::fmt::Debug> TitProgram<'o, R> {
    /// The program of `src`'s ranks; `read_ahead` parses their lines on a thread of its
    /// own while the simulation runs.
    pub(crate) fn new(src: Arc<Source>, comms: Arc<CommTable>, opts: &'o TitOptions<'o>, read_ahead: bool) -> Self {
        let p = src.ranks();
        TitProgram {
            feed: Feed::new(Arc::clone(&src), Arc::clone(&comms), opts.calls, read_ahead),
            ranks: (0..p).map(|_| TitRank::default()).collect(),
            src,
            comms,
            opts,
            dropped: 0,
            sync_as_standard: 0,
            calls: Vec::new(),
            skipped: 0,
        }
    }

    /// Things the user should know about the trace, once it has run.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        let skipped = self.skipped + self.feed.skipped();
        if skipped > 0 {
            w.push(format!(
                "{skipped} line(s) of per-rank files belonged to another rank and were skipped"
            ));
        }
        if self.dropped > 0 {
            w.push(format!(
                "{} send(s) to MPI_PROC_NULL (a negative rank) were dropped",
                self.dropped
            ));
        }
        if self.sync_as_standard > 0 {
            w.push(crate::trace_program::sync_as_standard_warning(self.sync_as_standard));
        }
        w
    }

    /// The calls recorded (empty unless [`TitOptions::calls`]).
    pub fn take_calls(&mut self) -> Vec<CallRecord> {
        std::mem::take(&mut self.calls)
    }

    /// The communicators.
    pub fn comms(&self) -> &Arc<CommTable> {
        &self.comms
    }

    /// Drops the state of rank `r` (a schedule being built has passed it).
    pub(crate) fn done_with(&mut self, r: usize) {
        self.skipped += self.feed.close(r);
        self.ranks[r] = TitRank::default();
    }

    /// Takes in the counts and calls of `other`, which ran later ranks of the trace.
    pub(crate) fn absorb(&mut self, other: &mut TitProgram<'_, R>) {
        self.dropped += other.dropped;
        self.sync_as_standard += other.sync_as_standard;
        self.skipped += other.skipped + other.feed.skipped();
        self.calls.append(&mut other.calls);
    }

    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// The error of a parsed line of rank `r`, located.
    fn located(&self, r: usize, (line, msg): (u32, String)) -> Error {
        Error::Input {
            file: self.src.file_of(r).display().to_string(),
            line,
            msg,
        }
    }

    /// Reads what the ranks have not reached and reports the first line that does not
    /// parse, in rank order (a run that stopped early, because it deadlocked, would
    /// otherwise hide it; a whole conversion reports it first).
    pub fn check_unread(&mut self) -> Result<(), Error> {
        for r in 0..self.ranks.len() {
            while let Some(p) = self.feed.next(r) {
                if let Err(e) = p.action {
                    return Err(self.located(r, *e));
                }
            }
        }
        Ok(())
    }
}

impl<R: Copy + PartialEq + std::fmt::Debug> Program<R> for TitProgram<'_, R> {
    fn step<S: OpSink<Ref = R>>(
        &mut self,
        rank: u32,
        calls: &mut simpi_mpi::calls::RankCalls<R>,
        sink: &mut S,
    ) -> Result<Step, Error> {
        let r = rank as usize;
        let Some(parsed) = self.feed.next(r) else {
            return Ok(Step::Ended);
        };
        let line = parsed.line;
        let action = match parsed.action {
            Ok(a) => a,
            Err(e) => return Err(self.located(r, *e)),
        };
        let p = self.ranks.len() as u32;
        let st = &mut self.ranks[r];
        st.line = line;
        sink.at_line(line);
        let before = sink.created();
        let mut cx = Ctx {
            p,
            comms: &self.comms,
            opts: self.opts,
            dropped: &mut self.dropped,
            sync_as_standard: &mut self.sync_as_standard,
        };
        if let Err(m) = st.action(calls, sink, &mut cx, parsed.comm, action) {
            return Err(self.located(r, (line, m)));
        }
        if parsed.name != NO_NAME {
            let after = sink.created();
            if after > before {
                self.calls.push(CallRecord {
                    rank,
                    name: self.feed.name(parsed.name),
                    first: before,
                    end: after,
                });
            }
        }
        Ok(Step::Called)
    }

    fn line(&self, rank: u32) -> u32 {
        self.ranks[rank as usize].line
    }

    fn file(&self, rank: u32) -> Option<String> {
        Some(self.src.file_of(rank as usize).display().to_string())
    }
}
