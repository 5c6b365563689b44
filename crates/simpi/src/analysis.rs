//! Where the time went: per-rank compute / communication / waiting / idle, and per-call
//! statistics, from the operation times a recorded run produces.

use simpi_mpi::{OpId, OpKind, OpTime, Schedule};
use simpi_trace::tit::CallRecord;
use std::collections::BTreeMap;

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
    /// Total time in it over all ranks, ps.
    pub total: u64,
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
pub fn spans(sched: &Schedule, times: &[OpTime], calls: Option<&[CallRecord]>) -> Vec<Span> {
    let mut out = Vec::new();
    match calls {
        Some(calls) => {
            for c in calls {
                let ops = c.first_op..c.end_op;
                let start = ops.clone().map(|i| times[i as usize].start).min().unwrap_or(0);
                let end = ops
                    .map(|i| times[i as usize].end)
                    .filter(|&e| e != u64::MAX)
                    .max()
                    .unwrap_or(start);
                out.push(Span {
                    rank: c.rank,
                    label: c.name.to_string(),
                    start,
                    end: end.max(start),
                });
            }
        }
        None => {
            for id in 0..sched.num_ops() as u32 {
                let op = sched.op(OpId(id));
                let t = times[id as usize];
                if op.kind == OpKind::Calc && op.size == 0 {
                    continue; // joins and empty computes
                }
                let label = match op.kind {
                    OpKind::Send => "send",
                    OpKind::Recv => "recv",
                    OpKind::Calc => "compute",
                };
                out.push(Span {
                    rank: sched.rank_of(OpId(id)),
                    label: label.into(),
                    start: t.start,
                    end: t.end.max(t.start),
                });
            }
        }
    }
    out
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
        e.total += d;
        e.max = e.max.max(d);
    }
    let mut v: Vec<CallStat> = m.into_values().collect();
    v.sort_by(|a, b| b.total.cmp(&a.total).then(a.name.cmp(&b.name)));
    v
}

/// Per-rank breakdown of `end_times` into compute, communication, waiting and idle.
pub fn breakdown(sched: &Schedule, times: &[OpTime], end_times: &[u64]) -> Vec<RankBreakdown> {
    let p = sched.num_ranks();
    let mut out = Vec::with_capacity(p as usize);
    for r in 0..p {
        // (time, category, +1 / -1); categories 0 compute, 1 comm, 2 wait.
        let mut ev: Vec<(u64, usize, i32)> = Vec::new();
        for id in sched.rank_ops(r) {
            let op = sched.op(OpId(id));
            let t = times[id as usize];
            if t.end == u64::MAX {
                continue;
            }
            match op.kind {
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
        let end = end_times[r as usize];
        let busy: u64 = acc.iter().sum();
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
    use simpi_mpi::{Op, ScheduleBuilder};

    #[test]
    fn overlaps_go_to_the_first_category() {
        // One rank: compute 0..10, a receive started at 5, matched at 12, ended at 20.
        let mut b = ScheduleBuilder::new(2);
        b.begin_rank(0).unwrap();
        b.push(Op::calc(10, 0)).unwrap();
        b.push(Op::recv(8, 1, 0, 0, 0)).unwrap();
        b.end_rank().unwrap();
        let s = b.finish();
        let times = vec![
            OpTime {
                start: 0,
                ready: 0,
                end: 10,
            },
            OpTime {
                start: 5,
                ready: 12,
                end: 20,
            },
        ];
        let bd = breakdown(&s, &times, &[25, 0]);
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
        let sp = spans(&s, &times, None);
        let st = call_stats(&sp);
        assert_eq!(st[0].name, "recv");
        assert_eq!((st[0].count, st[0].total), (1, 15));
    }
}
