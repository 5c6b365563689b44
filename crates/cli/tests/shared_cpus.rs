//! Ranks that share CPUs (issue 21, item 2): compute shares a host's cores as SimGrid's
//! CPU model shares them, a platform run on one machine shares that machine's cores
//! among all its hosts, and a preset whose overheads are CPU work and whose ranks spin
//! while they wait slows a sender by the share it gets. Expected times by hand.

use std::path::PathBuf;
use std::process::{Command, Output};

fn simpi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpi")).args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Writes `files` into a directory of this test's own.
fn dir(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("shared-cpus-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    for (f, t) in files {
        std::fs::write(d.join(f), t).unwrap();
    }
    d
}

/// Each rank's end in picoseconds, from `simpi replay --json`.
fn ends(args: &[&str]) -> Vec<u64> {
    let out = simpi(&[&["replay", "--json"], args].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = text(&out.stdout);
    json.split("\"end_ps\": ")
        .skip(1)
        .map(|s| s.split('}').next().unwrap().trim().parse().unwrap())
        .collect()
}

const S: u64 = 1_000_000_000_000;
const US: u64 = 1_000_000;

fn platform(head: &str, hosts: u32, cores: u32) -> String {
    format!(
        "{head}[topology]\nkind = \"flat\"\nhosts = {hosts}\nspeed = \"1Gf\"\ncores = {cores}\n\
         link = {{ bandwidth = \"1GBps\", latency = \"1us\" }}\n"
    )
}

#[test]
fn ranks_on_a_host_with_fewer_cores_share_them_for_compute() {
    // Four ranks computing 1 Gflop each on one host of two 1 Gf/s cores: each gets half
    // a core, all end at 2 s. If rank 3 computes 3 Gflop, it too has done 1 Gflop at 2 s
    // when the others end; its other 2 run alone on a core: it ends at 4 s.
    let p = platform("", 1, 2);
    let even = "0 init\n1 init\n2 init\n3 init\n0 compute 1e9\n1 compute 1e9\n2 compute 1e9\n3 compute 1e9\n";
    let odd = even.replace("3 compute 1e9", "3 compute 3e9");
    let d = dir("host", &[("p.toml", &p), ("even.tit", even), ("odd.tit", &odd)]);
    let args = |t: &str| {
        vec![
            d.join(t).display().to_string(),
            "--platform".into(),
            d.join("p.toml").display().to_string(),
        ]
    };
    let run = |t: &str| ends(&args(t).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run("even.tit"), vec![2 * S; 4]);
    assert_eq!(run("odd.tit"), vec![2 * S, 2 * S, 2 * S, 4 * S]);
    // Four cores: no sharing.
    let p4 = platform("", 1, 4);
    let d4 = dir("host4", &[("p.toml", &p4), ("odd.tit", &odd)]);
    let out = ends(&[
        d4.join("odd.tit").to_str().unwrap(),
        "--platform",
        d4.join("p.toml").to_str().unwrap(),
    ]);
    assert_eq!(out, vec![S, S, S, 3 * S]);
}

#[test]
fn hosts_of_one_machine_share_its_cores() {
    // Two hosts of one 1-core machine: rank 0 computes 3 Gflop, rank 1 1 Gflop. Both at
    // half speed until rank 1 ends at 2 s; rank 0 has 2 Gflop left alone: ends at 4 s.
    let p = platform("shared_cores = 1\n", 2, 1);
    let t = "0 init\n1 init\n0 compute 3e9\n1 compute 1e9\n";
    let d = dir("machine", &[("p.toml", &p), ("t.tit", t)]);
    let (pt, tt) = (d.join("p.toml"), d.join("t.tit"));
    assert_eq!(
        ends(&[tt.to_str().unwrap(), "--platform", pt.to_str().unwrap()]),
        vec![4 * S, 2 * S]
    );
    // Without the line, each host has its core.
    let own = platform("", 2, 1);
    std::fs::write(&pt, own).unwrap();
    assert_eq!(
        ends(&[tt.to_str().unwrap(), "--platform", pt.to_str().unwrap()]),
        vec![3 * S, S]
    );
}

#[test]
fn spinning_waiters_slow_an_overhead_that_is_cpu_work() {
    // Eight ranks on one machine of two cores. Rank 0 sends 100 bytes to rank 1; its send
    // overhead is 10 us of CPU work. Ranks 1-7 wait, spinning: rank 0 gets 2/8 of a core,
    // so the overhead takes 40 us instead of 10, and rank 1's receive ends 30 us later.
    let p = platform("shared_cores = 2\n", 8, 1);
    let mut t: String = (0..8).map(|r| format!("{r} init\n")).collect();
    t += "0 send 1 0 100\n1 recv 0 0 100\n";
    let preset = |cpu: bool, spin: f64| {
        format!(
            "[protocol]\nos = \"0:1e-5:0\"\nor = \"0:0:0\"\nasync_small = 65536\ndetached = 65536\n\
             envelope = 0\ngrow_test_costs = true\ncpu_overheads = {cpu}\nbusy_wait = {spin:?}\n\
             [network]\nlat_factor = \"0:1\"\nbw_factor = \"0:1\"\n"
        )
    };
    let d = dir(
        "spin",
        &[
            ("p.toml", &p),
            ("t.tit", &t),
            ("sleep.toml", &preset(false, 1.0)),
            ("alone.toml", &preset(true, 0.0)),
            ("spin.toml", &preset(true, 1.0)),
            ("half.toml", &preset(true, 0.5)),
        ],
    );
    let run = |preset: &str| {
        ends(&[
            d.join("t.tit").to_str().unwrap(),
            "--platform",
            d.join("p.toml").to_str().unwrap(),
            "--preset",
            d.join(preset).to_str().unwrap(),
        ])
    };
    let (sleep, alone, spin) = (run("sleep.toml"), run("alone.toml"), run("spin.toml"));
    assert_eq!(sleep[0], 10 * US, "an overhead off the CPU is a 10 us wait");
    assert_eq!(alone, sleep, "working alone, a CPU overhead takes its own time");
    assert_eq!(spin[0], 40 * US);
    assert_eq!(spin[1] - sleep[1], 30 * US);
    // Waiting ranks claiming half of a working one's share: 2 / (1 + 7/2) of a core.
    assert_eq!(run("half.toml")[0], 22_500_000);
}

#[test]
fn moving_bytes_costs_shared_cpus_beside_the_transfer() {
    // Four ranks on one machine of one core, each sending 1e6 bytes to the next at once
    // (rendezvous: no overheads). With a stack work of 1e-8 s per byte at each end, each
    // message gives the core two tasks of 10 ms: eight tasks share it, all end at 80 ms,
    // long after the transfers, and every message arrives then. Waiting ranks spinning
    // at full weight add four competitors: 120 ms. Without stack work, or with a core
    // per host (the work runs on spare cycles), the network's time: each host's link
    // carries its message out and its neighbour's in, 2 ms, plus two links' 1 us.
    let p = platform("shared_cores = 1\n", 4, 1);
    let mut t: String = (0..4).map(|r| format!("{r} init\n")).collect();
    for r in 0..4 {
        let (next, prev) = ((r + 1) % 4, (r + 3) % 4);
        t += &format!("{r} isend {next} 0 1000000\n{r} recv {prev} 0 1000000\n{r} wait {r} {next} 0\n");
    }
    let preset = |stack: f64, spin: f64| {
        format!(
            "[protocol]\nos = \"0:0:0\"\nor = \"0:0:0\"\nasync_small = 0\ndetached = 65536\n\
             envelope = 0\ngrow_test_costs = true\ncpu_overheads = true\nbusy_wait = {spin:?}\n\
             stack_per_byte = {stack:?}\n[network]\nlat_factor = \"0:1\"\nbw_factor = \"0:1\"\n"
        )
    };
    let d = dir(
        "stack",
        &[
            ("p.toml", &p),
            ("own.toml", &platform("", 4, 1)),
            ("t.tit", &t),
            ("none.toml", &preset(0.0, 0.0)),
            ("stack.toml", &preset(1e-8, 0.0)),
            ("spin.toml", &preset(1e-8, 1.0)),
        ],
    );
    let run = |platform: &str, preset: &str| {
        ends(&[
            d.join("t.tit").to_str().unwrap(),
            "--model",
            "hybrid",
            "--platform",
            d.join(platform).to_str().unwrap(),
            "--preset",
            d.join(preset).to_str().unwrap(),
        ])
    };
    let network = 2 * S / 1000 + 2 * US;
    assert_eq!(run("p.toml", "none.toml"), vec![network; 4]);
    assert_eq!(run("p.toml", "stack.toml"), vec![80 * S / 1000; 4]);
    assert_eq!(run("p.toml", "spin.toml"), vec![120 * S / 1000; 4]);
    assert_eq!(run("own.toml", "stack.toml"), vec![network; 4]);
}

#[test]
fn cpu_settings_out_of_range_are_refused_with_their_line() {
    for (k, (line, want)) in [
        ("stack_per_byte = -1e-9", "bad.toml:8: stack_per_byte"),
        (
            "wake_delay = -1e-4",
            "bad.toml:8: wake_delay: -0.0001 is not a number of seconds from 0 to 1",
        ),
        (
            "wake_delay = 2.0",
            "bad.toml:8: wake_delay: 2 is not a number of seconds from 0 to 1",
        ),
        ("wake_delay = nan", "bad.toml:8: wake_delay: NaN"),
    ]
    .into_iter()
    .enumerate()
    {
        let bad = format!(
            "[protocol]\nos = \"0:0:0\"\nor = \"0:0:0\"\nasync_small = 0\ndetached = 65536\n\
             envelope = 0\ngrow_test_costs = true\n{line}\n\
             [network]\nlat_factor = \"0:1\"\nbw_factor = \"0:1\"\n"
        );
        let d = dir(
            &format!("badcpu{k}"),
            &[
                ("p.toml", &platform("", 2, 1)),
                ("bad.toml", &bad),
                ("t.tit", "0 init\n1 init\n"),
            ],
        );
        let out = simpi(&[
            "replay",
            d.join("t.tit").to_str().unwrap(),
            "--model",
            "hybrid",
            "--platform",
            d.join("p.toml").to_str().unwrap(),
            "--preset",
            d.join("bad.toml").to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{line}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(want), "{line}: {}", text(&out.stderr));
    }
}
