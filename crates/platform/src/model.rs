//! The platform's parts: hosts, links, network points and zones, and how to add them.

use crate::error::PlatformError;
use crate::zone::ZoneRouting;
use std::collections::HashMap;

/// A host (a node that runs ranks).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostId(pub u32);

/// A link.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(pub u32);

/// A zone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ZoneId(pub u32);

/// A point of the network: a host, a router, or a zone seen from its parent.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NetPointId(pub u32);

/// How a link shares its bandwidth among the flows that cross it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The flows share the bandwidth.
    Shared,
    /// Every flow may use the whole bandwidth.
    Fatpipe,
}

/// A link: bandwidth in bytes/s, latency in seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Unique name.
    pub name: String,
    /// Bandwidth, bytes per second.
    pub bandwidth: f64,
    /// Latency, seconds.
    pub latency: f64,
    /// Sharing policy.
    pub policy: Policy,
    /// For one half of a split-duplex link: the other half (used for reverse routes).
    pub partner: Option<LinkId>,
}

/// A host: speed in flop/s and cores.
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    /// Unique name.
    pub name: String,
    /// Speed per core, flop/s.
    pub speed: f64,
    /// Cores.
    pub cores: u32,
    /// Its network point.
    pub point: NetPointId,
}

/// What a network point is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PointKind {
    /// A host.
    Host(HostId),
    /// A router (routes pass through it; it runs nothing).
    Router,
    /// A sub-zone, as a member of its parent zone.
    Zone(ZoneId),
}

/// A network point: what it is, the zone it belongs to and its index among that zone's
/// members.
#[derive(Clone, Debug, PartialEq)]
pub struct NetPoint {
    /// Unique name.
    pub name: String,
    /// What it is.
    pub kind: PointKind,
    /// The zone that contains it (for a zone's own point: the parent zone).
    pub zone: ZoneId,
    /// Its index among the zone's members.
    pub local: u32,
}

/// A zone: a routing rule over its members.
#[derive(Clone, Debug)]
pub struct Zone {
    /// Unique name.
    pub name: String,
    /// The enclosing zone (None for the root).
    pub parent: Option<ZoneId>,
    /// This zone's network point in its parent.
    pub point: Option<NetPointId>,
    /// Members in order of creation; `NetPoint::local` indexes this.
    pub members: Vec<NetPointId>,
    /// How routes between members are found.
    pub routing: ZoneRouting,
}

/// A whole platform. Build it with the `add_*` methods or load it from a file.
#[derive(Clone, Debug)]
pub struct Platform {
    pub(crate) hosts: Vec<Host>,
    pub(crate) links: Vec<Link>,
    pub(crate) points: Vec<NetPoint>,
    pub(crate) zones: Vec<Zone>,
    link_names: HashMap<String, LinkId>,
    point_names: HashMap<String, NetPointId>,
    zone_names: HashMap<String, ZoneId>,
}

impl Platform {
    /// A platform whose root zone is `name`, routed by `routing`.
    pub fn new(name: &str, routing: ZoneRouting) -> Platform {
        let mut p = Platform {
            hosts: Vec::new(),
            links: Vec::new(),
            points: Vec::new(),
            zones: Vec::new(),
            link_names: HashMap::new(),
            point_names: HashMap::new(),
            zone_names: HashMap::new(),
        };
        p.zones.push(Zone {
            name: name.to_string(),
            parent: None,
            point: None,
            members: Vec::new(),
            routing,
        });
        p.zone_names.insert(name.to_string(), ZoneId(0));
        p
    }

    /// The root zone.
    pub fn root(&self) -> ZoneId {
        ZoneId(0)
    }

    /// Adds a sub-zone of `parent`.
    pub fn add_zone(&mut self, parent: ZoneId, name: &str, routing: ZoneRouting) -> Result<ZoneId, PlatformError> {
        if self.zone_names.contains_key(name) {
            return Err(PlatformError::new(format!("zone '{name}' is defined twice")));
        }
        let z = ZoneId(self.zones.len() as u32);
        let point = self.add_point(parent, name, PointKind::Zone(z))?;
        self.zones.push(Zone {
            name: name.to_string(),
            parent: Some(parent),
            point: Some(point),
            members: Vec::new(),
            routing,
        });
        self.zone_names.insert(name.to_string(), z);
        Ok(z)
    }

    fn add_point(&mut self, zone: ZoneId, name: &str, kind: PointKind) -> Result<NetPointId, PlatformError> {
        if self.point_names.contains_key(name) {
            return Err(PlatformError::new(format!(
                "'{name}' is defined twice (hosts, routers and zones share names)"
            )));
        }
        let id = NetPointId(self.points.len() as u32);
        let local = self.zones[zone.0 as usize].members.len() as u32;
        self.points.push(NetPoint {
            name: name.to_string(),
            kind,
            zone,
            local,
        });
        self.zones[zone.0 as usize].members.push(id);
        self.point_names.insert(name.to_string(), id);
        Ok(id)
    }

    /// Adds a host to `zone`.
    pub fn add_host(&mut self, zone: ZoneId, name: &str, speed: f64, cores: u32) -> Result<HostId, PlatformError> {
        if !(speed > 0.0 && speed.is_finite()) || cores == 0 {
            return Err(PlatformError::new(format!(
                "host '{name}': speed and cores must be positive"
            )));
        }
        let h = HostId(self.hosts.len() as u32);
        let point = self.add_point(zone, name, PointKind::Host(h))?;
        self.hosts.push(Host {
            name: name.to_string(),
            speed,
            cores,
            point,
        });
        Ok(h)
    }

    /// Adds a router to `zone`.
    pub fn add_router(&mut self, zone: ZoneId, name: &str) -> Result<NetPointId, PlatformError> {
        self.add_point(zone, name, PointKind::Router)
    }

    /// Adds a link.
    pub fn add_link(
        &mut self,
        name: &str,
        bandwidth: f64,
        latency: f64,
        policy: Policy,
    ) -> Result<LinkId, PlatformError> {
        if !(bandwidth > 0.0 && bandwidth.is_finite()) {
            return Err(PlatformError::new(format!(
                "link '{name}': bandwidth must be positive, found {bandwidth}"
            )));
        }
        if !(latency >= 0.0 && latency.is_finite()) {
            return Err(PlatformError::new(format!(
                "link '{name}': latency must be non-negative, found {latency}"
            )));
        }
        if self.link_names.contains_key(name) {
            return Err(PlatformError::new(format!("link '{name}' is defined twice")));
        }
        let id = LinkId(self.links.len() as u32);
        self.links.push(Link {
            name: name.to_string(),
            bandwidth,
            latency,
            policy,
            partner: None,
        });
        self.link_names.insert(name.to_string(), id);
        Ok(id)
    }

    /// Adds a split-duplex link: two shared links `<name>_UP` and `<name>_DOWN`, one per
    /// direction. Returns (up, down).
    pub fn add_split_link(
        &mut self,
        name: &str,
        bandwidth: f64,
        latency: f64,
    ) -> Result<(LinkId, LinkId), PlatformError> {
        let up = self.add_link(&format!("{name}_UP"), bandwidth, latency, Policy::Shared)?;
        let down = self.add_link(&format!("{name}_DOWN"), bandwidth, latency, Policy::Shared)?;
        self.links[up.0 as usize].partner = Some(down);
        self.links[down.0 as usize].partner = Some(up);
        Ok((up, down))
    }

    /// Number of hosts.
    pub fn num_hosts(&self) -> usize {
        self.hosts.len()
    }

    /// All hosts, in creation order.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// A host.
    pub fn host(&self, h: HostId) -> &Host {
        &self.hosts[h.0 as usize]
    }

    /// All links.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// A link.
    pub fn link(&self, l: LinkId) -> &Link {
        &self.links[l.0 as usize]
    }

    /// A network point.
    pub fn point(&self, p: NetPointId) -> &NetPoint {
        &self.points[p.0 as usize]
    }

    /// All zones (the root first).
    pub fn zones(&self) -> &[Zone] {
        &self.zones
    }

    /// A zone.
    pub fn zone(&self, z: ZoneId) -> &Zone {
        &self.zones[z.0 as usize]
    }

    /// A zone, to configure its routing.
    pub fn zone_mut(&mut self, z: ZoneId) -> &mut Zone {
        &mut self.zones[z.0 as usize]
    }

    /// The link called `name`.
    pub fn link_by_name(&self, name: &str) -> Option<LinkId> {
        self.link_names.get(name).copied()
    }

    /// The host, router or zone point called `name`.
    pub fn point_by_name(&self, name: &str) -> Option<NetPointId> {
        self.point_names.get(name).copied()
    }

    /// The zone called `name`.
    pub fn zone_by_name(&self, name: &str) -> Option<ZoneId> {
        self.zone_names.get(name).copied()
    }

    /// The host called `name`.
    pub fn host_by_name(&self, name: &str) -> Option<HostId> {
        match self.point(self.point_by_name(name)?).kind {
            PointKind::Host(h) => Some(h),
            _ => None,
        }
    }

    /// The link to use when travelling `l` backwards (the other half of a split-duplex
    /// link, or `l` itself).
    pub fn reverse_link(&self, l: LinkId) -> LinkId {
        self.links[l.0 as usize].partner.unwrap_or(l)
    }
}
