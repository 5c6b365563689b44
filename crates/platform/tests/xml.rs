//! SimGrid XML platforms: SimGrid users' files load as they are, routes come out link for
//! link as SimGrid 3.32 builds them, and anything unsupported is an error naming the
//! element and its line.

use simpi_platform::{load, Platform};
use std::path::{Path, PathBuf};

fn write(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("simpi-xml-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn route(p: &Platform, a: &str, b: &str) -> (Vec<String>, f64) {
    let r = p.route(p.host_by_name(a).unwrap(), p.host_by_name(b).unwrap()).unwrap();
    (r.links.iter().map(|&l| p.link(l).name.clone()).collect(), r.latency)
}

fn bench(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../bench/smpi/platforms")
        .join(name)
}

const HEAD: &str = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";

#[test]
fn a_flat_cluster_with_backbone() {
    let p = load(&bench("flat.xml")).unwrap();
    assert_eq!(p.num_hosts(), 16);
    // SimGrid's route: up link, backbone, down link; 50 + 10 + 50 us.
    let (links, lat) = route(&p, "node-0", "node-5");
    assert_eq!(links, ["flat_link_0_UP", "flat_backbone", "flat_link_5_DOWN"]);
    assert!((lat - 110e-6).abs() < 1e-15);
}

#[test]
fn cabinets_joined_by_a_zone_route() {
    // The route SimGrid 3.32 logs for cab1-0 -> cab0-0 on this file (bench/smpi/README.md).
    let p = load(&bench("cabinets.xml")).unwrap();
    let (links, _) = route(&p, "cab1-0", "cab0-0");
    assert_eq!(
        links,
        [
            "cab1_link_0_UP",
            "cab1_backbone",
            "cab1_uplink_UP",
            "cab1_limiter",
            "cab0_limiter",
            "cab0_uplink_DOWN",
            "cab0_backbone",
            "cab0_link_0_DOWN"
        ]
    );
}

#[test]
fn torus_fat_tree_and_dragonfly_clusters() {
    let t = load(&bench("torus.xml")).unwrap();
    assert_eq!(t.num_hosts(), 8);
    // 2x2x2 torus, dimension 0 first: node-0 -> node-3 goes +x then +y.
    let (links, _) = route(&t, "node-0", "node-3");
    assert_eq!(links, ["torus_link_from_0_to_1_UP", "torus_link_from_1_to_3_UP"]);
    let f = load(&bench("fattree.xml")).unwrap();
    assert_eq!(f.num_hosts(), 16);
    // Two levels: node-0 -> node-15 climbs two switches and comes down (4 links).
    assert_eq!(route(&f, "node-0", "node-15").0.len(), 4);
    let d = write(
        "dragonfly.xml",
        &format!("{HEAD}<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n<cluster id=\"df\" topology=\"DRAGONFLY\" topo_parameters=\"2,1;2,1;2,1;2\" prefix=\"n\" suffix=\"\" radical=\"0-15\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>\n</zone></platform>\n"),
    );
    let d = load(&d).unwrap();
    assert_eq!(d.num_hosts(), 16);
    // n0 = (group 0, chassis 0, blade 0, node 0), n15 = (1, 1, 1, 1). Minimal routing:
    // local link up; green to blade 1 (= the target group) of chassis 0; blue to group 1
    // (router 4 = group 1, chassis 0, blade 0); green to blade 1; black to chassis 1;
    // local link down to node 1 of router 7.
    let (links, _) = route(&d, "n0", "n15");
    let want = [
        "local_link_from_router_0_to_node_0",
        "green_link_in_chassis_0_between_routers_0_and_1",
        "blue_link_between_group_0_and_1_routers_1_and_4",
        "green_link_in_chassis_0_between_routers_0_and_1",
        "black_link_in_group_1_between_chassis_0_and_1_blade_1",
        "local_link_from_router_7_to_node_1",
    ];
    assert_eq!(links.len(), want.len(), "{links:?}");
    for (l, w) in links.iter().zip(want) {
        assert!(l.contains(w), "{l} is not {w}: {links:?}");
    }
}

#[test]
fn explicit_hosts_links_and_routes_in_full_and_floyd_zones() {
    let text = format!(
        "{HEAD}<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Floyd\">\n\
         <host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"2Gf,1Gf\" core=\"4\"><prop id=\"x\" value=\"y\"/></host>\n\
         <host id=\"c\" speed=\"1Gf\"/>\n<router id=\"r\"/>\n\
         <link id=\"ar\" bandwidth=\"1GBps\" latency=\"10us\"/>\n<link id=\"rb\" bandwidth=\"1GBps\" latency=\"20us\" sharing_policy=\"SPLITDUPLEX\"/>\n\
         <link id=\"rc\" bandwidth=\"1GBps\" latency=\"30us\" sharing_policy=\"FATPIPE\"/>\n\
         <route src=\"a\" dst=\"r\"><link_ctn id=\"ar\"/></route>\n\
         <route src=\"r\" dst=\"b\"><link_ctn id=\"rb\" direction=\"UP\"/></route>\n\
         <route src=\"r\" dst=\"c\" symmetrical=\"NO\"><link_ctn id=\"rc\"/></route>\n\
         <route src=\"c\" dst=\"r\" symmetrical=\"NO\"><link_ctn id=\"rc\"/></route>\n\
         </zone></platform>\n"
    );
    let p = load(&write("floyd.xml", &text)).unwrap();
    assert_eq!(p.num_hosts(), 3);
    let b = p.host(p.host_by_name("b").unwrap());
    assert_eq!((b.speed, b.cores), (2e9, 4));
    let (links, lat) = route(&p, "a", "b");
    assert_eq!(links, ["ar", "rb_UP"]);
    assert!((lat - 30e-6).abs() < 1e-15);
    // The reverse of a symmetrical route takes the other half of a split-duplex link.
    assert_eq!(route(&p, "b", "a").0, ["rb_DOWN", "ar"]);
    assert_eq!(route(&p, "c", "b").0, ["rc", "rb_UP"]);
}

fn error_of(name: &str, body: &str) -> String {
    let p = write(
        name,
        &format!("{HEAD}<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n{body}\n</zone></platform>\n"),
    );
    load(&p).unwrap_err().to_string()
}

#[test]
fn unsupported_elements_and_mistakes_are_errors_with_lines() {
    let e = error_of(
        "trace.xml",
        "<host id=\"a\" speed=\"1Gf\"/>\n<trace id=\"t\" periodicity=\"1\"/>",
    );
    assert!(
        e.contains("trace.xml:6:") && e.contains("<trace> is not supported"),
        "{e}"
    );
    let e = error_of("attr.xml", "<host id=\"a\" speed=\"1Gf\" availability_file=\"x\"/>");
    assert!(
        e.contains("attr.xml:5:") && e.contains("'availability_file' is not supported"),
        "{e}"
    );
    let e = error_of(
        "link.xml",
        "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"1GBps\" latency=\"0\" sharing_policy=\"SPLITDUPLEX\"/>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>",
    );
    assert!(e.contains("link.xml:7:") && e.contains("give direction"), "{e}");
    let e = error_of("unit.xml", "<host id=\"a\" speed=\"fast\"/>");
    assert!(e.contains("unit.xml:5:") && e.contains("speed"), "{e}");
    let e = error_of("routing.xml", "<zone id=\"v\" routing=\"Vivaldi\"/>");
    assert!(e.contains("routing 'Vivaldi' is not supported"), "{e}");
    let e = error_of(
        "twice.xml",
        "<host id=\"a\" speed=\"1Gf\"/><host id=\"a\" speed=\"1Gf\"/>",
    );
    assert!(e.contains("twice.xml:5:") && e.contains("defined twice"), "{e}");
    let p = write(
        "old.xml",
        &format!("{HEAD}<platform version=\"3\"><AS id=\"z\" routing=\"Full\"/></platform>"),
    );
    assert!(load(&p).unwrap_err().to_string().contains("version 3 is not supported"));
    let p = write(
        "bad.xml",
        "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\"></platform>",
    );
    assert!(load(&p).unwrap_err().to_string().contains("not well-formed XML"));
}
