//! Appends one rank's part of a collective to a [`ScheduleBuilder`].

use crate::coll::{CollSpec, Collective, Emitter, Merge, Step};
use crate::op::Op;
use crate::schedule::{BuildError, ScheduleBuilder};

/// Writes a collective's operations for one rank into the open rank of a builder,
/// translating communicator ranks to world ranks and tagging every message with the
/// communicator's collective context.
pub struct ScheduleEmitter<'b> {
    b: &'b mut ScheduleBuilder,
    world: &'b [u32],
    ctx: u32,
    entry: Option<u32>,
    sizes: Vec<u64>,
    expect_total: Option<u64>,
    steps: Vec<u32>,
    has_succ: Vec<bool>,
    error: Option<BuildError>,
}

impl<'b> ScheduleEmitter<'b> {
    /// An emitter for `spec`, whose communicator rank `i` is world rank `world[i]`;
    /// messages go in matching context `ctx`; operations without other dependencies start
    /// after local op `entry`.
    pub fn new(b: &'b mut ScheduleBuilder, spec: &CollSpec, world: &'b [u32], ctx: u32, entry: Option<u32>) -> Self {
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

/// The fixed block layout of a collective (and, for vector collectives, the total the
/// algorithm's own layout must add up to).
pub(crate) fn default_layout(spec: &CollSpec) -> (Vec<u64>, Option<u64>) {
    let p = spec.size as usize;
    match spec.coll {
        Collective::Bcast | Collective::Reduce | Collective::Allreduce | Collective::Scan | Collective::Exscan => {
            (vec![spec.bytes], Some(spec.bytes))
        }
        Collective::Gather | Collective::Allgather | Collective::Scatter => (vec![spec.bytes; p], None),
        Collective::Gatherv | Collective::Allgatherv | Collective::Scatterv | Collective::ReduceScatter => {
            (spec.counts.clone(), None)
        }
        Collective::Alltoall => (vec![spec.bytes; p * p], None),
        Collective::Alltoallv => {
            let me = spec.me as usize;
            let mut v = vec![0; p * p];
            for d in 0..p {
                v[me * p + d] = spec.send_counts.get(d).copied().unwrap_or(0);
            }
            for s in 0..p {
                v[s * p + me] = spec.recv_counts.get(s).copied().unwrap_or(0);
            }
            (v, None)
        }
        Collective::Barrier => (vec![0; p], None),
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
        self.sizes = sizes.to_vec();
    }

    fn block_size(&self, b: u32) -> u64 {
        self.sizes[b as usize]
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
        let dst = self.world[to as usize];
        self.add(Op::send(bytes, dst, tag, 0, 0), after)
    }

    fn recv_sync(&mut self, from: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        let src = self.world[from as usize];
        self.add(Op::recv(bytes, src, tag, 0, 0), after)
    }
}
