//! MPI message matching: a rank's queue of posted receives or of unexpected messages,
//! searched in arrival order with ANY_SOURCE / ANY_TAG wildcards.
//!
//! A wildcard on either side matches, as in LogGOPSim; taking the first match in arrival
//! order gives MPI's non-overtaking order. Short queues are searched front to back; a
//! queue that grows long (a rank that posts a receive from every other rank, as linear
//! all-to-alls and scans do) is indexed by envelope, so that matching does not cost
//! O(queue length) per message.

use crate::op::{ANY_SOURCE, ANY_TAG};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

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

    fn is_wild(&self) -> bool {
        self.src == ANY_SOURCE || self.tag == ANY_TAG
    }

    fn key(&self) -> (u32, u32, u32) {
        (self.ctx, self.src, self.tag)
    }
}

/// A queue longer than this is indexed (below it a linear search is faster).
const INDEX_ABOVE: usize = 32;

/// An ordered queue of envelopes. Holds up to one envelope inline (24 bytes in all),
/// so the usual queue of zero or one entries costs no allocation and no pointer chase.
#[derive(Default, Debug, Clone)]
pub enum MatchQueue {
    /// Nothing queued.
    #[default]
    Empty,
    /// One envelope.
    One(Envelope),
    /// A few, front first.
    Many(Box<Vec<Envelope>>),
    /// Many, indexed.
    Indexed(Box<Indexed>),
}

/// A long queue: every envelope by arrival number, and the arrival numbers of the
/// envelopes without wildcards by (context, source, tag) and of those with one in order.
/// A message without wildcards is matched against the front of its own list and the
/// first matching wildcard entry, whichever came first; a wildcard query scans in order.
#[derive(Default, Debug, Clone)]
pub struct Indexed {
    all: BTreeMap<u64, Envelope>,
    exact: HashMap<(u32, u32, u32), VecDeque<u64>>,
    wild: BTreeSet<u64>,
    next: u64,
}

impl Indexed {
    fn push(&mut self, e: Envelope) {
        let n = self.next;
        self.next += 1;
        self.all.insert(n, e);
        if e.is_wild() {
            self.wild.insert(n);
        } else {
            self.exact.entry(e.key()).or_default().push_back(n);
        }
    }

    fn take(&mut self, src: u32, tag: u32, ctx: u32) -> Option<Envelope> {
        let found = if src == ANY_SOURCE || tag == ANY_TAG {
            self.all.iter().find(|(_, e)| e.matches(src, tag, ctx)).map(|(&n, _)| n)
        } else {
            let exact = self.exact.get(&(ctx, src, tag)).and_then(|q| q.front().copied());
            let wild = self.wild.iter().copied().find(|n| self.all[n].matches(src, tag, ctx));
            match (exact, wild) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }?;
        let e = self.all.remove(&found).expect("indexed entry");
        if e.is_wild() {
            self.wild.remove(&found);
        } else {
            // Entries of one key match alike, so the first match is its list's front.
            let q = self.exact.get_mut(&e.key()).expect("indexed key");
            debug_assert_eq!(q.front(), Some(&found));
            q.pop_front();
            if q.is_empty() {
                self.exact.remove(&e.key());
            }
        }
        Some(e)
    }
}

impl MatchQueue {
    /// Appends an envelope at the back.
    #[inline]
    pub fn push(&mut self, e: Envelope) {
        match self {
            MatchQueue::Empty => *self = MatchQueue::One(e),
            MatchQueue::One(first) => *self = MatchQueue::Many(Box::new(vec![*first, e])),
            MatchQueue::Many(v) if v.len() >= INDEX_ABOVE => {
                let mut ix = Box::<Indexed>::default();
                for &old in v.iter() {
                    ix.push(old);
                }
                ix.push(e);
                *self = MatchQueue::Indexed(ix);
            }
            MatchQueue::Many(v) => v.push(e),
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
                let e = v.remove(i);
                if v.len() == 1 {
                    *self = MatchQueue::One(v[0]);
                }
                Some(e)
            }
            MatchQueue::Indexed(ix) => {
                let e = ix.take(src, tag, ctx)?;
                // Back to the short forms once nearly drained.
                if ix.all.len() <= INDEX_ABOVE / 2 {
                    let rest: Vec<Envelope> = ix.all.values().copied().collect();
                    *self = MatchQueue::Empty;
                    for r in rest {
                        self.push(r);
                    }
                }
                Some(e)
            }
        }
    }

    /// The envelopes still queued, front first.
    pub fn iter(&self) -> impl Iterator<Item = &Envelope> + '_ {
        let (slice, indexed) = match self {
            MatchQueue::Empty => (&[][..], None),
            MatchQueue::One(e) => (std::slice::from_ref(e), None),
            MatchQueue::Many(v) => (&v[..], None),
            MatchQueue::Indexed(ix) => (&[][..], Some(ix.all.values())),
        };
        slice.iter().chain(indexed.into_iter().flatten())
    }

    /// Number of queued envelopes.
    pub fn len(&self) -> usize {
        match self {
            MatchQueue::Indexed(ix) => ix.all.len(),
            _ => self.iter().count(),
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

    /// The plain definition: the first envelope in arrival order that matches.
    fn reference_take(q: &mut Vec<Envelope>, src: u32, tag: u32, ctx: u32) -> Option<Envelope> {
        let i = q.iter().position(|e| e.matches(src, tag, ctx))?;
        Some(q.remove(i))
    }

    #[test]
    fn long_queues_match_like_the_plain_definition() {
        // Random pushes and takes over few sources, tags and contexts (so that keys
        // repeat), with wildcards on both sides, growing queues well past the index
        // threshold and draining them back.
        let mut rng = simpi_kernel::Rng::new(7);
        let mut pick = |n: u64| rng.next_u64() % n;
        let mut indexed_seen = false;
        for round in 0..40 {
            let (mut q, mut r) = (MatchQueue::default(), Vec::new());
            let grow = 60 + round * 5;
            for step in 0..4000u32 {
                let wild = |x: u64, w: u64| if w == 0 { u32::MAX } else { x as u32 };
                let pushing = if step < grow { pick(4) != 0 } else { pick(3) == 0 };
                if pushing {
                    let e = Envelope {
                        src: wild(pick(5), pick(12)),
                        tag: wild(pick(3), pick(12)),
                        op: step,
                        ctx: pick(2) as u32,
                    };
                    q.push(e);
                    r.push(e);
                } else {
                    let (src, tag, ctx) = (wild(pick(5), pick(6)), wild(pick(3), pick(6)), pick(2) as u32);
                    assert_eq!(
                        q.take(src, tag, ctx),
                        reference_take(&mut r, src, tag, ctx),
                        "round {round} step {step}"
                    );
                }
                indexed_seen |= matches!(q, MatchQueue::Indexed(_));
                assert_eq!(q.len(), r.len());
                assert!(
                    q.iter().copied().eq(r.iter().copied()),
                    "round {round} step {step}: order"
                );
            }
        }
        assert!(indexed_seen, "the test never grew a queue past the index threshold");
    }
}
