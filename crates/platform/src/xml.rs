//! SimGrid platform XML (version 4.1) import: `<zone>` (Full, Floyd, Dijkstra routing),
//! `<host>`, `<router>`, `<link>`, `<route>` and `<zoneRoute>` with `<link_ctn>`, and
//! `<cluster>` (flat with backbone, limiters and loopbacks; TORUS, FAT_TREE, DRAGONFLY),
//! built the way SimGrid 3.32 builds them so that routes match link for link.
//!
//! Every element and attribute of SimGrid 3.32's DTD is either read or refused by name
//! with its line: availability and bandwidth traces, `<config>`, `<include>`, bypass
//! routes, `<cabinet>`, `<host_link>`, `<backbone>`, `<peer>`, disks, Vivaldi, Wifi,
//! None and Cluster zones would all change what SimGrid computes, so none is ignored.
//! `<prop>` is metadata (energy figures, user keys) and is skipped, except the `smpi/`
//! keys of hosts and clusters, which set SMPI's per-host overheads and are refused.
//! Zones nest at most [`crate::model::MAX_ZONE_DEPTH`] deep and are read without
//! recursion.

use crate::cluster::{add_cluster, cluster_platform, ClusterSpec, Radical, Sharing, Topology};
use crate::error::PlatformError;
use crate::model::{Platform, PointKind, Policy, ZoneId};
use crate::toml_file::{parse_dragonfly, parse_fat_tree};
use crate::units::{self, clip};
use crate::zone::{TableKind, TableRoute, TableZone, ZoneRouting};
use roxmltree::{Document, Node, ParsingOptions};
use std::path::Path;

struct Cx<'a> {
    path: &'a Path,
    doc: &'a Document<'a>,
    warnings: Vec<PlatformError>,
}

impl Cx<'_> {
    fn line(&self, n: Node<'_, '_>) -> u32 {
        self.doc.text_pos_at(n.range().start).row
    }

    fn err<T>(&self, n: Node<'_, '_>, msg: impl Into<String>) -> Result<T, PlatformError> {
        Err(PlatformError::at(self.path, self.line(n), msg))
    }

    fn at(&self, n: Node<'_, '_>, e: PlatformError) -> PlatformError {
        PlatformError::at(self.path, self.line(n), e.msg)
    }

    fn warn(&mut self, n: Node<'_, '_>, msg: impl Into<String>) {
        let w = PlatformError::at(self.path, self.line(n), msg);
        self.warnings.push(w);
    }

    fn attr<'n>(&self, n: Node<'n, '_>, name: &str) -> Result<&'n str, PlatformError> {
        n.attribute(name)
            .ok_or(())
            .or_else(|_| self.err(n, format!("<{}> needs the attribute '{name}'", tag(n))))
    }

    /// An attribute whose DTD default is empty: an empty value is no value.
    fn optional<'n>(&self, n: Node<'n, '_>, name: &str) -> Option<&'n str> {
        n.attribute(name).filter(|v| !v.trim().is_empty())
    }

    /// A quantity: `parse` reads it; a unit-less value other than zero is taken in the
    /// default unit with a warning, as SimGrid does.
    fn quantity(
        &mut self,
        n: Node<'_, '_>,
        what: &str,
        value: &str,
        parse: fn(&str) -> Result<f64, String>,
        unit: &str,
    ) -> Result<f64, PlatformError> {
        let v = parse(value).or_else(|e| self.err(n, format!("<{}> {what}: {e}", tag(n))))?;
        if units::unitless(value) {
            self.warn(
                n,
                format!(
                    "<{}> {what} '{}' has no unit: read as {} {unit}, as SimGrid does (write the unit)",
                    tag(n),
                    clip(value.trim()),
                    v
                ),
            );
        }
        Ok(v)
    }

    /// Speeds, one per pstate (`1Gf,500Mf`).
    fn speeds(&mut self, n: Node<'_, '_>, value: &str) -> Result<Vec<f64>, PlatformError> {
        value
            .split(',')
            .map(|s| self.quantity(n, "speed", s, units::speed, "flop/s"))
            .collect()
    }

    /// A count like `core`: a positive integer.
    fn count(&self, n: Node<'_, '_>, name: &str, default: u32) -> Result<u32, PlatformError> {
        match n.attribute(name) {
            None => Ok(default),
            Some(c) => match c.trim().parse::<u32>() {
                Ok(v) if v > 0 => Ok(v),
                _ => self.err(
                    n,
                    format!(
                        "<{}> {name} '{}': expected a whole number from 1 to {}",
                        tag(n),
                        clip(c),
                        u32::MAX
                    ),
                ),
            },
        }
    }

    /// Rejects attributes simpi does not know, so nothing is silently ignored; names the
    /// attributes of SimGrid's DTD that simpi does not model.
    fn only(&self, n: Node<'_, '_>, known: &[&str]) -> Result<(), PlatformError> {
        for a in n.attributes() {
            let name = a.name();
            if known.contains(&name) {
                continue;
            }
            let why = match name {
                "speed_file" | "availability_file" => {
                    ": speed traces are not supported (simpi's hosts run at a constant speed)"
                }
                "bandwidth_file" | "latency_file" => {
                    ": bandwidth and latency traces are not supported (simpi's links are constant)"
                }
                "state_file" => ": failure traces are not supported (simpi's hosts and links never fail)",
                _ => "",
            };
            // Traces given as empty strings are the DTD's defaults: no trace.
            if !why.is_empty() && a.value().trim().is_empty() {
                continue;
            }
            return self.err(
                n,
                format!(
                    "<{}> attribute '{}' is not supported{why}{}",
                    tag(n),
                    clip(name),
                    if why.is_empty() {
                        format!(" (simpi reads: {})", known.join(", "))
                    } else {
                        String::new()
                    }
                ),
            );
        }
        Ok(())
    }

    /// Rejects text inside elements (SimGrid's DTD has none where simpi reads).
    fn no_text(&self, n: Node<'_, '_>) -> Result<(), PlatformError> {
        for c in n.children() {
            if let Some(t) = c.text().filter(|_| c.is_text()) {
                if !t.trim().is_empty() {
                    return self.err(c, format!("unexpected text '{}' in <{}>", clip(t.trim()), tag(n)));
                }
            }
        }
        Ok(())
    }

    /// `<prop>` children: metadata, except SMPI's per-host overheads (`smpi/os`, ...)
    /// where `timing` (hosts and clusters), which simpi does not take from the platform.
    fn props(&self, n: Node<'_, '_>, timing: bool, allowed: &[&str]) -> Result<(), PlatformError> {
        self.no_text(n)?;
        for c in n.children().filter(Node::is_element) {
            let name = tag(c);
            if name != "prop" {
                if allowed.contains(&name) {
                    continue;
                }
                return unsupported(self, c, name);
            }
            self.only(c, &["id", "value"])?;
            let key = self.attr(c, "id")?;
            self.attr(c, "value")?;
            if timing && key.starts_with("smpi/") {
                return self.err(
                    c,
                    format!(
                        "<prop id=\"{}\"> sets an SMPI overhead per host, which simpi does not read from the platform: give it on the command line (--os, --or, a preset)",
                        clip(key)
                    ),
                );
            }
        }
        Ok(())
    }
}

fn tag<'a>(n: Node<'a, '_>) -> &'a str {
    n.tag_name().name()
}

/// Parses a SimGrid platform file.
pub fn parse(text: &str, path: &Path) -> Result<Platform, PlatformError> {
    crate::xml_scan::scan(text).map_err(|(line, msg)| PlatformError::at(path, line, msg))?;
    let opts = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, opts).map_err(|e| {
        let pos = e.pos();
        PlatformError::at(path, pos.row, format!("not well-formed XML: {}", clip(&e.to_string())))
    })?;
    let mut cx = Cx {
        path,
        doc: &doc,
        warnings: Vec::new(),
    };
    let root = doc.root_element();
    if tag(root) != "platform" {
        return cx.err(root, format!("expected <platform>, found <{}>", clip(tag(root))));
    }
    cx.only(root, &["version"])?;
    check_version(&cx, root)?;
    cx.no_text(root)?;
    let mut platform: Option<Platform> = None;
    let mut top_line = 1;
    for n in root.children().filter(Node::is_element) {
        match tag(n) {
            "zone" | "AS" => {
                if platform.is_some() {
                    return cx.err(n, "a platform has one root zone; put other zones inside it");
                }
                cx.only(n, &["id", "routing"])?;
                let id = cx.attr(n, "id")?;
                let routing = table_routing(&cx, n)?;
                let mut p = Platform::new(id, routing);
                let z = p.root();
                fill(&mut cx, &mut p, z, n)?;
                platform = Some(p);
                top_line = cx.line(n);
            }
            "cluster" => {
                if platform.is_some() {
                    return cx.err(n, "a platform has one root zone; put clusters inside a <zone>");
                }
                let spec = cluster_spec(&mut cx, n)?;
                platform = Some(cluster_platform(&spec).map_err(|e| cx.at(n, e))?);
                top_line = cx.line(n);
            }
            "random" if platform.is_some() => return cx.err(n, "<random> comes before the platform's zone"),
            "random" => cx.warn(n, "<random> is ignored, as SimGrid 3.32 ignores it"),
            other => return unsupported(&cx, n, other),
        }
    }
    let mut p = platform.ok_or_else(|| PlatformError::at(path, 1, "the platform has no <zone> or <cluster>"))?;
    p.seal().map_err(|e| PlatformError::at(path, top_line, e.msg))?;
    for w in cx.warnings {
        p.warn(w);
    }
    Ok(p)
}

/// SimGrid 3.32 reads versions 4 to 4.1 (older files: `simgrid_update_xml`).
fn check_version(cx: &Cx<'_>, root: Node<'_, '_>) -> Result<(), PlatformError> {
    let v = root.attribute("version").unwrap_or("0.0");
    let hundredths = v
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(|x| (x * 100.0).round());
    match hundredths {
        Some(h) if (400.0..=410.0).contains(&h) => Ok(()),
        Some(h) if h > 410.0 => cx.err(
            root,
            format!("platform version {} comes from the future: simpi reads version 4.1, as SimGrid 3.32", clip(v)),
        ),
        _ => cx.err(
            root,
            format!("platform version {} is not supported: simpi reads version 4.1 (SimGrid's simgrid_update_xml converts older files)", clip(v)),
        ),
    }
}

/// Why an element is not read.
fn unsupported<T>(cx: &Cx<'_>, n: Node<'_, '_>, name: &str) -> Result<T, PlatformError> {
    let why = match name {
        "config" => {
            let keys: Vec<String> = n
                .children()
                .filter(|c| tag(*c) == "prop")
                .filter_map(|c| c.attribute("id"))
                .take(5)
                .map(clip)
                .collect();
            format!(
                " (it sets SimGrid's models{}): give model parameters on the command line (--model, --preset, --lat-factor, ...)",
                if keys.is_empty() {
                    String::new()
                } else {
                    format!(": {}", keys.join(", "))
                }
            )
        }
        "actor" | "process" | "argument" => {
            ": deployment belongs in a separate file; simpi places ranks with --mapping or --hostfile".into()
        }
        "include" => ": inline the included file (SimGrid 3.32 refuses it too)".into(),
        "trace" | "trace_connect" => {
            ": availability, bandwidth and latency traces are not supported (simpi's hosts and links are constant)"
                .into()
        }
        "bypassRoute" | "bypassZoneRoute" | "bypassASroute" => {
            ": bypass routes are not supported; list the route in the zone instead".into()
        }
        "cabinet" | "backbone" | "host_link" => {
            ": it belongs to zones with routing=\"Cluster\", which simpi does not read; use <cluster>".into()
        }
        "peer" => ": it belongs to Vivaldi zones, which simpi does not read".into(),
        "disk" | "storage" | "storage_type" | "mount" | "model_prop" => ": simpi models no storage".into(),
        _ => String::new(),
    };
    cx.err(n, format!("<{}> is not supported{why}", clip(name)))
}

fn table_routing(cx: &Cx<'_>, n: Node<'_, '_>) -> Result<ZoneRouting, PlatformError> {
    let r = cx.attr(n, "routing")?;
    let kind = match r.to_ascii_lowercase().as_str() {
        "full" => TableKind::Full,
        "floyd" => TableKind::Floyd,
        "dijkstra" | "dijkstracache" => TableKind::Dijkstra,
        _ => {
            return cx.err(
                n,
                format!("routing '{}' is not supported: simpi reads Full, Floyd, Dijkstra and DijkstraCache zones (and <cluster>)", clip(r)),
            )
        }
    };
    Ok(ZoneRouting::Table(TableZone::new(kind)))
}

#[derive(Copy, Clone, PartialEq)]
enum Sharing2 {
    Shared,
    Split,
    Fatpipe,
}

fn policy_of(cx: &mut Cx<'_>, n: Node<'_, '_>, attr: &str, default: &str) -> Result<Sharing2, PlatformError> {
    let s = n.attribute(attr).unwrap_or(default);
    Ok(match s {
        "SHARED" => Sharing2::Shared,
        "SPLITDUPLEX" => Sharing2::Split,
        "FULLDUPLEX" => {
            cx.warn(n, "FULLDUPLEX is deprecated: read as SPLITDUPLEX, as SimGrid does");
            Sharing2::Split
        }
        "FATPIPE" => Sharing2::Fatpipe,
        "WIFI" => {
            return cx.err(
                n,
                format!("{attr} WIFI is not supported: simpi models no wireless links"),
            )
        }
        other => {
            return cx.err(
                n,
                format!(
                    "{attr} '{}' is not supported: expected SHARED, SPLITDUPLEX or FATPIPE",
                    clip(other)
                ),
            )
        }
    })
}

/// What a zone may hold besides `<prop>`s.
const ZONE_CHILDREN: &[&str] = &[
    "zone",
    "AS",
    "cluster",
    "host",
    "router",
    "link",
    "route",
    "zoneRoute",
    "ASroute",
];

/// What a zone has held so far. SimGrid's DTD (which its parser enforces) lets a zone
/// hold `<prop>`s, then either sub-zones and clusters joined by `<zoneRoute>`s or hosts
/// and routers joined by `<route>`s, links among either, routes last.
#[derive(Default)]
struct Shape {
    /// Sub-zones (true) or hosts (false), once known.
    zones: Option<bool>,
    elements: bool,
    routes: bool,
}

impl Shape {
    fn admit(&mut self, cx: &Cx<'_>, n: Node<'_, '_>, zone: &str) -> Result<(), PlatformError> {
        let t = tag(n);
        let (holds_zones, is_route) = match t {
            "prop" if self.elements || self.routes => {
                return cx.err(
                    n,
                    format!(
                        "<prop> after the elements of zone '{}': a zone's <prop>s come first",
                        clip(zone)
                    ),
                )
            }
            "prop" => return Ok(()),
            "zone" | "AS" | "cluster" => (Some(true), false),
            "host" | "router" => (Some(false), false),
            "zoneRoute" | "ASroute" => (Some(true), true),
            "route" => (Some(false), true),
            _ => (None, false),
        };
        if let (Some(want), Some(have)) = (holds_zones, self.zones) {
            if want != have {
                return cx.err(
                    n,
                    format!(
                        "<{t}> in zone '{}', which holds {}: a zone holds either sub-zones and clusters (joined by <zoneRoute>s) or hosts and routers (joined by <route>s), as in SimGrid",
                        clip(zone),
                        if have { "sub-zones or clusters" } else { "hosts or routers" }
                    ),
                );
            }
        }
        if self.routes && !is_route {
            return cx.err(
                n,
                format!(
                    "<{t}> after the routes of zone '{}': a zone's routes come last, as in SimGrid",
                    clip(zone)
                ),
            );
        }
        self.zones = self.zones.or(holds_zones);
        self.elements = true;
        self.routes |= is_route;
        Ok(())
    }
}

/// Reads the elements of `zone` (and of the zones inside it, depth first, in document
/// order) into zone `z`, with an explicit stack rather than recursion.
fn fill(cx: &mut Cx<'_>, p: &mut Platform, z: ZoneId, zone: Node<'_, '_>) -> Result<(), PlatformError> {
    cx.props(zone, false, ZONE_CHILDREN)?;
    let mut stack: Vec<(ZoneId, Option<Node>, Shape)> = vec![(z, zone.first_element_child(), Shape::default())];
    while let Some(top) = stack.last_mut() {
        let (z, Some(n), _) = *top else {
            stack.pop();
            continue;
        };
        top.1 = n.next_sibling_element();
        top.2.admit(cx, n, &p.zone(z).name)?;
        match tag(n) {
            "zone" | "AS" => {
                cx.only(n, &["id", "routing"])?;
                let id = cx.attr(n, "id")?;
                let routing = table_routing(cx, n)?;
                // add_zone refuses zones past MAX_ZONE_DEPTH, so the stack stays short.
                let sub = p.add_zone(z, id, routing).map_err(|e| cx.at(n, e))?;
                cx.props(n, false, ZONE_CHILDREN)?;
                stack.push((sub, n.first_element_child(), Shape::default()));
            }
            "cluster" => {
                let spec = cluster_spec(cx, n)?;
                add_cluster(p, z, &spec).map_err(|e| cx.at(n, e))?;
            }
            "host" => host(cx, p, z, n)?,
            "router" => {
                cx.only(n, &["id", "coordinates"])?;
                cx.props(n, false, &[])?;
                p.add_router(z, cx.attr(n, "id")?).map_err(|e| cx.at(n, e))?;
            }
            "link" => link(cx, p, n)?,
            "route" | "zoneRoute" | "ASroute" => route(cx, p, z, n)?,
            "prop" => {}
            other => return unsupported(cx, n, other),
        }
    }
    Ok(())
}

fn host(cx: &mut Cx<'_>, p: &mut Platform, z: ZoneId, n: Node<'_, '_>) -> Result<(), PlatformError> {
    cx.only(n, &["id", "speed", "core", "pstate", "coordinates"])?;
    cx.props(n, true, &[])?;
    let id = cx.attr(n, "id")?;
    let speeds = cx.speeds(n, cx.attr(n, "speed")?)?;
    // SimGrid starts a host in pstate `pstate` (default 0): its speed is that entry.
    let pstate = match n.attribute("pstate") {
        None => 0,
        Some(s) => {
            let v = s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| *v >= 0.0 && v.fract() == 0.0 && *v < 1e9);
            match v {
                Some(v) if (v as usize) < speeds.len() => v as usize,
                _ => {
                    return cx.err(
                        n,
                        format!(
                            "<host> pstate '{}': expected a pstate from 0 to {} (the host lists {} speed{})",
                            clip(s),
                            speeds.len() - 1,
                            speeds.len(),
                            if speeds.len() == 1 { "" } else { "s" }
                        ),
                    )
                }
            }
        }
    };
    let cores = cx.count(n, "core", 1)?;
    p.add_host(z, id, speeds[pstate], cores).map_err(|e| cx.at(n, e))?;
    Ok(())
}

fn link(cx: &mut Cx<'_>, p: &mut Platform, n: Node<'_, '_>) -> Result<(), PlatformError> {
    cx.only(n, &["id", "bandwidth", "latency", "sharing_policy"])?;
    cx.props(n, false, &[])?;
    let id = cx.attr(n, "id")?;
    let policy = policy_of(cx, n, "sharing_policy", "SHARED")?;
    let bws = cx.attr(n, "bandwidth")?;
    if bws.contains([',', ';']) {
        return cx.err(
            n,
            format!(
                "<link> bandwidth '{}': several bandwidths are for WIFI links, which simpi does not model",
                clip(bws)
            ),
        );
    }
    let bw = cx.quantity(n, "bandwidth", bws, units::bandwidth, "bytes/s")?;
    if n.attribute("latency").is_none() {
        cx.warn(
            n,
            "<link> has no latency: read as 0 (SimGrid 3.32 refuses a link without one)",
        );
    }
    let lat = cx.quantity(n, "latency", n.attribute("latency").unwrap_or("0"), units::time, "s")?;
    let r = match policy {
        Sharing2::Shared => p.add_link(id, bw, lat, Policy::Shared).map(|_| ()),
        Sharing2::Fatpipe => p.add_link(id, bw, lat, Policy::Fatpipe).map(|_| ()),
        Sharing2::Split => p.add_split_link(id, bw, lat).map(|_| ()),
    };
    r.map_err(|e| cx.at(n, e))
}

fn route(cx: &mut Cx<'_>, p: &mut Platform, z: ZoneId, n: Node<'_, '_>) -> Result<(), PlatformError> {
    let between_zones = tag(n) != "route";
    if between_zones {
        cx.only(n, &["src", "dst", "gw_src", "gw_dst", "symmetrical"])?;
    } else {
        cx.only(n, &["src", "dst", "symmetrical"])?;
    }
    cx.no_text(n)?;
    let (src, dst) = (cx.attr(n, "src")?, cx.attr(n, "dst")?);
    let symmetrical = match n.attribute("symmetrical").unwrap_or("YES") {
        "YES" | "yes" => true,
        "NO" | "no" => false,
        other => return cx.err(n, format!("symmetrical='{}': expected YES or NO", clip(other))),
    };
    let member = |name: &str| -> Result<(u32, PointKind), PlatformError> {
        let pt = p
            .point_by_name(name)
            .ok_or(())
            .or_else(|_| cx.err(n, format!("unknown host, router or zone '{}' in route", clip(name))))?;
        let point = p.point(pt);
        if point.zone != z {
            return cx.err(
                n,
                format!(
                    "'{}' is not a member of zone '{}': a route joins members of the zone it is in",
                    clip(name),
                    clip(&p.zone(z).name)
                ),
            );
        }
        Ok((point.local, point.kind))
    };
    let ((a, kind_a), (b, kind_b)) = (member(src)?, member(dst)?);
    // SimGrid's rules: a <route> joins hosts and routers, a <zoneRoute> joins zones
    // through a gateway inside each, two different hosts or routers.
    let gateways = if between_zones {
        for (name, kind) in [(src, kind_a), (dst, kind_b)] {
            if !matches!(kind, PointKind::Zone(_)) {
                return cx.err(n, format!("<{}> joins zones, and '{}' is not one", tag(n), clip(name)));
            }
        }
        let gw = |attr: &str, inside: PointKind| -> Result<_, PlatformError> {
            let name = cx.attr(n, attr)?;
            let g = p
                .point_by_name(name)
                .ok_or(())
                .or_else(|_| cx.err(n, format!("unknown gateway {attr}='{}'", clip(name))))?;
            let PointKind::Zone(zone) = inside else {
                unreachable!("checked above")
            };
            if matches!(p.point(g).kind, PointKind::Zone(_)) {
                return cx.err(
                    n,
                    format!("{attr}='{}' is a zone: a gateway is a host or a router", clip(name)),
                );
            }
            if !p.is_inside(g, zone) {
                return cx.err(
                    n,
                    format!(
                        "{attr}='{}' is not inside zone '{}': a gateway belongs to the zone it leads into",
                        clip(name),
                        clip(&p.zone(zone).name)
                    ),
                );
            }
            Ok(g)
        };
        let (gs, gd) = (gw("gw_src", kind_a)?, gw("gw_dst", kind_b)?);
        if gs == gd {
            return cx.err(n, "gw_src and gw_dst are the same point");
        }
        Some((gs, gd))
    } else {
        for (name, kind) in [(src, kind_a), (dst, kind_b)] {
            if matches!(kind, PointKind::Zone(_)) {
                return cx.err(
                    n,
                    format!(
                        "'{}' is a zone: routes between zones are <zoneRoute>s, with gateways",
                        clip(name)
                    ),
                );
            }
        }
        None
    };
    let mut links = Vec::new();
    for c in n.children().filter(Node::is_element) {
        if tag(c) != "link_ctn" {
            return unsupported(cx, c, tag(c));
        }
        cx.only(c, &["id", "direction"])?;
        cx.no_text(c)?;
        let id = cx.attr(c, "id")?;
        let name = match c.attribute("direction").unwrap_or("NONE") {
            "UP" => format!("{id}_UP"),
            "DOWN" => format!("{id}_DOWN"),
            "NONE" => id.to_string(),
            other => return cx.err(c, format!("direction '{}': expected UP, DOWN or NONE", clip(other))),
        };
        let l = p.link_by_name(&name).ok_or(()).or_else(|_| {
            let hint = if p.link_by_name(&format!("{id}_UP")).is_some() {
                " (it is SPLITDUPLEX: give direction=\"UP\" or \"DOWN\")"
            } else {
                ""
            };
            cx.err(c, format!("unknown link '{}'{hint}", clip(id)))
        })?;
        links.push(l);
    }
    if links.is_empty() {
        return cx.err(
            n,
            format!(
                "the route {} -> {} has no link (SimGrid forbids empty routes)",
                clip(src),
                clip(dst)
            ),
        );
    }
    let mut routing = std::mem::replace(
        &mut p.zone_mut(z).routing,
        ZoneRouting::Table(TableZone::new(TableKind::Full)),
    );
    let r = match &mut routing {
        ZoneRouting::Table(t) => t
            .add_route(p, a, b, TableRoute { links, gateways }, symmetrical)
            .map_err(|m| {
                PlatformError::at(
                    cx.path,
                    cx.line(n),
                    format!("route {} -> {}: {m}", clip(src), clip(dst)),
                )
            }),
        _ => Err(PlatformError::at(
            cx.path,
            cx.line(n),
            "routes belong in Full, Floyd or Dijkstra zones",
        )),
    };
    p.zone_mut(z).routing = routing;
    r
}

fn cluster_spec(cx: &mut Cx<'_>, n: Node<'_, '_>) -> Result<ClusterSpec, PlatformError> {
    cx.only(
        n,
        &[
            "id",
            "prefix",
            "suffix",
            "radical",
            "speed",
            "core",
            "bw",
            "lat",
            "sharing_policy",
            "bb_bw",
            "bb_lat",
            "bb_sharing_policy",
            "limiter_link",
            "loopback_bw",
            "loopback_lat",
            "topology",
            "topo_parameters",
            "router_id",
        ],
    )?;
    cx.props(n, true, &[])?;
    let opt =
        |cx: &mut Cx<'_>, a: &str, parse: fn(&str) -> Result<f64, String>, unit: &str| -> Result<f64, PlatformError> {
            match cx.optional(n, a) {
                None => Ok(0.0),
                Some(v) => cx.quantity(n, a, v, parse, unit),
            }
        };
    let radical = Radical::parse(cx.attr(n, "radical")?).or_else(|m| cx.err(n, m))?;
    // SimGrid 3.32 makes cluster links split-duplex or plain shared: FATPIPE is ignored.
    let sharing = match policy_of(cx, n, "sharing_policy", "SPLITDUPLEX")? {
        Sharing2::Split => Sharing::SplitDuplex,
        Sharing2::Shared | Sharing2::Fatpipe => Sharing::Shared,
    };
    let (bb_bw, bb_lat) = (
        opt(cx, "bb_bw", units::bandwidth, "bytes/s")?,
        opt(cx, "bb_lat", units::time, "s")?,
    );
    let bb_policy = match policy_of(cx, n, "bb_sharing_policy", "SHARED")? {
        Sharing2::Fatpipe => Policy::Fatpipe,
        Sharing2::Shared => Policy::Shared,
        Sharing2::Split => return cx.err(n, "bb_sharing_policy: expected SHARED or FATPIPE"),
    };
    let backbone = (bb_bw > 0.0 || bb_lat > 0.0).then_some((bb_bw, bb_lat, bb_policy));
    let limiter = Some(opt(cx, "limiter_link", units::bandwidth, "bytes/s")?).filter(|&b| b > 0.0);
    let (lb, ll) = (
        opt(cx, "loopback_bw", units::bandwidth, "bytes/s")?,
        opt(cx, "loopback_lat", units::time, "s")?,
    );
    let loopback = (lb > 0.0 || ll > 0.0).then_some((lb, ll));
    let params = n.attribute("topo_parameters").unwrap_or("");
    let topology = match n.attribute("topology").unwrap_or("FLAT") {
        "FLAT" => Topology::Flat,
        "TORUS" => Topology::Torus(
            params
                .split(',')
                .map(|d| d.trim().parse::<u32>().ok().filter(|&d| d > 0))
                .collect::<Option<_>>()
                .ok_or(())
                .or_else(|_| {
                    cx.err(
                        n,
                        format!(
                            "topo_parameters '{}': expected positive torus dimensions like 4,4,4",
                            clip(params)
                        ),
                    )
                })?,
        ),
        "FAT_TREE" => {
            let (levels, down, up, count) = parse_fat_tree(params).or_else(|m| cx.err(n, m))?;
            Topology::FatTree {
                levels,
                down,
                up,
                count,
            }
        }
        "DRAGONFLY" => {
            let (groups, chassis, blades, nodes) = parse_dragonfly(params).or_else(|m| cx.err(n, m))?;
            Topology::Dragonfly {
                groups,
                chassis,
                blades,
                nodes,
            }
        }
        other => {
            return cx.err(
                n,
                format!(
                    "topology '{}' is not supported: expected FLAT, TORUS, FAT_TREE or DRAGONFLY",
                    clip(other)
                ),
            )
        }
    };
    let speeds = cx.speeds(n, cx.attr(n, "speed")?)?;
    let bw = cx.attr(n, "bw")?;
    let lat = cx.attr(n, "lat")?;
    Ok(ClusterSpec {
        id: cx.attr(n, "id")?.to_string(),
        prefix: cx.attr(n, "prefix")?.to_string(),
        suffix: cx.attr(n, "suffix")?.to_string(),
        radical,
        // A cluster's hosts start in pstate 0.
        speed: speeds[0],
        cores: cx.count(n, "core", 1)?,
        bw: cx.quantity(n, "bw", bw, units::bandwidth, "bytes/s")?,
        lat: cx.quantity(n, "lat", lat, units::time, "s")?,
        sharing,
        backbone,
        limiter,
        loopback,
        topology,
        router_id: cx.optional(n, "router_id").map(String::from),
    })
}
