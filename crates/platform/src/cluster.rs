//! Clusters the way SimGrid's `<cluster>` builds them: hosts `prefix N suffix`, a private
//! link per host (shared, fat pipe, or split-duplex up/down), and optionally a backbone,
//! per-host limiter links and loopbacks — over a flat switch, a torus, a fat tree or a
//! dragonfly. Link names follow SimGrid's, so routes can be compared link by link.
//!
//! A cluster is not built element by element: it is a block (see `block.rs`) that
//! numbers its hosts, their network points and its links in consecutive ids and computes
//! any of them (name, bandwidth, latency, the other half of a split-duplex link) from its
//! description on demand. A cluster of millions of hosts costs the same memory as one of four, and
//! routes are computed only between the hosts that communicate.

use crate::error::PlatformError;
use crate::model::{Platform, Policy, ZoneId};
pub use crate::radical::Radical;
use crate::units::clip;
use crate::zone::{ClusterRef, ZoneRouting};

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

fn product(v: &[u32]) -> Option<u64> {
    v.iter().try_fold(1u64, |a, &x| a.checked_mul(x as u64))
}

impl Topology {
    /// Number of hosts the topology has room for (`u64::MAX` if that overflows).
    pub fn hosts(&self) -> Option<u64> {
        self.room().map(|n| n.unwrap_or(u64::MAX))
    }

    /// Number of hosts the topology has room for: `None` for a flat one, `Some(None)`
    /// past `u64`.
    pub(crate) fn room(&self) -> Option<Option<u64>> {
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

    /// A short name, for summaries.
    pub fn name(&self) -> &'static str {
        match self {
            Topology::Flat => "cluster (flat)",
            Topology::Torus(_) => "torus",
            Topology::FatTree { .. } => "fat tree",
            Topology::Dragonfly { .. } => "dragonfly",
        }
    }
}

/// The most hosts a cluster or generated platform may have: a larger number is a typo,
/// reported before anything is built. Hosts cost nothing until used; the limit keeps
/// host and link ids in 32 bits and what a simulation allocates per link bounded.
pub const MAX_HOSTS: u64 = 1 << 24;

/// The most links and switches a cluster's topology may have.
pub const MAX_LINKS: u64 = 1 << 26;

/// An error unless `hosts` (`None`: past `u64`) is between 1 and [`MAX_HOSTS`].
pub fn check_hosts(id: &str, hosts: Option<u64>) -> Result<u64, PlatformError> {
    match hosts {
        Some(0) => Err(PlatformError::new(format!(
            "cluster '{}' has no host: a cluster needs at least one",
            clip(id)
        ))),
        Some(n) if n <= MAX_HOSTS => Ok(n),
        _ => Err(PlatformError::new(format!(
            "cluster '{}' has {} hosts: at most {MAX_HOSTS} are supported",
            clip(id),
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
    pub radical: Radical,
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
            radical: Radical::first_n(n),
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
    let mut p = Platform::new(&spec.id, ZoneRouting::Cluster(ClusterRef::PENDING));
    p.add_block(ZoneId(0), spec)?;
    p.seal()?;
    Ok(p)
}

/// Adds the cluster as a sub-zone of `parent`.
pub fn add_cluster(p: &mut Platform, parent: ZoneId, spec: &ClusterSpec) -> Result<ZoneId, PlatformError> {
    let z = p.add_zone(parent, &spec.id, ZoneRouting::Cluster(ClusterRef::PENDING))?;
    p.add_block(z, spec)?;
    Ok(z)
}
