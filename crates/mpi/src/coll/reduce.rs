//! MPI_Reduce algorithms.

mod binomial;
mod in_order_binary;
mod linear;
mod pipeline;
pub(crate) mod rabenseifner;

use crate::coll::{segments, Algorithm, CollSpec, Emitter, Merge, Step, Tree};

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

/// Segment size of Open MPI's segmented reductions (simpi uses one value).
pub(crate) const SEGMENT: u64 = 32 * 1024;

/// Open MPI's generic segmented tree reduction (`ompi_coll_base_reduce_generic`): for each
/// segment, a rank receives its children's partial results one child after the other,
/// combines them with its own, and sends the segment to its parent once the previous
/// segment's send is done. `tree` is over ranks relative to the tree's root `top`, which
/// is the communicator rank `real(0)`.
pub(crate) fn tree_reduce(e: &mut dyn Emitter, tree: &Tree, v: u32, real: &dyn Fn(u32) -> u32, total: u64) {
    let segs = segments(total, SEGMENT);
    e.layout(&segs);
    let parent = tree.parent[v as usize].map(real);
    let children: Vec<u32> = tree.children[v as usize].iter().map(|&c| real(c)).collect();
    let mut prev: Vec<Step> = Vec::new();
    for k in 0..segs.len() as u32 {
        let mut deps: Vec<Step> = children
            .iter()
            .map(|&c| e.recv(c, TAG, &[k], Merge::Reduce, &[]))
            .collect();
        if let Some(p) = parent {
            deps.extend(prev.iter().copied());
            prev = vec![e.send(p, TAG, &[k], &deps)];
        }
    }
}

/// The spec's relative-rank mapping as a closure.
pub(crate) fn real_of(s: &CollSpec) -> impl Fn(u32) -> u32 + '_ {
    move |v| s.real(v)
}
