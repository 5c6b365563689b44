//! The report of a simulation that cannot finish: which ranks are stuck and on what.

use crate::op::{show_wild, OpId, OpKind};
use crate::schedule::Schedule;
use crate::RunStats;
use simpi_kernel::SimTime;
use std::fmt::Write;

/// An operation that can never complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// A posted receive that no message matched.
    PostedRecv {
        /// The receive.
        op: OpId,
    },
    /// A rendezvous send whose message reached its destination but matched no receive.
    RendezvousSend {
        /// The send.
        op: OpId,
    },
    /// An eager message that arrived but that no receive ever took.
    UnreceivedMessage {
        /// The send that produced it.
        send: OpId,
        /// The sending rank.
        from: u32,
    },
}

/// One rank that did not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StalledRank {
    /// The rank.
    pub rank: u32,
    /// Operations it completed.
    pub done: u32,
    /// Operations it has.
    pub total: u32,
    /// Started operations that are stuck, and messages left unreceived.
    pub pending: Vec<Pending>,
    /// Operations that never started because a dependency never completed.
    pub waiting_on_dependencies: Vec<OpId>,
}

/// Everything known about a run that stopped with work left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    /// Per-rank time at which the run stopped.
    pub end_times: Vec<SimTime>,
    /// The first [`Stall::DETAILED`] ranks that did not finish, in rank order.
    pub ranks: Vec<StalledRank>,
    /// How many ranks did not finish in all.
    pub blocked_ranks: u64,
    /// Counters of the run.
    pub stats: RunStats,
}

impl Stall {
    /// How many blocked ranks a report describes in detail.
    pub const DETAILED: usize = 64;

    /// A human-readable report of at most `max_ranks` ranks. `locate` turns an op into
    /// a place the user can find (e.g. `file.goal:12`), if it can.
    pub fn render(&self, sched: &Schedule, max_ranks: usize, locate: &dyn Fn(OpId) -> Option<String>) -> String {
        let mut out = String::new();
        let last = self.end_times.iter().max().copied().unwrap_or_default();
        let _ = writeln!(
            out,
            "the schedule cannot complete: {} rank(s) are blocked (stopped after {} events at simulated time {last})",
            self.blocked_ranks, self.stats.events
        );
        let describe = |id: OpId| {
            let op = sched.op(id);
            let what = match op.kind {
                OpKind::Send => {
                    format!("send {}b to {} tag {}", op.size, op.peer, show_wild(op.tag))
                }
                OpKind::Recv => format!(
                    "recv {}b from {} tag {}",
                    op.size,
                    show_wild(op.peer),
                    show_wild(op.tag)
                ),
                OpKind::Calc => format!("calc {}", op.size),
            };
            match locate(id) {
                Some(at) => format!("{what} ({at})"),
                None => format!(
                    "{what} (operation #{} of rank {})",
                    sched.local_index(id),
                    sched.rank_of(id)
                ),
            }
        };
        for r in self.ranks.iter().take(max_ranks) {
            let _ = writeln!(out, "  rank {}: {} of {} operations done", r.rank, r.done, r.total);
            for p in &r.pending {
                let line = match p {
                    Pending::PostedRecv { op } => {
                        format!("waiting for a matching message: {}", describe(*op))
                    }
                    Pending::RendezvousSend { op } => {
                        format!("rendezvous send never received: {}", describe(*op))
                    }
                    Pending::UnreceivedMessage { send, from } => {
                        format!(
                            "message from rank {from} arrived but was never received: {}",
                            describe(*send)
                        )
                    }
                };
                let _ = writeln!(out, "    {line}");
            }
            if let Some(first) = r.waiting_on_dependencies.first() {
                let _ = writeln!(
                    out,
                    "    {} operation(s) never started because a dependency never completed, first: {}",
                    r.waiting_on_dependencies.len(),
                    describe(*first)
                );
            }
        }
        let shown = self.ranks.len().min(max_ranks) as u64;
        if self.blocked_ranks > shown {
            let _ = writeln!(out, "  ... and {} more blocked rank(s)", self.blocked_ranks - shown);
        }
        out
    }
}
