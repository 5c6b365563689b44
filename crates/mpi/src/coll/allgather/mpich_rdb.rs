//! MPICH's recursive-doubling allgather (`MPIR_Allgather_intra_recursive_doubling`; SimGrid
//! 3.32 `allgather__rdb`). In round `i` each rank exchanges the blocks of its aligned
//! group of `2^i` ranks with `rank XOR 2^i`. On sizes that are not powers of two a
//! partner may not exist: then, inside each group whose sibling group is incomplete, the
//! ranks that did receive the sibling's blocks pass them on down a binary tree to those
//! that did not. On powers of two this is `rdb`.

use crate::coll::allgather::TAG;
use crate::coll::{block_range, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allgather,
    name: "mpich_rdb",
    source: "MPICH allgather recursive doubling (tree fix-up on other sizes); SimGrid 3.32 allgather__rdb",
    simgrid: Some("rdb"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    mpich_rdb(s.size, s.me, &|v| v, e, TAG);
}

/// The algorithm over blocks `0..n` for rank `r`, in a numbering where block `b` starts
/// at rank `b` (`real` gives the communicator rank of such a rank: MPICH's broadcast runs
/// it relative to the root).
pub(crate) fn mpich_rdb(n: u32, r: u32, real: &dyn Fn(u32) -> u32, e: &mut dyn Emitter, tag: u32) {
    let blocks = |lo: u32, hi: u32| block_range(lo, hi.min(n));
    let mut last: Vec<Step> = Vec::new();
    let (mut mask, mut i) = (1u32, 0u32);
    while mask < n {
        let dst = r ^ mask;
        let (my_root, dst_root) = ((r >> i) << i, (dst >> i) << i);
        if dst < n {
            // What each side holds: its group's blocks that exist.
            let snd = e.send(real(dst), tag, &blocks(my_root, my_root + mask), &last);
            let rcv = e.recv(real(dst), tag, &blocks(dst_root, dst_root + mask), Merge::Copy, &last);
            last = vec![snd, rcv];
        }
        if dst_root + mask > n {
            // The sibling group is incomplete: its `completed` ranks' blocks reached only
            // the first `completed` ranks of this group.
            let completed = i64::from(n) - i64::from(my_root) - i64::from(mask);
            let theirs = blocks(dst_root, n);
            let mut k = mask.trailing_zeros();
            let mut tmp = mask >> 1;
            while tmp > 0 {
                let d = r ^ tmp;
                let tree_root = i64::from((r >> k) << k);
                let (rr, dd) = (i64::from(r), i64::from(d));
                if d > r && rr < tree_root + completed && dd >= tree_root + completed {
                    last = vec![e.send(real(d), tag, &theirs, &last)];
                } else if d < r && dd < tree_root + completed && rr >= tree_root + completed {
                    last = vec![e.recv(real(d), tag, &theirs, Merge::Copy, &last)];
                }
                tmp >>= 1;
                k = k.saturating_sub(1);
            }
        }
        mask <<= 1;
        i += 1;
    }
}
