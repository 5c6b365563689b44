//! The alternatives a topology offers adaptive routing: Valiant's detour through an
//! intermediate group of a dragonfly, and a fat tree's choice of parent port at each
//! climb (all minimal). The static routes stay in [`crate::route`]; network models ask
//! here for the others.

use crate::block::Layout;
use crate::error::PlatformError;
use crate::ids::Slot;
use crate::model::{HostId, Platform};
use crate::route::Route;
use crate::zone::dragonfly;
use crate::zone::fat_tree;
pub use crate::zone::fat_tree::UpChoice;

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

    /// Whether the platform has a fat tree (whose climbs may choose their parent port).
    pub fn has_fat_tree(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b.layout, Layout::FatTree(_)))
    }

    /// The route from `src` to `dst`, two hosts of one fat tree, that leaves level `i`
    /// by parent port `ups[i]` (taken modulo the ports there; d-mod-k's static choice
    /// for the levels beyond `ups`), with the choice each climb had. `None` if the two
    /// are not hosts of one fat tree (or are one host).
    pub fn route_up_via(&self, src: HostId, dst: HostId, ups: &[u64]) -> Option<(Route, Vec<UpChoice>)> {
        let (Slot::Block(bs, s), Slot::Block(bd, d)) = (self.host_ids.locate(src.0), self.host_ids.locate(dst.0))
        else {
            return None;
        };
        let block = &self.blocks[bs as usize];
        if bs != bd || s == d || !matches!(block.layout, Layout::FatTree(_)) {
            return None;
        }
        let (mut links, mut choices) = (Vec::new(), Vec::new());
        fat_tree::route_choosing(block, s, d, ups, &mut links, &mut choices);
        let latency = links.iter().map(|&l| self.link_latency(l)).sum();
        Some((Route { links, latency }, choices))
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
