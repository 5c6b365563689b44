//! The state every rule set shares: the store, the event queue, the operations that
//! became ready, the matching queues, completion counts and recorded times.

use crate::engine::record::{MatchedSend, Recorder};
use crate::engine::store::OpStore;
use crate::matching::MatchQueue;
use crate::op::OpKind;
use simpi_kernel::EventQueue;

/// The engine's shared state, generic over the store and the rules' event type.
pub struct Core<S, E> {
    /// Where the operations come from.
    pub store: S,
    /// The rules' events, in (time, sequence) order.
    pub queue: EventQueue<E>,
    /// Operations that became ready during the current event, in the order they did.
    pub ready: Vec<u32>,
    /// Posted receives per rank.
    pub posted: Vec<MatchQueue>,
    /// Unexpected messages per rank.
    pub unexpected: Vec<MatchQueue>,
    /// Operations completed.
    pub ops_done: u64,
    /// The time of the event being handled.
    pub now: u64,
    /// Some time passed the clock's end.
    pub overflow: bool,
    /// Some time was computed below zero and wrapped (LogGOPS credits).
    pub wrapped: bool,
    /// Per rank, when its last operation completed (empty unless the rules end ranks
    /// there).
    pub last_completion: Vec<u64>,
    pub(crate) rec: Option<Recorder>,
}

impl<S: OpStore, E> Core<S, E> {
    pub(crate) fn new(store: S, record: bool, track_ends: bool) -> Self {
        let p = store.num_ranks() as usize;
        Core {
            store,
            queue: EventQueue::new(),
            ready: Vec::new(),
            posted: vec![MatchQueue::default(); p],
            unexpected: vec![MatchQueue::default(); p],
            ops_done: 0,
            now: 0,
            overflow: false,
            wrapped: false,
            last_completion: if track_ends { vec![0; p] } else { Vec::new() },
            rec: record.then(Recorder::default),
        }
    }

    /// Operation `id` started: what waited for its start becomes ready.
    #[inline(always)]
    pub fn started(&mut self, id: u32) {
        self.store.started(id, &mut self.ready);
    }

    /// Operation `id` completed at `now`: what waited for it becomes ready; an operation
    /// other than a send is retired (a send is, once its message is delivered). With
    /// recording, `end` overrides the recorded end (the rules' own notion of it).
    #[inline(always)]
    pub fn completed(&mut self, id: u32, now: u64, end: Option<u64>) {
        self.ops_done += 1;
        let op = *self.store.op(id);
        if let Some(last) = self.last_completion.get_mut(op.rank as usize) {
            *last = (*last).max(now);
        }
        if let Some(rec) = self.rec.as_mut() {
            let local = self.store.local_index(id);
            rec.complete(id, &op, local, end);
        }
        self.store.completed(id, now, &mut self.ready);
        if op.kind != OpKind::Send {
            self.store.retire(id);
        }
    }

    /// Receive `recv` matched send `send`: the store is told, and the match recorded.
    #[inline(always)]
    pub fn matched(&mut self, send: u32, recv: u32) {
        if let Some(rec) = self.rec.as_mut() {
            let s = self.store.op(send);
            let m = MatchedSend {
                rank: s.rank,
                local: self.store.local_index(send),
                tag: s.tag,
            };
            rec.matched(recv, m);
        }
        self.store.matched(send, recv);
    }

    /// The message of send `id` has been delivered: nothing refers to the send any more.
    #[inline(always)]
    pub fn delivered(&mut self, id: u32) {
        self.store.retire(id);
    }

    /// Cancellation `id` runs at `t`, taking no CPU: its receive, if still posted
    /// (not matched), leaves the matching queue and completes now, having received
    /// nothing; either way the cancellation is done.
    pub fn cancel(&mut self, id: u32, t: u64) {
        self.started(id);
        let recv = self.store.cancel_target(id);
        let taken = recv.is_some_and(|r| {
            let rank = self.store.op(r).rank as usize;
            self.posted[rank].remove_op(r)
        });
        self.store.cancelled(id, taken);
        if let (true, Some(r)) = (taken, recv) {
            self.mark_end(r, t, t);
            self.store.data_in(r);
            self.completed(r, t, Some(t));
        }
        self.mark(id, t, t, t);
        self.store.data_in(id);
        self.completed(id, t, Some(t));
    }

    /// Records all three times of `id` (when recording).
    #[inline(always)]
    pub fn mark(&mut self, id: u32, start: u64, ready: u64, end: u64) {
        if let Some(r) = self.rec.as_mut() {
            r.set(id, start, ready, end);
        }
    }

    /// Records the ready and end times of `id`.
    #[inline(always)]
    pub fn mark_end(&mut self, id: u32, ready: u64, end: u64) {
        if let Some(r) = self.rec.as_mut() {
            r.set_end(id, ready, end);
        }
    }

    /// Records that `id` started at `t`, its end unknown.
    #[inline(always)]
    pub fn mark_start(&mut self, id: u32, t: u64) {
        if let Some(r) = self.rec.as_mut() {
            r.start(id, t);
        }
    }

    /// Records that `id` stopped waiting for its peer at `t`.
    #[inline(always)]
    pub fn mark_ready(&mut self, id: u32, t: u64) {
        if let Some(r) = self.rec.as_mut() {
            r.ready(id, t);
        }
    }

    /// Takes the join at `ready[i]` out: it is done now, without its CPU, and the
    /// operations it frees take its place (in the order they would have been freed had
    /// each depended on what the join depends on).
    pub fn pass_join(&mut self, i: usize) {
        let id = self.ready[i];
        let now = self.now;
        self.mark(id, now, now, now);
        let tail = self.ready.split_off(i + 1);
        self.ready.pop();
        self.started(id);
        self.completed(id, now, None);
        self.ready.extend(tail);
    }
}
