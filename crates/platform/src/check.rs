//! Validation and summaries of platforms (`simpi platform check` / `show`).

use crate::model::{Platform, PointKind};
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
}

impl CheckReport {
    /// True when every pair has a route.
    pub fn ok(&self) -> bool {
        self.unreachable_pairs == 0
    }
}

/// Routes every host pair (or, above `max_pairs`, a deterministic sample) and reports
/// the pairs without a route and the links no route uses.
pub fn check(p: &Platform, max_pairs: u64) -> CheckReport {
    let n = p.num_hosts() as u64;
    let mut rep = CheckReport::default();
    let mut used = vec![false; p.links().len()];
    let total = n * n;
    let step = if total <= max_pairs {
        1
    } else {
        (total / max_pairs).max(1) | 1
    };
    let mut k = 0u64;
    while k < total {
        let (a, b) = ((k / n) as u32, (k % n) as u32);
        rep.pairs_checked += 1;
        match p.route(crate::HostId(a), crate::HostId(b)) {
            Ok(r) => {
                for l in r.links {
                    used[l.0 as usize] = true;
                }
            }
            Err(e) => {
                rep.unreachable_pairs += 1;
                if rep.unreachable.len() < 10 {
                    rep.unreachable.push((
                        p.host(crate::HostId(a)).name.clone(),
                        p.host(crate::HostId(b)).name.clone(),
                        e.msg,
                    ));
                }
            }
        }
        k += step;
    }
    if step == 1 {
        rep.unused_links = p
            .links()
            .iter()
            .zip(&used)
            .filter(|(l, u)| !**u && l.name != "__loopback__")
            .map(|(l, _)| l.name.clone())
            .collect();
    }
    rep
}

/// A human summary: zones, hosts, links, bandwidth range.
pub fn summary(p: &Platform) -> String {
    let mut s = String::new();
    let hosts = p.hosts();
    let _ = writeln!(s, "hosts   {}", hosts.len());
    if let (Some(min), Some(max)) = (
        hosts.iter().map(|h| h.speed).reduce(f64::min),
        hosts.iter().map(|h| h.speed).reduce(f64::max),
    ) {
        let cores: u64 = hosts.iter().map(|h| h.cores as u64).sum();
        let _ = writeln!(
            s,
            "cores   {cores}; speed {} .. {} flop/s per core",
            fmt_si(min),
            fmt_si(max)
        );
    }
    let links = p.links();
    let _ = writeln!(s, "links   {}", links.len());
    if let (Some(min), Some(max)) = (
        links.iter().map(|l| l.bandwidth).reduce(f64::min),
        links.iter().map(|l| l.bandwidth).reduce(f64::max),
    ) {
        let _ = writeln!(s, "        bandwidth {}B/s .. {}B/s", fmt_si(min), fmt_si(max));
    }
    let _ = writeln!(s, "zones   {}", p.zones().len());
    for z in p.zones() {
        let depth = {
            let mut d = 0;
            let mut cur = z.parent;
            while let Some(c) = cur {
                d += 1;
                cur = p.zone(c).parent;
            }
            d
        };
        let hosts = z
            .members
            .iter()
            .filter(|&&m| matches!(p.point(m).kind, PointKind::Host(_)))
            .count();
        let extra = match &z.routing {
            ZoneRouting::Table(t) => format!(", {} routes", t.num_routes()),
            ZoneRouting::Torus(t) => format!(", dims {:?}", t.dims()),
            ZoneRouting::FatTree(f) => format!(", {} levels, {} switches", f.levels, f.nodes.len() - hosts),
            ZoneRouting::Dragonfly(d) => format!(", shape {:?}", d.shape),
            ZoneRouting::Star(_) => String::new(),
        };
        let _ = writeln!(
            s,
            "  {}{} [{}]: {} hosts{extra}",
            "  ".repeat(depth),
            z.name,
            z.routing.kind_name(),
            hosts
        );
    }
    if hosts.len() >= 2 {
        if let Ok(r) = p.route(crate::HostId(0), crate::HostId(hosts.len() as u32 - 1)) {
            let names: Vec<&str> = r.links.iter().map(|&l| p.link(l).name.as_str()).collect();
            let _ = writeln!(
                s,
                "route   {} -> {}: {} links, latency {:.3} us: {}",
                hosts[0].name,
                hosts[hosts.len() - 1].name,
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
