//! `simpi::sweep`: the grid's expansion order, the checks that name a point, and values
//! from LogGOPS closed forms (docs/models.md): an uncontended eager message from an idle
//! sender to a posted receive ends the receiver at `L + 2o + (B-1)G` (O = 0), so a
//! ping-pong of B bytes ends at twice that.

use simpi::sweep::{self, keys, Axis, FailureKind, Spec};
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Rank 0 sends `bytes` to rank 1, which sends them back.
fn ping_pong(d: &Path, bytes: u64) -> PathBuf {
    let p = d.join(format!("pingpong-{bytes}.goal"));
    std::fs::write(
        &p,
        format!(
            "num_ranks 2\n\
             rank 0 {{\ns: send {bytes}b to 1 tag 0\nr: recv {bytes}b from 1 tag 0\nr requires s\n}}\n\
             rank 1 {{\nr: recv {bytes}b from 0 tag 0\ns: send {bytes}b to 0 tag 0\ns requires r\n}}\n"
        ),
    )
    .unwrap();
    p
}

/// The ping-pong's end in ps with times in ns: rank 1 sends back when the first
/// message is in (its CPU busy until L + 2o + (B-1)G, nothing else queued on it), and the
/// reply costs the same again.
fn closed_form_ps(l: u64, o: u64, big_g: u64, bytes: u64) -> u64 {
    2 * (l + 2 * o + (bytes - 1) * big_g) * 1000
}

fn key(name: &str) -> &'static keys::Key {
    keys::find(name).unwrap()
}

fn axis(name: &str, values: &[u64]) -> Axis {
    Axis {
        key: key(name),
        values: values.iter().map(|v| v.to_string()).collect(),
    }
}

#[test]
fn a_grid_of_l_and_g_follows_the_closed_form_in_product_order() {
    let d = dir("lg");
    let f = ping_pong(&d, 1000);
    let spec = Spec {
        grid: vec![axis("L", &[1000, 2500, 4000]), axis("G", &[1, 6])],
        inputs: vec![f.clone()],
        fixed: vec![(key("o"), "100".into())],
    };
    let planned = spec.points().unwrap();
    let order: Vec<(String, String)> = planned
        .iter()
        .map(|p| (p.values[0].clone(), p.values[1].clone()))
        .collect();
    let want_order: Vec<(String, String)> = [(1000, 1), (1000, 6), (2500, 1), (2500, 6), (4000, 1), (4000, 6)]
        .iter()
        .map(|(l, g)| (l.to_string(), g.to_string()))
        .collect();
    assert_eq!(order, want_order);
    assert_eq!(planned.iter().map(|p| p.index).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
    let table = sweep::run(&spec, &planned, 1).unwrap();
    assert!(table.has_input);
    assert_eq!(table.header(), ["input", "L", "G", "makespan", "makespan_ps", "events"]);
    for row in &table.rows {
        let l: u64 = row.values[0].parse().unwrap();
        let g: u64 = row.values[1].parse().unwrap();
        assert_eq!(row.makespan_ps, closed_form_ps(l, 100, g, 1000), "L={l} G={g}");
        // Four operations and two messages.
        assert_eq!(row.events, 6);
        assert_eq!(row.input.as_deref(), Some(f.display().to_string().as_str()));
    }
    // Any number of threads gives the same table.
    for threads in [2, 3, 16] {
        assert_eq!(sweep::run(&spec, &planned, threads).unwrap(), table);
    }
}

#[test]
fn inputs_are_the_outermost_axis() {
    let d = dir("inputs");
    let files = [ping_pong(&d, 10), ping_pong(&d, 1000)];
    let spec = Spec {
        grid: vec![axis("o", &[0, 1500])],
        inputs: files.to_vec(),
        fixed: vec![],
    };
    let planned = spec.points().unwrap();
    let table = sweep::run(&spec, &planned, 2).unwrap();
    let got: Vec<(Option<String>, u64)> = table.rows.iter().map(|r| (r.input.clone(), r.makespan_ps)).collect();
    // Defaults L=2500 G=6.
    let want: Vec<(Option<String>, u64)> = [(0, 0, 10), (0, 1500, 10), (1, 0, 1000), (1, 1500, 1000)]
        .iter()
        .map(|&(f, o, b)| (Some(files[f].display().to_string()), closed_form_ps(2500, o, 6, b)))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_pattern_is_swept_without_input_files() {
    // A 2-rank binomial broadcast is one eager message: L + 2o + (B-1)G.
    let spec = Spec {
        grid: vec![axis("bytes", &[1, 1001])],
        inputs: vec![],
        fixed: vec![(key("pattern"), "binomial-bcast".into()), (key("ranks"), "2".into())],
    };
    let planned = spec.points().unwrap();
    let table = sweep::run(&spec, &planned, 2).unwrap();
    assert!(!table.has_input);
    assert_eq!(table.header(), ["bytes", "makespan", "makespan_ps", "events"]);
    let got: Vec<u64> = table.rows.iter().map(|r| r.makespan_ps).collect();
    assert_eq!(got, [(2500 + 3000) * 1000, (2500 + 3000 + 1000 * 6) * 1000]);
}

#[test]
fn the_grids_own_faults_are_refused() {
    let d = dir("faults");
    let f = ping_pong(&d, 8);
    let mk = |grid: Vec<Axis>, fixed: Vec<(&'static keys::Key, String)>| Spec {
        grid,
        inputs: vec![f.clone()],
        fixed,
    };
    let err = |s: Spec| s.points().unwrap_err();
    assert_eq!(
        err(mk(vec![axis("L", &[1]), axis("L", &[2])], vec![])),
        "-L is swept twice"
    );
    assert_eq!(err(mk(vec![axis("L", &[])], vec![])), "-L is swept over no value");
    assert_eq!(
        err(mk(vec![axis("L", &[1])], vec![(key("L"), "2".into())])),
        "-L is both swept and fixed"
    );
    assert_eq!(
        err(mk(vec![], vec![(key("o"), "2".into()), (key("o"), "3".into())])),
        "-o is given twice"
    );
    let hundred: Vec<u64> = (1..=100).collect();
    let huge = mk(
        vec![axis("L", &hundred), axis("G", &hundred), axis("o", &hundred)],
        vec![],
    );
    assert_eq!(huge.len(), 1_000_000);
    assert_eq!(err(huge), "the sweep has 1000000 points, more than 131072");
    // --coll may be fixed more than once (an algorithm per collective).
    let colls = vec![
        (key("coll"), "bcast=binomial".into()),
        (key("coll"), "allreduce=rdb".into()),
    ];
    let e = err(mk(vec![], colls));
    assert!(e.contains("--coll applies to TIT traces"), "{e}");
}

#[test]
fn a_bad_or_ignored_value_names_its_point() {
    let d = dir("points");
    let f = ping_pong(&d, 8);
    let spec = Spec {
        grid: vec![
            axis("G", &[1, 2]),
            Axis {
                key: key("L"),
                values: vec!["1".into(), "x".into()],
            },
        ],
        inputs: vec![f.clone()],
        fixed: vec![],
    };
    let e = spec.points().unwrap_err();
    let want = format!(
        "point 1 (input={}, -G 1, -L x): -L: 'x' is not a whole number",
        f.display()
    );
    assert!(e.starts_with(&want), "{e}");
    // LogGOPS's L with the constant model, which does not use it.
    let spec = Spec {
        grid: vec![Axis {
            key: key("model"),
            values: vec!["loggops".into(), "constant".into()],
        }],
        inputs: vec![f.clone()],
        fixed: vec![(key("L"), "100".into())],
    };
    let e = spec.points().unwrap_err();
    assert!(
        e.starts_with("point 1 (") && e.contains("--model constant): -L is a LogGOPS parameter"),
        "{e}"
    );
    // A pattern parameter without a pattern.
    let spec = Spec {
        grid: vec![axis("ranks", &[2])],
        inputs: vec![f],
        fixed: vec![],
    };
    let e = spec.points().unwrap_err();
    assert!(
        e.contains("point 0") && e.contains("--ranks is a pattern parameter"),
        "{e}"
    );
}

#[test]
fn the_first_failing_point_in_grid_order_stops_the_sweep() {
    let d = dir("stall");
    let good = ping_pong(&d, 8);
    let stuck = d.join("stuck.goal");
    std::fs::write(
        &stuck,
        "num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 0\n}\nrank 1 {\n}\n",
    )
    .unwrap();
    let spec = Spec {
        grid: vec![axis("L", &[1, 2, 3])],
        inputs: vec![good, stuck.clone(), d.join("missing.goal")],
        fixed: vec![],
    };
    let planned = spec.points().unwrap();
    for threads in [1, 2, 4] {
        let e = sweep::run(&spec, &planned, threads).unwrap_err();
        assert_eq!(e.failure.kind, FailureKind::Stall);
        assert_eq!(e.point, format!("point 3 (input={}, -L 1)", stuck.display()));
    }
}

#[test]
fn a_points_breakdown_adds_up_to_its_end_times() {
    let d = dir("breakdown");
    let f = ping_pong(&d, 1000);
    let spec = Spec {
        grid: vec![axis("L", &[1000, 3000])],
        inputs: vec![f],
        fixed: vec![(key("o"), "100".into())],
    };
    let planned = spec.points().unwrap();
    let b = sweep::breakdown(&spec, &planned[1]).unwrap();
    assert_eq!(b.len(), 2);
    let ends: Vec<u64> = b.iter().map(|r| r.compute + r.comm + r.wait + r.idle).collect();
    // Rank 0 ends with the reply; rank 1 once it has sent it, o after its start.
    let t1 = (3000 + 2 * 100 + 999 * 6) * 1000;
    assert_eq!(ends, [closed_form_ps(3000, 100, 6, 1000), t1 + 100 * 1000]);
    assert!(b.iter().all(|r| r.compute == 0));
}
