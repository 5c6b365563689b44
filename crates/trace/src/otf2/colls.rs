//! A collective's record (`MpiCollectiveEnd`, `NonBlockingCollectiveComplete`) as the
//! [`CollSpec`] simpi expands. OTF2 records only the bytes a rank sent and received in
//! total, counted by Score-P's rules (its MPI adapter, `scorep_mpi_coll_bytes_*`), so the
//! per-rank block is recovered by inverting them, for a communicator of `n` ranks where
//! this rank is `me`:
//!
//! | operation | sent | received | block |
//! |---|---|---|---|
//! | bcast | root: n·b, others 0 | b | received |
//! | gather, reduce | b (root in place: 0) | root: n·b ((n−1)·b in place), others 0 | sent, or received/(n−1) |
//! | scatter | root: n·b ((n−1)·b) | b (root in place: 0) | received, or sent/(n−1) |
//! | allgather, allreduce, alltoall | n·b ((n−1)·b in place) | same | received/n, or /(n−1) if n does not divide it |
//! | scan | (n−me)·b | (me+1)·b (in place: one b less each) | received/(me+1) |
//! | exscan | (n−me−1)·b | me·b | received/me, or sent/(n−me−1) |
//! | reduce_scatter_block | n·b | n·b | received/n |
//!
//! Vector operations keep only totals, so the other ranks' blocks are taken as equal
//! shares: gatherv and scatterv at the root, allgatherv, alltoallv (and alltoallw) per
//! pair, reduce_scatter's counts. Handle operations (communicator creation and the like)
//! move nothing that simpi models. Reductions compute nothing (OTF2 has no flop count).

use super::wire::Coll;
use simpi_mpi::coll::{CollSpec, Collective};

/// Communicator creation and destruction, window allocation: nothing to expand.
const FIRST_HANDLE_OP: u8 = 17;
const LAST_HANDLE_OP: u8 = 22;

/// Splits `total` into `n` shares, the first ones a byte larger when it does not divide.
fn shares(total: u64, n: u32) -> Vec<u64> {
    let n64 = n.max(1) as u64;
    (0..n as u64)
        .map(|i| total / n64 + u64::from(i < total % n64))
        .collect()
}

/// `v / n`, or `v / (n - 1)` when `n` does not divide `v` but `n - 1` does (MPI_IN_PLACE).
fn per_rank(v: u64, n: u32) -> u64 {
    let n = n as u64;
    if n > 1 && !v.is_multiple_of(n) && v.is_multiple_of(n - 1) {
        v / (n - 1)
    } else {
        v / n.max(1)
    }
}

/// The spec of collective `c` on a communicator of `n` ranks where this rank is `me`;
/// `None` for operations that move nothing simpi models.
pub fn spec(c: &Coll, n: u32, me: u32) -> Result<Option<CollSpec>, String> {
    let rooted = matches!(c.op, 1..=5 | 12);
    if rooted && c.root >= n {
        return Err(format!(
            "root {} is out of range: the communicator has {n} ranks",
            c.root
        ));
    }
    let root = if rooted { c.root } else { 0 };
    let at_root = rooted && me == root;
    let others = (n as u64).saturating_sub(1).max(1);
    let base = |coll: Collective, bytes: u64| CollSpec {
        root,
        ..CollSpec::new(coll, n, me, bytes)
    };
    let (sent, recv) = (c.sent, c.received);
    let s = match c.op {
        0 => base(Collective::Barrier, 0),
        1 => base(Collective::Bcast, recv),
        2 | 12 => {
            let coll = if c.op == 2 {
                Collective::Gather
            } else {
                Collective::Reduce
            };
            let b = if !at_root || sent > 0 { sent } else { recv / others };
            base(coll, b)
        }
        3 => {
            // Gatherv: the root received the others' blocks (and its own unless in place).
            let mut counts = vec![sent; n as usize];
            if at_root {
                let from_others = if sent > 0 { recv.saturating_sub(sent) } else { recv };
                let mut sh = shares(from_others, n.saturating_sub(1)).into_iter();
                for (i, c) in counts.iter_mut().enumerate() {
                    if i as u32 != me {
                        *c = sh.next().unwrap_or(0);
                    }
                }
            }
            CollSpec {
                counts,
                ..base(Collective::Gatherv, 0)
            }
        }
        4 => {
            let b = if !at_root || recv > 0 { recv } else { sent / others };
            base(Collective::Scatter, b)
        }
        5 => {
            let mut counts = vec![recv; n as usize];
            if at_root {
                let to_others = if recv > 0 { sent.saturating_sub(recv) } else { sent };
                let mut sh = shares(to_others, n.saturating_sub(1)).into_iter();
                for (i, c) in counts.iter_mut().enumerate() {
                    if i as u32 != me {
                        *c = sh.next().unwrap_or(0);
                    }
                }
            }
            CollSpec {
                counts,
                ..base(Collective::Scatterv, 0)
            }
        }
        6 => base(Collective::Allgather, per_rank(recv, n)),
        7 => {
            // Allgatherv: this rank's block from what it sent, the rest in equal shares.
            let own = per_rank(sent, n);
            let in_place = n > 1 && sent % n as u64 != 0;
            let from_others = if in_place { recv } else { recv.saturating_sub(own) };
            let mut sh = shares(from_others, n.saturating_sub(1)).into_iter();
            let counts = (0..n)
                .map(|i| if i == me { own } else { sh.next().unwrap_or(0) })
                .collect();
            CollSpec {
                counts,
                ..base(Collective::Allgatherv, 0)
            }
        }
        8 => base(Collective::Alltoall, per_rank(recv, n)),
        9 | 10 => CollSpec {
            send_counts: shares(sent, n),
            recv_counts: shares(recv, n),
            ..base(Collective::Alltoallv, 0)
        },
        11 => base(Collective::Allreduce, per_rank(recv, n)),
        13 => {
            // Reduce_scatter: this rank's count from what it received, the others' from
            // what it sent.
            let own = per_rank(recv, n);
            let in_place = n > 1 && recv % n as u64 != 0;
            let from_others = if in_place { sent } else { sent.saturating_sub(own) };
            let mut sh = shares(from_others, n.saturating_sub(1)).into_iter();
            let counts = (0..n)
                .map(|i| if i == me { own } else { sh.next().unwrap_or(0) })
                .collect();
            CollSpec {
                counts,
                ..base(Collective::ReduceScatter, 0)
            }
        }
        14 => {
            let k = me as u64 + 1;
            let left = (n - me) as u64;
            let b = if recv % k == 0 && left.checked_mul(recv / k) == Some(sent) {
                recv / k
            } else if me > 0 {
                recv / me as u64
            } else {
                sent / left.saturating_sub(1).max(1)
            };
            base(Collective::Scan, b)
        }
        15 => {
            let b = if me > 0 {
                recv / me as u64
            } else {
                sent / (n as u64).saturating_sub(1).max(1)
            };
            base(Collective::Exscan, b)
        }
        16 => CollSpec {
            counts: vec![per_rank(recv, n); n as usize],
            ..base(Collective::ReduceScatter, 0)
        },
        FIRST_HANDLE_OP..=LAST_HANDLE_OP => return Ok(None),
        op => return Err(format!("unknown collective operation {op}")),
    };
    Ok(Some(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coll(op: u8, root: u32, sent: u64, received: u64) -> Coll {
        Coll {
            op,
            comm: 0,
            root,
            sent,
            received,
        }
    }

    /// Score-P's byte counts for a block of `b` bytes on `n` ranks, by hand from the
    /// table in the module comment, read back to `b`.
    #[test]
    fn blocks_are_recovered_from_score_p_counts() {
        let (n, b) = (4u32, 24u64);
        let nb = n as u64 * b;
        // bcast, root 1: root sent n·b and received b; others received b.
        assert_eq!(spec(&coll(1, 1, nb, b), n, 1).unwrap().unwrap().bytes, b);
        assert_eq!(spec(&coll(1, 1, 0, b), n, 2).unwrap().unwrap().bytes, b);
        // gather at the root, in place: sent 0, received (n-1)·b.
        assert_eq!(spec(&coll(2, 0, 0, 3 * b), n, 0).unwrap().unwrap().bytes, b);
        assert_eq!(spec(&coll(2, 0, b, nb), n, 0).unwrap().unwrap().bytes, b);
        assert_eq!(spec(&coll(12, 0, b, 0), n, 3).unwrap().unwrap().bytes, b);
        // scatter at the root: sent n·b, received b.
        assert_eq!(spec(&coll(4, 0, nb, b), n, 0).unwrap().unwrap().bytes, b);
        // allreduce, allgather, alltoall: n·b, or (n-1)·b = 72 in place (72 is not a
        // multiple of 4... it is: 72 / 4 = 18, so in place is read as 18 bytes).
        assert_eq!(spec(&coll(11, u32::MAX, nb, nb), n, 2).unwrap().unwrap().bytes, b);
        assert_eq!(spec(&coll(11, u32::MAX, 30, 30), n, 2).unwrap().unwrap().bytes, 10);
        assert_eq!(spec(&coll(8, u32::MAX, nb, nb), n, 2).unwrap().unwrap().bytes, b);
        // scan on rank 2: sent (n-2)·b, received 3·b; exscan: sent (n-3)·b, received 2·b.
        assert_eq!(spec(&coll(14, u32::MAX, 2 * b, 3 * b), n, 2).unwrap().unwrap().bytes, b);
        assert_eq!(spec(&coll(15, u32::MAX, b, 2 * b), n, 2).unwrap().unwrap().bytes, b);
        assert_eq!(spec(&coll(15, u32::MAX, 3 * b, 0), n, 0).unwrap().unwrap().bytes, b);
        // Handle operations expand to nothing; rooted ones check their root.
        assert!(spec(&coll(17, 0, 0, 0), n, 0).unwrap().is_none());
        assert!(spec(&coll(1, 4, 0, 0), n, 0).unwrap_err().contains("root 4"));
        assert!(spec(&coll(40, 0, 0, 0), n, 0).unwrap_err().contains("unknown"));
    }

    #[test]
    fn vector_operations_share_totals() {
        // gatherv at root 0 of 4: own 10 bytes, the others sent 5, 6 and 7 (18 in all).
        let s = spec(&coll(3, 0, 10, 28), 4, 0).unwrap().unwrap();
        assert_eq!(s.counts, vec![10, 6, 6, 6]);
        let s = spec(&coll(3, 0, 5, 0), 4, 1).unwrap().unwrap();
        assert_eq!(s.counts[1], 5);
        // alltoallv: 10 bytes sent over 4 ranks: 3, 3, 2, 2.
        let s = spec(&coll(9, u32::MAX, 10, 8), 4, 1).unwrap().unwrap();
        assert_eq!(s.send_counts, vec![3, 3, 2, 2]);
        assert_eq!(s.recv_counts, vec![2, 2, 2, 2]);
        // allgatherv on rank 1 of 3: sent 3·4 (own block 4), received 4 + 5 + 6.
        let s = spec(&coll(7, u32::MAX, 12, 15), 3, 1).unwrap().unwrap();
        assert_eq!(s.counts, vec![6, 4, 5]);
    }

    /// A scan whose counts would pass 2^64 if they were blocks times ranks (a malformed
    /// trace the fuzzer found) is read by the other rule, not with an overflow.
    #[test]
    fn a_scan_with_counts_past_the_clock_reads_without_overflow() {
        // Rank 0 of 4: 4 ranks left, received u64::MAX - 2 (a block of that many bytes
        // would make 4 · (u64::MAX - 2) sent): the block is sent / 3.
        let s = spec(&coll(14, u32::MAX, 3 * 1000, u64::MAX - 2), 4, 0)
            .unwrap()
            .unwrap();
        assert_eq!(s.bytes, 1000);
    }
}
