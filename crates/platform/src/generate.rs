//! Generators of common machines: a flat cluster, cabinets of flat clusters, a fat tree,
//! a torus and a dragonfly. All per-node links can be split-duplex and get a limiter link
//! of `factor × bandwidth` shared by all of a node's flows (hybrid seed, section 4.2).

use crate::cluster::{add_cluster, check_hosts, cluster_platform, ClusterSpec, Radical, Sharing, Topology};
use crate::error::PlatformError;
use crate::model::{Platform, Policy};
use crate::zone::{TableKind, TableRoute, TableZone, ZoneRouting};

/// Bandwidth (bytes/s) and latency (s) of a link.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// Bytes per second.
    pub bandwidth: f64,
    /// Seconds.
    pub latency: f64,
}

/// What every generated node looks like.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    /// Flop/s per core.
    pub speed: f64,
    /// Cores per node.
    pub cores: u32,
    /// The node's private link (or the topology's links).
    pub link: LinkSpec,
    /// Sharing of those links.
    pub sharing: Sharing,
    /// Limiter link of `factor × link bandwidth` per node, if any.
    pub limiter_factor: Option<f64>,
    /// Loopback link per node, if any.
    pub loopback: Option<LinkSpec>,
}

/// The cluster of `hosts` nodes (`None`: past `u64`), if not too many.
fn spec(name: &str, hosts: Option<u64>, node: &NodeSpec, topology: Topology) -> Result<ClusterSpec, PlatformError> {
    let hosts = check_hosts(name, hosts)?;
    Ok(ClusterSpec {
        id: name.to_string(),
        prefix: "node-".into(),
        suffix: String::new(),
        radical: Radical::first_n(hosts),
        speed: node.speed,
        cores: node.cores,
        bw: node.link.bandwidth,
        lat: node.link.latency,
        sharing: node.sharing,
        backbone: None,
        limiter: node.limiter_factor.map(|f| f * node.link.bandwidth),
        loopback: node.loopback.map(|l| (l.bandwidth, l.latency)),
        topology,
        router_id: None,
    })
}

/// `hosts` nodes on one switch, with an optional backbone link all flows cross.
pub fn flat(
    name: &str,
    hosts: u64,
    node: &NodeSpec,
    backbone: Option<(LinkSpec, Policy)>,
) -> Result<Platform, PlatformError> {
    let mut s = spec(name, Some(hosts), node, Topology::Flat)?;
    s.backbone = backbone.map(|(l, p)| (l.bandwidth, l.latency, p));
    cluster_platform(&s)
}

/// A torus of `dims` nodes with dimension-order routing.
pub fn torus(name: &str, dims: &[u32], node: &NodeSpec) -> Result<Platform, PlatformError> {
    let t = Topology::Torus(dims.to_vec());
    cluster_platform(&spec(name, t.room().flatten(), node, t)?)
}

/// A fat tree with SimGrid's parameters (levels; down; up; count).
pub fn fat_tree(
    name: &str,
    levels: u32,
    down: &[u32],
    up: &[u32],
    count: &[u32],
    node: &NodeSpec,
) -> Result<Platform, PlatformError> {
    let t = Topology::FatTree {
        levels,
        down: down.to_vec(),
        up: up.to_vec(),
        count: count.to_vec(),
    };
    cluster_platform(&spec(name, t.room().flatten(), node, t)?)
}

/// A dragonfly: (groups, blue links), (chassis, black links), (blades, green links), nodes per blade.
pub fn dragonfly(
    name: &str,
    groups: (u32, u32),
    chassis: (u32, u32),
    blades: (u32, u32),
    nodes: u32,
    node: &NodeSpec,
) -> Result<Platform, PlatformError> {
    let t = Topology::Dragonfly {
        groups,
        chassis,
        blades,
        nodes,
    };
    cluster_platform(&spec(name, t.room().flatten(), node, t)?)
}

/// The most routes between cabinets [`cabinets`] lists (one per ordered pair: 1024
/// cabinets); each is stored.
pub const MAX_CABINET_ROUTES: u64 = 1 << 20;

/// Cabinets of flat clusters: each cabinet has a switch (a backbone link), and each is
/// joined to the others by its own split-duplex uplink plus a limiter link shared by
/// both directions of all its inter-cabinet traffic (the hybrid seed's model of the
/// graphene cabinets). Hosts are `cab<c>-<i>`.
pub fn cabinets(
    name: &str,
    cabinets: u32,
    per_cabinet: u64,
    node: &NodeSpec,
    cabinet_switch: LinkSpec,
    uplink: LinkSpec,
    uplink_limiter: Option<f64>,
) -> Result<Platform, PlatformError> {
    check_hosts(name, per_cabinet.checked_mul(cabinets as u64))?;
    // Every pair of cabinets gets a route.
    let routes = cabinets as u64 * cabinets as u64;
    if routes > MAX_CABINET_ROUTES {
        return Err(PlatformError::new(format!(
            "{cabinets} cabinets would need {routes} routes between them: at most {MAX_CABINET_ROUTES} are supported"
        )));
    }
    if cabinets == 0 {
        return Err(PlatformError::new("cabinets: at least one cabinet is needed"));
    }
    let mut p = Platform::new(name, ZoneRouting::Table(TableZone::new(TableKind::Full)));
    let root = p.root();
    let mut gates = Vec::new();
    for c in 0..cabinets {
        let mut s = spec(&format!("{name}_cab{c}"), Some(per_cabinet), node, Topology::Flat)?;
        s.prefix = format!("cab{c}-");
        s.backbone = Some((cabinet_switch.bandwidth, cabinet_switch.latency, Policy::Shared));
        s.router_id = Some(format!("cab{c}-router"));
        let z = add_cluster(&mut p, root, &s)?;
        let (up, down) = p.add_split_link(&format!("{name}_cab{c}_uplink"), uplink.bandwidth, uplink.latency)?;
        let lim = match uplink_limiter {
            Some(bw) => Some(p.add_link(&format!("{name}_cab{c}_limiter"), bw, 0.0, Policy::Shared)?),
            None => None,
        };
        let router = p.point_by_name(&format!("cab{c}-router")).unwrap();
        gates.push((z, up, down, lim, router));
    }
    for i in 0..gates.len() {
        for j in 0..gates.len() {
            if i == j {
                continue;
            }
            let (zi, up, _, li, ri) = gates[i];
            let (zj, _, down, lj, rj) = gates[j];
            let mut links = vec![up];
            links.extend(li);
            links.extend(lj);
            links.push(down);
            let (a, b) = (
                p.point(p.zone(zi).point.unwrap()).local,
                p.point(p.zone(zj).point.unwrap()).local,
            );
            let route = TableRoute {
                links,
                gateways: Some((ri, rj)),
            };
            let mut routing = std::mem::replace(
                &mut p.zone_mut(root).routing,
                ZoneRouting::Table(TableZone::new(TableKind::Full)),
            );
            if let ZoneRouting::Table(t) = &mut routing {
                t.add_route(&p, a, b, route, false).map_err(PlatformError::new)?;
            }
            p.zone_mut(root).routing = routing;
        }
    }
    p.seal()?;
    Ok(p)
}
