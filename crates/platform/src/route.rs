//! Routes between hosts across the zone tree.
//!
//! Between two points of the same zone, the zone's rule decides. Otherwise the route
//! goes through the lowest common ancestor zone: from the source to the gateway of its
//! side, across the ancestor's route between the two child zones, and from the other
//! gateway to the destination (SimGrid's recursive rule).

use crate::error::PlatformError;
use crate::model::{HostId, LinkId, NetPointId, Platform, PointKind, ZoneId};
use crate::zone::{TableZone, ZoneRouting};

/// The links from one host to another and their total latency (seconds).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route {
    /// Links in travel order.
    pub links: Vec<LinkId>,
    /// Sum of the links' latencies.
    pub latency: f64,
}

impl Platform {
    /// The route from host `src` to host `dst`.
    pub fn route(&self, src: HostId, dst: HostId) -> Result<Route, PlatformError> {
        let mut links = Vec::new();
        let (a, b) = (self.host(src).point, self.host(dst).point);
        self.route_points(a, b, &mut links).map_err(|e| {
            PlatformError::new(format!(
                "no route from {} to {}: {e}",
                self.host(src).name,
                self.host(dst).name
            ))
        })?;
        if links.is_empty() {
            return Err(PlatformError::new(format!(
                "no route from {} to {}: the route has no link",
                self.host(src).name,
                self.host(dst).name
            )));
        }
        let latency = links.iter().map(|&l| self.link(l).latency).sum();
        Ok(Route { links, latency })
    }

    fn ancestors(&self, z: ZoneId) -> Vec<ZoneId> {
        let mut v = vec![z];
        let mut cur = z;
        while let Some(p) = self.zone(cur).parent {
            v.push(p);
            cur = p;
        }
        v
    }

    /// The member of zone `anc` through which point `p` is reached.
    fn member_towards(&self, p: NetPointId, anc: ZoneId) -> NetPointId {
        let mut zone = self.point(p).zone;
        let mut point = p;
        while zone != anc {
            point = self.zone(zone).point.expect("a non-root zone has a point");
            zone = self.point(point).zone;
        }
        point
    }

    pub(crate) fn route_points(&self, src: NetPointId, dst: NetPointId, out: &mut Vec<LinkId>) -> Result<(), String> {
        let (zs, zd) = (self.point(src).zone, self.point(dst).zone);
        if zs == zd {
            let (a, b) = (self.point(src).local, self.point(dst).local);
            self.zone(zs).routing.local_route(self, a, b, out)?;
            return Ok(());
        }
        let up_src = self.ancestors(zs);
        let up_dst = self.ancestors(zd);
        let anc = *up_src
            .iter()
            .find(|z| up_dst.contains(z))
            .ok_or("the points are in unrelated zones")?;
        let ms = self.member_towards(src, anc);
        let md = self.member_towards(dst, anc);
        let mut middle = Vec::new();
        let gw = self
            .zone(anc)
            .routing
            .local_route(self, self.point(ms).local, self.point(md).local, &mut middle)?;
        let needs_src_gw = matches!(self.point(ms).kind, PointKind::Zone(_));
        let needs_dst_gw = matches!(self.point(md).kind, PointKind::Zone(_));
        if needs_src_gw || needs_dst_gw {
            let (gs, gd) = gw.ok_or_else(|| {
                format!(
                    "the route between '{}' and '{}' in zone '{}' has no gateways",
                    self.point(ms).name,
                    self.point(md).name,
                    self.zone(anc).name
                )
            })?;
            if needs_src_gw && gs != src {
                self.route_points(src, gs, out)?;
            }
            out.extend_from_slice(&middle);
            if needs_dst_gw && gd != dst {
                self.route_points(gd, dst, out)?;
            }
        } else {
            out.extend_from_slice(&middle);
        }
        Ok(())
    }

    /// Finishes the platform after construction: table zones without sub-zones get the
    /// implicit loopback link (FATPIPE, 10 GB/s, no latency, as SimGrid), Floyd zones
    /// compute their shortest paths.
    pub fn seal(&mut self) -> Result<(), PlatformError> {
        let mut loopback = None;
        for z in 0..self.zones.len() {
            let has_subzones = self.zones[z]
                .members
                .iter()
                .any(|&m| matches!(self.point(m).kind, PointKind::Zone(_)));
            let n = self.zones[z].members.len();
            if matches!(self.zones[z].routing, ZoneRouting::Table(_)) {
                let lb = if has_subzones {
                    None
                } else {
                    if loopback.is_none() {
                        loopback = Some(match self.link_by_name("__loopback__") {
                            Some(l) => l,
                            None => self.add_link("__loopback__", 1e10, 0.0, crate::model::Policy::Fatpipe)?,
                        });
                    }
                    loopback
                };
                if let ZoneRouting::Table(t) = &mut self.zones[z].routing {
                    TableZone::seal(t, n, lb);
                }
            }
        }
        Ok(())
    }
}
