//! MPI_Reduce algorithms.

mod binomial;
mod in_order_binary;
mod linear;
mod pipeline;
pub(crate) mod rabenseifner;

use crate::coll::{segments, Algorithm, CollSpec, Emitter, Merge, Step, TreeNode};

/// The reduction algorithms.
pub const ALGORITHMS: &[Algorithm] = &[
    binomial::ALGORITHM,
    linear::ALGORITHM,
    pipeline::ALGORITHM,
    in_order_binary::ALGORITHM,
    rabenseifner::ALGORITHM,
    rabenseifner::SCATTER_GATHER,
];

/// Tag of reduction messages (Open MPI's REDUCE tag, without its sign).
pub(crate) const TAG: u32 = 21;

/// Open MPI's generic segmented tree reduction (`ompi_coll_base_reduce_generic`, as in
/// SimGrid 3.32's `smpi_coll_tuned_ompi_reduce_generic`), as the sequence of calls it
/// makes. An inner rank walks segments and, within a segment, children: it posts the
/// receive of (segment, child), waits for the receive posted before it (double
/// buffering), and after the last child of a segment has arrived sends the combined
/// segment to its parent with a blocking send. A leaf sends its segments with blocking
/// sends. `tree` is this rank's node, over ranks relative to the tree's root, which is
/// rank `real(0)`.
pub(crate) fn tree_reduce(e: &mut dyn Emitter, tree: &TreeNode, real: &dyn Fn(u32) -> u32, total: u64, seg: u64) {
    let segs = segments(total, seg);
    e.layout(&segs);
    let k_segs = segs.len() as u32;
    let parent = tree.parent.map(real);
    let children: Vec<u32> = tree.children.iter().map(|&c| real(c)).collect();
    // What the next call waits for: the last blocking call's step.
    let mut cursor: Vec<Step> = Vec::new();
    if children.is_empty() {
        if let Some(p) = parent {
            for k in 0..k_segs {
                cursor = vec![e.send(p, TAG, &[k], &cursor)];
            }
        }
        return;
    }
    let mut pending: [Option<Step>; 2] = [None, None];
    let mut slot = 0;
    'segments: for k in 0..=k_segs {
        for (i, &c) in children.iter().enumerate() {
            if k < k_segs {
                pending[slot] = Some(e.recv(c, TAG, &[k], Merge::Reduce, &cursor));
            }
            // The wait for the previous receive comes after the last blocking call, in
            // program order: the next call waits for both. (Waiting for the receive alone
            // let a short last segment overtake the send of a long one before it, and be
            // matched by the parent's receive meant for that one.)
            if let Some(r) = pending[slot ^ 1].take() {
                cursor.push(r);
            }
            if i == 0 && k > 0 {
                if let Some(p) = parent {
                    cursor = vec![e.send(p, TAG, &[k - 1], &cursor)];
                }
                if k == k_segs {
                    break 'segments;
                }
            }
            slot ^= 1;
        }
    }
}

/// The spec's relative-rank mapping as a closure.
pub(crate) fn real_of(s: &CollSpec) -> impl Fn(u32) -> u32 + '_ {
    move |v| s.real(v)
}
