//! MPI_Bcast algorithms.

mod binary;
mod binomial;
mod chain;
mod flattree;
mod pipeline;
mod scatter_allgather;
mod split_binary;

use crate::coll::{segments, Algorithm, CollSpec, Emitter, Merge, Step, Tree};

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
/// before it moves to segment `k + 1`. Receives are posted ahead.
pub(crate) fn tree_bcast(s: &CollSpec, e: &mut dyn Emitter, tree: &Tree, seg: u64) {
    let segs = segments(s.bytes, seg);
    e.layout(&segs);
    let v = s.vrank() as usize;
    let parent = tree.parent[v].map(|p| s.real(p));
    let children: Vec<u32> = tree.children[v].iter().map(|&c| s.real(c)).collect();
    let mut prev: Vec<Step> = Vec::new();
    for k in 0..segs.len() as u32 {
        let mut deps = prev.clone();
        if let Some(p) = parent {
            deps.push(e.recv(p, TAG, &[k], Merge::Copy, &[]));
        }
        let sends: Vec<Step> = children.iter().map(|&c| e.send(c, TAG, &[k], &deps)).collect();
        if !sends.is_empty() {
            prev = sends;
        }
    }
}
