//! Where the time went: per-rank compute / communication / waiting / idle, and per-call
//! statistics, from the operation times a recorded run produces.

use crate::timeline::{Flow, Message, MessageKind};
use simpi_mpi::{CallRecord, OpKind, OpRecord, NO_MATCH, NO_PEER};
use std::collections::BTreeMap;
use std::ops::Range;

/// How one rank spent its time until its end, in picoseconds. Overlaps are attributed
/// to the first category that applies: compute, then communication, then waiting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankBreakdown {
    /// Computing (compute operations).
    pub compute: u64,
    /// Moving data (a send or receive whose peer was ready).
    pub comm: u64,
    /// In a send or receive, waiting for its peer.
    pub wait: u64,
    /// None of the above (waiting for nothing the schedule shows).
    pub idle: u64,
}

/// Statistics of one kind of MPI call (or operation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallStat {
    /// The call's name.
    pub name: String,
    /// How many times it was called (over all ranks).
    pub count: u64,
    /// Total time in it over all ranks, ps (128 bits: over many ranks it may pass the
    /// 2^64 ps one rank's clock holds).
    pub total: u128,
    /// Longest single call, ps.
    pub max: u64,
}

/// A span of a timeline: `label` on `rank` from `start` to `end` (ps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The rank.
    pub rank: u32,
    /// What it was doing.
    pub label: String,
    /// Start, ps.
    pub start: u64,
    /// End, ps.
    pub end: u64,
}

/// The MPI calls of a run: the trace's call records, or one call per operation.
/// `records` are sorted here by rank and position.
pub fn spans(records: &mut [OpRecord], calls: Option<&[CallRecord]>) -> Vec<Span> {
    spans_of_ops(records, calls).0
}

/// [`spans`], with the range of (sorted) `records` each span covers.
fn spans_of_ops(records: &mut [OpRecord], calls: Option<&[CallRecord]>) -> (Vec<Span>, Vec<Range<usize>>) {
    records.sort_unstable_by_key(|r| (r.rank, r.local));
    let mut out = Vec::new();
    let mut ranges = Vec::new();
    match calls {
        Some(calls) => {
            for c in calls {
                let from = records.partition_point(|r| (r.rank, r.local) < (c.rank, c.first));
                let to = records.partition_point(|r| (r.rank, r.local) < (c.rank, c.end));
                let ops = &records[from..to];
                let start = ops.iter().map(|r| r.start).min().unwrap_or(0);
                let end = ops
                    .iter()
                    .map(|r| r.end)
                    .filter(|&e| e != u64::MAX)
                    .max()
                    .unwrap_or(start);
                out.push(Span {
                    rank: c.rank,
                    label: c.name.to_string(),
                    start,
                    end: end.max(start),
                });
                ranges.push(from..to);
            }
        }
        None => {
            for (i, r) in records.iter().enumerate() {
                if r.kind == OpKind::Calc && r.size == 0 {
                    continue; // joins and empty computes
                }
                let label = match r.kind {
                    OpKind::Send => "send",
                    OpKind::Recv => "recv",
                    OpKind::Calc => "compute",
                };
                out.push(Span {
                    rank: r.rank,
                    label: label.into(),
                    start: r.start,
                    end: r.end.max(r.start),
                });
                ranges.push(i..i + 1);
            }
        }
    }
    (out, ranges)
}

/// The spans of a run, what each one's message was (a span of exactly one send or
/// receive has one), and an arrow from each send's span to the span of the receive it
/// matched.
pub fn spans_and_messages(
    records: &mut [OpRecord],
    calls: Option<&[CallRecord]>,
) -> (Vec<Span>, Vec<Option<Message>>, Vec<Flow>) {
    let (spans, messages, flows, _) = spans_messages_owners(records, calls);
    (spans, messages, flows)
}

/// [`spans_and_messages`], with the span each (sorted) record belongs to (`usize::MAX`:
/// none).
pub(crate) fn spans_messages_owners(
    records: &mut [OpRecord],
    calls: Option<&[CallRecord]>,
) -> (Vec<Span>, Vec<Option<Message>>, Vec<Flow>, Vec<usize>) {
    let (spans, ranges) = spans_of_ops(records, calls);
    let mut span_of = vec![usize::MAX; records.len()];
    let mut messages = Vec::with_capacity(spans.len());
    for (i, range) in ranges.iter().enumerate() {
        span_of[range.clone()].fill(i);
        let mut of_messages = records[range.clone()].iter().filter(|r| r.kind != OpKind::Calc);
        let message = match (of_messages.next(), of_messages.next()) {
            (Some(r), None) if r.peer != NO_PEER => Some(Message {
                kind: if r.kind == OpKind::Send {
                    MessageKind::Send
                } else {
                    MessageKind::Recv
                },
                bytes: r.size,
                peer: r.peer,
                tag: r.tag,
            }),
            _ => None,
        };
        messages.push(message);
    }
    let mut flows = Vec::new();
    for (i, r) in records.iter().enumerate() {
        if r.kind != OpKind::Recv || r.matched_send == NO_MATCH || span_of[i] == usize::MAX {
            continue;
        }
        let Ok(send) = records.binary_search_by_key(&(r.peer, r.matched_send), |s| (s.rank, s.local)) else {
            continue;
        };
        if span_of[send] != usize::MAX && span_of[send] != span_of[i] {
            flows.push(Flow {
                send: span_of[send],
                recv: span_of[i],
            });
        }
    }
    (spans, messages, flows, span_of)
}

/// Per-call statistics, by name.
pub fn call_stats(spans: &[Span]) -> Vec<CallStat> {
    let mut m: BTreeMap<&str, CallStat> = BTreeMap::new();
    for s in spans {
        let e = m.entry(&s.label).or_insert_with(|| CallStat {
            name: s.label.clone(),
            ..CallStat::default()
        });
        let d = s.end - s.start;
        e.count += 1;
        e.total += d as u128;
        e.max = e.max.max(d);
    }
    let mut v: Vec<CallStat> = m.into_values().collect();
    v.sort_by(|a, b| b.total.cmp(&a.total).then(a.name.cmp(&b.name)));
    v
}

/// Per-rank breakdown of `end_times` into compute, communication, waiting and idle.
pub fn breakdown(records: &[OpRecord], end_times: &[u64]) -> Vec<RankBreakdown> {
    // (time, category, +1 / -1) per rank; categories 0 compute, 1 comm, 2 wait.
    let mut ev: Vec<Vec<(u64, usize, i32)>> = vec![Vec::new(); end_times.len()];
    for t in records {
        if t.end == u64::MAX {
            continue;
        }
        let ev = &mut ev[t.rank as usize];
        match t.kind {
            OpKind::Calc => {
                if t.end > t.start {
                    ev.push((t.start, 0, 1));
                    ev.push((t.end, 0, -1));
                }
            }
            _ => {
                if t.ready > t.start {
                    ev.push((t.start, 2, 1));
                    ev.push((t.ready, 2, -1));
                }
                if t.end > t.ready {
                    ev.push((t.ready, 1, 1));
                    ev.push((t.end, 1, -1));
                }
            }
        }
    }
    let mut out = Vec::with_capacity(end_times.len());
    for (r, mut ev) in ev.into_iter().enumerate() {
        ev.sort_unstable();
        let mut active = [0i32; 3];
        let mut acc = [0u64; 3];
        let mut last = 0u64;
        for (t, c, d) in ev {
            if let Some(k) = (0..3).find(|&k| active[k] > 0) {
                acc[k] += t - last;
            }
            last = t;
            active[c] += d;
        }
        let end = end_times[r];
        let busy: u64 = acc.iter().fold(0u64, |a, &b| a.saturating_add(b));
        out.push(RankBreakdown {
            compute: acc[0],
            comm: acc[1],
            wait: acc[2],
            idle: end.saturating_sub(busy),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlaps_go_to_the_first_category() {
        // One rank: compute 0..10, a receive started at 5, matched at 12, ended at 20.
        let rec = |local, kind, size, start, ready, end| OpRecord {
            rank: 0,
            local,
            kind,
            size,
            start,
            ready,
            end,
            peer: NO_PEER,
            tag: 0,
            matched_send: NO_MATCH,
        };
        let mut records = vec![rec(1, OpKind::Recv, 8, 5, 12, 20), rec(0, OpKind::Calc, 10, 0, 0, 10)];
        let bd = breakdown(&records, &[25, 0]);
        // compute 0..10; wait 10..12 (5..10 is under compute); comm 12..20; idle 5.
        assert_eq!(
            bd[0],
            RankBreakdown {
                compute: 10,
                comm: 8,
                wait: 2,
                idle: 5
            }
        );
        let sp = spans(&mut records, None);
        let st = call_stats(&sp);
        assert_eq!(st[0].name, "recv");
        assert_eq!((st[0].count, st[0].total), (1, 15));
        // A call of both operations spans 0..20.
        let call = CallRecord {
            rank: 0,
            name: "sendrecv".into(),
            first: 0,
            end: 2,
        };
        let sp = spans(&mut records, Some(&[call]));
        assert_eq!((sp[0].start, sp[0].end), (0, 20));
    }
}
