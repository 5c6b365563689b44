//! The platform's parts: hosts, links, network points and zones, and how to add them.
//!
//! Hosts, points and links added one by one are stored; those of a cluster are computed
//! by its block (see [`crate::cluster`]) from ids handed out in one run, so that a
//! cluster of millions of hosts costs no more memory than a small one. Accessors return
//! elements by value for that reason.

use crate::block::Block;
use crate::cluster::{ClusterSpec, Topology};
use crate::error::PlatformError;
use crate::ids::{IdSpace, Slot};
use crate::names::HostNames;
use crate::units::clip;
use crate::zone::{ClusterRef, ZoneRouting};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

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
    /// How routes between members are found.
    pub routing: ZoneRouting,
    /// Members in order of creation, as runs (first point, count): a cluster's hosts
    /// are one run.
    runs: Vec<(u32, u32)>,
    /// Members before each run.
    before: Vec<u32>,
    members: u32,
    depth: u32,
}

impl Zone {
    /// Number of members (hosts, routers, sub-zones).
    pub fn num_members(&self) -> u32 {
        self.members
    }

    /// Member `i` (`NetPoint::local` indexes members), if there is one.
    pub fn member(&self, i: u32) -> Option<NetPointId> {
        if i >= self.members {
            return None;
        }
        let k = self.before.partition_point(|&b| b <= i) - 1;
        Some(NetPointId(self.runs[k].0 + (i - self.before[k])))
    }

    /// The members, in order.
    pub fn members(&self) -> impl Iterator<Item = NetPointId> + '_ {
        self.runs
            .iter()
            .flat_map(|&(first, n)| (first..first + n).map(NetPointId))
    }

    /// How deep the zone is (the root is at depth 0).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    fn push_members(&mut self, first: u32, n: u32) {
        match self.runs.last_mut() {
            Some((f, c)) if *f + *c == first => *c += n,
            _ => {
                self.runs.push((first, n));
                self.before.push(self.members);
            }
        }
        self.members += n;
    }
}

/// The deepest zone nesting accepted: real platforms nest a few levels; a route between
/// two hosts crosses every level between them.
pub const MAX_ZONE_DEPTH: u32 = 100;

/// A whole platform. Build it with the `add_*` methods or load it from a file.
#[derive(Clone, Debug)]
pub struct Platform {
    pub(crate) zones: Vec<Zone>,
    pub(crate) blocks: Vec<Block>,
    hosts: Vec<Host>,
    pub(crate) host_ids: IdSpace,
    points: Vec<NetPoint>,
    point_ids: IdSpace,
    links: Vec<Link>,
    link_ids: IdSpace,
    link_names: BTreeMap<String, LinkId>,
    point_names: BTreeMap<String, NetPointId>,
    zone_names: HashMap<String, ZoneId>,
    host_names: HostNames,
    /// Cluster id -> block, and the lengths of cluster ids (to find a block's link).
    block_ids: HashMap<String, u32>,
    block_id_lens: BTreeSet<usize>,
    implicit_loopback: Option<LinkId>,
    warnings: Vec<PlatformError>,
    all_hosts: OnceLock<Vec<Host>>,
    all_links: OnceLock<Vec<Link>>,
    shared_cores: Option<u32>,
}

impl Platform {
    /// A platform whose root zone is `name`, routed by `routing`.
    pub fn new(name: &str, routing: ZoneRouting) -> Platform {
        let mut p = Platform {
            zones: Vec::new(),
            blocks: Vec::new(),
            hosts: Vec::new(),
            host_ids: IdSpace::default(),
            points: Vec::new(),
            point_ids: IdSpace::default(),
            links: Vec::new(),
            link_ids: IdSpace::default(),
            link_names: BTreeMap::new(),
            point_names: BTreeMap::new(),
            zone_names: HashMap::new(),
            host_names: HostNames::default(),
            block_ids: HashMap::new(),
            block_id_lens: BTreeSet::new(),
            implicit_loopback: None,
            warnings: Vec::new(),
            all_hosts: OnceLock::new(),
            all_links: OnceLock::new(),
            shared_cores: None,
        };
        p.zones.push(Zone {
            name: name.to_string(),
            parent: None,
            point: None,
            routing: pending(routing),
            runs: Vec::new(),
            before: Vec::new(),
            members: 0,
            depth: 0,
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
            return Err(PlatformError::new(format!("zone '{}' is defined twice", clip(name))));
        }
        let depth = self.zone(parent).depth + 1;
        if depth > MAX_ZONE_DEPTH {
            return Err(PlatformError::new(format!(
                "zone '{}' is nested {depth} deep: at most {MAX_ZONE_DEPTH} levels are supported",
                clip(name)
            )));
        }
        let z = ZoneId(self.zones.len() as u32);
        let point = self.add_point(parent, name, PointKind::Zone(z))?;
        self.zones.push(Zone {
            name: name.to_string(),
            parent: Some(parent),
            point: Some(point),
            routing: pending(routing),
            runs: Vec::new(),
            before: Vec::new(),
            members: 0,
            depth,
        });
        self.zone_names.insert(name.to_string(), z);
        Ok(z)
    }

    fn add_point(&mut self, zone: ZoneId, name: &str, kind: PointKind) -> Result<NetPointId, PlatformError> {
        if self.point_names.contains_key(name) || self.host_names.find(name).is_some() {
            return Err(PlatformError::new(format!(
                "'{}' is defined twice (hosts, routers and zones share names)",
                clip(name)
            )));
        }
        if self.point_ids.len() == u32::MAX - 1 {
            return Err(PlatformError::new(
                "the platform has more than 2^32 hosts, routers and zones",
            ));
        }
        let id = NetPointId(self.point_ids.push_stored());
        let local = self.zones[zone.0 as usize].members;
        self.points.push(NetPoint {
            name: name.to_string(),
            kind,
            zone,
            local,
        });
        self.zones[zone.0 as usize].push_members(id.0, 1);
        self.point_names.insert(name.to_string(), id);
        Ok(id)
    }

    /// Adds a host to `zone`.
    pub fn add_host(&mut self, zone: ZoneId, name: &str, speed: f64, cores: u32) -> Result<HostId, PlatformError> {
        if !(speed > 0.0 && speed.is_finite()) || cores == 0 {
            return Err(PlatformError::new(format!(
                "host '{}': speed and cores must be positive",
                clip(name)
            )));
        }
        self.all_hosts = OnceLock::new();
        let point = self.add_point(zone, name, PointKind::Host(HostId(self.host_ids.len())))?;
        let h = HostId(self.host_ids.push_stored());
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
                "link '{}': bandwidth must be positive, found {bandwidth}",
                clip(name)
            )));
        }
        if !(latency >= 0.0 && latency.is_finite()) {
            return Err(PlatformError::new(format!(
                "link '{}': latency must be non-negative, found {latency}",
                clip(name)
            )));
        }
        if self.link_by_name(name).is_some() {
            return Err(PlatformError::new(format!("link '{}' is defined twice", clip(name))));
        }
        if self.link_ids.len() == u32::MAX - 1 {
            return Err(PlatformError::new("the platform has more than 2^32 links"));
        }
        self.all_links = OnceLock::new();
        let id = LinkId(self.link_ids.push_stored());
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
        let (Slot::Stored(u), Slot::Stored(d)) = (self.link_ids.locate(up.0), self.link_ids.locate(down.0)) else {
            unreachable!("links added one by one are stored")
        };
        self.links[u as usize].partner = Some(down);
        self.links[d as usize].partner = Some(up);
        Ok((up, down))
    }

    /// Lays out the cluster `spec` in `zone` (a new cluster zone): its hosts, their
    /// points and its links as one block of ids each, and, for a flat cluster, its
    /// router. Nothing is built per host.
    pub(crate) fn add_block(&mut self, zone: ZoneId, spec: &ClusterSpec) -> Result<(), PlatformError> {
        let z = &self.zones[zone.0 as usize];
        if !matches!(z.routing, ZoneRouting::Cluster(c) if c == ClusterRef::PENDING) || z.members != 0 {
            return Err(PlatformError::new(format!(
                "cluster '{}' must be laid out in a new cluster zone",
                clip(&spec.id)
            )));
        }
        let b = self.blocks.len() as u32;
        let block = Block::new(
            spec,
            zone,
            self.host_ids.len(),
            self.point_ids.len(),
            z.members,
            self.link_ids.len(),
        )?;
        if self.point_ids.len() as u64 + block.n as u64 >= u32::MAX as u64 - 1 {
            return Err(PlatformError::new(
                "the platform has more than 2^32 hosts, routers and zones",
            ));
        }
        // Names this cluster would give twice: with another cluster's hosts, with hosts,
        // routers or zones added one by one, and with links added one by one.
        self.host_names
            .add(b, &spec.prefix, &spec.suffix, &spec.radical)
            .map_err(PlatformError::new)?;
        for (name, _) in self.point_names.range(spec.prefix.clone()..) {
            if !name.starts_with(spec.prefix.as_str()) {
                break;
            }
            if block.host_index(name).is_some() {
                return Err(PlatformError::new(format!(
                    "'{}' is defined twice (hosts, routers and zones share names)",
                    clip(name)
                )));
            }
        }
        let stem = format!("{}_", spec.id);
        for (name, _) in self.link_names.range(stem.clone()..) {
            if !name.starts_with(stem.as_str()) {
                break;
            }
            if block.link_offset(name).is_some() {
                return Err(PlatformError::new(format!("link '{}' is defined twice", clip(name))));
            }
        }
        self.all_hosts = OnceLock::new();
        self.all_links = OnceLock::new();
        self.host_ids.push_block(b, block.n);
        self.point_ids.push_block(b, block.n);
        self.link_ids.push_block(b, block.nlinks);
        let zone_mut = &mut self.zones[zone.0 as usize];
        zone_mut.push_members(block.point0, block.n);
        zone_mut.routing = ZoneRouting::Cluster(ClusterRef(b));
        self.block_ids.insert(spec.id.clone(), b);
        self.block_id_lens.insert(spec.id.len());
        self.blocks.push(block);
        if spec.topology == Topology::Flat {
            let router = spec
                .router_id
                .clone()
                .unwrap_or_else(|| format!("{}{}_router{}", spec.prefix, spec.id, spec.suffix));
            self.add_router(zone, &router)?;
        }
        Ok(())
    }

    /// The block of a cluster zone.
    pub(crate) fn block(&self, c: ClusterRef) -> Option<&Block> {
        self.blocks.get(c.0 as usize)
    }

    /// The link routes use for a host to talk to itself when nothing else is given
    /// (created when the platform is sealed, if needed).
    pub fn implicit_loopback(&self) -> Option<LinkId> {
        self.implicit_loopback
    }

    pub(crate) fn set_implicit_loopback(&mut self, l: LinkId) {
        self.implicit_loopback = Some(l);
    }

    /// Number of hosts.
    pub fn num_hosts(&self) -> usize {
        self.host_ids.len() as usize
    }

    /// Number of links (each half of a split-duplex link counts).
    pub fn num_links(&self) -> usize {
        self.link_ids.len() as usize
    }

    /// All hosts, in creation order. This builds every cluster host: on a platform of
    /// millions of hosts prefer [`Platform::num_hosts`] and [`Platform::host`].
    pub fn hosts(&self) -> &[Host] {
        self.all_hosts
            .get_or_init(|| (0..self.host_ids.len()).map(|h| self.host(HostId(h))).collect())
    }

    /// A host.
    pub fn host(&self, h: HostId) -> Host {
        match self.host_ids.locate(h.0) {
            Slot::Stored(i) => self.hosts[i as usize].clone(),
            Slot::Block(b, i) => {
                let b = &self.blocks[b as usize];
                Host {
                    name: b.host_name(i),
                    speed: b.spec.speed,
                    cores: b.spec.cores,
                    point: NetPointId(b.point0 + i),
                }
            }
        }
    }

    /// A host's name.
    pub fn host_name(&self, h: HostId) -> String {
        match self.host_ids.locate(h.0) {
            Slot::Stored(i) => self.hosts[i as usize].name.clone(),
            Slot::Block(b, i) => self.blocks[b as usize].host_name(i),
        }
    }

    /// If every host runs on one machine (an emulated cluster such as `simpi testbed`),
    /// that machine's cores: all ranks share them, whatever host they are on.
    pub fn shared_cores(&self) -> Option<u32> {
        self.shared_cores
    }

    /// Declares that every host runs on one machine with `cores` cores (`None`: each
    /// host has its own cores).
    pub fn set_shared_cores(&mut self, cores: Option<u32>) {
        self.shared_cores = cores.map(|c| c.max(1));
    }

    /// A host's speed per core, flop/s.
    pub fn host_speed(&self, h: HostId) -> f64 {
        match self.host_ids.locate(h.0) {
            Slot::Stored(i) => self.hosts[i as usize].speed,
            Slot::Block(b, _) => self.blocks[b as usize].spec.speed,
        }
    }

    /// A host's network point.
    pub fn host_point(&self, h: HostId) -> NetPointId {
        match self.host_ids.locate(h.0) {
            Slot::Stored(i) => self.hosts[i as usize].point,
            Slot::Block(b, i) => NetPointId(self.blocks[b as usize].point0 + i),
        }
    }

    /// Speed and cores of every kind of host, without listing cluster hosts one by one.
    pub(crate) fn host_kinds(&self) -> impl Iterator<Item = (f64, u64)> + '_ {
        self.hosts.iter().map(|h| (h.speed, h.cores as u64)).chain(
            self.blocks
                .iter()
                .map(|b| (b.spec.speed, b.spec.cores as u64 * b.n as u64)),
        )
    }

    /// All links. This builds every cluster link: on a platform of millions of links
    /// prefer [`Platform::num_links`] and [`Platform::link`].
    pub fn links(&self) -> &[Link] {
        self.all_links
            .get_or_init(|| (0..self.link_ids.len()).map(|l| self.link(LinkId(l))).collect())
    }

    /// A link.
    pub fn link(&self, l: LinkId) -> Link {
        match self.link_ids.locate(l.0) {
            Slot::Stored(i) => self.links[i as usize].clone(),
            Slot::Block(b, k) => self.blocks[b as usize].link(k),
        }
    }

    /// A link's bandwidth, bytes/s.
    pub fn link_bandwidth(&self, l: LinkId) -> f64 {
        match self.link_ids.locate(l.0) {
            Slot::Stored(i) => self.links[i as usize].bandwidth,
            Slot::Block(b, k) => self.blocks[b as usize].link_attributes(k).0,
        }
    }

    /// A link's latency, seconds.
    pub fn link_latency(&self, l: LinkId) -> f64 {
        match self.link_ids.locate(l.0) {
            Slot::Stored(i) => self.links[i as usize].latency,
            Slot::Block(b, k) => self.blocks[b as usize].link_attributes(k).1,
        }
    }

    /// A link's sharing policy.
    pub fn link_policy(&self, l: LinkId) -> Policy {
        match self.link_ids.locate(l.0) {
            Slot::Stored(i) => self.links[i as usize].policy,
            Slot::Block(b, k) => self.blocks[b as usize].link_attributes(k).2,
        }
    }

    /// Bandwidths of every kind of link (for summaries), without listing cluster links
    /// one by one: stored links, and each cluster's distinct link kinds.
    pub(crate) fn link_bandwidths(&self) -> impl Iterator<Item = f64> + '_ {
        self.links
            .iter()
            .map(|l| l.bandwidth)
            .chain(self.blocks.iter().flat_map(|b| b.bandwidths()))
    }

    /// A network point.
    pub fn point(&self, p: NetPointId) -> NetPoint {
        match self.point_ids.locate(p.0) {
            Slot::Stored(i) => self.points[i as usize].clone(),
            Slot::Block(b, i) => {
                let b = &self.blocks[b as usize];
                NetPoint {
                    name: b.host_name(i),
                    kind: PointKind::Host(HostId(b.host0 + i)),
                    zone: b.zone,
                    local: b.local0 + i,
                }
            }
        }
    }

    /// A point's kind, zone and index among the zone's members, without its name.
    pub(crate) fn point_place(&self, p: NetPointId) -> (PointKind, ZoneId, u32) {
        match self.point_ids.locate(p.0) {
            Slot::Stored(i) => {
                let pt = &self.points[i as usize];
                (pt.kind, pt.zone, pt.local)
            }
            Slot::Block(b, i) => {
                let b = &self.blocks[b as usize];
                (PointKind::Host(HostId(b.host0 + i)), b.zone, b.local0 + i)
            }
        }
    }

    /// A point's name.
    pub fn point_name(&self, p: NetPointId) -> String {
        match self.point_ids.locate(p.0) {
            Slot::Stored(i) => self.points[i as usize].name.clone(),
            Slot::Block(b, i) => self.blocks[b as usize].host_name(i),
        }
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
        if let Some(&l) = self.link_names.get(name) {
            return Some(l);
        }
        // A cluster's links are named `<cluster id>_...`.
        for &len in &self.block_id_lens {
            if len >= name.len() || name.as_bytes()[len] != b'_' || !name.is_char_boundary(len) {
                continue;
            }
            if let Some(&b) = self.block_ids.get(&name[..len]) {
                let b = &self.blocks[b as usize];
                if let Some(k) = b.link_offset(name) {
                    return Some(LinkId(b.link0 + k));
                }
            }
        }
        None
    }

    /// The host, router or zone point called `name`.
    pub fn point_by_name(&self, name: &str) -> Option<NetPointId> {
        if let Some(&p) = self.point_names.get(name) {
            return Some(p);
        }
        let (b, v) = self.host_names.find(name)?;
        let b = &self.blocks[b as usize];
        let i = b.spec.radical.index_of(v)?;
        Some(NetPointId(b.point0 + i as u32))
    }

    /// The zone called `name`.
    pub fn zone_by_name(&self, name: &str) -> Option<ZoneId> {
        self.zone_names.get(name).copied()
    }

    /// The host called `name`.
    pub fn host_by_name(&self, name: &str) -> Option<HostId> {
        match self.point_place(self.point_by_name(name)?).0 {
            PointKind::Host(h) => Some(h),
            _ => None,
        }
    }

    /// The link to use when travelling `l` backwards (the other half of a split-duplex
    /// link, or `l` itself).
    pub fn reverse_link(&self, l: LinkId) -> LinkId {
        match self.link_ids.locate(l.0) {
            Slot::Stored(i) => self.links[i as usize].partner.unwrap_or(l),
            Slot::Block(b, k) => {
                let b = &self.blocks[b as usize];
                LinkId(b.link0 + b.reverse(k))
            }
        }
    }

    /// What the platform's reader accepted with a warning (unit-less values, deprecated
    /// spellings), each with its place.
    pub fn warnings(&self) -> &[PlatformError] {
        &self.warnings
    }

    /// Records a warning.
    pub(crate) fn warn(&mut self, w: PlatformError) {
        self.warnings.push(w);
    }
}

/// A cluster zone's routing waits for its block.
fn pending(r: ZoneRouting) -> ZoneRouting {
    match r {
        ZoneRouting::Cluster(_) => ZoneRouting::Cluster(ClusterRef::PENDING),
        other => other,
    }
}
