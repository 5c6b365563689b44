//! The data of collectives: what each rank contributes, and what each gets back when
//! the simulation says its part of the call is done. The engine simulates the
//! algorithm's messages for the time; the results are computed here from all the
//! contributions, which is exact because a rank's part of a collective cannot end
//! before every contribution its result depends on was made.

use super::comms::Place;
use simpi_wire::reduce::combine;
use simpi_wire::{abi, CollKind, Collective};
use std::borrow::Cow;

/// A collective call's name: its communicator, that communicator's first member (a
/// world rank: every MPI_COMM_SELF has the same index), and its number there.
pub type CallKey = (u32, u32, u64);

/// One collective call, as all ranks make it.
struct Instance {
    /// Ranks in the communicator.
    size: u32,
    first: Collective,
    /// The rank whose call `first` is.
    first_rank: u32,
    contributions: Vec<Option<Vec<u8>>>,
    /// Alltoallv: the bytes each rank sends to each rank.
    send_counts: Vec<Vec<u64>>,
    /// The reduction over all ranks, once computed (every rank of an allreduce or a
    /// reduce_scatter_block reads the same one).
    reduced: Option<Vec<u8>>,
    /// Scan, Exscan: the reductions over ranks `0..=i` computed so far.
    prefixes: Vec<Vec<u8>>,
    /// Ranks that took their result.
    delivered: u32,
    /// On an intercommunicator: how many of the ranks (the first ones, in
    /// [`super::comms::Comms::union`] order) are the first group.
    first_group: Option<usize>,
    /// On an intercommunicator: each rank's root argument (MPI_ROOT, MPI_PROC_NULL or
    /// a rank of the other group), as the wire carries it.
    roots: Vec<u32>,
}

/// The bit of a [`CallKey`]'s number that marks a persistent collective's start (the
/// rest: its request's number, then the start's).
pub const PERSISTENT: u64 = 1 << 63;

/// MPI_ROOT and MPI_PROC_NULL as a collective's root field carries them.
const ROOT: u32 = abi::ROOT as u32;

/// The collectives in progress, by [`CallKey`] (the k-th collective call of every rank
/// on a communicator is the same call).
pub struct Collectives {
    /// Per world rank: the number of its next call on each communicator.
    next: Vec<std::collections::HashMap<u32, u64>>,
    open: std::collections::HashMap<CallKey, Instance>,
}

impl Collectives {
    /// No collective yet, for `world` ranks.
    pub fn new(world: u32) -> Collectives {
        Collectives {
            next: vec![Default::default(); world as usize],
            open: Default::default(),
        }
    }

    /// World rank `world`, at place `at` of the communicator, makes its next
    /// collective call `c` there; returns the call's key. A call that differs from the
    /// other ranks' in kind, root or size is an error.
    pub fn join(&mut self, world: u32, at: Place, c: Collective) -> Result<CallKey, String> {
        self.join_sides(world, at, c, None)
    }

    /// [`Collectives::join`] on an intercommunicator whose first group has
    /// `first_group` ranks (`at` is the rank's place in both groups together), or on
    /// an intracommunicator (`None`).
    pub fn join_sides(
        &mut self,
        world: u32,
        at: Place,
        c: Collective,
        first_group: Option<usize>,
    ) -> Result<CallKey, String> {
        let seq = match c.persistent {
            // A persistent collective's start: by its request's and start's numbers,
            // whatever order the ranks start their requests in.
            Some((id, start)) => PERSISTENT | (id & 0x7fff_ffff) << 32 | (start & 0xffff_ffff),
            None => {
                let next = self.next[world as usize].entry(c.comm).or_insert(0);
                *next += 1;
                *next - 1
            }
        };
        let key = (c.comm, at.leader, seq);
        let rank = at.me;
        let size = at.size as usize;
        let inst = self.open.entry(key).or_insert_with(|| Instance {
            size: at.size,
            // Without the data: the contribution is kept below, not copied.
            first: Collective {
                kind: c.kind,
                comm: c.comm,
                root: c.root,
                op: c.op,
                datatype: c.datatype,
                count: c.count,
                send_counts: c.send_counts.clone(),
                recv_counts: c.recv_counts.clone(),
                data: Vec::new(),
                send_at: None,
                recv_at: None,
                persistent: c.persistent,
            },
            first_rank: rank,
            contributions: vec![None; size],
            send_counts: vec![Vec::new(); size],
            reduced: None,
            prefixes: Vec::new(),
            delivered: 0,
            first_group,
            roots: vec![0; size],
        });
        let f = &inst.first;
        // On an intercommunicator the ranks name the root differently, and the ranks
        // of the root's group other than the root pass no size.
        let inter = inst.first_group.is_some();
        let same_root = f.root == c.root || inter;
        let same_count = f.count == c.count || inter;
        if f.kind != c.kind || !same_root || !same_count || f.datatype != c.datatype || f.op != c.op {
            return Err(format!(
                "collective call #{seq} on communicator {} differs between ranks: rank {} called {:?} \
                 (root {}, count {}, datatype {:#x}, op {:#x}), rank {rank} {:?} (root {}, count {}, \
                 datatype {:#x}, op {:#x})",
                c.comm,
                inst.first_rank,
                f.kind,
                f.root,
                f.count,
                f.datatype,
                f.op,
                c.kind,
                c.root,
                c.count,
                c.datatype,
                c.op
            ));
        }
        let is_root = match inst.first_group {
            Some(_) => c.root == ROOT,
            None => rank == c.root,
        };
        let blocks_sent = c.kind == CollKind::Alltoallv || (c.kind == CollKind::Scatterv && is_root);
        inst.roots[rank as usize] = c.root;
        if blocks_sent && c.send_counts.iter().sum::<u64>() != c.data.len() as u64 {
            return Err(format!(
                "rank {rank}: the {:?}'s blocks do not add up to its data",
                c.kind
            ));
        }
        inst.send_counts[rank as usize] = c.send_counts;
        inst.contributions[rank as usize] = Some(c.data);
        Ok(key)
    }

    /// Every rank's contribution to call `key` (in communicator rank order), once
    /// all are in.
    pub fn parts(&self, key: CallKey) -> Result<Vec<Vec<u8>>, String> {
        let seq = key.2;
        let inst = self
            .open
            .get(&key)
            .ok_or_else(|| format!("collective #{seq} is unknown"))?;
        inst.contributions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                p.clone()
                    .ok_or_else(|| format!("collective #{seq}: rank {i}'s contribution is not there yet"))
            })
            .collect()
    }

    /// What rank `rank` (of the communicator) receives from call `key`, now that its
    /// part is done (nothing for the calls that make communicators).
    pub fn result(&mut self, rank: u32, key: CallKey) -> Result<Vec<u8>, String> {
        self.result_with(rank, key, |data| Ok(data.to_vec()))
    }

    /// [`Collectives::result`], handed to `deliver`: a result every rank shares (a
    /// reduction's, a broadcast's) is not copied for each.
    pub fn result_with<T>(
        &mut self,
        rank: u32,
        key: CallKey,
        deliver: impl FnOnce(&[u8]) -> Result<T, String>,
    ) -> Result<T, String> {
        let seq = key.2;
        let inst = self
            .open
            .get_mut(&key)
            .ok_or_else(|| format!("collective #{seq} is unknown"))?;
        let given = match inst.first_group {
            Some(first) => deliver(&inter_result(inst, rank as usize, first)?),
            None => deliver(&intra_result(inst, rank, seq)?),
        }?;
        inst.delivered += 1;
        if inst.delivered == inst.size {
            self.open.remove(&key);
        }
        Ok(given)
    }
}

/// What rank `rank` of an intracommunicator collective (number `seq`) receives.
fn intra_result(inst: &mut Instance, rank: u32, seq: u64) -> Result<Cow<'_, [u8]>, String> {
    let n = inst.size as usize;
    let c = &inst.first;
    let r = rank as usize;
    let contributions = &inst.contributions;
    let send_counts = &inst.send_counts;
    let missing = |i: usize| {
        format!(
            "collective #{seq} ({:?} on communicator {}): rank {rank} would get its result before rank \
                 {i}'s contribution is there",
            c.kind, c.comm
        )
    };
    let part = |i: usize| contributions[i].as_deref().ok_or_else(|| missing(i));
    let block = |data: &[u8], i: usize, len: usize| -> Result<Vec<u8>, String> {
        data.get(i * len..(i + 1) * len)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| format!("collective #{seq}: a buffer of {} bytes has no block {i}", data.len()))
    };
    let reduce_over = |ranks: std::ops::Range<usize>| -> Result<Vec<u8>, String> {
        let mut acc: Option<Vec<u8>> = None;
        for i in ranks {
            let x = part(i)?;
            match &mut acc {
                None => acc = Some(x.to_vec()),
                Some(a) => combine(c.op, c.datatype, a, x)?,
            }
        }
        Ok(acc.unwrap_or_default())
    };
    let concat = |ranks: std::ops::Range<usize>| -> Result<Vec<u8>, String> {
        let mut all = Vec::new();
        for i in ranks {
            all.extend_from_slice(part(i)?);
        }
        Ok(all)
    };
    Ok(match c.kind {
        // The rank combines with its own function: it gets what it combines.
        CollKind::Reduce if c.op == abi::OP_USER && rank != c.root => Vec::new().into(),
        CollKind::Reduce | CollKind::Allreduce | CollKind::ReduceScatterBlock | CollKind::ReduceScatter
            if c.op == abi::OP_USER =>
        {
            concat(0..n)?.into()
        }
        CollKind::Scan if c.op == abi::OP_USER => concat(0..r + 1)?.into(),
        CollKind::Exscan if c.op == abi::OP_USER => concat(0..r)?.into(),
        CollKind::Barrier => Vec::new().into(),
        CollKind::Bcast => Cow::Borrowed(part(c.root as usize)?),
        CollKind::Reduce if rank != c.root => Vec::new().into(),
        CollKind::Reduce | CollKind::Allreduce | CollKind::ReduceScatterBlock | CollKind::ReduceScatter => {
            if inst.reduced.is_none() {
                inst.reduced = Some(reduce_over(0..n)?);
            }
            let all = inst.reduced.as_deref().unwrap_or_default();
            match c.kind {
                CollKind::ReduceScatterBlock => block(all, r, all.len() / n.max(1))?.into(),
                CollKind::ReduceScatter => {
                    let shares = &c.recv_counts;
                    let off: u64 = shares.iter().take(r).sum();
                    let len = shares.get(r).copied().unwrap_or(0);
                    Cow::Borrowed(
                        all.get(off as usize..(off + len) as usize)
                            .ok_or_else(|| format!("collective #{seq}: the shares exceed the vector"))?,
                    )
                }
                _ => Cow::Borrowed(all),
            }
        }
        CollKind::Exscan if r == 0 => Vec::new().into(),
        CollKind::Scan | CollKind::Exscan => {
            // Prefix i is prefix i-1 combined with contribution i, made as far as
            // needed: rank r's contributions up to r are in, later ones may not be.
            let want = if c.kind == CollKind::Scan { r } else { r - 1 };
            let prefixes = &mut inst.prefixes;
            while prefixes.len() <= want {
                let i = prefixes.len();
                let next = match prefixes.last() {
                    None => part(i)?.to_vec(),
                    Some(prev) => {
                        let mut acc = prev.clone();
                        combine(c.op, c.datatype, &mut acc, part(i)?)?;
                        acc
                    }
                };
                prefixes.push(next);
            }
            Cow::Borrowed(&prefixes[want])
        }
        CollKind::Gather | CollKind::Gatherv if rank != c.root => Vec::new().into(),
        CollKind::Gather | CollKind::Allgather | CollKind::Gatherv | CollKind::Allgatherv => {
            let mut all = Vec::new();
            for i in 0..n {
                all.extend_from_slice(part(i)?);
            }
            all.into()
        }
        CollKind::Scatter => block(part(c.root as usize)?, r, c.count as usize)?.into(),
        CollKind::Scatterv => {
            let shares = &send_counts[c.root as usize];
            let off: u64 = shares.iter().take(r).sum();
            let len = shares.get(r).copied().unwrap_or(0);
            Cow::Borrowed(
                part(c.root as usize)?
                    .get(off as usize..(off + len) as usize)
                    .ok_or_else(|| format!("collective #{seq}: the root's blocks exceed its data"))?,
            )
        }
        CollKind::Alltoallv => {
            let mut mine = Vec::new();
            for s in 0..n {
                let counts = &send_counts[s];
                let (Some(&len), Some(data)) = (counts.get(r), contributions[s].as_deref()) else {
                    return Err(missing(s));
                };
                let off: u64 = counts[..r].iter().sum();
                mine.extend_from_slice(&data[off as usize..(off + len) as usize]);
            }
            mine.into()
        }
        CollKind::Alltoall => {
            let mut mine = Vec::new();
            for i in 0..n {
                mine.extend(block(part(i)?, r, c.count as usize)?);
            }
            mine.into()
        }
        CollKind::Dup | CollKind::Split | CollKind::SplitShared | CollKind::Create | CollKind::Merge => {
            Vec::new().into()
        }
    })
}

/// What rank `me` (a position in both groups together) of an intercommunicator
/// collective receives: the other group's contributions, as MPI defines each
/// collective there.
fn inter_result(inst: &mut Instance, me: usize, first: usize) -> Result<Vec<u8>, String> {
    let n = inst.size as usize;
    let c = &inst.first;
    let (mine, other) = if me < first {
        (0..first, first..n)
    } else {
        (first..n, 0..first)
    };
    let i = me - mine.start;
    let part = |k: usize| {
        inst.contributions[k]
            .as_deref()
            .ok_or_else(|| format!("rank {k}'s contribution is not there yet"))
    };
    let block = |data: &[u8], j: usize, len: usize| -> Result<Vec<u8>, String> {
        data.get(j * len..(j + 1) * len)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| format!("a buffer of {} bytes has no block {j}", data.len()))
    };
    let concat = |ks: std::ops::Range<usize>| -> Result<Vec<u8>, String> {
        let mut all = Vec::new();
        for k in ks {
            all.extend_from_slice(part(k)?);
        }
        Ok(all)
    };
    let reduce = |ks: std::ops::Range<usize>| -> Result<Vec<u8>, String> {
        if c.op == abi::OP_USER {
            return concat(ks);
        }
        let mut acc: Option<Vec<u8>> = None;
        for k in ks {
            let x = part(k)?;
            match &mut acc {
                None => acc = Some(x.to_vec()),
                Some(a) => combine(c.op, c.datatype, a, x)?,
            }
        }
        Ok(acc.unwrap_or_default())
    };
    // The rank that passed MPI_ROOT, in the other group.
    let root = || {
        other
            .clone()
            .find(|&k| inst.roots[k] == ROOT)
            .ok_or_else(|| "no rank of the other group is the root".to_string())
    };
    let receives = inst.roots[me] != ROOT && inst.roots[me] != abi::PROC_NULL as u32;
    Ok(match c.kind {
        CollKind::Barrier => Vec::new(),
        CollKind::Bcast if receives => part(root()?)?.to_vec(),
        CollKind::Reduce | CollKind::Gather | CollKind::Gatherv if inst.roots[me] == ROOT => match c.kind {
            CollKind::Reduce => reduce(other)?,
            _ => concat(other)?,
        },
        CollKind::Allreduce => reduce(other)?,
        CollKind::Allgather | CollKind::Allgatherv => concat(other)?,
        CollKind::Scatter if receives => {
            let data = part(root()?)?;
            block(data, i, data.len() / mine.len().max(1))?
        }
        CollKind::Scatterv if receives => {
            let r = root()?;
            let shares = &inst.send_counts[r];
            let off: u64 = shares.iter().take(i).sum();
            let len = shares.get(i).copied().unwrap_or(0);
            part(r)?
                .get(off as usize..(off + len) as usize)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| "the root's blocks exceed its data".to_string())?
        }
        CollKind::Alltoall => {
            let mut v = Vec::new();
            for k in other {
                let data = part(k)?;
                v.extend(block(data, i, data.len() / mine.len().max(1))?);
            }
            v
        }
        CollKind::Alltoallv => {
            let mut v = Vec::new();
            for k in other {
                let counts = &inst.send_counts[k];
                let off: u64 = counts.iter().take(i).sum();
                let len = counts.get(i).copied().unwrap_or(0);
                v.extend_from_slice(
                    part(k)?
                        .get(off as usize..(off + len) as usize)
                        .ok_or_else(|| "blocks beyond a rank's data".to_string())?,
                );
            }
            v
        }
        // The other group's vectors reduced, then cut among this group.
        CollKind::ReduceScatterBlock if c.op != abi::OP_USER => {
            let all = reduce(other)?;
            block(&all, i, all.len() / mine.len().max(1))?
        }
        CollKind::ReduceScatterBlock => reduce(other)?,
        _ => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(kind: CollKind, count: u64, data: Vec<u8>) -> Collective {
        Collective {
            kind,
            comm: 0,
            root: 1,
            op: abi::OP_SUM,
            datatype: abi::INT,
            count,
            send_counts: Vec::new(),
            recv_counts: Vec::new(),
            data,
            send_at: None,
            recv_at: None,
            persistent: None,
        }
    }

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn reductions_scans_and_exchanges_give_each_rank_its_mpi_result() {
        let mut c = Collectives::new(3);
        let at = |me: u32| Place { size: 3, me, leader: 0 };
        // Allreduce of [r, 10 r] over 3 ranks: [0+1+2, 0+10+20].
        for r in 0..3 {
            assert_eq!(
                c.join(r, at(r), call(CollKind::Allreduce, 2, ints(&[r as i32, 10 * r as i32]))),
                Ok((0, 0, 0))
            );
        }
        for r in 0..3 {
            assert_eq!(c.result(r, (0, 0, 0)).unwrap(), ints(&[3, 30]));
        }
        // Scan and exscan of r + 1: rank r gets (r+1)(r+2)/2 and r(r+1)/2.
        for r in 0..3 {
            c.join(r, at(r), call(CollKind::Scan, 1, ints(&[r as i32 + 1])))
                .unwrap();
        }
        assert_eq!(c.result(2, (0, 0, 1)).unwrap(), ints(&[6]));
        assert_eq!(c.result(1, (0, 0, 1)).unwrap(), ints(&[3]));
        // Alltoall of one 4-byte block per pair: rank s sends 10 s + d to d.
        for s in 0..3 {
            let blocks: Vec<i32> = (0..3).map(|d| 10 * s + d).collect();
            c.join(s as u32, at(s as u32), call(CollKind::Alltoall, 4, ints(&blocks)))
                .unwrap();
        }
        assert_eq!(c.result(1, (0, 0, 2)).unwrap(), ints(&[1, 11, 21]));
        // Scatter from root 1 of three blocks; rank 2 gets the third.
        for r in 0..3 {
            let data = if r == 1 { ints(&[7, 8, 9]) } else { Vec::new() };
            c.join(r, at(r), call(CollKind::Scatter, 4, data)).unwrap();
        }
        assert_eq!(c.result(2, (0, 0, 3)).unwrap(), ints(&[9]));
    }

    #[test]
    fn ranks_that_disagree_on_a_collective_are_an_error() {
        let mut c = Collectives::new(2);
        let at = |me: u32| Place { size: 2, me, leader: 0 };
        c.join(0, at(0), call(CollKind::Bcast, 4, ints(&[1]))).unwrap();
        let e = c.join(1, at(1), call(CollKind::Allreduce, 4, ints(&[1]))).unwrap_err();
        assert!(
            e.contains("rank 0 called Bcast") && e.contains("rank 1 Allreduce"),
            "{e}"
        );
    }
}
