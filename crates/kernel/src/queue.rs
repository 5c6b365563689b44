//! A priority queue of events in total (time, sequence) order.
//!
//! Every event gets a sequence number when first scheduled; among events at the same
//! time the one scheduled first runs first. An event may be put back with the sequence
//! number it already had ([`EventQueue::reschedule`]), so postponing an event does not
//! change its rank among equal-time peers. This is what makes runs deterministic and is
//! also the ordering rule LogGOPSim uses (its "strict order" mode).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The sequence number an event received when it was first scheduled.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seq(pub u64);

/// An event taken out of the queue with its time and sequence number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduled<E> {
    /// When the event is due, in picoseconds.
    pub time: u64,
    /// Its sequence number, for rescheduling.
    pub seq: Seq,
    /// The event itself.
    pub event: E,
}

struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

/// A min-queue of events ordered by (time, sequence).
///
/// Built for millions of pending events whose times mostly tie (collectives run in
/// lock-step): a radix heap on the time alone sends an event to the bucket of the
/// highest bit in which its time differs from the current one, so buckets are plain
/// vectors and an event moves down a few buckets in its lifetime instead of sifting
/// through a cache-missing binary heap. All events at the current time form a batch
/// sorted by sequence; a new event at the current time has the largest sequence yet and
/// simply joins the back. A radix heap needs times never below the current one; the
/// rare event scheduled in the past (a resource idle since before "now") waits in a
/// small binary heap that is always served first, which preserves the total order.
pub struct EventQueue<E> {
    /// Bucket `i > 0` holds times whose highest bit differing from `now` is bit `i-1`.
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `i` set when bucket `i` is non-empty.
    occupied: u128,
    /// The current time: every event in `buckets` and `batch` is at or after it.
    now: u64,
    /// Events at time `now`, in sequence order.
    batch: VecDeque<Entry<E>>,
    /// An empty vector whose allocation the next batch fills.
    scratch: Vec<Entry<E>>,
    past: BinaryHeap<Reverse<PastEntry<E>>>,
    len: usize,
    next_seq: u64,
}

struct PastEntry<E>(u64, u64, E);

impl<E> PartialEq for PastEntry<E> {
    fn eq(&self, o: &Self) -> bool {
        (self.0, self.1) == (o.0, o.1)
    }
}
impl<E> Eq for PastEntry<E> {}
impl<E> PartialOrd for PastEntry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for PastEntry<E> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.0, self.1).cmp(&(o.0, o.1))
    }
}

const BUCKETS: usize = 65;

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue whose first sequence number is 0.
    pub fn new() -> Self {
        EventQueue {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            occupied: 0,
            now: 0,
            batch: VecDeque::new(),
            scratch: Vec::new(),
            past: BinaryHeap::new(),
            len: 0,
            next_seq: 0,
        }
    }

    /// Schedules a new event at `time` and returns the sequence number it received.
    #[inline]
    pub fn schedule(&mut self, time: u64, event: E) -> Seq {
        let seq = self.next_seq;
        self.next_seq += 1;
        if time == self.now {
            // The newest sequence number sorts last among events at `now`.
            self.len += 1;
            self.batch.push_back(Entry { time, seq, event });
        } else {
            self.insert(time, seq, event);
        }
        Seq(seq)
    }

    /// Puts an event back at `time` keeping the sequence number it was first given.
    #[inline]
    pub fn reschedule(&mut self, time: u64, seq: Seq, event: E) {
        debug_assert!(seq.0 < self.next_seq, "rescheduling a sequence never issued");
        if time == self.now {
            // An old sequence number: find its place in the batch.
            self.len += 1;
            let at = self.batch.partition_point(|e| e.seq < seq.0);
            self.batch.insert(
                at,
                Entry {
                    time,
                    seq: seq.0,
                    event,
                },
            );
        } else {
            self.insert(time, seq.0, event);
        }
    }

    /// Removes and returns the earliest event, ties broken by sequence number.
    #[inline]
    pub fn pop(&mut self) -> Option<Scheduled<E>> {
        if let Some(Reverse(PastEntry(time, seq, event))) = self.past.pop() {
            self.len -= 1;
            return Some(Scheduled {
                time,
                seq: Seq(seq),
                event,
            });
        }
        if self.batch.is_empty() {
            self.refill()?;
        }
        let e = self.batch.pop_front()?;
        self.len -= 1;
        Some(Scheduled {
            time: e.time,
            seq: Seq(e.seq),
            event: e.event,
        })
    }

    /// The time of the earliest pending event, if any.
    pub fn peek_time(&mut self) -> Option<u64> {
        if let Some(Reverse(PastEntry(t, _, _))) = self.past.peek() {
            return Some(*t);
        }
        if self.batch.is_empty() {
            self.refill()?;
        }
        self.batch.front().map(|e| e.time)
    }

    /// The earliest pending event and its time, without removing it.
    pub fn peek(&mut self) -> Option<(u64, &E)> {
        if !self.past.is_empty() {
            return self.past.peek().map(|Reverse(PastEntry(t, _, e))| (*t, e));
        }
        if self.batch.is_empty() {
            self.refill()?;
        }
        self.batch.front().map(|e| (e.time, &e.event))
    }

    /// The earliest event for which `live` holds, and its time; earlier events it
    /// rejects are dropped, as are rejected ones the queue comes across while finding it
    /// (they never come back: `live` must keep rejecting an event once it has).
    pub fn peek_live(&mut self, mut live: impl FnMut(&E) -> bool) -> Option<(u64, &E)> {
        while let Some(Reverse(PastEntry(_, _, e))) = self.past.peek() {
            if live(e) {
                return self.past.peek().map(|Reverse(PastEntry(t, _, e))| (*t, e));
            }
            self.past.pop();
            self.len -= 1;
        }
        loop {
            if self.batch.is_empty() {
                self.refill_with(&mut live)?;
            }
            if live(&self.batch.front().expect("refilled").event) {
                break;
            }
            self.batch.pop_front();
            self.len -= 1;
        }
        self.batch.front().map(|e| (e.time, &e.event))
    }

    /// The event that the `n+1`-th next [`EventQueue::pop`] will return, if already
    /// known (it is at the current time); lets callers prefetch what it will touch.
    #[inline]
    pub fn peek_ahead(&self, n: usize) -> Option<&E> {
        if self.past.is_empty() {
            self.batch.get(n).map(|e| &e.event)
        } else {
            None
        }
    }

    /// Drops every pending event `live` rejects (without changing the order of the
    /// others): for callers whose stale entries pile up faster than they come up.
    pub fn retain(&mut self, mut live: impl FnMut(&E) -> bool) {
        let mut kept = 0;
        for (b, bucket) in self.buckets.iter_mut().enumerate() {
            bucket.retain(|e| live(&e.event));
            kept += bucket.len();
            if bucket.is_empty() {
                self.occupied &= !(1 << b);
            }
        }
        self.batch.retain(|e| live(&e.event));
        self.past.retain(|Reverse(PastEntry(_, _, e))| live(e));
        self.len = kept + self.batch.len() + self.past.len();
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many sequence numbers have been issued: the number of distinct events ever
    /// scheduled (reschedules do not count).
    pub fn issued(&self) -> u64 {
        self.next_seq
    }

    #[inline(always)]
    fn bucket_of(&self, time: u64) -> usize {
        (64 - (time ^ self.now).leading_zeros()) as usize
    }

    #[inline]
    fn insert(&mut self, time: u64, seq: u64, event: E) {
        self.len += 1;
        if time < self.now {
            self.past.push(Reverse(PastEntry(time, seq, event)));
            return;
        }
        let b = self.bucket_of(time);
        self.buckets[b].push(Entry { time, seq, event });
        self.occupied |= 1 << b;
    }

    /// Advances `now` to the earliest pending time and makes that time's events the
    /// batch, sorted by sequence. Works in place: the bucket's vector becomes the batch
    /// and the empty batch's allocation becomes the bucket. None if nothing is pending.
    fn refill(&mut self) -> Option<()> {
        self.refill_with(&mut |_| true)
    }

    /// An emptied vector to leave in a bucket: its allocation, unless it is large next
    /// to what is pending. Batches circulate through the buckets, and each bucket
    /// keeping the largest batch it ever held cost more than the events themselves
    /// (42 of 127 MiB on a 2^17-rank allreduce); freeing them cost no time there.
    fn spare<T>(&self, v: Vec<T>) -> Vec<T> {
        if v.capacity() > self.len / 4 + 1024 {
            Vec::new()
        } else {
            v
        }
    }

    /// Moves the earliest events into the batch, dropping on the way those `live`
    /// rejects: a caller whose events go stale lets them die the first time the queue
    /// handles them, instead of moving them from bucket to bucket until they come up.
    fn refill_with(&mut self, live: &mut impl FnMut(&E) -> bool) -> Option<()> {
        debug_assert!(self.batch.is_empty());
        loop {
            if self.occupied == 0 {
                return None;
            }
            let b = self.occupied.trailing_zeros() as usize;
            let mut moving = std::mem::take(&mut self.buckets[b]);
            self.occupied &= !(1 << b);
            let before = moving.len();
            moving.retain(|e| live(&e.event));
            self.len -= before - moving.len();
            if moving.is_empty() {
                // Nothing live here; `now` is unchanged, so the other buckets still hold.
                self.buckets[b] = self.spare(moving);
                continue;
            }
            self.now = moving.iter().map(|e| e.time).min().unwrap();
            // The events at `now` keep the order they were pushed in (a stable
            // partition): mostly sequence order already, runs a merge sort joins in
            // close to linear time, where swapping them apart left a full sort to do
            // (14 % of a packet-model run).
            let now = self.now;
            let mut at_now = std::mem::take(&mut self.scratch);
            if moving.iter().all(|e| e.time == now) {
                // Lock-step: the whole bucket is the batch, as it stands.
                std::mem::swap(&mut at_now, &mut moving);
            }
            for e in moving.drain(..) {
                if e.time == now {
                    at_now.push(e);
                } else {
                    let nb = self.bucket_of(e.time);
                    debug_assert!(nb < b && nb > 0);
                    self.buckets[nb].push(e);
                    self.occupied |= 1 << nb;
                }
            }
            if !at_now.windows(2).all(|w| w[0].seq < w[1].seq) {
                at_now.sort_by_key(|e| e.seq);
            }
            let empty = std::mem::replace(&mut self.batch, VecDeque::from(at_now));
            self.scratch = self.spare(Vec::from(empty));
            self.buckets[b] = self.spare(moving);
            return Some(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;
    use std::collections::BTreeMap;

    #[test]
    fn retain_drops_only_what_it_rejects_and_keeps_the_order() {
        // Events everywhere the queue keeps them (batch, buckets, past), every third
        // dropped: the rest pop as they would have.
        let mut q = EventQueue::new();
        let mut want = EventQueue::new();
        for i in 0..300u64 {
            let t = (i * 7919) % 1000;
            q.schedule(t, i);
            if !i.is_multiple_of(3) {
                want.schedule(t, i);
            } else {
                want.schedule(t, u64::MAX); // keeps the sequence numbers aligned
            }
        }
        let mark = |e: u64| if e.is_multiple_of(3) { u64::MAX } else { e };
        for _ in 0..20 {
            assert_eq!(q.pop().map(|s| mark(s.event)), want.pop().map(|s| s.event));
        }
        q.schedule(1, 1000); // in the past of the radix part
        want.schedule(1, 1000);
        q.retain(|&e| !e.is_multiple_of(3) || e == 1000);
        want.retain(|&e| e != u64::MAX);
        assert_eq!(q.len(), want.len());
        let a: Vec<_> = std::iter::from_fn(|| q.pop().map(|s| (s.time, s.event))).collect();
        let b: Vec<_> = std::iter::from_fn(|| want.pop().map(|s| (s.time, s.event))).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|&(_, e)| !e.is_multiple_of(3) || e == 1000));
    }

    #[test]
    fn equal_times_pop_in_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(5, 'a');
        q.schedule(3, 'b');
        q.schedule(5, 'c');
        q.schedule(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|s| s.event)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.peek(), None);
        q.schedule(7, 'e');
        assert_eq!(q.peek(), Some((7, &'e')));
        assert_eq!(q.pop().map(|s| s.event), Some('e'));
    }

    #[test]
    fn events_scheduled_in_the_past_come_first_in_order() {
        let mut q = EventQueue::new();
        q.schedule(100, 'x');
        q.schedule(200, 'y');
        assert_eq!(q.pop().unwrap().event, 'x');
        // "now" is 100; these are in the past of the radix part.
        q.schedule(50, 'b');
        q.schedule(20, 'a');
        q.schedule(50, 'c');
        q.schedule(100, 'd');
        assert_eq!(q.peek_time(), Some(20));
        assert_eq!(q.peek(), Some((20, &'a')));
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|s| s.event)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd', 'y']);
        assert_eq!(q.peek_time(), None);
        assert!(q.is_empty());
    }

    #[test]
    fn rescheduled_event_keeps_its_rank_among_equal_times() {
        let mut q = EventQueue::new();
        let first = q.schedule(1, "early");
        q.schedule(10, "late");
        let popped = q.pop().unwrap();
        assert_eq!(popped.seq, first);
        // Put "early" back at the same time as "late": it was scheduled first, so it wins.
        q.reschedule(10, popped.seq, "early");
        assert_eq!(q.pop().unwrap().event, "early");
        assert_eq!(q.pop().unwrap().event, "late");
        assert_eq!(q.issued(), 2);
    }

    /// Shadow test: a BTreeMap keyed by (time, seq) is the obviously correct queue.
    #[test]
    fn matches_a_btreemap_on_random_operations() {
        let mut rng = Rng::new(42);
        let mut q = EventQueue::new();
        let mut shadow: BTreeMap<(u64, u64), u32> = BTreeMap::new();
        let mut now = 0u64;
        for step in 0..200_000u32 {
            let r = rng.below(10);
            if r < 6 || shadow.is_empty() {
                // Mostly the future, sometimes the past (an idle resource's old time).
                let t = if rng.below(20) == 0 {
                    now.saturating_sub(rng.below(30))
                } else {
                    now + rng.below(50)
                };
                let seq = q.schedule(t, step);
                shadow.insert((t, seq.0), step);
            } else if r < 7 {
                // Reschedule the head later (or at the same time, which the executor
                // never does but the queue allows) with its old sequence number.
                let s = q.pop().unwrap();
                let (k, v) = shadow.pop_first().unwrap();
                assert_eq!((s.time, s.seq.0, s.event), (k.0, k.1, v));
                now = now.max(s.time);
                let t = s.time + rng.below(20);
                q.reschedule(t, s.seq, s.event);
                shadow.insert((t, s.seq.0), s.event);
            } else {
                let s = q.pop().unwrap();
                let (k, v) = shadow.pop_first().unwrap();
                assert_eq!((s.time, s.seq.0, s.event), (k.0, k.1, v));
                now = s.time;
            }
            assert_eq!(q.len(), shadow.len());
        }
    }

    /// Shadow test of `peek_live`: events die at random (as re-timed flows' entries do);
    /// the queue must give the earliest live one, and count only what it still holds.
    #[test]
    fn peek_live_matches_a_btreemap_with_dying_events() {
        let mut rng = Rng::new(7);
        let mut q = EventQueue::new();
        let mut shadow: BTreeMap<(u64, u64), u32> = BTreeMap::new();
        let mut dead = std::collections::HashSet::new();
        let mut now = 0u64;
        for step in 0..100_000u32 {
            let r = rng.below(10);
            if r < 5 || shadow.is_empty() {
                // Spread far ahead too, so that entries cross many buckets.
                let t = now
                    + if rng.below(4) == 0 {
                        rng.below(1 << 30)
                    } else {
                        rng.below(100)
                    };
                let seq = q.schedule(t, step);
                shadow.insert((t, seq.0), step);
            } else if r < 8 {
                // Kill a random pending event.
                let k = *shadow.keys().nth(rng.below(shadow.len() as u64) as usize).unwrap();
                dead.insert(shadow.remove(&k).unwrap());
            } else {
                let want = shadow.first_key_value().map(|(k, v)| (k.0, *v));
                let got = q.peek_live(|e| !dead.contains(e)).map(|(t, e)| (t, *e));
                assert_eq!(got, want);
                if got.is_some() {
                    let s = q.pop().unwrap();
                    shadow.pop_first();
                    now = s.time;
                }
            }
            // Dead events still held are the only difference in length.
            assert!(q.len() >= shadow.len());
        }
        while let Some((t, e)) = q.peek_live(|e| !dead.contains(e)).map(|(t, e)| (t, *e)) {
            let (k, v) = shadow.pop_first().unwrap();
            assert_eq!((t, e), (k.0, v));
            q.pop();
        }
        assert!(shadow.is_empty());
        assert!(q.is_empty(), "every dead event is dropped once the live ones are gone");
    }
}
