//! SMPI's point-to-point protocol over any [`NetworkModel`] (the `flow`, `hybrid` and
//! `constant` models):
//!
//! * a send below the detached threshold occupies its CPU for the overhead `os`, is
//!   posted and completes; a larger one (rendezvous) is posted at once and completes
//!   when its data has arrived;
//! * a message's transfer starts when both the send and a matching receive are posted,
//!   or at once for messages below the asynchronous threshold (all messages in the
//!   `flow` model);
//! * a receive completes when its data has arrived, plus the overhead `or` if the sender
//!   was detached.
//!
//! Matching is MPI's (source and tag with wildcards, in posting order). A compute op
//! occupies its CPU. A rank's end time is when its last operation completes. A compute
//! that tests a request (MPI_Test) costs what SMPI's does: it sleeps its base cost times
//! a count shared by every rank, then looks at its request; finding it incomplete adds
//! one to the count (`smpi/grow-injected-times`), finding it complete sets the count back
//! to one and leaves a null request, which later tests find at no cost.
//!
//! Ranks that share a pool of cores ([`CpuSharing`]) run their compute, and with
//! `Protocol::cpu_overheads` their overheads and test costs, as tasks of the pool
//! (processor sharing, `engine::cpu`); a rank's tasks on one CPU still run one after
//! the other, in the order they became ready. With `Protocol::stack_per_byte` (and
//! `stack_per_message`), each end
//! on a pool of a message between two hosts also gives the pool the network stack's
//! work, a task of no rank running beside the transfer: the message arrives when the
//! network and those tasks are done. Ranks with CPUs of their own take the path below
//! that needs no pool.

use crate::engine::cpu::{CpuSharing, Pool};
use crate::engine::{Core, OpStore, Rules};
use crate::error::Error;
use crate::matching::Envelope;
use crate::op::{OpKind, NO_CPU};
use crate::protocol::Protocol;
use simpi_kernel::{Seq, SimTime};
use simpi_net::{HostId, NetworkModel, Token};
use std::collections::VecDeque;

/// An event of the SMPI rules.
#[derive(Copy, Clone)]
pub enum Ev {
    /// A ready operation tries to start.
    Start(u32),
    /// A compute op ends.
    CalcDone(u32),
    /// A send has paid its overhead and is posted.
    SendPosted(u32),
    /// A receive completes after its overhead.
    RecvDone(u32),
    /// A test has paid its cost and looks at its request.
    TestDone(u32),
    /// A CPU pool's first task may have ended (pool, generation it was set for).
    CpuWake(u32, u32),
    /// The rank waiting for the message in this slot notices it
    /// ([`Protocol::wake_delay`]).
    Noticed(u32),
}

/// What follows when a task of a CPU pool ends.
#[derive(Copy, Clone)]
enum Then {
    Calc(u32),
    Test(u32),
    SendPosted(u32),
    RecvDone(u32),
    /// The network stack's work for the message in this slot.
    Stack(u32),
}

/// A task running on a CPU pool.
#[derive(Copy, Clone)]
struct Task {
    then: Then,
    /// Its rank, or `NO_RANK` for the network stack's work, which no rank waits on.
    rank: u32,
    /// The rank's CPU it occupies (receive overheads occupy none).
    slot: Option<u32>,
}

/// The rank of a task that belongs to none.
const NO_RANK: u32 = u32::MAX;

/// The state of the ranks that share CPU pools.
#[derive(Default)]
struct Shared {
    sharing: CpuSharing,
    pools: Vec<Pool>,
    tasks: Vec<Task>,
    free_tasks: Vec<u32>,
    /// Per rank: its tasks running.
    rank_tasks: Vec<u32>,
    /// Per rank CPU: occupied, and the operations waiting for it in order.
    slot_busy: Vec<bool>,
    waiting: Vec<VecDeque<u32>>,
}

/// A message between its posting and its receipt.
#[derive(Default, Clone, Copy)]
struct Message {
    /// The send operation.
    send: u32,
    recv: Option<u32>,
    started: bool,
    arrived: bool,
    detached: bool,
    /// Parts of its transfer not yet done: the network's, and the stack work of each
    /// end on a CPU pool.
    parts: u8,
}

/// SMPI's protocol over network `N`, rank `r` on host `hosts[r]`.
pub struct SmpiRules<N> {
    net: N,
    proto: Protocol,
    hosts: Vec<HostId>,
    /// Each rank's CPUs' "busy until" times.
    cpu: Vec<u64>,
    cpus: usize,
    /// Messages in flight by slot. A slot is its transfer's token and, while the
    /// message is unexpected, its envelope's `op`: no lookup by send id is needed.
    messages: Vec<Message>,
    free_slots: Vec<u32>,
    done: Vec<Token>,
    /// SMPI's shared test count.
    test_count: u64,
    shared: Shared,
    error: Option<Error>,
    /// `proto.wake_delay` in picoseconds.
    wake: u64,
    /// Receives matched with a message of another size (the message's size is used).
    size_mismatches: u64,
}

impl<N: NetworkModel> SmpiRules<N> {
    /// The protocol `proto` over `net`, with `cpus` CPUs per rank and rank `r` on
    /// `hosts[r]`.
    pub fn new(net: N, proto: Protocol, hosts: Vec<HostId>, cpus: usize) -> SmpiRules<N> {
        let wake = SimTime::from_secs_f64(proto.wake_delay).ps();
        SmpiRules {
            cpu: vec![0; hosts.len() * cpus],
            net,
            proto,
            hosts,
            cpus,
            messages: Vec::new(),
            free_slots: Vec::new(),
            done: Vec::new(),
            test_count: 1,
            shared: Shared::default(),
            error: None,
            wake,
            size_mismatches: 0,
        }
    }

    /// The same rules with ranks sharing CPU pools as `sharing` says.
    pub fn with_sharing(mut self, sharing: CpuSharing) -> SmpiRules<N> {
        if !sharing.any() {
            return self;
        }
        let ranks = self.hosts.len();
        let mut per_pool = vec![0u64; sharing.cores.len()];
        for r in 0..ranks as u32 {
            if let Some(p) = sharing.pool(r) {
                per_pool[p as usize] += 1;
            }
        }
        self.shared = Shared {
            pools: (sharing.cores.iter().zip(&per_pool))
                .map(|(&c, &n)| Pool::new(c, n, self.proto.busy_wait))
                .collect(),
            rank_tasks: vec![0; ranks],
            slot_busy: vec![false; ranks * self.cpus],
            waiting: vec![VecDeque::new(); ranks * self.cpus],
            sharing,
            ..Shared::default()
        };
        self
    }

    fn fail(&mut self, e: impl Into<Error>) {
        if self.error.is_none() {
            self.error = Some(e.into());
        }
    }

    /// A ready operation starts at `t`, or waits for its CPU.
    fn start<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, seq: Seq, id: u32) {
        let op = *core.store.op(id);
        if core.store.has_cancels() && core.store.is_cancel(id) {
            core.cancel(id, t);
            return;
        }
        if op.kind == OpKind::Recv {
            core.started(id);
            core.mark_start(id, t);
            self.post_recv(core, t, id);
            return;
        }
        if op.cpu == NO_CPU {
            // The NIC serves it: no CPU, no overhead.
            core.started(id);
            core.mark_start(id, t);
            self.post_send(core, t, id);
            return;
        }
        let c = op.rank as usize * self.cpus + op.cpu as usize;
        if let Some(pool) = self.shared.sharing.pool(op.rank) {
            if self.shared.slot_busy[c] {
                self.shared.waiting[c].push_back(id);
            } else {
                self.begin_shared(core, t, id, pool, c as u32);
            }
            return;
        }
        if self.cpu[c] > t {
            core.queue.reschedule(self.cpu[c], seq, Ev::Start(id));
            return;
        }
        core.started(id);
        core.mark_start(id, t);
        if op.kind == OpKind::Calc {
            let (cost, looks) = self.calc_cost(core, id, op.size);
            let done = if looks { Ev::TestDone(id) } else { Ev::CalcDone(id) };
            // Saturates at the clock's end, which the run reports.
            let end = t.saturating_add(cost);
            self.cpu[c] = end;
            core.queue.schedule(end, done);
        } else {
            let os = self.send_overhead(&core.store, id, op.size);
            self.cpu[c] = t.saturating_add(os);
            if os == 0 {
                self.post_send(core, t, id);
            } else {
                core.queue.schedule(t.saturating_add(os), Ev::SendPosted(id));
            }
        }
    }

    /// What compute op `id` of `size` picoseconds costs, and whether it is a test that
    /// looks at its request when paid: a test already found complete costs nothing.
    #[inline]
    fn calc_cost<S: OpStore>(&self, core: &Core<S, Ev>, id: u32, size: u64) -> (u64, bool) {
        if !core.store.is_test(id) {
            (size, false)
        } else if core.store.test_found(id) {
            (0, false)
        } else {
            (size.saturating_mul(self.test_count), true)
        }
    }

    /// True if send `id` of `size` bytes is detached: small enough, and not synchronous
    /// (SMPI never detaches an MPI_Ssend, nor lets it flow before its receive).
    #[inline]
    fn is_detached<S: OpStore>(&self, store: &S, id: u32, size: u64) -> bool {
        self.proto.is_detached(size) && !store.is_synchronous(id)
    }

    /// The overhead of send `id` of `size` bytes, in picoseconds: SMPI charges `os` to
    /// detached sends only (a blocking rendezvous MPI_Send pays none).
    #[inline]
    fn send_overhead<S: OpStore>(&self, store: &S, id: u32, size: u64) -> u64 {
        if self.is_detached(store, id, size) {
            SimTime::from_secs_f64(self.proto.os.overhead(size)).ps()
        } else {
            0
        }
    }

    /// Starts operation `id` (not a receive) of a rank on CPU pool `pool`, its CPU
    /// `slot` free.
    fn begin_shared<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, id: u32, pool: u32, slot: u32) {
        let op = *core.store.op(id);
        core.started(id);
        core.mark_start(id, t);
        let on_cpu = self.proto.cpu_overheads;
        if op.kind == OpKind::Calc {
            let (cost, looks) = self.calc_cost(core, id, op.size);
            let then = if looks { Then::Test(id) } else { Then::Calc(id) };
            match then {
                _ if cost == 0 => {
                    core.queue.schedule(t, Ev::CalcDone(id));
                }
                Then::Test(_) if !on_cpu => {
                    self.shared.slot_busy[slot as usize] = true;
                    core.queue.schedule(t.saturating_add(cost), Ev::TestDone(id));
                }
                _ => self.add_task(core, t, pool, cost, then, op.rank, Some(slot)),
            }
            return;
        }
        let os = self.send_overhead(&core.store, id, op.size);
        if os == 0 {
            self.post_send(core, t, id);
        } else if on_cpu {
            self.add_task(core, t, pool, os, Then::SendPosted(id), op.rank, Some(slot));
        } else {
            self.shared.slot_busy[slot as usize] = true;
            core.queue.schedule(t.saturating_add(os), Ev::SendPosted(id));
        }
    }

    /// Runs `work` picoseconds on `pool` for `rank`, occupying its CPU `slot` if any.
    #[allow(clippy::too_many_arguments)]
    fn add_task<S: OpStore>(
        &mut self,
        core: &mut Core<S, Ev>,
        t: u64,
        pool: u32,
        work: u64,
        then: Then,
        rank: u32,
        slot: Option<u32>,
    ) {
        let sh = &mut self.shared;
        if let Some(s) = slot {
            sh.slot_busy[s as usize] = true;
        }
        let task = Task { then, rank, slot };
        let k = match sh.free_tasks.pop() {
            Some(k) => {
                sh.tasks[k as usize] = task;
                k
            }
            None => {
                sh.tasks.push(task);
                sh.tasks.len() as u32 - 1
            }
        };
        let first = rank != NO_RANK && sh.rank_tasks[rank as usize] == 0;
        if rank != NO_RANK {
            sh.rank_tasks[rank as usize] += 1;
        }
        sh.pools[pool as usize].add(t, work, k, first);
        self.wake(core, pool);
    }

    /// Sets the wake-up of `pool` for its first task's end.
    fn wake<S: OpStore>(&mut self, core: &mut Core<S, Ev>, pool: u32) {
        let p = &self.shared.pools[pool as usize];
        if let Some(end) = p.next_end() {
            core.queue.schedule(end, Ev::CpuWake(pool, p.generation));
        }
    }

    /// `pool`'s tasks that have ended by `t` end, in the order of their ends.
    fn pool_woken<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, pool: u32, generation: u32) {
        if self.shared.pools[pool as usize].generation != generation {
            return; // Set before a later change.
        }
        while let Some(k) = self.shared.pools[pool as usize].pop_ended(t) {
            let task = self.shared.tasks[k as usize];
            self.shared.free_tasks.push(k);
            if task.rank != NO_RANK {
                let n = &mut self.shared.rank_tasks[task.rank as usize];
                *n -= 1;
                if *n == 0 {
                    self.shared.pools[pool as usize].rank_idle();
                }
            }
            match task.then {
                Then::Calc(id) | Then::RecvDone(id) => core.data_in_and_complete(id, t),
                Then::Test(id) => self.test_done(core, t, id),
                Then::SendPosted(id) => self.post_send(core, t, id),
                Then::Stack(slot) => self.part_done(core, t, slot),
            }
            if let Some(s) = task.slot {
                self.release(core, t, pool, s);
            }
        }
        self.wake(core, pool);
    }

    /// CPU `slot` of a rank on `pool` is free at `t`: the operations waiting for it
    /// start, until one occupies it.
    fn release<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, pool: u32, slot: u32) {
        self.shared.slot_busy[slot as usize] = false;
        while !self.shared.slot_busy[slot as usize] {
            let Some(next) = self.shared.waiting[slot as usize].pop_front() else {
                break;
            };
            self.begin_shared(core, t, next, pool, slot);
        }
    }

    /// A sleep (overhead or test cost off the CPU pool) of operation `id` ended: frees
    /// its rank's CPU if the rank is on a pool.
    fn sleep_ended<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, id: u32) {
        let op = *core.store.op(id);
        if let Some(pool) = self.shared.sharing.pool(op.rank) {
            let c = op.rank * self.cpus as u32 + op.cpu as u32;
            self.release(core, t, pool, c);
        }
    }

    /// A test has paid its cost: it looks at its request.
    fn test_done<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, id: u32) {
        if core.store.test_look(id) {
            self.test_count = 1;
        } else if self.proto.grow_test_costs {
            self.test_count += 1;
        }
        core.data_in_and_complete(id, t);
    }

    fn post_send<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, id: u32) {
        let op = *core.store.op(id);
        let detached = self.is_detached(&core.store, id, op.size);
        if detached {
            core.data_in_and_complete(id, t);
        }
        let mut msg = Message {
            send: id,
            detached,
            ..Message::default()
        };
        let slot = match self.free_slots.pop() {
            Some(s) => s,
            None => {
                self.messages.push(Message::default());
                self.messages.len() as u32 - 1
            }
        };
        let ctx = core.store.context(id);
        match core.posted[op.peer as usize].take(op.rank, op.tag, ctx) {
            Some(r) => {
                if core.store.op(r.op).size != op.size {
                    self.size_mismatches += 1;
                }
                core.mark_ready(r.op, t);
                core.mark_ready(id, t);
                core.matched(id, r.op);
                msg.recv = Some(r.op);
                msg.started = true;
            }
            None => {
                core.unexpected[op.peer as usize].push(Envelope {
                    src: op.rank,
                    tag: op.tag,
                    op: slot,
                    ctx,
                });
                msg.started = self.proto.flows_early(op.size) && !core.store.is_synchronous(id);
            }
        }
        let start = msg.started;
        self.messages[slot as usize] = msg;
        if start {
            self.start_transfer(core, t, slot);
        }
    }

    fn post_recv<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, id: u32) {
        let op = *core.store.op(id);
        let ctx = core.store.context(id);
        match core.unexpected[op.rank as usize].take(op.peer, op.tag, ctx) {
            Some(m) => {
                let slot = m.op;
                let send = self.messages[slot as usize].send;
                if core.store.op(send).size != op.size {
                    self.size_mismatches += 1;
                }
                core.mark_ready(id, t);
                core.mark_ready(send, t);
                core.matched(send, id);
                let msg = &mut self.messages[slot as usize];
                msg.recv = Some(id);
                if msg.arrived {
                    self.deliver(core, t, slot);
                } else if !msg.started {
                    msg.started = true;
                    self.start_transfer(core, t, slot);
                }
            }
            None => core.posted[op.rank as usize].push(Envelope {
                src: op.peer,
                tag: op.tag,
                op: id,
                ctx,
            }),
        }
    }

    /// Starts the transfer of the message in `slot`, envelope included, and the stack
    /// work of its ends on CPU pools.
    fn start_transfer<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, slot: u32) {
        let op = *core.store.op(self.messages[slot as usize].send);
        let (a, b) = (self.hosts[op.rank as usize], self.hosts[op.peer as usize]);
        let Some(bytes) = op.size.checked_add(self.proto.envelope) else {
            return self.fail(Error::TimeOverflow);
        };
        self.messages[slot as usize].parts = 1;
        if let Err(e) = self.net.start(SimTime(t), a, b, bytes, slot as u64) {
            self.fail(e);
        }
        // Ranks of one host exchange through memory, not a network stack.
        let p = &self.proto;
        if (p.stack_per_byte > 0.0 || p.stack_per_message > 0.0) && self.shared.sharing.any() && a != b {
            let work = SimTime::from_secs_f64(p.stack_per_message + p.stack_per_byte * bytes as f64).ps();
            for end in [op.rank, op.peer] {
                if let Some(pool) = self.shared.sharing.pool(end) {
                    self.messages[slot as usize].parts += 1;
                    self.add_task(core, t, pool, work, Then::Stack(slot), NO_RANK, None);
                }
            }
        }
    }

    /// A part of the transfer of the message in `slot` is done; the last makes it arrive.
    fn part_done<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, slot: u32) {
        let msg = &mut self.messages[slot as usize];
        msg.parts -= 1;
        if msg.parts == 0 {
            self.arrived(core, t, slot);
        }
    }

    /// The data of the message in `slot` has arrived: a posted receive completes, after
    /// the wake-up delay on a rank that shares its cores (and a rendezvous or
    /// synchronous send with it: its receiver answers once it has noticed).
    fn arrived<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, slot: u32) {
        let msg = &mut self.messages[slot as usize];
        msg.arrived = true;
        let Some(recv) = msg.recv else { return };
        // A one-sided target's request is served by its NIC: no rank has to notice it.
        let r = core.store.op(recv);
        if self.wake == 0 || r.cpu == NO_CPU || self.shared.sharing.pool(r.rank).is_none() {
            return self.deliver(core, t, slot);
        }
        match t.checked_add(self.wake) {
            Some(at) => {
                core.queue.schedule(at, Ev::Noticed(slot));
            }
            None => self.fail(Error::TimeOverflow),
        }
    }

    /// Completes the receive of an arrived, matched message (and a rendezvous send), and
    /// frees its slot.
    fn deliver<S: OpStore>(&mut self, core: &mut Core<S, Ev>, t: u64, slot: u32) {
        let msg = self.messages[slot as usize];
        self.free_slots.push(slot);
        let send = msg.send;
        let recv = msg.recv.expect("delivering an unmatched message");
        let size = core.store.op(send).size;
        // Its data is in: complete for a test, whatever overhead follows.
        core.store.data_in(recv);
        if !msg.detached {
            core.data_in_and_complete(send, t);
        }
        core.delivered(send);
        let or = if msg.detached && core.store.op(recv).cpu != NO_CPU {
            SimTime::from_secs_f64(self.proto.or.overhead(size)).ps()
        } else {
            0
        };
        if or == 0 {
            core.data_in_and_complete(recv, t);
        } else if let (Some(pool), true) = (
            self.shared.sharing.pool(core.store.op(recv).rank),
            self.proto.cpu_overheads,
        ) {
            let rank = core.store.op(recv).rank;
            self.add_task(core, t, pool, or, Then::RecvDone(recv), rank, None);
        } else {
            let r = *core.store.op(recv);
            let c = r.rank as usize * self.cpus + r.cpu as usize;
            let end = self.cpu[c].max(t).saturating_add(or);
            self.cpu[c] = end;
            core.queue.schedule(t.saturating_add(or), Ev::RecvDone(recv));
        }
    }
}

impl<S: OpStore, E> Core<S, E> {
    /// Operation `id` completed at `t`, which also makes it complete for tests.
    #[inline(always)]
    pub(crate) fn data_in_and_complete(&mut self, id: u32, t: u64) {
        self.store.data_in(id);
        self.completed(id, t, Some(t));
    }
}

impl<S: OpStore, N: NetworkModel> Rules<S> for SmpiRules<N> {
    type Event = Ev;
    const ENDS_AT_LAST_COMPLETION: bool = true;

    /// Joins pass (what they free takes their place); every other ready operation tries
    /// to start at `t`, in the order it became ready.
    fn enqueue(&mut self, core: &mut Core<S, Ev>, t: u64) {
        let joins = core.store.has_joins();
        let mut i = 0;
        while i < core.ready.len() {
            let id = core.ready[i];
            if joins && core.store.is_join(id) {
                core.pass_join(i);
                continue;
            }
            core.queue.schedule(t, Ev::Start(id));
            i += 1;
        }
        core.ready.clear();
    }

    fn handle(&mut self, core: &mut Core<S, Ev>, t: u64, seq: Seq, ev: Ev) {
        match ev {
            Ev::Start(id) => self.start(core, t, seq, id),
            Ev::CalcDone(id) | Ev::RecvDone(id) => core.data_in_and_complete(id, t),
            Ev::TestDone(id) => {
                self.test_done(core, t, id);
                self.sleep_ended(core, t, id);
            }
            Ev::SendPosted(id) => {
                self.post_send(core, t, id);
                self.sleep_ended(core, t, id);
            }
            Ev::CpuWake(pool, generation) => self.pool_woken(core, t, pool, generation),
            Ev::Noticed(slot) => self.deliver(core, t, slot),
        }
    }

    #[inline(always)]
    fn network_time(&mut self) -> Option<u64> {
        self.net.next_time().map(|t| t.ps())
    }

    fn advance_network(&mut self, core: &mut Core<S, Ev>, t: u64) {
        let mut done = std::mem::take(&mut self.done);
        self.net.advance(SimTime(t), &mut done);
        for tok in done.drain(..) {
            self.part_done(core, t, tok as u32);
        }
        self.done = done;
    }

    fn size_mismatches(&self) -> u64 {
        self.size_mismatches
    }

    fn take_error(&mut self) -> Option<Error> {
        self.error.take()
    }

    fn end_times(&self, core: &Core<S, Ev>) -> Vec<SimTime> {
        core.last_completion.iter().map(|&t| SimTime(t)).collect()
    }

    fn unexpected_send(&self, _core: &Core<S, Ev>, slot: u32) -> (u32, bool) {
        let msg = &self.messages[slot as usize];
        (msg.send, msg.detached)
    }
}
