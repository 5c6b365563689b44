//! A dragonfly (`G` groups of `C` chassis of `B` blades/routers with `N` nodes each),
//! with SimGrid 3.32's minimal routing: to another group through the router of our
//! chassis whose blade number is the target group, the group's chassis 0, the single
//! blue link; then to the target blade (green) and chassis (black). Routers are numbered
//! `g·C·B + c·B + b`; every link is computed from the block.

use crate::block::Block;
use crate::cluster::Topology;
use crate::model::LinkId;

pub(crate) fn route(b: &Block, src: u32, dst: u32, out: &mut Vec<LinkId>) {
    let Topology::Dragonfly {
        chassis, blades, nodes, ..
    } = b.spec.topology
    else {
        unreachable!("a dragonfly route in a dragonfly")
    };
    if src == dst {
        if let Some(l) = b.loopback(src) {
            out.push(l);
            return;
        }
    }
    let (cs, bs, ns) = (chassis.0 as u64, blades.0 as u64, nodes as u64);
    let coords = |r: u64| {
        (
            r / (cs * bs * ns),
            r % (cs * bs * ns) / (bs * ns),
            r % (bs * ns) / ns,
            r % ns,
        )
    };
    let router = |g: u64, c: u64, bl: u64| g * cs * bs + c * bs + bl;
    let router_coords = |r: u64| (r / (cs * bs), r % (cs * bs) / bs, r % bs);
    let my = coords(src as u64);
    let tgt = coords(dst as u64);
    let my_router = router(my.0, my.1, my.2);
    let tgt_router = router(tgt.0, tgt.1, tgt.2);
    let limiter = |r: u64, out: &mut Vec<LinkId>| out.extend(b.router_limiter(r));
    out.extend(b.limiter(src));
    out.push(b.local_link(my_router, my.3, true));
    if tgt_router != my_router {
        let mut cur = my_router;
        if tgt.0 != my.0 {
            let (g, c, bl) = router_coords(cur);
            if bl != tgt.0 {
                limiter(cur, out);
                out.push(b.green(g, c, bl, tgt.0));
                cur = router(my.0, my.1, tgt.0);
            }
            let (g, c, bl) = router_coords(cur);
            if c != 0 {
                limiter(cur, out);
                out.push(b.black(g, c, bl, 0));
                cur = my.0 * cs * bs + tgt.0;
            }
            // The block checked that groups <= blades: this router has the blue link.
            out.extend(b.blue(my.0, cur % (cs * bs)));
            limiter(cur, out);
            cur = tgt.0 * cs * bs + my.0;
        }
        let (g, c, bl) = router_coords(cur);
        if tgt.2 != bl {
            limiter(cur, out);
            out.push(b.green(g, c, bl, tgt.2));
            cur = tgt.0 * cs * bs + tgt.2;
        }
        let (g, c, bl) = router_coords(cur);
        if tgt.1 != c {
            limiter(cur, out);
            out.push(b.black(g, c, bl, tgt.1));
        }
    }
    limiter(tgt_router, out);
    out.push(b.local_link(tgt_router, tgt.3, false));
    out.extend(b.limiter(dst));
}
