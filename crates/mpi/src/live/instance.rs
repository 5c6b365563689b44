//! A collective call being run on one rank of the live store: its operations are
//! created as their dependencies within the call complete, not all at once, so a call
//! of thousands of steps holds only the few that can run. The template is shared (see
//! [`crate::coll::emit::Interner`]); what a rank keeps is a count per step.
//!
//! Order is the whole template's: a step is created, and is ready, at the moment its
//! last dependency completes, and the steps that completion frees come in step order,
//! before anything else that completion frees (a whole template's steps were created
//! before any later operation). The end step, which the rank's program waits for, is
//! created at once with its dependencies counted, so the program can name it.

use crate::coll::emit::Template;
use std::sync::Arc;

/// The step number an entry operation's completion stands for.
pub(crate) const ENTRY: u32 = u32::MAX;

/// One rank's running collective call.
pub(crate) struct Instance {
    pub tpl: Arc<Template>,
    /// The rank's number in the communicator, and the communicator's size.
    pub me: u32,
    pub size: u32,
    /// World rank of each step's peer, when the communicator is not the world.
    pub world_peers: Option<Box<[u32]>>,
    pub ctx: u32,
    /// Local index of step 0 (steps are numbered as if created at once).
    pub base_local: u64,
    /// Where its per-step counts start in [`Instances`]' pool: dependencies not yet
    /// complete (the entry counts as one for steps without dependencies), `CREATED`
    /// once its operation exists.
    pub counts: u32,
    /// The end step's operation slot (created at once), [`NO_END`] until then (four
    /// bytes, not an `Option`'s eight: an instance is kept per rank).
    pub end_slot: u32,
    /// Steps whose operations have not completed yet.
    pub pending: u32,
    /// The program line of the call.
    pub line: u32,
    /// The rank.
    pub rank: u32,
}

/// `Instance::end_slot` before the end step is created.
pub(crate) const NO_END: u32 = u32::MAX;

/// A step's count once its operation exists.
pub(crate) const CREATED: u32 = u32::MAX;

impl Instance {
    /// The world rank step `i` talks to.
    #[inline]
    pub fn peer(&self, i: u32) -> u32 {
        match &self.world_peers {
            Some(p) => p[i as usize],
            None => self.tpl.peer(i, self.me, self.size, None),
        }
    }
}

/// One instance's per-step counts: a byte each when no step waits for more than
/// [`NARROW_MOST`] others (nearly every algorithm), else four bytes. Counts are most of
/// what a rank keeps of a running collective: a 2^17-rank recursive-doubling allreduce
/// holds 35 per rank, all at once.
pub(crate) enum Counts<'a> {
    Narrow(&'a mut [u8]),
    Wide(&'a mut [u32]),
}

/// The most dependencies a step of a template with narrow counts may have (`u8::MAX`
/// stands for [`CREATED`]).
pub(crate) const NARROW_MOST: u32 = u8::MAX as u32 - 1;

impl Counts<'_> {
    /// Step `i`'s count, [`CREATED`] once its operation exists.
    #[inline(always)]
    pub fn get(&self, i: u32) -> u32 {
        match self {
            Counts::Narrow(c) => match c[i as usize] {
                u8::MAX => CREATED,
                v => u32::from(v),
            },
            Counts::Wide(c) => c[i as usize],
        }
    }

    /// Sets step `i`'s count (a value the template's width holds, or [`CREATED`]).
    #[inline(always)]
    pub fn set(&mut self, i: u32, v: u32) {
        match self {
            Counts::Narrow(c) => {
                debug_assert!(v == CREATED || v <= NARROW_MOST);
                c[i as usize] = if v == CREATED { u8::MAX } else { v as u8 };
            }
            Counts::Wide(c) => c[i as usize] = v,
        }
    }
}

/// A pool of count blocks, reused by length once their instance is done: instances
/// made together (every rank entering the same call) have their counts side by side.
#[derive(Default)]
struct Pool<T> {
    counts: Vec<T>,
    /// Freed blocks by length.
    free: simpi_kernel::MixHashMap<u32, Vec<u32>>,
}

impl<T: Copy> Pool<T> {
    /// Stores `counts` in a block; returns where it starts.
    fn add(&mut self, counts: impl ExactSizeIterator<Item = T>) -> u32 {
        let n = counts.len() as u32;
        match self.free.get_mut(&n).and_then(Vec::pop) {
            Some(at) => {
                for (c, v) in self.counts[at as usize..(at + n) as usize].iter_mut().zip(counts) {
                    *c = v;
                }
                at
            }
            None => {
                let at = self.counts.len() as u32;
                self.counts.extend(counts);
                at
            }
        }
    }

    fn block(&mut self, at: u32, n: usize) -> &mut [T] {
        &mut self.counts[at as usize..at as usize + n]
    }

    fn free(&mut self, at: u32, n: usize) {
        self.free.entry(n as u32).or_default().push(at);
    }
}

/// Instances by id, reused once done, and their counts.
#[derive(Default)]
pub(crate) struct Instances {
    slots: Vec<Option<Instance>>,
    free: Vec<u32>,
    narrow: Pool<u8>,
    wide: Pool<u32>,
}

impl Instances {
    /// Room reserved for `n` instances of up to `steps` steps each, all at once (every
    /// rank in one collective; see [`super::arena::reserve_ahead`]).
    pub fn with_room(n: usize, steps: usize) -> Instances {
        let mut i = Instances::default();
        super::arena::reserve_ahead(&mut i.slots, n);
        super::arena::reserve_ahead(&mut i.narrow.counts, n.saturating_mul(steps));
        i
    }

    /// Adds `i` with the counts `counts` (one per step, each at most the template's
    /// [`Template::most_deps`], or 1).
    pub fn add(&mut self, mut i: Instance, counts: impl ExactSizeIterator<Item = u32>) -> u32 {
        i.counts = if i.tpl.most_deps() <= NARROW_MOST {
            self.narrow.add(counts.map(|c| c as u8))
        } else {
            self.wide.add(counts)
        };
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = Some(i);
                id
            }
            None => {
                self.slots.push(Some(i));
                self.slots.len() as u32 - 1
            }
        }
    }

    /// Instance `id` and its counts.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> (&mut Instance, Counts<'_>) {
        let i = self.slots[id as usize].as_mut().expect("a live instance");
        let n = i.tpl.len();
        let counts = if i.tpl.most_deps() <= NARROW_MOST {
            Counts::Narrow(self.narrow.block(i.counts, n))
        } else {
            Counts::Wide(self.wide.block(i.counts, n))
        };
        (i, counts)
    }

    pub fn remove(&mut self, id: u32) {
        let i = self.slots[id as usize].take().expect("a live instance");
        let n = i.tpl.len();
        if i.tpl.most_deps() <= NARROW_MOST {
            self.narrow.free(i.counts, n);
        } else {
            self.wide.free(i.counts, n);
        }
        self.free.push(id);
    }
}
