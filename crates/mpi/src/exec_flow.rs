//! Runs a [`Schedule`] over a flow-level network (the `flow` and `hybrid` models), with
//! SMPI's point-to-point protocol:
//!
//! * a send below the detached threshold occupies its CPU for the overhead `os`, is
//!   posted and completes; a larger one (rendezvous) is posted at once and completes
//!   when its data has arrived;
//! * a message's flow starts when both the send and a matching receive are posted, or at
//!   once for messages below the asynchronous threshold (all messages in the `flow`
//!   model);
//! * a receive completes when its data has arrived, plus the overhead `or` if the sender
//!   was detached.
//!
//! Matching is MPI's (source and tag with wildcards, in posting order). A compute op
//! occupies its CPU. A rank's end time is when its last operation completes.
//!
//! A compute that tests a request (MPI_Test) costs what SMPI's does
//! (`test_costs.rs`).

use crate::exec::OpTime;
use crate::matching::{Envelope, MatchQueue};
use crate::op::{OpId, OpKind, TEST};
use crate::schedule::Schedule;
use crate::stall::{Pending, Stall, StalledRank};
use crate::test_costs::TestCosts;
use crate::{Outcome, Progress, RunStats};
use simpi_kernel::{EventQueue, SimTime};
use simpi_net::{FlowNetwork, HostId, HybridParams, Platform};

/// Why a flow-model run stopped without a result.
#[derive(Debug)]
pub enum FlowError {
    /// Operations remain that can never run.
    Stall(Box<Stall>),
    /// A message between hosts that have no route.
    Route(String),
    /// Simulated time ran past the clock's end (2^64 ps, about 213 days).
    TimeOverflow,
}

#[derive(Copy, Clone)]
enum Ev {
    /// An enabled operation tries to start.
    Start(u32),
    /// A compute op ends.
    CalcDone(u32),
    /// A send has paid its overhead and is posted.
    SendPosted(u32),
    /// A receive completes after its overhead.
    RecvDone(u32),
    /// A test (a compute testing a request) has paid its cost and looks at the request.
    TestDone(u32),
}

/// A message between its posting and its receipt.
#[derive(Default, Clone, Copy)]
struct Message {
    /// The send operation.
    send: u32,
    recv: Option<u32>,
    flow_started: bool,
    arrived: bool,
    detached: bool,
}

struct Run<'a, 'p> {
    sched: &'a mut Schedule,
    net: FlowNetwork<'p>,
    hosts: &'a [HostId],
    cpu: Vec<u64>,
    cpus: usize,
    end: Vec<u64>,
    posted: Vec<MatchQueue>,
    unexpected: Vec<MatchQueue>,
    /// Messages in flight by slot. A slot is its flow's token and, while the message
    /// is unexpected, its envelope's `op`: no lookup by send id is needed.
    messages: Vec<Message>,
    free_slots: Vec<u32>,
    queue: EventQueue<Ev>,
    freed: Vec<u32>,
    ops_done: u64,
    times: Vec<OpTime>,
    tests: TestCosts,
}

/// Simulates `sched` with rank `r` on host `hosts[r]` of `platform` under `params`.
pub fn run_flow(
    sched: &mut Schedule,
    platform: &Platform,
    hosts: &[HostId],
    params: HybridParams,
    mut progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> Result<Outcome, FlowError> {
    sched.begin_run();
    let p = sched.num_ranks() as usize;
    assert!(hosts.len() >= p, "every rank needs a host");
    let cpus = sched.cpus();
    let tests = TestCosts::new(sched.num_ops(), sched.has_tests(), params.grow_test_costs);
    let mut run = Run {
        tests,
        net: FlowNetwork::new(platform, params),
        hosts,
        cpu: vec![0; p * cpus],
        cpus,
        end: vec![0; p],
        posted: vec![MatchQueue::default(); p],
        unexpected: vec![MatchQueue::default(); p],
        messages: Vec::new(),
        free_slots: Vec::new(),
        queue: EventQueue::new(),
        freed: Vec::new(),
        ops_done: 0,
        times: if record {
            vec![OpTime::default(); sched.num_ops()]
        } else {
            Vec::new()
        },
        sched,
    };
    for id in 0..run.sched.num_ops() as u32 {
        if run.sched.dependencies(OpId(id)) == 0 {
            run.queue.schedule(0, Ev::Start(id));
        }
    }
    let mut done = Vec::new();
    let mut processed = 0u64;
    let total = run.sched.num_ops() as u64;
    let result = loop {
        let tq = run.queue.peek_time();
        let tn = run.net.next_time().map(|t| t.ps());
        let t = match (tq, tn) {
            (None, None) => break Ok(()),
            (Some(a), Some(b)) if b <= a => {
                run.net.advance(SimTime(b), &mut done);
                for tok in done.drain(..) {
                    run.arrived(b, tok as u32);
                }
                b
            }
            (None, Some(b)) => {
                run.net.advance(SimTime(b), &mut done);
                for tok in done.drain(..) {
                    run.arrived(b, tok as u32);
                }
                b
            }
            _ => {
                let ev = run.queue.pop().unwrap();
                if let Err(e) = run.handle(ev.time, ev.seq, ev.event) {
                    break Err(e);
                }
                ev.time
            }
        };
        run.enqueue_freed(t);
        processed += 1;
        if processed.is_multiple_of(1 << 20) {
            if let Some(cb) = progress.as_mut() {
                cb(Progress {
                    events: processed,
                    ops_done: run.ops_done,
                    ops_total: total,
                    now: SimTime(t),
                });
            }
        }
    };
    let stats = RunStats {
        events: processed,
        size_mismatches: 0,
    };
    let outcome = match result {
        Err(e) => Err(FlowError::Route(e)),
        Ok(()) if run.end.contains(&u64::MAX) => Err(FlowError::TimeOverflow),
        Ok(()) if run.ops_done == total && run.unexpected.iter().all(|q| q.is_empty()) => Ok(Outcome {
            end_times: run.end.iter().map(|&t| SimTime(t)).collect(),
            stats,
            op_times: std::mem::take(&mut run.times),
        }),
        Ok(()) => Err(FlowError::Stall(Box::new(run.stall(stats)))),
    };
    outcome
}

impl Run<'_, '_> {
    fn handle(&mut self, t: u64, seq: simpi_kernel::Seq, ev: Ev) -> Result<(), String> {
        match ev {
            Ev::Start(id) => {
                let op = *self.sched.op(OpId(id));
                let r = op.rank as usize;
                match op.kind {
                    OpKind::Recv => {
                        self.started(id);
                        self.mark_start(id, t);
                        return self.post_recv(t, id);
                    }
                    OpKind::Calc | OpKind::Send => {
                        let c = r * self.cpus + op.cpu as usize;
                        if self.cpu[c] > t {
                            self.queue.reschedule(self.cpu[c], seq, ev);
                            return Ok(());
                        }
                        self.started(id);
                        self.mark_start(id, t);
                        if op.kind == OpKind::Calc {
                            let tested = if op.flags & TEST != 0 {
                                self.sched.tested_request(OpId(id))
                            } else {
                                None
                            };
                            let (size, done) = match tested.map(|r| self.tests.cost(op.size, r.0)) {
                                None => (op.size, Ev::CalcDone(id)),
                                Some((cost, true)) => (cost, Ev::TestDone(id)),
                                Some((cost, false)) => (cost, Ev::CalcDone(id)),
                            };
                            // Saturates at the clock's end, which the run reports.
                            let end = t.saturating_add(size);
                            self.cpu[c] = end;
                            self.queue.schedule(end, done);
                        } else {
                            // SMPI charges `os` to detached sends only (a blocking rendezvous
                            // MPI_Send pays none).
                            let prm = self.net.params();
                            let detached = prm.eager_all || op.size < prm.detached;
                            let os = if detached {
                                SimTime::from_secs_f64(prm.os.overhead(op.size)).ps()
                            } else {
                                0
                            };
                            self.cpu[c] = t + os;
                            if os == 0 {
                                return self.post_send(t, id);
                            }
                            self.queue.schedule(t + os, Ev::SendPosted(id));
                        }
                    }
                }
            }
            Ev::CalcDone(id) | Ev::RecvDone(id) => self.completed(t, id),
            Ev::TestDone(id) => {
                let r = self.sched.tested_request(OpId(id)).expect("a test").0;
                self.tests.look(r);
                self.completed(t, id);
            }
            Ev::SendPosted(id) => return self.post_send(t, id),
        }
        Ok(())
    }

    fn post_send(&mut self, t: u64, id: u32) -> Result<(), String> {
        let op = *self.sched.op(OpId(id));
        let params = self.net.params();
        let detached = params.eager_all || op.size < params.detached;
        let eager_flow = params.eager_all || op.size < params.async_small;
        if detached {
            self.completed(t, id);
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
        match self.posted[op.peer as usize].take(op.rank, op.tag, self.sched.context(id)) {
            Some(r) => {
                self.mark_ready(r.op, t);
                self.mark_ready(id, t);
                msg.recv = Some(r.op);
                msg.flow_started = true;
            }
            None => {
                self.unexpected[op.peer as usize].push(Envelope {
                    src: op.rank,
                    tag: op.tag,
                    op: slot,
                    ctx: self.sched.context(id),
                });
                msg.flow_started = eager_flow;
            }
        }
        let start = msg.flow_started;
        self.messages[slot as usize] = msg;
        if start {
            self.start_flow(t, slot)?;
        }
        Ok(())
    }

    fn post_recv(&mut self, t: u64, id: u32) -> Result<(), String> {
        let op = *self.sched.op(OpId(id));
        match self.unexpected[op.rank as usize].take(op.peer, op.tag, self.sched.context(id)) {
            Some(m) => {
                let slot = m.op;
                self.mark_ready(id, t);
                self.mark_ready(self.messages[slot as usize].send, t);
                let msg = &mut self.messages[slot as usize];
                msg.recv = Some(id);
                if msg.arrived {
                    self.deliver(t, slot);
                } else if !msg.flow_started {
                    msg.flow_started = true;
                    return self.start_flow(t, slot);
                }
            }
            None => self.posted[op.rank as usize].push(Envelope {
                src: op.peer,
                tag: op.tag,
                op: id,
                ctx: self.sched.context(id),
            }),
        }
        Ok(())
    }

    /// Starts the flow of the message in `slot`.
    fn start_flow(&mut self, t: u64, slot: u32) -> Result<(), String> {
        let op = *self.sched.op(OpId(self.messages[slot as usize].send));
        let (a, b) = (self.hosts[op.rank as usize], self.hosts[op.peer as usize]);
        self.net
            .start(SimTime(t), a, b, op.size, slot as u64)
            .map_err(|e| e.to_string())
    }

    /// The data of the message in `slot` has arrived.
    fn arrived(&mut self, t: u64, slot: u32) {
        let msg = &mut self.messages[slot as usize];
        msg.arrived = true;
        if msg.recv.is_some() {
            self.deliver(t, slot);
        }
    }

    /// Completes the receive of an arrived, matched message (and a rendezvous send), and
    /// frees its slot.
    fn deliver(&mut self, t: u64, slot: u32) {
        let msg = self.messages[slot as usize];
        self.free_slots.push(slot);
        let send = msg.send;
        let recv = msg.recv.expect("delivering an unmatched message");
        // Its data is in: complete for a test, whatever overhead follows.
        self.tests.complete(recv);
        if !msg.detached {
            self.completed(t, send);
        }
        let size = self.sched.op(OpId(send)).size;
        let or = if msg.detached {
            SimTime::from_secs_f64(self.net.params().or.overhead(size)).ps()
        } else {
            0
        };
        if or == 0 {
            self.completed(t, recv);
        } else {
            let r = *self.sched.op(OpId(recv));
            let c = r.rank as usize * self.cpus + r.cpu as usize;
            self.cpu[c] = self.cpu[c].max(t) + or;
            self.queue.schedule(t + or, Ev::RecvDone(recv));
        }
    }

    fn started(&mut self, id: u32) {
        let freed = &mut self.freed;
        self.sched.satisfy(id, false, |s| freed.push(s));
    }

    fn mark_start(&mut self, id: u32, t: u64) {
        if !self.times.is_empty() {
            // `end` stays unset (MAX) until the op completes.
            self.times[id as usize] = OpTime {
                start: t,
                ready: t,
                end: u64::MAX,
            };
        }
    }

    fn mark_ready(&mut self, id: u32, t: u64) {
        if !self.times.is_empty() {
            let e = &mut self.times[id as usize];
            // A detached send is done before it is matched: keep its own times.
            if e.end == u64::MAX {
                e.ready = t.max(e.start);
            }
        }
    }

    fn completed(&mut self, t: u64, id: u32) {
        if !self.times.is_empty() {
            self.times[id as usize].end = t;
        }
        self.tests.complete(id);
        self.ops_done += 1;
        let r = self.sched.rank_of(OpId(id)) as usize;
        self.end[r] = self.end[r].max(t);
        let freed = &mut self.freed;
        self.sched.satisfy(id, true, |s| freed.push(s));
    }

    fn enqueue_freed(&mut self, t: u64) {
        let joins = self.sched.has_joins();
        let mut i = 0;
        while i < self.freed.len() {
            let id = self.freed[i];
            if joins && self.sched.is_join(OpId(id)) {
                self.pass_join(t, i);
                continue;
            }
            self.queue.schedule(t, Ev::Start(id));
            i += 1;
        }
        self.freed.clear();
    }

    /// The join at `freed[i]` is done at `t`: the operations it frees take its place.
    fn pass_join(&mut self, t: u64, i: usize) {
        let id = self.freed[i];
        self.mark_start(id, t);
        let mut freed = std::mem::take(&mut self.freed);
        let tail = freed.split_off(i + 1);
        freed.pop();
        self.freed = freed;
        self.started(id);
        self.completed(t, id);
        self.freed.extend(tail);
    }

    fn stall(&self, stats: RunStats) -> Stall {
        let p = self.sched.num_ranks() as usize;
        let mut pending: Vec<Vec<Pending>> = (0..p)
            .map(|h| {
                self.posted[h]
                    .iter()
                    .map(|e| Pending::PostedRecv { op: OpId(e.op) })
                    .collect()
            })
            .collect();
        for (h, q) in self.unexpected.iter().enumerate() {
            for m in q.iter() {
                // An unexpected envelope's `op` is its message's slot.
                let msg = &self.messages[m.op as usize];
                if msg.detached {
                    pending[h].push(Pending::UnreceivedMessage {
                        send: OpId(msg.send),
                        from: m.src,
                    });
                } else {
                    pending[m.src as usize].push(Pending::RendezvousSend { op: OpId(msg.send) });
                }
            }
        }
        let mut ranks = Vec::new();
        let mut blocked = 0u64;
        for (h, pending) in pending.into_iter().enumerate() {
            let ops = self.sched.rank_ops(h as u32);
            let total = ops.end - ops.start;
            let waiting: Vec<OpId> = ops.map(OpId).filter(|&id| self.sched.dependencies(id) > 0).collect();
            if waiting.is_empty() && pending.is_empty() {
                continue;
            }
            blocked += 1;
            if ranks.len() < Stall::DETAILED {
                let stuck = pending
                    .iter()
                    .filter(|p| !matches!(p, Pending::UnreceivedMessage { .. }))
                    .count() as u32;
                ranks.push(StalledRank {
                    rank: h as u32,
                    done: total.saturating_sub(waiting.len() as u32 + stuck),
                    total,
                    pending,
                    waiting_on_dependencies: waiting,
                });
            }
        }
        Stall {
            end_times: self.end.iter().map(|&t| SimTime(t)).collect(),
            ranks,
            blocked_ranks: blocked,
            stats,
        }
    }
}
