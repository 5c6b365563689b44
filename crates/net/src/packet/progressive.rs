//! Progressive adaptive routing on a dragonfly (PAR): a packet starts on its minimal
//! route and, at each router of its source group up to the one with the global link,
//! may turn to a Valiant detour through a random group, by UGAL-L's measure biased
//! toward the minimal route: it turns when (packets queued for the detour's output
//! there + 1) × the detour's hops left, times [`MINIMAL_BIAS`], is below the same
//! product for the minimal route. Once turned, it goes on as that detour says. So a
//! packet sees congestion its source router could not (a loaded global link two hops
//! on). Draws are keyed by (seed, message, packet slot, hop).

use super::{PacketNetwork, DETOUR_KEY};
use simpi_kernel::{IdHashMap, MixHashMap, Rng};
use simpi_platform::HostId;

/// How much cheaper a detour must look before a packet turns. Unbiased (1), packets
/// turned on momentary queues of benign traffic: a 50-rank all-to-all on a 5-group
/// dragonfly took 10.45 ms against 8.58 ms minimal. With 2 it takes 8.56 ms, and on the
/// adversarial pattern the dragonfly preset still reaches 97 % of Valiant's bound (3
/// gives 8.20 ms but 85 %).
const MINIMAL_BIAS: u64 = 2;

/// The dragonfly routes progressive routing has used, by what made them.
#[derive(Default)]
pub(super) struct LateDetours {
    /// A minimal route's ends and where it may turn, by route index.
    minimal: IdHashMap<u32, Turns>,
    /// Minimal route index by source and destination.
    by_ends: MixHashMap<(u32, u32), u32>,
    /// Route index of the detour by source, destination, routers followed and group.
    detours: MixHashMap<(u32, u32, usize, u64), u32>,
}

/// A minimal route's ends, and the positions of the links leaving each source-group
/// router (where it may turn), in order.
struct Turns {
    src: HostId,
    dst: HostId,
    points: Box<[usize]>,
    /// The ends' groups, the lower first, and the dragonfly's number of groups.
    groups: (u64, u64, u64),
}

impl PacketNetwork<'_> {
    /// The minimal route of `src` to `dst` as one that may turn on the way, or
    /// `minimal` itself if the two are not hosts of one dragonfly in different groups.
    pub(super) fn turning_route(&mut self, src: HostId, dst: HostId, minimal: u32) -> u32 {
        if let Some(&r) = self.late.by_ends.get(&(src.0, dst.0)) {
            return r;
        }
        let (Some(a), Some(b)) = (self.platform.dragonfly_place(src), self.platform.dragonfly_place(dst)) else {
            return minimal;
        };
        let Some((route, points)) = self.platform.route_diverted(src, dst, usize::MAX, b.group) else {
            return minimal;
        };
        let Ok(r) = self.intern(src, dst, route.links) else {
            return minimal;
        };
        self.late.by_ends.insert((src.0, dst.0), r);
        let points = points.into_boxed_slice();
        let groups = (a.group.min(b.group), a.group.max(b.group), a.groups);
        self.late.minimal.insert(
            r,
            Turns {
                src,
                dst,
                points,
                groups,
            },
        );
        r
    }

    /// The route a packet (slot `packet` of message `serial`) on route `r` continues
    /// on once sent over the link at hop `next - 1`: at a router where `r` may turn,
    /// a detour through a random group if it looks [`MINIMAL_BIAS`] times cheaper by
    /// UGAL-L's measure, else the minimal route.
    pub(super) fn maybe_turn(&mut self, r: u32, next: usize, serial: u64, packet: u32) -> u32 {
        let Some(t) = self.late.minimal.get(&r) else {
            return r;
        };
        let Some(steps) = t.points.iter().position(|&p| p == next) else {
            return r;
        };
        let (src, dst, (low, high, groups)) = (t.src, t.dst, t.groups);
        if groups < 3 {
            return r;
        }
        // A group other than the two ends', uniformly.
        let draw = Rng::keyed(&[DETOUR_KEY, self.params.seed, serial, packet as u64, next as u64]).next_u64();
        let mut via = draw % (groups - 2);
        for g in [low, high] {
            if via >= g {
                via += 1;
            }
        }
        let key = (src.0, dst.0, steps, via);
        let detour = match self.late.detours.get(&key) {
            Some(&d) => d,
            None => {
                let Some((route, _)) = self.platform.route_diverted(src, dst, steps, via) else {
                    return r;
                };
                let Ok(d) = self.intern(src, dst, route.links) else {
                    return r;
                };
                self.late.detours.insert(key, d);
                d
            }
        };
        let cost = |net: &Self, r: u32| {
            let ports = &net.route_ports[r as usize];
            let port = &net.ports[ports[next] as usize];
            (port.load() + 1) * (ports.len() - next) as u64
        };
        if cost(self, detour) * MINIMAL_BIAS < cost(self, r) {
            detour
        } else {
            r
        }
    }
}
