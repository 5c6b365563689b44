//! A dragonfly (`G` groups of `C` chassis of `B` blades/routers with `N` nodes each),
//! with SimGrid 3.32's minimal routing: to another group through the router of our
//! chassis whose blade number is the target group, the group's chassis 0, the single
//! blue link; then to the target blade (green) and chassis (black). Routers are numbered
//! `g·C·B + c·B + b`; every link is computed from the block.
//!
//! Valiant's non-minimal routes ([`route_via`]) go minimally to an intermediate group
//! and from where they land there minimally on to the destination, so that adversarial
//! traffic spreads over every group's global links.

use crate::block::Block;
use crate::cluster::Topology;
use crate::model::LinkId;

/// A dragonfly's shape and the steps of its routes, as SimGrid takes them.
struct Walk<'b> {
    b: &'b Block,
    /// Chassis per group, blades per chassis, nodes per blade.
    cs: u64,
    bs: u64,
    ns: u64,
}

impl<'b> Walk<'b> {
    fn new(b: &'b Block) -> Walk<'b> {
        let Topology::Dragonfly {
            chassis, blades, nodes, ..
        } = b.spec.topology
        else {
            unreachable!("a dragonfly route in a dragonfly")
        };
        Walk {
            b,
            cs: chassis.0 as u64,
            bs: blades.0 as u64,
            ns: nodes as u64,
        }
    }

    /// Group, chassis, blade and node index of host `h`.
    fn host(&self, h: u32) -> (u64, u64, u64, u64) {
        let (cs, bs, ns, r) = (self.cs, self.bs, self.ns, h as u64);
        (
            r / (cs * bs * ns),
            r % (cs * bs * ns) / (bs * ns),
            r % (bs * ns) / ns,
            r % ns,
        )
    }

    fn router(&self, g: u64, c: u64, bl: u64) -> u64 {
        g * self.cs * self.bs + c * self.bs + bl
    }

    fn router_coords(&self, r: u64) -> (u64, u64, u64) {
        (r / (self.cs * self.bs), r % (self.cs * self.bs) / self.bs, r % self.bs)
    }

    fn limiter(&self, r: u64, out: &mut Vec<LinkId>) {
        out.extend(self.b.router_limiter(r));
    }

    /// From router `cur` of group `from` over the blue link to group `to`; returns the
    /// router it lands on (chassis 0, blade `from`, in group `to`).
    fn to_group(&self, mut cur: u64, from: u64, to: u64, out: &mut Vec<LinkId>) -> u64 {
        let (g, c, bl) = self.router_coords(cur);
        if bl != to {
            self.limiter(cur, out);
            out.push(self.b.green(g, c, bl, to));
            cur = self.router(from, c, to);
        }
        let (g, c, bl) = self.router_coords(cur);
        if c != 0 {
            self.limiter(cur, out);
            out.push(self.b.black(g, c, bl, 0));
            cur = self.router(from, 0, to);
        }
        // The block checked that groups <= blades: this router has the blue link.
        out.extend(self.b.blue(from, cur % (self.cs * self.bs)));
        self.limiter(cur, out);
        self.router(to, 0, from)
    }

    /// From router `cur` to the target's blade (green) and chassis (black) in its group.
    /// As in SimGrid, a green step counts as reaching chassis 0's router of that blade.
    fn within_group(&self, cur: u64, tgt: (u64, u64, u64, u64), out: &mut Vec<LinkId>) {
        let mut cur = cur;
        let (g, c, bl) = self.router_coords(cur);
        if tgt.2 != bl {
            self.limiter(cur, out);
            out.push(self.b.green(g, c, bl, tgt.2));
            cur = self.router(tgt.0, 0, tgt.2);
        }
        let (g, c, bl) = self.router_coords(cur);
        if tgt.1 != c {
            self.limiter(cur, out);
            out.push(self.b.black(g, c, bl, tgt.1));
        }
    }

    /// The whole route from host `src` to host `dst`, through group `via` on the way
    /// when it is neither end's group.
    fn route(&self, src: u32, dst: u32, via: Option<u64>, out: &mut Vec<LinkId>) {
        if src == dst {
            if let Some(l) = self.b.loopback(src) {
                out.push(l);
                return;
            }
        }
        let my = self.host(src);
        let tgt = self.host(dst);
        let my_router = self.router(my.0, my.1, my.2);
        let tgt_router = self.router(tgt.0, tgt.1, tgt.2);
        out.extend(self.b.limiter(src));
        out.push(self.b.local_link(my_router, my.3, true));
        if tgt_router != my_router {
            let mut cur = my_router;
            let mut group = my.0;
            if let Some(v) = via.filter(|&v| v != my.0 && v != tgt.0) {
                cur = self.to_group(cur, group, v, out);
                group = v;
            }
            if tgt.0 != group {
                cur = self.to_group(cur, group, tgt.0, out);
            }
            self.within_group(cur, tgt, out);
        }
        self.limiter(tgt_router, out);
        out.push(self.b.local_link(tgt_router, tgt.3, false));
        out.extend(self.b.limiter(dst));
    }
}

impl Walk<'_> {
    /// The route from `src` to `dst` (of other groups) that follows the minimal one
    /// for its first `steps` links inside the source group (0 to 2: to the blade, then
    /// to the chassis, of the router with the global link), then, from the router it
    /// reached, goes minimally to group `via` and on to `dst` (progressive adaptive
    /// routing's late detour). Appends to `points` the positions of the links leaving
    /// each source-group router the minimal route meets before and including that
    /// router.
    fn diverted(&self, src: u32, dst: u32, steps: usize, via: u64, out: &mut Vec<LinkId>, points: &mut Vec<usize>) {
        let start = out.len();
        let my = self.host(src);
        let tgt = self.host(dst);
        let my_router = self.router(my.0, my.1, my.2);
        out.extend(self.b.limiter(src));
        out.push(self.b.local_link(my_router, my.3, true));
        let mut cur = my_router;
        let leaving =
            |cur: u64, out: &Vec<LinkId>| out.len() - start + usize::from(self.b.router_limiter(cur).is_some());
        points.push(leaving(cur, out));
        for _ in 0..steps {
            let (g, c, bl) = self.router_coords(cur);
            if bl != tgt.0 {
                self.limiter(cur, out);
                out.push(self.b.green(g, c, bl, tgt.0));
                cur = self.router(my.0, c, tgt.0);
            } else if c != 0 {
                self.limiter(cur, out);
                out.push(self.b.black(g, c, bl, 0));
                cur = self.router(my.0, 0, tgt.0);
            } else {
                break;
            }
            points.push(leaving(cur, out));
        }
        let mut group = my.0;
        if via != my.0 && via != tgt.0 {
            cur = self.to_group(cur, group, via, out);
            group = via;
        }
        cur = self.to_group(cur, group, tgt.0, out);
        self.within_group(cur, tgt, out);
        let tgt_router = self.router(tgt.0, tgt.1, tgt.2);
        self.limiter(tgt_router, out);
        out.push(self.b.local_link(tgt_router, tgt.3, false));
        out.extend(self.b.limiter(dst));
    }
}

pub(crate) fn route(b: &Block, src: u32, dst: u32, out: &mut Vec<LinkId>) {
    Walk::new(b).route(src, dst, None, out)
}

/// See `Walk::diverted`; `src` and `dst` must be in different groups.
pub(crate) fn route_diverted(
    b: &Block,
    src: u32,
    dst: u32,
    steps: usize,
    via: u64,
    out: &mut Vec<LinkId>,
    points: &mut Vec<usize>,
) {
    Walk::new(b).diverted(src, dst, steps, via, out, points)
}

/// The route from `src` to `dst` through group `via` (Valiant's detour); the minimal
/// route when `via` is the group of either end.
pub(crate) fn route_via(b: &Block, src: u32, dst: u32, via: u64, out: &mut Vec<LinkId>) {
    Walk::new(b).route(src, dst, Some(via), out)
}

/// The group of host `h` and the number of groups.
pub(crate) fn group_of(b: &Block, h: u32) -> (u64, u64) {
    let Topology::Dragonfly { groups, .. } = b.spec.topology else {
        unreachable!("a dragonfly group in a dragonfly")
    };
    (Walk::new(b).host(h).0, groups.0 as u64)
}
