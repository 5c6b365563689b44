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

    /// How many lines of stuck operations a report shows per rank.
    pub const PENDING_SHOWN: usize = 8;

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
            // Consecutive lines alike are told once, with their count; past a few lines
            // the rest are counted (a rank may have a million unreceived messages).
            let mut shown: Vec<(String, usize)> = Vec::new();
            let mut rest = 0usize;
            for p in &r.pending {
                if rest > 0 {
                    rest += 1;
                    continue;
                }
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
                let full = shown.len() == Self::PENDING_SHOWN;
                match shown.last_mut() {
                    Some((last, n)) if *last == line => *n += 1,
                    _ if full => rest = 1,
                    _ => shown.push((line, 1)),
                }
            }
            for (line, n) in shown {
                match n {
                    1 => writeln!(out, "    {line}"),
                    n => writeln!(out, "    {line} (and {} more alike)", n - 1),
                }
                .unwrap_or(());
            }
            if rest > 0 {
                let _ = writeln!(
                    out,
                    "    ... and {rest} more stuck operation(s) or unreceived message(s)"
                );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue16_a_rank_with_many_stuck_operations_gets_a_short_report() {
        // A million unreceived messages alike from rank 0, then twenty different receives.
        let mut pending: Vec<Pending> = (0..1_000_000)
            .map(|_| Pending::UnreceivedMessage { send: OpId(7), from: 0 })
            .collect();
        pending.extend((0..20).map(|i| Pending::PostedRecv { op: OpId(100 + i) }));
        let stall = Stall {
            end_times: vec![SimTime::ZERO; 2],
            ranks: vec![StalledRank {
                rank: 1,
                done: 0,
                total: 21,
                pending,
                waiting_on_dependencies: Vec::new(),
                program_at: None,
            }],
            blocked_ranks: 1,
            stats: RunStats::default(),
        };
        let report = stall.render(10, &|id| format!("op {}", id.0));
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(
            lines[2],
            "    message from rank 0 arrived but was never received: op 7 (and 999999 more alike)"
        );
        // Seven receives more make eight lines; the thirteen others are counted.
        assert_eq!(lines[3], "    waiting for a matching message: op 100");
        assert_eq!(lines[9], "    waiting for a matching message: op 106");
        assert_eq!(
            lines[10],
            "    ... and 13 more stuck operation(s) or unreceived message(s)"
        );
        assert_eq!(lines.len(), 11);
    }
}
