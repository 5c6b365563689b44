//! A dragonfly (`G` groups of `C` chassis of `B` blades/routers with `N` nodes each),
//! with SimGrid 3.32's minimal routing: to another group through the router of our
//! chassis whose blade number is the target group, the group's chassis 0, the single
//! blue link; then to the target blade (green) and chassis (black).

use crate::model::LinkId;

/// One router.
#[derive(Clone, Debug, Default)]
pub struct DfRouter {
    /// Group, chassis and blade of the router.
    pub coords: (u32, u32, u32),
    /// Per attached node: (link towards the router, link towards the node).
    pub nodes: Vec<(LinkId, LinkId)>,
    /// Per blade of the same chassis.
    pub green: Vec<Option<LinkId>>,
    /// Per chassis of the same group (same blade number).
    pub black: Vec<Option<LinkId>>,
    /// The link to another group, if this router has one.
    pub blue: Option<LinkId>,
    /// Limiter, if any.
    pub limiter: Option<LinkId>,
}

/// The structure of a dragonfly.
#[derive(Clone, Debug)]
pub struct DragonflyZone {
    /// Groups, chassis per group, blades per chassis, nodes per blade.
    pub shape: (u32, u32, u32, u32),
    /// Routers by index `g·C·B + c·B + b`.
    pub routers: Vec<DfRouter>,
    /// Per node: loopback and limiter.
    pub loopback: Vec<Option<LinkId>>,
    /// Per node limiter.
    pub limiter: Vec<Option<LinkId>>,
}

impl DragonflyZone {
    /// (group, chassis, blade, node) of node `r`.
    pub fn coords(&self, r: u32) -> (u32, u32, u32, u32) {
        let (_, c, b, n) = self.shape;
        (r / (c * b * n), (r % (c * b * n)) / (b * n), (r % (b * n)) / n, r % n)
    }

    fn router_index(&self, g: u32, c: u32, b: u32) -> usize {
        let (_, cs, bs, _) = self.shape;
        (g * cs * bs + c * bs + b) as usize
    }

    pub(crate) fn route(&self, src: u32, dst: u32, out: &mut Vec<LinkId>) {
        if src == dst {
            if let Some(Some(l)) = self.loopback.get(src as usize) {
                out.push(*l);
                return;
            }
        }
        let (_, cs, bs, _) = self.shape;
        let my = self.coords(src);
        let tgt = self.coords(dst);
        let my_router = self.router_index(my.0, my.1, my.2);
        let tgt_router = self.router_index(tgt.0, tgt.1, tgt.2);
        let limiter = |r: usize, out: &mut Vec<LinkId>| {
            if let Some(l) = self.routers[r].limiter {
                out.push(l);
            }
        };
        if let Some(Some(l)) = self.limiter.get(src as usize) {
            out.push(*l);
        }
        out.push(self.routers[my_router].nodes[my.3 as usize].0);
        if tgt_router != my_router {
            let mut cur = my_router;
            if self.routers[tgt_router].coords.0 != self.routers[cur].coords.0 {
                if self.routers[cur].coords.2 != tgt.0 {
                    limiter(cur, out);
                    out.push(self.routers[cur].green[tgt.0 as usize].expect("dragonfly: missing green link"));
                    cur = self.router_index(my.0, my.1, tgt.0);
                }
                if self.routers[cur].coords.1 != 0 {
                    limiter(cur, out);
                    out.push(self.routers[cur].black[0].expect("dragonfly: missing black link"));
                    cur = (my.0 * cs * bs + tgt.0) as usize;
                }
                out.push(self.routers[cur].blue.expect("dragonfly: missing blue link"));
                limiter(cur, out);
                cur = (tgt.0 * cs * bs + my.0) as usize;
            }
            if self.routers[tgt_router].coords.2 != self.routers[cur].coords.2 {
                limiter(cur, out);
                out.push(self.routers[cur].green[tgt.2 as usize].expect("dragonfly: missing green link"));
                cur = (tgt.0 * cs * bs + tgt.2) as usize;
            }
            if self.routers[tgt_router].coords.1 != self.routers[cur].coords.1 {
                limiter(cur, out);
                out.push(self.routers[cur].black[tgt.1 as usize].expect("dragonfly: missing black link"));
            }
        }
        limiter(tgt_router, out);
        out.push(self.routers[tgt_router].nodes[tgt.3 as usize].1);
        if let Some(Some(l)) = self.limiter.get(dst as usize) {
            out.push(*l);
        }
    }
}
