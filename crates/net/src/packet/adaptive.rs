//! Adaptive routing on a fat tree: a packet about to climb from a switch takes, of the
//! parent ports there (every one leads to an ancestor of its destination, at the same
//! distance), the one with the fewest packets queued for it or in service. The choice
//! is made when the packet is sent into that switch, from what the switch holds then;
//! a tie keeps the port it had (d-mod-k's, unless an earlier climb chose). Each route
//! with its choices is made once, on first use.

use super::PacketNetwork;
use simpi_kernel::{IdHashMap, MixHashMap};
use simpi_platform::detour::UpChoice;
use simpi_platform::HostId;

/// The fat-tree routes made so far, by their choices, and the choices of each.
#[derive(Default)]
pub(super) struct UpRoutes {
    /// Route index by source, destination and the ports taken at the first climbs
    /// (d-mod-k's at the climbs after).
    by_choice: MixHashMap<(u32, u32, Box<[u64]>), u32>,
    /// Each such route's ends and climbs.
    climbs: IdHashMap<u32, Climbs>,
}

/// A fat-tree route's ends and its climbs.
struct Climbs {
    src: HostId,
    dst: HostId,
    climbs: Box<[UpChoice]>,
}

impl PacketNetwork<'_> {
    /// The route from `src` to `dst` whose first climbs take the ports `ups` (d-mod-k's
    /// after), made on first use; `None` if the two are not hosts of one fat tree.
    fn up_route(&mut self, src: HostId, dst: HostId, ups: &[u64]) -> Option<u32> {
        let key = (src.0, dst.0, Box::<[u64]>::from(ups));
        if let Some(&r) = self.up_routes.by_choice.get(&key) {
            return Some(r);
        }
        let (route, climbs) = self.platform.route_up_via(src, dst, ups)?;
        // Its links are those of a static route of the same two hosts (another parent
        // port at a climb), which the network took: interning cannot fail here.
        let r = self.intern(src, dst, route.links).ok()?;
        self.up_routes.by_choice.insert(key, r);
        let climbs = climbs.into_boxed_slice();
        self.up_routes.climbs.insert(r, Climbs { src, dst, climbs });
        Some(r)
    }

    /// The static route of `src` to `dst` as a route whose climbs may be chosen, or
    /// `minimal` itself outside a fat tree.
    pub(super) fn choosing_route(&mut self, src: HostId, dst: HostId, minimal: u32) -> u32 {
        self.up_route(src, dst, &[]).unwrap_or(minimal)
    }

    /// The route a packet on route `r` continues on once it is sent over the link at
    /// hop `next - 1`: if the port it will want at hop `next` is a climb with several
    /// ports, the least loaded of them.
    pub(super) fn adapt(&mut self, r: u32, next: usize) -> u32 {
        let Some(c) = self.up_routes.climbs.get(&r) else {
            return r;
        };
        let Some(level) = c.climbs.iter().position(|x| x.position == next) else {
            return r;
        };
        let climb = c.climbs[level];
        if climb.ports < 2 {
            return r;
        }
        let (src, dst) = (c.src, c.dst);
        let mut ups: Vec<u64> = c.climbs[..level].iter().map(|x| x.taken).collect();
        ups.push(0);
        let load = |net: &Self, r: u32| {
            let port = &net.ports[net.route_ports[r as usize][next] as usize];
            port.queued as u64 + port.busy as u64
        };
        let mut best = (load(self, r), r);
        for port in (0..climb.ports).filter(|&p| p != climb.taken) {
            ups[level] = port;
            let Some(v) = self.up_route(src, dst, &ups) else {
                continue;
            };
            let l = load(self, v);
            if l < best.0 {
                best = (l, v);
            }
        }
        best.1
    }
}
