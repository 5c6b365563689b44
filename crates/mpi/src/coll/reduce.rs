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
    tree_reduce_waiting(e, tree, real, total, seg, false)
}

/// [`tree_reduce`]; `wait_for_all` keeps every earlier step in what the next call waits
/// for, instead of the last two that imply them (for the test that they do).
fn tree_reduce_waiting(
    e: &mut dyn Emitter,
    tree: &TreeNode,
    real: &dyn Fn(u32) -> u32,
    total: u64,
    seg: u64,
    wait_for_all: bool,
) {
    let segs = segments(total, seg);
    e.layout(&segs);
    let k_segs = segs.len() as u32;
    let parent = tree.parent.map(real);
    let children: Vec<u32> = tree.children.iter().map(|&c| real(c)).collect();
    // A rank with a parent sends each segment, one with children receives each.
    if (parent.is_some() || !children.is_empty()) && !e.has_room(k_segs as u64) {
        return;
    }
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
                // Each step pushed here was posted when the cursor held everything before
                // the step pushed just ahead of it, so it cannot start before those are
                // done: the last two imply the rest. Without this the root (which never
                // sends, so never resets the cursor) made every receive wait for every
                // earlier one: 134 million dependencies for a 2-rank 1 GiB reduce.
                if !wait_for_all && cursor.len() > 2 {
                    cursor.drain(..cursor.len() - 2);
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coll::emit::Template;
    use crate::coll::Collective;

    /// Every step each step of `t` waits for, directly or through others.
    fn ancestors(t: &Template) -> Vec<Vec<bool>> {
        let n = t.len();
        let mut all = vec![vec![false; n]; n];
        for i in 0..n {
            for &d in t.deps(i as u32) {
                let d = d as usize;
                all[i][d] = true;
                let (before, from) = all.split_at_mut(i);
                for (a, &x) in from[0].iter_mut().zip(&before[d]) {
                    *a |= x;
                }
            }
        }
        all
    }

    fn emit_trimmed(s: &CollSpec, e: &mut dyn Emitter) {
        tree_reduce_waiting(
            e,
            &TreeNode::chain(s.size, 1, s.vrank()),
            &real_of(s),
            s.bytes,
            1024,
            false,
        );
    }

    fn emit_full(s: &CollSpec, e: &mut dyn Emitter) {
        tree_reduce_waiting(
            e,
            &TreeNode::chain(s.size, 1, s.vrank()),
            &real_of(s),
            s.bytes,
            1024,
            true,
        );
    }

    fn emit_kary_trimmed(s: &CollSpec, e: &mut dyn Emitter) {
        tree_reduce_waiting(
            e,
            &TreeNode::kary(s.size, 3, s.vrank()),
            &real_of(s),
            s.bytes,
            1024,
            false,
        );
    }

    fn emit_kary_full(s: &CollSpec, e: &mut dyn Emitter) {
        tree_reduce_waiting(
            e,
            &TreeNode::kary(s.size, 3, s.vrank()),
            &real_of(s),
            s.bytes,
            1024,
            true,
        );
    }

    fn alg(emit: fn(&CollSpec, &mut dyn Emitter)) -> Algorithm {
        Algorithm {
            coll: Collective::Reduce,
            name: "test",
            source: "test",
            simgrid: None,
            emit,
            alike: None,
        }
    }

    /// Waiting for the last two steps only changes no step's start: each waits, through
    /// others, for exactly what it waited for before (and a step's completion comes after
    /// everything it waits for, so the time it can start is the same). The root's
    /// dependencies now grow linearly with the segments, not quadratically.
    #[test]
    fn segmented_tree_reduce_waits_for_the_same_steps_with_linear_dependencies() {
        type Emit = fn(&CollSpec, &mut dyn Emitter);
        let pairs: [(Emit, Emit); 2] = [(emit_trimmed, emit_full), (emit_kary_trimmed, emit_kary_full)];
        for (trimmed, full) in pairs {
            for size in [2u32, 3, 5, 8] {
                for me in 0..size {
                    let spec = CollSpec::new(Collective::Reduce, size, me, 40 * 1024);
                    let a = Template::record(&alg(trimmed), &spec).unwrap();
                    let b = Template::record(&alg(full), &spec).unwrap();
                    assert_eq!(a.len(), b.len());
                    assert_eq!(ancestors(&a), ancestors(&b), "rank {me} of {size}");
                    let deps: usize = (0..a.len() as u32).map(|i| a.deps(i).len()).sum();
                    assert!(deps <= 3 * a.len(), "{deps} dependencies for {} steps", a.len());
                }
            }
        }
    }
}
