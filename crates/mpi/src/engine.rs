//! The engine: one event loop that runs operations from an [`OpStore`] under a set of
//! execution [`Rules`] (LogGOPSim's LogGOPS semantics, or SMPI's protocol over any
//! [`simpi_net::NetworkModel`]).
//!
//! The loop, the bookkeeping of what became ready, joins, completion counts, recorded
//! times, progress, the end-of-run check and the stall report are written once, here
//! and in [`Core`]; a rule set says what an operation costs and how messages meet.
//!
//! Order is everything: events are ordered by (time, sequence); within one event the
//! operations that become ready are handed to the rules in the order the store freed
//! them, and the rules queue them in their own documented order. Stores must free in
//! the order dependencies were declared; the live store does so by creating a rank's
//! next operations at the moment its program may continue.

pub(crate) mod core;
pub mod cpu;
pub mod loggops;
pub mod record;
pub mod smpi;
mod stall;
pub mod store;

pub use self::core::Core;
pub use record::{CallRecord, OpRecord, OpTime, NO_MATCH, NO_PEER};
pub use stall::{Pending, Stall, StalledRank};
pub use store::{OpStore, ScheduleStore};

use crate::error::Error;
use simpi_kernel::{Seq, SimTime};

/// What a finished run reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// When each rank finished: its CPUs idle for good (LogGOPS), or its last
    /// operation completed (SMPI rules).
    pub end_times: Vec<SimTime>,
    /// Counters of the run.
    pub stats: RunStats,
    /// One record per operation, in completion order; empty unless the run was asked
    /// to record.
    pub records: Vec<OpRecord>,
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
    /// Events processed (LogGOPS: scheduled, LogGOPSim's count: one per operation plus
    /// one per message).
    pub events: u64,
    /// Receives matched to a message of another size (the message size is used).
    pub size_mismatches: u64,
    /// Operations created over the run.
    pub ops: u64,
}

/// Progress of a running simulation, passed to the progress callback.
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    /// Events so far.
    pub events: u64,
    /// Operations completed so far.
    pub ops_done: u64,
    /// Operations created so far (all of them, for a whole schedule).
    pub ops_total: u64,
    /// Current simulated time.
    pub now: SimTime,
}

/// How often the progress callback runs, in processed events.
const PROGRESS_EVERY: u64 = 1 << 20;

/// What a rule set does with the engine's events. The engine calls [`Rules::enqueue`]
/// whenever operations became ready, [`Rules::handle`] for each queued event, and the
/// network methods to interleave the network's own events (a network event at the
/// same time as a queued one goes first).
pub trait Rules<S: OpStore>: Sized {
    /// A queued event.
    type Event: Copy;
    /// Whether a rank's end time is its last completion ([`Core::last_completion`],
    /// kept only then: one write per completion on the hot path).
    const ENDS_AT_LAST_COMPLETION: bool;
    /// Queues the operations in `core.ready`, which became ready at `t`, and empties it.
    fn enqueue(&mut self, core: &mut Core<S, Self::Event>, t: u64);
    /// Handles an event popped at `t` with sequence `seq`.
    fn handle(&mut self, core: &mut Core<S, Self::Event>, t: u64, seq: Seq, ev: Self::Event);
    /// A hint before handling: the event after next is about to be needed.
    #[inline(always)]
    fn prefetch(&self, _core: &Core<S, Self::Event>) {}
    /// When the network next needs to run, if it has work.
    #[inline(always)]
    fn network_time(&mut self) -> Option<u64> {
        None
    }
    /// Runs the network to `t` (its [`Rules::network_time`]) and handles what arrived.
    fn advance_network(&mut self, _core: &mut Core<S, Self::Event>, _t: u64) {}
    /// An error the rules met while handling (the run stops there).
    fn take_error(&mut self) -> Option<Error> {
        None
    }
    /// Each rank's end time.
    fn end_times(&self, core: &Core<S, Self::Event>) -> Vec<SimTime>;
    /// The send an unexpected envelope stands for, and whether its sender is free of it
    /// (an eager or detached message: the receiver is the one blocked).
    fn unexpected_send(&self, core: &Core<S, Self::Event>, op: u32) -> (u32, bool);
    /// Events counted for [`RunStats::events`], given the number processed.
    fn events(&self, core: &Core<S, Self::Event>, processed: u64) -> u64 {
        let _ = core;
        processed
    }
    /// Receives matched to messages of another size.
    fn size_mismatches(&self) -> u64 {
        0
    }
}

/// Where a run stands after [`Engine::run`] returns.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Nothing is left to do: call [`Engine::finish`].
    Finished,
    /// The store asked to pause (a driver's rank may continue): post its calls, then
    /// call [`Engine::run`] again.
    Paused,
}

/// A run in progress: the state, the rules, and the progress callback.
pub struct Engine<'p, S: OpStore, R: Rules<S>> {
    core: Core<S, R::Event>,
    rules: R,
    progress: Option<&'p mut dyn FnMut(Progress)>,
    processed: u64,
    started: bool,
}

impl<'p, S: OpStore, R: Rules<S>> Engine<'p, S, R> {
    /// An engine over `store` under `rules`; `record` keeps an [`OpRecord`] of every
    /// operation.
    pub fn new(store: S, rules: R, progress: Option<&'p mut dyn FnMut(Progress)>, record: bool) -> Self {
        Engine {
            core: Core::new(store, record, R::ENDS_AT_LAST_COMPLETION),
            rules,
            progress,
            processed: 0,
            started: false,
        }
    }

    /// The state (the store, for a driver posting calls).
    pub fn core(&mut self) -> &mut Core<S, R::Event> {
        &mut self.core
    }

    /// Hands the operations a driver's calls made ready to the rules.
    pub fn flush_ready(&mut self) {
        if !self.core.ready.is_empty() {
            let t = self.core.now;
            self.rules.enqueue(&mut self.core, t);
        }
    }

    /// Whether nothing is pending: no event and no transfer in the network.
    pub fn idle(&mut self) -> bool {
        self.core.queue.peek_time().is_none() && self.rules.network_time().is_none()
    }

    /// Runs until nothing is left to do, the store asks to pause, or an error.
    pub fn run(&mut self) -> Result<RunStatus, Error> {
        if !self.started {
            self.started = true;
            for r in 0..self.core.store.num_ranks() {
                self.core.store.begin_rank(r, 0, &mut self.core.ready);
                self.rules.enqueue(&mut self.core, 0);
                if let Some(e) = self.core.store.take_error() {
                    return Err(e);
                }
            }
            if self.core.store.should_pause() {
                return Ok(RunStatus::Paused);
            }
        } else {
            self.flush_ready();
        }
        loop {
            let tn = self.rules.network_time();
            let t = match (self.core.queue.peek_time(), tn) {
                (None, None) => return Ok(RunStatus::Finished),
                (q, Some(b)) if q.is_none_or(|a| b <= a) => {
                    self.core.now = b;
                    self.rules.advance_network(&mut self.core, b);
                    b
                }
                _ => {
                    self.rules.prefetch(&self.core);
                    let ev = self.core.queue.pop().expect("peeked");
                    self.core.now = ev.time;
                    self.rules.handle(&mut self.core, ev.time, ev.seq, ev.event);
                    ev.time
                }
            };
            // Nothing that happens at the clock's end can be timed: stop there (an
            // event put off to the end may be put off again, for ever).
            if t == u64::MAX {
                return Err(Error::TimeOverflow);
            }
            if !self.core.ready.is_empty() {
                self.rules.enqueue(&mut self.core, t);
            }
            if let Some(e) = self.rules.take_error().or_else(|| self.core.store.take_error()) {
                return Err(e);
            }
            self.processed += 1;
            if self.processed.is_multiple_of(PROGRESS_EVERY) {
                if let Some(cb) = self.progress.as_mut() {
                    cb(Progress {
                        events: self.rules.events(&self.core, self.processed),
                        ops_done: self.core.ops_done,
                        ops_total: self.core.store.created(),
                        now: SimTime(t),
                    });
                }
            }
            if self.core.store.should_pause() {
                return Ok(RunStatus::Paused);
            }
        }
    }

    /// The result of a finished run: end times, or the report of what is stuck.
    pub fn finish(&mut self) -> Result<Outcome, Error> {
        let end_times = self.rules.end_times(&self.core);
        let stats = RunStats {
            events: self.rules.events(&self.core, self.processed),
            size_mismatches: self.rules.size_mismatches(),
            ops: self.core.store.created(),
        };
        if self.core.wrapped {
            return Err(Error::BadParameter(loggops::NEGATIVE.into()));
        }
        if self.core.overflow || end_times.iter().any(|t| t.ps() == u64::MAX) {
            return Err(Error::TimeOverflow);
        }
        if let Some(e) = self.rules.take_error() {
            return Err(e);
        }
        let complete = self.core.ops_done == self.core.store.created()
            && self.core.store.programs_done()
            && self.core.unexpected.iter().all(|q| q.is_empty());
        if complete {
            let records = self.core.rec.take().map(|r| r.records).unwrap_or_default();
            Ok(Outcome {
                end_times,
                stats,
                records,
            })
        } else {
            Err(Error::Stall(Box::new(self.stall_report(end_times, stats))))
        }
    }

    /// The store (to describe the operations of a stall report, or to read what its
    /// programs gathered).
    pub fn store(&self) -> &S {
        &self.core.store
    }

    /// The store, once the run is over.
    pub fn into_store(self) -> S {
        self.core.store
    }

    /// Runs to the end: [`Engine::run`] (resuming through pauses) then [`Engine::finish`].
    pub fn run_to_end(&mut self) -> Result<Outcome, Error> {
        while self.run()? == RunStatus::Paused {}
        self.finish()
    }

    fn stall_report(&self, end_times: Vec<SimTime>, stats: RunStats) -> Stall {
        let core = &self.core;
        let p = core.store.num_ranks() as usize;
        let mut pending: Vec<Vec<Pending>> = (0..p)
            .map(|h| {
                core.posted[h]
                    .iter()
                    .map(|e| Pending::PostedRecv { op: crate::OpId(e.op) })
                    .collect()
            })
            .collect();
        for (h, q) in core.unexpected.iter().enumerate() {
            for m in q.iter() {
                let (send, sender_free) = self.rules.unexpected_send(core, m.op);
                if sender_free {
                    pending[h].push(Pending::UnreceivedMessage {
                        send: crate::OpId(send),
                        from: m.src,
                    });
                } else {
                    pending[m.src as usize].push(Pending::RendezvousSend { op: crate::OpId(send) });
                }
            }
        }
        let mut ranks = Vec::new();
        let mut blocked = 0u64;
        for (h, pending) in pending.into_iter().enumerate() {
            let (waiting, total, program_at) = core.store.stalled(h as u32);
            if waiting.is_empty() && pending.is_empty() && program_at.is_none() {
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
                    program_at,
                });
            }
        }
        Stall {
            end_times,
            ranks,
            blocked_ranks: blocked,
            stats,
        }
    }
}
