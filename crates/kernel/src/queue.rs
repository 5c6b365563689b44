//! A priority queue of events in total (time, sequence) order.
//!
//! Every event gets a sequence number when first scheduled; among events at the same
//! time the one scheduled first runs first. An event may be put back with the sequence
//! number it already had ([`EventQueue::reschedule`]), so postponing an event does not
//! change its rank among equal-time peers. This is what makes runs deterministic and is
//! also the ordering rule LogGOPSim uses (its "strict order" mode).

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

#[derive(Clone)]
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    #[inline(always)]
    fn before(&self, other: &Entry<E>) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// A min-queue of events ordered by (time, sequence). Implemented as a 4-ary heap:
/// shallower than a binary heap, so fewer cache misses on the millions of pending
/// events of a large run.
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    next_seq: u64,
}

const ARITY: usize = 4;

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue whose first sequence number is 0.
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::new(),
            next_seq: 0,
        }
    }

    /// Schedules a new event at `time` and returns the sequence number it received.
    #[inline]
    pub fn schedule(&mut self, time: u64, event: E) -> Seq {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.insert(Entry { time, seq, event });
        Seq(seq)
    }

    /// Puts an event back at `time` keeping the sequence number it was first given.
    #[inline]
    pub fn reschedule(&mut self, time: u64, seq: Seq, event: E) {
        debug_assert!(
            seq.0 < self.next_seq,
            "rescheduling a sequence never issued"
        );
        self.insert(Entry {
            time,
            seq: seq.0,
            event,
        });
    }

    /// Removes and returns the earliest event, ties broken by sequence number.
    #[inline]
    pub fn pop(&mut self) -> Option<Scheduled<E>> {
        let last = self.heap.pop()?;
        let top = if self.heap.is_empty() {
            last
        } else {
            let top = std::mem::replace(&mut self.heap[0], last);
            self.sift_down(0);
            top
        };
        Some(Scheduled {
            time: top.time,
            seq: Seq(top.seq),
            event: top.event,
        })
    }

    /// The time of the earliest event, if any.
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.first().map(|e| e.time)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// How many sequence numbers have been issued: the number of distinct events ever
    /// scheduled (reschedules do not count).
    pub fn issued(&self) -> u64 {
        self.next_seq
    }

    #[inline]
    fn insert(&mut self, entry: Entry<E>) {
        self.heap.push(entry);
        self.sift_up(self.heap.len() - 1);
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[i].before(&self.heap[parent]) {
                self.heap.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let first = i * ARITY + 1;
            if first >= n {
                break;
            }
            let end = (first + ARITY).min(n);
            let mut best = first;
            for c in first + 1..end {
                if self.heap[c].before(&self.heap[best]) {
                    best = c;
                }
            }
            if self.heap[best].before(&self.heap[i]) {
                self.heap.swap(i, best);
                i = best;
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;
    use std::collections::BTreeMap;

    #[test]
    fn equal_times_pop_in_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(5, 'a');
        q.schedule(3, 'b');
        q.schedule(5, 'c');
        q.schedule(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|s| s.event)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
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
                let t = now + rng.below(50);
                let seq = q.schedule(t, step);
                shadow.insert((t, seq.0), step);
            } else if r < 7 {
                // Reschedule the head later with its old sequence number.
                let s = q.pop().unwrap();
                let (k, v) = shadow.pop_first().unwrap();
                assert_eq!((s.time, s.seq.0, s.event), (k.0, k.1, v));
                let t = s.time + 1 + rng.below(20);
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
}
