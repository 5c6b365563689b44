//! The solver's pending fill events ("constraint `c` fills at level `t`", "variable `v`
//! reaches its bound at level `t`"), taken smallest level first.
//!
//! Most solves stop after one or two events (a shared backbone fills and freezes
//! everyone), so building a binary heap costs more than it saves: up to [`SCAN_MAX`]
//! events are kept unordered and the smallest is found by a scan; beyond that, the first
//! event is still found by a scan (as cheap as building the heap, and often the only one
//! taken) and a binary heap is built for the rest. Both take events in the same (level,
//! id) order, and events equal in both are interchangeable (the solver's outcome for them
//! does not depend on which comes first), so the choice does not change any result.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Above this many initial events, a heap from the second pop on. (64 made the solves
/// of NPB IS's alltoallv, 40 events and 14 pops each, scan quadratically: 16 takes 7 %
/// fewer instructions for the whole 64-rank replay, and the same elsewhere.)
const SCAN_MAX: usize = 16;

/// A variable's event has this bit set in its id.
pub(crate) const VAR: u32 = 1 << 31;

pub(crate) struct Event {
    pub level: f64,
    /// `level` as an integer ordered as `f64::total_cmp` orders levels (computed once,
    /// compared many times).
    key: i64,
    /// Constraint id, or variable id with [`VAR`] set.
    pub what: u32,
    /// The constraint's version when the level was computed.
    pub version: u32,
}

impl Event {
    /// Taken before `o`: a smaller level, or the same and a smaller id. (Spelt out:
    /// ties are rare, and the tuple comparison compiled to flag juggling.)
    #[inline]
    pub(crate) fn before(&self, o: &Event) -> bool {
        self.key < o.key || (self.key == o.key && self.what < o.what)
    }

    /// An event at `level` for `what` (see [`Event::what`]) seen at `version`.
    #[inline]
    pub fn new(level: f64, what: u32, version: u32) -> Event {
        // The transformation `f64::total_cmp` applies before comparing as integers.
        let bits = level.to_bits() as i64;
        let key = bits ^ (((bits >> 63) as u64) >> 1) as i64;
        Event {
            level,
            key,
            what,
            version,
        }
    }
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    /// Greater means taken first (as in `BinaryHeap`): the smaller level, then the
    /// smaller id, so the order is deterministic.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        (o.key, o.what).cmp(&(self.key, self.what))
    }
}

/// Pending events, scanned while few, heaped when many.
#[derive(Default)]
pub(crate) struct Events {
    list: Vec<Event>,
    heap: BinaryHeap<Event>,
    heaped: bool,
    /// Sealed with more than [`SCAN_MAX`] events: the first pop scans and sets
    /// `heap_next`; the next one builds the heap.
    many: bool,
    heap_next: bool,
}

impl Events {
    /// Empties the queue; the events pushed next are the initial ones.
    pub fn clear(&mut self) {
        if self.heaped {
            // Take the heap's storage back (it keeps its capacity).
            self.list = std::mem::take(&mut self.heap).into_vec();
            self.heaped = false;
        }
        self.many = false;
        self.heap_next = false;
        self.list.clear();
    }

    /// Adds an event.
    #[inline]
    pub fn push(&mut self, e: Event) {
        if self.heaped {
            self.heap.push(e);
        } else {
            self.list.push(e);
        }
    }

    /// Call once the initial events are in: chooses scanning or a heap by their number.
    /// Later pushes only re-add a popped constraint, so the number never grows past it.
    pub fn seal(&mut self) {
        self.many = self.list.len() > SCAN_MAX;
    }

    /// The smallest level still pending (infinity if none).
    pub fn min_level(&self) -> f64 {
        let list = if self.heaped {
            self.heap.as_slice()
        } else {
            &self.list[..]
        };
        list.iter().map(|e| e.level).fold(f64::INFINITY, f64::min)
    }

    /// Removes and returns the event with the smallest (level, id).
    pub fn pop(&mut self) -> Option<Event> {
        if self.heaped {
            return self.heap.pop();
        }
        if self.heap_next {
            self.heap = BinaryHeap::from(std::mem::take(&mut self.list));
            self.heaped = true;
            return self.heap.pop();
        }
        let mut best = self.list.first().map(|_| 0)?;
        for (i, e) in self.list.iter().enumerate().skip(1) {
            if e.before(&self.list[best]) {
                best = i;
            }
        }
        self.heap_next = self.many;
        Some(self.list.swap_remove(best))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_level_then_id(x: &(f64, u32), y: &(f64, u32)) -> Ordering {
        x.0.total_cmp(&y.0).then(x.1.cmp(&y.1))
    }

    #[test]
    fn scan_and_heap_take_events_by_level_then_id() {
        // Levels with ties (broken by id) and the first event pushed back later, as the
        // solver does with a stale constraint; below and above the scan limit, and with
        // the queue reused (a heap turned back into a list).
        let mut q = Events::default();
        for n in [5usize, SCAN_MAX + 10, 3] {
            q.clear();
            let mut expect: Vec<(f64, u32)> = Vec::new();
            for i in 0..n as u32 {
                let level = ((i * 7919) % 13) as f64;
                q.push(Event::new(level, 1000 - i, 0));
                expect.push((level, 1000 - i));
            }
            q.seal();
            assert!(!q.heaped);
            assert_eq!(q.many, n > SCAN_MAX);
            expect.sort_by(by_level_then_id);
            let first = q.pop().unwrap();
            assert_eq!((first.level, first.what), expect[0]);
            q.push(Event::new(first.level + 0.5, first.what, 1));
            let mut rest = expect[1..].to_vec();
            rest.push((expect[0].0 + 0.5, expect[0].1));
            rest.sort_by(by_level_then_id);
            let got: Vec<(f64, u32)> = std::iter::from_fn(|| q.pop()).map(|e| (e.level, e.what)).collect();
            assert_eq!(got, rest, "n = {n}");
        }
    }
}
