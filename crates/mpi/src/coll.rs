//! Collective operations as point-to-point schedules.
//!
//! Every algorithm is a function that, for one rank of a communicator, emits the sends,
//! receives and their dependencies that this rank performs, through an [`Emitter`]. The
//! same description drives two emitters: [`emit::Template`] records the operations and
//! appends them to a [`crate::ScheduleBuilder`] (for simulation), and [`verify`] replays all ranks
//! symbolically to check that the right data ends in the right place.
//!
//! Data is described in *blocks*: a collective's buffer space cut into pieces whose sizes
//! the layout gives (see [`Collective`] for what blocks mean per operation). A message
//! names the blocks it carries; its size is their total. A receive either copies blocks or
//! combines them into the receiver's partial results (reductions).
//!
//! One algorithm per file under `coll/<operation>/`, each citing where it comes from;
//! [`registry`] lists them and [`find`] looks one up by name.

pub mod allgather;
pub mod allgatherv;
pub mod allreduce;
pub mod alltoall;
pub mod alltoallv;
pub mod barrier;
pub mod bcast;
pub mod emit;
pub mod gather;
pub mod gatherv;
pub mod reduce;
pub mod reduce_scatter;
pub mod scan;
pub mod scatter;
pub mod scatterv;
pub mod select;
mod tree;
pub mod verify;

use std::fmt;
pub(crate) use tree::TreeNode;

/// A collective operation. What its blocks are:
///
/// | operation | blocks | before | after |
/// |---|---|---|---|
/// | Bcast | pieces of the message (algorithm's choice) | root has all | everyone has all |
/// | Reduce, Allreduce, Scan, Exscan | pieces of the vector (algorithm's choice) | everyone has its own contribution to every piece | root / everyone has every piece reduced over all ranks; Scan: over ranks `0..=r`; Exscan: `0..r` |
/// | ReduceScatter | one per rank (`counts`) | as Reduce | rank `r` has piece `r` reduced over all |
/// | Gather(v), Allgather(v) | one per rank (`bytes` or `counts`) | rank `r` has block `r` | root / everyone has all |
/// | Scatter(v) | one per rank | root has all | rank `r` has block `r` |
/// | Alltoall(v) | `s·P + d` for each pair | rank `s` has `(s, ·)` | rank `d` has `(·, d)` |
/// | Barrier | one zero-byte token per rank | rank `r` has token `r` | everyone has heard from everyone |
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Collective {
    /// MPI_Bcast.
    Bcast,
    /// MPI_Reduce.
    Reduce,
    /// MPI_Allreduce.
    Allreduce,
    /// MPI_Allgather.
    Allgather,
    /// MPI_Allgatherv.
    Allgatherv,
    /// MPI_Alltoall.
    Alltoall,
    /// MPI_Alltoallv.
    Alltoallv,
    /// MPI_Gather.
    Gather,
    /// MPI_Gatherv.
    Gatherv,
    /// MPI_Scatter.
    Scatter,
    /// MPI_Scatterv.
    Scatterv,
    /// MPI_Reduce_scatter.
    ReduceScatter,
    /// MPI_Barrier.
    Barrier,
    /// MPI_Scan.
    Scan,
    /// MPI_Exscan.
    Exscan,
}

impl Collective {
    /// Every collective.
    pub const ALL: [Collective; 15] = [
        Collective::Bcast,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Allgather,
        Collective::Allgatherv,
        Collective::Alltoall,
        Collective::Alltoallv,
        Collective::Gather,
        Collective::Gatherv,
        Collective::Scatter,
        Collective::Scatterv,
        Collective::ReduceScatter,
        Collective::Barrier,
        Collective::Scan,
        Collective::Exscan,
    ];

    /// The lower-case name used on the command line (`--coll bcast=binomial`).
    pub fn name(self) -> &'static str {
        match self {
            Collective::Bcast => "bcast",
            Collective::Reduce => "reduce",
            Collective::Allreduce => "allreduce",
            Collective::Allgather => "allgather",
            Collective::Allgatherv => "allgatherv",
            Collective::Alltoall => "alltoall",
            Collective::Alltoallv => "alltoallv",
            Collective::Gather => "gather",
            Collective::Gatherv => "gatherv",
            Collective::Scatter => "scatter",
            Collective::Scatterv => "scatterv",
            Collective::ReduceScatter => "reduce_scatter",
            Collective::Barrier => "barrier",
            Collective::Scan => "scan",
            Collective::Exscan => "exscan",
        }
    }

    /// The collective called `name`.
    pub fn from_name(name: &str) -> Option<Collective> {
        Collective::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one rank knows about a collective call.
#[derive(Clone, Debug, Eq)]
pub struct CollSpec {
    /// The operation.
    pub coll: Collective,
    /// Communicator size.
    pub size: u32,
    /// This rank's index in the communicator.
    pub me: u32,
    /// Root (communicator index) of rooted operations.
    pub root: u32,
    /// Bytes: the message (bcast), the vector (reductions, scans), or one rank's block
    /// (gather, scatter, allgather, alltoall per pair).
    pub bytes: u64,
    /// Per-rank bytes: blocks of the v-variants, receive counts of reduce_scatter.
    pub counts: Vec<u64>,
    /// Alltoallv: bytes this rank sends to each rank.
    pub send_counts: Vec<u64>,
    /// Alltoallv: bytes this rank receives from each rank.
    pub recv_counts: Vec<u64>,
    /// Bytes per element of the datatype (1 when unknown): algorithms that cut vectors
    /// by element counts, as SimGrid's do, need it.
    pub elem: u64,
}

/// Equal slices, without calling `memcmp` for empty ones: an empty `Vec`'s pointer is
/// dangling, and glibc's AVX-512 `memcmp` reads it with a masked load whose fault
/// suppression takes a microcode assist (on this VM, more than the rest of a template
/// lookup; 8 % of a 16-rank replay's samples).
fn same(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

impl PartialEq for CollSpec {
    fn eq(&self, o: &CollSpec) -> bool {
        self.coll == o.coll
            && self.size == o.size
            && self.me == o.me
            && self.root == o.root
            && self.bytes == o.bytes
            && self.elem == o.elem
            && same(&self.counts, &o.counts)
            && same(&self.send_counts, &o.send_counts)
            && same(&self.recv_counts, &o.recv_counts)
    }
}

impl std::hash::Hash for CollSpec {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.coll, self.size, self.me, self.root, self.bytes, self.elem).hash(h);
        self.counts.hash(h);
        self.send_counts.hash(h);
        self.recv_counts.hash(h);
    }
}

impl CollSpec {
    /// A spec for `coll` on rank `me` of `size` with `bytes` and root 0.
    pub fn new(coll: Collective, size: u32, me: u32, bytes: u64) -> CollSpec {
        CollSpec {
            coll,
            size,
            me,
            root: 0,
            bytes,
            counts: Vec::new(),
            send_counts: Vec::new(),
            recv_counts: Vec::new(),
            elem: 1,
        }
    }

    /// This rank's index relative to the root (`(me - root) mod size`).
    pub fn vrank(&self) -> u32 {
        (self.me + self.size - self.root) % self.size
    }

    /// The communicator index of relative rank `v`.
    pub fn real(&self, v: u32) -> u32 {
        (v + self.root) % self.size
    }

    /// The communicator ranks of relative ranks `v .. v + count`: the blocks a binomial
    /// gather or scatter moves for a subtree.
    pub fn reals(&self, v: u32, count: u32) -> Vec<u32> {
        (v..v + count).map(|x| self.real(x)).collect()
    }
}

/// A step emitted for this rank (an index local to the collective).
pub type Step = u32;

/// How a receive merges the blocks it gets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Merge {
    /// The received blocks replace the receiver's.
    Copy,
    /// The received partial results are combined with the receiver's (reductions); the
    /// two must cover disjoint sets of ranks.
    Reduce,
    /// Tokens are added to the receiver's (barriers; overlaps allowed).
    Union,
}

/// Where an algorithm writes one rank's operations.
pub trait Emitter {
    /// Cuts the buffer into blocks of these sizes (vector collectives; must add up to the
    /// vector). Gathers, scatters, all-to-alls and barriers have a fixed layout.
    fn layout(&mut self, sizes: &[u64]);
    /// The size of block `b` in bytes.
    fn block_size(&self, b: u32) -> u64;
    /// Sends `blocks` to communicator rank `to`, after the steps `after` complete (or after
    /// the collective starts, if `after` is empty), in a message of their size.
    fn send(&mut self, to: u32, tag: u32, blocks: &[u32], after: &[Step]) -> Step {
        let bytes = blocks.iter().map(|&b| self.block_size(b)).sum();
        self.send_sized(to, tag, blocks, bytes, after)
    }
    /// Receives `blocks` from `from`, merging them as `merge` says.
    fn recv(&mut self, from: u32, tag: u32, blocks: &[u32], merge: Merge, after: &[Step]) -> Step {
        let bytes = blocks.iter().map(|&b| self.block_size(b)).sum();
        self.recv_sized(from, tag, blocks, merge, bytes, after)
    }
    /// [`Emitter::send`] in a message of `bytes` bytes rather than the blocks' size:
    /// SimGrid pads a vector shorter than one element per rank and sends the padding.
    fn send_sized(&mut self, to: u32, tag: u32, blocks: &[u32], bytes: u64, after: &[Step]) -> Step;
    /// [`Emitter::recv`] of a message of `bytes` bytes (see [`Emitter::send_sized`]).
    fn recv_sized(&mut self, from: u32, tag: u32, blocks: &[u32], merge: Merge, bytes: u64, after: &[Step]) -> Step;
    /// Sends a message that carries no data (a synchronisation) of `bytes` bytes.
    fn send_sync(&mut self, to: u32, tag: u32, bytes: u64, after: &[Step]) -> Step;
    /// Receives a message that carries no data.
    fn recv_sync(&mut self, from: u32, tag: u32, bytes: u64, after: &[Step]) -> Step;
    /// The algorithm selected for `s`, for algorithms made of other collectives that use
    /// whatever runs that collective (SimGrid's `allreduce__redbcast` calls the selected
    /// reduce and bcast); `None` (the default) leaves the choice to the algorithm.
    fn sub_algorithm(&self, _s: &CollSpec) -> Option<&'static Algorithm> {
        None
    }
    /// Whether this rank's part may take `steps` more steps: false once they would take
    /// it past what one part may have ([`MAX_STEPS`]), the call being refused then. An
    /// algorithm about to emit at least that many (one per segment of a huge message)
    /// asks first and stops, instead of emitting millions of steps to throw away.
    fn has_room(&mut self, _steps: u64) -> bool {
        true
    }
}

/// One algorithm of one collective.
#[derive(Copy, Clone)]
pub struct Algorithm {
    /// The collective it implements.
    pub coll: Collective,
    /// Its name on the command line.
    pub name: &'static str,
    /// Where it comes from (library, file) and what it is.
    pub source: &'static str,
    /// The name of the same algorithm in SimGrid 3.32 (`--cfg=smpi/<coll>:<name>`), if it
    /// has one; used to run both simulators with the same algorithms.
    pub simgrid: Option<&'static str>,
    /// Emits one rank's operations.
    pub emit: fn(&CollSpec, &mut dyn Emitter),
    /// Calls on which every rank emits the same steps up to its peers, stored as the
    /// returned [`Peers`] says (`None`: not known alike). Called with `me` = 0; it must
    /// not depend on `me`. When it answers, the call's template is recorded once and
    /// given to every rank without running the algorithm again (at 2^17 ranks that
    /// check was 14 % of a replay); `tests/collectives.rs` checks each answer on every
    /// rank of many sizes.
    pub alike: Option<fn(&CollSpec) -> Option<emit::Peers>>,
}

impl fmt::Debug for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.coll, self.name)
    }
}

/// The first registered algorithm of `s`'s collective: the default choice, and what
/// algorithms made of others use when nothing else is selected. Every collective has
/// one (tests/collectives.rs checks).
pub fn first_algorithm(s: &CollSpec) -> &'static Algorithm {
    registry()
        .into_iter()
        .find(|a| a.coll == s.coll)
        .unwrap_or_else(|| panic!("no algorithm registered for {}", s.coll))
}

/// Every algorithm, grouped by collective.
pub fn registry() -> Vec<&'static Algorithm> {
    let lists: [&'static [Algorithm]; 15] = [
        bcast::ALGORITHMS,
        reduce::ALGORITHMS,
        allreduce::ALGORITHMS,
        allgather::ALGORITHMS,
        allgatherv::ALGORITHMS,
        alltoall::ALGORITHMS,
        alltoallv::ALGORITHMS,
        gather::ALGORITHMS,
        gatherv::ALGORITHMS,
        scatter::ALGORITHMS,
        scatterv::ALGORITHMS,
        reduce_scatter::ALGORITHMS,
        barrier::ALGORITHMS,
        scan::ALGORITHMS,
        scan::EXSCAN_ALGORITHMS,
    ];
    lists.iter().flat_map(|l| l.iter()).collect()
}

/// The algorithm `name` of `coll`.
pub fn find(coll: Collective, name: &str) -> Option<&'static Algorithm> {
    registry().into_iter().find(|a| a.coll == coll && a.name == name)
}

/// Splits `total` bytes into `n` pieces as evenly as possible (the first ones larger).
pub fn split_even(total: u64, n: u32) -> Vec<u64> {
    let n = n.max(1) as u64;
    (0..n).map(|i| total / n + u64::from(i < total % n)).collect()
}

/// Block ids `lo..hi`.
pub(crate) fn block_range(lo: u32, hi: u32) -> Vec<u32> {
    (lo..hi).collect()
}

/// Elements per segment of `seg` bytes over a vector of `count` elements of `elem` bytes,
/// as Open MPI's `COLL_TUNED_COMPUTED_SEGCOUNT` (and SimGrid's copies of it) round: the
/// nearest whole number of elements (down, or up when the leftover is more than half an
/// element); `count` itself when a segment holds no whole element or the whole vector.
pub(crate) fn computed_segcount(seg: u64, elem: u64, count: u64) -> u64 {
    if seg < elem || seg >= elem * count {
        return count;
    }
    let n = seg / elem;
    if seg - n * elem > elem / 2 {
        n + 1
    } else {
        n
    }
}

/// [`Algorithm::alike`] of algorithms in which rank `me` exchanges with `me XOR 2^i`:
/// alike on powers of two.
pub fn alike_by_xor_on_powers_of_two(s: &CollSpec) -> Option<emit::Peers> {
    s.size.is_power_of_two().then_some(emit::Peers::Xor)
}

/// [`Algorithm::alike`] of algorithms in which rank `me` sends to `me + d` and receives
/// from `me - d` (modulo the size), messages of sizes that do not depend on `me`.
pub fn alike_by_offset(_: &CollSpec) -> Option<emit::Peers> {
    Some(emit::Peers::Offset)
}

/// Largest power of two not above `n` (`n >= 1`).
pub fn pow2_floor(n: u32) -> u32 {
    1 << (31 - n.leading_zeros())
}

/// Most operations one rank's part of one collective call may have: a template past it
/// is refused (a segmented algorithm on a huge message, or a linear one on millions of
/// ranks), with an error instead of exhausting memory. 2^22 (4 M) steps take about
/// 150 MB per distinct template; a pipelined call has one per position in its chain
/// or tree, so even a few ranks may hold several (at 2^24, four ranks' pipelined
/// reduce peaked at 2.3 GB). A 1 KiB-segmented message of 4 GiB still fits.
pub const MAX_STEPS: usize = 1 << 22;

/// Cuts `total` bytes into segments of `seg` bytes (the last shorter); one empty segment
/// for an empty message. Past [`MAX_STEPS`] segments the list stops one beyond it, its
/// last segment taking the rest: the call has too many steps to be expanded anyway, and
/// listing every segment could take terabytes.
pub fn segments(total: u64, seg: u64) -> Vec<u64> {
    segments_within(total, seg, MAX_STEPS)
}

/// [`segments`] stopping one past `most` segments.
fn segments_within(total: u64, seg: u64, most: usize) -> Vec<u64> {
    if total == 0 || seg == 0 {
        return vec![total];
    }
    let n = total.div_ceil(seg).min(most as u64 + 1);
    (0..n).map(|i| if i + 1 == n { total - i * seg } else { seg }).collect()
}

/// An algorithm made of phases run one after the other (a reduce then a broadcast, a
/// scatter then an allgather): steps a later phase emits without dependencies wait for
/// every step of the phases before it on this rank.
pub struct Phases<'e> {
    inner: &'e mut dyn Emitter,
    base: Vec<Step>,
    current: Vec<Step>,
}

impl<'e> Phases<'e> {
    /// Starts the first phase.
    pub fn new(inner: &'e mut dyn Emitter) -> Phases<'e> {
        Phases {
            inner,
            base: Vec::new(),
            current: Vec::new(),
        }
    }

    /// Ends a phase: what follows waits for it (if it emitted anything on this rank).
    pub fn next_phase(&mut self) {
        if !self.current.is_empty() {
            self.base = std::mem::take(&mut self.current);
        }
    }

    fn deps<'a>(&'a self, after: &'a [Step]) -> &'a [Step] {
        if after.is_empty() {
            &self.base
        } else {
            after
        }
    }
}

/// An emitter that renumbers blocks: block `b` of the algorithm it is given is block
/// `b + offset` of the collective (for an algorithm run on one part of the vector, like
/// the remainder of SimGrid's logical-ring allreduce). A layout it is given cuts that
/// part (the blocks from `offset` on) and keeps the blocks before it.
pub struct Shifted<'e> {
    inner: &'e mut dyn Emitter,
    offset: u32,
}

impl<'e> Shifted<'e> {
    /// Blocks of what is emitted through it start at `offset`.
    pub fn new(inner: &'e mut dyn Emitter, offset: u32) -> Shifted<'e> {
        Shifted { inner, offset }
    }

    fn shift(&self, blocks: &[u32]) -> Vec<u32> {
        blocks.iter().map(|b| b + self.offset).collect()
    }
}

impl Emitter for Shifted<'_> {
    /// Cuts the shifted block (the last one) into `sizes`, keeping the blocks before it.
    fn layout(&mut self, sizes: &[u64]) {
        let mut all: Vec<u64> = (0..self.offset).map(|b| self.inner.block_size(b)).collect();
        all.extend_from_slice(sizes);
        self.inner.layout(&all);
    }
    fn block_size(&self, b: u32) -> u64 {
        self.inner.block_size(b + self.offset)
    }
    fn send_sized(&mut self, to: u32, tag: u32, blocks: &[u32], bytes: u64, after: &[Step]) -> Step {
        let b = self.shift(blocks);
        self.inner.send_sized(to, tag, &b, bytes, after)
    }
    fn recv_sized(&mut self, from: u32, tag: u32, blocks: &[u32], merge: Merge, bytes: u64, after: &[Step]) -> Step {
        let b = self.shift(blocks);
        self.inner.recv_sized(from, tag, &b, merge, bytes, after)
    }
    fn send_sync(&mut self, to: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        self.inner.send_sync(to, tag, bytes, after)
    }
    fn recv_sync(&mut self, from: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        self.inner.recv_sync(from, tag, bytes, after)
    }
    fn sub_algorithm(&self, s: &CollSpec) -> Option<&'static Algorithm> {
        self.inner.sub_algorithm(s)
    }
    fn has_room(&mut self, steps: u64) -> bool {
        self.inner.has_room(steps)
    }
}

impl Emitter for Phases<'_> {
    fn layout(&mut self, sizes: &[u64]) {
        self.inner.layout(sizes);
    }
    fn block_size(&self, b: u32) -> u64 {
        self.inner.block_size(b)
    }
    fn send_sized(&mut self, to: u32, tag: u32, blocks: &[u32], bytes: u64, after: &[Step]) -> Step {
        let d = self.deps(after).to_vec();
        let s = self.inner.send_sized(to, tag, blocks, bytes, &d);
        self.current.push(s);
        s
    }
    fn recv_sized(&mut self, from: u32, tag: u32, blocks: &[u32], merge: Merge, bytes: u64, after: &[Step]) -> Step {
        let d = self.deps(after).to_vec();
        let s = self.inner.recv_sized(from, tag, blocks, merge, bytes, &d);
        self.current.push(s);
        s
    }
    fn send_sync(&mut self, to: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        let d = self.deps(after).to_vec();
        let s = self.inner.send_sync(to, tag, bytes, &d);
        self.current.push(s);
        s
    }
    fn recv_sync(&mut self, from: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        let d = self.deps(after).to_vec();
        let s = self.inner.recv_sync(from, tag, bytes, &d);
        self.current.push(s);
        s
    }
    fn sub_algorithm(&self, s: &CollSpec) -> Option<&'static Algorithm> {
        self.inner.sub_algorithm(s)
    }
    fn has_room(&mut self, steps: u64) -> bool {
        self.inner.has_room(steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_cut_the_message_and_stop_one_past_the_limit_keeping_the_total() {
        assert_eq!(segments(10, 4), vec![4, 4, 2]);
        assert_eq!(segments(8, 4), vec![4, 4]);
        assert_eq!(segments(0, 4), vec![0]);
        assert_eq!(segments(5, 0), vec![5]);
        assert_eq!(segments_within(1000, 10, 5), vec![10, 10, 10, 10, 10, 950]);
        assert_eq!(segments_within(50, 10, 5), vec![10; 5]);
    }
}
