//! MPI message matching: a rank's queue of posted receives or of unexpected messages,
//! searched in arrival order with ANY_SOURCE / ANY_TAG wildcards.
//!
//! A wildcard on either side matches, as in LogGOPSim; taking the oldest match gives
//! MPI's non-overtaking order. Short queues are searched front to back; a long one
//! (a receiver with hundreds of receives posted, as in a linear all-to-all, or a slow
//! receiver with thousands of messages waiting) is indexed by (context, source, tag),
//! which finds the oldest match without a scan unless the query or entries have
//! wildcards.

use crate::op::{ANY_SOURCE, ANY_TAG};
use simpi_kernel::MixHashMap;
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
    /// oldest.
    Many(Box<VecDeque<Envelope>>),
    /// More than 32 (`INDEX_AT`): indexed.
    Indexed(Box<Indexed>),
}

/// A queue longer than this is indexed.
const INDEX_AT: usize = 32;

/// A long queue: each envelope with its age, in a FIFO per (context, source, tag), or,
/// if it has a wildcard (a posted receive), in one FIFO of those.
#[derive(Default, Debug, Clone)]
pub struct Indexed {
    next: u64,
    exact: MixHashMap<(u32, u32, u32), VecDeque<(u64, Envelope)>>,
    wild: VecDeque<(u64, Envelope)>,
    len: usize,
}

impl Indexed {
    fn push(&mut self, e: Envelope) {
        let item = (self.next, e);
        self.next += 1;
        self.len += 1;
        if e.src == ANY_SOURCE || e.tag == ANY_TAG {
            self.wild.push_back(item);
        } else {
            self.exact.entry((e.ctx, e.src, e.tag)).or_default().push_back(item);
        }
    }

    /// Removes and returns the oldest envelope that matches.
    fn take(&mut self, src: u32, tag: u32, ctx: u32) -> Option<Envelope> {
        // The oldest wildcard entry that matches (the FIFO is in age order).
        let w = self.wild.iter().position(|(_, e)| e.matches(src, tag, ctx));
        let w_age = w.map(|i| self.wild[i].0);
        // The oldest exact entry that matches: a bucket's front is its oldest.
        let age = |q: &VecDeque<(u64, Envelope)>| q.front().expect("buckets are not empty").0;
        let exact = if src != ANY_SOURCE && tag != ANY_TAG {
            let k = (ctx, src, tag);
            self.exact.get(&k).map(|q| (k, age(q)))
        } else {
            self.exact
                .iter()
                .filter(|(&(c, s, t), _)| c == ctx && (src == ANY_SOURCE || s == src) && (tag == ANY_TAG || t == tag))
                .map(|(&k, q)| (k, age(q)))
                .min_by_key(|&(_, a)| a)
        };
        let e = match (w_age, exact) {
            (Some(a), Some((_, b))) if a < b => self.wild.remove(w.unwrap()).map(|(_, e)| e),
            (Some(_), None) => self.wild.remove(w.unwrap()).map(|(_, e)| e),
            (_, Some((k, _))) => {
                let q = self.exact.get_mut(&k).expect("found above");
                let e = q.pop_front().map(|(_, e)| e);
                if q.is_empty() {
                    self.exact.remove(&k);
                }
                e
            }
            (None, None) => None,
        };
        self.len -= usize::from(e.is_some());
        e
    }

    /// Every envelope, oldest first.
    fn in_order(&self) -> Vec<Envelope> {
        let mut all: Vec<(u64, Envelope)> = self.exact.values().flatten().chain(self.wild.iter()).copied().collect();
        all.sort_unstable_by_key(|&(age, _)| age);
        all.into_iter().map(|(_, e)| e).collect()
    }
}

impl MatchQueue {
    /// The oldest envelope, if any (without an index's search: a hint for prefetching).
    #[inline]
    pub fn first(&self) -> Option<&Envelope> {
        match self {
            MatchQueue::Empty => None,
            MatchQueue::One(e) => Some(e),
            MatchQueue::Many(q) => q.front(),
            MatchQueue::Indexed(_) => None,
        }
    }

    /// Appends an envelope at the back.
    #[inline]
    pub fn push(&mut self, e: Envelope) {
        match self {
            MatchQueue::Empty => *self = MatchQueue::One(e),
            MatchQueue::One(first) => *self = MatchQueue::Many(Box::new(VecDeque::from([*first, e]))),
            MatchQueue::Many(v) if v.len() >= INDEX_AT => {
                let mut ix = Indexed::default();
                for &old in v.iter() {
                    ix.push(old);
                }
                ix.push(e);
                *self = MatchQueue::Indexed(Box::new(ix));
            }
            MatchQueue::Many(v) => v.push_back(e),
            MatchQueue::Indexed(ix) => ix.push(e),
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
            MatchQueue::Indexed(ix) => {
                let e = ix.take(src, tag, ctx)?;
                if ix.len == 0 {
                    *self = MatchQueue::Empty;
                }
                Some(e)
            }
        }
    }

    /// Removes the envelope of operation `op` (a posted receive being cancelled);
    /// false if it is not queued. A linear search: cancellation is rare.
    pub fn remove_op(&mut self, op: u32) -> bool {
        let mut rest: Vec<Envelope> = self.iter().collect();
        let Some(i) = rest.iter().position(|e| e.op == op) else {
            return false;
        };
        rest.remove(i);
        *self = MatchQueue::Empty;
        for e in rest {
            self.push(e);
        }
        true
    }

    /// The envelopes still queued, oldest first (copies: for reports).
    pub fn iter(&self) -> std::vec::IntoIter<Envelope> {
        match self {
            MatchQueue::Empty => Vec::new(),
            MatchQueue::One(e) => vec![*e],
            MatchQueue::Many(v) => v.iter().copied().collect(),
            MatchQueue::Indexed(ix) => ix.in_order(),
        }
        .into_iter()
    }

    /// Number of queued envelopes.
    pub fn len(&self) -> usize {
        match self {
            MatchQueue::Empty => 0,
            MatchQueue::One(_) => 1,
            MatchQueue::Many(v) => v.len(),
            MatchQueue::Indexed(ix) => ix.len,
        }
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        matches!(self, MatchQueue::Empty)
    }
}

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
    fn long_queues_take_what_a_front_to_back_search_takes() {
        // Random pushes and takes, with wildcards on both sides and two contexts, on
        // queues from empty to a few hundred entries (indexed past 32), against the
        // definition: the first envelope in push order that matches.
        let mut rng = simpi_kernel::Rng::new(7);
        for round in 0..40 {
            let mut q = MatchQueue::default();
            let mut reference: Vec<Envelope> = Vec::new();
            let wild_rate = [0.0, 0.05, 0.3][round % 3];
            let pick = |rng: &mut simpi_kernel::Rng, n: u64, wild: u32| {
                if rng.chance(wild_rate) {
                    wild
                } else {
                    rng.below(n) as u32
                }
            };
            for step in 0..3000u32 {
                // Grow for a while, then shrink, then grow again.
                let push = match (step / 500) % 3 {
                    0 => rng.chance(0.8),
                    1 => rng.chance(0.3),
                    _ => rng.chance(0.6),
                };
                if push {
                    let e = Envelope {
                        src: pick(&mut rng, 6, ANY_SOURCE),
                        tag: pick(&mut rng, 4, ANY_TAG),
                        op: step,
                        ctx: rng.below(2) as u32,
                    };
                    q.push(e);
                    reference.push(e);
                } else {
                    let (src, tag, ctx) = (
                        pick(&mut rng, 6, ANY_SOURCE),
                        pick(&mut rng, 4, ANY_TAG),
                        rng.below(2) as u32,
                    );
                    let want = reference
                        .iter()
                        .position(|e| e.matches(src, tag, ctx))
                        .map(|i| reference.remove(i));
                    assert_eq!(q.take(src, tag, ctx), want, "round {round} step {step}");
                }
                assert_eq!(q.len(), reference.len());
            }
            assert_eq!(q.iter().collect::<Vec<_>>(), reference);
        }
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
