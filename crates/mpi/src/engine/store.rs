//! Where the engine's operations come from: the [`OpStore`] seam. A whole [`Schedule`]
//! (a GOAL file: every operation exists from the start) and the live store of
//! `crate::live` (operations created as ranks reach them and freed once done) both
//! implement it, so one engine runs both.
//!
//! The engine never looks at dependencies itself: it tells the store that an operation
//! started or completed, and the store hands back the operations that became ready, in
//! the order their dependencies were declared (the order decides ties, and so times).

use crate::engine::Error;
use crate::op::{Op, OpId, JOIN, TEST};
use crate::schedule::Schedule;

/// A source of operations and their dependencies for one run.
pub trait OpStore {
    /// Number of ranks.
    fn num_ranks(&self) -> u32;
    /// CPUs per rank that operations may name (highest `cpu` + 1).
    fn cpus(&self) -> usize;
    /// NICs per rank that operations may name (highest `nic` + 1).
    fn nics(&self) -> usize;
    /// Operation `id`, which must be live (created and not yet retired).
    fn op(&self, id: u32) -> &Op;
    /// The matching context of operation `id`.
    fn context(&self, id: u32) -> u32;
    /// Whether any operation may be a join (a fast check before [`OpStore::is_join`]).
    fn has_joins(&self) -> bool;
    /// True if `id` is a join: done, without its CPU, the moment its dependencies are.
    #[inline]
    fn is_join(&self, id: u32) -> bool {
        self.op(id).flags & JOIN != 0
    }
    /// True if `id` is a compute that tests a request (MPI_Test).
    #[inline]
    fn is_test(&self, id: u32) -> bool {
        self.op(id).flags & TEST != 0
    }
    /// True if send `id` is synchronous (MPI_Ssend): it completes only once a matching
    /// receive is posted, whatever its size, so it is never eager or detached.
    #[inline]
    fn is_synchronous(&self, _id: u32) -> bool {
        false
    }
    /// Whether any operation may be a cancellation (a fast check before
    /// [`OpStore::is_cancel`]).
    #[inline(always)]
    fn has_cancels(&self) -> bool {
        false
    }
    /// True if `id` is an MPI_Cancel of a receive (a compute of no length).
    fn is_cancel(&self, _id: u32) -> bool {
        false
    }
    /// The receive cancellation `id` cancels, if it has not completed.
    fn cancel_target(&self, _id: u32) -> Option<u32> {
        None
    }
    /// Cancellation `id` ran: `cancelled` says whether its receive was taken out of
    /// matching before it matched (it then completes with nothing received).
    fn cancelled(&mut self, _id: u32, _cancelled: bool) {}
    /// Starts rank `rank`'s program at time `now` and appends the operations it can
    /// start at once to `ready`. Called once per rank, in rank order, before anything
    /// else happens.
    fn begin_rank(&mut self, rank: u32, now: u64, ready: &mut Vec<u32>);
    /// Operation `id` started: appends what waited for that (`irequires`) to `ready`.
    fn started(&mut self, id: u32, ready: &mut Vec<u32>);
    /// Operation `id` completed at `now`: appends what waited for it to `ready`, and,
    /// if its rank's program waited for it, whatever the program does next.
    fn completed(&mut self, id: u32, now: u64, ready: &mut Vec<u32>);
    /// The engine holds no reference to completed operation `id` any more (a send's
    /// message has been delivered; other operations at completion). A live store may
    /// reuse its slot.
    fn retire(&mut self, id: u32);
    /// The first error a rank's program met (a bad trace line found while running), if
    /// any: the run stops there.
    fn take_error(&mut self) -> Option<Error>;
    /// A test found its request complete before: it costs nothing and looks at nothing.
    fn test_found(&self, test: u32) -> bool;
    /// Test `test` looks at its request: true, and remembered, if it is complete.
    fn test_look(&mut self, test: u32) -> bool;
    /// Operation `id` is complete as far as tests can see (a send done, a receive's
    /// data arrived).
    fn data_in(&mut self, id: u32);
    /// A hint that operation `id` will be handled soon (its successors' too, where a
    /// store can guess them).
    #[inline(always)]
    fn prefetch_op(&self, id: u32) {
        simpi_kernel::prefetch(self.op(id));
    }
    /// Send `send` matched receive `recv` (a live front end copies the payload).
    fn matched(&mut self, _send: u32, _recv: u32) {}
    /// Whether a driver asked the run to pause after the current event (a rank of an
    /// on-line program may continue).
    fn should_pause(&self) -> bool {
        false
    }
    /// Position of `id` among its rank's operations, in creation order.
    fn local_index(&self, id: u32) -> u64;
    /// Operations created so far.
    fn created(&self) -> u64;
    /// Every rank's program has ended (it will create no more operations).
    fn programs_done(&self) -> bool;
    /// For a stall report: rank `rank`'s operations waiting for a dependency, how many
    /// operations it created, and where its program stands, if the store knows.
    fn stalled(&self, rank: u32) -> (Vec<OpId>, u32, Option<String>);
    /// A description of operation `id` for a stall report, with where it came from if
    /// the store knows.
    fn describe(&self, id: u32) -> String;
}

/// A whole schedule as an [`OpStore`], with the test state of its requests.
pub struct ScheduleStore<'s> {
    sched: &'s mut Schedule,
    /// Per operation: complete as far as tests can see (only if the schedule tests).
    complete: Bits,
    /// Per operation: a test found it complete.
    found: Bits,
}

impl<'s> ScheduleStore<'s> {
    /// Wraps `sched` for one run: its dependency counters are made whole first.
    pub fn new(sched: &'s mut Schedule) -> ScheduleStore<'s> {
        sched.begin_run();
        let n = if sched.has_tests() { sched.num_ops() } else { 0 };
        ScheduleStore {
            sched,
            complete: Bits::new(n),
            found: Bits::new(n),
        }
    }

    /// The schedule.
    pub fn schedule(&self) -> &Schedule {
        self.sched
    }
}

impl OpStore for ScheduleStore<'_> {
    fn num_ranks(&self) -> u32 {
        self.sched.num_ranks()
    }

    fn cpus(&self) -> usize {
        self.sched.cpus()
    }

    fn nics(&self) -> usize {
        self.sched.nics()
    }

    #[inline(always)]
    fn op(&self, id: u32) -> &Op {
        self.sched.op(OpId(id))
    }

    #[inline(always)]
    fn context(&self, id: u32) -> u32 {
        self.sched.context(id)
    }

    #[inline(always)]
    fn has_joins(&self) -> bool {
        self.sched.has_joins()
    }

    fn begin_rank(&mut self, rank: u32, _now: u64, ready: &mut Vec<u32>) {
        for id in self.sched.rank_ops(rank) {
            if self.sched.dependencies(OpId(id)) == 0 {
                ready.push(id);
            }
        }
    }

    #[inline(always)]
    fn started(&mut self, id: u32, ready: &mut Vec<u32>) {
        self.sched.satisfy(id, false, |s| ready.push(s));
    }

    #[inline(always)]
    fn completed(&mut self, id: u32, _now: u64, ready: &mut Vec<u32>) {
        self.data_in(id);
        self.sched.satisfy(id, true, |s| ready.push(s));
    }

    #[inline(always)]
    fn prefetch_op(&self, id: u32) {
        self.sched.prefetch_near(id);
    }

    #[inline(always)]
    fn retire(&mut self, _id: u32) {}

    fn take_error(&mut self) -> Option<Error> {
        None
    }

    fn test_found(&self, test: u32) -> bool {
        let req = self.sched.tested_request(OpId(test)).expect("a test").0;
        self.found.get(req)
    }

    fn test_look(&mut self, test: u32) -> bool {
        let req = self.sched.tested_request(OpId(test)).expect("a test").0;
        let done = self.complete.get(req);
        if done {
            self.found.set(req);
        }
        done
    }

    #[inline(always)]
    fn data_in(&mut self, id: u32) {
        if !self.complete.is_empty() {
            self.complete.set(id);
        }
    }

    fn local_index(&self, id: u32) -> u64 {
        self.sched.local_index(OpId(id)) as u64
    }

    fn created(&self) -> u64 {
        self.sched.num_ops() as u64
    }

    fn programs_done(&self) -> bool {
        true
    }

    fn stalled(&self, rank: u32) -> (Vec<OpId>, u32, Option<String>) {
        let r = self.sched.rank_ops(rank);
        let total = r.end - r.start;
        let waiting = r.map(OpId).filter(|&id| self.sched.dependencies(id) > 0).collect();
        (waiting, total, None)
    }

    fn describe(&self, id: u32) -> String {
        let what = describe_op(self.op(id));
        format!(
            "{what} (operation #{} of rank {})",
            self.sched.local_index(OpId(id)),
            self.sched.rank_of(OpId(id))
        )
    }
}

/// `send 8b to 3 tag 0`, `recv 8b from any tag 1`, `calc 100`.
pub fn describe_op(op: &Op) -> String {
    use crate::op::{show_wild, OpKind};
    match op.kind {
        OpKind::Send => format!("send {}b to {} tag {}", op.size, op.peer, show_wild(op.tag)),
        OpKind::Recv => format!(
            "recv {}b from {} tag {}",
            op.size,
            show_wild(op.peer),
            show_wild(op.tag)
        ),
        OpKind::Calc => format!("calc {}", op.size),
    }
}

/// One bit per operation.
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    pub(crate) fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn get(&self, i: u32) -> bool {
        self.0[i as usize / 64] >> (i % 64) & 1 != 0
    }

    pub(crate) fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }
}
