//! One rank's part of a collective call, recorded from its algorithm as a [`Template`]
//! and instantiated into an [`OpSink`] (a schedule being built at once, or the live
//! store step by step). Traces repeat the same call thousands of times (a benchmark's
//! loop), so a rank keeps templates by call and runs the algorithm once per distinct
//! call; ranks whose parts are the same up to their own number share one template
//! ([`Interner`]).

use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step, MAX_STEPS};
use crate::error::Error;
use crate::op::Op;
use crate::sink::OpSink;
use simpi_kernel::{MixHashMap, MixHasher};
use std::hash::{BuildHasher, BuildHasherDefault};
use std::sync::Arc;

/// How a template stores its peers: as communicator ranks, or relative to the rank that
/// recorded it, so that ranks whose parts differ only by their own number share one
/// template ([`Interner`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Peers {
    /// Communicator ranks as they are.
    Absolute,
    /// `peer XOR me` (recursive doubling and halving, on powers of two).
    Xor,
    /// `(peer - me) mod size` (rings, dissemination, pairwise exchanges).
    Offset,
}

/// One rank's operations of a collective call and their dependencies, peers in
/// communicator ranks (stored relative to the recording rank, see [`Peers`]). Independent of where the
/// call sits in the program: [`Template::instantiate`] places it after an entry
/// operation, in a context, with peers translated to world ranks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Template {
    ops: Vec<Op>,
    /// `deps[dep_start[i]..dep_start[i + 1]]`: the steps op `i` waits for (none: it waits
    /// for the entry).
    dep_start: Vec<u32>,
    deps: Vec<u32>,
    /// `succ[succ_start[i]..succ_start[i + 1]]`: the steps that wait for step `i`, in
    /// step order.
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    /// The step after which the rank's program goes on: the one last step, or a
    /// zero-length compute (which waits for the CPU) added after the last steps.
    end: Option<u32>,
    peers: Peers,
    /// Steps the algorithm emitted (the end compute, if added, comes after them).
    steps: u32,
    /// The most dependencies any step has.
    most_deps: u32,
}

impl Template {
    /// Runs `alg` for `spec`, peers as communicator ranks. Fails if this rank's part has
    /// more than [`MAX_STEPS`] operations.
    pub fn record(alg: &Algorithm, spec: &CollSpec) -> Result<Template, String> {
        Self::record_within(alg, spec, None, MAX_STEPS)
    }

    /// [`Template::record`] where collectives the algorithm is made of run the algorithm
    /// `choose` picks for them (see [`Emitter::sub_algorithm`]).
    pub fn record_choosing(alg: &Algorithm, spec: &CollSpec, choose: &Chooser<'_>) -> Result<Template, String> {
        Self::record_within(alg, spec, Some(choose), MAX_STEPS)
    }

    /// [`Template::record`] with at most `most` operations.
    fn record_within(
        alg: &Algorithm,
        spec: &CollSpec,
        choose: Option<&Chooser<'_>>,
        most: usize,
    ) -> Result<Template, String> {
        let mut r = Recorder::new(spec, None, choose, most);
        (alg.emit)(spec, &mut r);
        if r.too_many {
            return Err(format!(
                "the {} call ({} algorithm) has more than {most} operations on a rank: its message or communicator is too large to expand",
                spec.coll, alg.name
            ));
        }
        let mut t = r.t;
        let n = t.ops.len();
        t.steps = n as u32;
        let mut has_succ = vec![false; n];
        for &d in &t.deps {
            has_succ[d as usize] = true;
        }
        let sinks: Vec<u32> = (0..n as u32).filter(|&i| !has_succ[i as usize]).collect();
        t.end = match sinks[..] {
            [] => None,
            [s] => Some(s),
            _ => {
                t.ops.push(Op::calc(0, 0));
                t.deps.extend_from_slice(&sinks);
                t.dep_start.push(t.deps.len() as u32);
                Some(n as u32)
            }
        };
        t.link_successors();
        t.most_deps = t.dep_start.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        // Kept for the rest of the run: no spare capacity.
        t.ops.shrink_to_fit();
        t.deps.shrink_to_fit();
        t.dep_start.shrink_to_fit();
        Ok(t)
    }

    /// True if rank `spec.me` running `alg` for `spec` emits exactly `self`'s steps
    /// (the algorithm runs, nothing is stored).
    fn matches(&self, alg: &Algorithm, spec: &CollSpec, choose: Option<&Chooser<'_>>) -> bool {
        let mut r = Recorder::new(spec, Some((self, spec.me, spec.size)), choose, MAX_STEPS);
        (alg.emit)(spec, &mut r);
        !r.mismatch && r.checked == self.steps as usize
    }

    /// Fills the successor lists from the dependency lists.
    fn link_successors(&mut self) {
        let n = self.ops.len();
        let mut count = vec![0u32; n + 1];
        for &d in &self.deps {
            count[d as usize + 1] += 1;
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        self.succ = vec![0; self.deps.len()];
        let mut fill = count.clone();
        for i in 0..n {
            for &d in &self.deps[self.dep_start[i] as usize..self.dep_start[i + 1] as usize] {
                self.succ[fill[d as usize] as usize] = i as u32;
                fill[d as usize] += 1;
            }
        }
        self.succ_start = count;
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True if the collective does nothing on this rank.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Step `i`'s operation, with its peer as stored (see [`Template::peer`]).
    pub fn op(&self, i: u32) -> &Op {
        &self.ops[i as usize]
    }

    /// The steps step `i` waits for.
    pub fn deps(&self, i: u32) -> &[u32] {
        &self.deps[self.dep_start[i as usize] as usize..self.dep_start[i as usize + 1] as usize]
    }

    /// The most dependencies any one step waits for.
    pub fn most_deps(&self) -> u32 {
        self.most_deps
    }

    /// The steps that wait for step `i`, in step order.
    pub fn successors(&self, i: u32) -> &[u32] {
        &self.succ[self.succ_start[i as usize] as usize..self.succ_start[i as usize + 1] as usize]
    }

    /// The step after which the rank's program goes on, if the call does anything.
    pub fn end(&self) -> Option<u32> {
        self.end
    }

    /// The world rank step `i` talks to, for the rank `me` of a communicator of `size`
    /// ranks whose members are `members` (`None`: the world).
    #[inline]
    pub fn peer(&self, i: u32, me: u32, size: u32, members: Option<&[u32]>) -> u32 {
        let p = self.ops[i as usize].peer;
        let p = match self.peers {
            Peers::Absolute => p,
            Peers::Xor => p ^ me,
            Peers::Offset => ((p as u64 + me as u64) % size as u64) as u32,
        };
        members.map_or(p, |m| m[p as usize])
    }

    /// Step `i`'s operation as rank `me` runs it (peer in world ranks).
    #[inline]
    pub fn op_for(&self, i: u32, me: u32, size: u32, members: Option<&[u32]>) -> Op {
        let mut op = self.ops[i as usize];
        if op.kind != crate::op::OpKind::Calc {
            op.peer = self.peer(i, me, size, members);
        }
        op
    }

    /// This template with peers stored as `how` says, relative to rank `me` of a
    /// communicator of `size` ranks.
    fn relative(&self, how: Peers, me: u32, size: u32) -> Template {
        debug_assert_eq!(self.peers, Peers::Absolute);
        let mut t = self.clone();
        t.peers = how;
        for op in &mut t.ops {
            if op.kind == crate::op::OpKind::Calc {
                continue;
            }
            op.peer = match how {
                Peers::Absolute => op.peer,
                Peers::Xor => op.peer ^ me,
                Peers::Offset => ((op.peer as u64 + size as u64 - me as u64) % size as u64) as u32,
            };
        }
        t
    }

    /// Adds the operations to `sink` at once, messages in matching context `ctx`, steps
    /// without dependencies after `entry`, peers of rank `me` of a communicator of `size`
    /// ranks with `members`. Returns the operation after which the rank's program goes
    /// on, or `entry` if the call does nothing here.
    pub fn instantiate<S: OpSink>(
        &self,
        sink: &mut S,
        at: Placement<'_>,
        entry: Option<S::Ref>,
    ) -> Result<Option<S::Ref>, Error> {
        let mut refs = Vec::with_capacity(self.ops.len());
        let ops: Vec<Op> = (0..self.ops.len() as u32)
            .map(|i| self.op_for(i, at.me, at.size, at.members))
            .collect();
        sink.push_all(&ops, at.ctx, &mut refs)?;
        for (i, &me) in refs.iter().enumerate() {
            let deps = self.deps(i as u32);
            if deps.is_empty() {
                if let Some(e) = entry {
                    sink.requires(me, e);
                }
            }
            for &d in deps {
                sink.requires(me, refs[d as usize]);
            }
        }
        Ok(match self.end {
            None => entry,
            Some(e) => Some(refs[e as usize]),
        })
    }
}

/// Where a template's operations go: the rank, its communicator and the matching
/// context of the call.
#[derive(Copy, Clone, Debug)]
pub struct Placement<'a> {
    /// The rank's number in the communicator.
    pub me: u32,
    /// The communicator's size.
    pub size: u32,
    /// Its members as world ranks; `None` for the world.
    pub members: Option<&'a [u32]>,
    /// The matching context.
    pub ctx: u32,
}

/// Templates shared by every rank whose part of a call is the same up to its own number
/// (all ranks of a recursive doubling on a power of two, of a ring, of a dissemination
/// barrier): memory per distinct part, not per rank. A rank's part is first checked
/// against the parts other ranks of the same call recorded (the algorithm runs,
/// nothing is stored), and recorded only if none matches; a call its algorithm
/// declares alike on every rank (`Algorithm::alike`) is recorded once and given to
/// every rank without that check.
#[derive(Default)]
pub struct Interner {
    by_hash: MixHashMap<u64, Vec<Arc<Template>>>,
    /// Templates of each call (its spec without the rank's number), latest last.
    by_call: MixHashMap<(usize, CollSpec), Vec<Arc<Template>>>,
}

/// Templates of one call the interner tries before recording.
const CANDIDATES: usize = 4;

impl Interner {
    /// Rank `spec.me`'s template of `alg` for `spec`: a shared one it matches, else a
    /// new recording (which later ranks may match).
    pub fn template(
        &mut self,
        alg: &'static Algorithm,
        spec: &CollSpec,
        choose: &Chooser<'_>,
    ) -> Result<Arc<Template>, String> {
        let mut call = spec.clone();
        call.me = 0;
        let alike = alg.alike.and_then(|f| f(&call));
        let key = (alg as *const Algorithm as usize, call);
        if let Some(how) = alike {
            // Every rank's steps are the same in this form: the one recorded serves all.
            if let Some(found) = self
                .by_call
                .get(&key)
                .and_then(|c| c.iter().rev().find(|t| t.peers == how))
            {
                return Ok(Arc::clone(found));
            }
        } else if let Some(found) = self.by_call.get(&key).and_then(|c| {
            c.iter()
                .rev()
                .take(CANDIDATES)
                .find(|t| t.peers != Peers::Absolute && t.matches(alg, spec, Some(choose)))
        }) {
            return Ok(Arc::clone(found));
        }
        let t = Template::record_choosing(alg, spec, choose)?;
        let shared = match alike {
            Some(how) => self.intern_as(t, spec.me, spec.size, &[how]),
            None => self.intern(t, spec.me, spec.size),
        };
        let list = self.by_call.entry(key).or_default();
        if !list.iter().any(|x| Arc::ptr_eq(x, &shared)) {
            if list.len() >= CANDIDATES {
                list.remove(0);
            }
            list.push(Arc::clone(&shared));
        }
        Ok(shared)
    }

    /// The shared template equal to `t` (recorded by rank `me` of `size`) up to how its
    /// peers are stored: an existing one if some rank recorded the same, else `t`.
    pub fn intern(&mut self, t: Template, me: u32, size: u32) -> Arc<Template> {
        self.intern_as(t, me, size, &[Peers::Xor, Peers::Offset])
    }

    /// [`Interner::intern`] trying only the given forms, stored in the first one if new.
    fn intern_as(&mut self, t: Template, me: u32, size: u32, forms: &[Peers]) -> Arc<Template> {
        let mut first = None;
        for &how in forms {
            let r = t.relative(how, me, size);
            let h = BuildHasherDefault::<MixHasher>::default().hash_one(&r);
            if let Some(found) = self.by_hash.get(&h).and_then(|v| v.iter().find(|x| ***x == r)) {
                return Arc::clone(found);
            }
            if first.is_none() {
                first = Some((h, r));
            }
        }
        let (h, r) = first.expect("at least one form");
        let shared = Arc::new(r);
        self.by_hash.entry(h).or_default().push(Arc::clone(&shared));
        shared
    }

    /// Forgets every template (the ones in use live on).
    pub fn clear(&mut self) {
        self.by_hash.clear();
        self.by_call.clear();
    }

    /// Distinct templates held.
    pub fn len(&self) -> usize {
        self.by_hash.values().map(Vec::len).sum()
    }

    /// True if none is held.
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }
}

/// Picks the algorithm of a collective.
pub type Chooser<'c> = dyn Fn(&CollSpec) -> &'static Algorithm + Sync + 'c;

/// The [`Emitter`] that records a [`Template`].
struct Recorder<'w> {
    t: Template,
    /// Instead of recording: the template each step must equal (as rank `.1` of `.2`
    /// runs it); `mismatch` once one does not.
    against: Option<(&'w Template, u32, u32)>,
    checked: usize,
    mismatch: bool,
    choose: Option<&'w Chooser<'w>>,
    sizes: Layout,
    expect_total: Option<u64>,
    /// Most operations the call may have ([`MAX_STEPS`]).
    most: usize,
    /// Past `most`: nothing more is recorded and the call is refused.
    too_many: bool,
}

impl<'w> Recorder<'w> {
    /// A recorder of `spec`'s steps, at most `most` of them, or a checker of them
    /// against a template (see `against`).
    fn new(
        spec: &CollSpec,
        against: Option<(&'w Template, u32, u32)>,
        choose: Option<&'w Chooser<'w>>,
        most: usize,
    ) -> Recorder<'w> {
        let (sizes, expect_total) = default_layout(spec);
        Recorder {
            t: Template {
                ops: Vec::new(),
                // A checker records nothing: no allocation (it runs once per rank and call).
                dep_start: if against.is_some() { Vec::new() } else { vec![0] },
                deps: Vec::new(),
                succ_start: Vec::new(),
                succ: Vec::new(),
                end: None,
                peers: Peers::Absolute,
                steps: 0,
                most_deps: 0,
            },
            against,
            checked: 0,
            mismatch: false,
            choose,
            sizes,
            expect_total,
            most,
            too_many: false,
        }
    }

    fn add(&mut self, op: Op, after: &[Step]) -> Step {
        if let Some((c, me, size)) = self.against {
            let i = self.checked;
            self.checked += 1;
            if self.mismatch || i >= c.steps as usize {
                self.mismatch = true;
                return 0;
            }
            let mut want = c.ops[i];
            if want.kind != crate::op::OpKind::Calc {
                want.peer = c.peer(i as u32, me, size, None);
            }
            // Element by element: these lists hold one or two steps, where a call to
            // memcmp costs more than the comparison.
            let deps = c.deps(i as u32);
            if want != op || deps.len() != after.len() || deps.iter().zip(after).any(|(a, b)| a != b) {
                self.mismatch = true;
            }
            return i as Step;
        }
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
        self.add(Op::send(bytes, to, tag, 0, 0), after)
    }

    fn recv_sync(&mut self, from: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        self.add(Op::recv(bytes, from, tag, 0, 0), after)
    }

    fn has_room(&mut self, steps: u64) -> bool {
        if let Some((c, _, _)) = self.against {
            // More steps than the template has: this part cannot match it.
            if self.checked as u64 + steps > c.steps as u64 {
                self.mismatch = true;
                return false;
            }
            return true;
        }
        if self.t.ops.len() as u64 + steps > self.most as u64 {
            self.too_many = true;
            return false;
        }
        true
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
        let err = Template::record_within(chain, &spec(1001), None, 1000).unwrap_err();
        assert!(
            err.contains("bcast call (chain algorithm) has more than 1000 operations"),
            "{err}"
        );
        let ok = Template::record_within(chain, &spec(1000), None, 1000).unwrap();
        assert_eq!(ok.len(), 1000);
    }

    #[test]
    fn a_segmented_call_past_the_bound_is_refused_before_its_steps_are_emitted() {
        // MAX_STEPS + 1 segments (64 KiB for the pipeline reduce of a large message on
        // four ranks, 32 KiB for the chain broadcast, 8 KiB in each half of the split
        // binary tree): every rank of four would emit more than MAX_STEPS steps; each
        // is refused by name, having recorded none of them.
        let cases = [
            (Collective::Reduce, "pipeline", 64 * 1024 * (MAX_STEPS as u64 + 1)),
            (Collective::Bcast, "chain", 32 * 1024 * (MAX_STEPS as u64 + 1)),
            (Collective::Bcast, "split_binary", 2 * 8 * 1024 * (MAX_STEPS as u64 + 1)),
        ];
        for (coll, name, bytes) in cases {
            let alg = crate::coll::find(coll, name).unwrap();
            for me in 0..4 {
                let spec = CollSpec::new(coll, 4, me, bytes);
                let mut r = Recorder::new(&spec, None, None, MAX_STEPS);
                (alg.emit)(&spec, &mut r);
                assert!(r.too_many, "{name} on rank {me}");
                assert!(
                    r.t.ops.is_empty(),
                    "{name} on rank {me}: {} steps emitted",
                    r.t.ops.len()
                );
                let err = Template::record(alg, &spec).unwrap_err();
                assert!(
                    err.contains(&format!("({name} algorithm) has more than {MAX_STEPS} operations")),
                    "{err}"
                );
            }
        }
    }

    #[test]
    fn room_is_asked_of_the_template_a_part_is_checked_against() {
        // A template of 1000 steps: a part that asks room for 1001 more cannot match it.
        let chain = crate::coll::find(Collective::Bcast, "chain").unwrap();
        let seg = crate::coll::bcast::SEGMENT;
        let spec = CollSpec::new(Collective::Bcast, 2, 0, seg * 1000);
        let t = Template::record(chain, &spec).unwrap();
        let mut r = Recorder::new(&spec, Some((&t, 0, 2)), None, MAX_STEPS);
        assert!(r.has_room(1000));
        assert!(!r.mismatch);
        assert!(!r.has_room(1001));
        assert!(r.mismatch);
        assert!(t.matches(chain, &spec, None));
    }

    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// The dissemination barrier (registered as `bruck`), counting its runs.
    fn counted(s: &CollSpec, e: &mut dyn Emitter) {
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dissemination = crate::coll::find(Collective::Barrier, "bruck").expect("registered");
        (dissemination.emit)(s, e);
    }

    fn fresh() -> Interner {
        Interner {
            by_hash: MixHashMap::default(),
            by_call: MixHashMap::default(),
        }
    }

    #[test]
    fn a_call_alike_on_every_rank_runs_its_algorithm_once_and_shares_one_template() {
        let mut alg = Algorithm {
            coll: Collective::Barrier,
            name: "counted",
            source: "this test",
            simgrid: None,
            emit: counted,
            alike: Some(crate::coll::alike_by_offset),
        };
        let leaked: &'static Algorithm = Box::leak(Box::new(alg));
        let choose = |_: &CollSpec| leaked;
        let mut i = fresh();
        let runs = |i: &mut Interner, alg: &'static Algorithm| {
            let before = RUNS.load(std::sync::atomic::Ordering::Relaxed);
            let ts: Vec<_> = (0..16)
                .map(|me| {
                    i.template(alg, &CollSpec::new(Collective::Barrier, 16, me, 0), &choose)
                        .unwrap()
                })
                .collect();
            let shared = ts.iter().all(|t| Arc::ptr_eq(t, &ts[0]));
            (RUNS.load(std::sync::atomic::Ordering::Relaxed) - before, shared)
        };
        assert_eq!(runs(&mut i, leaked), (1, true));
        assert_eq!(i.len(), 1);
        // Not declared: every rank after the first runs it to be checked against the
        // candidates (rank 1 records a second form: the first was stored as XOR).
        alg.alike = None;
        let plain: &'static Algorithm = Box::leak(Box::new(alg));
        let mut i = fresh();
        assert!(runs(&mut i, plain).0 >= 16);
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
