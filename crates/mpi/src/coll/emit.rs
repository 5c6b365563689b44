//! Appends one rank's part of a collective to a [`ScheduleBuilder`].

use crate::coll::{CollSpec, Collective, Emitter, Merge, Step};
use crate::op::Op;
use crate::schedule::{BuildError, ScheduleBuilder};

/// Writes a collective's operations for one rank into the open rank of a builder,
/// translating communicator ranks to world ranks and tagging every message with the
/// communicator's collective context.
pub struct ScheduleEmitter<'b> {
    b: &'b mut ScheduleBuilder,
    world: Option<&'b [u32]>,
    ctx: u32,
    entry: Option<u32>,
    sizes: Layout,
    expect_total: Option<u64>,
    steps: Vec<u32>,
    has_succ: Vec<bool>,
    error: Option<BuildError>,
}

impl<'b> ScheduleEmitter<'b> {
    /// An emitter for `spec`, whose communicator rank `i` is world rank `world[i]` (or
    /// `i` itself when `world` is `None`, for the world communicator); messages go in
    /// matching context `ctx`; operations without other dependencies start after local
    /// op `entry`.
    pub fn new(
        b: &'b mut ScheduleBuilder,
        spec: &CollSpec,
        world: Option<&'b [u32]>,
        ctx: u32,
        entry: Option<u32>,
    ) -> Self {
        let (sizes, expect_total) = default_layout(spec);
        ScheduleEmitter {
            b,
            world,
            ctx,
            entry,
            sizes,
            expect_total,
            steps: Vec::new(),
            has_succ: Vec::new(),
            error: None,
        }
    }

    fn add(&mut self, op: Op, after: &[Step]) -> Step {
        if self.error.is_some() {
            // `finish` reports the error; steps after it (which may name the step that
            // failed) are not built.
            return self.steps.len() as Step;
        }
        let local = match self.b.push(op) {
            Ok(l) => l,
            Err(e) => {
                self.error.get_or_insert(e);
                return self.steps.len() as Step;
            }
        };
        self.b.set_context(local, self.ctx);
        if after.is_empty() {
            if let Some(e) = self.entry {
                self.b.requires(local, e);
            }
        }
        for &s in after {
            self.b.requires(local, self.steps[s as usize]);
            self.has_succ[s as usize] = true;
        }
        self.steps.push(local);
        self.has_succ.push(false);
        self.steps.len() as Step - 1
    }

    fn bytes(&self, blocks: &[u32]) -> u64 {
        blocks.iter().map(|&b| self.block_size(b)).sum()
    }

    /// Ends the collective: returns the local op after which the rank's program goes on
    /// (a zero-time join of the collective's last operations), or `entry` if the
    /// collective had nothing to do on this rank.
    pub fn finish(self) -> Result<Option<u32>, BuildError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let sinks: Vec<u32> = (0..self.steps.len())
            .filter(|&i| !self.has_succ[i])
            .map(|i| self.steps[i])
            .collect();
        match sinks.len() {
            0 => Ok(self.entry),
            1 => Ok(Some(sinks[0])),
            _ => {
                let join = self.b.push(Op::calc(0, 0))?;
                for s in sinks {
                    self.b.requires(join, s);
                }
                Ok(Some(join))
            }
        }
    }
}

/// The sizes of a collective's blocks, computed on demand: listing them would cost
/// O(p) per rank and call for a barrier or a gather and O(p²) for an all-to-all, which
/// dominated reading traces of thousands of ranks.
#[derive(Clone, Debug)]
pub(crate) enum Layout {
    /// `count` blocks of `size` bytes.
    Uniform { size: u64, count: u64 },
    /// The listed sizes.
    Sizes(Vec<u64>),
    /// Alltoallv's `p × p` blocks (block `s * p + d` goes from `s` to `d`) as rank `me`
    /// sees them: its own sends and receives, and nothing between other ranks.
    Alltoallv {
        p: u64,
        me: u64,
        send: Vec<u64>,
        recv: Vec<u64>,
    },
}

impl Layout {
    /// The size of block `b`. Panics if there is no such block (an algorithm bug).
    #[inline]
    pub(crate) fn size(&self, b: u32) -> u64 {
        let b = b as u64;
        match self {
            Layout::Uniform { size, count } => {
                assert!(b < *count, "block {b} of a layout of {count}");
                *size
            }
            Layout::Sizes(v) => v[b as usize],
            Layout::Alltoallv { p, me, send, recv } => {
                assert!(b < p * p, "block {b} of a layout of {}", p * p);
                let (s, d) = (b / p, b % p);
                // The diagonal block (to itself) counts as received.
                if d == *me {
                    recv.get(s as usize).copied().unwrap_or(0)
                } else if s == *me {
                    send.get(d as usize).copied().unwrap_or(0)
                } else {
                    0
                }
            }
        }
    }

    /// Number of blocks.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Layout::Uniform { count, .. } => *count,
            Layout::Sizes(v) => v.len() as u64,
            Layout::Alltoallv { p, .. } => p * p,
        }
    }
}

/// The fixed block layout of a collective (and, for vector collectives, the total the
/// algorithm's own layout must add up to).
pub(crate) fn default_layout(spec: &CollSpec) -> (Layout, Option<u64>) {
    let p = spec.size as u64;
    let uniform = |size: u64, count: u64| Layout::Uniform { size, count };
    match spec.coll {
        Collective::Bcast | Collective::Reduce | Collective::Allreduce | Collective::Scan | Collective::Exscan => {
            (uniform(spec.bytes, 1), Some(spec.bytes))
        }
        Collective::Gather | Collective::Allgather | Collective::Scatter => (uniform(spec.bytes, p), None),
        Collective::Gatherv | Collective::Allgatherv | Collective::Scatterv | Collective::ReduceScatter => {
            (Layout::Sizes(spec.counts.clone()), None)
        }
        Collective::Alltoall => (uniform(spec.bytes, p * p), None),
        Collective::Alltoallv => (
            Layout::Alltoallv {
                p,
                me: spec.me as u64,
                send: spec.send_counts.clone(),
                recv: spec.recv_counts.clone(),
            },
            None,
        ),
        Collective::Barrier => (uniform(0, p), None),
    }
}

impl Emitter for ScheduleEmitter<'_> {
    fn layout(&mut self, sizes: &[u64]) {
        if let Some(total) = self.expect_total {
            assert_eq!(
                sizes.iter().sum::<u64>(),
                total,
                "a collective's layout must cover its buffer exactly"
            );
        }
        self.sizes = Layout::Sizes(sizes.to_vec());
    }

    fn block_size(&self, b: u32) -> u64 {
        self.sizes.size(b)
    }

    fn send(&mut self, to: u32, tag: u32, blocks: &[u32], after: &[Step]) -> Step {
        let bytes = self.bytes(blocks);
        self.send_sync(to, tag, bytes, after)
    }

    fn recv(&mut self, from: u32, tag: u32, blocks: &[u32], _merge: Merge, after: &[Step]) -> Step {
        let bytes = self.bytes(blocks);
        self.recv_sync(from, tag, bytes, after)
    }

    fn send_sync(&mut self, to: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        let dst = self.world.map_or(to, |w| w[to as usize]);
        self.add(Op::send(bytes, dst, tag, 0, 0), after)
    }

    fn recv_sync(&mut self, from: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        let src = self.world.map_or(from, |w| w[from as usize]);
        self.add(Op::recv(bytes, src, tag, 0, 0), after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alltoallv_layout_holds_only_this_ranks_sends_and_receives() {
        // Rank 1 of 3 sends 10, 11, 12 and receives 20, 21, 22.
        let l = Layout::Alltoallv {
            p: 3,
            me: 1,
            send: vec![10, 11, 12],
            recv: vec![20, 21, 22],
        };
        let sizes: Vec<u64> = (0..l.len() as u32).map(|b| l.size(b)).collect();
        // Row s is what s sends: row 1 is rank 1's sends, column 1 its receives (the
        // block to itself counts as received).
        assert_eq!(sizes, vec![0, 20, 0, 10, 21, 12, 0, 22, 0]);
    }

    #[test]
    #[should_panic(expected = "block 4 of a layout of 4")]
    fn uniform_layout_rejects_blocks_past_its_end() {
        Layout::Uniform { size: 8, count: 4 }.size(4);
    }
}
