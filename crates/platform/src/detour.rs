//! The alternatives a topology offers adaptive routing: Valiant's detour through an
//! intermediate group of a dragonfly, and the choices among minimal routes of a fat
//! tree (the parent port of each climb) and of a torus (which dimension each hop
//! corrects). The static routes stay in [`crate::route`]; network models ask here for
//! the others.

use crate::block::Layout;
use crate::error::PlatformError;
use crate::ids::Slot;
use crate::model::{HostId, Platform};
use crate::route::Route;
use crate::zone::dragonfly;
use crate::zone::{fat_tree, torus};

/// A hop of a route where minimal routes part: where its link sits in the route, how
/// many ways there were, and which was taken (an index the topology defines: a fat
/// tree's parent port, the rank of a torus dimension among those left to correct).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Index of the hop's link in the route's links.
    pub position: usize,
    /// Ways to choose from.
    pub options: u64,
    /// The way taken.
    pub taken: u64,
}

impl Choice {
    /// A route walk met its next choice, at `position` with `options` ways: takes the
    /// way `picks` gives for it (modulo `options`; `default`, the static route's, past
    /// `picks`), records it in `choices` and returns it.
    pub(crate) fn pick(choices: &mut Vec<Choice>, picks: &[u64], position: usize, options: u64, default: u64) -> u64 {
        let taken = picks.get(choices.len()).map_or(default, |&p| p % options);
        choices.push(Choice {
            position,
            options,
            taken,
        });
        taken
    }
}

/// Where a host sits in a dragonfly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DragonflyPlace {
    /// The dragonfly (its cluster's block); two hosts are in one dragonfly when equal.
    pub dragonfly: u32,
    /// The host's group.
    pub group: u64,
    /// The dragonfly's number of groups.
    pub groups: u64,
}

impl Platform {
    /// Where host `h` sits, if it is a host of a dragonfly cluster.
    pub fn dragonfly_place(&self, h: HostId) -> Option<DragonflyPlace> {
        let Slot::Block(b, k) = self.host_ids.locate(h.0) else {
            return None;
        };
        let block = &self.blocks[b as usize];
        if !matches!(block.layout, Layout::Dragonfly) {
            return None;
        }
        let (group, groups) = dragonfly::group_of(block, k);
        Some(DragonflyPlace {
            dragonfly: b,
            group,
            groups,
        })
    }

    /// Whether the platform has a dragonfly, the only topology with detours so far.
    pub fn has_detours(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b.layout, Layout::Dragonfly))
    }

    /// Whether the platform has a topology whose minimal routes part (a fat tree or a
    /// torus).
    pub fn has_minimal_choices(&self) -> bool {
        self.blocks
            .iter()
            .any(|b| matches!(b.layout, Layout::FatTree(_) | Layout::Torus))
    }

    /// The minimal route from `src` to `dst`, two hosts of one fat tree or torus,
    /// that takes way `picks[i]` at its `i`-th choice (modulo the ways there; the
    /// static route's way after `picks`), with every choice it met: on a fat tree,
    /// one per climb, the parent port (the static way is d-mod-k's); on a torus, one
    /// per hop with more than one dimension left to correct, the rank of the
    /// dimension corrected among those (the static way, 0, is dimension order).
    /// `None` if the two are not hosts of one such topology, or are one host.
    pub fn route_choosing(&self, src: HostId, dst: HostId, picks: &[u64]) -> Option<(Route, Vec<Choice>)> {
        let (Slot::Block(bs, s), Slot::Block(bd, d)) = (self.host_ids.locate(src.0), self.host_ids.locate(dst.0))
        else {
            return None;
        };
        let block = &self.blocks[bs as usize];
        if bs != bd || s == d {
            return None;
        }
        let (mut links, mut choices) = (Vec::new(), Vec::new());
        match block.layout {
            Layout::FatTree(_) => fat_tree::route_choosing(block, s, d, picks, &mut links, &mut choices),
            Layout::Torus => torus::route_choosing(block, s, d, picks, &mut links, &mut choices),
            _ => return None,
        }
        let latency = links.iter().map(|&l| self.link_latency(l)).sum();
        Some((Route { links, latency }, choices))
    }

    /// Progressive adaptive routing's late detour on a dragonfly: the route from `src`
    /// to `dst`, hosts of one dragonfly in different groups, that follows the minimal
    /// route over its first `steps` local links in the source group (at most 2: to the
    /// blade, then to the chassis, of the router with the global link), then goes from
    /// the router it reached through group `via` (the minimal route if `via` is either
    /// end's group). With it, the positions in the route of the links leaving each
    /// source-group router it met up to there: where a packet on the minimal route may
    /// still turn. `None` for other hosts.
    pub fn route_diverted(&self, src: HostId, dst: HostId, steps: usize, via: u64) -> Option<(Route, Vec<usize>)> {
        let (Slot::Block(bs, s), Slot::Block(bd, d)) = (self.host_ids.locate(src.0), self.host_ids.locate(dst.0))
        else {
            return None;
        };
        let block = &self.blocks[bs as usize];
        if bs != bd || !matches!(block.layout, Layout::Dragonfly) {
            return None;
        }
        let (from, groups) = dragonfly::group_of(block, s);
        if from == dragonfly::group_of(block, d).0 || via >= groups {
            return None;
        }
        let (mut links, mut points) = (Vec::new(), Vec::new());
        dragonfly::route_diverted(block, s, d, steps, via, &mut links, &mut points);
        let latency = links.iter().map(|&l| self.link_latency(l)).sum();
        Some((Route { links, latency }, points))
    }

    /// The route from `src` to `dst`, two hosts of one dragonfly, through its group
    /// `via`: minimal to that group, then minimal on from where it lands (Valiant). When
    /// `via` is either end's group, the minimal route.
    pub fn route_via_group(&self, src: HostId, dst: HostId, via: u64) -> Result<Route, PlatformError> {
        let (Slot::Block(bs, s), Slot::Block(bd, d)) = (self.host_ids.locate(src.0), self.host_ids.locate(dst.0))
        else {
            return Err(PlatformError::new("a detour needs two hosts of one dragonfly"));
        };
        let block = &self.blocks[bs as usize];
        if bs != bd || !matches!(block.layout, Layout::Dragonfly) {
            return Err(PlatformError::new("a detour needs two hosts of one dragonfly"));
        }
        let (_, groups) = dragonfly::group_of(block, s);
        if via >= groups {
            return Err(PlatformError::new(format!("no group {via} in a dragonfly of {groups}")));
        }
        let mut links = Vec::new();
        dragonfly::route_via(block, s, d, via, &mut links);
        let latency = links.iter().map(|&l| self.link_latency(l)).sum();
        Ok(Route { links, latency })
    }
}
