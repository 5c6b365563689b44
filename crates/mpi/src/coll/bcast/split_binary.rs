//! Split-binary-tree broadcast (Open MPI's `ompi_coll_base_bcast_intra_split_bintree`): the
//! message is cut in two halves; the first half goes down the root's left subtree and the
//! second down its right subtree (Open MPI's binary tree: odd relative ranks on the left,
//! even on the right; 1 or 8 KiB segments); then every rank swaps halves with its counterpart
//! in the other subtree (`v + 1` for odd `v`, `v - 1` for even). With an even number of
//! ranks the last has no counterpart and gets the missing half from the root (on two ranks
//! the root's one child gets the first half in segments, then the second whole). With
//! halves shorter than a segment it is the pipeline, as in Open MPI (SimGrid 3.32 runs its
//! `SMP_linear` there instead).

use crate::coll::bcast::TAG;
use crate::coll::{segments, Algorithm, CollSpec, Collective, Emitter, Merge, Step, TreeNode};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "split_binary",
    source: "Open MPI coll/base bcast split_bintree; segment size by SimGrid 3.32 bcast__ompi_split_bintree's rule",
    simgrid: Some("ompi_split_bintree"),
    emit,
    alike: None,
};

/// Which half relative rank `v > 0` carries down the tree (0 the first, 1 the second):
/// Open MPI's binary tree puts the odd ranks under the root's first child and the even
/// ones under its second.
fn side(v: u32) -> u32 {
    1 - v % 2
}

/// The rank at the same place in the other subtree (Open MPI pairs `v` with `v + 1` if
/// odd, `v - 1` if even), if it exists: with an even number of ranks the last has none.
fn counterpart(v: u32, n: u32) -> Option<u32> {
    let w = if v % 2 == 1 { v + 1 } else { v - 1 };
    (w < n).then_some(w)
}

/// The segment size SimGrid 3.32's `bcast__ompi_split_bintree` sets (an earlier Open MPI
/// tuned module's rule): 1 KiB below 370728 bytes, else 8 KiB, and at least one element.
fn segment_size(bytes: u64, elem: u64) -> u64 {
    let seg = if bytes < 370_728 { 1024 } else { 8 * 1024 };
    seg.max(elem)
}

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let t = s.elem.max(1);
    let seg = segment_size(s.bytes, t);
    // Halves of whole elements, the first one element longer if the count is odd (bytes
    // beyond whole elements ride in the second).
    let count = s.bytes / t;
    let first_half = (count - count / 2) * t;
    let halves = [first_half, s.bytes - first_half];
    // Too small to split into segments: Open MPI runs the chain of fanout 1 (the
    // pipeline) with the same segments (SimGrid runs its SMP_linear instead).
    if n < 2 || count < 2 || halves.iter().any(|&h| h < seg) {
        return crate::coll::bcast::tree_bcast(s, e, &TreeNode::chain(n, 1, s.vrank()), seg);
    }
    // Segments of whole elements.
    let seg = seg / t * t;
    let parts = [segments(halves[0], seg), segments(halves[1], seg)];
    let mut sizes = parts[0].clone();
    sizes.extend(&parts[1]);
    e.layout(&sizes);
    // Every rank sends (the root) or receives (the others) each segment of a half.
    if !e.has_room(parts[0].len().min(parts[1].len()) as u64) {
        return;
    }
    let first = parts[0].len() as u32;
    let blocks = |h: usize| -> Vec<u32> {
        if h == 0 {
            (0..first).collect()
        } else {
            (first..sizes.len() as u32).collect()
        }
    };
    let v = s.vrank();
    let tree = TreeNode::kary(n, 2, v);
    let children: Vec<u32> = tree.children.iter().map(|&c| s.real(c)).collect();
    // What the next call in program order waits for: sends and waits block, in order.
    let mut done: Vec<Step> = Vec::new();
    if v == 0 {
        // Segment k of the first half to the first child, then of the second half to the
        // second child, each send blocking; the half that fits nowhere to the last rank.
        // (The second half has more segments only with bytes beyond whole elements.)
        for k in 0..parts[0].len().max(parts[1].len()) {
            for (h, &c) in children.iter().enumerate() {
                if k < parts[h].len() {
                    // The halves' blocks are numbered one after the other.
                    let b = if h == 0 { k as u32 } else { first + k as u32 };
                    done = vec![e.send(c, TAG, &[b], &done)];
                }
            }
        }
        if counterpart(n - 1, n).is_none() {
            e.send(s.real(n - 1), TAG, &blocks(1 - side(n - 1) as usize), &done);
        }
        return;
    }
    let side = side(v) as usize;
    let mine = blocks(side);
    let parent = s.real(tree.parent.expect("a non-root rank has a parent"));
    if children.is_empty() {
        // A leaf takes its segments one blocking receive after the other.
        for &b in &mine {
            done = vec![e.recv(parent, TAG, &[b], Merge::Copy, &done)];
        }
    } else {
        // Receives run one ahead: segment k's is posted once segment k - 2 has gone to
        // every child; segment k - 1 is then waited for and sent on, child after child.
        let mut pending = e.recv(parent, TAG, &[mine[0]], Merge::Copy, &[]);
        for k in 1..=mine.len() {
            let next = (k < mine.len()).then(|| e.recv(parent, TAG, &[mine[k]], Merge::Copy, &done));
            let mut after = done.clone();
            after.push(pending);
            for &c in &children {
                after = vec![e.send(c, TAG, &[mine[k - 1]], &after)];
            }
            done = after;
            if let Some(r) = next {
                pending = r;
            }
        }
    }
    let other = blocks(1 - side);
    match counterpart(v, n) {
        // A send-receive of the halves with the counterpart.
        Some(w) => {
            e.send(s.real(w), TAG, &mine, &done);
            e.recv(s.real(w), TAG, &other, Merge::Copy, &done);
        }
        None => {
            e.recv(s.root, TAG, &other, Merge::Copy, &done);
        }
    }
}
