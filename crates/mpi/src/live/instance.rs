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
    /// The end step's operation slot (created at once), if the call does anything.
    pub end_slot: Option<u32>,
    /// Steps whose operations have not completed yet.
    pub pending: u32,
    /// The program line of the call.
    pub line: u32,
    /// The rank.
    pub rank: u32,
}

/// `Instance::remaining` of a step whose operation exists.
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

/// Instances by id, reused once done, and their counts in one pool: instances made
/// together (every rank entering the same call) have their counts side by side.
#[derive(Default)]
pub(crate) struct Instances {
    slots: Vec<Option<Instance>>,
    free: Vec<u32>,
    counts: Vec<u32>,
    /// Freed blocks of the pool by length.
    free_counts: simpi_kernel::MixHashMap<u32, Vec<u32>>,
}

impl Instances {
    /// Adds `i` with the counts `counts` (one per step).
    pub fn add(&mut self, mut i: Instance, counts: impl ExactSizeIterator<Item = u32>) -> u32 {
        let n = counts.len() as u32;
        let at = match self.free_counts.get_mut(&n).and_then(Vec::pop) {
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
        };
        i.counts = at;
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
    pub fn get_mut(&mut self, id: u32) -> (&mut Instance, &mut [u32]) {
        let i = self.slots[id as usize].as_mut().expect("a live instance");
        let n = i.tpl.len();
        let at = i.counts as usize;
        (i, &mut self.counts[at..at + n])
    }

    pub fn remove(&mut self, id: u32) {
        let i = self.slots[id as usize].take().expect("a live instance");
        self.free_counts.entry(i.tpl.len() as u32).or_default().push(i.counts);
        self.free.push(id);
    }
}
