//! Runs a [`Schedule`] under the LogGOPS model with LogGOPSim's exact semantics.
//!
//! Each rank has CPUs (a "busy until" timer each) and NICs (separate send and receive
//! gap timers). Events are op starts and message arrivals, ordered by (time, sequence).
//! An event whose resources are busy is put back at the time they free up, keeping its
//! sequence number. Operations enabled by an event are queued per rank in ascending
//! rank order, sorted by kind with libstdc++'s `std::sort` (see [`crate::cxx_sort`]),
//! at the time their resources free up. This replicates LogGOPSim's scheduling, so the
//! same schedule yields the same per-rank end times. The rules are in `docs/models.md`.

use crate::cxx_sort::sort_like_libstdcxx;
use crate::matching::{Envelope, MatchQueue};
use crate::op::{OpId, OpKind};
use crate::schedule::Schedule;
use crate::stall::{Pending, Stall, StalledRank};
use simpi_kernel::{prefetch, EventQueue, IdHashMap, Seq, SimTime};
use simpi_net::LogGops;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Marks an event that is an operation start rather than a message arrival.
const NOT_A_MESSAGE: u32 = u32::MAX;

/// A queued event: an op id, with [`MSG_BIT`] set for "the message of this send
/// arrives"; or, with [`WAKE_BIT`], a CPU or NIC side whose parked events are due (see
/// [`Parked`]). Everything else is found in the op. (A queue entry takes 24 bytes
/// whether this is 4 or 8.)
#[derive(Copy, Clone)]
struct Packed(u64);

const MSG_BIT: u64 = 1 << 63;
const WAKE_BIT: u64 = 1 << 62;

/// Events that found a resource they need busy, parked until all are free, in groups of
/// events that need the same resources: a CPU (computes), a CPU and its NIC's send side
/// (sends), a CPU and its NIC's receive side (arriving messages).
///
/// LogGOPSim puts such an event back in the queue at the time its resources are free,
/// with its old sequence number. When many events wait for the same resources (a rank
/// that starts a send to every other rank at once; messages whose NIC gap exceeds the
/// CPU overhead), each one is popped and put back once per event served before it:
/// O(n²) per rank. The events of a group all wait for the same time, so parking them
/// with one wake-up entry at that time carrying the smallest parked sequence number
/// serves them in the same (time, sequence) order: a parked event would only have been
/// popped, found a resource busy and put back, which changes nothing. A woken event that
/// finds a resource taken in the meantime (by another group's event) is parked again.
#[derive(Default)]
struct Parked {
    /// (sequence, event) of the parked events, smallest sequence first.
    waiting: BinaryHeap<Reverse<(u64, u64)>>,
    /// (time, sequence) of the live wake-up entry; other wake-ups for this CPU are stale.
    wake: Option<(u64, u64)>,
}

/// An event unpacked for handling.
#[derive(Copy, Clone)]
struct Ev {
    /// The operation; for a message, the send that produced it.
    op: u32,
    /// The rank the event happens on (for a message, the destination).
    host: u32,
    /// For a message, the sending rank; otherwise [`NOT_A_MESSAGE`].
    from: u32,
}

/// What a finished run reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Time each rank's CPUs became idle for good.
    pub end_times: Vec<SimTime>,
    /// Counters of the run.
    pub stats: RunStats,
    /// Per operation (by id), when it started, stopped waiting for its peer and ended;
    /// empty unless the run was asked to record them.
    pub op_times: Vec<OpTime>,
}

/// When an operation started, when its data started to move (for a receive: when its
/// message was matched; otherwise its start) and when it ended, in picoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OpTime {
    /// Start.
    pub start: u64,
    /// End of waiting for the peer.
    pub ready: u64,
    /// End.
    pub end: u64,
}

impl Outcome {
    /// The latest end time over all ranks.
    pub fn makespan(&self) -> SimTime {
        self.end_times.iter().copied().max().unwrap_or(SimTime::ZERO)
    }
}

/// Counters of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Events scheduled: one per operation plus one per message (LogGOPSim's count).
    pub events: u64,
    /// Receives matched to a message of another size (the message size is used).
    pub size_mismatches: u64,
}

/// Progress of a running simulation, passed to the progress callback.
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    /// Events scheduled so far.
    pub events: u64,
    /// Operations completed so far.
    pub ops_done: u64,
    /// Total operations.
    pub ops_total: u64,
    /// Current simulated time.
    pub now: SimTime,
}

/// How often the progress callback runs, in processed events.
const PROGRESS_EVERY: u64 = 1 << 20;

/// Per-rank timers in one block per rank, `[cpu.., nic send.., nic receive..]`, so an
/// event touches one cache line of rank state.
struct Timers {
    t: Vec<u64>,
    cpus: usize,
    nics: usize,
    stride: usize,
}

impl Timers {
    fn new(ranks: usize, cpus: usize, nics: usize) -> Timers {
        let stride = cpus + 2 * nics;
        Timers {
            t: vec![0; ranks * stride],
            cpus,
            nics,
            stride,
        }
    }
    /// Index in `t` of rank `h`'s CPU `c` (a parking slot).
    #[inline(always)]
    fn cpu_slot(&self, h: u32, c: u8) -> u64 {
        (h as usize * self.stride + c as usize) as u64
    }
    /// Index in `t` of the send side of rank `h`'s NIC `n`.
    #[inline(always)]
    fn gs_slot(&self, h: u32, n: u8) -> u64 {
        (h as usize * self.stride + self.cpus + n as usize) as u64
    }
    /// Index in `t` of the receive side of rank `h`'s NIC `n`.
    #[inline(always)]
    fn gr_slot(&self, h: u32, n: u8) -> u64 {
        (h as usize * self.stride + self.cpus + self.nics + n as usize) as u64
    }
    #[inline(always)]
    fn cpu(&mut self, h: u32, c: u8) -> &mut u64 {
        &mut self.t[h as usize * self.stride + c as usize]
    }
    #[inline(always)]
    fn gs(&mut self, h: u32, n: u8) -> &mut u64 {
        &mut self.t[h as usize * self.stride + self.cpus + n as usize]
    }
    #[inline(always)]
    fn gr(&mut self, h: u32, n: u8) -> &mut u64 {
        &mut self.t[h as usize * self.stride + self.cpus + self.nics + n as usize]
    }
    fn end_time(&self, h: usize) -> SimTime {
        SimTime(
            *self.t[h * self.stride..h * self.stride + self.cpus]
                .iter()
                .max()
                .unwrap(),
        )
    }
}

/// The executor's state for one run.
struct Run<'s> {
    sched: &'s mut Schedule,
    m: LogGops,
    ops_done: u64,
    timers: Timers,
    posted: Vec<MatchQueue>,
    unexpected: Vec<MatchQueue>,
    queue: EventQueue<Packed>,
    /// Parked events by CPU (`rank * cpus + cpu`).
    parked: IdHashMap<u64, Parked>,
    /// Operations enabled by the current event, with their rank, in enabling order.
    freed: Vec<(u32, u32)>,
    /// The time of the event being handled (a join's time).
    now: u64,
    scratch: Vec<u32>,
    stats: RunStats,
    times: Vec<OpTime>,
}

/// Simulates `sched` under `model`. Returns per-rank end times, or a [`Stall`] report
/// if operations remain that can never run (an unmatched receive, a rendezvous send
/// that is never received, a message nobody receives). The schedule's dependency
/// counters are used during the run and reset before returning.
pub fn run_loggops(
    sched: &mut Schedule,
    model: &LogGops,
    progress: Option<&mut dyn FnMut(Progress)>,
) -> Result<Outcome, Box<Stall>> {
    run_loggops_with(sched, model, progress, false)
}

/// [`run_loggops`], optionally recording every operation's times ([`Outcome::op_times`]).
pub fn run_loggops_with(
    sched: &mut Schedule,
    model: &LogGops,
    mut progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> Result<Outcome, Box<Stall>> {
    sched.begin_run();
    let p = sched.num_ranks() as usize;
    let (cpus, nics, total_ops) = (sched.cpus(), sched.nics(), sched.num_ops() as u64);
    let mut run = Run {
        m: *model,
        ops_done: 0,
        timers: Timers::new(p, cpus, nics),
        posted: vec![MatchQueue::default(); p],
        unexpected: vec![MatchQueue::default(); p],
        queue: EventQueue::new(),
        parked: IdHashMap::default(),
        freed: Vec::new(),
        scratch: Vec::new(),
        now: 0,
        stats: RunStats::default(),
        times: if record {
            vec![OpTime::default(); sched.num_ops()]
        } else {
            Vec::new()
        },
        sched,
    };
    for h in 0..p as u32 {
        for id in run.sched.rank_ops(h) {
            if run.sched.dependencies(OpId(id)) == 0 {
                run.freed.push((h, id));
            }
        }
        run.enqueue_freed();
    }
    let mut processed = 0u64;
    while let Some(ev) = run.queue.pop() {
        let t = ev.time;
        run.now = t;
        if ev.event.0 & WAKE_BIT != 0 {
            run.wake(t, ev.seq.0, ev.event.0 & !WAKE_BIT);
        } else {
            if let Some(next) = run.queue.peek_ahead(4) {
                if next.0 & WAKE_BIT == 0 {
                    prefetch(run.sched.op(OpId((next.0 & !MSG_BIT) as u32)));
                }
            }
            run.dispatch(t, ev.seq.0, ev.event);
        }
        if !run.freed.is_empty() {
            run.enqueue_freed();
        }
        processed += 1;
        if processed.is_multiple_of(PROGRESS_EVERY) {
            if let Some(cb) = progress.as_mut() {
                cb(Progress {
                    events: run.queue.issued(),
                    ops_done: run.ops_done,
                    ops_total: total_ops,
                    now: SimTime(t),
                });
            }
        }
    }
    run.stats.events = run.queue.issued();
    run.finish()
}

impl Run<'_> {
    /// Handles one event popped at `t` with sequence number `seq`; an event that cannot
    /// run yet is parked (its CPU is busy) or put back (a NIC is busy).
    fn dispatch(&mut self, t: u64, seq: u64, ev: Packed) {
        let id = (ev.0 & !MSG_BIT) as u32;
        let op = self.sched.op(OpId(id));
        // The CPU it needs, and the NIC side if any (the slots of their timers).
        let (postponed, cpu, nic) = if ev.0 & MSG_BIT != 0 {
            let e = Ev {
                op: id,
                host: op.peer,
                from: op.rank,
            };
            let (cpu, nic) = (
                self.timers.cpu_slot(e.host, op.cpu),
                self.timers.gr_slot(e.host, op.nic),
            );
            (self.arrive(t, e), cpu, Some(nic))
        } else {
            let e = Ev {
                op: id,
                host: op.rank,
                from: NOT_A_MESSAGE,
            };
            let cpu = self.timers.cpu_slot(e.host, op.cpu);
            let nic = (op.kind == OpKind::Send).then(|| self.timers.gs_slot(e.host, op.nic));
            let postponed = match op.kind {
                OpKind::Calc => self.calc(t, e),
                OpKind::Send => self.send(t, e),
                OpKind::Recv => {
                    self.recv(t, e);
                    None
                }
            };
            (postponed, cpu, nic)
        };
        if postponed.is_none() {
            return;
        }
        // Parked with the events that need the same resources: all of them wait for the
        // same time, so only the oldest needs a wake-up entry.
        let group = cpu << 32 | nic.map_or(0, |n| n + 1);
        self.parked.entry(group).or_default().waiting.push(Reverse((seq, ev.0)));
        self.arm_wake(t, group);
    }

    /// When the resources of parked `group` are all free (see [`Run::dispatch`]).
    fn group_free(&self, group: u64) -> u64 {
        let cpu = self.timers.t[(group >> 32) as usize];
        match group & 0xffff_ffff {
            0 => cpu,
            n => cpu.max(self.timers.t[n as usize - 1]),
        }
    }

    /// Makes sure `slot`'s parked events have a live wake-up entry, at the time their
    /// resources are free (or now) with the smallest parked sequence number; drops the
    /// record of a group with nothing parked.
    fn arm_wake(&mut self, t: u64, slot: u64) {
        let free = self.group_free(slot);
        let Some(p) = self.parked.get_mut(&slot) else { return };
        let Some(&Reverse((first, _))) = p.waiting.peek() else {
            self.parked.remove(&slot);
            return;
        };
        let key = (free.max(t), first);
        if p.wake != Some(key) {
            p.wake = Some(key);
            self.queue.reschedule(key.0, Seq(key.1), Packed(slot | WAKE_BIT));
        }
    }

    /// A wake-up entry of `slot` popped at `t`: serves the first parked event as if
    /// it had been popped itself, then re-arms for the rest.
    fn wake(&mut self, t: u64, seq: u64, slot: u64) {
        let Some(p) = self.parked.get_mut(&slot) else { return };
        if p.wake != Some((t, seq)) {
            return; // stale: superseded by a later wake-up
        }
        p.wake = None;
        let Reverse((first, ev)) = p.waiting.pop().expect("a live wake-up has a parked event");
        debug_assert_eq!(first, seq);
        self.dispatch(t, first, Packed(ev));
        self.arm_wake(t, slot);
    }

    /// A compute op: runs when its CPU is free.
    fn calc(&mut self, t: u64, e: Ev) -> Option<u64> {
        let op = *self.sched.op(OpId(e.op));
        let cpu = self.timers.cpu(e.host, op.cpu);
        if *cpu > t {
            return Some(*cpu);
        }
        *cpu = t.wrapping_add(op.size);
        self.mark(e.op, t, t, t.wrapping_add(op.size));
        self.started(e.host, e.op);
        self.completed(e.host, e.op);
        None
    }

    /// Records an operation's times when recording.
    #[inline(always)]
    fn mark(&mut self, op: u32, start: u64, ready: u64, end: u64) {
        if !self.times.is_empty() {
            self.times[op as usize] = OpTime { start, ready, end };
        }
    }

    #[inline(always)]
    fn mark_end(&mut self, op: u32, ready: u64, end: u64) {
        if !self.times.is_empty() {
            let t = &mut self.times[op as usize];
            t.ready = ready;
            t.end = end;
        }
    }

    /// A send: needs its CPU and its NIC's send side; eager sends complete at once.
    fn send(&mut self, t: u64, e: Ev) -> Option<u64> {
        let op = *self.sched.op(OpId(e.op));
        let free = (*self.timers.cpu(e.host, op.cpu)).max(*self.timers.gs(e.host, op.nic));
        if free > t {
            return Some(free);
        }
        self.started(e.host, e.op);
        self.mark(e.op, t, t, t.wrapping_add(self.m.send_cpu(op.size)));
        *self.timers.cpu(e.host, op.cpu) = t.wrapping_add(self.m.send_cpu(op.size));
        *self.timers.gs(e.host, op.nic) = t.wrapping_add(self.m.nic(op.size));
        self.queue
            .schedule(t.wrapping_add(self.m.flight()), Packed(e.op as u64 | MSG_BIT));
        if self.m.is_eager(op.size) {
            self.completed(e.host, e.op);
        }
        None
    }

    /// A receive: starts at once; completes now if its message already arrived,
    /// otherwise it is posted.
    fn recv(&mut self, t: u64, e: Ev) {
        let op = *self.sched.op(OpId(e.op));
        self.started(e.host, e.op);
        self.mark(e.op, t, t, t);
        match self.unexpected[e.host as usize].take(op.peer, op.tag, self.sched.context(e.op)) {
            Some(msg) => {
                let send = *self.sched.op(OpId(msg.op));
                self.note_sizes(op.size, send.size);
                if !self.m.is_eager(send.size) {
                    // LogGOPSim releases the sender's timers indexed by the *receive's*
                    // CPU and NIC numbers on this path; kept for identical results.
                    self.release_sender(t, msg.src, msg.op, op.cpu, op.nic);
                }
                self.completed(e.host, e.op);
            }
            None => self.posted[e.host as usize].push(Envelope {
                src: op.peer,
                tag: op.tag,
                op: e.op,
                ctx: self.sched.context(e.op),
            }),
        }
    }

    /// A message reaching its destination: needs the CPU and NIC receive side named by
    /// the send's `cpu`/`nic` fields, then matches a posted receive or waits unexpected.
    fn arrive(&mut self, t: u64, e: Ev) -> Option<u64> {
        let send = *self.sched.op(OpId(e.op));
        let free = (*self.timers.cpu(e.host, send.cpu)).max(*self.timers.gr(e.host, send.nic));
        if free > t {
            return Some(free);
        }
        *self.timers.cpu(e.host, send.cpu) = t.wrapping_add(self.m.recv_cpu(send.size));
        *self.timers.gr(e.host, send.nic) = t.wrapping_add(self.m.nic(send.size));
        match self.posted[e.host as usize].take(e.from, send.tag, self.sched.context(e.op)) {
            Some(r) => {
                self.note_sizes(self.sched.op(OpId(r.op)).size, send.size);
                if !self.m.is_eager(send.size) {
                    self.release_sender(t, e.from, e.op, send.cpu, send.nic);
                }
                self.mark_end(r.op, t, t.wrapping_add(self.m.recv_cpu(send.size)));
                self.completed(e.host, r.op);
            }
            None => self.unexpected[e.host as usize].push(Envelope {
                src: e.from,
                tag: send.tag,
                op: e.op,
                ctx: self.sched.context(e.op),
            }),
        }
        None
    }

    /// Completes a rendezvous send on its rank and moves that rank's timers up to now.
    fn release_sender(&mut self, t: u64, rank: u32, send_op: u32, cpu: u8, nic: u8) {
        self.mark_end(send_op, t, t);
        self.completed(rank, send_op);
        let c = self.timers.cpu(rank, cpu);
        *c = (*c).max(t);
        let g = self.timers.gs(rank, nic);
        *g = (*g).max(t);
    }

    fn note_sizes(&mut self, recv: u64, send: u64) {
        if recv != send {
            self.stats.size_mismatches += 1;
        }
    }

    #[inline]
    fn started(&mut self, h: u32, op: u32) {
        let freed = &mut self.freed;
        self.sched.satisfy(op, false, |s| freed.push((h, s)));
    }

    #[inline]
    fn completed(&mut self, h: u32, op: u32) {
        self.ops_done += 1;
        let freed = &mut self.freed;
        self.sched.satisfy(op, true, |s| freed.push((h, s)));
    }

    /// Queues the freed operations: ranks in ascending order, each rank's ops in
    /// freeing order sorted by kind the way `std::sort` does, each at the time its
    /// resources are next free.
    fn enqueue_freed(&mut self) {
        let mut i = 0;
        while self.sched.has_joins() && i < self.freed.len() {
            let (h, id) = self.freed[i];
            if self.sched.is_join(OpId(id)) {
                // Done now, without its CPU: what it frees takes its place.
                if !self.times.is_empty() {
                    self.times[id as usize] = OpTime {
                        start: self.now,
                        ready: self.now,
                        end: self.now,
                    };
                }
                let tail = self.freed.split_off(i + 1);
                self.freed.pop();
                self.started(h, id);
                self.completed(h, id);
                self.freed.extend(tail);
                continue;
            }
            i += 1;
        }
        if self.freed.is_empty() {
            return;
        }
        if self.freed.len() == 1 {
            let (h, id) = self.freed[0];
            self.freed.clear();
            self.enqueue(h, id);
            return;
        }
        let mut freed = std::mem::take(&mut self.freed);
        if freed.iter().any(|&(h, _)| h != freed[0].0) {
            freed.sort_by_key(|&(h, _)| h); // stable: keeps freeing order within a rank
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        for group in freed.chunk_by(|a, b| a.0 == b.0) {
            let h = group[0].0;
            scratch.clear();
            scratch.extend(group.iter().map(|&(_, id)| id));
            let sched = &*self.sched;
            sort_like_libstdcxx(&mut scratch, |a, b| sched.op(OpId(*a)).kind < sched.op(OpId(*b)).kind);
            for &id in &scratch {
                self.enqueue(h, id);
            }
        }
        freed.clear();
        self.freed = freed;
        self.scratch = scratch;
    }

    /// Queues enabled operation `id` of rank `h` at the time its resources are free.
    #[inline]
    fn enqueue(&mut self, h: u32, id: u32) {
        let op = *self.sched.op(OpId(id));
        let cpu = *self.timers.cpu(h, op.cpu);
        let at = match op.kind {
            OpKind::Send => cpu.max(*self.timers.gs(h, op.nic)),
            OpKind::Recv | OpKind::Calc => cpu,
        };
        debug_assert_eq!(h, op.rank);
        self.queue.schedule(at, Packed(id as u64));
    }

    /// End times if everything ran, or the report of what is stuck. Resets the
    /// schedule's counters either way.
    fn finish(mut self) -> Result<Outcome, Box<Stall>> {
        let p = self.sched.num_ranks() as usize;
        let end_times: Vec<SimTime> = (0..p).map(|h| self.timers.end_time(h)).collect();
        let complete = self.ops_done == self.sched.num_ops() as u64 && self.unexpected.iter().all(|q| q.is_empty());
        if complete {
            Ok(Outcome {
                end_times,
                stats: self.stats.clone(),
                op_times: std::mem::take(&mut self.times),
            })
        } else {
            Err(Box::new(self.stall_report(end_times)))
        }
    }

    fn stall_report(&self, end_times: Vec<SimTime>) -> Stall {
        let p = self.sched.num_ranks() as usize;
        // Which ranks are blocked: an op that never ran, a posted receive, a message
        // never received, or a rendezvous send never matched (on the sender's side).
        let mut blocked = vec![false; p];
        for id in 0..self.sched.num_ops() as u32 {
            if self.sched.dependencies(OpId(id)) > 0 {
                blocked[self.sched.rank_of(OpId(id)) as usize] = true;
            }
        }
        for h in 0..p {
            if !self.posted[h].is_empty() {
                blocked[h] = true;
            }
            for msg in self.unexpected[h].iter() {
                let eager = self.m.is_eager(self.sched.op(OpId(msg.op)).size);
                blocked[if eager { h } else { msg.src as usize }] = true;
            }
        }
        let blocked_ranks = blocked.iter().filter(|&&b| b).count() as u64;
        // Details for the first few only: a report of millions of ranks helps no one.
        let detailed: Vec<usize> = (0..p).filter(|&h| blocked[h]).take(Stall::DETAILED).collect();
        let mut ranks: Vec<StalledRank> = detailed
            .iter()
            .map(|&h| {
                let r = self.sched.rank_ops(h as u32);
                StalledRank {
                    rank: h as u32,
                    done: 0,
                    total: r.end - r.start,
                    pending: self.posted[h]
                        .iter()
                        .map(|e| Pending::PostedRecv { op: OpId(e.op) })
                        .collect(),
                    waiting_on_dependencies: r.map(OpId).filter(|&id| self.sched.dependencies(id) > 0).collect(),
                }
            })
            .collect();
        let slot = |h: usize| detailed.binary_search(&h).ok();
        for h in 0..p {
            for msg in self.unexpected[h].iter() {
                if self.m.is_eager(self.sched.op(OpId(msg.op)).size) {
                    if let Some(i) = slot(h) {
                        ranks[i].pending.push(Pending::UnreceivedMessage {
                            send: OpId(msg.op),
                            from: msg.src,
                        });
                    }
                } else if let Some(i) = slot(msg.src as usize) {
                    ranks[i].pending.push(Pending::RendezvousSend { op: OpId(msg.op) });
                }
            }
        }
        for r in &mut ranks {
            let started_not_done = r
                .pending
                .iter()
                .filter(|p| !matches!(p, Pending::UnreceivedMessage { .. }))
                .count() as u32;
            r.done = r.total - r.waiting_on_dependencies.len() as u32 - started_not_done;
        }
        Stall {
            end_times,
            ranks,
            blocked_ranks,
            stats: self.stats.clone(),
        }
    }
}
