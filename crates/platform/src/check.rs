//! Validation and summaries of platforms (`simpi platform check` / `show`).

use crate::block::Layout;
use crate::model::{LinkId, Platform, PointKind};
use crate::units::clip;
use crate::zone::ZoneRouting;
use std::fmt::Write;

/// What a check found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckReport {
    /// Host pairs without a route (at most a few listed, see `unreachable_pairs`).
    pub unreachable: Vec<(String, String, String)>,
    /// Total number of host pairs without a route.
    pub unreachable_pairs: u64,
    /// Pairs checked.
    pub pairs_checked: u64,
    /// Links that no checked route uses.
    pub unused_links: Vec<String>,
    /// Whether the check stopped before its last pair because the routes were long
    /// (see [`MAX_LINKS_ROUTED`]).
    pub stopped: bool,
}

/// The most links [`check`] follows in all: a torus of a million nodes per ring has
/// routes of half a million links, and a million of them would take hours.
pub const MAX_LINKS_ROUTED: u64 = 1 << 26;

impl CheckReport {
    /// True when every pair has a route.
    pub fn ok(&self) -> bool {
        self.unreachable_pairs == 0
    }
}

/// Routes every host pair (or, above `max_pairs`, a deterministic sample) and reports
/// the pairs without a route and, when every pair was routed, the links no route uses.
pub fn check(p: &Platform, max_pairs: u64) -> CheckReport {
    let n = p.num_hosts() as u64;
    let mut rep = CheckReport::default();
    let total = n * n;
    let step = if total <= max_pairs {
        1
    } else {
        (total / max_pairs.max(1)).max(1) | 1
    };
    // Which links routes use matters only if all pairs are routed.
    let mut used = vec![false; if step == 1 { p.num_links() } else { 0 }];
    let mut k = 0u64;
    let mut routed = 0u64;
    while k < total {
        if routed > MAX_LINKS_ROUTED {
            rep.stopped = true;
            break;
        }
        let (a, b) = ((k / n) as u32, (k % n) as u32);
        rep.pairs_checked += 1;
        match p.route(crate::HostId(a), crate::HostId(b)) {
            Ok(r) => {
                routed += r.links.len() as u64;
                for l in r.links {
                    if let Some(u) = used.get_mut(l.0 as usize) {
                        *u = true;
                    }
                }
            }
            Err(e) => {
                rep.unreachable_pairs += 1;
                if rep.unreachable.len() < 10 {
                    rep.unreachable
                        .push((p.host_name(crate::HostId(a)), p.host_name(crate::HostId(b)), e.msg));
                }
            }
        }
        k += step;
    }
    if step == 1 && !rep.stopped {
        rep.unused_links = used
            .iter()
            .enumerate()
            .filter(|(_, u)| !**u)
            .map(|(i, _)| p.link(LinkId(i as u32)).name)
            .filter(|name| name != "__loopback__")
            .collect();
    }
    rep
}

/// The most zones [`summary`] lists one by one.
pub const MAX_ZONES_SHOWN: usize = 50;

/// A human summary: zones, hosts, links, bandwidth range.
pub fn summary(p: &Platform) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "hosts   {}", p.num_hosts());
    let kinds: Vec<(f64, u64)> = p.host_kinds().collect();
    if let (Some(min), Some(max)) = (
        kinds.iter().map(|k| k.0).reduce(f64::min),
        kinds.iter().map(|k| k.0).reduce(f64::max),
    ) {
        let cores: u64 = kinds.iter().map(|k| k.1).sum();
        let _ = writeln!(
            s,
            "cores   {cores}; speed {} .. {} flop/s per core",
            fmt_si(min),
            fmt_si(max)
        );
    }
    let _ = writeln!(s, "links   {}", p.num_links());
    let bws: Vec<f64> = p.link_bandwidths().collect();
    if let (Some(min), Some(max)) = (
        bws.iter().copied().reduce(f64::min),
        bws.iter().copied().reduce(f64::max),
    ) {
        let _ = writeln!(s, "        bandwidth {}B/s .. {}B/s", fmt_si(min), fmt_si(max));
    }
    let _ = writeln!(s, "zones   {}", p.zones().len());
    for z in p.zones().iter().take(MAX_ZONES_SHOWN) {
        let (hosts, extra) = match &z.routing {
            ZoneRouting::Table(t) => (
                z.members()
                    .filter(|&m| matches!(p.point_place(m).0, PointKind::Host(_)))
                    .count() as u64,
                format!(", {} routes", t.num_routes()),
            ),
            ZoneRouting::Cluster(c) => match p.block(*c) {
                None => (0, String::new()),
                Some(b) => {
                    let extra = match (&b.layout, &b.spec.topology) {
                        (_, crate::cluster::Topology::Torus(d)) => format!(", dims {d:?}"),
                        (Layout::FatTree(f), _) => format!(", {} levels, {} switches", f.levels, f.switches()),
                        (
                            _,
                            crate::cluster::Topology::Dragonfly {
                                groups,
                                chassis,
                                blades,
                                nodes,
                            },
                        ) => {
                            format!(", shape {:?}", (groups.0, chassis.0, blades.0, nodes))
                        }
                        _ => String::new(),
                    };
                    (b.n as u64, extra)
                }
            },
        };
        let _ = writeln!(
            s,
            "  {}{} [{}]: {} hosts{extra}",
            "  ".repeat(z.depth() as usize),
            clip(&z.name),
            z.routing.kind_name(p),
            hosts
        );
    }
    if p.zones().len() > MAX_ZONES_SHOWN {
        let _ = writeln!(s, "  ... and {} more zones", p.zones().len() - MAX_ZONES_SHOWN);
    }
    let n = p.num_hosts();
    if n >= 2 {
        let (a, b) = (crate::HostId(0), crate::HostId(n as u32 - 1));
        if let Ok(r) = p.route(a, b) {
            let names: Vec<String> = r.links.iter().map(|&l| clip(&p.link(l).name)).collect();
            let _ = writeln!(
                s,
                "route   {} -> {}: {} links, latency {:.3} us: {}",
                clip(&p.host_name(a)),
                clip(&p.host_name(b)),
                r.links.len(),
                r.latency * 1e6,
                names.join(", ")
            );
        }
    }
    s
}

fn fmt_si(v: f64) -> String {
    let (d, u) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(d, _)| v >= *d)
        .unwrap_or((1.0, ""));
    format!("{:.3}{u}", v / d)
}
