//! MPI message matching: a rank's queue of posted receives or of unexpected messages,
//! searched in arrival order with ANY_SOURCE / ANY_TAG wildcards.
//!
//! A wildcard on either side matches, as in LogGOPSim; searching front to back and
//! removing the first match gives MPI's non-overtaking order.

use crate::op::{ANY_SOURCE, ANY_TAG};
use std::collections::VecDeque;

/// What matching needs to know about a posted receive or an arrived message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// Source rank, or [`ANY_SOURCE`].
    pub src: u32,
    /// Tag, or [`ANY_TAG`].
    pub tag: u32,
    /// The operation this envelope stands for (the receive, or the send of a message).
    pub op: u32,
    /// The matching context (communicator and point-to-point or collective traffic);
    /// only equal contexts match.
    pub ctx: u32,
}

impl Envelope {
    #[inline(always)]
    fn matches(&self, src: u32, tag: u32, ctx: u32) -> bool {
        self.ctx == ctx
            && (src == ANY_SOURCE || self.src == ANY_SOURCE || self.src == src)
            && (tag == ANY_TAG || self.tag == ANY_TAG || self.tag == tag)
    }
}

/// An ordered queue of envelopes. Holds up to one envelope inline (24 bytes in all),
/// so the usual queue of zero or one entries costs no allocation and no pointer chase.
#[derive(Default, Debug, Clone)]
pub enum MatchQueue {
    /// Nothing queued.
    #[default]
    Empty,
    /// One envelope.
    One(Envelope),
    /// More than one, front first. A double-ended queue: the match is usually the
    /// oldest, and a sender far ahead of its receiver queues thousands of messages.
    Many(Box<VecDeque<Envelope>>),
}

impl MatchQueue {
    /// Appends an envelope at the back.
    #[inline]
    pub fn push(&mut self, e: Envelope) {
        match self {
            MatchQueue::Empty => *self = MatchQueue::One(e),
            MatchQueue::One(first) => *self = MatchQueue::Many(Box::new(VecDeque::from([*first, e]))),
            MatchQueue::Many(v) => v.push_back(e),
        }
    }

    /// Removes and returns the first envelope of context `ctx` that matches `(src, tag)`.
    #[inline]
    pub fn take(&mut self, src: u32, tag: u32, ctx: u32) -> Option<Envelope> {
        match self {
            MatchQueue::Empty => None,
            MatchQueue::One(e) => {
                if e.matches(src, tag, ctx) {
                    let e = *e;
                    *self = MatchQueue::Empty;
                    Some(e)
                } else {
                    None
                }
            }
            MatchQueue::Many(v) => {
                let i = v.iter().position(|e| e.matches(src, tag, ctx))?;
                let e = v.remove(i).expect("a found position");
                if v.len() == 1 {
                    *self = MatchQueue::One(v[0]);
                }
                Some(e)
            }
        }
    }

    /// The envelopes still queued, front first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Envelope> + '_ {
        let (one, many): (&[Envelope], Option<&VecDeque<Envelope>>) = match self {
            MatchQueue::Empty => (&[], None),
            MatchQueue::One(e) => (std::slice::from_ref(e), None),
            MatchQueue::Many(v) => (&[], Some(&**v)),
        };
        let (a, b) = many.map_or((&[][..], &[][..]), |v| v.as_slices());
        Iter {
            parts: [one, a, b],
            at: 0,
        }
    }

    /// Number of queued envelopes.
    pub fn len(&self) -> usize {
        self.iter().len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        matches!(self, MatchQueue::Empty)
    }
}

/// The envelopes of a [`MatchQueue`], front first: at most three slices (an inline
/// envelope, or the two halves of a ring buffer).
struct Iter<'a> {
    parts: [&'a [Envelope]; 3],
    at: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Envelope;

    fn next(&mut self) -> Option<&'a Envelope> {
        while self.at < 3 {
            if let Some((first, rest)) = self.parts[self.at].split_first() {
                self.parts[self.at] = rest;
                return Some(first);
            }
            self.at += 1;
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.parts.iter().map(|p| p.len()).sum();
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(src: u32, tag: u32, op: u32) -> Envelope {
        Envelope { src, tag, op, ctx: 0 }
    }

    #[test]
    fn first_match_in_order_wins() {
        let mut q = MatchQueue::default();
        q.push(env(1, 5, 10));
        q.push(env(2, 5, 11));
        q.push(env(1, 5, 12));
        assert_eq!(q.take(1, 5, 0).map(|e| e.op), Some(10));
        assert_eq!(q.take(1, 5, 0).map(|e| e.op), Some(12));
        assert_eq!(q.take(1, 5, 0), None);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn wildcards_match_on_either_side() {
        let mut q = MatchQueue::default();
        q.push(env(3, 7, 1));
        assert_eq!(q.take(ANY_SOURCE, 8, 0), None);
        assert_eq!(q.take(ANY_SOURCE, 7, 0).map(|e| e.op), Some(1));
        q.push(env(ANY_SOURCE, ANY_TAG, 2)); // a posted wildcard receive
        assert_eq!(q.take(9, 99, 0).map(|e| e.op), Some(2));
        q.push(env(4, ANY_TAG, 3));
        assert_eq!(q.take(5, 1, 0), None);
        assert_eq!(q.take(4, 1, 0).map(|e| e.op), Some(3));
    }

    #[test]
    fn contexts_never_match_each_other() {
        let mut q = MatchQueue::default();
        q.push(Envelope {
            src: 1,
            tag: 5,
            op: 7,
            ctx: 2,
        });
        assert_eq!(q.take(ANY_SOURCE, ANY_TAG, 3), None);
        assert_eq!(q.take(1, 5, 2).map(|e| e.op), Some(7));
    }

    #[test]
    fn a_long_queue_keeps_its_order_when_taken_from_the_front_and_refilled() {
        // Taking from the front and pushing at the back wraps the ring buffer around:
        // iteration and matching still go oldest first.
        let mut q = MatchQueue::default();
        for i in 0..6 {
            q.push(env(1, i, i));
        }
        for i in 0..4 {
            assert_eq!(q.take(1, ANY_TAG, 0).map(|e| e.op), Some(i));
        }
        for i in 6..10 {
            q.push(env(1, i, i));
        }
        assert_eq!(q.iter().map(|e| e.op).collect::<Vec<_>>(), vec![4, 5, 6, 7, 8, 9]);
        assert_eq!(q.iter().len(), 6);
        assert_eq!(q.take(1, 8, 0).map(|e| e.op), Some(8));
        assert_eq!(q.take(ANY_SOURCE, ANY_TAG, 0).map(|e| e.op), Some(4));
        assert_eq!(q.iter().map(|e| e.op).collect::<Vec<_>>(), vec![5, 6, 7, 9]);
    }

    #[test]
    fn queue_is_small_and_shrinks_back_inline() {
        assert!(std::mem::size_of::<MatchQueue>() <= 24);
        let mut q = MatchQueue::default();
        q.push(env(1, 1, 1));
        q.push(env(2, 2, 2));
        q.push(env(3, 3, 3));
        assert_eq!(q.take(2, 2, 0).map(|e| e.op), Some(2));
        assert_eq!(q.take(1, 1, 0).map(|e| e.op), Some(1));
        assert!(matches!(q, MatchQueue::One(_)));
        assert_eq!(q.iter().map(|e| e.op).collect::<Vec<_>>(), vec![3]);
        assert_eq!(q.take(3, 3, 0).map(|e| e.op), Some(3));
        assert!(q.is_empty());
    }
}
