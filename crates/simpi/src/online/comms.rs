//! The communicators of a run: their members, and the new ones that MPI_Comm_dup,
//! MPI_Comm_split, MPI_Comm_split_type and MPI_Comm_create make. The ranks name a
//! communicator by the index this table gives it; point-to-point ranks and collective
//! roles are translated here between a communicator's ranks and world ranks.
//!
//! Index 0 is MPI_COMM_WORLD and index 1 every rank's MPI_COMM_SELF (one index for
//! all: each holds one rank, so their traffic never meets). The k-th creation call on
//! a communicator is the same call on all its members, so the new communicators it
//! makes are numbered once, by the first member that asks, and found by the others.

use simpi_wire::{abi, CollKind, NewComm};
use std::collections::HashMap;
use std::sync::Arc;

/// The index of every rank's MPI_COMM_SELF.
pub const SELF_INDEX: u32 = 1;

/// A communicator other than the world and the selves.
#[derive(Clone, Debug)]
struct Members {
    /// World ranks in communicator rank order.
    list: Arc<[u32]>,
    /// (world rank, communicator rank), sorted by world rank.
    by_world: Vec<(u32, u32)>,
}

impl Members {
    fn new(list: Vec<u32>) -> Members {
        let mut by_world: Vec<(u32, u32)> = list.iter().enumerate().map(|(i, &w)| (w, i as u32)).collect();
        by_world.sort_unstable();
        Members {
            list: list.into(),
            by_world,
        }
    }
}

/// All communicators of a run.
pub struct Comms {
    world: u32,
    /// By index; `None` for the world and the selves.
    table: Vec<Option<Members>>,
    /// New communicators made by creation calls, by (parent, its first member, call
    /// number on it, the new one's key): its index.
    made: HashMap<(u32, u32, u64, i64), u32>,
    /// Intercommunicators, by index: their two groups, the one with the lower first
    /// world rank first.
    inter: HashMap<u32, (Members, Members)>,
    /// Intercommunicators made by MPI_Intercomm_create, by (first ranks of the two
    /// groups, tag, how many such were made before): the index.
    inter_made: HashMap<(u32, u32, i32, u64), u32>,
    /// Per (world rank, first ranks of the two groups, tag): intercommunicators it
    /// made so.
    inter_count: HashMap<(u32, u32, u32, i32), u64>,
    /// Communicators made by MPI_Comm_create_group, by (members, tag, how many such
    /// were made before): the index.
    group_made: HashMap<(Vec<u32>, i32, u64), u32>,
    /// Per (world rank, members, tag): such communicators it made.
    group_count: HashMap<(u32, Vec<u32>, i32), u64>,
}

/// Which communicator a rank is in, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Its size.
    pub size: u32,
    /// The rank's rank in it.
    pub me: u32,
    /// The world rank of its rank 0 (names a self apart from the others).
    pub leader: u32,
}

impl Comms {
    /// The world of `world` ranks and their selves.
    pub fn new(world: u32) -> Comms {
        Comms {
            world,
            table: vec![None, None],
            made: HashMap::new(),
            inter: HashMap::new(),
            inter_made: HashMap::new(),
            inter_count: HashMap::new(),
            group_made: HashMap::new(),
            group_count: HashMap::new(),
        }
    }

    /// Intercommunicator `comm` as world rank `r` sees it: (its group, the other),
    /// if `comm` is one.
    fn sides(&self, comm: u32, r: u32) -> Result<Option<(&Members, &Members)>, String> {
        let Some((a, b)) = self.inter.get(&comm) else {
            return Ok(None);
        };
        let is_in = |m: &Members| m.by_world.binary_search_by_key(&r, |&(w, _)| w).is_ok();
        if is_in(a) {
            Ok(Some((a, b)))
        } else if is_in(b) {
            Ok(Some((b, a)))
        } else {
            Err(format!(
                "rank {r} uses communicator {comm}, which it is not a member of"
            ))
        }
    }

    /// A new index, if any is left: the lower half of the driver's, the upper half
    /// keeps collective calls apart (`instance_comm` in `online/mod.rs`).
    fn next_index(&self) -> Result<u32, String> {
        let i = self.table.len() as u32;
        let most = simpi_mpi::driver::MAX_COMMS / 2;
        if i >= most {
            return Err(format!("more than {most} communicators made"));
        }
        Ok(i)
    }

    /// The intercommunicator world rank `r` makes with MPI_Intercomm_create between
    /// its group `local` and group `remote` (world ranks, in their rank orders), with
    /// `tag`: both groups' members get the same index.
    pub fn intercomm(&mut self, r: u32, local: Vec<u32>, remote: Vec<u32>, tag: i32) -> Result<u32, String> {
        let (Some(&l0), Some(&r0)) = (local.first(), remote.first()) else {
            return Err(format!("rank {r}: an intercommunicator with an empty group"));
        };
        if !local.contains(&r) || remote.iter().chain(&local).any(|&w| w >= self.world) {
            return Err(format!(
                "rank {r}: an intercommunicator's groups are not made of ranks, it among them"
            ));
        }
        if local.iter().any(|w| remote.contains(w)) {
            return Err(format!("rank {r}: the two groups of an intercommunicator overlap"));
        }
        let (lo, hi) = (l0.min(r0), l0.max(r0));
        let k = self.inter_count.entry((r, lo, hi, tag)).or_insert(0);
        let nth = *k;
        *k += 1;
        if let Some(&i) = self.inter_made.get(&(lo, hi, tag, nth)) {
            return Ok(i);
        }
        let i = self.next_index()?;
        let (a, b) = if l0 < r0 { (local, remote) } else { (remote, local) };
        self.table.push(None);
        self.inter.insert(i, (Members::new(a), Members::new(b)));
        self.inter_made.insert((lo, hi, tag, nth), i);
        Ok(i)
    }

    /// The communicator world rank `r` makes with MPI_Comm_create_group of `members`
    /// and `tag`: all of them get the same index.
    pub fn group_comm(&mut self, r: u32, members: Vec<u32>, tag: i32) -> Result<u32, String> {
        let mut sorted = members.clone();
        sorted.sort_unstable();
        if !members.contains(&r)
            || sorted.windows(2).any(|w| w[0] == w[1])
            || sorted.last().is_some_and(|&w| w >= self.world)
        {
            return Err(format!(
                "rank {r}: MPI_Comm_create_group with a group that is not a set of ranks, it among them"
            ));
        }
        let k = self.group_count.entry((r, members.clone(), tag)).or_insert(0);
        let nth = *k;
        *k += 1;
        if let Some(&i) = self.group_made.get(&(members.clone(), tag, nth)) {
            return Ok(i);
        }
        let i = self.next_index()?;
        self.table.push(Some(Members::new(members.clone())));
        self.group_made.insert((members, tag, nth), i);
        Ok(i)
    }

    /// How many ranks the first group of intercommunicator `comm` has (the first
    /// ones in [`Comms::union`] order).
    pub fn first_group(&self, comm: u32) -> Result<usize, String> {
        self.inter
            .get(&comm)
            .map(|(a, _)| a.list.len())
            .ok_or_else(|| format!("communicator {comm} is not an intercommunicator"))
    }

    /// Whether `comm` is an intercommunicator.
    pub fn is_inter(&self, comm: u32) -> bool {
        self.inter.contains_key(&comm)
    }

    /// Both groups of intercommunicator `comm` as one (the group with the lower first
    /// rank first), and world rank `r`'s place there: what MPI_Intercomm_merge
    /// collects over.
    pub fn union(&self, comm: u32, r: u32) -> Result<(Arc<[u32]>, Place), String> {
        let (a, b) = self
            .inter
            .get(&comm)
            .ok_or_else(|| format!("communicator {comm} is not an intercommunicator"))?;
        let all: Vec<u32> = a.list.iter().chain(b.list.iter()).copied().collect();
        let me = all
            .iter()
            .position(|&w| w == r)
            .ok_or_else(|| format!("rank {r} uses communicator {comm}, which it is not a member of"))?;
        let place = Place {
            size: all.len() as u32,
            me: me as u32,
            leader: all[0],
        };
        Ok((all.into(), place))
    }

    fn members(&self, comm: u32) -> Result<Option<&Members>, String> {
        match self.table.get(comm as usize) {
            Some(m) => Ok(m.as_ref()),
            None => Err(format!("communicator {comm} was never made")),
        }
    }

    /// Where world rank `r` is in `comm` (in its own group, for an intercommunicator);
    /// an error if it is not a member.
    pub fn place(&self, comm: u32, r: u32) -> Result<Place, String> {
        if let Some((mine, other)) = self.sides(comm, r)? {
            let i = mine
                .by_world
                .binary_search_by_key(&r, |&(w, _)| w)
                .map_err(|_| "not a member")?;
            return Ok(Place {
                size: mine.list.len() as u32,
                me: mine.by_world[i].1,
                // The same on both sides.
                leader: mine.list[0].min(other.list[0]),
            });
        }
        match (comm, self.members(comm)?) {
            (SELF_INDEX, _) => Ok(Place {
                size: 1,
                me: 0,
                leader: r,
            }),
            (_, None) => Ok(Place {
                size: self.world,
                me: r,
                leader: 0,
            }),
            (_, Some(m)) => {
                let i = m
                    .by_world
                    .binary_search_by_key(&r, |&(w, _)| w)
                    .map_err(|_| format!("rank {r} uses communicator {comm}, which it is not a member of"))?;
                Ok(Place {
                    size: m.list.len() as u32,
                    me: m.by_world[i].1,
                    leader: m.list[0],
                })
            }
        }
    }

    /// The world rank of rank `i` of `comm` as world rank `r` sees it (of the other
    /// group, for an intercommunicator).
    pub fn world_rank(&self, comm: u32, r: u32, i: u32) -> Result<u32, String> {
        if let Some((_, other)) = self.sides(comm, r)? {
            return other.list.get(i as usize).copied().ok_or_else(|| {
                format!(
                    "rank {r} names rank {i} of the remote group of communicator {comm}, which has {} ranks",
                    other.list.len()
                )
            });
        }
        let p = self.place(comm, r)?;
        if i >= p.size {
            return Err(format!(
                "rank {r} names rank {i} of communicator {comm}, which has {} ranks",
                p.size
            ));
        }
        Ok(match (comm, self.members(comm)?) {
            (SELF_INDEX, _) => r,
            (_, None) => i,
            (_, Some(m)) => m.list[i as usize],
        })
    }

    /// The members of `comm` as world rank `r` sees it, for the engine (`None`: the
    /// world).
    pub fn member_list(&self, comm: u32, r: u32) -> Result<Option<Arc<[u32]>>, String> {
        if self.is_inter(comm) {
            return Err(format!(
                "rank {r}: a collective on intercommunicator {comm}: not simulated yet"
            ));
        }
        Ok(match (comm, self.members(comm)?) {
            (SELF_INDEX, _) => Some(Arc::from([r].as_slice())),
            (_, None) => None,
            (_, Some(m)) => Some(Arc::clone(&m.list)),
        })
    }

    /// The new communicator that creation call `seq` (of `kind`) on `parent` gives world
    /// rank `r`, from every member's contribution (`parts`, in parent rank order) and
    /// each member's host (`host_of`, by world rank).
    pub fn create(
        &mut self,
        (parent, seq, kind): (u32, u64, CollKind),
        r: u32,
        parts: &[Vec<u8>],
        host_of: impl Fn(u32) -> u32,
    ) -> Result<NewComm, String> {
        if kind == CollKind::Dup && self.is_inter(parent) {
            let at = self.place(parent, r)?;
            let id = (parent, at.leader, seq, 0);
            let index = match self.made.get(&id) {
                Some(&i) => i,
                None => {
                    let i = self.next_index()?;
                    let groups = self.inter[&parent].clone();
                    self.table.push(None);
                    self.inter.insert(i, groups);
                    self.made.insert(id, i);
                    i
                }
            };
            return Ok(NewComm::SameMembers(index));
        }
        if kind == CollKind::Merge {
            return self.merge((parent, seq), r, parts);
        }
        if self.is_inter(parent) {
            return self.inter_subset((parent, seq, kind), r, parts);
        }
        let at = self.place(parent, r)?;
        let world = |i: u32| self.world_rank(parent, r, i);
        let int_at = |p: &[u8], k: usize| -> Result<i32, String> {
            p.get(4 * k..4 * k + 4)
                .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .ok_or_else(|| format!("a {kind:?} contribution of {} bytes", p.len()))
        };
        // The new communicator's key among those the call makes, and its members.
        let (key, list) = match kind {
            CollKind::Dup => (0, None),
            CollKind::Split | CollKind::SplitShared => {
                // (color, key) of each parent rank.
                let mut ck = Vec::with_capacity(parts.len());
                for (i, p) in parts.iter().enumerate() {
                    ck.push(if kind == CollKind::Split {
                        (int_at(p, 0)? as i64, int_at(p, 1)?)
                    } else {
                        // (key, undefined): undefined ranks get no communicator.
                        let host = match int_at(p, 1).unwrap_or(0) {
                            0 => host_of(world(i as u32)?) as i64,
                            _ => abi::UNDEFINED as i64,
                        };
                        (host, int_at(p, 0)?)
                    });
                }
                let color = ck[at.me as usize].0;
                if color == abi::UNDEFINED as i64 {
                    return Ok(NewComm::Null);
                }
                if color < 0 {
                    return Err(format!("rank {r}: MPI_Comm_split with the negative color {color}"));
                }
                let mut same: Vec<(i32, u32)> = (0..parts.len() as u32)
                    .filter(|&i| ck[i as usize].0 == color)
                    .map(|i| (ck[i as usize].1, i))
                    .collect();
                same.sort_unstable();
                let list = same.iter().map(|&(_, i)| world(i)).collect::<Result<Vec<u32>, _>>()?;
                (color, Some(list))
            }
            CollKind::Create => {
                let mine = &parts[at.me as usize];
                if mine.is_empty() {
                    return Ok(NewComm::Null);
                }
                let list: Vec<u32> = mine
                    .chunks(4)
                    .map(|b| <[u8; 4]>::try_from(b).map(u32::from_le_bytes))
                    .collect::<Result<_, _>>()
                    .map_err(|_| format!("rank {r}: a group of {} bytes", mine.len()))?;
                let mut sorted = list.clone();
                sorted.sort_unstable();
                if sorted.windows(2).any(|w| w[0] == w[1]) || sorted.last().is_some_and(|&w| w >= self.world) {
                    return Err(format!(
                        "rank {r}: MPI_Comm_create with a group that is not a set of ranks"
                    ));
                }
                if !sorted.contains(&r) {
                    return Ok(NewComm::Null);
                }
                // Disjoint groups start with different ranks; equal ones name one
                // communicator.
                (list[0] as i64, Some(list))
            }
            k => return Err(format!("{k:?} makes no communicator")),
        };
        let id = (parent, at.leader, seq, key);
        let index = match self.made.get(&id) {
            Some(&i) => i,
            None => {
                let i = self.next_index()?;
                let m = match (&list, self.member_list(parent, r)?) {
                    (Some(l), _) => Some(Members::new(l.clone())),
                    (None, Some(p)) => Some(Members::new(p.to_vec())),
                    (None, None) => None,
                };
                self.table.push(m);
                self.made.insert(id, i);
                i
            }
        };
        Ok(match (list, parent) {
            (None, SELF_INDEX) => NewComm::Members(index, vec![r]),
            (None, _) => NewComm::SameMembers(index),
            (Some(l), _) => NewComm::Members(index, l),
        })
    }
}

impl Comms {
    /// MPI_Intercomm_merge: the intracommunicator of both groups of intercommunicator
    /// `inter`, the group that asked "high" last (both or neither: the group with the
    /// lower first rank first). `parts` are each member's `high` flag (i32), in
    /// [`Comms::union`] order.
    fn merge(&mut self, (inter, seq): (u32, u64), r: u32, parts: &[Vec<u8>]) -> Result<NewComm, String> {
        let (all, at) = self.union(inter, r)?;
        let first = self.inter[&inter].0.list.len();
        let high = |i: usize| parts.get(i).and_then(|p| p.first()).is_some_and(|&b| b != 0);
        let (ha, hb) = (high(0), high(first));
        let list: Vec<u32> = if ha && !hb {
            all[first..].iter().chain(all[..first].iter()).copied().collect()
        } else {
            all.to_vec()
        };
        let id = (inter, at.leader, seq, 0);
        let index = match self.made.get(&id) {
            Some(&i) => i,
            None => {
                let i = self.next_index()?;
                self.table.push(Some(Members::new(list.clone())));
                self.made.insert(id, i);
                i
            }
        };
        Ok(NewComm::Members(index, list))
    }
}

/// Chooses the members of one side (a range of union positions) of an
/// intercommunicator, in their new order.
type Pick<'a> = dyn Fn(std::ops::Range<usize>) -> Result<Vec<u32>, String> + 'a;

impl Comms {
    /// MPI_Comm_split or MPI_Comm_create on intercommunicator `inter`: a new
    /// intercommunicator between the chosen members of each group (of one color, or
    /// in the group each side named). `parts` are the members' contributions in
    /// [`Comms::union`] order. No one chosen on either side: MPI_COMM_NULL.
    fn inter_subset(
        &mut self,
        (inter, seq, kind): (u32, u64, CollKind),
        r: u32,
        parts: &[Vec<u8>],
    ) -> Result<NewComm, String> {
        let (all, at) = self.union(inter, r)?;
        let first = self.inter[&inter].0.list.len();
        let me = at.me as usize;
        let mine = if me < first { 0..first } else { first..all.len() };
        let other = if me < first { first..all.len() } else { 0..first };
        let int_at = |p: &[u8], k: usize| -> Result<i32, String> {
            p.get(4 * k..4 * k + 4)
                .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .ok_or_else(|| format!("a {kind:?} contribution of {} bytes", p.len()))
        };
        let ranks_of = |p: &[u8]| -> Vec<u32> {
            p.chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        };
        // The chosen members of a side, in their new order, and the key of the result.
        let (pick, key): (Box<Pick>, i64) = match kind {
            CollKind::Split => {
                let color = int_at(&parts[me], 0)?;
                if color == abi::UNDEFINED {
                    return Ok(NewComm::Null);
                }
                let pick = move |side: std::ops::Range<usize>| -> Result<Vec<u32>, String> {
                    let mut v = Vec::new();
                    for i in side {
                        if int_at(&parts[i], 0)? == color {
                            v.push((int_at(&parts[i], 1)?, i));
                        }
                    }
                    v.sort_unstable();
                    Ok(v.into_iter().map(|(_, i)| all[i]).collect())
                };
                (Box::new(pick), color as i64)
            }
            CollKind::Create => {
                // Each side's group, as its first member named it.
                let pick = move |side: std::ops::Range<usize>| -> Result<Vec<u32>, String> {
                    Ok(ranks_of(&parts[side.start]))
                };
                (Box::new(pick), 0)
            }
            k => return Err(format!("{k:?} of an intercommunicator")),
        };
        let (local, remote) = (pick(mine)?, pick(other)?);
        if !local.contains(&r) || remote.is_empty() {
            return Ok(NewComm::Null);
        }
        let id = (inter, at.leader, seq, key);
        let index = match self.made.get(&id) {
            Some(&i) => i,
            None => {
                let i = self.next_index()?;
                let (a, b) = if local[0] < remote[0] {
                    (local.clone(), remote.clone())
                } else {
                    (remote.clone(), local.clone())
                };
                self.table.push(None);
                self.inter.insert(i, (Members::new(a), Members::new(b)));
                self.made.insert(id, i);
                i
            }
        };
        Ok(NewComm::Inter(index, local, remote))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(color: i32, key: i32) -> Vec<u8> {
        [color.to_le_bytes(), key.to_le_bytes()].concat()
    }

    #[test]
    fn a_split_orders_by_key_then_parent_rank_and_numbers_each_color_once() {
        let mut c = Comms::new(4);
        // Colors 0,1,0,1; keys reverse rank 0 and 2 and tie ranks 1 and 3.
        let parts = vec![split(0, 5), split(1, 0), split(0, 1), split(1, 0)];
        let call = (0, 0, CollKind::Split);
        let a = c.create(call, 0, &parts, |w| w).unwrap();
        let b = c.create(call, 3, &parts, |w| w).unwrap();
        let a2 = c.create(call, 2, &parts, |w| w).unwrap();
        assert_eq!(a, NewComm::Members(2, vec![2, 0]));
        assert_eq!(b, NewComm::Members(3, vec![1, 3]));
        assert_eq!(a2, a);
        // Rank 0 is rank 1 of communicator 2; its rank 0 is world rank 2.
        assert_eq!(
            c.place(2, 0).unwrap(),
            Place {
                size: 2,
                me: 1,
                leader: 2
            }
        );
        assert_eq!(c.world_rank(2, 0, 0).unwrap(), 2);
        assert!(c.place(2, 1).is_err());
        assert!(c.world_rank(2, 0, 2).is_err());
    }

    #[test]
    fn undefined_colors_and_outsiders_get_no_communicator() {
        let mut c = Comms::new(3);
        let parts = vec![split(abi::UNDEFINED, 0), split(4, 0), split(4, 0)];
        assert_eq!(
            c.create((0, 0, CollKind::Split), 0, &parts, |w| w).unwrap(),
            NewComm::Null
        );
        let group: Vec<u8> = [2u32, 1].iter().flat_map(|w| w.to_le_bytes()).collect();
        let parts = vec![group.clone(), group.clone(), group];
        assert_eq!(
            c.create((0, 1, CollKind::Create), 0, &parts, |w| w).unwrap(),
            NewComm::Null
        );
        assert_eq!(
            c.create((0, 1, CollKind::Create), 1, &parts, |w| w).unwrap(),
            NewComm::Members(2, vec![2, 1])
        );
    }

    #[test]
    fn split_shared_groups_by_host_and_dup_keeps_members() {
        let mut c = Comms::new(4);
        let keys: Vec<Vec<u8>> = (0..4).map(|_| 0i32.to_le_bytes().to_vec()).collect();
        // Two ranks per host.
        let got = c.create((0, 0, CollKind::SplitShared), 3, &keys, |w| w / 2).unwrap();
        assert_eq!(got, NewComm::Members(2, vec![2, 3]));
        let dup = c.create((2, 0, CollKind::Dup), 3, &[], |w| w).unwrap();
        assert_eq!(dup, NewComm::SameMembers(3));
        assert_eq!(c.place(3, 3).unwrap().me, 1);
        // Each rank's self dups to a communicator of its own.
        let s0 = c.create((SELF_INDEX, 0, CollKind::Dup), 0, &[], |w| w).unwrap();
        let s1 = c.create((SELF_INDEX, 0, CollKind::Dup), 1, &[], |w| w).unwrap();
        assert_eq!((s0, s1), (NewComm::Members(4, vec![0]), NewComm::Members(5, vec![1])));
    }
}
