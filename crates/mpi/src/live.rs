//! The live store: operations created as each rank's program reaches them and freed
//! once done, so memory follows the operations in flight, not the program's length.
//!
//! A rank's [`Program`] makes MPI calls through [`RankCalls`] into the store. The
//! program runs on as long as its frontier is done; when it is not, the rank waits, and
//! the completion of the last operation it waits for runs it on, at that moment, inside
//! the engine's handling of that completion. Its new operations then become ready right
//! after the ones that completion freed, in the order they were created: exactly where
//! a whole schedule of the same program would have freed them. So a trace replayed live
//! gives the end times of the same trace converted to a schedule first.

mod arena;
mod instance;

pub use arena::OpRef;

use crate::calls::RankCalls;
use crate::coll::emit::{Chooser, Interner, Placement, Template};
use crate::coll::{Algorithm, CollSpec};
use crate::engine::store::{describe_op, OpStore};
use crate::error::Error;
use crate::op::{Op, OpId, JOIN, TEST};
use crate::sink::OpSink;
use arena::{Arena, CANCELLATION, DATA_IN, DONE, NO_INSTANCE, SYNCHRONOUS, WAKE};
use instance::{Instance, Instances, CREATED, ENTRY, NO_END};
use std::sync::Arc;

/// What a program's step did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// It made one call; the rank goes on if that call does not block.
    Called,
    /// The program ended: it makes no more calls.
    Ended,
    /// Nothing now: a driver will post this rank's next call (on-line mode).
    Pause,
}

/// A rank program: a trace being read, a pattern, a live program's driver.
pub trait Program<R> {
    /// Makes rank `rank`'s next MPI call through `calls` into `sink`.
    fn step<S: OpSink<Ref = R>>(&mut self, rank: u32, calls: &mut RankCalls<R>, sink: &mut S) -> Result<Step, Error>;

    /// The line the rank's program is at (kept with each operation it creates, for
    /// stall reports); 0 if lines mean nothing to it.
    fn line(&self, _rank: u32) -> u32 {
        0
    }

    /// The file the rank's program reads, if any.
    fn file(&self, _rank: u32) -> Option<String> {
        None
    }

    /// Send `send` matched receive `recv` (a live program copies the payload).
    fn matched(&mut self, _send: R, _recv: R) {}

    /// Receive `recv` was cancelled before it matched (MPI_Cancel).
    fn cancelled(&mut self, _recv: R) {}
}

/// One rank's state.
struct LiveRank {
    calls: RankCalls<OpRef>,
    /// Operations of the frontier not yet done.
    waiting: u32,
    ended: bool,
    /// Operations created so far.
    created: u64,
}

/// A test's view of its request: the request's operation, and whether a test found it
/// complete (it is then a null request).
#[derive(Copy, Clone, Debug)]
struct Target {
    req: OpRef,
    found: bool,
    /// Requests naming it (requests of one operation share what tests found).
    users: u32,
}

/// Rank programs and their operations in flight, as an [`OpStore`].
pub struct Live<P> {
    arena: Arena,
    ranks: Vec<LiveRank>,
    program: P,
    targets: Vec<Target>,
    free_targets: Vec<u32>,
    /// Some cancellation was made (the engine then looks for them).
    any_cancel: bool,
    cpus: usize,
    nics: usize,
    created: u64,
    running: u32,
    error: Option<Error>,
    pause: bool,
    new_ops: Vec<u32>,
    instances: Instances,
    interner: Interner,
}

/// Distinct templates the live store shares before it starts afresh (a trace whose
/// calls never repeat, such as data-dependent all-to-allv counts, would otherwise keep
/// every one).
const MAX_SHARED_TEMPLATES: usize = 4096;

impl<P: Program<OpRef>> Live<P> {
    /// `ranks` ranks running `program`, whose operations name up to `cpus` CPUs and
    /// `nics` NICs per rank.
    pub fn new(program: P, ranks: u32, cpus: usize, nics: usize) -> Live<P> {
        Live {
            // Room for what a collective of every rank holds at once: a few operations
            // and one instance per rank.
            arena: Arena::with_room(4 * ranks as usize),
            ranks: (0..ranks)
                .map(|r| LiveRank {
                    calls: RankCalls::new(r),
                    waiting: 0,
                    ended: false,
                    created: 0,
                })
                .collect(),
            program,
            targets: Vec::new(),
            free_targets: Vec::new(),
            any_cancel: false,
            cpus,
            nics,
            created: 0,
            running: ranks,
            error: None,
            pause: false,
            new_ops: Vec::new(),
            instances: Instances::with_room(ranks as usize, 64),
            interner: Interner::default(),
        }
    }

    /// The program.
    pub fn program(&self) -> &P {
        &self.program
    }

    /// The receive cancellation `id` names (see `arena::CANCELLATION`).
    fn cancelled_recv(&self, id: u32) -> OpRef {
        let op = &self.arena.slots[id as usize].op;
        OpRef {
            slot: op.peer,
            gen: op.tag,
        }
    }

    /// The program, to change (a driver).
    pub fn program_mut(&mut self) -> &mut P {
        &mut self.program
    }

    /// Whether a test of the request behind test handle `target` found it complete.
    pub fn target_found(&self, target: u32) -> bool {
        self.targets.get(target as usize).is_some_and(|t| t.found)
    }

    /// Whether operation `op` completed.
    pub fn op_done(&self, op: OpRef) -> bool {
        self.arena.is_done(op)
    }

    /// No test will name `target` again: its handle may serve another request.
    pub fn release_target(&mut self, target: u32) {
        let t = &mut self.targets[target as usize];
        t.users -= 1;
        if t.users == 0 {
            self.free_targets.push(target);
        }
    }

    /// The program, once the run is over.
    pub fn into_program(self) -> P {
        self.program
    }

    /// A rank whose program paused (it had no call to make) goes on: its program makes
    /// its next calls now; what can start goes to `ready`.
    pub fn go_on(&mut self, rank: u32, ready: &mut Vec<u32>) {
        self.pause = false;
        self.resume(rank, ready);
    }

    /// Clears the request to pause (a driver has taken note).
    pub fn unpause(&mut self) {
        self.pause = false;
    }

    /// Asks the engine to stop at the current time: a rank paused and the driver has
    /// not taken note yet.
    pub fn request_pause(&mut self) {
        self.pause = true;
    }

    /// Runs rank `r`'s program on while its frontier is done; its new operations that
    /// can start go to `ready`, in creation order.
    fn resume(&mut self, r: u32, ready: &mut Vec<u32>) {
        let ranks = self.ranks.len() as u32;
        loop {
            let rank = &mut self.ranks[r as usize];
            if rank.ended || rank.waiting > 0 || self.error.is_some() {
                return;
            }
            let mut sink = LiveSink {
                ranks,
                arena: &mut self.arena,
                instances: &mut self.instances,
                interner: &mut self.interner,
                targets: &mut self.targets,
                free_targets: &mut self.free_targets,
                any_cancel: &mut self.any_cancel,
                rank: r,
                created: &mut rank.created,
                new_ops: &mut self.new_ops,
                line: 0,
                last: None,
                some_done: false,
            };
            let step = self.program.step(r, &mut rank.calls, &mut sink);
            self.created += self.new_ops.len() as u64;
            for s in self.new_ops.drain(..) {
                if self.arena.slots[s as usize].op.deps == 0 {
                    ready.push(s);
                }
            }
            match step {
                Ok(Step::Called) => {}
                Ok(Step::Ended) => {
                    rank.ended = true;
                    self.running -= 1;
                    return;
                }
                Ok(Step::Pause) => {
                    self.pause = true;
                    return;
                }
                Err(e) => {
                    rank.ended = true;
                    self.running -= 1;
                    self.error = Some(e);
                    return;
                }
            }
            let mut waiting = 0;
            for &f in rank.calls.frontier() {
                if !self.arena.is_done(f) {
                    let op = &mut self.arena.slots[f.slot as usize].op;
                    if op.flags & WAKE == 0 {
                        op.flags |= WAKE;
                        waiting += 1;
                    }
                }
            }
            rank.waiting = waiting;
        }
    }

    fn target_of(&self, test: u32) -> usize {
        self.arena.slots[test as usize].x.aux as usize
    }

    /// Step `step` of instance `id` completed (or its entry, [`ENTRY`]): the steps
    /// waiting only for it are created and ready, in step order.
    fn step_done(&mut self, id: u32, step: u32, ready: &mut Vec<u32>) {
        let (inst, mut counts) = self.instances.get_mut(id);
        let arena = &mut self.arena;
        let mut created = 0;
        let inst_ref: &Instance = inst;
        let tpl: &Template = &inst_ref.tpl;
        let mut free = |t: u32| {
            let c = counts.get(t);
            if c == CREATED {
                // The end step, created at once: its count is the operation's.
                let slot = inst_ref.end_slot;
                debug_assert_ne!(slot, NO_END, "only the end step is created early");
                let d = &mut arena.slots[slot as usize].op.deps;
                *d -= 1;
                if *d == 0 {
                    ready.push(slot);
                }
            } else {
                if c == 1 {
                    counts.set(t, CREATED);
                    ready.push(create_step(arena, inst_ref, id, t));
                    created += 1;
                } else {
                    counts.set(t, c - 1);
                }
            }
        };
        let pending = if step == ENTRY {
            for t in 0..tpl.len() as u32 {
                if tpl.deps(t).is_empty() {
                    free(t);
                }
            }
            u32::MAX
        } else {
            for &t in tpl.successors(step) {
                free(t);
            }
            inst.pending -= 1;
            inst.pending
        };
        if pending == 0 {
            self.instances.remove(id);
        }
        self.created += created;
    }
}

/// Creates the operation of step `t` of instance `id` (on the instance's rank); the
/// caller marks the step created.
fn create_step(arena: &mut Arena, inst: &Instance, id: u32, t: u32) -> u32 {
    let mut op = *inst.tpl.op(t);
    if op.kind != crate::op::OpKind::Calc {
        op.peer = inst.peer(t);
    }
    let rank = inst.rank;
    let r = arena.create(op, rank, inst.ctx, inst.base_local + t as u64, inst.line);
    let e = &mut arena.slots[r.slot as usize].x;
    e.inst = id;
    e.step = t;
    r.slot
}

impl<P: Program<OpRef>> OpStore for Live<P> {
    fn num_ranks(&self) -> u32 {
        self.ranks.len() as u32
    }

    fn cpus(&self) -> usize {
        self.cpus
    }

    fn nics(&self) -> usize {
        self.nics
    }

    #[inline(always)]
    fn op(&self, id: u32) -> &Op {
        &self.arena.slots[id as usize].op
    }

    #[inline(always)]
    fn context(&self, id: u32) -> u32 {
        self.arena.slots[id as usize].x.ctx
    }

    #[inline(always)]
    fn has_joins(&self) -> bool {
        true
    }

    #[inline]
    fn is_synchronous(&self, id: u32) -> bool {
        let slot = &self.arena.slots[id as usize];
        slot.op.kind == crate::OpKind::Send && slot.x.aux == SYNCHRONOUS
    }

    fn begin_rank(&mut self, rank: u32, _now: u64, ready: &mut Vec<u32>) {
        self.resume(rank, ready);
    }

    #[inline(always)]
    fn started(&mut self, _id: u32, _ready: &mut Vec<u32>) {}

    fn completed(&mut self, id: u32, _now: u64, ready: &mut Vec<u32>) {
        let op = &mut self.arena.slots[id as usize].op;
        let wake = op.flags & WAKE != 0;
        op.flags = (op.flags | DONE | DATA_IN) & !WAKE;
        let rank = op.rank;
        // Steps of its collective first: a whole template's were created before
        // anything else that waits for this operation.
        let inst = self.arena.slots[id as usize].x.inst;
        if inst != NO_INSTANCE {
            let step = self.arena.slots[id as usize].x.step;
            self.step_done(inst, step, ready);
        }
        self.arena.satisfy(id, |s| ready.push(s));
        if wake {
            let r = &mut self.ranks[rank as usize];
            r.waiting -= 1;
            if r.waiting == 0 {
                self.resume(rank, ready);
            }
        }
    }

    #[inline(always)]
    fn retire(&mut self, id: u32) {
        self.arena.retire(id);
    }

    fn take_error(&mut self) -> Option<Error> {
        self.error.take()
    }

    fn test_found(&self, test: u32) -> bool {
        self.targets[self.target_of(test)].found
    }

    fn test_look(&mut self, test: u32) -> bool {
        let i = self.target_of(test);
        let req = self.targets[i].req;
        let done = self.arena.is_done(req) || self.arena.slots[req.slot as usize].op.flags & DATA_IN != 0;
        if done {
            self.targets[i].found = true;
        }
        done
    }

    #[inline(always)]
    fn data_in(&mut self, id: u32) {
        self.arena.slots[id as usize].op.flags |= DATA_IN;
    }

    fn should_pause(&self) -> bool {
        self.pause
    }

    #[inline(always)]
    fn has_cancels(&self) -> bool {
        self.any_cancel
    }

    fn is_cancel(&self, id: u32) -> bool {
        let slot = &self.arena.slots[id as usize];
        slot.op.kind == crate::OpKind::Calc && slot.op.flags & TEST == 0 && slot.x.aux == CANCELLATION
    }

    fn cancel_target(&self, id: u32) -> Option<u32> {
        let recv = self.cancelled_recv(id);
        (!self.arena.is_done(recv)).then_some(recv.slot)
    }

    fn cancelled(&mut self, id: u32, cancelled: bool) {
        if cancelled {
            let recv = self.cancelled_recv(id);
            self.program.cancelled(recv);
        }
    }

    fn matched(&mut self, send: u32, recv: u32) {
        let r = |a: &Arena, s: u32| OpRef {
            slot: s,
            gen: a.slots[s as usize].x.gen,
        };
        let (s, r) = (r(&self.arena, send), r(&self.arena, recv));
        self.program.matched(s, r);
    }

    fn local_index(&self, id: u32) -> u64 {
        self.arena.slots[id as usize].x.local
    }

    fn created(&self) -> u64 {
        self.created
    }

    fn programs_done(&self) -> bool {
        self.running == 0
    }

    fn stalled(&self, rank: u32) -> (Vec<OpId>, u32, Option<String>) {
        let r = &self.ranks[rank as usize];
        let waiting = self.arena.waiting_of(rank).into_iter().map(OpId).collect();
        let at = (!r.ended).then(|| match self.program.file(rank) {
            Some(f) => format!("the call at {f}:{}", self.program.line(rank)),
            None => "a call".to_string(),
        });
        (waiting, r.created.min(u32::MAX as u64) as u32, at)
    }

    fn describe(&self, id: u32) -> String {
        let op = &self.arena.slots[id as usize].op;
        let e = &self.arena.slots[id as usize].x;
        let what = describe_op(op);
        let line = self.arena.line(id);
        match self.program.file(op.rank) {
            Some(f) if line > 0 => format!("{what} ({f}:{line})"),
            _ => format!("{what} (operation #{} of rank {})", e.local, op.rank),
        }
    }
}

/// One rank's view of the live store while its program makes a call.
pub struct LiveSink<'a> {
    /// Ranks in the run.
    ranks: u32,
    arena: &'a mut Arena,
    instances: &'a mut Instances,
    interner: &'a mut Interner,
    targets: &'a mut Vec<Target>,
    free_targets: &'a mut Vec<u32>,
    any_cancel: &'a mut bool,
    rank: u32,
    created: &'a mut u64,
    new_ops: &'a mut Vec<u32>,
    line: u32,
    /// The operation added last, and whether one of its dependencies was done when
    /// declared (an any-of operation may then start at once).
    last: Option<OpRef>,
    some_done: bool,
}

impl OpSink for LiveSink<'_> {
    type Ref = OpRef;

    #[inline]
    fn push(&mut self, op: Op, ctx: u32) -> Result<OpRef, Error> {
        let r = self.arena.create(op, self.rank, ctx, *self.created, self.line);
        *self.created += 1;
        self.new_ops.push(r.slot);
        self.last = Some(r);
        self.some_done = false;
        Ok(r)
    }

    fn push_join(&mut self) -> Result<OpRef, Error> {
        let mut op = Op::calc(0, 0);
        op.flags = JOIN;
        self.push(op, 0)
    }

    fn push_for(&mut self, rank: u32, op: Op, ctx: u32) -> Result<OpRef, Error> {
        if rank >= self.ranks {
            return Err(Error::BadParameter(format!("rank {rank} does not exist")));
        }
        // Numbered among the calling rank's operations: the order is deterministic.
        let r = self.arena.create(op, rank, ctx, *self.created, self.line);
        *self.created += 1;
        self.new_ops.push(r.slot);
        self.last = Some(r);
        self.some_done = false;
        Ok(r)
    }

    #[inline]
    fn requires(&mut self, a: OpRef, b: OpRef) {
        if !self.arena.requires(a, b) && self.last == Some(a) {
            self.some_done = true;
        }
    }

    fn takes_synchronous(&self) -> bool {
        true
    }

    fn synchronous(&mut self, a: OpRef) -> Result<(), Error> {
        let slot = &mut self.arena.slots[a.slot as usize];
        debug_assert_eq!(slot.op.kind, crate::OpKind::Send, "only a send is synchronous");
        slot.x.aux = SYNCHRONOUS;
        Ok(())
    }

    fn cancels(&mut self, c: OpRef, recv: OpRef) -> Result<(), Error> {
        let slot = &mut self.arena.slots[c.slot as usize];
        (slot.op.peer, slot.op.tag, slot.x.aux) = (recv.slot, recv.gen, CANCELLATION);
        *self.any_cancel = true;
        Ok(())
    }

    fn any_of(&mut self, a: OpRef) {
        let some_done = self.last == Some(a) && self.some_done;
        self.arena.any_of(a, some_done);
    }

    fn test_target(&mut self, req: OpRef) -> u32 {
        if let Some(i) = self.targets.iter().position(|t| t.users > 0 && t.req == req) {
            self.targets[i].users += 1;
            return i as u32;
        }
        let t = Target {
            req,
            found: false,
            users: 1,
        };
        match self.free_targets.pop() {
            Some(i) => {
                self.targets[i as usize] = t;
                i
            }
            None => {
                self.targets.push(t);
                self.targets.len() as u32 - 1
            }
        }
    }

    fn test_of(&mut self, test: OpRef, target: u32) {
        let op = &mut self.arena.slots[test.slot as usize].op;
        op.flags |= TEST;
        self.arena.slots[test.slot as usize].x.aux = target;
    }

    fn forget_target(&mut self, target: u32) {
        let t = &mut self.targets[target as usize];
        t.users -= 1;
        if t.users == 0 {
            self.free_targets.push(target);
        }
    }

    fn created(&self) -> u64 {
        *self.created
    }

    fn at_line(&mut self, line: u32) {
        self.line = line;
    }

    /// Ranks share templates here: beyond a few thousand ranks, each remembers none of
    /// its own (the shared ones are found by running the rank's algorithm against them).
    fn remembered_calls(&self) -> usize {
        if self.ranks > 4096 {
            0
        } else {
            4
        }
    }

    fn template(
        &mut self,
        alg: &'static Algorithm,
        spec: &CollSpec,
        choose: &Chooser<'_>,
    ) -> Result<Arc<Template>, Error> {
        if self.interner.len() >= MAX_SHARED_TEMPLATES {
            self.interner.clear();
        }
        self.interner.template(alg, spec, choose).map_err(Error::BadParameter)
    }

    /// Creates the steps that can start now and the end step; the others are created as
    /// their dependencies complete (`Live::step_done`).
    fn instantiate(
        &mut self,
        t: &Arc<Template>,
        at: Placement<'_>,
        entry: Option<OpRef>,
    ) -> Result<Option<OpRef>, Error> {
        let Some(end) = t.end() else { return Ok(entry) };
        let n = t.len() as u32;
        let entry_pending = entry.is_some_and(|e| !self.arena.is_done(e));
        let counts = (0..n).map(|i| match t.deps(i).len() {
            0 => u32::from(entry_pending),
            d => d as u32,
        });
        let inst = Instance {
            tpl: Arc::clone(t),
            me: at.me,
            size: at.size,
            world_peers: at
                .members
                .map(|m| (0..n).map(|i| t.peer(i, at.me, at.size, Some(m))).collect()),
            ctx: at.ctx,
            base_local: *self.created,
            counts: 0,
            end_slot: NO_END,
            pending: n,
            line: self.line,
            rank: self.rank,
        };
        *self.created += n as u64;
        let id = self.instances.add(inst, counts);
        if let Some(e) = entry.filter(|_| entry_pending) {
            let x = &mut self.arena.slots[e.slot as usize].x;
            debug_assert_eq!(x.inst, NO_INSTANCE, "an entry belongs to no other call");
            x.inst = id;
            x.step = ENTRY;
        }
        let (inst, mut counts) = self.instances.get_mut(id);
        let mut end_ref = None;
        for i in 0..n {
            let c = counts.get(i);
            if c == 0 || i == end {
                counts.set(i, CREATED);
                let slot = create_step(self.arena, inst, id, i);
                self.arena.slots[slot as usize].op.deps = c;
                self.new_ops.push(slot);
                if i == end {
                    inst.end_slot = slot;
                    end_ref = Some(OpRef {
                        slot,
                        gen: self.arena.slots[slot as usize].x.gen,
                    });
                }
            }
        }
        Ok(end_ref)
    }
}
