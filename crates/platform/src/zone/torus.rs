//! A torus: node `r` has coordinates `c_k = (r / Π_{m<k} d_m) mod d_k` and, per
//! dimension, one link (or split-duplex pair) to its `+1` neighbour with wrap-around.
//! Routing is dimension-ordered as in SimGrid: correct the lowest differing dimension
//! first, going "right" when the target is at most half the ring ahead of the *source*
//! coordinate (SimGrid compares with the source, not the current node), else "left".
//! A node without a loopback link talks to itself through the platform's implicit
//! loopback (SimGrid would find no route at all).

use crate::block::Block;
use crate::cluster::Topology;
use crate::detour::Choice;
use crate::model::LinkId;

/// The neighbour of `node` one step up in dimension `j` (with wrap-around).
pub fn neighbour(dims: &[u32], node: u32, j: usize) -> u32 {
    let dp: u32 = dims[..j].iter().product();
    let d = dims[j];
    if (node / dp) % d == d - 1 {
        node - (d - 1) * dp
    } else {
        node + dp
    }
}

pub(crate) fn route(b: &Block, implicit_loopback: Option<LinkId>, src: u32, dst: u32, out: &mut Vec<LinkId>) {
    walk(b, implicit_loopback, src, dst, out, |_, _| 0);
}

/// The route whose `i`-th hop with a choice (more than one dimension left to correct)
/// corrects the `picks[i]`-th of those dimensions in increasing order (modulo their
/// number), the lowest beyond `picks` (dimension order); appends each such hop to
/// `choices`. Each dimension is corrected in the direction dimension order takes, so
/// every such route is minimal.
pub(crate) fn route_choosing(
    b: &Block,
    src: u32,
    dst: u32,
    picks: &[u64],
    out: &mut Vec<LinkId>,
    choices: &mut Vec<Choice>,
) {
    walk(b, None, src, dst, out, |options, position| {
        Choice::pick(choices, picks, position, options, 0)
    });
}

/// SimGrid's walk; at a hop with more than one dimension to correct, the one corrected
/// is the `choose(dimensions, position of its link in the route)`-th of them.
fn walk(
    b: &Block,
    implicit_loopback: Option<LinkId>,
    src: u32,
    dst: u32,
    out: &mut Vec<LinkId>,
    mut choose: impl FnMut(u64, usize) -> u64,
) {
    let Topology::Torus(dims) = &b.spec.topology else {
        unreachable!("a torus route in a torus")
    };
    let nd = dims.len();
    if src == dst {
        if let Some(l) = b.loopback(src).or(implicit_loopback) {
            out.push(l);
        }
        return;
    }
    let start = out.len();
    let coord = |r: u32, j: usize| (r / dims[..j].iter().product::<u32>()) % dims[j];
    let mut cur = src;
    while cur != dst {
        let mut next = cur;
        let mut link = None;
        let mut dp = 1u32;
        // Which of the differing dimensions is corrected: the lowest, unless chosen.
        let differing = (0..nd).filter(|&j| coord(cur, j) != coord(dst, j)).count() as u64;
        let mut skip = if differing > 1 {
            let position = out.len() - start + usize::from(b.limiter(cur).is_some());
            choose(differing, position)
        } else {
            0
        };
        for (j, &d) in dims.iter().enumerate() {
            if (cur / dp) % d != (dst / dp) % d {
                if skip > 0 {
                    skip -= 1;
                    dp *= d;
                    continue;
                }
                let (my, tgt) = (coord(src, j), coord(dst, j));
                let right = (tgt > my && tgt <= my + d / 2) || (my > d / 2 && (my + d / 2) % d >= tgt);
                if right {
                    next = if (cur / dp) % d == d - 1 {
                        cur + dp - dp * d
                    } else {
                        cur + dp
                    };
                    link = Some(b.torus_link(cur, j, nd, true));
                } else {
                    next = if (cur / dp).is_multiple_of(d) {
                        cur + dp * d - dp
                    } else {
                        cur - dp
                    };
                    link = Some(b.torus_link(next, j, nd, false));
                }
                break;
            }
            dp *= d;
        }
        out.extend(b.limiter(cur));
        // cur != dst, so some coordinate differs.
        out.extend(link);
        cur = next;
    }
    out.extend(b.limiter(dst));
}
