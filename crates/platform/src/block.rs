//! A cluster laid out as a block: its hosts, their network points and its links get
//! consecutive ids, and any of them (name, bandwidth, latency, the other half of a
//! split-duplex link) is computed from the cluster's description on demand. The links
//! are numbered per host first (loopback, limiter), then the topology's, in the order
//! SimGrid creates them, and named as SimGrid names them.

use crate::cluster::{check_hosts, ClusterSpec, Sharing, Topology, MAX_LINKS};
use crate::error::PlatformError;
use crate::model::{Link, LinkId, Policy, ZoneId};
use crate::units::clip;

fn product(v: &[u32]) -> Option<u64> {
    v.iter().try_fold(1u64, |a, &x| a.checked_mul(x as u64))
}

/// The shape of a fat tree, with the sums its numbering needs.
#[derive(Clone, Debug)]
pub(crate) struct FatTreeShape {
    pub levels: usize,
    pub down: Vec<u32>,
    pub up: Vec<u32>,
    pub count: Vec<u32>,
    /// Nodes per level (hosts first).
    pub per_level: Vec<u64>,
    /// Global index of each level's first node.
    pub level_start: Vec<u64>,
    /// Index of the first link whose child is at each level.
    pub link_base: Vec<u64>,
    /// All links (a split-duplex pair once).
    pub links: u64,
}

impl FatTreeShape {
    fn new(levels: u32, down: &[u32], up: &[u32], count: &[u32]) -> Option<FatTreeShape> {
        let l = levels as usize;
        let mut per_level = vec![product(down)?];
        for i in 0..l {
            per_level.push(product(&up[..=i])?.checked_mul(product(&down[i + 1..])?)?);
        }
        let mut level_start = Vec::with_capacity(l + 1);
        let mut total = 0u64;
        for &n in &per_level {
            level_start.push(total);
            total = total.checked_add(n)?;
        }
        let mut link_base = Vec::with_capacity(l);
        let mut links = 0u64;
        for i in 0..l {
            link_base.push(links);
            links = links.checked_add(per_level[i].checked_mul(up[i] as u64)?.checked_mul(count[i] as u64)?)?;
        }
        Some(FatTreeShape {
            levels: l,
            down: down.to_vec(),
            up: up.to_vec(),
            count: count.to_vec(),
            per_level,
            level_start,
            link_base,
            links,
        })
    }

    /// Number of switches.
    pub fn switches(&self) -> u64 {
        self.per_level[1..].iter().sum()
    }

    /// The radix of digit `i` of a level-`level` node's label.
    pub fn radix(&self, level: usize, i: usize) -> u64 {
        if i >= level {
            self.down[i] as u64
        } else {
            self.up[i] as u64
        }
    }

    /// Digit `i` of the label of the node at `(level, position)` (digit 0 varies fastest).
    pub fn digit(&self, level: usize, pos: u64, i: usize) -> u64 {
        let mut p = pos;
        for m in 0..i {
            p /= self.radix(level, m);
        }
        p % self.radix(level, i)
    }

    /// The position of the node at `level` whose label is that of `(level_of, pos)` with
    /// digit `i` replaced by `v` (the other digits have the same radix at both levels).
    pub fn with_digit(&self, from_level: usize, pos: u64, to_level: usize, i: usize, v: u64) -> u64 {
        let (mut p, mut out, mut weight) = (pos, 0u64, 1u64);
        for m in 0..self.levels {
            let d = p % self.radix(from_level, m);
            p /= self.radix(from_level, m);
            out += if m == i { v } else { d } * weight;
            weight *= self.radix(to_level, m);
        }
        out
    }
}

/// How a block lays out its links: per host (loopback, limiter), then the topology's.
#[derive(Clone, Debug)]
pub(crate) enum Layout {
    /// Backbone (if any) then one private link per host.
    Flat,
    /// One link per host and dimension.
    Torus,
    /// Switch limiters (if any) then the links, child by child.
    FatTree(FatTreeShape),
    /// Router limiters (if any), then local, green, black and blue links.
    Dragonfly,
}

/// A cluster whose hosts, points and links are computed, not stored.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub spec: ClusterSpec,
    pub zone: ZoneId,
    /// Hosts.
    pub n: u32,
    /// Id of the first host, of its point, and its index among the zone's members.
    pub host0: u32,
    pub point0: u32,
    pub local0: u32,
    /// Id of the first link, and how many.
    pub link0: u32,
    pub nlinks: u32,
    /// Links per host before the topology's (loopback, limiter).
    pub per_host: u32,
    /// Ids per topology link: 2 for split-duplex pairs.
    pub width: u32,
    /// Offset of the topology's links.
    pub topo0: u32,
    pub layout: Layout,
}

/// Pairs `j < k` of `x` things: how many, and the index of one.
fn pairs(x: u64) -> u64 {
    x * x.saturating_sub(1) / 2
}

fn pair_index(j: u64, k: u64, x: u64) -> u64 {
    j * x - j * (j + 1) / 2 + (k - j - 1)
}

fn pair_of(idx: u64, x: u64) -> (u64, u64) {
    let mut rest = idx;
    for j in 0..x {
        let row = x - j - 1;
        if rest < row {
            return (j, j + 1 + rest);
        }
        rest -= row;
    }
    unreachable!("pair index {idx} past {} pairs of {x}", pairs(x))
}

/// Checks a cluster's description and works out how many links its topology has (a
/// split-duplex pair once) before anything is numbered.
fn topology_links(spec: &ClusterSpec, n: u64) -> Result<(Layout, u64), PlatformError> {
    let id = clip(&spec.id);
    Ok(match &spec.topology {
        Topology::Flat => (Layout::Flat, n),
        Topology::Torus(dims) => {
            if dims.is_empty() || dims.contains(&0) {
                return Err(PlatformError::new(format!(
                    "cluster '{id}': torus dimensions must be positive, found {dims:?}"
                )));
            }
            (Layout::Torus, n.saturating_mul(dims.len() as u64))
        }
        Topology::FatTree {
            levels,
            down,
            up,
            count,
        } => {
            let l = *levels as usize;
            if l == 0
                || down.len() != l
                || up.len() != l
                || count.len() != l
                || [down, up, count].iter().any(|v| v.contains(&0))
            {
                return Err(PlatformError::new(format!(
                    "cluster '{id}': fat tree parameters need {l} positive values in each of down, up and count"
                )));
            }
            let shape = FatTreeShape::new(*levels, down, up, count).ok_or_else(|| {
                PlatformError::new(format!(
                    "cluster '{id}': the fat tree has more than 2^64 links and switches"
                ))
            })?;
            let size = shape.links.saturating_add(shape.switches());
            (Layout::FatTree(shape), size)
        }
        Topology::Dragonfly {
            groups,
            chassis,
            blades,
            nodes,
        } => {
            let (g, c, b) = (groups.0 as u64, chassis.0 as u64, blades.0 as u64);
            if [g, c, b, *nodes as u64].contains(&0) {
                return Err(PlatformError::new(format!(
                    "cluster '{id}': dragonfly sizes must be positive"
                )));
            }
            // SimGrid's minimal routing leaves a group through the blade numbered like the
            // target group: a group past the last blade has no such router.
            if g > b {
                return Err(PlatformError::new(format!(
                    "cluster '{id}': a dragonfly of {g} groups needs at least {g} blades per chassis (routes between groups go through the blade numbered like the target group), found {b}"
                )));
            }
            let routers = g * c * b;
            let size = routers
                .saturating_mul(*nodes as u64)
                .saturating_add((g * c).saturating_mul(pairs(b)))
                .saturating_add(g.saturating_mul(pairs(c)).saturating_mul(b))
                .saturating_add(pairs(g))
                .saturating_add(routers);
            (Layout::Dragonfly, size)
        }
    })
}

impl Block {
    /// Checks `spec` and lays out a block whose first host, point, member index and link
    /// get the given ids.
    pub(crate) fn new(
        spec: &ClusterSpec,
        zone: ZoneId,
        host0: u32,
        point0: u32,
        local0: u32,
        link0: u32,
    ) -> Result<Block, PlatformError> {
        let n = check_hosts(&spec.id, Some(spec.radical.len()))?;
        if let Some(want) = spec.topology.hosts() {
            if want != n {
                return Err(PlatformError::new(format!(
                    "cluster '{}': the topology has room for {want} hosts but the radical lists {n}",
                    clip(&spec.id)
                )));
            }
        }
        let (layout, topo_size) = topology_links(spec, n)?;
        if topo_size > MAX_LINKS {
            return Err(PlatformError::new(format!(
                "cluster '{}': the topology would build about {topo_size} links and switches: at most {MAX_LINKS} are supported",
                clip(&spec.id)
            )));
        }
        // Names SimGrid would give twice within the cluster (it refuses the platform).
        let twice = |name: String| {
            Err(PlatformError::new(format!(
                "cluster '{}': link '{}' is defined twice",
                clip(&spec.id),
                clip(&name)
            )))
        };
        match (&layout, &spec.topology) {
            // Two dimensions of size 1 both join a node to itself.
            (_, Topology::Torus(dims)) if dims.iter().filter(|&&d| d == 1).count() > 1 => {
                return twice(format!("{}_link_from_{}_to_0", spec.id, spec.radical.get(0)));
            }
            // Switch limiters are named by switch ids (2n-1 counting down), host limiters
            // by host numbers.
            (Layout::FatTree(shape), _) if spec.limiter.is_some() => {
                let (hi, lo) = (2 * n as i64 - 1, 2 * n as i64 - shape.switches() as i64);
                for &(a, b) in spec.radical.ranges() {
                    let (a, b) = (a as i64, b as i64);
                    if a <= hi && b >= lo {
                        return twice(format!("{}_link_{}_limiter", spec.id, a.max(lo)));
                    }
                }
            }
            _ => {}
        }
        let per_host = spec.loopback.is_some() as u64 + spec.limiter.is_some() as u64;
        let width: u64 = if spec.sharing == Sharing::SplitDuplex { 2 } else { 1 };
        let lim = spec.limiter.is_some() as u64;
        let topo_ids = match &layout {
            Layout::Flat => spec.backbone.is_some() as u64 + n * width,
            Layout::Torus => topo_size * width,
            Layout::FatTree(s) => lim * s.switches() + s.links * width,
            Layout::Dragonfly => {
                let Topology::Dragonfly {
                    groups,
                    chassis,
                    blades,
                    ..
                } = spec.topology
                else {
                    unreachable!("a dragonfly layout comes from a dragonfly")
                };
                let routers = groups.0 as u64 * chassis.0 as u64 * blades.0 as u64;
                lim * routers + (topo_size - routers) * width
            }
        };
        let total = n * per_host + topo_ids;
        if link0 as u64 + total >= u32::MAX as u64 {
            return Err(PlatformError::new(format!(
                "cluster '{}': the platform would have more than 2^32 links",
                clip(&spec.id)
            )));
        }
        for (what, v) in [("speed", spec.speed), ("bandwidth", spec.bw)] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(PlatformError::new(format!(
                    "cluster '{}': the {what} must be positive, found {v}",
                    clip(&spec.id)
                )));
            }
        }
        let positive = |what: &str, v: f64| -> Result<(), PlatformError> {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(PlatformError::new(format!(
                    "cluster '{}': the {what} must be positive, found {v}",
                    clip(&spec.id)
                )))
            }
        };
        let latency = |what: &str, v: f64| -> Result<(), PlatformError> {
            if v >= 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(PlatformError::new(format!(
                    "cluster '{}': the {what} must be non-negative, found {v}",
                    clip(&spec.id)
                )))
            }
        };
        latency("latency", spec.lat)?;
        if spec.cores == 0 {
            return Err(PlatformError::new(format!(
                "cluster '{}': hosts need at least one core",
                clip(&spec.id)
            )));
        }
        if let Some((bw, lat, _)) = spec.backbone {
            positive("backbone bandwidth", bw)?;
            latency("backbone latency", lat)?;
        }
        if let Some(bw) = spec.limiter {
            positive("limiter bandwidth", bw)?;
        }
        if let Some((bw, lat)) = spec.loopback {
            positive("loopback bandwidth", bw)?;
            latency("loopback latency", lat)?;
        }
        if let Topology::Dragonfly {
            groups,
            chassis,
            blades,
            ..
        } = spec.topology
        {
            for (what, m) in [("blue", groups.1), ("black", chassis.1), ("green", blades.1)] {
                positive(&format!("{what} link count"), m as f64)?;
                positive(&format!("{what} link bandwidth"), spec.bw * m as f64)?;
            }
        }
        Ok(Block {
            spec: spec.clone(),
            zone,
            n: n as u32,
            host0,
            point0,
            local0,
            link0,
            nlinks: total as u32,
            per_host: per_host as u32,
            width: width as u32,
            topo0: (n * per_host) as u32,
            layout,
        })
    }

    /// The name of host `i`.
    pub fn host_name(&self, i: u32) -> String {
        format!(
            "{}{}{}",
            self.spec.prefix,
            self.spec.radical.get(i as u64),
            self.spec.suffix
        )
    }

    /// The host called `name`, if it is one of this block's: `prefix N suffix` with `N`
    /// written as SimGrid writes numbers (no sign, no leading zero).
    pub fn host_index(&self, name: &str) -> Option<u32> {
        let digits = name
            .strip_prefix(self.spec.prefix.as_str())?
            .strip_suffix(self.spec.suffix.as_str())?;
        if digits.is_empty()
            || !digits.bytes().all(|c| c.is_ascii_digit())
            || (digits.len() > 1 && digits.starts_with('0'))
        {
            return None;
        }
        let v: u64 = digits.parse().ok()?;
        self.spec.radical.index_of(v).map(|i| i as u32)
    }

    fn id(&self, offset: u64) -> LinkId {
        LinkId(self.link0 + offset as u32)
    }

    fn pair_id(&self, start: u64, pair: u64, up: bool) -> LinkId {
        let half = if self.width == 2 && !up { 1 } else { 0 };
        self.id(start + pair * self.width as u64 + half)
    }

    /// Host `i`'s loopback link.
    pub fn loopback(&self, i: u32) -> Option<LinkId> {
        self.spec.loopback.map(|_| self.id(i as u64 * self.per_host as u64))
    }

    /// Host `i`'s limiter link.
    pub fn limiter(&self, i: u32) -> Option<LinkId> {
        self.spec
            .limiter
            .map(|_| self.id(i as u64 * self.per_host as u64 + self.spec.loopback.is_some() as u64))
    }

    /// The flat cluster's backbone.
    pub fn backbone(&self) -> Option<LinkId> {
        self.spec.backbone.map(|_| self.id(self.topo0 as u64))
    }

    /// Host `i`'s private link, up (towards the switch) or down.
    pub fn private(&self, i: u32, up: bool) -> LinkId {
        let start = self.topo0 as u64 + self.spec.backbone.is_some() as u64;
        self.pair_id(start, i as u64, up)
    }

    /// The torus link from node `i` to its `+1` neighbour in dimension `j`, travelled up
    /// (from `i`) or down.
    pub fn torus_link(&self, i: u32, j: usize, dims: usize, up: bool) -> LinkId {
        self.pair_id(self.topo0 as u64, i as u64 * dims as u64 + j as u64, up)
    }

    /// Limiter of fat-tree switch `s` (numbered from 0 after the hosts).
    pub fn switch_limiter(&self, s: u64) -> Option<LinkId> {
        self.spec.limiter.map(|_| self.id(self.topo0 as u64 + s))
    }

    fn fat_tree_links_start(&self, shape: &FatTreeShape) -> u64 {
        self.topo0 as u64 + self.spec.limiter.map_or(0, |_| shape.switches())
    }

    /// The fat-tree link between the level-`level` node at `pos` (the child) and its
    /// `k`-th parent, `j`-th of the parallel links.
    pub fn fat_tree_link(&self, shape: &FatTreeShape, level: usize, pos: u64, k: u64, j: u64, up: bool) -> LinkId {
        let (u, c) = (shape.up[level] as u64, shape.count[level] as u64);
        let pair = shape.link_base[level] + (pos * u + k) * c + j;
        self.pair_id(self.fat_tree_links_start(shape), pair, up)
    }

    fn dragonfly_shape(&self) -> (u64, u64, u64, u64) {
        match self.spec.topology {
            Topology::Dragonfly {
                groups,
                chassis,
                blades,
                nodes,
            } => (groups.0 as u64, chassis.0 as u64, blades.0 as u64, nodes as u64),
            _ => unreachable!("dragonfly links of a dragonfly"),
        }
    }

    /// Offsets of the dragonfly's local, green, black and blue links.
    fn dragonfly_starts(&self) -> [u64; 4] {
        let (g, c, b, nodes) = self.dragonfly_shape();
        let routers = g * c * b;
        let local = self.topo0 as u64 + self.spec.limiter.map_or(0, |_| routers);
        let w = self.width as u64;
        let green = local + routers * nodes * w;
        let black = green + g * c * pairs(b) * w;
        let blue = black + g * pairs(c) * b * w;
        [local, green, black, blue]
    }

    /// Limiter of dragonfly router `r`.
    pub fn router_limiter(&self, r: u64) -> Option<LinkId> {
        self.spec.limiter.map(|_| self.id(self.topo0 as u64 + r))
    }

    /// The link between router `r` and its node `j`: up (towards the router) or down.
    pub fn local_link(&self, r: u64, j: u64, up: bool) -> LinkId {
        let (_, _, _, nodes) = self.dragonfly_shape();
        self.pair_id(self.dragonfly_starts()[0], r * nodes + j, up)
    }

    /// The green link leaving router `(g, c, b)` towards blade `t` of its chassis.
    pub fn green(&self, g: u64, c: u64, b: u64, t: u64) -> LinkId {
        let (_, cs, bs, _) = self.dragonfly_shape();
        let gc = g * cs + c;
        let (lo, hi) = (b.min(t), b.max(t));
        let pair = gc * pairs(bs) + pair_index(lo, hi, bs);
        self.pair_id(self.dragonfly_starts()[1], pair, b < t)
    }

    /// The black link leaving router `(g, c, b)` towards chassis `t` of its group.
    pub fn black(&self, g: u64, c: u64, b: u64, t: u64) -> LinkId {
        let (_, cs, bs, _) = self.dragonfly_shape();
        let (lo, hi) = (c.min(t), c.max(t));
        let pair = g * pairs(cs) * bs + pair_index(lo, hi, cs) * bs + b;
        self.pair_id(self.dragonfly_starts()[2], pair, c < t)
    }

    /// The blue link of router `x` (its index in its group) of group `g`, if it has one.
    pub fn blue(&self, g: u64, x: u64) -> Option<LinkId> {
        let (gs, _, _, _) = self.dragonfly_shape();
        if x == g || x >= gs {
            return None;
        }
        let (lo, hi) = (g.min(x), g.max(x));
        Some(self.pair_id(self.dragonfly_starts()[3], pair_index(lo, hi, gs), g < x))
    }

    /// The fat-tree id SimGrid gives node `idx` (hosts: their number; switches count down
    /// from 2n-1, going negative past 0 as SimGrid's do).
    fn fat_tree_node_id(&self, idx: u64) -> i64 {
        let n = self.n as u64;
        if idx < n {
            self.spec.radical.get(idx) as i64
        } else {
            2 * n as i64 - 1 - (idx - n) as i64
        }
    }

    /// The link at `offset` in this block.
    pub fn link(&self, offset: u32) -> Link {
        self.decode(offset, true)
    }

    /// Bandwidth, latency and policy of the link at `offset` (its name is not built).
    pub fn link_attributes(&self, offset: u32) -> (f64, f64, Policy) {
        let l = self.decode(offset, false);
        (l.bandwidth, l.latency, l.policy)
    }

    /// The distinct bandwidths of this block's links.
    pub fn bandwidths(&self) -> Vec<f64> {
        let s = &self.spec;
        let mut v = vec![s.bw];
        if let Topology::Dragonfly {
            groups,
            chassis,
            blades,
            ..
        } = s.topology
        {
            v.extend([groups.1, chassis.1, blades.1].map(|m| s.bw * m as f64));
        }
        v.extend(s.limiter);
        v.extend(s.loopback.map(|l| l.0));
        if matches!(self.layout, Layout::Flat) {
            v.extend(s.backbone.map(|b| b.0));
        }
        v
    }

    /// The link at `offset`; its name only if `named` (building names is most of the
    /// cost).
    fn decode(&self, offset: u32, named: bool) -> Link {
        let nm = |f: &dyn Fn() -> String| if named { f() } else { String::new() };
        let s = &self.spec;
        let id = &s.id;
        let k = offset as u64;
        let w = self.width as u64;
        let (lo, li) = (s.loopback.is_some() as u64, s.limiter.is_some() as u64);
        let fixed = |name: String, bandwidth: f64, latency: f64, policy: Policy| Link {
            name,
            bandwidth,
            latency,
            policy,
            partner: None,
        };
        if k < self.topo0 as u64 {
            let (i, slot) = (k / self.per_host as u64, k % self.per_host as u64);
            if slot < lo {
                let (bw, lat) = s.loopback.expect("a loopback slot");
                return fixed(
                    nm(&|| format!("{id}_link_{}_loopback", s.radical.get(i))),
                    bw,
                    lat,
                    Policy::Fatpipe,
                );
            }
            let number = match s.topology {
                Topology::Torus(_) => i,
                _ => s.radical.get(i),
            };
            return fixed(
                nm(&|| format!("{id}_link_{number}_limiter")),
                s.limiter.expect("a limiter slot"),
                0.0,
                Policy::Shared,
            );
        }
        let t = k - self.topo0 as u64;
        // A topology link: which pair, and its name, bandwidth multiplier.
        let (start, name, mult) = match &self.layout {
            Layout::Flat => {
                if let (Some((bw, lat, policy)), 0) = (s.backbone, t) {
                    return fixed(nm(&|| format!("{id}_backbone")), bw, lat, policy);
                }
                let start = self.topo0 as u64 + s.backbone.is_some() as u64;
                let i = (k - start) / w;
                (start, nm(&|| format!("{id}_link_{}", s.radical.get(i))), 1)
            }
            Layout::Torus => {
                let Topology::Torus(dims) = &s.topology else {
                    unreachable!("a torus layout comes from a torus")
                };
                let pair = t / w;
                let (i, j) = (pair / dims.len() as u64, (pair % dims.len() as u64) as usize);
                let name = nm(&|| {
                    let nbr = crate::zone::torus::neighbour(dims, i as u32, j);
                    format!("{id}_link_from_{}_to_{nbr}", s.radical.get(i))
                });
                (self.topo0 as u64, name, 1)
            }
            Layout::FatTree(shape) => {
                if li == 1 && t < shape.switches() {
                    let name = nm(&|| format!("{id}_link_{}_limiter", self.fat_tree_node_id(self.n as u64 + t)));
                    return fixed(name, s.limiter.expect("a limiter"), 0.0, Policy::Shared);
                }
                let start = self.fat_tree_links_start(shape);
                let pair = (k - start) / w;
                let l = shape.link_base.partition_point(|&b| b <= pair) - 1;
                let (u, c) = (shape.up[l] as u64, shape.count[l] as u64);
                let r = pair - shape.link_base[l];
                let (pos, kk) = (r / (u * c), r % (u * c) / c);
                let name = nm(&|| {
                    let child = shape.level_start[l] + pos;
                    let parent = shape.level_start[l + 1] + shape.with_digit(l, pos, l + 1, l, kk);
                    format!(
                        "{id}_link_from_{}_{}_{pair}",
                        self.fat_tree_node_id(child),
                        self.fat_tree_node_id(parent)
                    )
                });
                (start, name, 1)
            }
            Layout::Dragonfly => {
                let (g, c, b, nodes) = self.dragonfly_shape();
                let routers = g * c * b;
                if li == 1 && t < routers {
                    let (rg, rc, rb) = (t / (c * b), t % (c * b) / b, t % b);
                    return fixed(
                        nm(&|| format!("{id}_router_{rg}_{rc}_{rb}_limiter")),
                        s.limiter.expect("a limiter"),
                        0.0,
                        Policy::Shared,
                    );
                }
                let [local, green, black, blue] = self.dragonfly_starts();
                let Topology::Dragonfly {
                    groups,
                    chassis,
                    blades,
                    ..
                } = s.topology
                else {
                    unreachable!("a dragonfly layout comes from a dragonfly")
                };
                let unique = (k - local) / w;
                let (start, mult, kind) = if k < green {
                    (local, 1, 0)
                } else if k < black {
                    (green, blades.1, 1)
                } else if k < blue {
                    (black, chassis.1, 2)
                } else {
                    (blue, groups.1, 3)
                };
                let name = nm(&|| {
                    let pair = (k - start) / w;
                    let what = if kind == 0 {
                        format!("local_link_from_router_{}_to_node_{}", pair / nodes, pair % nodes)
                    } else if kind == 1 {
                        let (gc, (j, kk)) = (pair / pairs(b), pair_of(pair % pairs(b), b));
                        format!("green_link_in_chassis_{}_between_routers_{j}_and_{kk}", gc % c)
                    } else if kind == 2 {
                        let per_group = pairs(c) * b;
                        let (gi, rest) = (pair / per_group, pair % per_group);
                        let ((j, kk), l) = (pair_of(rest / b, c), rest % b);
                        format!("black_link_in_group_{gi}_between_chassis_{j}_and_{kk}_blade_{l}")
                    } else {
                        let (i, j) = pair_of(pair, g);
                        let bc = b * c;
                        format!(
                            "blue_link_between_group_{i}_and_{j}_routers_{}_and_{}",
                            i * bc + j,
                            j * bc + i
                        )
                    };
                    format!("{id}_{what}_{unique}")
                });
                (start, name, mult)
            }
        };
        let bandwidth = s.bw * mult as f64;
        let half = (k - start) % w;
        let (name, policy, partner) = match s.sharing {
            Sharing::SplitDuplex if half == 0 => (
                nm(&|| format!("{name}_UP")),
                Policy::Shared,
                Some(LinkId(self.link0 + offset + 1)),
            ),
            Sharing::SplitDuplex => (
                nm(&|| format!("{name}_DOWN")),
                Policy::Shared,
                Some(LinkId(self.link0 + offset - 1)),
            ),
            Sharing::Shared => (name, Policy::Shared, None),
            Sharing::Fatpipe => (name, Policy::Fatpipe, None),
        };
        Link {
            name,
            bandwidth,
            latency: s.lat,
            policy,
            partner,
        }
    }

    /// The offset of the link called `name`, if this block has one. The name says
    /// where to look (a number in it gives the offset); the link found there must then
    /// have that very name.
    pub fn link_offset(&self, name: &str) -> Option<u32> {
        let rest = name.strip_prefix(self.spec.id.as_str())?.strip_prefix('_')?;
        let (rest, half) = match (self.width, rest.strip_suffix("_UP"), rest.strip_suffix("_DOWN")) {
            (2, Some(r), _) => (r, 0),
            (2, _, Some(r)) => (r, 1),
            _ => (rest, 0),
        };
        let num = |t: &str| -> Option<u64> {
            (!t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()))
                .then(|| t.parse().ok())
                .flatten()
        };
        let host = |t: &str| self.spec.radical.index_of(num(t)?);
        let n = self.n as u64;
        let mut candidates: Vec<u64> = Vec::new();
        if rest == "backbone" {
            candidates.push(self.topo0 as u64);
        }
        if let Some(x) = rest.strip_prefix("link_") {
            if let Some(r) = x.strip_suffix("_loopback") {
                candidates.extend(host(r).map(|i| i * self.per_host as u64));
            }
            if let Some(r) = x.strip_suffix("_limiter") {
                let lo = self.spec.loopback.is_some() as u64;
                candidates.extend(host(r).map(|i| i * self.per_host as u64 + lo));
                candidates.extend(num(r).filter(|&i| i < n).map(|i| i * self.per_host as u64 + lo));
                // A fat-tree switch: ids count down from 2n-1, below zero too.
                if let Ok(sw) = r.parse::<i64>() {
                    let s = 2 * n as i64 - 1 - sw;
                    if s >= 0 {
                        candidates.push(self.topo0 as u64 + s as u64);
                    }
                }
            }
            if let Some(i) = host(x) {
                candidates.push((self.private(i as u32, half == 0).0 - self.link0) as u64);
            }
            if let (Some(from), Topology::Torus(dims)) = (x.strip_prefix("from_"), &self.spec.topology) {
                if let Some((r, nbr)) = from.split_once("_to_") {
                    if let (Some(i), Some(nbr)) = (host(r), num(nbr)) {
                        for j in 0..dims.len() {
                            if crate::zone::torus::neighbour(dims, i as u32, j) as u64 == nbr {
                                candidates
                                    .push((self.torus_link(i as u32, j, dims.len(), half == 0).0 - self.link0) as u64);
                            }
                        }
                    }
                }
            }
        }
        if let Some(x) = rest.strip_prefix("router_").and_then(|x| x.strip_suffix("_limiter")) {
            let v: Vec<Option<u64>> = x.split('_').map(num).collect();
            if let (Layout::Dragonfly, [Some(g), Some(c), Some(b)]) = (&self.layout, v.as_slice()) {
                let (_, cs, bs, _) = self.dragonfly_shape();
                candidates.push(self.topo0 as u64 + g * cs * bs + c * bs + b);
            }
        }
        // Fat-tree and dragonfly links end with their number among the topology's links.
        if let Some(u) = rest.rsplit_once('_').and_then(|(_, u)| num(u)) {
            let start = match &self.layout {
                Layout::FatTree(shape) => Some(self.fat_tree_links_start(shape)),
                Layout::Dragonfly => Some(self.dragonfly_starts()[0]),
                _ => None,
            };
            if let Some(start) = start {
                candidates.push(start + u.saturating_mul(self.width as u64) + half);
            }
        }
        candidates
            .into_iter()
            .filter(|&k| k < self.nlinks as u64)
            .find(|&k| self.link(k as u32).name == name)
            .map(|k| k as u32)
    }

    /// The other half of a split-duplex link at `offset`, or the link itself.
    pub fn reverse(&self, offset: u32) -> u32 {
        if offset < self.topo0 || self.width == 1 {
            return offset;
        }
        let t = offset - self.topo0;
        let start = match &self.layout {
            Layout::Flat => self.spec.backbone.is_some() as u32,
            Layout::Torus => 0,
            Layout::FatTree(shape) => self.spec.limiter.map_or(0, |_| shape.switches() as u32),
            Layout::Dragonfly => {
                let (g, c, b, _) = self.dragonfly_shape();
                self.spec.limiter.map_or(0, |_| (g * c * b) as u32)
            }
        };
        if t < start {
            return offset;
        }
        if (t - start).is_multiple_of(2) {
            offset + 1
        } else {
            offset - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_numbered_both_ways() {
        for x in 2..7u64 {
            let mut k = 0;
            for j in 0..x {
                for l in j + 1..x {
                    assert_eq!(pair_index(j, l, x), k);
                    assert_eq!(pair_of(k, x), (j, l));
                    k += 1;
                }
            }
            assert_eq!(k, pairs(x));
        }
    }
}
