//! Clusters the way SimGrid's `<cluster>` builds them: hosts `prefix N suffix`, a private
//! link per host (shared, fat pipe, or split-duplex up/down), and optionally a backbone,
//! per-host limiter links and loopbacks — over a flat switch, a torus, a fat tree or a
//! dragonfly. Link names follow SimGrid's, so routes can be compared link by link.

use crate::error::PlatformError;
use crate::model::{LinkId, Platform, Policy, ZoneId};
use crate::zone::dragonfly::DfRouter;
use crate::zone::{DragonflyZone, FatTreeZone, StarZone, TorusZone, ZoneRouting};

/// How a cluster's private (and inter-switch) links share bandwidth.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// One link, shared by both directions.
    Shared,
    /// Two links, `_UP` and `_DOWN`, one per direction (SimGrid's default).
    SplitDuplex,
    /// One link every flow may use entirely.
    Fatpipe,
}

/// The interconnect of a cluster.
#[derive(Clone, Debug, PartialEq)]
pub enum Topology {
    /// A single switch (a star).
    Flat,
    /// A torus of these dimensions.
    Torus(Vec<u32>),
    /// A fat tree: levels, children per switch, parents per node, parallel links.
    FatTree {
        /// Number of switch levels.
        levels: u32,
        /// Children per level-(i+1) switch.
        down: Vec<u32>,
        /// Parents per level-i node.
        up: Vec<u32>,
        /// Parallel links per parent.
        count: Vec<u32>,
    },
    /// A dragonfly: (groups, blue links), (chassis, black links), (blades, green links), nodes per blade.
    Dragonfly {
        /// Groups and links between groups.
        groups: (u32, u32),
        /// Chassis per group and links between chassis.
        chassis: (u32, u32),
        /// Blades (routers) per chassis and links between blades.
        blades: (u32, u32),
        /// Nodes per blade.
        nodes: u32,
    },
}

impl Topology {
    /// Number of hosts the topology has room for (`u64::MAX` if that overflows).
    pub fn hosts(&self) -> Option<u64> {
        self.room().map(|n| n.unwrap_or(u64::MAX))
    }

    /// Number of hosts the topology has room for: `None` for a flat one, `Some(None)`
    /// past `u64`.
    pub(crate) fn room(&self) -> Option<Option<u64>> {
        let product = |v: &[u32]| v.iter().try_fold(1u64, |a, &x| a.checked_mul(x as u64));
        match self {
            Topology::Flat => None,
            Topology::Torus(d) => Some(product(d)),
            Topology::FatTree { down, .. } => Some(product(down)),
            Topology::Dragonfly {
                groups,
                chassis,
                blades,
                nodes,
            } => Some(product(&[groups.0, chassis.0, blades.0, *nodes])),
        }
    }

    /// Number of links (a split-duplex pair counts once) and switches the topology
    /// builds between `hosts` hosts, or `None` past `u64`.
    fn size(&self, hosts: u64) -> Option<u64> {
        let product = |v: &[u32]| v.iter().try_fold(1u64, |a, &x| a.checked_mul(x as u64));
        match self {
            Topology::Flat => Some(hosts),
            Topology::Torus(d) => hosts.checked_mul(d.len() as u64),
            Topology::FatTree { down, up, count, .. } => {
                // Level i holds up[..i] x down[i..] nodes; each has up[i] x count[i] uplinks.
                let mut total = 0u64;
                for i in 0..down.len().min(up.len()).min(count.len()) {
                    let nodes = product(&up[..i])?.checked_mul(product(&down[i..])?)?;
                    let links = nodes.checked_mul(up[i] as u64)?.checked_mul(count[i] as u64)?;
                    total = total.checked_add(nodes)?.checked_add(links)?;
                }
                total.checked_add(product(up)?)
            }
            Topology::Dragonfly {
                groups,
                chassis,
                blades,
                ..
            } => {
                // Routers, node links, and all-to-all links in blades, chassis and groups.
                let (g, c, b) = (groups.0 as u64, chassis.0 as u64, blades.0 as u64);
                let routers = g.checked_mul(c)?.checked_mul(b)?;
                let green = routers.checked_mul(b / 2 + 1)?;
                let black = routers.checked_mul(c / 2 + 1)?;
                let blue = g.checked_mul(g / 2 + 1)?;
                routers
                    .checked_add(hosts)?
                    .checked_add(green)?
                    .checked_add(black)?
                    .checked_add(blue)
            }
        }
    }
}

/// The most hosts a cluster or generated platform may have (one of 2^24 hosts takes
/// about 14 GB): a larger number is a typo, reported before anything is built.
pub const MAX_HOSTS: u64 = 1 << 24;

/// The most links and switches a cluster's topology may build.
pub const MAX_LINKS: u64 = 1 << 26;

/// An error unless `hosts` (`None`: past `u64`) is at most [`MAX_HOSTS`].
pub fn check_hosts(id: &str, hosts: Option<u64>) -> Result<u64, PlatformError> {
    match hosts {
        Some(n) if n <= MAX_HOSTS => Ok(n),
        _ => Err(PlatformError::new(format!(
            "cluster '{id}' has {} hosts: at most {MAX_HOSTS} are supported",
            hosts.map_or("more than 2^64".to_string(), |n| n.to_string())
        ))),
    }
}

/// Everything that describes a cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterSpec {
    /// Zone name; prefix of link names.
    pub id: String,
    /// Host name prefix.
    pub prefix: String,
    /// Host name suffix.
    pub suffix: String,
    /// Host numbers (`prefix N suffix`).
    pub radical: Vec<u64>,
    /// Host speed, flop/s.
    pub speed: f64,
    /// Cores per host.
    pub cores: u32,
    /// Private / inter-switch link bandwidth, bytes/s.
    pub bw: f64,
    /// Private / inter-switch link latency, seconds.
    pub lat: f64,
    /// Sharing of private / inter-switch links.
    pub sharing: Sharing,
    /// Backbone (flat clusters): bandwidth, latency, policy.
    pub backbone: Option<(f64, f64, Policy)>,
    /// Per-host (and per-switch) limiter link bandwidth.
    pub limiter: Option<f64>,
    /// Per-host loopback link: bandwidth, latency.
    pub loopback: Option<(f64, f64)>,
    /// The interconnect.
    pub topology: Topology,
    /// Name of the flat cluster's router (default `prefix id _router suffix`).
    pub router_id: Option<String>,
}

impl ClusterSpec {
    /// A flat cluster of `n` hosts `node-0..node-(n-1)` with split-duplex private links.
    pub fn flat(id: &str, n: u64, speed: f64, bw: f64, lat: f64) -> ClusterSpec {
        ClusterSpec {
            id: id.to_string(),
            prefix: "node-".into(),
            suffix: String::new(),
            radical: (0..n).collect(),
            speed,
            cores: 1,
            bw,
            lat,
            sharing: Sharing::SplitDuplex,
            backbone: None,
            limiter: None,
            loopback: None,
            topology: Topology::Flat,
            router_id: None,
        }
    }
}

/// A platform whose root zone is the cluster.
pub fn cluster_platform(spec: &ClusterSpec) -> Result<Platform, PlatformError> {
    let mut p = Platform::new(&spec.id, ZoneRouting::Star(StarZone::default()));
    fill(&mut p, ZoneId(0), spec)?;
    p.seal()?;
    Ok(p)
}

/// Adds the cluster as a sub-zone of `parent`.
pub fn add_cluster(p: &mut Platform, parent: ZoneId, spec: &ClusterSpec) -> Result<ZoneId, PlatformError> {
    let z = p.add_zone(parent, &spec.id, ZoneRouting::Star(StarZone::default()))?;
    fill(p, z, spec)?;
    Ok(z)
}

fn link(p: &mut Platform, name: &str, bw: f64, lat: f64, sharing: Sharing) -> Result<(LinkId, LinkId), PlatformError> {
    match sharing {
        Sharing::SplitDuplex => p.add_split_link(name, bw, lat),
        Sharing::Shared => p.add_link(name, bw, lat, Policy::Shared).map(|l| (l, l)),
        Sharing::Fatpipe => p.add_link(name, bw, lat, Policy::Fatpipe).map(|l| (l, l)),
    }
}

fn fill(p: &mut Platform, z: ZoneId, spec: &ClusterSpec) -> Result<(), PlatformError> {
    let n = check_hosts(&spec.id, Some(spec.radical.len() as u64))?;
    if let Some(want) = spec.topology.hosts() {
        if want != n {
            return Err(PlatformError::new(format!(
                "cluster '{}': the topology has room for {want} hosts but the radical lists {n}",
                spec.id
            )));
        }
    }
    match spec.topology.size(n) {
        Some(k) if k <= MAX_LINKS => {}
        k => {
            return Err(PlatformError::new(format!(
                "cluster '{}': the topology would build about {} links and switches: at most {MAX_LINKS} are supported",
                spec.id,
                k.map_or("more than 2^64".to_string(), |k| k.to_string())
            )))
        }
    }
    let id = &spec.id;
    let mut loopbacks = Vec::new();
    let mut limiters = Vec::new();
    let mut hosts = Vec::new();
    for (rank, &r) in spec.radical.iter().enumerate() {
        let name = format!("{}{}{}", spec.prefix, r, spec.suffix);
        hosts.push(p.add_host(z, &name, spec.speed, spec.cores)?);
        loopbacks.push(match spec.loopback {
            Some((bw, lat)) => Some(p.add_link(&format!("{id}_link_{r}_loopback"), bw, lat, Policy::Fatpipe)?),
            None => None,
        });
        let lim_name = match spec.topology {
            Topology::Flat | Topology::FatTree { .. } | Topology::Dragonfly { .. } => format!("{id}_link_{r}_limiter"),
            Topology::Torus(_) => format!("{id}_link_{rank}_limiter"),
        };
        limiters.push(match spec.limiter {
            Some(bw) => Some(p.add_link(&lim_name, bw, 0.0, Policy::Shared)?),
            None => None,
        });
    }
    let routing = match &spec.topology {
        Topology::Flat => flat(p, z, spec, &loopbacks, &limiters)?,
        Topology::Torus(dims) => {
            let mut links = Vec::new();
            for (rank, &r) in spec.radical.iter().enumerate() {
                for j in 0..dims.len() {
                    let nbr = TorusZone::neighbour(dims, rank as u32, j);
                    links.push(link(
                        p,
                        &format!("{id}_link_from_{r}_to_{nbr}"),
                        spec.bw,
                        spec.lat,
                        spec.sharing,
                    )?);
                }
            }
            ZoneRouting::Torus(TorusZone::new(dims.clone(), links, loopbacks, limiters))
        }
        Topology::FatTree {
            levels,
            down,
            up,
            count,
        } => fat_tree(p, spec, *levels, down, up, count, &loopbacks, &limiters)?,
        Topology::Dragonfly {
            groups,
            chassis,
            blades,
            nodes,
        } => dragonfly(p, spec, *groups, *chassis, *blades, *nodes, loopbacks, limiters)?,
    };
    p.zone_mut(z).routing = routing;
    Ok(())
}

fn flat(
    p: &mut Platform,
    z: ZoneId,
    spec: &ClusterSpec,
    loopbacks: &[Option<LinkId>],
    limiters: &[Option<LinkId>],
) -> Result<ZoneRouting, PlatformError> {
    let id = &spec.id;
    let backbone = match spec.backbone {
        Some((bw, lat, policy)) => Some(p.add_link(&format!("{id}_backbone"), bw, lat, policy)?),
        None => None,
    };
    let mut star = StarZone::default();
    for (i, &r) in spec.radical.iter().enumerate() {
        let (up, down) = link(p, &format!("{id}_link_{r}"), spec.bw, spec.lat, spec.sharing)?;
        let mut ups: Vec<LinkId> = limiters[i].into_iter().collect();
        ups.push(up);
        ups.extend(backbone);
        let mut downs: Vec<LinkId> = backbone.into_iter().collect();
        downs.push(down);
        downs.extend(limiters[i]);
        star.set_member(i as u32, ups, downs, loopbacks[i]);
    }
    let router = spec
        .router_id
        .clone()
        .unwrap_or_else(|| format!("{}{}_router{}", spec.prefix, spec.id, spec.suffix));
    p.add_router(z, &router)?;
    Ok(ZoneRouting::Star(star))
}

#[allow(clippy::too_many_arguments)]
fn fat_tree(
    p: &mut Platform,
    spec: &ClusterSpec,
    levels: u32,
    down: &[u32],
    up: &[u32],
    count: &[u32],
    loopbacks: &[Option<LinkId>],
    limiters: &[Option<LinkId>],
) -> Result<ZoneRouting, PlatformError> {
    let l = levels as usize;
    if l == 0
        || down.len() != l
        || up.len() != l
        || count.len() != l
        || [down, up, count].iter().any(|v| v.contains(&0))
    {
        return Err(PlatformError::new(format!(
            "cluster '{}': fat tree parameters need {l} positive values in each of down, up and count",
            spec.id
        )));
    }
    let mut ft = FatTreeZone::new(levels, down.to_vec(), up.to_vec(), count.to_vec());
    let n = spec.radical.len();
    for i in 0..n {
        ft.nodes[i].loopback = loopbacks[i];
        ft.nodes[i].limiter = limiters[i];
    }
    // Switch ids count down from 2n-1 (SimGrid's numbering, used in names).
    let switch_id = |idx: usize| 2 * n - 1 - (idx - n);
    if let Some(bw) = spec.limiter {
        for idx in n..ft.nodes.len() {
            ft.nodes[idx].limiter = Some(p.add_link(
                &format!("{}_link_{}_limiter", spec.id, switch_id(idx)),
                bw,
                0.0,
                Policy::Shared,
            )?);
        }
    }
    let node_id = |idx: usize| {
        if idx < n {
            spec.radical[idx] as usize
        } else {
            switch_id(idx)
        }
    };
    let mut unique = 0;
    for child in 0..ft.nodes.len() {
        let lvl = ft.nodes[child].level;
        if lvl >= levels {
            break;
        }
        let start = ft.level_start(lvl + 1);
        let end = ft.level_start(lvl + 2);
        for parent in start..end {
            if !ft.related(parent, child) {
                continue;
            }
            for j in 0..count[lvl as usize] {
                let name = format!(
                    "{}_link_from_{}_{}_{}",
                    spec.id,
                    node_id(child),
                    node_id(parent),
                    unique
                );
                unique += 1;
                let (lu, ld) = link(p, &name, spec.bw, spec.lat, spec.sharing)?;
                let pp = (ft.nodes[child].label[lvl as usize] + j * down[lvl as usize]) as usize;
                let cp = (ft.nodes[parent].label[lvl as usize] + j * up[lvl as usize]) as usize;
                ft.connect(parent, pp, child, cp, lu, ld);
            }
        }
    }
    Ok(ZoneRouting::FatTree(ft))
}

#[allow(clippy::too_many_arguments)]
fn dragonfly(
    p: &mut Platform,
    spec: &ClusterSpec,
    groups: (u32, u32),
    chassis: (u32, u32),
    blades: (u32, u32),
    nodes: u32,
    loopback: Vec<Option<LinkId>>,
    limiter: Vec<Option<LinkId>>,
) -> Result<ZoneRouting, PlatformError> {
    let (g, c, b) = (groups.0, chassis.0, blades.0);
    if [g, c, b, nodes].contains(&0) {
        return Err(PlatformError::new(format!(
            "cluster '{}': dragonfly sizes must be positive",
            spec.id
        )));
    }
    let id = &spec.id;
    let mut routers = Vec::new();
    for gi in 0..g {
        for ci in 0..c {
            for bi in 0..b {
                let lim = match spec.limiter {
                    Some(bw) => {
                        Some(p.add_link(&format!("{id}_router_{gi}_{ci}_{bi}_limiter"), bw, 0.0, Policy::Shared)?)
                    }
                    None => None,
                };
                routers.push(DfRouter {
                    coords: (gi, ci, bi),
                    nodes: Vec::new(),
                    green: vec![None; b as usize],
                    black: vec![None; c as usize],
                    blue: None,
                    limiter: lim,
                });
            }
        }
    }
    let mut unique = 0;
    let mut mk = |p: &mut Platform, what: String, mult: u32| -> Result<(LinkId, LinkId), PlatformError> {
        let name = format!("{id}_{what}_{unique}");
        unique += 1;
        link(p, &name, spec.bw * mult as f64, spec.lat, spec.sharing)
    };
    for (i, r) in routers.iter_mut().enumerate() {
        for j in 0..nodes {
            r.nodes
                .push(mk(p, format!("local_link_from_router_{i}_to_node_{j}"), 1)?);
        }
    }
    for gc in 0..(g * c) as usize {
        for j in 0..b as usize {
            for k in j + 1..b as usize {
                let (u, d) = mk(
                    p,
                    format!("green_link_in_chassis_{}_between_routers_{j}_and_{k}", gc % c as usize),
                    blades.1,
                )?;
                routers[gc * b as usize + j].green[k] = Some(u);
                routers[gc * b as usize + k].green[j] = Some(d);
            }
        }
    }
    for gi in 0..g as usize {
        for j in 0..c as usize {
            for k in j + 1..c as usize {
                for l in 0..b as usize {
                    let (u, d) = mk(
                        p,
                        format!("black_link_in_group_{gi}_between_chassis_{j}_and_{k}_blade_{l}"),
                        chassis.1,
                    )?;
                    let base = gi * (b * c) as usize;
                    routers[base + j * b as usize + l].black[k] = Some(u);
                    routers[base + k * b as usize + l].black[j] = Some(d);
                }
            }
        }
    }
    for i in 0..g as usize {
        for j in i + 1..g as usize {
            let ri = i * (b * c) as usize + j;
            let rj = j * (b * c) as usize + i;
            if ri >= routers.len() || rj >= routers.len() || j >= (b * c) as usize {
                return Err(PlatformError::new(format!(
                    "cluster '{id}': a dragonfly with {g} groups needs at least {} routers per group (chassis x blades) for its blue links",
                    g
                )));
            }
            let (u, d) = mk(
                p,
                format!("blue_link_between_group_{i}_and_{j}_routers_{ri}_and_{rj}"),
                groups.1,
            )?;
            routers[ri].blue = Some(u);
            routers[rj].blue = Some(d);
        }
    }
    Ok(ZoneRouting::Dragonfly(DragonflyZone {
        shape: (g, c, b, nodes),
        routers,
        loopback,
        limiter,
    }))
}
