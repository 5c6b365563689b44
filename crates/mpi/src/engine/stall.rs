//! The report of a simulation that cannot finish: which ranks are stuck and on what.

use crate::engine::RunStats;
use crate::op::OpId;
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
    /// Where the rank's program stands (a trace's file and line), if the store knows.
    pub program_at: Option<String>,
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

    /// A human-readable report of at most `max_ranks` ranks. `describe` says what an
    /// operation is and, if it can, where the user finds it (e.g. `file.goal:12`).
    pub fn render(&self, max_ranks: usize, describe: &dyn Fn(OpId) -> String) -> String {
        let mut out = String::new();
        let last = self.end_times.iter().max().copied().unwrap_or_default();
        let _ = writeln!(
            out,
            "the schedule cannot complete: {} rank(s) are blocked (stopped after {} events at simulated time {last})",
            self.blocked_ranks, self.stats.events
        );
        for r in self.ranks.iter().take(max_ranks) {
            let _ = writeln!(out, "  rank {}: {} of {} operations done", r.rank, r.done, r.total);
            if let Some(at) = &r.program_at {
                let _ = writeln!(out, "    its program is blocked in {at}");
            }
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
