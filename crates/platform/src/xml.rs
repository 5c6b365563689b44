//! SimGrid platform XML (version 4.1) import: `<zone>` (Full, Floyd, Dijkstra routing),
//! `<host>`, `<router>`, `<link>`, `<route>` and `<zoneRoute>` with `<link_ctn>`, and
//! `<cluster>` (flat with backbone, limiters and loopbacks; TORUS, FAT_TREE, DRAGONFLY),
//! built the way SimGrid 3.32 builds them so that routes match link for link. Anything
//! else is an error naming the element and its line.

use crate::cluster::{add_cluster, cluster_platform, ClusterSpec, Sharing, Topology};
use crate::error::PlatformError;
use crate::model::{Platform, Policy, ZoneId};
use crate::toml_file::{parse_dragonfly, parse_fat_tree};
use crate::units;
use crate::zone::{TableKind, TableRoute, TableZone, ZoneRouting};
use roxmltree::{Document, Node, ParsingOptions};
use std::path::Path;

struct Cx<'a> {
    path: &'a Path,
    doc: &'a Document<'a>,
}

impl Cx<'_> {
    fn line(&self, n: Node<'_, '_>) -> u32 {
        self.doc.text_pos_at(n.range().start).row
    }

    fn err<T>(&self, n: Node<'_, '_>, msg: impl Into<String>) -> Result<T, PlatformError> {
        Err(PlatformError::at(self.path, self.line(n), msg))
    }

    fn attr<'n>(&self, n: Node<'n, '_>, name: &str) -> Result<&'n str, PlatformError> {
        n.attribute(name)
            .ok_or(())
            .or_else(|_| self.err(n, format!("<{}> needs the attribute '{name}'", n.tag_name().name())))
    }

    fn unit(&self, n: Node<'_, '_>, what: &str, r: Result<f64, String>) -> Result<f64, PlatformError> {
        r.or_else(|e| self.err(n, format!("<{}> {what}: {e}", n.tag_name().name())))
    }

    /// Rejects attributes simpi does not know, so nothing is silently ignored.
    fn only(&self, n: Node<'_, '_>, known: &[&str]) -> Result<(), PlatformError> {
        for a in n.attributes() {
            if !known.contains(&a.name()) {
                return self.err(
                    n,
                    format!(
                        "<{}> attribute '{}' is not supported (simpi reads: {})",
                        n.tag_name().name(),
                        a.name(),
                        known.join(", ")
                    ),
                );
            }
        }
        Ok(())
    }
}

/// Parses a SimGrid platform file.
pub fn parse(text: &str, path: &Path) -> Result<Platform, PlatformError> {
    let opts = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, opts).map_err(|e| {
        let pos = e.pos();
        PlatformError::at(path, pos.row, format!("not well-formed XML: {e}"))
    })?;
    let cx = Cx { path, doc: &doc };
    let root = doc.root_element();
    if root.tag_name().name() != "platform" {
        return cx.err(root, format!("expected <platform>, found <{}>", root.tag_name().name()));
    }
    let version = root.attribute("version").unwrap_or("0");
    if !version.starts_with('4') {
        return cx.err(
            root,
            format!("platform version {version} is not supported: simpi reads version 4.1 (SimGrid's simgrid_update_xml converts older files)"),
        );
    }
    let tops: Vec<Node> = root.children().filter(Node::is_element).collect();
    let mut platform: Option<Platform> = None;
    for n in tops {
        match n.tag_name().name() {
            "zone" | "AS" => {
                if platform.is_some() {
                    return cx.err(n, "a platform has one root zone; put other zones inside it");
                }
                cx.only(n, &["id", "routing"])?;
                let id = cx.attr(n, "id")?;
                let routing = table_routing(&cx, n)?;
                let mut p = Platform::new(id, routing);
                let z = p.root();
                fill_zone(&cx, &mut p, z, n)?;
                platform = Some(p);
            }
            "cluster" => {
                if platform.is_some() {
                    return cx.err(n, "a platform has one root zone; put clusters inside a <zone>");
                }
                platform = Some(cluster_platform(&cluster_spec(&cx, n)?).map_err(|e| at(&cx, n, e))?);
            }
            other => return unsupported(&cx, n, other),
        }
    }
    let mut p = platform.ok_or_else(|| PlatformError::at(path, 1, "the platform has no <zone> or <cluster>"))?;
    p.seal()?;
    Ok(p)
}

fn at(cx: &Cx<'_>, n: Node<'_, '_>, e: PlatformError) -> PlatformError {
    PlatformError::at(cx.path, cx.line(n), e.msg)
}

fn unsupported<T>(cx: &Cx<'_>, n: Node<'_, '_>, name: &str) -> Result<T, PlatformError> {
    let why = match name {
        "config" => ": give model parameters on the command line (--preset, --lat-factor, ...)",
        "actor" | "process" => {
            ": deployment belongs in a separate file; simpi places ranks with --mapping or --hostfile"
        }
        "include" => ": inline the included file",
        _ => "",
    };
    cx.err(n, format!("<{name}> is not supported{why}"))
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
                format!("routing '{r}' is not supported: simpi reads Full, Floyd, Dijkstra and DijkstraCache zones (and <cluster>)"),
            )
        }
    };
    Ok(ZoneRouting::Table(TableZone::new(kind)))
}

fn policy_of(cx: &Cx<'_>, n: Node<'_, '_>, attr: &str, default: &str) -> Result<Policy2, PlatformError> {
    let s = n.attribute(attr).unwrap_or(default);
    Ok(match s {
        "SHARED" => Policy2::Shared,
        "SPLITDUPLEX" | "FULLDUPLEX" => Policy2::Split,
        "FATPIPE" => Policy2::Fatpipe,
        other => {
            return cx.err(
                n,
                format!("sharing policy '{other}' is not supported: expected SHARED, SPLITDUPLEX or FATPIPE"),
            )
        }
    })
}

#[derive(Copy, Clone, PartialEq)]
enum Policy2 {
    Shared,
    Split,
    Fatpipe,
}

fn fill_zone(cx: &Cx<'_>, p: &mut Platform, z: ZoneId, zone: Node<'_, '_>) -> Result<(), PlatformError> {
    for n in zone.children().filter(Node::is_element) {
        let name = n.tag_name().name();
        match name {
            "zone" | "AS" => {
                cx.only(n, &["id", "routing"])?;
                let id = cx.attr(n, "id")?;
                let routing = table_routing(cx, n)?;
                let sub = p.add_zone(z, id, routing).map_err(|e| at(cx, n, e))?;
                fill_zone(cx, p, sub, n)?;
            }
            "cluster" => {
                add_cluster(p, z, &cluster_spec(cx, n)?).map_err(|e| at(cx, n, e))?;
            }
            "host" => {
                cx.only(n, &["id", "speed", "core", "pstate", "coordinates"])?;
                for c in n.children().filter(Node::is_element) {
                    if c.tag_name().name() != "prop" {
                        return unsupported(cx, c, c.tag_name().name());
                    }
                }
                let speed = first_of(cx.attr(n, "speed")?);
                let speed = cx.unit(n, "speed", units::speed(speed))?;
                let cores = match n.attribute("core") {
                    None => 1,
                    Some(c) => c
                        .parse()
                        .or_else(|_| cx.err(n, format!("core '{c}' is not a number")))?,
                };
                p.add_host(z, cx.attr(n, "id")?, speed, cores)
                    .map_err(|e| at(cx, n, e))?;
            }
            "router" => {
                cx.only(n, &["id", "coordinates"])?;
                p.add_router(z, cx.attr(n, "id")?).map_err(|e| at(cx, n, e))?;
            }
            "link" => {
                cx.only(n, &["id", "bandwidth", "latency", "sharing_policy"])?;
                for c in n.children().filter(Node::is_element) {
                    if c.tag_name().name() != "prop" {
                        return unsupported(cx, c, c.tag_name().name());
                    }
                }
                let id = cx.attr(n, "id")?;
                let bw = cx.unit(n, "bandwidth", units::bandwidth(first_of(cx.attr(n, "bandwidth")?)))?;
                let lat = cx.unit(n, "latency", units::time(n.attribute("latency").unwrap_or("0")))?;
                let r = match policy_of(cx, n, "sharing_policy", "SHARED")? {
                    Policy2::Shared => p.add_link(id, bw, lat, Policy::Shared).map(|_| ()),
                    Policy2::Fatpipe => p.add_link(id, bw, lat, Policy::Fatpipe).map(|_| ()),
                    Policy2::Split => p.add_split_link(id, bw, lat).map(|_| ()),
                };
                r.map_err(|e| at(cx, n, e))?;
            }
            "route" | "zoneRoute" | "ASroute" => route(cx, p, z, n)?,
            "prop" => {}
            other => return unsupported(cx, n, other),
        }
    }
    Ok(())
}

/// The first value of a comma-separated list (pstates, wifi rates).
fn first_of(s: &str) -> &str {
    s.split([',', ';']).next().unwrap_or(s).trim()
}

fn route(cx: &Cx<'_>, p: &mut Platform, z: ZoneId, n: Node<'_, '_>) -> Result<(), PlatformError> {
    let between_zones = n.tag_name().name() != "route";
    if between_zones {
        cx.only(n, &["src", "dst", "gw_src", "gw_dst", "symmetrical"])?;
    } else {
        cx.only(n, &["src", "dst", "symmetrical"])?;
    }
    let (src, dst) = (cx.attr(n, "src")?, cx.attr(n, "dst")?);
    let symmetrical = match n.attribute("symmetrical").unwrap_or("YES") {
        "YES" | "yes" => true,
        "NO" | "no" => false,
        other => return cx.err(n, format!("symmetrical='{other}': expected YES or NO")),
    };
    let member = |name: &str| -> Result<u32, PlatformError> {
        let pt = p
            .point_by_name(name)
            .ok_or(())
            .or_else(|_| cx.err(n, format!("unknown host, router or zone '{name}' in route")))?;
        let point = p.point(pt);
        if point.zone != z {
            return cx.err(
                n,
                format!(
                    "'{name}' is not a member of zone '{}': a route joins members of the zone it is in",
                    p.zone(z).name
                ),
            );
        }
        Ok(point.local)
    };
    let (a, b) = (member(src)?, member(dst)?);
    let gateways = if between_zones {
        let gw = |attr: &str| -> Result<_, PlatformError> {
            let name = cx.attr(n, attr)?;
            p.point_by_name(name)
                .ok_or(())
                .or_else(|_| cx.err(n, format!("unknown gateway '{name}'")))
        };
        Some((gw("gw_src")?, gw("gw_dst")?))
    } else {
        None
    };
    let mut links = Vec::new();
    for c in n.children().filter(Node::is_element) {
        if c.tag_name().name() != "link_ctn" {
            return unsupported(cx, c, c.tag_name().name());
        }
        cx.only(c, &["id", "direction"])?;
        let id = cx.attr(c, "id")?;
        let name = match c.attribute("direction").unwrap_or("NONE") {
            "UP" => format!("{id}_UP"),
            "DOWN" => format!("{id}_DOWN"),
            "NONE" => id.to_string(),
            other => return cx.err(c, format!("direction '{other}': expected UP, DOWN or NONE")),
        };
        let l = p.link_by_name(&name).ok_or(()).or_else(|_| {
            let hint = if p.link_by_name(&format!("{id}_UP")).is_some() {
                " (it is SPLITDUPLEX: give direction=\"UP\" or \"DOWN\")"
            } else {
                ""
            };
            cx.err(c, format!("unknown link '{id}'{hint}"))
        })?;
        links.push(l);
    }
    let mut routing = std::mem::replace(
        &mut p.zone_mut(z).routing,
        ZoneRouting::Table(TableZone::new(TableKind::Full)),
    );
    let r = match &mut routing {
        ZoneRouting::Table(t) => t
            .add_route(p, a, b, TableRoute { links, gateways }, symmetrical)
            .map_err(|m| PlatformError::at(cx.path, cx.line(n), format!("route {src} -> {dst}: {m}"))),
        _ => Err(PlatformError::at(
            cx.path,
            cx.line(n),
            "routes belong in Full, Floyd or Dijkstra zones",
        )),
    };
    p.zone_mut(z).routing = routing;
    r
}

fn cluster_spec(cx: &Cx<'_>, n: Node<'_, '_>) -> Result<ClusterSpec, PlatformError> {
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
    for c in n.children().filter(Node::is_element) {
        if c.tag_name().name() != "prop" {
            return unsupported(cx, c, c.tag_name().name());
        }
    }
    let opt_bw = |a: &str| -> Result<f64, PlatformError> {
        match n.attribute(a) {
            None | Some("") => Ok(0.0),
            Some(v) => cx.unit(n, a, units::bandwidth(v)),
        }
    };
    let opt_t = |a: &str| -> Result<f64, PlatformError> {
        match n.attribute(a) {
            None | Some("") => Ok(0.0),
            Some(v) => cx.unit(n, a, units::time(v)),
        }
    };
    let radical = parse_radical(cx.attr(n, "radical")?).or_else(|m| cx.err(n, m))?;
    // SimGrid 3.32 makes cluster links split-duplex or plain shared: FATPIPE is ignored.
    let sharing = match policy_of(cx, n, "sharing_policy", "SPLITDUPLEX")? {
        Policy2::Split => Sharing::SplitDuplex,
        Policy2::Shared | Policy2::Fatpipe => Sharing::Shared,
    };
    let (bb_bw, bb_lat) = (opt_bw("bb_bw")?, opt_t("bb_lat")?);
    let backbone = if bb_bw > 0.0 || bb_lat > 0.0 {
        let policy = match policy_of(cx, n, "bb_sharing_policy", "SHARED")? {
            Policy2::Fatpipe => Policy::Fatpipe,
            _ => Policy::Shared,
        };
        Some((bb_bw, bb_lat, policy))
    } else {
        None
    };
    let limiter = Some(opt_bw("limiter_link")?).filter(|&b| b > 0.0);
    let (lb, ll) = (opt_bw("loopback_bw")?, opt_t("loopback_lat")?);
    let loopback = (lb > 0.0 || ll > 0.0).then_some((lb, ll));
    let params = n.attribute("topo_parameters").unwrap_or("");
    let topology = match n.attribute("topology").unwrap_or("FLAT") {
        "FLAT" => Topology::Flat,
        "TORUS" => Topology::Torus(
            params
                .split(',')
                .map(|d| d.trim().parse::<u32>())
                .collect::<Result<_, _>>()
                .or_else(|_| {
                    cx.err(
                        n,
                        format!("topo_parameters '{params}': expected torus dimensions like 4,4,4"),
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
                format!("topology '{other}' is not supported: expected FLAT, TORUS, FAT_TREE or DRAGONFLY"),
            )
        }
    };
    Ok(ClusterSpec {
        id: cx.attr(n, "id")?.to_string(),
        prefix: cx.attr(n, "prefix")?.to_string(),
        suffix: cx.attr(n, "suffix")?.to_string(),
        radical,
        speed: cx.unit(n, "speed", units::speed(first_of(cx.attr(n, "speed")?)))?,
        cores: match n.attribute("core") {
            None => 1,
            Some(c) => c
                .parse()
                .or_else(|_| cx.err(n, format!("core '{c}' is not a number")))?,
        },
        bw: cx.unit(n, "bw", units::bandwidth(cx.attr(n, "bw")?))?,
        lat: cx.unit(n, "lat", units::time(cx.attr(n, "lat")?))?,
        sharing,
        backbone,
        limiter,
        loopback,
        topology,
        router_id: n.attribute("router_id").map(String::from),
    })
}

/// SimGrid's radical: comma-separated numbers and inclusive ranges `a-b`.
fn parse_radical(s: &str) -> Result<Vec<u64>, String> {
    use crate::cluster::MAX_HOSTS;
    let mut out = Vec::new();
    let too_many = || format!("radical '{s}' lists more than {MAX_HOSTS} hosts");
    for piece in s.split(',') {
        let piece = piece.trim();
        let bad = || format!("radical '{s}': expected numbers and ranges like 0-15,20");
        let room = MAX_HOSTS - out.len() as u64;
        match piece.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u64, u64) = (
                    a.trim().parse().map_err(|_| bad())?,
                    b.trim().parse().map_err(|_| bad())?,
                );
                if b < a {
                    return Err(bad());
                }
                if b - a >= room {
                    return Err(too_many());
                }
                out.extend(a..=b);
            }
            None if room == 0 => return Err(too_many()),
            None => out.push(piece.parse().map_err(|_| bad())?),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radicals() {
        assert_eq!(parse_radical("0-3,7").unwrap(), vec![0, 1, 2, 3, 7]);
        assert!(parse_radical("3-1").is_err());
        assert!(parse_radical("a").is_err());
    }
}
