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
//! Errors name the file and line. The full reference is in `docs/formats.md`.

use crate::cluster::Sharing;
use crate::error::PlatformError;
use crate::generate::{self, LinkSpec, NodeSpec};
use crate::model::{Platform, Policy};
use crate::units;
use crate::zone::{TableKind, TableRoute, TableZone, ZoneRouting};
use serde::Deserialize;
use std::path::Path;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    topology: Option<Spanned<TopologyDesc>>,
    routing: Option<Spanned<String>>,
    #[serde(default)]
    host: Vec<HostDesc>,
    #[serde(default)]
    router: Vec<RouterDesc>,
    #[serde(default)]
    link: Vec<Spanned<LinkDesc>>,
    #[serde(default)]
    route: Vec<Spanned<RouteDesc>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopologyDesc {
    kind: Spanned<String>,
    hosts: Option<u64>,
    #[serde(default = "default_speed")]
    speed: Spanned<String>,
    #[serde(default = "one")]
    cores: u32,
    link: Spanned<LinkDesc>,
    limiter: Option<f64>,
    loopback: Option<Spanned<LinkDesc>>,
    backbone: Option<Spanned<LinkDesc>>,
    dims: Option<Vec<u32>>,
    fat_tree: Option<Spanned<String>>,
    dragonfly: Option<Spanned<String>>,
    cabinets: Option<u32>,
    per_cabinet: Option<u64>,
    cabinet_switch: Option<Spanned<LinkDesc>>,
    uplink: Option<Spanned<LinkDesc>>,
    uplink_limiter: Option<Spanned<String>>,
}

fn default_speed() -> Spanned<String> {
    Spanned::new(0..0, "1Gf".to_string())
}

fn one() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostDesc {
    name: String,
    #[serde(default = "default_speed")]
    speed: Spanned<String>,
    #[serde(default = "one")]
    cores: u32,
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
}

impl Ctx<'_> {
    fn line(&self, offset: usize) -> u32 {
        self.text[..offset.min(self.text.len())]
            .bytes()
            .filter(|&b| b == b'\n')
            .count() as u32
            + 1
    }
    fn err<T>(&self, span: &std::ops::Range<usize>, msg: impl Into<String>) -> Result<T, PlatformError> {
        Err(PlatformError::at(self.path, self.line(span.start), msg))
    }
    fn unit(&self, span: &std::ops::Range<usize>, r: Result<f64, String>) -> Result<f64, PlatformError> {
        r.or_else(|m| self.err(span, m))
    }
    fn link(&self, l: &Spanned<LinkDesc>) -> Result<(LinkSpec, String), PlatformError> {
        let span = l.span();
        let d = l.get_ref();
        let bandwidth = self.unit(&span, units::bandwidth(&d.bandwidth))?;
        if bandwidth <= 0.0 {
            return self.err(&span, "a link's bandwidth must be positive");
        }
        let latency = self.unit(&span, units::time(&d.latency))?;
        Ok((LinkSpec { bandwidth, latency }, d.sharing.clone()))
    }
    fn sharing(&self, span: &std::ops::Range<usize>, s: &str) -> Result<Sharing, PlatformError> {
        match s {
            "shared" => Ok(Sharing::Shared),
            "split-duplex" => Ok(Sharing::SplitDuplex),
            "fatpipe" => Ok(Sharing::Fatpipe),
            other => self.err(
                span,
                format!("unknown sharing '{other}': expected shared, split-duplex or fatpipe"),
            ),
        }
    }
}

/// Parses a native platform file; `path` is used in error messages.
pub fn parse(text: &str, path: &Path) -> Result<Platform, PlatformError> {
    let file: File = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].bytes().filter(|&b| b == b'\n').count() as u32 + 1);
        PlatformError::at(path, line.unwrap_or(0), e.message().to_string())
    })?;
    let cx = Ctx { text, path };
    let name = file.name.clone().unwrap_or_else(|| "platform".into());
    match (&file.topology, file.host.is_empty()) {
        (Some(t), true) => generated(&cx, &name, t),
        (None, false) => explicit(&cx, &name, &file),
        (Some(t), false) => cx.err(
            &t.span(),
            "give either a [topology] or explicit [[host]] entries, not both",
        ),
        (None, true) => Err(PlatformError::at(
            path,
            0,
            "the platform has no [topology] and no [[host]]",
        )),
    }
}

fn generated(cx: &Ctx<'_>, name: &str, t: &Spanned<TopologyDesc>) -> Result<Platform, PlatformError> {
    let span = t.span();
    let d = t.get_ref();
    let (link, sharing) = cx.link(&d.link)?;
    let node = NodeSpec {
        speed: cx.unit(&d.speed.span(), units::speed(d.speed.get_ref()))?,
        cores: d.cores,
        link,
        sharing: cx.sharing(&d.link.span(), &sharing)?,
        limiter_factor: d.limiter,
        loopback: match &d.loopback {
            Some(l) => Some(cx.link(l)?.0),
            None => None,
        },
    };
    let need = |what: &str| {
        PlatformError::at(
            cx.path,
            cx.line(span.start),
            format!("topology '{}' needs '{what}'", d.kind.get_ref()),
        )
    };
    let wrap =
        |r: Result<Platform, PlatformError>| r.map_err(|e| PlatformError::at(cx.path, cx.line(span.start), e.msg));
    match d.kind.get_ref().as_str() {
        "flat" => {
            let backbone = match &d.backbone {
                Some(b) => {
                    let (l, s) = cx.link(b)?;
                    let policy = match s.as_str() {
                        "shared" => Policy::Shared,
                        "fatpipe" => Policy::Fatpipe,
                        other => return cx.err(&b.span(), format!("a backbone is shared or fatpipe, not '{other}'")),
                    };
                    Some((l, policy))
                }
                None => None,
            };
            wrap(generate::flat(
                name,
                d.hosts.ok_or_else(|| need("hosts"))?,
                &node,
                backbone,
            ))
        }
        "torus" => wrap(generate::torus(
            name,
            d.dims.as_ref().ok_or_else(|| need("dims"))?,
            &node,
        )),
        "fat-tree" => {
            let s = d.fat_tree.as_ref().ok_or_else(|| need("fat_tree"))?;
            let (levels, down, up, count) = parse_fat_tree(s.get_ref()).or_else(|m| cx.err(&s.span(), m))?;
            wrap(generate::fat_tree(name, levels, &down, &up, &count, &node))
        }
        "dragonfly" => {
            let s = d.dragonfly.as_ref().ok_or_else(|| need("dragonfly"))?;
            let (g, c, b, n) = parse_dragonfly(s.get_ref()).or_else(|m| cx.err(&s.span(), m))?;
            wrap(generate::dragonfly(name, g, c, b, n, &node))
        }
        "cabinets" => {
            let sw = cx
                .link(d.cabinet_switch.as_ref().ok_or_else(|| need("cabinet_switch"))?)?
                .0;
            let up = cx.link(d.uplink.as_ref().ok_or_else(|| need("uplink"))?)?.0;
            let lim = match &d.uplink_limiter {
                Some(s) => Some(cx.unit(&s.span(), units::bandwidth(s.get_ref()))?),
                None => None,
            };
            wrap(generate::cabinets(
                name,
                d.cabinets.ok_or_else(|| need("cabinets"))?,
                d.per_cabinet.ok_or_else(|| need("per_cabinet"))?,
                &node,
                sw,
                up,
                lim,
            ))
        }
        other => cx.err(
            &d.kind.span(),
            format!("unknown topology '{other}': expected flat, cabinets, torus, fat-tree or dragonfly"),
        ),
    }
}

/// SimGrid's fat-tree parameters `levels;down,..;up,..;count,..`.
#[allow(clippy::type_complexity)]
pub fn parse_fat_tree(s: &str) -> Result<(u32, Vec<u32>, Vec<u32>, Vec<u32>), String> {
    let bad = || format!("expected fat tree parameters like '2;4,4;1,2;1,2' (levels; down; up; count), found '{s}'");
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
        return Err(format!("fat tree '{s}': each list needs {levels} positive values"));
    }
    Ok((levels, down, up, count))
}

/// SimGrid's dragonfly parameters `groups,blue;chassis,black;blades,green;nodes`.
#[allow(clippy::type_complexity)]
pub fn parse_dragonfly(s: &str) -> Result<((u32, u32), (u32, u32), (u32, u32), u32), String> {
    let bad = || {
        format!("expected dragonfly parameters like '3,1;4,1;4,1;2' (groups,links; chassis,links; blades,links; nodes), found '{s}'")
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
            return cx.err(
                &f.routing.as_ref().unwrap().span(),
                format!("unknown routing '{other}': expected full, floyd or dijkstra"),
            )
        }
    };
    let mut p = Platform::new(name, ZoneRouting::Table(TableZone::new(kind)));
    let root = p.root();
    for h in &f.host {
        let speed = cx.unit(&h.speed.span(), units::speed(h.speed.get_ref()))?;
        p.add_host(root, &h.name, speed, h.cores)
            .or_else(|e| cx.err(&h.speed.span(), e.msg))?;
    }
    for r in &f.router {
        p.add_router(root, &r.name)
            .map_err(|e| PlatformError::at(cx.path, 0, e.msg))?;
    }
    for l in &f.link {
        let (spec, sharing) = cx.link(l)?;
        let lname = l
            .get_ref()
            .name
            .clone()
            .ok_or(())
            .or_else(|_| cx.err(&l.span(), "a [[link]] needs a name"))?;
        let r = match cx.sharing(&l.span(), &sharing)? {
            Sharing::SplitDuplex => p.add_split_link(&lname, spec.bandwidth, spec.latency).map(|_| ()),
            Sharing::Shared => p
                .add_link(&lname, spec.bandwidth, spec.latency, Policy::Shared)
                .map(|_| ()),
            Sharing::Fatpipe => p
                .add_link(&lname, spec.bandwidth, spec.latency, Policy::Fatpipe)
                .map(|_| ()),
        };
        r.or_else(|e| cx.err(&l.span(), e.msg))?;
    }
    for r in &f.route {
        let span = r.span();
        let d = r.get_ref();
        let point = |n: &str| {
            p.point_by_name(n)
                .ok_or(())
                .or_else(|_| cx.err(&span, format!("unknown host or router '{n}' in route")))
        };
        let (a, b) = (point(&d.src)?, point(&d.dst)?);
        let mut links = Vec::new();
        for l in &d.links {
            let (lname, dir) = match l.rsplit_once(':') {
                Some((n, "up")) => (format!("{n}_UP"), true),
                Some((n, "down")) => (format!("{n}_DOWN"), true),
                Some((_, other)) => {
                    return cx.err(
                        &span,
                        format!("unknown direction '{other}' in '{l}': expected up or down"),
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
                cx.err(&span, format!("unknown link '{l}' in route{hint}"))
            })?;
            links.push(id);
        }
        let (la, lb) = (p.point(a).local, p.point(b).local);
        let mut routing = std::mem::replace(&mut p.zone_mut(root).routing, ZoneRouting::Table(TableZone::new(kind)));
        if let ZoneRouting::Table(t) = &mut routing {
            t.add_route(&p, la, lb, TableRoute { links, gateways: None }, d.symmetrical)
                .or_else(|m| cx.err(&span, format!("route {} -> {}: {m}", d.src, d.dst)))?;
        }
        p.zone_mut(root).routing = routing;
    }
    p.seal()?;
    Ok(p)
}
