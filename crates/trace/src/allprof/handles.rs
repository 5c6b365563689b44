//! Which communicator a handle names. liballprof prints a communicator argument as the
//! process's handle value with the process's rank and size in it, but prints only the
//! address of the handle a creation call fills in (`MPI_Comm *newcomm`). So a rank's
//! new communicators wait, oldest first, for a handle not yet known whose rank and
//! size fit them; a handle not made by a recorded call is MPI_COMM_WORLD when it has
//! the world's size and the rank's world rank, MPI_COMM_SELF when it has one rank.
//! After an MPI_Comm_free a known handle (not the world's or self's) may name a new
//! communicator: libraries reuse the freed memory.
//!
//! Communicators get trace-wide ids from the order of creation calls on their parent
//! (every member makes them in the same order): the `k`-th creation on `world` is
//! `world/k` (with `:color` for a split). The same tracking runs in the first pass,
//! which lists each rank's creations for [`simpi_mpi::comm::CommTable::build`], and in
//! the replay, so both see the same communicators.

use super::line::CommArg;
use simpi_kernel::MixHashMap;
use simpi_mpi::comm::Creation;
use std::collections::VecDeque;
use std::sync::Arc;

/// MPI_UNDEFINED as a color (Open MPI's and MPICH's value); any negative color is taken
/// as it.
pub(crate) const UNDEFINED: i64 = -32766;

/// A communicator as a handle names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// MPI_COMM_WORLD.
    World,
    /// The rank's MPI_COMM_SELF.
    Own,
    /// A communicator made by a recorded call, by its trace-wide id.
    Made(Arc<str>),
}

/// A communicator made on this rank whose handle has not been seen yet.
struct Pending {
    id: Arc<str>,
    /// The parent's handle (the parent is still known by it).
    parent: u64,
    /// (rank, size) when known (a dup's are its parent's); else at most this size.
    fits: Result<(u32, u32), u32>,
}

/// One rank's handles.
#[derive(Default)]
pub(crate) struct Handles {
    bound: MixHashMap<u64, Bound>,
    pending: VecDeque<Pending>,
    /// MPI_Comm_free calls whose handle may come back for a new communicator.
    frees: u32,
    /// Creation calls made so far on each parent.
    made: MixHashMap<Arc<str>, u64>,
}

impl Pending {
    fn fits(&self, c: &CommArg) -> bool {
        match self.fits {
            Ok((r, n)) => c.rank == r && c.size == n,
            Err(max) => c.size <= max,
        }
    }
}

impl Handles {
    /// The communicator `c` names on world rank `rank` of `p`.
    pub(crate) fn resolve(&mut self, c: &CommArg, rank: u32, p: u32) -> Result<Bound, String> {
        let fitting = |pending: &VecDeque<Pending>, not_parent: Option<u64>| {
            pending.iter().position(|q| q.fits(c) && Some(q.parent) != not_parent)
        };
        if let Some(b) = self.bound.get(&c.handle) {
            if matches!(b, Bound::Made(_)) && self.frees > 0 {
                if let Some(i) = fitting(&self.pending, Some(c.handle)) {
                    let q = self.pending.remove(i).expect("found");
                    self.frees -= 1;
                    let b = Bound::Made(q.id);
                    self.bound.insert(c.handle, b.clone());
                    return Ok(b);
                }
            }
            return Ok(b.clone());
        }
        let b = if let Some(i) = fitting(&self.pending, None) {
            Bound::Made(self.pending.remove(i).expect("found").id)
        } else if c.size == p && c.rank == rank {
            Bound::World
        } else if c.size == 1 {
            Bound::Own
        } else {
            return Err(format!(
                "communicator {} (rank {} of {}) was not made by a call the trace records \
                 (MPI_Comm_split and MPI_Comm_dup are read)",
                c.handle, c.rank, c.size
            ));
        };
        self.bound.insert(c.handle, b.clone());
        Ok(b)
    }

    /// A creation call on `parent` (named by `pc`): a split with `Some((color, key))`,
    /// else a dup. Returns the creation for the communicator table.
    pub(crate) fn created(
        &mut self,
        parent: &Bound,
        pc: &CommArg,
        split: Option<(i64, i64)>,
    ) -> Result<Creation, String> {
        let pid: Arc<str> = match parent {
            Bound::World => Arc::from("world"),
            Bound::Own => return Err("communicators made from MPI_COMM_SELF are not supported".into()),
            Bound::Made(id) => Arc::clone(id),
        };
        let k = self.made.entry(Arc::clone(&pid)).or_insert(0);
        let n = *k;
        *k += 1;
        Ok(match split {
            Some((color, key)) => {
                let new = (color >= 0).then(|| format!("{pid}/{n}:{color}"));
                if let Some(id) = &new {
                    self.pending.push_back(Pending {
                        id: Arc::from(id.as_str()),
                        parent: pc.handle,
                        fits: Err(pc.size),
                    });
                }
                Creation::Split {
                    parent: pid.to_string(),
                    color,
                    key,
                    new,
                }
            }
            None => {
                let new = format!("{pid}/{n}");
                self.pending.push_back(Pending {
                    id: Arc::from(new.as_str()),
                    parent: pc.handle,
                    fits: Ok((pc.rank, pc.size)),
                });
                Creation::Dup {
                    parent: pid.to_string(),
                    new,
                }
            }
        })
    }

    /// An MPI_Comm_free.
    pub(crate) fn freed(&mut self) {
        self.frees = self.frees.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(handle: u64, rank: u32, size: u32) -> CommArg {
        CommArg { handle, rank, size }
    }

    #[test]
    fn world_self_and_a_split_bind_by_rank_and_size() {
        let mut h = Handles::default();
        assert_eq!(h.resolve(&c(7, 2, 4), 2, 4), Ok(Bound::World));
        let made = h.created(&Bound::World, &c(7, 2, 4), Some((1, 0))).unwrap();
        assert_eq!(
            made,
            Creation::Split {
                parent: "world".into(),
                color: 1,
                key: 0,
                new: Some("world/0:1".into())
            }
        );
        // The world's handle stays the world's; the next unknown one is the split's.
        assert_eq!(h.resolve(&c(7, 2, 4), 2, 4), Ok(Bound::World));
        assert_eq!(h.resolve(&c(9, 0, 2), 2, 4), Ok(Bound::Made("world/0:1".into())));
        assert_eq!(h.resolve(&c(11, 0, 1), 2, 4), Ok(Bound::Own));
        assert!(h.resolve(&c(13, 0, 3), 2, 4).is_err());
    }

    #[test]
    fn a_freed_handle_comes_back_for_a_new_dup() {
        let mut h = Handles::default();
        h.resolve(&c(7, 0, 4), 0, 4).unwrap();
        h.created(&Bound::World, &c(7, 0, 4), None).unwrap();
        assert_eq!(h.resolve(&c(20, 0, 4), 0, 4), Ok(Bound::Made("world/0".into())));
        h.freed();
        h.created(&Bound::World, &c(7, 0, 4), None).unwrap();
        // The world is never taken for the new one; the freed handle is.
        assert_eq!(h.resolve(&c(7, 0, 4), 0, 4), Ok(Bound::World));
        assert_eq!(h.resolve(&c(20, 0, 4), 0, 4), Ok(Bound::Made("world/1".into())));
    }
}
