//! A flat cluster: every host has a list of links towards the switch ("up": limiter,
//! private link, backbone) and back ("down"). A route is the source's up list followed by
//! the destination's down list, each link at most once; a host with a loopback link talks
//! to itself through it alone. The cluster's router (member `n`) has no links of its own.

use crate::block::Block;
use crate::model::LinkId;

/// Host `i`'s up list (empty for the router).
fn up(b: &Block, i: u32) -> impl Iterator<Item = LinkId> + '_ {
    let host = i < b.n;
    let lim = if host { b.limiter(i) } else { None };
    let private = host.then(|| b.private(i, true));
    let bb = if host { b.backbone() } else { None };
    lim.into_iter().chain(private).chain(bb)
}

/// Host `i`'s down list (empty for the router).
fn down(b: &Block, i: u32) -> impl Iterator<Item = LinkId> + '_ {
    let host = i < b.n;
    let bb = if host { b.backbone() } else { None };
    let private = host.then(|| b.private(i, false));
    let lim = if host { b.limiter(i) } else { None };
    bb.into_iter().chain(private).chain(lim)
}

pub(crate) fn route(b: &Block, src: u32, dst: u32, out: &mut Vec<LinkId>) {
    if src == dst && src < b.n {
        if let Some(l) = b.loopback(src) {
            out.push(l);
            return;
        }
    }
    let start = out.len();
    for l in up(b, src).chain(down(b, dst)) {
        if !out[start..].contains(&l) {
            out.push(l);
        }
    }
}
