//! Routes of generated and listed platforms, checked against SimGrid 3.32's rules
//! (link lists worked out by hand from its routing algorithms; hop counts of the fat tree
//! and torus cases were also observed in SimGrid runs).

use simpi_platform::cluster::{cluster_platform, ClusterSpec, Sharing, Topology};
use simpi_platform::generate::{self, LinkSpec, NodeSpec};
use simpi_platform::model::{HostId, Platform, Policy};
use simpi_platform::zone::{TableKind, TableRoute, TableZone, ZoneRouting};

fn names(p: &Platform, a: u32, b: u32) -> Vec<String> {
    p.route(HostId(a), HostId(b))
        .unwrap()
        .links
        .iter()
        .map(|&l| p.link(l).name.clone())
        .collect()
}

fn node() -> NodeSpec {
    NodeSpec {
        speed: 1e9,
        cores: 1,
        link: LinkSpec {
            bandwidth: 1.25e8,
            latency: 50e-6,
        },
        sharing: Sharing::SplitDuplex,
        limiter_factor: None,
        loopback: None,
    }
}

#[test]
fn flat_cluster_with_backbone_limiters_and_loopback() {
    let mut s = ClusterSpec::flat("c", 4, 1e9, 1.25e8, 50e-6);
    s.backbone = Some((1e9, 1e-6, Policy::Shared));
    s.limiter = Some(2e8);
    s.loopback = Some((1e9, 1e-6));
    let p = cluster_platform(&s).unwrap();
    assert_eq!(
        names(&p, 0, 1),
        [
            "c_link_0_limiter",
            "c_link_0_UP",
            "c_backbone",
            "c_link_1_DOWN",
            "c_link_1_limiter"
        ]
    );
    let r = p.route(HostId(0), HostId(1)).unwrap();
    assert!((r.latency - (50e-6 + 1e-6 + 50e-6)).abs() < 1e-15);
    assert_eq!(names(&p, 2, 2), ["c_link_2_loopback"]);
}

#[test]
fn flat_cluster_self_route_without_loopback_deduplicates() {
    // up = [lim, UP, bb], down = [bb, DOWN, lim]: the backbone and limiter appear once.
    let mut s = ClusterSpec::flat("c", 2, 1e9, 1e8, 1e-6);
    s.backbone = Some((1e9, 1e-6, Policy::Shared));
    s.limiter = Some(2e8);
    let p = cluster_platform(&s).unwrap();
    assert_eq!(
        names(&p, 1, 1),
        ["c_link_1_limiter", "c_link_1_UP", "c_backbone", "c_link_1_DOWN"]
    );
}

#[test]
fn fat_tree_hop_counts_match_simgrid() {
    // 2;4,4;1,2;1,2: 16 hosts, 4 edge switches (1 parent each), 2 top switches.
    let p = generate::fat_tree("ft", 2, &[4, 4], &[1, 2], &[1, 2], &node()).unwrap();
    assert_eq!(p.num_hosts(), 16);
    assert_eq!(names(&p, 0, 1).len(), 2);
    assert_eq!(names(&p, 0, 5).len(), 4);
    assert_eq!(names(&p, 0, 15).len(), 4);
    assert_eq!(names(&p, 3, 3).len(), 2);
    // Up uses _UP halves, down uses _DOWN halves.
    let r = names(&p, 0, 5);
    assert!(
        r[0].ends_with("_UP") && r[1].ends_with("_UP") && r[2].ends_with("_DOWN") && r[3].ends_with("_DOWN"),
        "{r:?}"
    );
}

#[test]
fn fat_tree_routes_use_links_of_the_right_nodes() {
    // A 2-level 4-ary tree; host 0 to host 15 goes 0 -> edge(0) -> top -> edge(3) -> 15.
    let p = generate::fat_tree("ft", 2, &[4, 4], &[1, 2], &[1, 2], &node()).unwrap();
    let r = names(&p, 0, 15);
    assert!(r[0].starts_with("ft_link_from_0_"), "{r:?}");
    assert!(r[3].starts_with("ft_link_from_15_"), "{r:?}");
}

#[test]
fn torus_dimension_order_with_wrap_around() {
    let p = generate::torus("t", &[3, 3, 3], &node()).unwrap();
    assert_eq!(names(&p, 0, 1), ["t_link_from_0_to_1_UP"]);
    // 0 -> 2 goes left through the wrap: node 2's x-link (2 -> 0) travelled backwards.
    assert_eq!(names(&p, 0, 2), ["t_link_from_2_to_0_DOWN"]);
    assert_eq!(names(&p, 0, 13).len(), 3);
    assert_eq!(names(&p, 0, 26).len(), 3);
    // 13 = (1,1,1): x then y then z.
    assert_eq!(
        names(&p, 0, 13),
        [
            "t_link_from_0_to_1_UP",
            "t_link_from_1_to_4_UP",
            "t_link_from_4_to_13_UP"
        ]
    );
}

#[test]
fn dragonfly_routes_are_minimal() {
    // 2 groups, 2 chassis, 2 blades, 2 nodes: 16 hosts.
    let p = generate::dragonfly("d", (2, 1), (2, 1), (2, 1), 2, &node()).unwrap();
    assert_eq!(p.num_hosts(), 16);
    // Same router: local up, local down.
    assert_eq!(names(&p, 0, 1).len(), 2);
    // Same chassis, other blade: local, green, local.
    assert_eq!(names(&p, 0, 2).len(), 3);
    // Other group: 0 is (0,0,0); target group 1 -> green to blade 1, blue, ... local.
    let r = names(&p, 0, 15);
    assert!(r.iter().any(|n| n.contains("blue_link")), "{r:?}");
}

#[test]
fn cabinets_route_through_uplinks_and_limiters() {
    let p = generate::cabinets(
        "g",
        2,
        2,
        &node(),
        LinkSpec {
            bandwidth: 1e9,
            latency: 1e-6,
        },
        LinkSpec {
            bandwidth: 1.25e9,
            latency: 2e-6,
        },
        Some(1.6e9),
    )
    .unwrap();
    assert_eq!(
        names(&p, 0, 1),
        ["g_cab0_link_0_UP", "g_cab0_backbone", "g_cab0_link_1_DOWN"]
    );
    assert_eq!(
        names(&p, 0, 3),
        [
            "g_cab0_link_0_UP",
            "g_cab0_backbone",
            "g_cab0_uplink_UP",
            "g_cab0_limiter",
            "g_cab1_limiter",
            "g_cab1_uplink_DOWN",
            "g_cab1_backbone",
            "g_cab1_link_1_DOWN"
        ]
    );
}

#[test]
fn symmetrical_routes_reverse_and_swap_split_duplex_halves() {
    let mut p = Platform::new("z", ZoneRouting::Table(TableZone::new(TableKind::Full)));
    let root = p.root();
    let a = p.add_host(root, "a", 1e9, 1).unwrap();
    let b = p.add_host(root, "b", 1e9, 1).unwrap();
    let (up, _down) = p.add_split_link("l", 1e9, 1e-6).unwrap();
    let m = p.add_link("m", 1e9, 2e-6, Policy::Shared).unwrap();
    let mut t = TableZone::new(TableKind::Full);
    t.add_route(
        &p,
        0,
        1,
        TableRoute {
            links: vec![up, m],
            gateways: None,
        },
        true,
    )
    .unwrap();
    p.zone_mut(root).routing = ZoneRouting::Table(t);
    p.seal().unwrap();
    assert_eq!(names(&p, a.0, b.0), ["l_UP", "m"]);
    assert_eq!(names(&p, b.0, a.0), ["m", "l_DOWN"]);
    // A host talks to itself through the implicit loopback.
    assert_eq!(names(&p, 0, 0), ["__loopback__"]);
}

#[test]
fn floyd_chains_listed_routes_into_shortest_paths() {
    // a - r1 - r2 - b, plus a direct but longer a - b route of 4 links.
    let mut p = Platform::new("z", ZoneRouting::Table(TableZone::new(TableKind::Floyd)));
    let root = p.root();
    p.add_host(root, "a", 1e9, 1).unwrap();
    p.add_host(root, "b", 1e9, 1).unwrap();
    p.add_router(root, "r1").unwrap();
    p.add_router(root, "r2").unwrap();
    let l: Vec<_> = (0..7)
        .map(|i| p.add_link(&format!("l{i}"), 1e9, 1e-6, Policy::Shared).unwrap())
        .collect();
    let mut t = TableZone::new(TableKind::Floyd);
    let r = |links: Vec<_>| TableRoute { links, gateways: None };
    t.add_route(&p, 0, 2, r(vec![l[0]]), true).unwrap();
    t.add_route(&p, 2, 3, r(vec![l[1]]), true).unwrap();
    t.add_route(&p, 3, 1, r(vec![l[2]]), true).unwrap();
    t.add_route(&p, 0, 1, r(vec![l[3], l[4], l[5], l[6]]), true).unwrap();
    p.zone_mut(root).routing = ZoneRouting::Table(t);
    p.seal().unwrap();
    assert_eq!(names(&p, 0, 1), ["l0", "l1", "l2"]);
    assert_eq!(names(&p, 1, 0), ["l2", "l1", "l0"]);
}

#[test]
fn topology_size_must_match_hosts() {
    let mut s = ClusterSpec::flat("c", 5, 1e9, 1e8, 1e-6);
    s.topology = Topology::Torus(vec![2, 2]);
    let e = cluster_platform(&s).unwrap_err();
    assert!(e.msg.contains("room for 4 hosts but the radical lists 5"), "{e}");
}
