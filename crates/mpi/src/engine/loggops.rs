//! LogGOPS rules with LogGOPSim's exact semantics (the rules are in `docs/models.md`).
//!
//! Each rank has CPUs (a "busy until" timer each) and NICs (separate send and receive
//! gap timers). Events are operation starts and message arrivals, ordered by (time,
//! sequence). An event whose resources are busy waits until they free up, keeping its
//! sequence number. Operations that became ready in one event are queued per rank in
//! ascending rank order, sorted by kind with libstdc++'s `std::sort` (see
//! [`crate::cxx_sort`]), at the time their resources free up. This replicates
//! LogGOPSim's scheduling, so the same schedule yields the same per-rank end times.
//!
//! Over a network (the LogGOPSim + InfiniBand thesis's coupling, in the process): a
//! send's message enters the network model at `t + o` instead of arriving at
//! `t + o + L`, and arrives when the model delivers its last byte; the hosts' CPU and
//! NIC costs stay LogGOPS's.
//!
//! OS noise (see [`crate::noise`]) is charged where LogGOPSim charges it: to a send's
//! and an arriving message's overhead `o`, and to a computation, on the CPU's busy time
//! only. The rules take it as a type parameter; without noise ([`Quiet`]) nothing of it
//! is compiled in.
//!
//! Times are LogGOPSim's modular sums. A sum past 2^64 ps ends the run in
//! [`crate::Error::TimeOverflow`]; a sum below zero (an empty message's credit larger
//! than the time) wraps as in LogGOPSim and is an error only if something waits for it
//! or a rank ends on it, rather than a wrapped answer.

use crate::cxx_sort::sort_like_libstdcxx;
use crate::engine::{Core, OpStore, Rules};
use crate::matching::Envelope;
use crate::noise::{Detours, Quiet};
use crate::op::{OpKind, NO_CPU};
use simpi_kernel::{prefetch, IdHashMap, Seq, SimTime};
use simpi_net::HostId;
use simpi_net::{LogGops, NetworkModel, NoNetwork, Token};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A queued event: an op id, with the top bit set for "the message of this send
/// arrives"; or, with the next bit, a CPU or NIC side whose parked events are due.
/// Everything else is found in the op.
#[derive(Copy, Clone)]
pub struct Packed(u64);

const MSG_BIT: u64 = 1 << 63;
const WAKE_BIT: u64 = 1 << 62;
/// With a network: the message of this send enters the network now.
const INJECT_BIT: u64 = 1 << 61;
/// The op id of an event that is not a wake-up.
const OP_MASK: u64 = !(MSG_BIT | INJECT_BIT);

/// The network messages cross, and each rank's host on it.
struct Coupling<N> {
    net: N,
    hosts: Vec<HostId>,
    done: Vec<Token>,
    error: Option<crate::Error>,
}

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
    /// (time, sequence) of the live wake-up entry; other wake-ups for this group are stale.
    wake: Option<(u64, u64)>,
}

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
        let c = if c == NO_CPU { 0 } else { c };
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
        let c = if c == NO_CPU { 0 } else { c };
        &mut self.t[h as usize * self.stride + c as usize]
    }
    #[inline(always)]
    fn gs(&mut self, h: u32, n: u8) -> &mut u64 {
        &mut self.t[h as usize * self.stride + self.cpus + n as usize]
    }
    fn end_time(&self, h: usize) -> SimTime {
        SimTime(
            *self.t[h * self.stride..h * self.stride + self.cpus]
                .iter()
                .max()
                .expect("a rank has a CPU"),
        )
    }
}

/// What a run that waited for, or ended on, a time below zero reports.
pub(crate) const NEGATIVE: &str = "a LogGOPS time went below zero: an empty message credits one byte of O \
     and G, and here that exceeds o (LogGOPSim wraps such a time around the clock; give o at least O \
     and G, or use non-empty messages)";

/// LogGOPSim's rules over the LogGOPS parameters `m`, with OS noise `N`, and messages
/// crossing a network model `W` or, without one, taking `L`.
pub struct LogGopsRules<N: Detours = Quiet, W: NetworkModel = NoNetwork> {
    m: LogGops,
    noise: N,
    coupling: Option<Coupling<W>>,
    timers: Timers,
    /// Parked events by resource group (see [`LogGopsRules::dispatch`]).
    parked: IdHashMap<u64, Parked>,
    scratch: Vec<u32>,
    by_rank: Vec<(u32, u32)>,
    size_mismatches: u64,
    /// Timers holding a time that wrapped below zero (see [`LogGopsRules::set`]).
    wrapped: simpi_kernel::MixHashSet<u64>,
}

impl LogGopsRules {
    /// Rules for `ranks` ranks of `cpus` CPUs and `nics` NICs each, without noise.
    pub fn new(m: LogGops, ranks: u32, cpus: usize, nics: usize) -> LogGopsRules {
        LogGopsRules::build(m, Quiet, None, ranks, cpus, nics)
    }
}

impl<N: Detours> LogGopsRules<N> {
    /// Rules for `ranks` ranks of `cpus` CPUs and `nics` NICs each, with OS noise.
    pub fn with_noise(m: LogGops, ranks: u32, cpus: usize, nics: usize, noise: N) -> LogGopsRules<N> {
        LogGopsRules::build(m, noise, None, ranks, cpus, nics)
    }
}

impl<W: NetworkModel> LogGopsRules<Quiet, W> {
    /// Rules whose messages cross `net`, rank `r` on `hosts[r]` (`L` is not used).
    pub fn over(m: LogGops, net: W, hosts: Vec<HostId>, cpus: usize, nics: usize) -> LogGopsRules<Quiet, W> {
        let ranks = hosts.len() as u32;
        let coupling = Coupling {
            net,
            hosts,
            done: Vec::new(),
            error: None,
        };
        LogGopsRules::build(m, Quiet, Some(coupling), ranks, cpus, nics)
    }
}

impl<N: Detours, W: NetworkModel> LogGopsRules<N, W> {
    fn build(
        m: LogGops,
        noise: N,
        coupling: Option<Coupling<W>>,
        ranks: u32,
        cpus: usize,
        nics: usize,
    ) -> LogGopsRules<N, W> {
        LogGopsRules {
            m,
            noise,
            coupling,
            timers: Timers::new(ranks as usize, cpus, nics),
            parked: IdHashMap::default(),
            scratch: Vec::new(),
            by_rank: Vec::new(),
            size_mismatches: 0,
            wrapped: Default::default(),
        }
    }

    /// `t` plus a true cost, as LogGOPSim's modular sum; a sum past the clock's end is
    /// an overflow. A sum below zero (an empty message's credit larger than the time)
    /// wraps around the clock as in LogGOPSim: see [`LogGopsRules::set`].
    #[inline(always)]
    fn plus<S, E>(core: &mut Core<S, E>, t: u64, cost: i128) -> i128 {
        let v = t as i128 + cost;
        if v >= u64::MAX as i128 {
            core.overflow = true;
            return u64::MAX as i128;
        }
        v
    }

    /// Sets timer `slot` to `v` (from [`LogGopsRules::plus`]). A value below zero is
    /// stored wrapped, as LogGOPSim stores it, and remembered: it matters only if
    /// something waits for it, which [`LogGopsRules::wait`] then refuses.
    #[inline(always)]
    fn set(&mut self, slot: u64, v: i128) {
        self.timers.t[slot as usize] = v as u64;
        if v < 0 {
            self.wrapped.insert(slot);
        } else if !self.wrapped.is_empty() {
            self.wrapped.remove(&slot);
        }
    }

    /// Whether an event at `t` must wait for timer `slot`; waiting for a wrapped time
    /// (see [`LogGopsRules::set`]) ends the run in an error.
    #[inline(always)]
    fn busy<S, E>(&self, core: &mut Core<S, E>, slot: u64, t: u64) -> bool {
        let busy = self.timers.t[slot as usize] > t;
        if busy && !self.wrapped.is_empty() && self.wrapped.contains(&slot) {
            core.overflow = true;
            core.wrapped = true;
        }
        busy
    }

    /// Handles one event popped at `t` with sequence number `seq`; an event that cannot
    /// run yet is parked with the events that need the same resources.
    fn dispatch<S: OpStore>(&mut self, core: &mut Core<S, Packed>, t: u64, seq: u64, ev: Packed) {
        let id = (ev.0 & OP_MASK) as u32;
        let op = *core.store.op(id);
        // The CPU it needs, and the NIC side if any (the slots of their timers).
        let (postponed, cpu, nic) = if ev.0 & MSG_BIT != 0 {
            let (cpu, nic) = (
                self.timers.cpu_slot(op.peer, op.cpu),
                self.timers.gr_slot(op.peer, op.nic),
            );
            (self.arrive(core, t, id), cpu, Some(nic))
        } else {
            let cpu = self.timers.cpu_slot(op.rank, op.cpu);
            let nic = (op.kind == OpKind::Send).then(|| self.timers.gs_slot(op.rank, op.nic));
            let postponed = match op.kind {
                OpKind::Calc => self.calc(core, t, id),
                OpKind::Send => self.send(core, t, id),
                OpKind::Recv => {
                    self.recv(core, t, id);
                    false
                }
            };
            (postponed, cpu, nic)
        };
        if !postponed {
            return;
        }
        // Parked with the events that need the same resources: all of them wait for the
        // same time, so only the oldest needs a wake-up entry.
        let group = cpu << 32 | nic.map_or(0, |n| n + 1);
        self.parked.entry(group).or_default().waiting.push(Reverse((seq, ev.0)));
        self.arm_wake(core, t, group);
    }

    /// When the resources of parked `group` are all free.
    fn group_free(&self, group: u64) -> u64 {
        let cpu = self.timers.t[(group >> 32) as usize];
        match group & 0xffff_ffff {
            0 => cpu,
            n => cpu.max(self.timers.t[n as usize - 1]),
        }
    }

    /// Makes sure `group`'s parked events have a live wake-up entry, at the time their
    /// resources are free (or now) with the smallest parked sequence number; drops the
    /// record of a group with nothing parked.
    fn arm_wake<S>(&mut self, core: &mut Core<S, Packed>, t: u64, group: u64) {
        let free = self.group_free(group);
        let Some(p) = self.parked.get_mut(&group) else { return };
        let Some(&Reverse((first, _))) = p.waiting.peek() else {
            self.parked.remove(&group);
            return;
        };
        let key = (free.max(t), first);
        if p.wake != Some(key) {
            p.wake = Some(key);
            core.queue.reschedule(key.0, Seq(key.1), Packed(group | WAKE_BIT));
        }
    }

    /// A wake-up entry of `group` popped at `t`: serves the first parked event as if it
    /// had been popped itself, then re-arms for the rest.
    fn wake<S: OpStore>(&mut self, core: &mut Core<S, Packed>, t: u64, seq: u64, group: u64) {
        let Some(p) = self.parked.get_mut(&group) else { return };
        if p.wake != Some((t, seq)) {
            return; // stale: superseded by a later wake-up
        }
        p.wake = None;
        let Reverse((first, ev)) = p.waiting.pop().expect("a live wake-up has a parked event");
        debug_assert_eq!(first, seq);
        self.dispatch(core, t, first, Packed(ev));
        self.arm_wake(core, t, group);
    }

    /// A compute op: runs when its CPU is free (else returns true: postponed).
    fn calc<S: OpStore>(&mut self, core: &mut Core<S, Packed>, t: u64, id: u32) -> bool {
        if core.store.has_cancels() && core.store.is_cancel(id) {
            core.cancel(id, t);
            return false;
        }
        let op = *core.store.op(id);
        let cpu = self.timers.cpu_slot(op.rank, op.cpu);
        if self.busy(core, cpu, t) {
            return true;
        }
        let mut cost = op.size as i128;
        if N::ON {
            cost += self.noise.detour(op.rank, t, op.size) as i128;
        }
        let end = Self::plus(core, t, cost);
        self.set(cpu, end);
        core.mark(id, t, t, end as u64);
        core.started(id);
        core.completed(id, t, None);
        false
    }

    /// True if send `id` of `size` bytes is eager: small enough, and not synchronous
    /// (an MPI_Ssend waits for its receive as a rendezvous send does).
    #[inline(always)]
    fn eager<S: OpStore>(store: &S, m: &LogGops, id: u32, size: u64) -> bool {
        m.is_eager(size) && !store.is_synchronous(id)
    }

    /// A send: needs its CPU and its NIC's send side; eager sends complete at once.
    fn send<S: OpStore>(&mut self, core: &mut Core<S, Packed>, t: u64, id: u32) -> bool {
        let op = *core.store.op(id);
        let (cpu, nic) = (
            self.timers.cpu_slot(op.rank, op.cpu),
            self.timers.gs_slot(op.rank, op.nic),
        );
        if self.busy(core, cpu, t) | self.busy(core, nic, t) {
            return true;
        }
        core.started(id);
        let mut cpu_cost = self.m.send_cpu_exact(op.size);
        if N::ON {
            // Over [t, t + o): the per-byte overhead is not exposed to noise.
            cpu_cost += self.noise.detour(op.rank, t, self.m.o) as i128;
        }
        let cpu_end = Self::plus(core, t, cpu_cost);
        let nic_end = Self::plus(core, t, self.m.nic_exact(op.size));
        let arrival = Self::plus(core, t, self.m.flight_exact()) as u64;
        core.mark(id, t, t, cpu_end as u64);
        self.set(cpu, cpu_end);
        self.set(nic, nic_end);
        match &self.coupling {
            None => {
                core.queue.schedule(arrival, Packed(id as u64 | MSG_BIT));
            }
            Some(_) => {
                let inject = Self::plus(core, t, self.m.o as i128) as u64;
                core.queue.schedule(inject, Packed(id as u64 | INJECT_BIT));
            }
        }
        if Self::eager(&core.store, &self.m, id, op.size) {
            core.completed(id, t, None);
        }
        false
    }

    /// A receive: starts at once; completes now if its message already arrived,
    /// otherwise it is posted.
    fn recv<S: OpStore>(&mut self, core: &mut Core<S, Packed>, t: u64, id: u32) {
        let op = *core.store.op(id);
        core.started(id);
        core.mark(id, t, t, t);
        let ctx = core.store.context(id);
        match core.unexpected[op.rank as usize].take(op.peer, op.tag, ctx) {
            Some(msg) => {
                let send = *core.store.op(msg.op);
                self.note_sizes(op.size, send.size);
                core.matched(msg.op, id);
                if !Self::eager(&core.store, &self.m, msg.op, send.size) {
                    // LogGOPSim releases the sender's timers indexed by the *receive's*
                    // CPU and NIC numbers on this path; kept for identical results.
                    self.release_sender(core, t, msg.src, msg.op, op.cpu, op.nic);
                }
                core.delivered(msg.op);
                core.completed(id, t, None);
            }
            None => core.posted[op.rank as usize].push(Envelope {
                src: op.peer,
                tag: op.tag,
                op: id,
                ctx,
            }),
        }
    }

    /// A message reaching its destination: needs the CPU and NIC receive side named by
    /// the send's `cpu`/`nic` fields, then matches a posted receive or waits unexpected.
    fn arrive<S: OpStore>(&mut self, core: &mut Core<S, Packed>, t: u64, id: u32) -> bool {
        let send = *core.store.op(id);
        let host = send.peer;
        let (cpu, nic) = (
            self.timers.cpu_slot(host, send.cpu),
            self.timers.gr_slot(host, send.nic),
        );
        if self.busy(core, cpu, t) | self.busy(core, nic, t) {
            return true;
        }
        let mut cpu_cost = self.m.recv_cpu_exact(send.size);
        if N::ON {
            // The receiver's noise, over [t, t + o) as for a send.
            cpu_cost += self.noise.detour(host, t, self.m.o) as i128;
        }
        let recv_end = Self::plus(core, t, cpu_cost);
        let nic_end = Self::plus(core, t, self.m.nic_exact(send.size));
        self.set(cpu, recv_end);
        self.set(nic, nic_end);
        let recv_end = recv_end as u64;
        let ctx = core.store.context(id);
        match core.posted[host as usize].take(send.rank, send.tag, ctx) {
            Some(r) => {
                self.note_sizes(core.store.op(r.op).size, send.size);
                core.matched(id, r.op);
                if !Self::eager(&core.store, &self.m, id, send.size) {
                    self.release_sender(core, t, send.rank, id, send.cpu, send.nic);
                }
                core.delivered(id);
                core.mark_end(r.op, t, recv_end);
                core.completed(r.op, t, None);
            }
            None => core.unexpected[host as usize].push(Envelope {
                src: send.rank,
                tag: send.tag,
                op: id,
                ctx,
            }),
        }
        false
    }

    /// Completes a rendezvous send on its rank and moves that rank's timers up to now.
    fn release_sender<S: OpStore>(
        &mut self,
        core: &mut Core<S, Packed>,
        t: u64,
        rank: u32,
        send: u32,
        cpu: u8,
        nic: u8,
    ) {
        core.mark_end(send, t, t);
        core.completed(send, t, None);
        let c = self.timers.cpu(rank, cpu);
        *c = (*c).max(t);
        let g = self.timers.gs(rank, nic);
        *g = (*g).max(t);
    }

    fn note_sizes(&mut self, recv: u64, send: u64) {
        if recv != send {
            self.size_mismatches += 1;
        }
    }

    /// Queues enabled operation `id` of rank `h` at the time its resources are free.
    #[inline]
    fn enqueue_one<S: OpStore>(&mut self, core: &mut Core<S, Packed>, id: u32) {
        let op = *core.store.op(id);
        let h = op.rank;
        let cpu = *self.timers.cpu(h, op.cpu);
        let at = match op.kind {
            OpKind::Send => cpu.max(*self.timers.gs(h, op.nic)),
            OpKind::Recv | OpKind::Calc => cpu,
        };
        if !self.wrapped.is_empty() {
            // Queued at a wrapped time: it would run when it says.
            let now = core.now;
            let slots = [self.timers.cpu_slot(h, op.cpu), self.timers.gs_slot(h, op.nic)];
            let n = if op.kind == OpKind::Send { 2 } else { 1 };
            for &slot in &slots[..n] {
                self.busy(core, slot, now);
            }
        }
        core.queue.schedule(at, Packed(id as u64));
    }
}

impl<N: Detours, W: NetworkModel> LogGopsRules<N, W> {
    /// The message of send `id` enters the network at `t`.
    fn inject<S: OpStore>(&mut self, core: &mut Core<S, Packed>, t: u64, id: u32) {
        let op = *core.store.op(id);
        let c = self.coupling.as_mut().expect("injections only happen over a network");
        let (src, dst) = (c.hosts[op.rank as usize], c.hosts[op.peer as usize]);
        if let Err(e) = c.net.start(SimTime(t), src, dst, op.size, id as Token) {
            c.error.get_or_insert(crate::Error::Network(e));
        }
    }
}

impl<S: OpStore, N: Detours, W: NetworkModel> Rules<S> for LogGopsRules<N, W> {
    type Event = Packed;
    /// A rank ends when its CPUs are idle for good.
    const ENDS_AT_LAST_COMPLETION: bool = false;

    /// Joins first pass (what they free takes their place); then ranks in ascending
    /// order, each rank's operations in the order they became ready sorted by kind the
    /// way `std::sort` does, each at the time its resources are next free.
    fn enqueue(&mut self, core: &mut Core<S, Packed>, _t: u64) {
        let mut i = 0;
        while core.store.has_joins() && i < core.ready.len() {
            if core.store.is_join(core.ready[i]) {
                core.pass_join(i);
                continue;
            }
            i += 1;
        }
        match core.ready.len() {
            0 => return,
            1 => {
                let id = core.ready.pop().expect("one");
                self.enqueue_one(core, id);
                return;
            }
            _ => {}
        }
        let mut ready = std::mem::take(&mut core.ready);
        let mut by_rank = std::mem::take(&mut self.by_rank);
        by_rank.clear();
        by_rank.extend(ready.iter().map(|&id| (core.store.op(id).rank, id)));
        if by_rank.iter().any(|&(h, _)| h != by_rank[0].0) {
            by_rank.sort_by_key(|&(h, _)| h); // stable: keeps the order within a rank
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        for group in by_rank.chunk_by(|a, b| a.0 == b.0) {
            scratch.clear();
            scratch.extend(group.iter().map(|&(_, id)| id));
            let store = &core.store;
            sort_like_libstdcxx(&mut scratch, |a, b| store.op(*a).kind < store.op(*b).kind);
            for &id in &scratch {
                self.enqueue_one(core, id);
            }
        }
        ready.clear();
        core.ready = ready;
        self.scratch = scratch;
        self.by_rank = by_rank;
    }

    #[inline(always)]
    fn handle(&mut self, core: &mut Core<S, Packed>, t: u64, seq: Seq, ev: Packed) {
        if ev.0 & WAKE_BIT != 0 {
            self.wake(core, t, seq.0, ev.0 & !WAKE_BIT);
        } else if ev.0 & INJECT_BIT != 0 {
            self.inject(core, t, (ev.0 & OP_MASK) as u32);
        } else {
            self.dispatch(core, t, seq.0, ev);
        }
    }

    #[inline(always)]
    fn network_time(&mut self) -> Option<u64> {
        self.coupling.as_mut()?.net.next_time().map(|t| t.ps())
    }

    /// Messages the network delivered arrive now, in the order it delivered them.
    fn advance_network(&mut self, core: &mut Core<S, Packed>, t: u64) {
        let Some(c) = self.coupling.as_mut() else { return };
        c.net.advance(SimTime(t), &mut c.done);
        for tok in c.done.drain(..) {
            core.queue.schedule(t, Packed(tok | MSG_BIT));
        }
    }

    fn take_error(&mut self) -> Option<crate::Error> {
        self.coupling.as_mut()?.error.take()
    }

    #[inline(always)]
    /// Three hops ahead of the events to come: an event's operation; for an arriving
    /// message, its receiver's queue of posted receives; then the receive it will
    /// most likely match (the oldest posted), whose operation the match completes.
    /// Operations are prefetched with the ones stored after them
    /// ([`OpStore::prefetch_op`]): their likely successors, whose dependency counters
    /// a completion counts down (a miss there cost more than all others together).
    fn prefetch(&self, core: &Core<S, Packed>) {
        if let Some(e) = core.queue.peek_ahead(6) {
            if e.0 & WAKE_BIT == 0 {
                core.store.prefetch_op((e.0 & OP_MASK) as u32);
            }
        }
        if let Some(e) = core.queue.peek_ahead(4) {
            if e.0 & MSG_BIT != 0 {
                prefetch(&core.posted[core.store.op((e.0 & !MSG_BIT) as u32).peer as usize]);
            }
        }
        if let Some(e) = core.queue.peek_ahead(2) {
            if e.0 & MSG_BIT != 0 {
                let q = &core.posted[core.store.op((e.0 & !MSG_BIT) as u32).peer as usize];
                if let Some(first) = q.first() {
                    core.store.prefetch_op(first.op);
                }
            }
        }
    }

    fn end_times(&self, core: &Core<S, Packed>) -> Vec<SimTime> {
        (0..core.store.num_ranks() as usize)
            .map(|h| self.timers.end_time(h))
            .collect()
    }

    fn unexpected_send(&self, core: &Core<S, Packed>, op: u32) -> (u32, bool) {
        (op, Self::eager(&core.store, &self.m, op, core.store.op(op).size))
    }

    fn events(&self, core: &Core<S, Packed>, _processed: u64) -> u64 {
        core.queue.issued()
    }

    fn size_mismatches(&self) -> u64 {
        self.size_mismatches
    }
}
