//! simpi's native platform file (TOML): either a generated topology
//!
//! ```toml
//! name = "graphene"
//! [topology]
//! kind = "flat"                 # flat, cabinets, torus, fat-tree, dragonfly
//! hosts = 16
//! speed = "1Gf"
//! link = { bandwidth = "125MBps", latency = "50us", sharing = "split-duplex" }
//! limiter = 1.5                 # limiter link of 1.5 x the link bandwidth per node
//! backbone = { bandwidth = "10GBps", latency = "1us" }
//! ```
//!
//! or explicit hosts, links and routes (`routing = "full" | "floyd" | "dijkstra"`):
//!
//! ```toml
//! routing = "full"
//! [[host]]
//! name = "a"
//! speed = "1Gf"
//! [[link]]
//! name = "l"
//! bandwidth = "1GBps"
//! latency = "10us"
//! [[route]]
//! src = "a"
//! dst = "b"
//! links = ["l"]          # "name:up" / "name:down" pick a split-duplex half
//! ```
//!
//! Quantities take SimGrid's units (see [`crate::units`]); a value without a unit is
//! read in the default unit with a warning. Errors name the file, the line and the key.
//! The full reference is in `docs/formats.md`.

use crate::cluster::{Sharing, MAX_HOSTS};
use crate::error::PlatformError;
use crate::generate::{self, LinkSpec, NodeSpec};
use crate::model::{Platform, Policy};
use crate::units::{self, clip};
use crate::zone::{TableKind, TableRoute, TableZone, ZoneRouting};
use serde::Deserialize;
use std::cell::RefCell;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    /// Every host runs on one machine with this many cores (an emulated cluster).
    shared_cores: Option<Spanned<u32>>,
    topology: Option<Spanned<TopologyDesc>>,
    routing: Option<Spanned<String>>,
    #[serde(default)]
    host: Vec<Spanned<HostDesc>>,
    #[serde(default)]
    router: Vec<Spanned<RouterDesc>>,
    #[serde(default)]
    link: Vec<Spanned<LinkDesc>>,
    #[serde(default)]
    route: Vec<Spanned<RouteDesc>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopologyDesc {
    kind: Spanned<String>,
    hosts: Option<Spanned<u64>>,
    #[serde(default = "default_speed")]
    speed: Spanned<String>,
    #[serde(default = "one")]
    cores: Spanned<u32>,
    link: Spanned<LinkDesc>,
    limiter: Option<Spanned<f64>>,
    loopback: Option<Spanned<LinkDesc>>,
    backbone: Option<Spanned<LinkDesc>>,
    dims: Option<Spanned<Vec<u32>>>,
    fat_tree: Option<Spanned<String>>,
    dragonfly: Option<Spanned<String>>,
    cabinets: Option<Spanned<u32>>,
    per_cabinet: Option<Spanned<u64>>,
    cabinet_switch: Option<Spanned<LinkDesc>>,
    uplink: Option<Spanned<LinkDesc>>,
    uplink_limiter: Option<Spanned<String>>,
}

fn default_speed() -> Spanned<String> {
    Spanned::new(0..0, "1Gf".to_string())
}

fn one() -> Spanned<u32> {
    Spanned::new(0..0, 1)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostDesc {
    name: String,
    #[serde(default = "default_speed")]
    speed: Spanned<String>,
    #[serde(default = "one")]
    cores: Spanned<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RouterDesc {
    name: String,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct LinkDesc {
    name: Option<String>,
    bandwidth: String,
    #[serde(default = "zero")]
    latency: String,
    #[serde(default = "shared")]
    sharing: String,
}

fn zero() -> String {
    "0".into()
}

fn shared() -> String {
    "shared".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RouteDesc {
    src: String,
    dst: String,
    links: Vec<String>,
    #[serde(default = "yes")]
    symmetrical: bool,
}

fn yes() -> bool {
    true
}

struct Ctx<'a> {
    text: &'a str,
    path: &'a Path,
    /// What was accepted with a warning.
    warnings: RefCell<Vec<PlatformError>>,
}

/// The longest message taken from the TOML parser (it may quote the input).
const MAX_PARSER_MESSAGE: usize = 240;

impl Ctx<'_> {
    fn line(&self, offset: usize) -> u32 {
        self.text.as_bytes()[..offset.min(self.text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32
            + 1
    }
    fn err<T>(&self, span: &Range<usize>, msg: impl Into<String>) -> Result<T, PlatformError> {
        Err(PlatformError::at(self.path, self.line(span.start), msg))
    }
    /// A quantity of `key`; a unit-less value other than zero gets a warning.
    fn quantity(
        &self,
        span: &Range<usize>,
        key: &str,
        value: &str,
        parse: fn(&str) -> Result<f64, String>,
        unit: &str,
    ) -> Result<f64, PlatformError> {
        let v = parse(value).or_else(|m| self.err(span, format!("{key}: {m}")))?;
        if units::unitless(value) {
            self.warnings.borrow_mut().push(PlatformError::at(
                self.path,
                self.line(span.start),
                format!(
                    "{key} '{}' has no unit: read as {v} {unit}, as SimGrid does (write the unit)",
                    clip(value)
                ),
            ));
        }
        Ok(v)
    }
    fn link(&self, l: &Spanned<LinkDesc>, key: &str) -> Result<(LinkSpec, String), PlatformError> {
        let span = l.span();
        let d = l.get_ref();
        let bandwidth = self.quantity(
            &span,
            &format!("{key}.bandwidth"),
            &d.bandwidth,
            units::bandwidth,
            "bytes/s",
        )?;
        if bandwidth <= 0.0 {
            return self.err(&span, format!("{key}.bandwidth must be positive"));
        }
        let latency = self.quantity(&span, &format!("{key}.latency"), &d.latency, units::time, "s")?;
        Ok((LinkSpec { bandwidth, latency }, d.sharing.clone()))
    }
    fn sharing(&self, span: &Range<usize>, key: &str, s: &str) -> Result<Sharing, PlatformError> {
        match s {
            "shared" => Ok(Sharing::Shared),
            "split-duplex" => Ok(Sharing::SplitDuplex),
            "fatpipe" => Ok(Sharing::Fatpipe),
            other => self.err(
                span,
                format!(
                    "{key}.sharing '{}': expected shared, split-duplex or fatpipe",
                    clip(other)
                ),
            ),
        }
    }
    /// The span of a value, or of its table when the value was a default.
    fn span_or<T>(&self, v: &Spanned<T>, table: &Range<usize>) -> Range<usize> {
        if v.span() == (0..0) {
            table.clone()
        } else {
            v.span()
        }
    }
}

/// Parses a native platform file; `path` is used in error messages.
pub fn parse(text: &str, path: &Path) -> Result<Platform, PlatformError> {
    let file: File = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| {
            text.as_bytes()[..s.start.min(text.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u32
                + 1
        });
        let mut msg = e.message().trim().to_string();
        if msg.len() > MAX_PARSER_MESSAGE {
            let mut cut = MAX_PARSER_MESSAGE;
            while !msg.is_char_boundary(cut) {
                cut -= 1;
            }
            msg.truncate(cut);
            msg.push_str("...");
        }
        PlatformError::at(path, line.unwrap_or(0), msg)
    })?;
    let cx = Ctx {
        text,
        path,
        warnings: RefCell::new(Vec::new()),
    };
    let name = file.name.clone().unwrap_or_else(|| "platform".into());
    let mut p = match (&file.topology, file.host.is_empty()) {
        (Some(t), true) => generated(&cx, &name, t)?,
        (None, false) => explicit(&cx, &name, &file)?,
        (Some(t), false) => cx.err(
            &t.span(),
            "give either a [topology] or explicit [[host]] entries, not both",
        )?,
        (None, true) => {
            return Err(PlatformError::at(
                path,
                0,
                "the platform has no [topology] and no [[host]]",
            ))
        }
    };
    if let Some(c) = &file.shared_cores {
        if *c.get_ref() == 0 {
            return cx.err(&c.span(), "shared_cores must be at least 1");
        }
        p.set_shared_cores(Some(*c.get_ref()));
    }
    for w in cx.warnings.into_inner() {
        p.warn(w);
    }
    Ok(p)
}

fn generated(cx: &Ctx<'_>, name: &str, t: &Spanned<TopologyDesc>) -> Result<Platform, PlatformError> {
    let span = t.span();
    let d = t.get_ref();
    let (link, sharing) = cx.link(&d.link, "topology.link")?;
    let cores = *d.cores.get_ref();
    if cores == 0 {
        return cx.err(&cx.span_or(&d.cores, &span), "topology.cores must be at least 1");
    }
    let limiter_factor = match &d.limiter {
        Some(f) if !(*f.get_ref() > 0.0 && f.get_ref().is_finite()) => {
            return cx.err(
                &f.span(),
                format!("topology.limiter must be a positive factor, found {}", f.get_ref()),
            )
        }
        Some(f) => Some(*f.get_ref()),
        None => None,
    };
    let node = NodeSpec {
        speed: cx.quantity(
            &cx.span_or(&d.speed, &span),
            "topology.speed",
            d.speed.get_ref(),
            units::speed,
            "flop/s",
        )?,
        cores,
        link,
        sharing: cx.sharing(&d.link.span(), "topology.link", &sharing)?,
        limiter_factor,
        loopback: match &d.loopback {
            Some(l) => Some(cx.link(l, "topology.loopback")?.0),
            None => None,
        },
    };
    if let Some(f) = limiter_factor {
        let bw = f * node.link.bandwidth;
        if !(bw > 0.0 && bw.is_finite()) {
            return cx.err(
                &span,
                format!("topology.limiter: {f} x the link bandwidth is not a bandwidth"),
            );
        }
    }
    let kind = d.kind.get_ref().as_str();
    let need = |what: &str| {
        PlatformError::at(
            cx.path,
            cx.line(span.start),
            format!("topology '{}' needs 'topology.{what}'", clip(kind)),
        )
    };
    let wrap = |r: Result<Platform, PlatformError>| {
        r.map_err(|e| PlatformError::at(cx.path, cx.line(span.start), format!("[topology]: {}", e.msg)))
    };
    match kind {
        "flat" => {
            let backbone = match &d.backbone {
                Some(b) => {
                    let (l, s) = cx.link(b, "topology.backbone")?;
                    let policy = match s.as_str() {
                        "shared" => Policy::Shared,
                        "fatpipe" => Policy::Fatpipe,
                        other => {
                            return cx.err(
                                &b.span(),
                                format!("topology.backbone.sharing: shared or fatpipe, not '{}'", clip(other)),
                            )
                        }
                    };
                    Some((l, policy))
                }
                None => None,
            };
            let hosts = d.hosts.as_ref().ok_or_else(|| need("hosts"))?;
            let n = *hosts.get_ref();
            if n == 0 || n > MAX_HOSTS {
                return cx.err(
                    &hosts.span(),
                    format!("topology.hosts = {n}: a platform has from 1 to {MAX_HOSTS} hosts"),
                );
            }
            wrap(generate::flat(name, n, &node, backbone))
        }
        "torus" => {
            let dims = d.dims.as_ref().ok_or_else(|| need("dims"))?;
            if dims.get_ref().is_empty() || dims.get_ref().contains(&0) {
                return cx.err(
                    &dims.span(),
                    format!(
                        "topology.dims = {:?}: a torus needs at least one dimension, each at least 1",
                        &dims.get_ref()[..dims.get_ref().len().min(8)]
                    ),
                );
            }
            wrap(generate::torus(name, dims.get_ref(), &node))
        }
        "fat-tree" => {
            let s = d.fat_tree.as_ref().ok_or_else(|| need("fat_tree"))?;
            let (levels, down, up, count) =
                parse_fat_tree(s.get_ref()).or_else(|m| cx.err(&s.span(), format!("topology.fat_tree: {m}")))?;
            wrap(generate::fat_tree(name, levels, &down, &up, &count, &node))
        }
        "dragonfly" => {
            let s = d.dragonfly.as_ref().ok_or_else(|| need("dragonfly"))?;
            let (g, c, b, n) =
                parse_dragonfly(s.get_ref()).or_else(|m| cx.err(&s.span(), format!("topology.dragonfly: {m}")))?;
            wrap(generate::dragonfly(name, g, c, b, n, &node))
        }
        "cabinets" => {
            let sw = cx
                .link(
                    d.cabinet_switch.as_ref().ok_or_else(|| need("cabinet_switch"))?,
                    "topology.cabinet_switch",
                )?
                .0;
            let up = cx
                .link(d.uplink.as_ref().ok_or_else(|| need("uplink"))?, "topology.uplink")?
                .0;
            let lim = match &d.uplink_limiter {
                Some(s) => {
                    let bw = cx.quantity(
                        &s.span(),
                        "topology.uplink_limiter",
                        s.get_ref(),
                        units::bandwidth,
                        "bytes/s",
                    )?;
                    if bw <= 0.0 {
                        return cx.err(&s.span(), "topology.uplink_limiter must be positive");
                    }
                    Some(bw)
                }
                None => None,
            };
            let cabinets = d.cabinets.as_ref().ok_or_else(|| need("cabinets"))?;
            let per = d.per_cabinet.as_ref().ok_or_else(|| need("per_cabinet"))?;
            if *cabinets.get_ref() == 0 {
                return cx.err(&cabinets.span(), "topology.cabinets must be at least 1");
            }
            if *per.get_ref() == 0 {
                return cx.err(&per.span(), "topology.per_cabinet must be at least 1");
            }
            wrap(generate::cabinets(
                name,
                *cabinets.get_ref(),
                *per.get_ref(),
                &node,
                sw,
                up,
                lim,
            ))
        }
        other => cx.err(
            &d.kind.span(),
            format!(
                "topology.kind '{}': expected flat, cabinets, torus, fat-tree or dragonfly",
                clip(other)
            ),
        ),
    }
}

/// SimGrid's fat-tree parameters `levels;down,..;up,..;count,..`.
#[allow(clippy::type_complexity)]
pub fn parse_fat_tree(s: &str) -> Result<(u32, Vec<u32>, Vec<u32>, Vec<u32>), String> {
    let bad = || {
        format!(
            "expected fat tree parameters like '2;4,4;1,2;1,2' (levels; down; up; count), found '{}'",
            clip(s)
        )
    };
    let parts: Vec<&str> = s.split(';').collect();
    if parts.len() != 4 {
        return Err(bad());
    }
    let levels: u32 = parts[0].trim().parse().map_err(|_| bad())?;
    let list =
        |p: &str| -> Result<Vec<u32>, String> { p.split(',').map(|x| x.trim().parse().map_err(|_| bad())).collect() };
    let (down, up, count) = (list(parts[1])?, list(parts[2])?, list(parts[3])?);
    if levels == 0
        || [&down, &up, &count]
            .iter()
            .any(|v| v.len() != levels as usize || v.contains(&0))
    {
        return Err(format!(
            "fat tree '{}': each list needs {levels} positive values",
            clip(s)
        ));
    }
    Ok((levels, down, up, count))
}

/// SimGrid's dragonfly parameters `groups,blue;chassis,black;blades,green;nodes`.
#[allow(clippy::type_complexity)]
pub fn parse_dragonfly(s: &str) -> Result<((u32, u32), (u32, u32), (u32, u32), u32), String> {
    let bad = || {
        format!("expected dragonfly parameters like '3,1;4,1;4,1;2' (groups,links; chassis,links; blades,links; nodes), found '{}'", clip(s))
    };
    let parts: Vec<&str> = s.split(';').collect();
    if parts.len() != 4 {
        return Err(bad());
    }
    let pair = |p: &str| -> Result<(u32, u32), String> {
        let v: Vec<u32> = p
            .split(',')
            .map(|x| x.trim().parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        if v.len() != 2 || v.contains(&0) {
            return Err(bad());
        }
        Ok((v[0], v[1]))
    };
    let n: u32 = parts[3].trim().parse().map_err(|_| bad())?;
    if n == 0 {
        return Err(bad());
    }
    Ok((pair(parts[0])?, pair(parts[1])?, pair(parts[2])?, n))
}

fn explicit(cx: &Ctx<'_>, name: &str, f: &File) -> Result<Platform, PlatformError> {
    let kind = match f.routing.as_ref().map(|s| s.get_ref().as_str()) {
        None | Some("full") => TableKind::Full,
        Some("floyd") => TableKind::Floyd,
        Some("dijkstra") => TableKind::Dijkstra,
        Some(other) => {
            let span = f.routing.as_ref().map(|r| r.span()).unwrap_or(0..0);
            return cx.err(
                &span,
                format!("routing '{}': expected full, floyd or dijkstra", clip(other)),
            );
        }
    };
    let mut p = Platform::new(name, ZoneRouting::Table(TableZone::new(kind)));
    let root = p.root();
    for h in &f.host {
        let span = h.span();
        let d = h.get_ref();
        let speed = cx.quantity(
            &cx.span_or(&d.speed, &span),
            "host.speed",
            d.speed.get_ref(),
            units::speed,
            "flop/s",
        )?;
        p.add_host(root, &d.name, speed, *d.cores.get_ref())
            .or_else(|e| cx.err(&span, format!("[[host]]: {}", e.msg)))?;
    }
    for r in &f.router {
        p.add_router(root, &r.get_ref().name)
            .or_else(|e| cx.err(&r.span(), format!("[[router]]: {}", e.msg)))?;
    }
    for l in &f.link {
        let span = l.span();
        let (spec, sharing) = cx.link(l, "link")?;
        let lname = l
            .get_ref()
            .name
            .clone()
            .ok_or(())
            .or_else(|_| cx.err(&span, "a [[link]] needs a name"))?;
        let r = match cx.sharing(&span, "link", &sharing)? {
            Sharing::SplitDuplex => p.add_split_link(&lname, spec.bandwidth, spec.latency).map(|_| ()),
            Sharing::Shared => p
                .add_link(&lname, spec.bandwidth, spec.latency, Policy::Shared)
                .map(|_| ()),
            Sharing::Fatpipe => p
                .add_link(&lname, spec.bandwidth, spec.latency, Policy::Fatpipe)
                .map(|_| ()),
        };
        r.or_else(|e| cx.err(&span, format!("[[link]]: {}", e.msg)))?;
    }
    for r in &f.route {
        let span = r.span();
        let d = r.get_ref();
        let point = |n: &str| {
            p.point_by_name(n)
                .ok_or(())
                .or_else(|_| cx.err(&span, format!("route: unknown host or router '{}'", clip(n))))
        };
        let (a, b) = (point(&d.src)?, point(&d.dst)?);
        if d.links.is_empty() {
            return cx.err(
                &span,
                format!(
                    "route {} -> {}: links is empty (a route has at least one link)",
                    clip(&d.src),
                    clip(&d.dst)
                ),
            );
        }
        let mut links = Vec::new();
        for l in &d.links {
            let (lname, dir) = match l.rsplit_once(':') {
                Some((n, "up")) => (format!("{n}_UP"), true),
                Some((n, "down")) => (format!("{n}_DOWN"), true),
                Some((_, other)) => {
                    return cx.err(
                        &span,
                        format!(
                            "route.links: unknown direction '{}' in '{}': expected up or down",
                            clip(other),
                            clip(l)
                        ),
                    )
                }
                None => (l.clone(), false),
            };
            let id = p.link_by_name(&lname).ok_or(()).or_else(|_| {
                let hint = if !dir && p.link_by_name(&format!("{l}_UP")).is_some() {
                    " (it is split-duplex: write 'name:up' or 'name:down')"
                } else {
                    ""
                };
                cx.err(&span, format!("route.links: unknown link '{}'{hint}", clip(l)))
            })?;
            links.push(id);
        }
        let (pa, pb) = (p.point(a), p.point(b));
        let mut routing = std::mem::replace(&mut p.zone_mut(root).routing, ZoneRouting::Table(TableZone::new(kind)));
        let added = match &mut routing {
            ZoneRouting::Table(t) => t
                .add_route(
                    &p,
                    pa.local,
                    pb.local,
                    TableRoute { links, gateways: None },
                    d.symmetrical,
                )
                .map_err(|m| format!("route {} -> {}: {m}", clip(&d.src), clip(&d.dst))),
            ZoneRouting::Cluster(_) => Err("routes belong in table zones".to_string()),
        };
        p.zone_mut(root).routing = routing;
        added.or_else(|m| cx.err(&span, m))?;
    }
    let routing_span = f.routing.as_ref().map_or(0..0, |r| r.span());
    p.seal().or_else(|e| cx.err(&routing_span, e.msg))?;
    Ok(p)
}
