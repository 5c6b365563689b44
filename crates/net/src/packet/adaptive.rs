//! Minimal adaptive routing: where minimal routes part (a fat tree's climb, which may
//! take any parent port of its switch; a torus hop with more than one dimension left
//! to correct), a packet takes the way whose output port at that switch has the fewest
//! packets queued for it or in service, if that is more than `adaptive_threshold`
//! fewer than on the way it has (the static route's, unless an earlier hop chose).
//! The choice is made when the packet is sent into that switch, from what the switch
//! holds then. Each route with its choices is made once, on first use. Packets keep a
//! virtual channel per hop, so any mix of routes stays free of deadlock.

use super::{PacketNetwork, NONE};
use simpi_kernel::{IdHashMap, MixHashMap};
use simpi_platform::detour::Choice;
use simpi_platform::HostId;

/// The routes with choices made so far, by their choices, and the choices of each.
#[derive(Default)]
pub(super) struct ChosenRoutes {
    /// Route index by source, destination and the ways taken at the first choices
    /// (the static route's after).
    by_picks: MixHashMap<(u32, u32, Box<[u64]>), u32>,
    /// Each such route's ends and choices.
    choices: IdHashMap<u32, Choices>,
}

/// A route's ends and its choices.
struct Choices {
    src: HostId,
    dst: HostId,
    choices: Box<[Choice]>,
}

impl PacketNetwork<'_> {
    /// The route from `src` to `dst` that takes the ways `picks` at its first choices
    /// (the static route's after), made on first use; `None` if the two are not hosts
    /// of one topology with choices.
    fn chosen_route(&mut self, src: HostId, dst: HostId, picks: &[u64]) -> Option<u32> {
        let key = (src.0, dst.0, Box::<[u64]>::from(picks));
        if let Some(&r) = self.chosen.by_picks.get(&key) {
            return Some(r);
        }
        let (route, choices) = self.platform.route_choosing(src, dst, picks)?;
        // Its links are those of a static route of the same topology (another way at
        // a choice), which the network takes: interning cannot fail here.
        let r = self.intern(src, dst, route.links).ok()?;
        self.chosen.by_picks.insert(key, r);
        let choices = choices.into_boxed_slice();
        self.chosen.choices.insert(r, Choices { src, dst, choices });
        Some(r)
    }

    /// The static route of `src` to `dst` as a route whose choices may be changed, or
    /// `minimal` itself where there are none.
    pub(super) fn choosing_route(&mut self, src: HostId, dst: HostId, minimal: u32) -> u32 {
        self.chosen_route(src, dst, &[]).unwrap_or(minimal)
    }

    /// The route a packet on route `r` continues on once it is sent over the link at
    /// hop `next - 1` (a message about to start, for `next` = 0): if the port it will
    /// want at hop `next` is a choice, the way whose port there is the least loaded.
    pub(super) fn adapt(&mut self, r: u32, next: usize) -> u32 {
        let Some(c) = self.chosen.choices.get(&r) else {
            return r;
        };
        let Some(at) = c.choices.iter().position(|x| x.position == next) else {
            return r;
        };
        let here = c.choices[at];
        if here.options < 2 {
            return r;
        }
        let (src, dst) = (c.src, c.dst);
        let mut picks: Vec<u64> = c.choices[..at].iter().map(|x| x.taken).collect();
        picks.push(0);
        // Packets waiting for the port in buffers, or in service, and the messages its
        // host waits to inject into it.
        let load = |net: &Self, r: u32| {
            let port = &net.ports[net.route_ports[r as usize][next] as usize];
            let injecting: u64 = port
                .nic
                .iter()
                .filter(|&&i| i != NONE)
                .map(|&i| net.inputs[i as usize].msgs.len() as u64)
                .sum();
            port.load() + injecting
        };
        // The least loaded other way (the first of equals), taken if it beats the
        // way the packet has by more than the threshold.
        let mut best: Option<(u64, u32)> = None;
        for way in (0..here.options).filter(|&w| w != here.taken) {
            picks[at] = way;
            let Some(v) = self.chosen_route(src, dst, &picks) else {
                continue;
            };
            let l = load(self, v);
            if best.is_none_or(|(b, _)| l < b) {
                best = Some((l, v));
            }
        }
        match best {
            Some((l, v)) if l + (self.params.adaptive_threshold as u64) < load(self, r) => v,
            _ => r,
        }
    }
}
