//! Issue 16 (hardening) for platforms: what used to panic, overflow the stack, grind for
//! minutes or be misread silently is now read right or refused with its place. Expected
//! values come from SimGrid 3.32's documented behaviour (its DTD, unit tables and routing
//! rules), not from the code under test.

use simpi_platform::cluster::{cluster_platform, ClusterSpec, Radical, Sharing, Topology};
use simpi_platform::model::{LinkId, Policy};
use simpi_platform::zone::{TableKind, TableRoute, TableZone, ZoneRouting};
use simpi_platform::{load, read, HostId, Mapping, Platform};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("simpi-platform-hardening-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `text` as `name` in a directory of its own (tests run in parallel).
fn write(name: &str, text: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let d = dir().join(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_string());
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn err(name: &str, text: &str) -> String {
    match load(&write(name, text)) {
        Ok(_) => panic!("{name} loaded:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const HEAD: &str = "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n";

/// A platform of one Full zone holding `body` (the zone opens on line 4).
fn zone(body: &str) -> String {
    format!("{HEAD}<zone id=\"z\" routing=\"Full\">\n{body}</zone>\n</platform>\n")
}

fn names(p: &Platform, a: &str, b: &str) -> Vec<String> {
    let r = p.route(p.host_by_name(a).unwrap(), p.host_by_name(b).unwrap()).unwrap();
    r.links.iter().map(|&l| p.link(l).name).collect()
}

const LINK: &str = "link = { bandwidth = \"1GBps\", latency = \"1us\" }\n";

#[test]
fn issue16_zero_host_platform_is_an_error() {
    let e = err("h0.toml", &format!("[topology]\nkind = \"flat\"\nhosts = 0\n{LINK}"));
    assert!(e.contains("h0.toml:3: topology.hosts = 0"), "{e}");
    let e = err(
        "d0.toml",
        &format!("[topology]\nkind = \"torus\"\ndims = [0, 4]\n{LINK}"),
    );
    assert!(e.contains("d0.toml:3: topology.dims"), "{e}");
    let e = err("dn.toml", &format!("[topology]\nkind = \"torus\"\ndims = []\n{LINK}"));
    assert!(e.contains("dn.toml:3: topology.dims"), "{e}");
    let e = err("empty.xml", &zone(""));
    assert!(e.contains("empty.xml:4: the platform has no host"), "{e}");
    let e = err("router.xml", &zone("<router id=\"r\"/>\n"));
    assert!(e.contains("router.xml:4: the platform has no host"), "{e}");
    let e = err(
        "torus0.xml",
        &zone("<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0\" topology=\"TORUS\" topo_parameters=\"0,4\"/>\n"),
    );
    assert!(e.contains("torus0.xml:5:") && e.contains("topo_parameters"), "{e}");
    // A platform built by hand without hosts is refused when sealed.
    let mut p = Platform::new("z", ZoneRouting::Table(TableZone::new(TableKind::Full)));
    assert!(p.seal().unwrap_err().msg.contains("no host"));
}

/// Two cabinets joined by a zone route, with `gw_src` as given.
fn cabinets(gw_src: &str) -> String {
    zone(&format!(
        "<cluster id=\"cab0\" prefix=\"cab0-\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"125MBps\" lat=\"50us\" router_id=\"cab0-router\"/>\n\
         <cluster id=\"cab1\" prefix=\"cab1-\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"125MBps\" lat=\"50us\" router_id=\"cab1-router\"/>\n\
         <link id=\"up\" bandwidth=\"1GBps\" latency=\"2us\"/>\n\
         <zoneRoute src=\"cab0\" dst=\"cab1\" gw_src=\"{gw_src}\" gw_dst=\"cab1-router\">\n<link_ctn id=\"up\"/>\n</zoneRoute>\n"
    ))
}

#[test]
fn issue16_gateway_loop_is_an_error_with_its_line() {
    // The typo of the issue: cab0's side of the route names cab1's router. SimGrid
    // refuses a gateway outside its zone; so does simpi, at the route's line.
    let e = err("loop.xml", &cabinets("cab1-router"));
    assert!(
        e.contains("loop.xml:8: gw_src='cab1-router' is not inside zone 'cab0'"),
        "{e}"
    );
    let e = err(
        "same.xml",
        &cabinets("cab0-router").replace("gw_dst=\"cab1-router\"", "gw_dst=\"cab0-router\""),
    );
    assert!(
        e.contains("same.xml:8: gw_dst='cab0-router' is not inside zone 'cab1'"),
        "{e}"
    );
    let p = load(&write("ok.xml", &cabinets("cab0-router"))).unwrap();
    assert_eq!(
        names(&p, "cab0-1", "cab1-2"),
        ["cab0_link_1_UP", "up", "cab1_link_2_DOWN"]
    );
    // Built by hand, the same loop is an error from the route resolver, not a stack
    // overflow: zone a's gateway lies in zone b and b's in a.
    let mut p = Platform::new("top", ZoneRouting::Table(TableZone::new(TableKind::Full)));
    let top = p.root();
    let za = p
        .add_zone(top, "a", ZoneRouting::Table(TableZone::new(TableKind::Full)))
        .unwrap();
    let zb = p
        .add_zone(top, "b", ZoneRouting::Table(TableZone::new(TableKind::Full)))
        .unwrap();
    p.add_host(za, "ha", 1e9, 1).unwrap();
    p.add_host(zb, "hb", 1e9, 1).unwrap();
    let ra = p.add_router(za, "ra").unwrap();
    let rb = p.add_router(zb, "rb").unwrap();
    let l = p.add_link("l", 1e9, 0.0, Policy::Shared).unwrap();
    let mut t = TableZone::new(TableKind::Full);
    let route = TableRoute {
        links: vec![l],
        gateways: Some((rb, ra)),
    };
    t.add_route(&p, 0, 1, route, true).unwrap();
    p.zone_mut(top).routing = ZoneRouting::Table(t);
    p.seal().unwrap();
    let e = p.route(HostId(0), HostId(1)).unwrap_err();
    assert!(e.msg.contains("no route from ha to hb"), "{e}");
}

#[test]
fn issue16_deeply_nested_zones_are_refused_without_overflowing_the_stack() {
    let nest = |depth: usize| {
        let mut s = String::from(HEAD);
        for i in 0..depth {
            s += &format!("<zone id=\"z{i}\" routing=\"Full\">\n");
        }
        s += "<host id=\"h\" speed=\"1Gf\"/>\n<host id=\"g\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"1GBps\"/>\n";
        s += "<route src=\"h\" dst=\"g\"><link_ctn id=\"l\"/></route>\n";
        s += &"</zone>\n".repeat(depth);
        s + "</platform>\n"
    };
    let start = Instant::now();
    // The XML parser recurses per element: the text is refused before it is parsed, at
    // the first element past 116 levels (<platform> is level 1, zone z<i> level i+2).
    let e = err("deep.xml", &nest(20_000));
    assert!(
        e.contains("deep.xml:119: elements are nested more than 116 deep"),
        "{e}"
    );
    assert!(start.elapsed().as_secs() < 10);
    // Zone z101 (line 105) is the first past 100 levels below the root zone.
    let e = err("deep.xml", &nest(110));
    assert!(
        e.contains("deep.xml:105: zone 'z101' is nested 101 deep: at most 100 levels"),
        "{e}"
    );
    // 100 levels load and route.
    let p = load(&write("deep100.xml", &nest(100))).unwrap();
    assert_eq!(names(&p, "h", "g"), ["l"]);
}

/// Resident memory of this process, bytes (Linux).
fn rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    s.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0)
        * 4096
}

#[test]
fn issue16_huge_regular_platforms_cost_what_is_used() {
    // The issue's torus (8M hosts, 50M links: 140 s and 22.9 GB to build before) and a
    // fat tree of 2^20 leaves: loading, routing a few pairs and mapping 4 ranks take
    // milliseconds and no memory per host.
    let before = rss();
    let start = Instant::now();
    let t = load(&write(
        "torus.toml",
        &format!("[topology]\nkind = \"torus\"\ndims = [4, 2, 1048576]\n{LINK}"),
    ))
    .unwrap();
    assert_eq!((t.num_hosts(), t.num_links()), (8_388_608, 8_388_608 * 3 + 1));
    let m = Mapping::block(&t, 4, 1);
    for r in 0..4 {
        for s in 0..4 {
            t.route(m.host(r), m.host(s)).unwrap();
        }
    }
    // node 0 -> node 8 is one step in the third dimension.
    assert_eq!(names(&t, "node-0", "node-8"), ["platform_link_from_0_to_8"]);
    assert_eq!(names(&t, "node-8388607", "node-0").len(), 3);
    let f = load(&write(
        "ft.xml",
        &zone("<cluster id=\"ft\" prefix=\"n\" suffix=\"\" radical=\"0-1048575\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" topology=\"FAT_TREE\" topo_parameters=\"2;1024,1024;1,1024;1,1\"/>\n"),
    ))
    .unwrap();
    assert_eq!(f.num_hosts(), 1 << 20);
    // Up to the leaf switch, up to a top switch, down, down.
    assert_eq!(names(&f, "n0", "n1048575").len(), 4);
    assert_eq!(names(&f, "n0", "n1").len(), 2);
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    let grown = rss().saturating_sub(before);
    assert!(grown < 256 << 20, "{} MB", grown >> 20);
}

#[test]
fn issue16_sizes_past_the_limits_are_refused_at_once() {
    let start = Instant::now();
    let e = err(
        "big.toml",
        &format!("[topology]\nkind = \"torus\"\ndims = [1024, 1024, 1024]\n{LINK}"),
    );
    assert!(e.contains("has 1073741824 hosts: at most 16777216"), "{e}");
    let e = err(
        "bigft.xml",
        &zone("<cluster id=\"ft\" prefix=\"n\" suffix=\"\" radical=\"0-15\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" topology=\"FAT_TREE\" topo_parameters=\"2;4,4;1,99999999;1,99999\"/>\n"),
    );
    assert!(
        e.contains("bigft.xml:5: cluster 'ft': the topology would build about"),
        "{e}"
    );
    assert!(start.elapsed().as_secs_f64() < 1.0);
}

#[test]
fn issue16_pstate_selects_the_speed() {
    let host = |attrs: &str| zone(&format!("<host id=\"h\" {attrs}/>\n"));
    let speed = |attrs: &str| {
        let p = load(&write("ps.xml", &host(attrs))).unwrap();
        p.host(p.host_by_name("h").unwrap()).speed
    };
    assert_eq!(speed("speed=\"1Gf,500Mf\" pstate=\"1\""), 5e8);
    assert_eq!(speed("speed=\"1Gf,500Mf\""), 1e9);
    assert_eq!(speed("speed=\"1Gf, 500Mf, 250Mf\" pstate=\"2\""), 2.5e8);
    // The DTD's default is "0.0".
    assert_eq!(speed("speed=\"1Gf,500Mf\" pstate=\"0.0\""), 1e9);
    for bad in ["2", "-1", "x", "1.5", ""] {
        let e = err("ps.xml", &host(&format!("speed=\"1Gf,500Mf\" pstate=\"{bad}\"")));
        assert!(
            e.contains("ps.xml:5: <host> pstate") && e.contains("from 0 to 1"),
            "{e}"
        );
    }
    // Every pstate's speed is read, not only the one used.
    let e = err("ps.xml", &host("speed=\"1Gf,fast\""));
    assert!(e.contains("ps.xml:5:") && e.contains("'fast'"), "{e}");
}

#[test]
fn issue16_unitless_values_are_taken_with_a_warning_as_simgrid_does() {
    // SimGrid 3.32: "Deprecated unit-less value" warning, default unit (Bps, s, f).
    let p = read(&write(
        "unitless.xml",
        &zone(
            "<host id=\"a\" speed=\"1e9\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n\
             <link id=\"l\" bandwidth=\"125\" latency=\"0.1\"/>\n<link id=\"m\" bandwidth=\"1GBps\" latency=\"0\"/>\n\
             <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/><link_ctn id=\"m\"/></route>\n",
        ),
    ))
    .unwrap();
    assert_eq!(p.host(HostId(0)).speed, 1e9);
    let l = p.link(p.link_by_name("l").unwrap());
    assert_eq!((l.bandwidth, l.latency), (125.0, 0.1));
    let w: Vec<String> = p.warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(w.len(), 3, "{w:?}");
    assert!(w[0].contains("unitless.xml:5: <host> speed '1e9' has no unit"), "{w:?}");
    assert!(
        w[1].contains("unitless.xml:7: <link> bandwidth '125' has no unit"),
        "{w:?}"
    );
    assert!(
        w[2].contains("unitless.xml:7: <link> latency '0.1' has no unit"),
        "{w:?}"
    );
    // A zero needs no unit; TOML values are read by the same rules.
    let p = read(&write(
        "unitless.toml",
        &format!("[topology]\nkind = \"flat\"\nhosts = 2\nspeed = \"2e9\"\n{LINK}"),
    ))
    .unwrap();
    assert_eq!(p.host(HostId(0)).speed, 2e9);
    assert_eq!(p.warnings().len(), 1);
    assert!(p.warnings()[0]
        .to_string()
        .contains("unitless.toml:4: topology.speed '2e9' has no unit"));
}

#[test]
fn issue16_scientific_notation_is_read_as_simgrid_reads_it() {
    let p = load(&write(
        "sci.xml",
        &zone(
            "<host id=\"a\" speed=\"1E9f\"/>\n<host id=\"b\" speed=\"5e8f\"/>\n\
             <link id=\"l\" bandwidth=\"1.25e8Bps\" latency=\"1e-5s\"/>\n\
             <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n",
        ),
    ))
    .unwrap();
    assert_eq!(p.host(HostId(0)).speed, 1e9);
    assert_eq!(p.host(HostId(1)).speed, 5e8);
    let l = p.link(p.link_by_name("l").unwrap());
    assert_eq!((l.bandwidth, l.latency), (1.25e8, 1e-5));
    assert!(p.warnings().is_empty());
    let p = load(&write(
        "sci.toml",
        "[topology]\nkind = \"flat\"\nhosts = 2\nspeed = \"1E9f\"\nlink = { bandwidth = \"1.25e8Bps\", latency = \"1e7s\" }\n",
    ))
    .unwrap();
    let r = p.route(HostId(0), HostId(1)).unwrap();
    assert_eq!(r.latency, 2e7);
}

#[test]
fn issue16_torus_without_loopback_routes_a_host_to_itself() {
    // docs/formats.md: a host without a route to itself uses the implicit loopback
    // (10 GB/s, fat pipe, no latency); SimGrid's torus has no such route.
    let t = load(&write(
        "t.toml",
        &format!("[topology]\nkind = \"torus\"\ndims = [2, 2]\n{LINK}"),
    ))
    .unwrap();
    for h in 0..4 {
        let r = t.route(HostId(h), HostId(h)).unwrap();
        assert_eq!(r.links.len(), 1);
        let l = t.link(r.links[0]);
        assert_eq!(
            (l.name.as_str(), l.bandwidth, l.latency, l.policy),
            ("__loopback__", 1e10, 0.0, Policy::Fatpipe)
        );
    }
    // With a loopback link, that one.
    let t = load(&write(
        "tl.toml",
        &format!("[topology]\nkind = \"torus\"\ndims = [2, 2]\nloopback = {{ bandwidth = \"5GBps\" }}\n{LINK}"),
    ))
    .unwrap();
    assert_eq!(
        t.link(t.route(HostId(1), HostId(1)).unwrap().links[0]).name,
        "platform_link_1_loopback"
    );
    // Two ranks per host then map and route.
    let t = load(&write(
        "t.toml",
        &format!("[topology]\nkind = \"torus\"\ndims = [2, 2]\n{LINK}"),
    ))
    .unwrap();
    let m = Mapping::block(&t, 8, 2);
    assert_eq!(m.host(0), m.host(1));
    t.route(m.host(0), m.host(1)).unwrap();
}

/// The error for `body` in a zone: at line 5 (the first line of the body), naming `what`.
fn refused(body: &str, what: &str) {
    let e = err("refused.xml", &zone(body));
    assert!(e.contains("refused.xml:5:") && e.contains(what), "{body}: {e}");
}

#[test]
fn issue16_simgrid_constructs_simpi_does_not_model_are_refused_by_name() {
    let h = "<host id=\"h\" speed=\"1Gf\"";
    refused("<include file=\"other.xml\"/>\n", "<include> is not supported");
    refused(
        "<trace id=\"t\" periodicity=\"1\">0 1\n</trace>\n",
        "<trace> is not supported",
    );
    refused(
        "<trace_connect trace=\"t\" element=\"h\"/>\n",
        "<trace_connect> is not supported",
    );
    refused(
        "<cabinet id=\"c\" prefix=\"c\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0\"/>\n",
        "<cabinet> is not supported",
    );
    refused(
        "<backbone id=\"b\" bandwidth=\"1GBps\" latency=\"0\"/>\n",
        "<backbone> is not supported",
    );
    refused(
        "<host_link id=\"h\" up=\"u\" down=\"d\"/>\n",
        "<host_link> is not supported",
    );
    refused(
        "<peer id=\"p\" speed=\"1Gf\" bw_in=\"1GBps\" bw_out=\"1GBps\"/>\n",
        "<peer> is not supported",
    );
    refused(
        &format!("{h}/><bypassRoute src=\"h\" dst=\"h\"/>\n"),
        "<bypassRoute> is not supported",
    );
    refused(
        &format!("{h} speed_file=\"speed.txt\"/>\n"),
        "attribute 'speed_file' is not supported",
    );
    refused(
        &format!("{h} availability_file=\"a.txt\"/>\n"),
        "attribute 'availability_file'",
    );
    refused(&format!("{h} state_file=\"s.txt\"/>\n"), "attribute 'state_file'");
    refused(
        "<link id=\"l\" bandwidth=\"1GBps\" bandwidth_file=\"bw.txt\"/>\n",
        "attribute 'bandwidth_file'",
    );
    refused(
        "<link id=\"l\" bandwidth=\"1GBps\" latency_file=\"lat.txt\"/>\n",
        "attribute 'latency_file'",
    );
    refused(
        "<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"WIFI\"/>\n",
        "WIFI is not supported",
    );
    refused(
        "<link id=\"l\" bandwidth=\"54Mbps,36Mbps\" sharing_policy=\"SHARED\"/>\n",
        "several bandwidths",
    );
    refused(
        &format!("{h}><disk id=\"d\" read_bw=\"1GBps\" write_bw=\"1GBps\"/></host>\n"),
        "<disk> is not supported",
    );
    refused(
        &format!("{h}><prop id=\"smpi/os\" value=\"0:1e-6:0\"/></host>\n"),
        "smpi/os",
    );
    refused(
        &format!("{h} colour=\"red\"/>\n"),
        "attribute 'colour' is not supported",
    );
    refused(&format!("{h}>fast</host>\n"), "unexpected text 'fast'");
    refused(
        "<zone id=\"v\" routing=\"Vivaldi\"/>\n",
        "routing 'Vivaldi' is not supported",
    );
    refused(
        "<zone id=\"v\" routing=\"Cluster\"/>\n",
        "routing 'Cluster' is not supported",
    );
    refused("<zone id=\"v\" routing=\"Wifi\"/>\n", "routing 'Wifi' is not supported");
    refused("<zone id=\"v\" routing=\"None\"/>\n", "routing 'None' is not supported");
    refused("<zone id=\"v\" routing=\"Star\"/>\n", "routing 'Star' is not supported");
    refused("<actor host=\"h\" function=\"f\"/>\n", "<actor> is not supported");
    refused(
        "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0\"><prop id=\"smpi/or\" value=\"1\"/></cluster>\n",
        "smpi/or",
    );
    // <config> changes SimGrid's models: refused, naming its keys.
    let e = err(
        "config.xml",
        &format!(
            "{HEAD}<config>\n<prop id=\"network/model\" value=\"CM02\"/>\n</config>\n<zone id=\"z\" routing=\"Full\"><host id=\"h\" speed=\"1Gf\"/></zone>\n</platform>\n"
        ),
    );
    assert!(
        e.contains("config.xml:4: <config> is not supported") && e.contains("network/model"),
        "{e}"
    );
    let e = err("v.xml", &zone("").replace("version=\"4.1\"", "version=\"4.2\""));
    assert!(e.contains("v.xml:3: platform version 4.2 comes from the future"), "{e}");
}

#[test]
fn issue16_metadata_simgrid_ignores_for_timing_is_accepted() {
    // Energy figures and user keys do not change SimGrid's times; empty trace
    // attributes are the DTD's defaults; <random> does nothing in SimGrid 3.32.
    let p = read(&write(
        "meta.xml",
        &format!(
            "{HEAD}<random id=\"r\" min=\"0\" max=\"1\" mean=\"0.5\" std_deviation=\"0.1\"/>\n<zone id=\"z\" routing=\"Full\">\n<prop id=\"owner\" value=\"me\"/>\n\
             <zone id=\"leaf\" routing=\"Full\">\n\
             <host id=\"h\" speed=\"1Gf\" speed_file=\"\" coordinates=\"\"><prop id=\"wattage_per_state\" value=\"100:200\"/></host>\n\
             <link id=\"l\" bandwidth=\"1GBps\" latency=\"0\" state_file=\"\"><prop id=\"wattage_range\" value=\"1:2\"/></link>\n\
             <link id=\"m\" bandwidth=\"1GBps\"/>\n</zone>\n\
             <cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0\" router_id=\"\" bb_bw=\"\" limiter_link=\"\"/>\n\
             </zone>\n</platform>\n"
        ),
    ))
    .unwrap();
    assert_eq!(p.num_hosts(), 3);
    // An empty router_id is the default name.
    assert!(p.point_by_name("nc_router").is_some());
    // <random> is ignored; a link without latency has none (SimGrid 3.32's parser
    // refuses it although its DTD says 0).
    let w: Vec<String> = p.warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[0].contains("meta.xml:4: <random> is ignored"), "{w:?}");
    assert!(w[1].contains("meta.xml:10: <link> has no latency: read as 0"), "{w:?}");
}

#[test]
fn issue16_zones_hold_what_simgrid_lets_them_hold() {
    // SimGrid's parser enforces its DTD: a zone holds sub-zones and clusters or hosts
    // and routers, its routes come last, its <prop>s first.
    let h = "<host id=\"h\" speed=\"1Gf\"/>";
    let sub = "<zone id=\"s\" routing=\"Full\"><host id=\"g\" speed=\"1Gf\"/></zone>";
    refused(
        &format!("{h}{sub}\n"),
        "<zone> in zone 'z', which holds hosts or routers",
    );
    refused(
        &format!("{sub}<router id=\"r\"/>\n"),
        "<router> in zone 'z', which holds sub-zones",
    );
    refused(
        &format!("{h}<link id=\"l\" bandwidth=\"1GBps\"/><route src=\"h\" dst=\"h\"><link_ctn id=\"l\"/></route><host id=\"x\" speed=\"1Gf\"/>\n"),
        "<host> after the routes of zone 'z'",
    );
    refused(
        &format!("{h}<prop id=\"a\" value=\"b\"/>\n"),
        "<prop> after the elements of zone 'z'",
    );
    let e = err(
        "random.xml",
        &format!("{HEAD}<zone id=\"z\" routing=\"Full\">{h}</zone>\n<random id=\"r\" min=\"0\" max=\"1\" mean=\"0\" std_deviation=\"0\"/>\n</platform>\n"),
    );
    assert!(e.contains("random.xml:5: <random> comes before"), "{e}");
}

#[test]
fn floyd_routes_cross_the_zones_between_their_zone_routes() {
    // a -- b -- c in a Floyd zone: the route from a to c also crosses b, from the
    // gateway the first zone route enters it by to the one the second leaves it by, as
    // SimGrid's Floyd zones do.
    let leaf = |z: &str, body: &str| format!("<zone id=\"{z}\" routing=\"Full\">\n{body}</zone>\n");
    let hr = |z: &str| {
        leaf(
            z,
            &format!(
                "<host id=\"{z}h\" speed=\"1Gf\"/><router id=\"{z}r\"/>\n<link id=\"{z}l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n\
                 <route src=\"{z}h\" dst=\"{z}r\"><link_ctn id=\"{z}l\"/></route>\n"
            ),
        )
    };
    let b = leaf(
        "b",
        "<router id=\"bin\"/><router id=\"bout\"/>\n<link id=\"inside\" bandwidth=\"1GBps\" latency=\"1us\"/>\n\
         <route src=\"bin\" dst=\"bout\"><link_ctn id=\"inside\"/></route>\n",
    );
    let text = format!(
        "{HEAD}<zone id=\"top\" routing=\"Floyd\">\n{}{b}{}\
         <link id=\"ab\" bandwidth=\"1GBps\" latency=\"1us\"/><link id=\"bc\" bandwidth=\"1GBps\" latency=\"1us\"/>\n\
         <zoneRoute src=\"a\" dst=\"b\" gw_src=\"ar\" gw_dst=\"bin\"><link_ctn id=\"ab\"/></zoneRoute>\n\
         <zoneRoute src=\"b\" dst=\"c\" gw_src=\"bout\" gw_dst=\"cr\"><link_ctn id=\"bc\"/></zoneRoute>\n\
         </zone>\n</platform>\n",
        hr("a"),
        hr("c")
    );
    let p = load(&write("floyd.xml", &text)).unwrap();
    assert_eq!(names(&p, "ah", "ch"), ["al", "ab", "inside", "bc", "cl"]);
    assert_eq!(names(&p, "ch", "ah"), ["cl", "bc", "inside", "ab", "al"]);
}

#[test]
fn issue16_bad_values_and_names_are_errors_not_panics() {
    let h = |s: &str| format!("<host id=\"h\" speed=\"{s}\"/>\n");
    for bad in ["nan", "-1Gf", "inf", "0f", "1e999f", "Gf", "1 Gf", "1Mflops"] {
        refused(&h(bad), "speed");
    }
    let l = |bw: &str, lat: &str| format!("<link id=\"l\" bandwidth=\"{bw}\" latency=\"{lat}\"/>\n");
    for (bw, lat) in [
        ("nan", "0"),
        ("-1Bps", "0"),
        ("0Bps", "0"),
        ("1GBps", "-1s"),
        ("1GBps", "nan"),
        ("1GBps", "1e999s"),
    ] {
        refused(&l(bw, lat), "");
    }
    refused("<host id=\"h\" speed=\"1Gf\" core=\"0\"/>\n", "core '0'");
    refused(
        "<host id=\"h\" speed=\"1Gf\" core=\"99999999999\"/>\n",
        "core '99999999999'",
    );
    refused(
        "<host id=\"h\" speed=\"1Gf\"/><host id=\"h\" speed=\"1Gf\"/>\n",
        "'h' is defined twice",
    );
    // Names given twice, one of them by a cluster.
    let c = "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-9\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0\"/>\n";
    let leaf = "<zone id=\"a\" routing=\"Full\"><host id=\"n5\" speed=\"1Gf\"/></zone>\n";
    let e = err("dup.xml", &zone(&format!("{c}{leaf}")));
    assert!(e.contains("dup.xml:6: 'n5' is defined twice"), "{e}");
    let e = err("dup.xml", &zone(&format!("{leaf}{c}")));
    assert!(e.contains("dup.xml:6: 'n5' is defined twice"), "{e}");
    let e = err(
        "dup.xml",
        &zone(&format!(
            "{c}{}",
            c.replace("id=\"c\"", "id=\"d\"").replace("0-9", "9-12")
        )),
    );
    assert!(e.contains("dup.xml:6: host 'n9' is defined twice"), "{e}");
    let e = err(
        "dup.xml",
        &zone(&format!(
            "{c}<link id=\"c_link_3\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>\n"
        )),
    );
    assert!(e.contains("dup.xml:6: link 'c_link_3_UP' is defined twice"), "{e}");
    let e = err(
        "dup.xml",
        &zone(&format!(
            "<link id=\"c_backbone\" bandwidth=\"1GBps\"/>\n{}",
            c.replace("/>", " bb_bw=\"1GBps\"/>")
        )),
    );
    assert!(e.contains("dup.xml:6: link 'c_backbone' is defined twice"), "{e}");
    refused(
        "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-3,2\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0\"/>\n",
        "listed twice",
    );
    // Dangling references.
    refused(
        "<host id=\"a\" speed=\"1Gf\"/><route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n",
        "unknown host, router or zone 'b'",
    );
    refused(
        "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/><route src=\"a\" dst=\"b\"><link_ctn id=\"nope\"/></route>\n",
        "unknown link 'nope'",
    );
    refused(
        "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/><route src=\"a\" dst=\"b\"></route>\n",
        "has no link",
    );
    // A dragonfly with more groups than blades has no router for SimGrid's first hop.
    refused(
        "<cluster id=\"d\" prefix=\"n\" suffix=\"\" radical=\"0-15\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0\" topology=\"DRAGONFLY\" topo_parameters=\"4,1;2,1;2,1;1\"/>\n",
        "needs at least 4 blades",
    );
    // Huge tokens are quoted in part.
    let e = err("long.xml", &zone(&h(&"9".repeat(100_000))));
    assert!(e.len() < 400, "{} bytes", e.len());
}

#[test]
fn every_cluster_link_and_host_is_found_by_its_name() {
    let topologies = [
        Topology::Flat,
        Topology::Torus(vec![3, 2, 2]),
        Topology::FatTree {
            levels: 2,
            down: vec![4, 3],
            up: vec![1, 2],
            count: vec![1, 2],
        },
        Topology::Dragonfly {
            groups: (2, 2),
            chassis: (3, 1),
            blades: (2, 3),
            nodes: 2,
        },
    ];
    for topology in topologies {
        for sharing in [Sharing::Shared, Sharing::SplitDuplex, Sharing::Fatpipe] {
            for (limiter, loopback, backbone) in [
                (None, None, None),
                (Some(2e9), Some((1e10, 0.0)), Some((5e9, 1e-6, Policy::Fatpipe))),
            ] {
                let n = topology.hosts().unwrap_or(7);
                let mut s = ClusterSpec::flat("c", n, 1e9, 1e9, 1e-6);
                s.radical = Radical::from_ranges(vec![(100, 100 + n - 1)]).unwrap();
                s.prefix = "h".into();
                s.suffix = ".x".into();
                (s.topology, s.sharing, s.limiter, s.loopback, s.backbone) =
                    (topology.clone(), sharing, limiter, loopback, backbone);
                let p = cluster_platform(&s).unwrap();
                for l in 0..p.num_links() as u32 {
                    let name = p.link(LinkId(l)).name;
                    assert_eq!(p.link_by_name(&name), Some(LinkId(l)), "{name} in {topology:?}");
                }
                for h in 0..p.num_hosts() as u32 {
                    assert_eq!(p.host_by_name(&p.host(HostId(h)).name), Some(HostId(h)));
                }
                assert_eq!(p.link_by_name("c_link_99"), None);
                assert_eq!(p.host_by_name("h010.x"), None);
            }
        }
    }
}

#[test]
fn issue16_host_files_with_a_byte_order_mark_and_long_tokens() {
    let p = load(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../bench/smpi/platforms/flat.xml")
            .as_path(),
    )
    .unwrap();
    let hf = write("hostfile", "\u{feff}node-3:2\nnode-4\n");
    let m = Mapping::from_host_file(&p, &hf, 3).unwrap();
    assert_eq!([m.host(0), m.host(1), m.host(2)], [HostId(3), HostId(3), HostId(4)]);
    let hf = write("hostfile", &format!("node-1\n{}\n", "x".repeat(1 << 20)));
    let e = Mapping::from_host_file(&p, &hf, 3).unwrap_err().to_string();
    assert!(e.contains("hostfile:2: unknown host 'xxxx") && e.len() < 400, "{e}");
    // Many ranks cost nothing until placed.
    let m = Mapping::block(&p, u32::MAX, 1);
    assert_eq!(m.host(u32::MAX - 1), HostId((u32::MAX - 1) % 16));
}

#[test]
fn dijkstra_routes_do_not_depend_on_the_order_of_queries() {
    // A ring of 6 routers with a host on each: shortest paths around the ring. The
    // zone remembers the last source's tree; asking pairs in any order gives the same
    // routes.
    let mut body = String::new();
    for i in 0..6 {
        body += &format!("<host id=\"h{i}\" speed=\"1Gf\"/><router id=\"r{i}\"/>\n");
        body += &format!("<link id=\"a{i}\" bandwidth=\"1GBps\"/><link id=\"b{i}\" bandwidth=\"1GBps\"/>\n");
    }
    for i in 0..6 {
        body += &format!("<route src=\"h{i}\" dst=\"r{i}\"><link_ctn id=\"a{i}\"/></route>\n");
        body += &format!(
            "<route src=\"r{i}\" dst=\"r{}\"><link_ctn id=\"b{i}\"/></route>\n",
            (i + 1) % 6
        );
    }
    let text = zone(&body).replace("routing=\"Full\"", "routing=\"Dijkstra\"");
    let p = load(&write("ring.xml", &text)).unwrap();
    // Around the ring the short way; opposite hosts (3 steps either way) are checked
    // for their length only.
    let want = |a: usize, b: usize| -> Vec<String> {
        let mut v = vec![format!("a{a}")];
        let (fwd, back) = ((b + 6 - a) % 6, (a + 6 - b) % 6);
        if fwd <= back && fwd < 3 {
            v.extend((0..fwd).map(|k| format!("b{}", (a + k) % 6)));
        } else if back < 3 {
            v.extend((0..back).map(|k| format!("b{}", (a + 5 - k) % 6)));
        } else {
            return Vec::new();
        }
        v.push(format!("a{b}"));
        v
    };
    let mut order: Vec<(usize, usize)> = (0..6).flat_map(|a| (0..6).map(move |b| (a, b))).collect();
    for round in 0..2 {
        if round == 1 {
            order.reverse();
        }
        for &(a, b) in &order {
            if a == b {
                continue;
            }
            let got = names(&p, &format!("h{a}"), &format!("h{b}"));
            let w = want(a, b);
            if !w.is_empty() {
                assert_eq!(got, w, "h{a} -> h{b}");
            } else {
                assert_eq!(got.len(), 5, "h{a} -> h{b}: {got:?}");
            }
        }
    }
}

#[test]
fn issue16_platform_check_of_a_huge_torus_finishes() {
    // Routes across a ring of a million nodes are half a million links long: checking
    // a million of them stops after a bounded amount of routing, and says so.
    let t = load(&write(
        "ring.toml",
        &format!("[topology]\nkind = \"torus\"\ndims = [4, 2, 1048576]\n{LINK}"),
    ))
    .unwrap();
    let start = Instant::now();
    let rep = simpi_platform::check::check(&t, 1_000_000);
    assert!(rep.stopped && rep.pairs_checked > 0 && rep.ok(), "{rep:?}");
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
    // A small one is checked whole.
    let t = load(&write(
        "small.toml",
        &format!("[topology]\nkind = \"torus\"\ndims = [4, 4]\n{LINK}"),
    ))
    .unwrap();
    let rep = simpi_platform::check::check(&t, 1_000_000);
    assert!(!rep.stopped && rep.pairs_checked == 256 && rep.ok());
}
