//! One rank's part of a collective call, recorded from its algorithm as a [`Template`]
//! and instantiated into an [`OpSink`] (a schedule being built, or the live store). Traces repeat the same call thousands of
//! times (a benchmark's loop), so a converter keeps templates by call and runs the
//! algorithm once per distinct call instead of once per call.

use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step, MAX_STEPS};
use crate::error::Error;
use crate::op::Op;
use crate::sink::OpSink;

/// One rank's operations of a collective call and their dependencies, with peers
/// already translated to world ranks. Independent of where the call sits in the
/// program: [`Template::instantiate`] places it after an entry operation, in a context.
#[derive(Clone, Debug, Default)]
pub struct Template {
    ops: Vec<Op>,
    /// `deps[dep_start[i]..dep_start[i + 1]]`: the steps op `i` waits for (none: it waits
    /// for the entry).
    dep_start: Vec<u32>,
    deps: Vec<u32>,
    /// Steps nothing in the collective waits for, in step order.
    sinks: Vec<u32>,
}

impl Template {
    /// Runs `alg` for `spec`; communicator rank `i` is world rank `world[i]` (or `i` for
    /// the world communicator). Fails if this rank's part has more than [`MAX_STEPS`]
    /// operations.
    pub fn record(alg: &Algorithm, spec: &CollSpec, world: Option<&[u32]>) -> Result<Template, String> {
        Self::record_within(alg, spec, world, None, MAX_STEPS)
    }

    /// [`Template::record`] where collectives the algorithm is made of run the algorithm
    /// `choose` picks for them (see [`Emitter::sub_algorithm`]).
    pub fn record_choosing(
        alg: &Algorithm,
        spec: &CollSpec,
        world: Option<&[u32]>,
        choose: &Chooser<'_>,
    ) -> Result<Template, String> {
        Self::record_within(alg, spec, world, Some(choose), MAX_STEPS)
    }

    /// [`Template::record`] with at most `most` operations.
    fn record_within(
        alg: &Algorithm,
        spec: &CollSpec,
        world: Option<&[u32]>,
        choose: Option<&Chooser<'_>>,
        most: usize,
    ) -> Result<Template, String> {
        let (sizes, expect_total) = default_layout(spec);
        let mut r = Recorder {
            t: Template {
                dep_start: vec![0],
                ..Template::default()
            },
            world,
            choose,
            sizes,
            expect_total,
            most,
            too_many: false,
        };
        (alg.emit)(spec, &mut r);
        if r.too_many {
            return Err(format!(
                "the {} call ({} algorithm) has more than {most} operations on a rank: its message or communicator is too large to expand",
                spec.coll, alg.name
            ));
        }
        let mut t = r.t;
        let mut has_succ = vec![false; t.ops.len()];
        for &d in &t.deps {
            has_succ[d as usize] = true;
        }
        t.sinks = (0..t.ops.len() as u32).filter(|&i| !has_succ[i as usize]).collect();
        // Kept for the rest of the run, by every rank: no spare capacity.
        t.ops.shrink_to_fit();
        t.deps.shrink_to_fit();
        t.dep_start.shrink_to_fit();
        Ok(t)
    }

    /// Number of operations (without the join [`Template::instantiate`] may add).
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True if the collective does nothing on this rank.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Adds the operations to `sink`, messages in matching context `ctx`, operations
    /// without other dependencies after `entry`. Returns the operation after which the
    /// rank's program goes on: the collective's last operation, a zero-time compute
    /// (it waits for the CPU) after its last operations, or `entry` if it had nothing
    /// to do. `refs` is scratch space.
    pub fn instantiate<S: OpSink>(
        &self,
        sink: &mut S,
        ctx: u32,
        entry: Option<S::Ref>,
        refs: &mut Vec<S::Ref>,
    ) -> Result<Option<S::Ref>, Error> {
        refs.clear();
        sink.push_all(&self.ops, ctx, refs)?;
        for (i, &me) in refs.iter().enumerate() {
            let deps = &self.deps[self.dep_start[i] as usize..self.dep_start[i + 1] as usize];
            if deps.is_empty() {
                if let Some(e) = entry {
                    sink.requires(me, e);
                }
            }
            for &d in deps {
                sink.requires(me, refs[d as usize]);
            }
        }
        match self.sinks[..] {
            [] => Ok(entry),
            [s] => Ok(Some(refs[s as usize])),
            _ => {
                let join = sink.push(Op::calc(0, 0), 0)?;
                for &s in &self.sinks {
                    sink.requires(join, refs[s as usize]);
                }
                Ok(Some(join))
            }
        }
    }
}

/// Picks the algorithm of a collective.
pub type Chooser<'c> = dyn Fn(&CollSpec) -> &'static Algorithm + Sync + 'c;

/// The [`Emitter`] that records a [`Template`].
struct Recorder<'w> {
    t: Template,
    world: Option<&'w [u32]>,
    choose: Option<&'w Chooser<'w>>,
    sizes: Layout,
    expect_total: Option<u64>,
    /// Most operations the call may have ([`MAX_STEPS`]).
    most: usize,
    /// Past `most`: nothing more is recorded and the call is refused.
    too_many: bool,
}

impl Recorder<'_> {
    fn add(&mut self, op: Op, after: &[Step]) -> Step {
        if self.too_many || self.t.ops.len() >= self.most {
            self.too_many = true;
            return 0;
        }
        for &s in after {
            assert!(
                (s as usize) < self.t.ops.len(),
                "step {s} waits for a step not yet emitted"
            );
        }
        self.t.ops.push(op);
        self.t.deps.extend_from_slice(after);
        self.t.dep_start.push(self.t.deps.len() as u32);
        self.t.ops.len() as Step - 1
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

impl Emitter for Recorder<'_> {
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

    fn send_sized(&mut self, to: u32, tag: u32, _blocks: &[u32], bytes: u64, after: &[Step]) -> Step {
        self.send_sync(to, tag, bytes, after)
    }

    fn recv_sized(&mut self, from: u32, tag: u32, _blocks: &[u32], _merge: Merge, bytes: u64, after: &[Step]) -> Step {
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

    fn sub_algorithm(&self, s: &CollSpec) -> Option<&'static Algorithm> {
        self.choose.map(|c| c(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_with_more_steps_than_allowed_is_refused() {
        // A chain broadcast sends one message per 32 KiB segment: on the root of two
        // ranks, 1001 segments are more than 1000 steps, 1000 are not.
        let chain = crate::coll::find(Collective::Bcast, "chain").unwrap();
        let seg = crate::coll::bcast::SEGMENT;
        let spec = |segs: u64| CollSpec::new(Collective::Bcast, 2, 0, seg * segs);
        let err = Template::record_within(chain, &spec(1001), None, None, 1000).unwrap_err();
        assert!(
            err.contains("bcast call (chain algorithm) has more than 1000 operations"),
            "{err}"
        );
        let ok = Template::record_within(chain, &spec(1000), None, None, 1000).unwrap();
        assert_eq!(ok.len(), 1000);
    }

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
