//! Routes between hosts across the zone tree.
//!
//! Between two points of the same zone, the zone's rule decides. Otherwise the route
//! goes through the lowest common ancestor zone: from the source to the gateway of its
//! side, across the ancestor's route between the two child zones, and from the other
//! gateway to the destination (SimGrid's recursive rule). A gateway lies inside the
//! sub-zone it leaves from (the readers check it, as SimGrid does), so each step goes
//! deeper and the recursion is no deeper than the zone tree; a depth guard turns a
//! broken platform built by hand into an error instead of a stack overflow.

use crate::error::PlatformError;
use crate::model::{HostId, LinkId, NetPointId, Platform, PointKind, ZoneId, MAX_ZONE_DEPTH};
use crate::units::clip;
use crate::zone::ZoneRouting;

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
        let n = self.num_hosts() as u32;
        if src.0 >= n || dst.0 >= n {
            return Err(PlatformError::new(format!(
                "no host {} in a platform of {n} hosts",
                src.0.max(dst.0)
            )));
        }
        let mut links = Vec::new();
        let (a, b) = (self.host_point(src), self.host_point(dst));
        let why = |e: &str| {
            PlatformError::new(format!(
                "no route from {} to {}: {e}",
                clip(&self.host_name(src)),
                clip(&self.host_name(dst))
            ))
        };
        self.route_points(a, b, &mut links, 0).map_err(|e| why(&e))?;
        if links.is_empty() {
            return Err(why("the route has no link"));
        }
        let latency = links.iter().map(|&l| self.link_latency(l)).sum();
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
        let mut zone = self.point_place(p).1;
        let mut point = p;
        while zone != anc {
            point = self.zone(zone).point.expect("a non-root zone has a point");
            zone = self.point_place(point).1;
        }
        point
    }

    pub(crate) fn route_points(
        &self,
        src: NetPointId,
        dst: NetPointId,
        out: &mut Vec<LinkId>,
        depth: u32,
    ) -> Result<(), String> {
        if depth > MAX_ZONE_DEPTH + 1 {
            return Err("the gateways of the zone routes lead around in a loop".into());
        }
        let (_, zs, ls) = self.point_place(src);
        let (_, zd, ld) = self.point_place(dst);
        if zs == zd {
            self.zone(zs).routing.local_route(self, ls, ld, out, depth)?;
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
        let (kind_s, _, local_s) = self.point_place(ms);
        let (kind_d, _, local_d) = self.point_place(md);
        let mut middle = Vec::new();
        let gw = self
            .zone(anc)
            .routing
            .local_route(self, local_s, local_d, &mut middle, depth)?;
        let needs_src_gw = matches!(kind_s, PointKind::Zone(_));
        let needs_dst_gw = matches!(kind_d, PointKind::Zone(_));
        if needs_src_gw || needs_dst_gw {
            let (gs, gd) = gw.ok_or_else(|| {
                format!(
                    "the route between '{}' and '{}' in zone '{}' has no gateways",
                    clip(&self.point_name(ms)),
                    clip(&self.point_name(md)),
                    clip(&self.zone(anc).name)
                )
            })?;
            if needs_src_gw && gs != src {
                self.route_points(src, gs, out, depth + 1)?;
            }
            out.extend_from_slice(&middle);
            if needs_dst_gw && gd != dst {
                self.route_points(gd, dst, out, depth + 1)?;
            }
        } else {
            out.extend_from_slice(&middle);
        }
        Ok(())
    }

    /// Whether point `p` lies inside zone `z` (at any depth).
    pub(crate) fn is_inside(&self, p: NetPointId, z: ZoneId) -> bool {
        let mut zone = Some(self.point_place(p).1);
        while let Some(cur) = zone {
            if cur == z {
                return true;
            }
            zone = self.zone(cur).parent;
        }
        false
    }

    /// Finishes the platform after construction: table zones without sub-zones get the
    /// implicit loopback link (FATPIPE, 10 GB/s, no latency, as SimGrid), as do torus
    /// clusters without loopback links (whose hosts otherwise have no route to
    /// themselves); Floyd zones compute their shortest paths. A platform without a host
    /// is an error: nothing could run on it.
    pub fn seal(&mut self) -> Result<(), PlatformError> {
        if self.num_hosts() == 0 {
            return Err(PlatformError::new("the platform has no host"));
        }
        let torus_without_loopback = self
            .blocks
            .iter()
            .any(|b| matches!(b.spec.topology, crate::cluster::Topology::Torus(_)) && b.spec.loopback.is_none());
        if torus_without_loopback {
            self.loopback()?;
        }
        for z in 0..self.zones.len() {
            if !matches!(self.zones[z].routing, ZoneRouting::Table(_)) {
                continue;
            }
            let has_subzones = self.zones[z]
                .members()
                .any(|m| matches!(self.point_place(m).0, PointKind::Zone(_)));
            let n = self.zones[z].num_members() as usize;
            let lb = if has_subzones { None } else { Some(self.loopback()?) };
            let name = clip(&self.zones[z].name);
            if let ZoneRouting::Table(t) = &mut self.zones[z].routing {
                t.seal(n, lb)
                    .map_err(|m| PlatformError::new(format!("zone '{name}': {m}")))?;
            }
        }
        Ok(())
    }

    /// The implicit loopback link, created the first time it is needed.
    fn loopback(&mut self) -> Result<LinkId, PlatformError> {
        if let Some(l) = self.implicit_loopback() {
            return Ok(l);
        }
        let l = match self.link_by_name("__loopback__") {
            Some(l) => l,
            None => self.add_link("__loopback__", 1e10, 0.0, crate::model::Policy::Fatpipe)?,
        };
        self.set_implicit_loopback(l);
        Ok(l)
    }
}
