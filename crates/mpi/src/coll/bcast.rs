//! MPI_Bcast algorithms.

mod binary;
mod binomial;
mod chain;
mod flattree;
mod pipeline;
mod scatter_allgather;
mod split_binary;

use crate::coll::{segments, Algorithm, CollSpec, Emitter, Merge, Step, TreeNode};

/// The broadcast algorithms.
pub const ALGORITHMS: &[Algorithm] = &[
    binomial::ALGORITHM,
    flattree::ALGORITHM,
    chain::ALGORITHM,
    pipeline::ALGORITHM,
    binary::ALGORITHM,
    split_binary::ALGORITHM,
    scatter_allgather::RING,
    scatter_allgather::RDB,
];

/// Tag of broadcast messages (collective traffic has its own matching context).
pub(crate) const TAG: u32 = 1;

/// Segment size of Open MPI's segmented broadcasts (the fixed rules use 0 to 128 KiB by
/// message size; simpi uses one value).
pub(crate) const SEGMENT: u64 = 32 * 1024;

/// Open MPI's generic segmented tree broadcast (`ompi_coll_base_bcast_intra_generic`):
/// the message is cut into segments; a rank receives segment `k` from its parent and
/// then sends it to all its children at once (non-blocking sends, waited for together)
/// before it moves to segment `k + 1`. Receives are double-buffered: the receive of
/// segment `k` is posted once segment `k - 2` is done (forwarded, or received on a leaf),
/// which matters when segments go by rendezvous.
/// `tree` is this rank's node, over ranks relative to the root.
pub(crate) fn tree_bcast(s: &CollSpec, e: &mut dyn Emitter, tree: &TreeNode, seg: u64) {
    let segs = segments(s.bytes, seg);
    e.layout(&segs);
    let parent = tree.parent.map(|p| s.real(p));
    let children: Vec<u32> = tree.children.iter().map(|&c| s.real(c)).collect();
    // A rank with a parent receives each segment, one with children sends each.
    if (parent.is_some() || !children.is_empty()) && !e.has_room(segs.len() as u64) {
        return;
    }
    // done[k]: the steps after which this rank is through with segment k.
    let mut done: Vec<Vec<Step>> = Vec::with_capacity(segs.len());
    for k in 0..segs.len() {
        let mut deps = if k >= 1 && !children.is_empty() {
            done[k - 1].clone()
        } else {
            Vec::new()
        };
        if let Some(p) = parent {
            let posted_after = if k >= 2 { done[k - 2].clone() } else { Vec::new() };
            deps.push(e.recv(p, TAG, &[k as u32], Merge::Copy, &posted_after));
        }
        let sends: Vec<Step> = children.iter().map(|&c| e.send(c, TAG, &[k as u32], &deps)).collect();
        done.push(if sends.is_empty() { deps } else { sends });
    }
}
