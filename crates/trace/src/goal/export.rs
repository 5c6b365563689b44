//! Writes any schedule as GOAL text (`simpi convert --to goal`): TIT traces and
//! generated workloads become schedules LogGOPSim can run.
//!
//! GOAL has no communicators and no "any one of" dependencies, so: a message in matching
//! context `c > 0` gets tag `c · 2^24 + tag` (distinct contexts stay apart; a wildcard
//! tag of such a receive is written as -1 and may then match across contexts), and an
//! any-of operation becomes an all-of one. Both are counted in the returned report.
//! Compute times are rounded to whole time units. A join (a compute that takes no CPU,
//! see `Schedule::is_join`) has no GOAL form: it is left out and what follows it depends
//! on what it depended on (GOAL's zero-length `calc` would wait for the CPU).
//!
//! A receive is written with the size of the message it matches: MPI lets a receive post
//! a larger buffer than the message (NPB MG posts 69,696 bytes for faces of 4 to 35 KB),
//! and LogGOPSim decides the protocol of a message that arrived before its receive from
//! the receive's size. The match is MPI's non-overtaking order: the k-th receive from a
//! rank with a given tag and communicator takes the k-th such send. Ranks with a wildcard
//! receive keep their sizes (their matches depend on timing).

use super::writer::{GoalWriter, Label};
use simpi_kernel::{MixHashMap, TimeUnit};
use simpi_mpi::{OpId, OpKind, Schedule, ANY_SOURCE, ANY_TAG};
use std::collections::VecDeque;
use std::io::{self, Write};

/// What the export had to approximate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportReport {
    /// Receives with a wildcard tag in a non-world context.
    pub wildcard_tags_across_contexts: u64,
    /// Any-of operations written as all-of.
    pub any_of_as_all_of: u64,
    /// Compute operations whose time was rounded to the unit.
    pub rounded_computes: u64,
    /// Tags too large to carry a context.
    pub tag_overflows: u64,
    /// Receives written with the size of their message instead of their own.
    pub resized_receives: u64,
}

/// The size of the message each receive matches, where it differs from the receive's
/// own (see the module documentation), by operation id.
fn matched_sizes(s: &Schedule) -> MixHashMap<u32, u64> {
    type Channel = (u32, u32, u32, u32); // source, destination, context, tag
    let mut sent: MixHashMap<Channel, VecDeque<u64>> = MixHashMap::default();
    for r in 0..s.num_ranks() {
        for id in s.rank_ops(r) {
            let op = s.op(OpId(id));
            if op.kind == OpKind::Send {
                sent.entry((r, op.peer, s.context(id), op.tag))
                    .or_default()
                    .push_back(op.size);
            }
        }
    }
    let mut sizes = MixHashMap::default();
    for r in 0..s.num_ranks() {
        let recvs = || s.rank_ops(r).filter(|&id| s.op(OpId(id)).kind == OpKind::Recv);
        if recvs().any(|id| {
            let op = s.op(OpId(id));
            op.peer == ANY_SOURCE || op.tag == ANY_TAG
        }) {
            continue;
        }
        for id in recvs() {
            let op = s.op(OpId(id));
            let size = sent
                .get_mut(&(op.peer, r, s.context(id), op.tag))
                .and_then(|q| q.pop_front());
            if let Some(size) = size.filter(|&b| b != op.size) {
                sizes.insert(id, size);
            }
        }
    }
    sizes
}

/// Writes `s` as GOAL with times in `unit`.
pub fn write_schedule<W: Write>(s: &Schedule, out: W, unit: TimeUnit) -> io::Result<(W, ExportReport)> {
    let mut rep = ExportReport::default();
    // World tags of 2^24 and more could equal a sub-communicator's `c · 2^24 + tag`:
    // counted as overflows if some operation is on a sub-communicator.
    let (mut big_world_tags, mut sub_contexts) = (0u64, false);
    let mut w = GoalWriter::new(out, s.num_ranks())?;
    let k = unit.ps_per_unit();
    let resized = matched_sizes(s);
    rep.resized_receives = resized.len() as u64;
    for r in 0..s.num_ranks() {
        let ops = s.rank_ops(r);
        if ops.is_empty() {
            continue;
        }
        w.begin_rank(r)?;
        let first = ops.start;
        for id in ops.clone() {
            let op = s.op(OpId(id));
            if s.is_join(OpId(id)) {
                w.skip_label();
                continue;
            }
            let ctx = s.context(id);
            sub_contexts |= ctx != 0 && op.kind != OpKind::Calc;
            let tag = if ctx == 0 {
                if op.kind != OpKind::Calc && op.tag != ANY_TAG && op.tag >= 1 << 24 {
                    big_world_tags += 1;
                }
                op.tag
            } else if op.tag == ANY_TAG {
                rep.wildcard_tags_across_contexts += 1;
                ANY_TAG
            } else if op.tag >= 1 << 24 || ctx >= 255 {
                rep.tag_overflows += 1;
                op.tag
            } else {
                (ctx << 24) | op.tag
            };
            match op.kind {
                OpKind::Send => w.send_on(op.size, op.peer, tag, op.cpu, op.nic)?,
                OpKind::Recv => {
                    let size = resized.get(&id).copied().unwrap_or(op.size);
                    w.recv_on(size, op.peer, tag, op.cpu, op.nic)?
                }
                OpKind::Calc => {
                    if !op.size.is_multiple_of(k) {
                        rep.rounded_computes += 1;
                    }
                    w.calc_on((op.size + k / 2) / k, op.cpu)?
                }
            };
            if s.is_any_of(OpId(id)) {
                rep.any_of_as_all_of += 1;
            }
        }
        let mut through = Vec::new();
        for id in ops {
            if s.is_join(OpId(id)) {
                continue;
            }
            for (done, list) in [
                (true, s.done_successors(OpId(id))),
                (false, s.start_successors(OpId(id))),
            ] {
                for succ in list {
                    // Through joins (in order, depth first) to what they free.
                    through.push(succ);
                    while let Some(x) = through.pop() {
                        if s.is_join(OpId(x)) {
                            through.extend(s.done_successors(OpId(x)).rev());
                        } else if done {
                            w.requires(Label(x - first), Label(id - first))?;
                        } else {
                            w.irequires(Label(x - first), Label(id - first))?;
                        }
                    }
                }
            }
        }
        w.end_rank()?;
    }
    if sub_contexts {
        rep.tag_overflows += big_world_tags;
    }
    Ok((w.finish()?, rep))
}
