//! Valiant's detours through a dragonfly group, worked out by hand from the shape's
//! minimal routes: to the intermediate group, across it from the router the first
//! global link lands on to the one with the second, and on to the destination.

use simpi_platform::cluster::Sharing;
use simpi_platform::generate::{self, LinkSpec, NodeSpec};
use simpi_platform::model::{HostId, Platform};

fn node() -> NodeSpec {
    NodeSpec {
        speed: 1e9,
        cores: 1,
        link: LinkSpec {
            bandwidth: 1e9,
            latency: 1e-7,
        },
        sharing: Sharing::SplitDuplex,
        limiter_factor: None,
        loopback: None,
    }
}

fn names(p: &Platform, links: &[simpi_platform::LinkId]) -> Vec<String> {
    links.iter().map(|&l| p.link(l).name.clone()).collect()
}

#[test]
fn a_detour_crosses_two_global_links_and_its_group_once() {
    // 4 groups of 2 chassis of 4 blades with 2 nodes: 16 hosts per group, 64 in all.
    let p = generate::dragonfly("d", (4, 1), (2, 1), (4, 1), 2, &node()).unwrap();
    assert_eq!(p.num_hosts(), 64);
    // Host 19 is group 1, chassis 0, blade 1, node 1; host 63 is group 3, chassis 1,
    // blade 3, node 1.
    let (src, dst) = (HostId(19), HostId(63));
    let at = |h| p.dragonfly_place(h).unwrap();
    assert_eq!((at(src).group, at(dst).group, at(src).groups), (1, 3, 4));
    let minimal = p.route(src, dst).unwrap().links;
    // Through either end's group: the minimal route.
    for g in [1, 3] {
        assert_eq!(p.route_via_group(src, dst, g).unwrap().links, minimal);
    }
    let via = names(&p, &p.route_via_group(src, dst, 0).unwrap().links);
    let blue: Vec<&String> = via.iter().filter(|n| n.contains("blue_link")).collect();
    // Group 1 -> 0 (leaving from group 1's blade 0), then 0 -> 3.
    assert_eq!(blue.len(), 2, "{via:?}");
    assert!(
        blue[0].contains("between_group_0_and_1") && blue[0].ends_with("_DOWN"),
        "{via:?}"
    );
    assert!(
        blue[1].contains("between_group_0_and_3") && blue[1].ends_with("_UP"),
        "{via:?}"
    );
    // Hops: local up; green 1 -> 0 in the source chassis (chassis 0, so no black);
    // blue; green from blade 1 to blade 3 in group 0's chassis 0; blue; in group 3
    // from (0, blade 0): green to blade 3, black to chassis 1; local down.
    assert_eq!(via.len(), 8, "{via:?}");
    assert!(via[2].contains("blue") && via[4].contains("blue"), "{via:?}");
    assert!(
        via[3].contains("green_link_in_chassis_0_between_routers_1_and_3"),
        "{via:?}"
    );
    assert!(
        via[6].contains("black_link_in_group_3_between_chassis_0_and_1"),
        "{via:?}"
    );
    // It starts and ends like the minimal route (the hosts' own links).
    let min = names(&p, &minimal);
    assert_eq!((via.first(), via.last()), (min.first(), min.last()));
    assert!(p.route_via_group(src, dst, 4).is_err());
}

#[test]
fn detours_need_a_dragonfly() {
    let t = generate::torus("t", &[3, 3], &node()).unwrap();
    assert!(!t.has_detours());
    assert!(t.dragonfly_place(HostId(0)).is_none());
    assert!(t.route_via_group(HostId(0), HostId(4), 1).is_err());
}

#[test]
fn a_fat_tree_climb_may_take_any_parent_port_and_the_static_choice_is_d_mod_k() {
    // 16 hosts under 4 leaf switches of 4, each leaf linked to all 4 top switches.
    let p = generate::fat_tree("ft", 2, &[4, 4], &[1, 4], &[1, 1], &node()).unwrap();
    assert_eq!(p.num_hosts(), 16);
    assert!(p.has_minimal_choices() && !p.has_detours());
    // With no choice given, every route is the static one.
    for s in 0..16 {
        for d in (0..16).filter(|&d| d != s) {
            let (route, choices) = p.route_choosing(HostId(s), HostId(d), &[]).unwrap();
            assert_eq!(route.links, p.route(HostId(s), HostId(d)).unwrap().links, "{s} -> {d}");
            // Under one leaf, one climb (the host's own link); else two, the leaf's
            // with d-mod-k's port: the destination's number over the host level's one
            // port, modulo 4.
            if s / 4 == d / 4 {
                assert_eq!(choices.len(), 1);
            } else {
                assert_eq!(choices.len(), 2);
                assert_eq!(
                    (choices[1].position, choices[1].options, choices[1].taken),
                    (1, 4, d as u64 % 4)
                );
            }
        }
    }
    // Host 1 to host 14: each of the leaf's four ports gives another top switch, so
    // other middle links, and the same first and last links.
    let (src, dst) = (HostId(1), HostId(14));
    let minimal = p.route(src, dst).unwrap().links;
    let mut middles = Vec::new();
    for port in 0..4 {
        let (route, choices) = p.route_choosing(src, dst, &[0, port]).unwrap();
        assert_eq!(choices[1].taken, port);
        assert_eq!(route.links.len(), minimal.len());
        assert_eq!((route.links[0], route.links[3]), (minimal[0], minimal[3]));
        middles.push((route.links[1], route.links[2]));
    }
    middles.sort();
    middles.dedup();
    assert_eq!(middles.len(), 4, "{:?}", names(&p, &[middles[0].0, middles[0].1]));
    // Hosts of no fat tree, or one host, have no such routes.
    assert!(p.route_choosing(src, src, &[]).is_none());
    let d = generate::dragonfly("d", (4, 1), (2, 1), (4, 1), 2, &node()).unwrap();
    assert!(d.route_choosing(HostId(0), HostId(20), &[]).is_none());
}

#[test]
fn a_torus_hop_may_correct_any_dimension_left_and_the_static_choice_is_dimension_order() {
    let p = generate::torus("t", &[4, 3, 2], &node()).unwrap();
    assert!(p.has_minimal_choices() && !p.has_detours());
    let route = |a: u32, b: u32| p.route(HostId(a), HostId(b)).unwrap().links;
    for s in 0..24 {
        for d in (0..24).filter(|&d| d != s) {
            let (r, choices) = p.route_choosing(HostId(s), HostId(d), &[]).unwrap();
            assert_eq!(r.links, route(s, d), "{s} -> {d}");
            // A choice at each hop with more than one dimension left: dimension order
            // takes each differing dimension's ring distance in steps, in turn, with
            // the dimensions not yet corrected to choose from.
            let differing: Vec<usize> = (0..3).filter(|&j| coord(s, j) != coord(d, j)).collect();
            let differ = differing.len() as u64;
            let mut want = Vec::new();
            for (k, &j) in differing.iter().enumerate() {
                let (a, b, n) = (coord(s, j), coord(d, j), [4, 3, 2][j]);
                let steps = a.abs_diff(b).min(n - a.abs_diff(b));
                want.extend(std::iter::repeat_n(differ - k as u64, steps as usize).filter(|&w| w > 1));
            }
            let ways: Vec<u64> = choices.iter().map(|c| c.options).collect();
            assert_eq!(ways, want, "{s} -> {d}");
            // Every choice gives a minimal route: as many links as the static one.
            for pick in 0..differ {
                let (v, _) = p.route_choosing(HostId(s), HostId(d), &[pick]).unwrap();
                assert_eq!(v.links.len(), r.links.len(), "{s} -> {d}, first pick {pick}");
            }
        }
    }
    // From (0,0,0) to (1,1,0) = host 5: dimension order goes by (1,0,0) = host 1;
    // picking the second dimension first goes by (0,1,0) = host 4.
    let (v, choices) = p.route_choosing(HostId(0), HostId(5), &[1]).unwrap();
    assert_eq!(
        choices,
        vec![simpi_platform::detour::Choice {
            position: 0,
            options: 2,
            taken: 1
        }]
    );
    assert_eq!(v.links, [route(0, 4), route(4, 5)].concat());
    assert_eq!(
        p.route_choosing(HostId(0), HostId(5), &[]).unwrap().0.links,
        [route(0, 1), route(1, 5)].concat()
    );
}

/// Coordinate `j` of node `r` of the 4 x 3 x 2 torus.
fn coord(r: u32, j: usize) -> u32 {
    (r / [1, 4, 12][j]) % [4, 3, 2][j]
}

#[test]
fn a_late_detour_follows_the_minimal_route_to_where_it_turns() {
    let p = generate::dragonfly("d", (4, 1), (2, 1), (4, 1), 2, &node()).unwrap();
    let group = |h: u32| p.dragonfly_place(HostId(h)).unwrap().group;
    for s in 0..64 {
        for d in (0..64).filter(|&d| group(d) != group(s)) {
            let (src, dst) = (HostId(s), HostId(d));
            let minimal = p.route(src, dst).unwrap().links;
            // Through the destination's group: the minimal route, and every router of
            // the source group it meets is a place to turn: the source's, then one per
            // local link before the global one.
            let (whole, points) = p.route_diverted(src, dst, 2, group(d)).unwrap();
            assert_eq!(whole.links, minimal, "{s} -> {d}");
            assert_eq!(points[0], 1, "{s} -> {d}: the host's link first");
            assert!(points.windows(2).all(|w| w[1] == w[0] + 1), "{s} -> {d}: {points:?}");
            assert!(points.len() <= 3);
            for v in 0..4 {
                // Turning at the source router is Valiant's detour.
                let (at_source, _) = p.route_diverted(src, dst, 0, v).unwrap();
                assert_eq!(at_source.links, p.route_via_group(src, dst, v).unwrap().links);
                // Turning later shares the minimal route up to where it turns.
                for (steps, &at) in points.iter().enumerate() {
                    let (late, _) = p.route_diverted(src, dst, steps, v).unwrap();
                    assert_eq!(late.links[..at], minimal[..at], "{s} -> {d} via {v} after {steps}");
                }
            }
        }
    }
    // Hosts of one group have no late detour.
    assert!(p.route_diverted(HostId(0), HostId(1), 0, 2).is_none());
}
