//! A k-ary n-tree with SimGrid's parameters (`levels; down_i; up_i; count_i`): hosts at
//! level 0, switches above; a level-`i` node has `up_i · count_i` parent ports and a
//! level-`i+1` switch `down_i · count_i` child ports. Nodes carry mixed-radix labels;
//! a parent and a child are related when their labels agree except at the parent's
//! level. Routing goes up d-mod-k until the current switch's subtree holds the
//! destination, then down, exactly as SimGrid 3.32 walks it. Nodes are (level, position)
//! pairs and every link is computed from them: nothing is stored per node.

use crate::block::{Block, FatTreeShape, Layout};
use crate::detour::Choice;
use crate::model::LinkId;

/// A node: level and position within the level.
type Node = (usize, u64);

/// Whether `node` is in the subtree of `root`.
fn in_subtree(s: &FatTreeShape, root: Node, node: Node) -> bool {
    if root.0 <= node.0 {
        return false;
    }
    (0..node.0).all(|i| s.digit(root.0, root.1, i) == s.digit(node.0, node.1, i))
        && (root.0..s.levels).all(|i| s.digit(root.0, root.1, i) == s.digit(node.0, node.1, i))
}

/// The limiter of a node: a host's own, or its switch's.
fn limiter(b: &Block, s: &FatTreeShape, node: Node) -> Option<LinkId> {
    if node.0 == 0 {
        b.limiter(node.1 as u32)
    } else {
        b.switch_limiter(s.level_start[node.0] - s.level_start[1] + node.1)
    }
}

pub(crate) fn route(b: &Block, src: u32, dst: u32, out: &mut Vec<LinkId>) {
    walk(b, src, dst, out, |_, d, _, _| d);
}

/// The route that leaves level `i` by parent port `picks[i]` (modulo the ports
/// there), d-mod-k's beyond `picks`; appends each climb (one per level) to `choices`.
/// Every parent leads to an ancestor of the destination's subtree at the same
/// distance, so every such route is minimal.
pub(crate) fn route_choosing(
    b: &Block,
    src: u32,
    dst: u32,
    picks: &[u64],
    out: &mut Vec<LinkId>,
    choices: &mut Vec<Choice>,
) {
    // One choice per climb, so the `i`-th is level `i`'s.
    walk(b, src, dst, out, |_, d, options, position| {
        Choice::pick(choices, picks, position, options, d)
    });
}

/// SimGrid's walk, the parent port of each climb given by `choose(level, d-mod-k's
/// port, ports, position of the up-link in the route)`.
fn walk(b: &Block, src: u32, dst: u32, out: &mut Vec<LinkId>, mut choose: impl FnMut(usize, u64, u64, usize) -> u64) {
    let Layout::FatTree(s) = &b.layout else {
        unreachable!("a fat-tree route in a fat tree")
    };
    if src == dst {
        if let Some(l) = b.loopback(src) {
            out.push(l);
            return;
        }
    }
    let start = out.len();
    let t: Node = (0, dst as u64);
    let mut cur: Node = (0, src as u64);
    while !in_subtree(s, cur, t) {
        let lvl = cur.0;
        let mut d = t.1;
        for i in 0..lvl {
            d /= s.up[i] as u64;
        }
        let ports = s.up[lvl] as u64 * s.count[lvl] as u64;
        d %= ports;
        out.extend(limiter(b, s, cur));
        let d = choose(lvl, d, ports, out.len() - start);
        // Parent port d: the (d mod up)-th parent, (d / up)-th parallel link.
        let (k, j) = (d % s.up[lvl] as u64, d / s.up[lvl] as u64);
        out.push(b.fat_tree_link(s, lvl, cur.1, k, j, true));
        cur = (lvl + 1, s.with_digit(lvl, cur.1, lvl + 1, lvl, k));
    }
    while cur != t {
        let lvl = cur.0;
        let d = src as u64 % s.count[lvl - 1] as u64;
        let mut i = d * s.down[lvl - 1] as u64;
        // As in SimGrid, the scan continues with the new node after each step down.
        while cur.0 > 0 && i < s.down[cur.0 - 1] as u64 * s.count[cur.0 - 1] as u64 {
            let l = cur.0;
            let down = s.down[l - 1] as u64;
            if i % down == s.digit(0, t.1, l - 1) {
                // Child port i: the child whose digit l-1 is i mod down, link i / down.
                let child = (l - 1, s.with_digit(l, cur.1, l - 1, l - 1, i % down));
                let k = s.digit(l, cur.1, l - 1);
                out.push(b.fat_tree_link(s, l - 1, child.1, k, i / down, false));
                out.extend(limiter(b, s, cur));
                cur = child;
            }
            i += 1;
        }
    }
    out.extend(limiter(b, s, cur));
}
