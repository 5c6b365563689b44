//! The critical path of a run: the chain of operations and messages that sets its
//! makespan, found by walking back from the rank that ends last.
//!
//! The walk starts at the last operation of the rank that ends last (the lowest such
//! rank when several end together) and, at each operation, steps to what it waited for
//! that ended last:
//!
//! - a receive that waited for its peer (it stopped waiting after it started) goes to
//!   the send it matched, on the other rank: the message set its time;
//! - a send that waited for its peer (a rendezvous) goes to the receive that matched it,
//!   and from there on to what that receive's *posting* waited for;
//! - any other operation goes to the operation of its own rank that ended last at or
//!   before it started.
//!
//! A run records operation times and matches, not the schedule's dependencies, so "what
//! it waited for on its rank" is read from the times: the latest operation that had
//! ended when it started. Where a model frees an operation before its predecessor's
//! recorded end (LogGOPS frees a receive's successors when its message arrives, before
//! the receive's CPU overhead ends; such a successor needs no CPU, so it is a receive,
//! and a receive that waits follows its message anyway), the walk takes the latest
//! operation that had ended, and the path shows a gap. The walk visits an operation at
//! most once, so it ends on any input.

use crate::analysis::Span;
use simpi_mpi::{OpKind, OpRecord, NO_MATCH};

/// How a step of the critical path follows the step before it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// The first step: it waited for nothing the run recorded.
    Start,
    /// It started after the step before, on the same rank, ended.
    Rank,
    /// A receive that waited for the message of the step before (its send, on another
    /// rank) of `bytes` bytes.
    Message {
        /// The message's size.
        bytes: u64,
    },
    /// A send that waited for the step before (a receive on another rank) to be posted.
    Posted,
}

/// One operation on the path, as the walk found it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PathOp {
    /// The operation: an index into the records the walk was given.
    pub record: usize,
    /// How it follows the operation before it on the path.
    pub link: Link,
    /// Whether only its start is on the path (a receive whose posting a send waited for).
    pub posted_only: bool,
}

/// One step of the critical path: consecutive operations of one span (an MPI call, or a
/// single operation) on one rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The rank.
    pub rank: u32,
    /// The span of [`crate::Report::spans`] the operations belong to (none for an
    /// operation outside every call).
    pub span: Option<usize>,
    /// The span's label (the call's name), or the operation's kind.
    pub label: String,
    /// The earliest start of its operations on the path, ps (a receive whose posting is
    /// on the path counts its start as its end).
    pub start: u64,
    /// The latest end of its operations on the path, ps.
    pub end: u64,
    /// How it follows the step before it.
    pub link: Link,
}

/// Walks the critical path of a run back from the rank that ends last: the operations
/// on it in time order (earliest first), as indices into `records` (in any order).
/// `end_times` are the ranks' end times (ps); an empty run has an empty path.
pub fn walk(records: &[OpRecord], end_times: &[u64]) -> Vec<PathOp> {
    let done = |i: usize| records[i].end != u64::MAX;
    // Records by (rank, position), to find a matched send.
    let mut by_pos: Vec<usize> = (0..records.len()).filter(|&i| done(i)).collect();
    by_pos.sort_unstable_by_key(|&i| (records[i].rank, records[i].local));
    let find = |rank: u32, local: u64| {
        by_pos
            .binary_search_by_key(&(rank, local), |&i| (records[i].rank, records[i].local))
            .ok()
            .map(|k| by_pos[k])
    };
    // Records by (rank, end, position), to find what ended last before a time.
    let mut by_end = by_pos.clone();
    by_end.sort_unstable_by_key(|&i| (records[i].rank, records[i].end, records[i].local));
    // The receive that matched each send.
    let mut recv_of = vec![usize::MAX; records.len()];
    for (i, r) in records.iter().enumerate() {
        if r.kind == OpKind::Recv && r.matched_send != NO_MATCH && done(i) {
            if let Some(s) = find(r.peer, r.matched_send) {
                recv_of[s] = i;
            }
        }
    }
    // The operation of `rank` that ended last before `bound` = (time, position).
    let before = |rank: u32, bound: (u64, u64)| {
        let from = by_end.partition_point(|&i| records[i].rank < rank);
        let to =
            by_end.partition_point(|&i| (records[i].rank, records[i].end, records[i].local) < (rank, bound.0, bound.1));
        (to > from).then(|| by_end[to - 1])
    };
    let predecessor = |x: &OpRecord| {
        // An empty operation comes after the others that end at its instant only if
        // they come before it in position (so empty operations cannot go round).
        let bound = if x.end > x.start {
            (x.start, u64::MAX)
        } else {
            (x.start, x.local)
        };
        before(x.rank, bound)
    };

    let Some(last_rank) = end_times
        .iter()
        .enumerate()
        .max_by_key(|&(r, &t)| (t, std::cmp::Reverse(r)))
        .map(|(r, _)| r as u32)
    else {
        return Vec::new();
    };
    let first = by_end.partition_point(|&i| records[i].rank <= last_rank);
    let Some(&start_op) = by_end[..first].last().filter(|&&i| records[i].rank == last_rank) else {
        return Vec::new();
    };

    let mut visited = vec![false; records.len()];
    let mut path = Vec::new();
    let mut cur = start_op;
    let mut posted_only = false;
    loop {
        visited[cur] = true;
        let x = &records[cur];
        let mut next = None;
        let mut link = Link::Rank;
        let mut next_posted_only = false;
        if !posted_only && x.ready > x.start {
            match x.kind {
                OpKind::Recv if x.matched_send != NO_MATCH => {
                    if let Some(s) = find(x.peer, x.matched_send).filter(|&s| records[s].start <= x.ready) {
                        next = Some(s);
                        link = Link::Message { bytes: x.size };
                    }
                }
                OpKind::Send => {
                    let r = recv_of[cur];
                    if r != usize::MAX && records[r].start > x.start && records[r].start <= x.ready {
                        next = Some(r);
                        link = Link::Posted;
                        next_posted_only = true;
                    }
                }
                _ => {}
            }
        }
        if next.is_none() {
            next = predecessor(x);
            link = Link::Rank;
        }
        let next = next.filter(|&n| !visited[n]);
        path.push(PathOp {
            record: cur,
            link: if next.is_some() { link } else { Link::Start },
            posted_only,
        });
        match next {
            Some(n) => {
                cur = n;
                posted_only = next_posted_only;
            }
            None => break,
        }
    }
    path.reverse();
    path
}

/// The path's operations grouped into steps: consecutive operations of one span on one
/// rank make one step. `span_of` gives each record's span in `spans` (`usize::MAX`:
/// none). Operations outside every span are left out unless a message or a posting
/// links them to another rank.
pub fn steps(records: &[OpRecord], path: &[PathOp], span_of: &[usize], spans: &[Span]) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for p in path {
        let r = &records[p.record];
        let span = span_of.get(p.record).copied().filter(|&s| s != usize::MAX);
        let end = if p.posted_only { r.start } else { r.end };
        if let Some(last) = out.last_mut() {
            if span.is_some() && last.span == span && last.rank == r.rank {
                last.start = last.start.min(r.start);
                last.end = last.end.max(end);
                continue;
            }
        }
        if span.is_none() && matches!(p.link, Link::Start | Link::Rank) {
            continue;
        }
        let label = match span.and_then(|s| spans.get(s)) {
            Some(s) => s.label.clone(),
            None => match r.kind {
                OpKind::Send => "send".into(),
                OpKind::Recv => "recv".into(),
                OpKind::Calc => "compute".into(),
            },
        };
        out.push(Step {
            rank: r.rank,
            span,
            label,
            start: r.start,
            end,
            link: p.link,
        });
    }
    if let Some(first) = out.first_mut() {
        first.link = Link::Start;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use simpi_mpi::NO_PEER;

    /// A record; `peer`/`matched` as the engine writes them.
    fn op(rank: u32, local: u64, kind: OpKind, times: (u64, u64, u64), peer: u32, matched: u64) -> OpRecord {
        OpRecord {
            rank,
            local,
            kind,
            size: 8,
            start: times.0,
            ready: times.1,
            end: times.2,
            peer,
            tag: 0,
            matched_send: matched,
        }
    }

    fn calc(rank: u32, local: u64, start: u64, end: u64) -> OpRecord {
        op(rank, local, OpKind::Calc, (start, start, end), NO_PEER, NO_MATCH)
    }

    /// The path as (rank, local, link).
    fn chain(records: &[OpRecord], ends: &[u64]) -> Vec<(u32, u64, Link)> {
        walk(records, ends)
            .iter()
            .map(|p| (records[p.record].rank, records[p.record].local, p.link))
            .collect()
    }

    /// Spans with these labels (steps read only their labels).
    fn spans(labels: &[&str]) -> Vec<Span> {
        labels
            .iter()
            .map(|l| Span {
                rank: 0,
                label: l.to_string(),
                start: 0,
                end: 0,
            })
            .collect()
    }

    const MSG: Link = Link::Message { bytes: 8 };

    #[test]
    fn a_three_rank_chain_goes_back_to_the_late_compute() {
        // Rank 0 computes until 1000, then sends to rank 1 (1000..1010). Rank 1 posted
        // its receive at 0; the message arrives at 1015 and it ends at 1020, then sends
        // to rank 2 (1020..1030). Rank 2 computes 0..50, posted its receive at 0 (it does
        // not wait for the compute), which the message reaches at 1035 (end 1040). Rank
        // 2 ends last: its receive waited for rank 1's send, which followed rank 1's
        // receive, which waited for rank 0's send, which followed the compute.
        let records = [
            op(2, 1, OpKind::Recv, (0, 1035, 1040), 1, 1),
            calc(2, 0, 0, 50),
            op(1, 1, OpKind::Send, (1020, 1020, 1030), 2, NO_MATCH),
            op(1, 0, OpKind::Recv, (0, 1015, 1020), 0, 1),
            op(0, 1, OpKind::Send, (1000, 1000, 1010), 1, NO_MATCH),
            calc(0, 0, 0, 1000),
        ];
        assert_eq!(
            chain(&records, &[1010, 1030, 1040]),
            [
                (0, 0, Link::Start),
                (0, 1, Link::Rank),
                (1, 0, MSG),
                (1, 1, Link::Rank),
                (2, 1, MSG)
            ]
        );
    }

    #[test]
    fn a_receive_whose_message_was_there_follows_its_rank() {
        // Rank 1's receive starts at 500, after its compute 0..500, and finds the message
        // of rank 0 (sent 0..10) waiting: it did not wait, its compute set its time.
        let records = [
            op(0, 0, OpKind::Send, (0, 0, 10), 1, NO_MATCH),
            calc(1, 0, 0, 500),
            op(1, 1, OpKind::Recv, (500, 500, 510), 0, 0),
        ];
        assert_eq!(chain(&records, &[10, 510]), [(1, 0, Link::Start), (1, 1, Link::Rank)]);
    }

    #[test]
    fn a_rendezvous_send_follows_the_posting_of_its_receive() {
        // Rank 0 sends from 0 and waits until rank 1 posts the receive at 700 (after its
        // compute 0..700); the transfer ends at 800 and rank 0 computes 800..900. The
        // send waited for the posting, which waited for rank 1's compute.
        let records = [
            op(0, 0, OpKind::Send, (0, 700, 800), 1, NO_MATCH),
            calc(0, 1, 800, 900),
            calc(1, 0, 0, 700),
            op(1, 1, OpKind::Recv, (700, 700, 800), 0, 0),
        ];
        let path = walk(&records, &[900, 800]);
        let got: Vec<(u32, u64, Link, bool)> = path
            .iter()
            .map(|p| (records[p.record].rank, records[p.record].local, p.link, p.posted_only))
            .collect();
        assert_eq!(
            got,
            [
                (1, 0, Link::Start, false),
                (1, 1, Link::Rank, true),
                (0, 0, Link::Posted, false),
                (0, 1, Link::Rank, false)
            ]
        );
        // As steps (one span per operation): the posted receive counts up to its start.
        let span_of = [0, 1, 2, 3];
        let st = steps(
            &records,
            &path,
            &span_of,
            &spans(&["send", "compute", "compute", "recv"]),
        );
        let got: Vec<(u32, &str, u64, u64)> = st.iter().map(|s| (s.rank, s.label.as_str(), s.start, s.end)).collect();
        assert_eq!(
            got,
            [
                (1, "compute", 0, 700),
                (1, "recv", 700, 700),
                (0, "send", 0, 800),
                (0, "compute", 800, 900)
            ]
        );
    }

    #[test]
    fn the_rank_step_takes_what_ended_last_not_what_came_last() {
        // Rank 0: a receive (that matched nothing) runs 0..300, computes run 0..100
        // and 100..250, and one starts at 260. What ended last by 260 is the compute
        // 100..250, not the receive that was posted before it.
        let records = [
            op(0, 0, OpKind::Recv, (0, 0, 300), NO_PEER, NO_MATCH),
            calc(0, 1, 0, 100),
            calc(0, 2, 100, 250),
            calc(0, 3, 260, 400),
        ];
        assert_eq!(
            chain(&records, &[400]),
            [(0, 1, Link::Start), (0, 2, Link::Rank), (0, 3, Link::Rank)]
        );
    }

    #[test]
    fn empty_operations_at_one_instant_do_not_loop() {
        // Three empty operations at 5 and nothing else: each goes to the one before it
        // in position; the walk ends at the first.
        let records = [calc(0, 2, 5, 5), calc(0, 0, 5, 5), calc(0, 1, 5, 5)];
        assert_eq!(
            chain(&records, &[5]),
            [(0, 0, Link::Start), (0, 1, Link::Rank), (0, 2, Link::Rank)]
        );
    }

    #[test]
    fn ties_start_at_the_lowest_last_rank_and_nothing_gives_nothing() {
        let records = [calc(0, 0, 0, 10), calc(1, 0, 0, 10)];
        assert_eq!(chain(&records, &[10, 10]), [(0, 0, Link::Start)]);
        assert!(walk(&[], &[]).is_empty());
        assert!(walk(&records, &[]).is_empty());
        // A rank without records.
        assert!(walk(&records, &[10, 10, 20]).is_empty());
    }

    #[test]
    fn steps_merge_the_operations_of_one_call() {
        // Rank 0's call (span 0) holds a compute and a send; rank 1's receive (span 1)
        // waited for the send.
        let records = [
            calc(0, 0, 0, 100),
            op(0, 1, OpKind::Send, (100, 100, 110), 1, NO_MATCH),
            op(1, 0, OpKind::Recv, (0, 120, 130), 0, 1),
        ];
        let path = walk(&records, &[110, 130]);
        let st = steps(&records, &path, &[0, 0, 1], &spans(&["allreduce", "recv"]));
        assert_eq!(
            st,
            [
                Step {
                    rank: 0,
                    span: Some(0),
                    label: "allreduce".into(),
                    start: 0,
                    end: 110,
                    link: Link::Start
                },
                Step {
                    rank: 1,
                    span: Some(1),
                    label: "recv".into(),
                    start: 0,
                    end: 130,
                    link: MSG
                }
            ]
        );
        // Without spans, only the operations linked across ranks remain.
        let st = steps(&records, &path, &[], &[]);
        let got: Vec<(u32, &str, Link)> = st.iter().map(|s| (s.rank, s.label.as_str(), s.link)).collect();
        assert_eq!(got, [(1, "recv", Link::Start)]);
    }
}
