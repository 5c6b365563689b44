//! The live store's operations: slots that are reused once an operation is done and
//! retired, so memory follows the operations in flight rather than the program's length.
//!
//! An operation is named by an [`OpRef`]: its slot and the slot's generation. A slot's
//! generation changes when it is retired, so an old name of a reused slot is known to
//! stand for an operation that completed. Successor lists are linked lists of edges in
//! one pool, appended at their tail so that successors are freed in the order their
//! dependencies were declared.

use crate::op::{Op, ANY_DEPS, JOIN, NO_SUCC, TEST};

// The live store's bits sit where a whole schedule keeps its successor runs
// (`op::RUN_SHIFT`): disjoint from `ANY_DEPS`, `TEST` and `JOIN`, the only others a live
// operation carries (`Arena::create` keeps those and clears the rest).
const _: () = assert!((DONE | WAKE | DATA_IN | LIVE) & (ANY_DEPS | TEST | JOIN | crate::op::INLINE_SUCC) == 0);

/// `Op::flags` (live store): the operation completed.
pub(crate) const DONE: u8 = 16;
/// `Op::flags` (live store): its rank's program waits for it.
pub(crate) const WAKE: u8 = 32;
/// `Op::flags` (live store): complete as far as a test can see (a receive's data is
/// in, or a send is done).
pub(crate) const DATA_IN: u8 = 64;
/// `Op::flags` (live store): the slot holds an operation (created, not yet retired).
pub(crate) const LIVE: u8 = 128;

/// The name of a live operation: its slot and the slot's generation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpRef {
    /// The slot (the engine's operation id).
    pub slot: u32,
    /// The slot's generation when the operation was created.
    pub gen: u32,
}

/// What the store keeps of an operation beside the engine's view of it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Extra {
    pub ctx: u32,
    pub gen: u32,
    /// The last edge of the successor list (meaningful if `Op::succ` is not NO_SUCC).
    pub tail: u32,
    /// A test's target (see `live::Target`); for a send, [`SYNCHRONOUS`] or 0; for
    /// another compute, [`CANCELLATION`] or 0.
    pub aux: u32,
    /// The collective instance it belongs to ([`NO_INSTANCE`] if none), and its step.
    pub inst: u32,
    pub step: u32,
    /// Position among its rank's operations.
    pub local: u64,
}

/// An operation and what the store keeps of it, in one cache line: an event touches
/// both.
#[derive(Copy, Clone, Debug)]
#[repr(C, align(64))]
pub(crate) struct Slot {
    pub op: Op,
    pub x: Extra,
}

/// `Extra::aux` of a synchronous send (MPI_Ssend).
pub(crate) const SYNCHRONOUS: u32 = 1;
/// `Extra::aux` of a compute that is an MPI_Cancel; the receive it cancels is named
/// by its `Op::peer` (slot) and `Op::tag` (generation), which a compute has no use for.
pub(crate) const CANCELLATION: u32 = 2;

/// `Extra::inst` of an operation outside any collective instance.
pub(crate) const NO_INSTANCE: u32 = u32::MAX;

/// One dependency: `succ` (generation `gen`) waits for the list's owner.
#[derive(Copy, Clone, Debug)]
struct Edge {
    succ: u32,
    gen: u32,
    next: u32,
}

/// The slots and the edge pool.
#[derive(Default)]
pub(crate) struct Arena {
    pub slots: Vec<Slot>,
    /// The program's line that created each slot's operation (0: unknown), for
    /// reports only; empty while every line is 0 (a generated pattern has none: its
    /// 2^17 ranks' operations would keep 2 MiB of zeros).
    lines: Vec<u32>,
    edges: Vec<Edge>,
    free_ops: Vec<u32>,
    free_edges: Vec<u32>,
}

/// Most elements a per-rank pool reserves ahead (see [`reserve_ahead`]): 2^24.
const MOST_AHEAD: usize = 1 << 24;

/// Reserves room for `n` more elements of `v` (at most [`MOST_AHEAD`]) without touching
/// it. A large reservation is mapped, not resident: memory is used only as elements
/// are written, growing past it moves no data, and no freed copy of a smaller vector
/// is left in the heap (growing by doubling left 4.5 MiB of such holes resident on a
/// 2^17-rank allreduce). Failing to reserve is harmless: the vector grows as usual.
pub(crate) fn reserve_ahead<T>(v: &mut Vec<T>, n: usize) {
    let _ = v.try_reserve_exact(n.min(MOST_AHEAD));
}

impl Arena {
    /// An arena with room reserved for `n` operations (see [`reserve_ahead`]).
    pub fn with_room(n: usize) -> Arena {
        let mut a = Arena::default();
        reserve_ahead(&mut a.slots, n);
        a
    }

    /// The program's line that created the operation in `slot` (0: unknown).
    pub fn line(&self, slot: u32) -> u32 {
        self.lines.get(slot as usize).copied().unwrap_or(0)
    }

    /// Records `line` for `slot`, keeping no list while every line is 0.
    fn set_line(&mut self, slot: u32, line: u32) {
        if line == 0 && self.lines.is_empty() {
            return;
        }
        if self.lines.len() < self.slots.len() {
            self.lines.resize(self.slots.len(), 0);
        }
        self.lines[slot as usize] = line;
    }

    /// Creates `op` on `rank` in context `ctx`; its dependencies follow.
    pub fn create(&mut self, mut op: Op, rank: u32, ctx: u32, local: u64, line: u32) -> OpRef {
        op.rank = rank;
        op.deps = 0;
        op.succ = NO_SUCC;
        // Only the meanings a live operation can carry are kept: the store's own bits
        // (and a schedule's successor runs, which share them) must not leak in.
        op.flags = LIVE | (op.flags & (ANY_DEPS | TEST | JOIN));
        let slot = match self.free_ops.pop() {
            Some(s) => {
                self.slots[s as usize].op = op;
                s
            }
            None => {
                self.slots.push(Slot {
                    op,
                    x: Extra {
                        ctx: 0,
                        gen: 0,
                        tail: 0,
                        aux: 0,
                        inst: NO_INSTANCE,
                        step: 0,
                        local: 0,
                    },
                });
                self.slots.len() as u32 - 1
            }
        };
        self.set_line(slot, line);
        let e = &mut self.slots[slot as usize].x;
        e.ctx = ctx;
        e.local = local;
        e.inst = NO_INSTANCE;
        e.aux = 0;
        OpRef { slot, gen: e.gen }
    }

    /// True if `r` names an operation that completed (its slot may have been reused).
    #[inline]
    pub fn is_done(&self, r: OpRef) -> bool {
        self.slots[r.slot as usize].x.gen != r.gen || self.slots[r.slot as usize].op.flags & DONE != 0
    }

    /// `a` (just created, not done) waits for `b`; nothing if `b` is done. Returns
    /// whether an edge was added.
    pub fn requires(&mut self, a: OpRef, b: OpRef) -> bool {
        if self.is_done(b) {
            return false;
        }
        let edge = Edge {
            succ: a.slot,
            gen: a.gen,
            next: NO_SUCC,
        };
        let e = match self.free_edges.pop() {
            Some(i) => {
                self.edges[i as usize] = edge;
                i
            }
            None => {
                self.edges.push(edge);
                self.edges.len() as u32 - 1
            }
        };
        let bs = b.slot as usize;
        if self.slots[bs].op.succ == NO_SUCC {
            self.slots[bs].op.succ = e;
        } else {
            let tail = self.slots[bs].x.tail as usize;
            self.edges[tail].next = e;
        }
        self.slots[bs].x.tail = e;
        self.slots[a.slot as usize].op.deps += 1;
        true
    }

    /// Counts down the dependencies `slot`'s completion satisfies and calls `ready` for
    /// each operation whose count reaches zero, in the order they were declared. The
    /// list's edges go back to the pool.
    #[inline]
    pub fn satisfy(&mut self, slot: u32, mut ready: impl FnMut(u32)) {
        let mut e = std::mem::replace(&mut self.slots[slot as usize].op.succ, NO_SUCC);
        while e != NO_SUCC {
            let Edge { succ, gen, next } = self.edges[e as usize];
            self.free_edges.push(e);
            e = next;
            // An any-of operation may be done (and its slot reused) before its other
            // dependencies complete.
            if self.slots[succ as usize].x.gen != gen {
                continue;
            }
            let d = &mut self.slots[succ as usize].op.deps;
            if *d > 0 {
                *d -= 1;
                if *d == 0 {
                    ready(succ);
                }
            }
        }
    }

    /// Makes `a` start once any one of its dependencies is done: at once if it has none
    /// left (one was done when it was declared).
    pub fn any_of(&mut self, a: OpRef, some_done: bool) {
        let op = &mut self.slots[a.slot as usize].op;
        op.flags |= ANY_DEPS;
        op.deps = if some_done { 0 } else { op.deps.min(1) };
    }

    /// Frees the slot of completed operation `slot`.
    pub fn retire(&mut self, slot: u32) {
        let op = &mut self.slots[slot as usize].op;
        debug_assert!(op.flags & DONE != 0, "retiring an operation that is not done");
        debug_assert_eq!(op.succ, NO_SUCC, "a done operation has no successors left");
        op.flags = 0;
        self.slots[slot as usize].x.gen = self.slots[slot as usize].x.gen.wrapping_add(1);
        self.free_ops.push(slot);
    }

    /// The live operations of `rank` still waiting for a dependency, in creation order.
    pub fn waiting_of(&self, rank: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (0..self.slots.len() as u32)
            .filter(|&s| {
                let op = &self.slots[s as usize].op;
                op.flags & LIVE != 0 && op.rank == rank && op.deps > 0 && op.flags & DONE == 0
            })
            .collect();
        v.sort_by_key(|&s| self.slots[s as usize].x.local);
        v
    }
}
