//! A compact, per-rank dependency graph of operations (the in-memory form of a GOAL
//! schedule), and the builder that checks it while it is read.
//!
//! Memory is 32 bytes per operation, plus 4 bytes per dependency for operations whose
//! successors are not a short run of consecutive operations, whatever the source text
//! looked like. Ranks may be added in
//! any order; each rank's operations are contiguous and keep their order of definition.
//!
//! A schedule is stored in one part, or in two when a second one was appended (traces
//! are read in two halves on two threads): the second half stays in the memory it was
//! built in, because copying it behind the first touched hundreds of MB of fresh pages
//! at thousands of ranks. A rank, and so every dependency, lies within one part.

use crate::op::{Op, OpId, OpKind, Rank, ANY_DEPS, ANY_SOURCE, INLINE_SUCC, JOIN, MAX_RUN, NO_SUCC, RUN_SHIFT, TEST};

/// Most operations a schedule holds: ids keep their top bit free for the executor.
pub const MAX_OPS: usize = (1 << 31) - 1;

/// Operations and their successor lists (one part of a schedule).
#[derive(Clone, Debug, Default)]
struct Part {
    ops: Vec<Op>,
    /// Per op with successors not stored inline ([`INLINE_SUCC`]):
    /// `[n_done, n_start, done.., start..]`
    /// (successors as schedule-wide ids).
    edges: Vec<u32>,
}

/// The number of successors an op with [`INLINE_SUCC`] holds.
#[inline(always)]
fn run_len(op: &Op) -> u32 {
    1 + (op.flags >> RUN_SHIFT) as u32
}

/// An operation's successors of one kind ([`Schedule::done_successors`],
/// [`Schedule::start_successors`]): a list, or a run of consecutive ids.
#[derive(Clone, Debug)]
pub enum Successors<'a> {
    /// Listed one by one.
    List(std::slice::Iter<'a, u32>),
    /// Consecutive operations.
    Run(std::ops::Range<u32>),
}

impl Iterator for Successors<'_> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Successors::List(l) => l.next().copied(),
            Successors::Run(r) => r.next(),
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Successors::List(l) => l.size_hint(),
            Successors::Run(r) => r.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Successors<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<u32> {
        match self {
            Successors::List(l) => l.next_back().copied(),
            Successors::Run(r) => r.next_back(),
        }
    }
}

impl ExactSizeIterator for Successors<'_> {}

/// A checked, immutable schedule for `num_ranks` ranks.
#[derive(Clone, Debug)]
pub struct Schedule {
    num_ranks: u32,
    /// Whether each rank had a block (possibly empty).
    defined: Vec<bool>,
    /// `[first, end)` operation ids of each rank.
    ranges: Vec<[u32; 2]>,
    /// Operations with ids below `split`.
    low: Part,
    /// Operations from `split` on (empty unless a schedule was appended).
    high: Part,
    /// The first id in `high`; `u32::MAX` while there is only one part.
    split: u32,
    /// Matching context of each op (communicator); empty when every op is in context 0.
    contexts: Vec<u32>,
    num_edges: usize,
    /// Some compute is a test of a request ([`ScheduleBuilder::test_of`]).
    has_tests: bool,
    /// Some operation is a join ([`ScheduleBuilder::push_join`]).
    has_joins: bool,
    max_cpu: u8,
    max_nic: u8,
    /// A run has counted the dependency counters down; the next run recounts them first
    /// (recounting at the end of every run cost a pass over all operations, usually for
    /// nothing).
    counted_down: bool,
}

impl Schedule {
    /// Number of ranks.
    pub fn num_ranks(&self) -> u32 {
        self.num_ranks
    }

    /// Total number of operations.
    pub fn num_ops(&self) -> usize {
        self.low.ops.len() + self.high.ops.len()
    }

    /// The part holding op `id`, and the id of its first op.
    #[inline(always)]
    fn part(&self, id: u32) -> (&Part, u32) {
        if id < self.split {
            (&self.low, 0)
        } else {
            (&self.high, self.split)
        }
    }

    /// [`Schedule::part`], mutably.
    #[inline(always)]
    fn part_mut(&mut self, id: u32) -> (&mut Part, u32) {
        if id < self.split {
            (&mut self.low, 0)
        } else {
            (&mut self.high, self.split)
        }
    }

    #[inline(always)]
    fn op_at(&self, id: u32) -> &Op {
        let (part, base) = self.part(id);
        &part.ops[(id - base) as usize]
    }

    /// Number of dependency edges.
    pub fn num_edges(&self) -> usize {
        self.num_edges
    }

    /// CPUs per rank the schedule uses (highest `cpu` index + 1).
    pub fn cpus(&self) -> usize {
        self.max_cpu as usize + 1
    }

    /// NICs per rank the schedule uses (highest `nic` index + 1).
    pub fn nics(&self) -> usize {
        self.max_nic as usize + 1
    }

    /// The operation with id `id`.
    #[inline(always)]
    pub fn op(&self, id: OpId) -> &Op {
        self.op_at(id.0)
    }

    /// The ids of `rank`'s operations, in definition order.
    pub fn rank_ops(&self, rank: Rank) -> std::ops::Range<u32> {
        let [a, b] = self.ranges[rank as usize];
        a..b
    }

    /// The rank that owns operation `id`.
    #[inline(always)]
    pub fn rank_of(&self, id: OpId) -> Rank {
        self.op_at(id.0).rank
    }

    /// Position of `id` among its rank's operations (0-based definition order).
    pub fn local_index(&self, id: OpId) -> u32 {
        id.0 - self.ranges[self.rank_of(id) as usize][0]
    }

    /// The matching context of operation `id` (0 unless set by the builder).
    #[inline(always)]
    pub fn context(&self, id: u32) -> u32 {
        if self.contexts.is_empty() {
            0
        } else {
            self.contexts[id as usize]
        }
    }

    /// Number of dependencies of operation `id` (both kinds); during a run, and after
    /// it until the next run starts, the number not yet satisfied.
    pub fn dependencies(&self, id: OpId) -> u32 {
        self.op_at(id.0).deps
    }

    /// True if `id` starts once any one of its predecessors has completed.
    pub fn is_any_of(&self, id: OpId) -> bool {
        self.op_at(id.0).flags & ANY_DEPS != 0
    }

    /// True if `id` is a join ([`ScheduleBuilder::push_join`]): done, without taking
    /// its CPU, the moment its dependencies are; executors free its successors in its
    /// place, in the order they would have been freed had each depended on what it
    /// depends on.
    #[inline]
    pub fn is_join(&self, id: OpId) -> bool {
        self.op_at(id.0).flags & JOIN != 0
    }

    /// Whether some operation is a join ([`Schedule::is_join`]).
    pub fn has_joins(&self) -> bool {
        self.has_joins
    }

    /// Whether some compute is a test of a request ([`Schedule::tested_request`]).
    pub fn has_tests(&self) -> bool {
        self.has_tests
    }

    /// The request operation compute `id` tests (an MPI_Test), if it is a test. Its
    /// cost may then depend on what the run has done so far (SMPI's growing test
    /// sleeps); a model without such a rule takes the compute as it is.
    #[inline]
    pub fn tested_request(&self, id: OpId) -> Option<OpId> {
        let op = self.op_at(id.0);
        (op.flags & TEST != 0).then(|| OpId(self.ranges[op.rank as usize][0] + op.peer))
    }

    /// Operations that may start only once `id` has completed (`requires`), in the
    /// order they were declared.
    #[inline(always)]
    pub fn done_successors(&self, id: OpId) -> Successors<'_> {
        let (part, base) = self.part(id.0);
        let op = &part.ops[(id.0 - base) as usize];
        if op.flags & INLINE_SUCC != 0 {
            return Successors::Run(op.succ..op.succ + run_len(op));
        }
        if op.succ == NO_SUCC {
            return Successors::List([].iter());
        }
        let s = op.succ as usize;
        let nd = part.edges[s] as usize;
        Successors::List(part.edges[s + 2..s + 2 + nd].iter())
    }

    /// Operations that may start once `id` has started (`irequires`), in the order they
    /// were declared.
    #[inline(always)]
    pub fn start_successors(&self, id: OpId) -> Successors<'_> {
        let (part, base) = self.part(id.0);
        let op = &part.ops[(id.0 - base) as usize];
        if op.flags & INLINE_SUCC != 0 || op.succ == NO_SUCC {
            return Successors::List([].iter());
        }
        let s = op.succ as usize;
        let nd = part.edges[s] as usize;
        let ns = part.edges[s + 1] as usize;
        Successors::List(part.edges[s + 2 + nd..s + 2 + nd + ns].iter())
    }

    /// A hint that `id` will be handled soon: prefetches the op and the two cache lines
    /// after it, where its successors, whose counters its completion counts down,
    /// usually are (a rank's operations are stored in definition order, and schedules
    /// mostly depend on what comes next).
    #[inline(always)]
    pub(crate) fn prefetch_near(&self, id: u32) {
        use simpi_kernel::prefetch;
        let (part, base) = self.part(id);
        let i = (id - base) as usize;
        for k in [i, i + 2, i + 4] {
            if let Some(op) = part.ops.get(k) {
                prefetch(op);
            }
        }
    }

    /// Counts down the dependencies that `id` satisfies (its `requires` successors if
    /// `done`, else its `irequires` successors) and calls `ready` for each operation
    /// whose count reaches zero, in the order the dependencies were declared.
    #[inline(always)]
    pub(crate) fn satisfy(&mut self, id: u32, done: bool, mut ready: impl FnMut(u32)) {
        // Successors are in the op's rank, so in its part.
        let (part, base) = self.part_mut(id);
        let op = part.ops[(id - base) as usize];
        if op.flags & INLINE_SUCC != 0 {
            if done {
                for succ in op.succ..op.succ + run_len(&op) {
                    let d = &mut part.ops[(succ - base) as usize].deps;
                    // An any-of op is already enabled (0) once one predecessor completed.
                    if *d > 0 {
                        *d -= 1;
                        if *d == 0 {
                            ready(succ);
                        }
                    }
                }
            }
            return;
        }
        if op.succ == NO_SUCC {
            return;
        }
        let s = op.succ as usize;
        let nd = part.edges[s] as usize;
        let ns = part.edges[s + 1] as usize;
        let list = if done {
            s + 2..s + 2 + nd
        } else {
            s + 2 + nd..s + 2 + nd + ns
        };
        for &succ in &part.edges[list] {
            let d = &mut part.ops[(succ - base) as usize].deps;
            if *d > 0 {
                *d -= 1;
                if *d == 0 {
                    ready(succ);
                }
            }
        }
    }

    /// Makes the dependency counters whole for a new run (recounting them if an earlier
    /// run counted them down). Every run calls this first.
    pub(crate) fn begin_run(&mut self) {
        if self.counted_down {
            self.reset_counters();
        }
        self.counted_down = true;
    }

    /// Recounts every operation's dependencies after a run has counted them down.
    fn reset_counters(&mut self) {
        let split = self.split;
        for (part, base) in [(&mut self.low, 0), (&mut self.high, split)] {
            part.reset_counters(base);
        }
    }

    /// Appends the ranks of `other` (built separately, e.g. by another thread from a
    /// later part of the same file) after this schedule's operations. The result is
    /// exactly what one builder fed both parts in order would have made. Fails if a
    /// rank is defined in both.
    pub fn append(&mut self, other: Schedule) -> Result<(), BuildError> {
        assert_eq!(
            self.num_ranks, other.num_ranks,
            "appending schedules of different sizes"
        );
        assert!(
            !self.counted_down && !other.counted_down,
            "appending a schedule that has been run"
        );
        if let Some(r) = (0..self.num_ranks as usize).find(|&r| self.defined[r] && other.defined[r]) {
            return Err(BuildError::DuplicateRank(r as Rank));
        }
        if self.num_ops() + other.num_ops() > MAX_OPS {
            return Err(BuildError::TooManyOps);
        }
        let op_off = self.num_ops() as u32;
        // A third part would be copied in; the usual second one is kept where it is.
        let mut other = other;
        other.join_parts();
        if self.split != u32::MAX {
            self.join_parts();
        }
        let mut high = std::mem::take(&mut other.low);
        high.shift_ids(op_off);
        if self.low.ops.is_empty() {
            self.low = high;
        } else {
            self.high = high;
            self.split = op_off;
        }
        if !self.contexts.is_empty() || !other.contexts.is_empty() {
            self.contexts.resize(op_off as usize, 0);
            if other.contexts.is_empty() {
                self.contexts.resize(self.num_ops(), 0);
            } else {
                self.contexts.extend_from_slice(&other.contexts);
            }
        }
        for r in 0..self.num_ranks as usize {
            if other.defined[r] {
                self.defined[r] = true;
                let [a, b] = other.ranges[r];
                self.ranges[r] = [a + op_off, b + op_off];
            }
        }
        self.num_edges += other.num_edges;
        self.has_tests |= other.has_tests;
        self.has_joins |= other.has_joins;
        self.max_cpu = self.max_cpu.max(other.max_cpu);
        self.max_nic = self.max_nic.max(other.max_nic);
        Ok(())
    }

    /// Moves the second part's operations behind the first's: one part again.
    fn join_parts(&mut self) {
        if self.split == u32::MAX {
            return;
        }
        let high = std::mem::take(&mut self.high);
        let edge_off = self.low.edges.len() as u32;
        self.low.ops.extend(high.ops.into_iter().map(|mut op| {
            if op.flags & INLINE_SUCC == 0 && op.succ != NO_SUCC {
                op.succ += edge_off;
            }
            op
        }));
        self.low.edges.extend_from_slice(&high.edges);
        self.split = u32::MAX;
    }

    /// Bytes of heap memory the schedule holds.
    pub fn heap_bytes(&self) -> usize {
        self.ranges.capacity() * 8
            + [&self.low, &self.high]
                .iter()
                .map(|p| p.ops.capacity() * std::mem::size_of::<Op>() + p.edges.capacity() * 4)
                .sum::<usize>()
    }
}

impl Part {
    /// Renumbers the operations from `off` on (ids held in `succ` and in edge lists).
    fn shift_ids(&mut self, off: u32) {
        for op in &mut self.ops {
            if op.flags & INLINE_SUCC != 0 {
                op.succ += off;
            }
        }
        let mut s = 0;
        while s < self.edges.len() {
            let n = (self.edges[s] + self.edges[s + 1]) as usize;
            for e in &mut self.edges[s + 2..s + 2 + n] {
                *e += off;
            }
            s += 2 + n;
        }
    }

    /// Recounts the dependency counters of this part, whose first op has id `base`.
    fn reset_counters(&mut self, base: u32) {
        for op in &mut self.ops {
            op.deps = 0;
        }
        for i in 0..self.ops.len() {
            let op = self.ops[i];
            if op.flags & INLINE_SUCC != 0 {
                for succ in op.succ..op.succ + run_len(&op) {
                    self.ops[(succ - base) as usize].deps += 1;
                }
            } else if op.succ != NO_SUCC {
                let s = op.succ as usize;
                let n = (self.edges[s] + self.edges[s + 1]) as usize;
                for k in s + 2..s + 2 + n {
                    let succ = self.edges[k];
                    self.ops[(succ - base) as usize].deps += 1;
                }
            }
        }
        for op in &mut self.ops {
            if op.flags & ANY_DEPS != 0 {
                op.deps = op.deps.min(1);
            }
        }
    }
}

/// Schedules are equal when they hold the same operations with the same dependencies,
/// however they are laid out in memory.
impl PartialEq for Schedule {
    fn eq(&self, o: &Schedule) -> bool {
        let same_op = |id: u32| {
            let (a, b) = (self.op_at(id), o.op_at(id));
            let plain = |op: &Op| (op.size, op.peer, op.tag, op.deps, op.rank, op.kind, op.cpu, op.nic);
            plain(a) == plain(b)
                && a.flags & ANY_DEPS == b.flags & ANY_DEPS
                && self.done_successors(OpId(id)).eq(o.done_successors(OpId(id)))
                && self.start_successors(OpId(id)).eq(o.start_successors(OpId(id)))
                && self.context(id) == o.context(id)
        };
        self.num_ranks == o.num_ranks
            && self.defined == o.defined
            && self.ranges == o.ranges
            && self.num_ops() == o.num_ops()
            && self.num_edges == o.num_edges
            && self.max_cpu == o.max_cpu
            && self.max_nic == o.max_nic
            && self.counted_down == o.counted_down
            && (0..self.num_ops() as u32).all(same_op)
    }
}

impl Eq for Schedule {}

/// Why a schedule could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// A rank number at or above `num_ranks`.
    RankOutOfRange {
        /// The rank given.
        rank: u64,
        /// The number of ranks declared.
        num_ranks: u32,
    },
    /// A rank defined twice.
    DuplicateRank(Rank),
    /// Dependencies that form a cycle; the local op indices along it, in order.
    Cycle {
        /// The rank whose schedule has the cycle.
        rank: Rank,
        /// Local indices of the operations on the cycle.
        ops: Vec<u32>,
    },
    /// A send to, or receive from, a rank that does not exist.
    PeerOutOfRange {
        /// The peer given.
        peer: u32,
        /// The number of ranks declared.
        num_ranks: u32,
    },
    /// More operations than fit in 32-bit ids.
    TooManyOps,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::RankOutOfRange { rank, num_ranks } => {
                write!(
                    f,
                    "rank {rank} is out of range: the schedule has {num_ranks} ranks (0..{})",
                    num_ranks.saturating_sub(1)
                )
            }
            BuildError::DuplicateRank(r) => write!(f, "rank {r} is defined twice"),
            BuildError::Cycle { rank, ops } => write!(f, "rank {rank}: dependency cycle through operations {ops:?}"),
            BuildError::PeerOutOfRange { peer, num_ranks } => {
                write!(
                    f,
                    "peer rank {peer} is out of range: the schedule has {num_ranks} ranks"
                )
            }
            BuildError::TooManyOps => write!(f, "the schedule has more than 2^31-1 operations"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Builds a [`Schedule`] one rank at a time.
pub struct ScheduleBuilder {
    sched: Schedule,
    cur: Option<RankBuild>,
    /// The previous rank's dependency lists, emptied, to reuse their memory.
    spare: Option<RankBuild>,
    scratch: Scratch,
}

/// [`Scratch::run_next`] of an op whose successors are not a run.
const NOT_A_RUN: u32 = u32::MAX;

/// Per-rank working memory of [`ScheduleBuilder::end_rank`], reused across ranks.
#[derive(Default)]
struct Scratch {
    nd: Vec<u32>,
    ns: Vec<u32>,
    /// Per op: the local index its next `requires` successor has if its successors so
    /// far are a run of consecutive ops, else [`NOT_A_RUN`].
    run_next: Vec<u32>,
    fill: Vec<[u32; 2]>,
    indeg: Vec<u32>,
    stack: Vec<u32>,
}

struct RankBuild {
    rank: Rank,
    first: u32,
    /// (predecessor, successor) local indices, in the order given.
    done: Vec<(u32, u32)>,
    start: Vec<(u32, u32)>,
    /// Some dependency points back to an earlier op (or to itself): only then can
    /// the rank have a cycle (converted traces never do; GOAL files may).
    backward: bool,
}

impl ScheduleBuilder {
    /// A builder for `num_ranks` ranks.
    pub fn new(num_ranks: u32) -> ScheduleBuilder {
        ScheduleBuilder {
            sched: Schedule {
                num_ranks,
                defined: vec![false; num_ranks as usize],
                ranges: vec![[0, 0]; num_ranks as usize],
                low: Part::default(),
                high: Part::default(),
                split: u32::MAX,
                contexts: Vec::new(),
                num_edges: 0,
                has_tests: false,
                has_joins: false,
                max_cpu: 0,
                max_nic: 0,
                counted_down: false,
            },
            cur: None,
            spare: None,
            scratch: Scratch::default(),
        }
    }

    /// Number of ranks.
    pub fn num_ranks(&self) -> u32 {
        self.sched.num_ranks
    }

    /// Starts `rank`'s schedule. Panics if a rank is still open.
    pub fn begin_rank(&mut self, rank: u64) -> Result<(), BuildError> {
        assert!(self.cur.is_none(), "begin_rank while a rank is open");
        if rank >= self.sched.num_ranks as u64 {
            return Err(BuildError::RankOutOfRange {
                rank,
                num_ranks: self.sched.num_ranks,
            });
        }
        let rank = rank as Rank;
        if self.sched.defined[rank as usize] {
            return Err(BuildError::DuplicateRank(rank));
        }
        self.sched.defined[rank as usize] = true;
        let (done, start) = match self.spare.take() {
            Some(s) => (s.done, s.start),
            None => (Vec::new(), Vec::new()),
        };
        self.cur = Some(RankBuild {
            rank,
            first: self.sched.low.ops.len() as u32,
            done,
            start,
            backward: false,
        });
        Ok(())
    }

    /// Adds an operation to the open rank; returns its local index.
    pub fn push(&mut self, op: Op) -> Result<u32, BuildError> {
        self.append_ops(std::slice::from_ref(&op))
    }

    /// Adds `ops` to the open rank in matching context `ctx`; returns the local index of
    /// the first. The same as [`ScheduleBuilder::push`] and
    /// [`ScheduleBuilder::set_context`] for each, with the context list filled once per
    /// call (collective templates append thousands of blocks).
    pub fn push_all(&mut self, ops: &[Op], ctx: u32) -> Result<u32, BuildError> {
        let first = self.append_ops(ops)?;
        if ctx != 0 || !self.sched.contexts.is_empty() {
            let len = self.sched.low.ops.len();
            self.sched.contexts.resize(len - ops.len(), 0);
            self.sched.contexts.resize(len, ctx);
        }
        Ok(first)
    }

    /// Checks `ops` (room, peers) and appends them to the open rank, fresh: no
    /// dependencies, no successors, owned by the rank. Returns the first's local index.
    #[inline]
    fn append_ops(&mut self, ops: &[Op]) -> Result<u32, BuildError> {
        let cur = self.cur.as_ref().expect("push outside a rank");
        let n = self.sched.num_ranks;
        if self.sched.low.ops.len() + ops.len() > MAX_OPS {
            return Err(BuildError::TooManyOps);
        }
        let bad_peer = |op: &&Op| {
            let wildcard_ok = op.kind == OpKind::Recv && op.peer == ANY_SOURCE;
            op.kind != OpKind::Calc && op.peer >= n && !wildcard_ok
        };
        if let Some(op) = ops.iter().find(bad_peer) {
            return Err(BuildError::PeerOutOfRange {
                peer: op.peer,
                num_ranks: n,
            });
        }
        let first = self.sched.low.ops.len() as u32 - cur.first;
        let rank = cur.rank;
        for op in ops {
            self.sched.max_cpu = self.sched.max_cpu.max(op.cpu);
            self.sched.max_nic = self.sched.max_nic.max(op.nic);
        }
        self.sched.low.ops.extend(ops.iter().map(|op| Op {
            succ: NO_SUCC,
            flags: 0,
            deps: 0,
            rank,
            ..*op
        }));
        Ok(first)
    }

    /// Number of operations in the open rank so far.
    pub fn open_len(&self) -> u32 {
        let cur = self.cur.as_ref().expect("no open rank");
        self.sched.low.ops.len() as u32 - cur.first
    }

    /// Puts local op `a` of the open rank in matching context `ctx`.
    pub fn set_context(&mut self, a: u32, ctx: u32) {
        let cur = self.cur.as_ref().expect("set_context outside a rank");
        let id = (cur.first + a) as usize;
        if ctx != 0 && self.sched.contexts.len() < self.sched.low.ops.len() {
            self.sched.contexts.resize(self.sched.low.ops.len(), 0);
        }
        if !self.sched.contexts.is_empty() {
            self.sched.contexts.resize(self.sched.low.ops.len(), 0);
            self.sched.contexts[id] = ctx;
        }
    }

    /// Adds a join to the open rank and returns its local index: a zero-length compute
    /// that takes no CPU ([`Schedule::is_join`]). Operations that would each wait for
    /// the same many predecessors wait for a join of them instead, which keeps the edges
    /// linear (many requests completed together, then many more posted) and the times
    /// the same.
    pub fn push_join(&mut self) -> Result<u32, BuildError> {
        let l = self.push(Op::calc(0, 0))?;
        let cur = self.cur.as_ref().expect("push_join outside a rank");
        self.sched.low.ops[(cur.first + l) as usize].flags |= JOIN;
        self.sched.has_joins = true;
        Ok(l)
    }

    /// Makes local compute `a` of the open rank a test (MPI_Test) of its local op
    /// `request`, an earlier send or receive: see [`Schedule::tested_request`].
    pub fn test_of(&mut self, a: u32, request: u32) {
        let cur = self.cur.as_ref().expect("test_of outside a rank");
        assert!(request < a, "a test of a later operation");
        let op = &mut self.sched.low.ops[(cur.first + a) as usize];
        assert_eq!(op.kind, OpKind::Calc, "a test is a compute");
        op.flags |= TEST;
        op.peer = request;
        self.sched.has_tests = true;
    }

    /// Makes local op `a` start once *any one* of its `requires` predecessors has
    /// completed (as after MPI_Waitany), instead of all of them. Call after adding them.
    pub fn any_of(&mut self, a: u32) {
        let cur = self.cur.as_ref().expect("any_of outside a rank");
        let op = &mut self.sched.low.ops[(cur.first + a) as usize];
        op.flags |= ANY_DEPS;
        op.deps = op.deps.min(1);
    }

    /// `a requires b`: local op `a` starts only after local op `b` completes.
    pub fn requires(&mut self, a: u32, b: u32) {
        let cur = self.cur.as_mut().expect("requires outside a rank");
        cur.done.push((b, a));
        cur.backward |= b >= a;
        let op = &mut self.sched.low.ops[(cur.first + a) as usize];
        op.deps += 1;
    }

    /// `a irequires b`: local op `a` starts only after local op `b` has started.
    pub fn irequires(&mut self, a: u32, b: u32) {
        let cur = self.cur.as_mut().expect("irequires outside a rank");
        cur.start.push((b, a));
        cur.backward |= b >= a;
        let op = &mut self.sched.low.ops[(cur.first + a) as usize];
        op.deps += 1;
    }

    /// Closes the open rank: lays out its successor lists and rejects cycles.
    pub fn end_rank(&mut self) -> Result<(), BuildError> {
        let cur = self.cur.take().expect("end_rank without begin_rank");
        let first = cur.first;
        let n = (self.sched.low.ops.len() as u32 - first) as usize;
        self.sched.ranges[cur.rank as usize] = [first, first + n as u32];
        self.sched.num_edges += cur.done.len() + cur.start.len();

        let sc = &mut self.scratch;
        for v in [&mut sc.nd, &mut sc.ns] {
            v.clear();
            v.resize(n, 0);
        }
        sc.run_next.clear();
        sc.run_next.resize(n, NOT_A_RUN);
        for &(b, a) in &cur.done {
            let i = b as usize;
            sc.run_next[i] = if sc.nd[i] == 0 || sc.run_next[i] == a {
                a + 1
            } else {
                NOT_A_RUN
            };
            sc.nd[i] += 1;
        }
        for &(b, _) in &cur.start {
            sc.ns[b as usize] += 1;
        }
        // `requires` successors that are a short run of consecutive ops, declared in
        // that order, are stored in the op itself; other ops get a list in the edge
        // array, filled in the order the dependencies were given (that order decides
        // which freed operation is queued first).
        let inline =
            |sc: &Scratch, i: usize| sc.ns[i] == 0 && (1..=MAX_RUN).contains(&sc.nd[i]) && sc.run_next[i] != NOT_A_RUN;
        sc.fill.clear();
        sc.fill.resize(n, [0, 0]);
        // Place every list first, then grow the edge array once.
        let edges = &mut self.sched.low.edges;
        let mut at = edges.len() as u32;
        for i in 0..n {
            if sc.nd[i] + sc.ns[i] == 0 {
                continue;
            }
            let op = &mut self.sched.low.ops[first as usize + i];
            if inline(sc, i) {
                op.succ = first + sc.run_next[i] - sc.nd[i];
                op.flags |= INLINE_SUCC | ((sc.nd[i] - 1) << RUN_SHIFT) as u8;
                continue;
            }
            op.succ = at;
            sc.fill[i] = [at + 2, at + 2 + sc.nd[i]];
            at += 2 + sc.nd[i] + sc.ns[i];
        }
        edges.resize(at as usize, 0);
        for i in 0..n {
            let [d, _] = sc.fill[i];
            if d != 0 {
                let h = d as usize - 2;
                edges[h] = sc.nd[i];
                edges[h + 1] = sc.ns[i];
            }
        }
        for (kind, list) in [(0, &cur.done), (1, &cur.start)] {
            for &(b, a) in list.iter() {
                let i = b as usize;
                if inline(sc, i) {
                    continue;
                }
                self.sched.low.edges[sc.fill[i][kind] as usize] = first + a;
                sc.fill[i][kind] += 1;
            }
        }
        // With every dependency pointing forward, definition order is a topological one.
        let acyclic = !cur.backward || self.rank_is_acyclic(first, n);
        let result = if acyclic {
            Ok(())
        } else {
            Err(BuildError::Cycle {
                rank: cur.rank,
                ops: find_cycle(n as u32, &cur.done, &cur.start),
            })
        };
        // Keep the dependency lists' memory for the next rank.
        let mut cur = cur;
        cur.done.clear();
        cur.start.clear();
        self.spare = Some(cur);
        result
    }

    /// Kahn's algorithm over the rank's laid-out successor lists.
    fn rank_is_acyclic(&mut self, first: u32, n: usize) -> bool {
        let sc = &mut self.scratch;
        sc.indeg.clear();
        sc.indeg.resize(n, 0);
        for v in 0..n as u32 {
            let id = OpId(first + v);
            for w in self.sched.done_successors(id).chain(self.sched.start_successors(id)) {
                sc.indeg[(w - first) as usize] += 1;
            }
        }
        sc.stack.clear();
        sc.stack.extend((0..n as u32).filter(|&i| sc.indeg[i as usize] == 0));
        let mut seen = 0;
        while let Some(v) = sc.stack.pop() {
            seen += 1;
            let id = OpId(first + v);
            for w in self.sched.done_successors(id).chain(self.sched.start_successors(id)) {
                let d = &mut sc.indeg[(w - first) as usize];
                *d -= 1;
                if *d == 0 {
                    sc.stack.push(w - first);
                }
            }
        }
        seen == n
    }

    /// The finished schedule. Panics if a rank is still open.
    pub fn finish(mut self) -> Schedule {
        assert!(self.cur.is_none(), "finish while a rank is open");
        if !self.sched.contexts.is_empty() {
            self.sched.contexts.resize(self.sched.low.ops.len(), 0);
        }
        self.sched.low.ops.shrink_to_fit();
        self.sched.low.edges.shrink_to_fit();
        self.sched
    }
}

/// Finds a dependency cycle among `n` local ops known to have one: Kahn's algorithm
/// leaves the ops on or behind cycles, and walking predecessors among them finds one.
fn find_cycle(n: u32, done: &[(u32, u32)], start: &[(u32, u32)]) -> Vec<u32> {
    let n = n as usize;
    let mut indeg = vec![0u32; n];
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(b, a) in done.iter().chain(start) {
        indeg[a as usize] += 1;
        adj[b as usize].push(a);
    }
    let mut stack: Vec<u32> = (0..n as u32).filter(|&i| indeg[i as usize] == 0).collect();
    let mut seen = 0usize;
    while let Some(v) = stack.pop() {
        seen += 1;
        for &w in &adj[v as usize] {
            indeg[w as usize] -= 1;
            if indeg[w as usize] == 0 {
                stack.push(w);
            }
        }
    }
    assert!(seen < n, "find_cycle called on an acyclic rank");
    // Every leftover op has a leftover predecessor: walk back until a repeat.
    let mut pred = vec![u32::MAX; n];
    for &(b, a) in done.iter().chain(start) {
        if indeg[a as usize] > 0 && indeg[b as usize] > 0 {
            pred[a as usize] = b;
        }
    }
    let mut v = (0..n).find(|&i| indeg[i] > 0).unwrap() as u32;
    let mut pos = vec![usize::MAX; n];
    let mut path = Vec::new();
    while pos[v as usize] == usize::MAX {
        pos[v as usize] = path.len();
        path.push(v);
        v = pred[v as usize];
    }
    let mut cycle = path[pos[v as usize]..].to_vec();
    cycle.reverse(); // predecessor walk runs backwards; report in dependency order
    cycle
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::{Op, OpKind, ANY_SOURCE};

    fn two_rank() -> Schedule {
        let mut b = ScheduleBuilder::new(2);
        b.begin_rank(1).unwrap();
        let c = b.push(Op::calc(5, 0)).unwrap();
        let s = b.push(Op::send(8, 0, 0, 0, 0)).unwrap();
        let r = b.push(Op::recv(8, 0, 0, 1, 2)).unwrap();
        b.requires(s, c);
        b.irequires(r, c);
        b.requires(r, s);
        b.end_rank().unwrap();
        b.begin_rank(0).unwrap();
        b.push(Op::recv(8, 1, 0, 0, 0)).unwrap();
        b.end_rank().unwrap();
        b.finish()
    }

    #[test]
    fn successors_keep_kind_and_order() {
        let s = two_rank();
        assert_eq!(s.num_ops(), 4);
        assert_eq!(s.num_edges(), 3);
        assert_eq!(s.rank_ops(1), 0..3);
        assert_eq!(s.rank_ops(0), 3..4);
        let list = |l: Successors<'_>| l.collect::<Vec<u32>>();
        assert_eq!(list(s.done_successors(OpId(0))), [1]);
        assert_eq!(list(s.start_successors(OpId(0))), [2]);
        assert_eq!(list(s.done_successors(OpId(1))), [2]);
        let deps: Vec<u32> = (0..4).map(|i| s.dependencies(OpId(i))).collect();
        assert_eq!(deps, vec![0, 1, 2, 0]);
        assert_eq!(s.op(OpId(3)).kind, OpKind::Recv);
        assert_eq!((s.cpus(), s.nics()), (2, 3));
        assert_eq!(s.rank_of(OpId(3)), 0);
        assert_eq!(s.local_index(OpId(2)), 2);
    }

    /// Successors stored as a run in the op and as a list behave the same: declared
    /// order, counters, and counters made whole again for a second run.
    #[test]
    fn runs_of_successors_and_lists_agree() {
        let mut b = ScheduleBuilder::new(1);
        b.begin_rank(0).unwrap();
        for _ in 0..6 {
            b.push(Op::calc(1, 0)).unwrap();
        }
        // 0 frees 1, 2, 3 (a run); 1 frees 5 then 4 (not ascending: a list); 2 frees
        // 4 and irequires-frees 5 (a list).
        for a in [1, 2, 3] {
            b.requires(a, 0);
        }
        b.requires(5, 1);
        b.requires(4, 1);
        b.requires(4, 2);
        b.irequires(5, 2);
        b.end_rank().unwrap();
        let mut s = b.finish();
        assert_eq!(s.num_edges(), 7);
        let list = |l: Successors<'_>| l.collect::<Vec<u32>>();
        assert!(matches!(s.done_successors(OpId(0)), Successors::Run(_)));
        assert_eq!(list(s.done_successors(OpId(0))), [1, 2, 3]);
        assert_eq!(s.done_successors(OpId(0)).rev().collect::<Vec<u32>>(), [3, 2, 1]);
        assert!(matches!(s.done_successors(OpId(1)), Successors::List(_)));
        assert_eq!(list(s.done_successors(OpId(1))), [5, 4]);
        assert_eq!(list(s.done_successors(OpId(2))), [4]);
        assert_eq!(list(s.start_successors(OpId(2))), [5]);
        assert_eq!(list(s.start_successors(OpId(0))), []);
        let deps = |s: &Schedule| (0..6).map(|i| s.dependencies(OpId(i))).collect::<Vec<u32>>();
        assert_eq!(deps(&s), [0, 1, 1, 1, 2, 2]);
        for _ in 0..2 {
            s.begin_run();
            let mut ready = Vec::new();
            s.satisfy(0, true, |r| ready.push(r));
            assert_eq!(ready, [1, 2, 3]);
            ready.clear();
            s.satisfy(1, true, |r| ready.push(r));
            s.satisfy(2, false, |r| ready.push(r));
            s.satisfy(2, true, |r| ready.push(r));
            assert_eq!(ready, [5, 4]);
            assert_eq!(deps(&s), [0; 6]);
        }
    }

    #[test]
    fn out_of_range_and_duplicate_ranks_are_rejected() {
        let mut b = ScheduleBuilder::new(2);
        assert_eq!(
            b.begin_rank(2),
            Err(BuildError::RankOutOfRange { rank: 2, num_ranks: 2 })
        );
        b.begin_rank(0).unwrap();
        b.end_rank().unwrap();
        assert_eq!(b.begin_rank(0), Err(BuildError::DuplicateRank(0)));
    }

    #[test]
    fn appending_parts_equals_building_at_once() {
        // Ranks 1 then 0 in one builder, versus two builders appended.
        let whole = two_rank();
        let mut a = ScheduleBuilder::new(2);
        a.begin_rank(1).unwrap();
        let c = a.push(Op::calc(5, 0)).unwrap();
        let s = a.push(Op::send(8, 0, 0, 0, 0)).unwrap();
        let r = a.push(Op::recv(8, 0, 0, 1, 2)).unwrap();
        a.requires(s, c);
        a.irequires(r, c);
        a.requires(r, s);
        a.end_rank().unwrap();
        let mut b = ScheduleBuilder::new(2);
        b.begin_rank(0).unwrap();
        b.push(Op::recv(8, 1, 0, 0, 0)).unwrap();
        b.end_rank().unwrap();
        let mut merged = a.finish();
        merged.append(b.finish()).unwrap();
        assert_eq!(merged, whole);
        let mut dup = ScheduleBuilder::new(2);
        dup.begin_rank(0).unwrap();
        dup.end_rank().unwrap();
        assert_eq!(merged.append(dup.finish()), Err(BuildError::DuplicateRank(0)));
    }

    #[test]
    fn peers_must_exist() {
        let mut b = ScheduleBuilder::new(2);
        b.begin_rank(0).unwrap();
        assert_eq!(
            b.push(Op::send(1, 2, 0, 0, 0)),
            Err(BuildError::PeerOutOfRange { peer: 2, num_ranks: 2 })
        );
        assert!(b.push(Op::recv(1, ANY_SOURCE, 0, 0, 0)).is_ok());
        assert!(b.push(Op::send(1, ANY_SOURCE, 0, 0, 0)).is_err());
        assert!(b.push(Op::calc(1, 0)).is_ok());
    }

    #[test]
    fn backward_dependencies_without_a_cycle_are_accepted() {
        // Op 0 waits for op 2, defined after it; op 1 for op 0: no cycle.
        let mut b = ScheduleBuilder::new(1);
        b.begin_rank(0).unwrap();
        for _ in 0..3 {
            b.push(Op::calc(1, 0)).unwrap();
        }
        b.requires(0, 2);
        b.irequires(1, 0);
        assert_eq!(b.end_rank(), Ok(()));
        // And a self-dependency is a cycle of one.
        b.begin_rank(0).unwrap_err();
        let mut b = ScheduleBuilder::new(1);
        b.begin_rank(0).unwrap();
        b.push(Op::calc(1, 0)).unwrap();
        b.requires(0, 0);
        assert!(matches!(b.end_rank(), Err(BuildError::Cycle { rank: 0, .. })));
    }

    #[test]
    fn cycles_are_found_through_both_dependency_kinds() {
        let mut b = ScheduleBuilder::new(1);
        b.begin_rank(0).unwrap();
        for _ in 0..4 {
            b.push(Op::calc(1, 0)).unwrap();
        }
        b.requires(1, 0);
        b.requires(2, 1);
        b.irequires(3, 2);
        b.requires(1, 3);
        match b.end_rank() {
            Err(BuildError::Cycle { rank: 0, ops }) => {
                let mut sorted = ops.clone();
                sorted.sort();
                assert_eq!(sorted, vec![1, 2, 3]);
                // Consecutive entries are dependencies: 1 -> 2 -> 3 -> 1.
                let i = ops.iter().position(|&x| x == 1).unwrap();
                assert_eq!(ops[(i + 1) % 3], 2);
            }
            other => panic!("expected a cycle, got {other:?}"),
        }
    }
}
