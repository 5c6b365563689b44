//! Split-binary-tree broadcast (Open MPI's `ompi_coll_base_bcast_intra_split_bintree`): the
//! message is cut in two halves; the first half goes down the root's left subtree and the
//! second down its right subtree (binary tree in level order, 32 KiB segments); then every
//! rank swaps halves with its counterpart in the other subtree (same level, same position).
//! Ranks without a counterpart get the missing half from the root. With fewer than three
//! ranks it is the pipeline.

use crate::coll::bcast::{SEGMENT, TAG};
use crate::coll::{segments, Algorithm, CollSpec, Collective, Emitter, Merge, Step, TreeNode};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Bcast,
    name: "split_binary",
    source: "Open MPI coll/base bcast split_bintree (32 KiB segments)",
    simgrid: None,
    emit,
};

/// Which subtree of the root relative rank `v > 0` is in (0 left, 1 right), its level and
/// its position in that subtree's part of the level.
fn place(v: u32) -> (u32, u32, u32) {
    let level = 31 - (v + 1).leading_zeros();
    let first = (1u32 << level) - 1;
    let half = (1u32 << level) / 2;
    let off = v - first;
    (u32::from(off >= half), level, off % half)
}

/// The counterpart of `v` in the other subtree, if it exists.
fn counterpart(v: u32, n: u32) -> Option<u32> {
    let (side, level, pos) = place(v);
    let first = (1u32 << level) - 1;
    let half = (1u32 << level) / 2;
    let w = first + (1 - side) * half + pos;
    (w < n).then_some(w)
}

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    if n < 3 {
        return crate::coll::bcast::tree_bcast(s, e, &TreeNode::chain(n, 1, s.vrank()), SEGMENT);
    }
    let halves = [s.bytes / 2, s.bytes - s.bytes / 2];
    let parts = [segments(halves[0], SEGMENT), segments(halves[1], SEGMENT)];
    let mut sizes = parts[0].clone();
    sizes.extend(&parts[1]);
    e.layout(&sizes);
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
    if v == 0 {
        // Each half down its subtree, segment by segment.
        let mut prev: Vec<Step> = Vec::new();
        let nseg = parts[0].len().max(parts[1].len());
        for k in 0..nseg {
            let mut sends = Vec::new();
            for (h, &child) in tree.children.iter().enumerate() {
                if k < parts[h].len() {
                    // Block k of half h (the halves' blocks are numbered one after the other).
                    let b = if h == 0 { k as u32 } else { first + k as u32 };
                    sends.push(e.send(s.real(child), TAG, &[b], &prev));
                }
            }
            prev = sends;
        }
        // The missing half to ranks without a counterpart.
        for w in 1..n {
            if counterpart(w, n).is_none() {
                let (side, _, _) = place(w);
                e.send(s.real(w), TAG, &blocks(1 - side as usize), &prev);
            }
        }
        return;
    }
    let (side, _, _) = place(v);
    let mine = blocks(side as usize);
    let parent = s.real(tree.parent.expect("a non-root rank has a parent"));
    let children: Vec<u32> = tree.children.iter().map(|&c| s.real(c)).collect();
    let mut prev: Vec<Step> = Vec::new();
    let mut got = Vec::new();
    for &b in &mine {
        let r = e.recv(parent, TAG, &[b], Merge::Copy, &[]);
        got.push(r);
        let mut deps = prev.clone();
        deps.push(r);
        let sends: Vec<Step> = children.iter().map(|&c| e.send(c, TAG, &[b], &deps)).collect();
        if !sends.is_empty() {
            prev = sends;
        }
    }
    let other = blocks(1 - side as usize);
    match counterpart(v, n) {
        Some(w) => {
            // A send-receive of the halves once this rank has its own.
            let mut deps = got.clone();
            deps.extend(prev);
            e.send(s.real(w), TAG, &mine, &deps);
            e.recv(s.real(w), TAG, &other, Merge::Copy, &deps);
        }
        None => {
            e.recv(s.root, TAG, &other, Merge::Copy, &[]);
        }
    }
}
