//! Malformed platforms (SimGrid XML, simpi's TOML) and host files give errors, never
//! panics. Small valid inputs (the repository's benchmark platforms, and files written
//! here for every topology and for explicit zones) are mutated a few thousand times each
//! by a seeded generator: a byte deleted or inserted, a line duplicated or two swapped,
//! the text cut short, a number replaced by an extreme or broken one, a name replaced by
//! an unknown one. Each mutant is loaded, and what loads is routed; nothing may panic,
//! and an error must name the file and, for a problem on a line, the line.
//!
//! The generator is shared with `crates/trace/tests/malformed.rs` (tests/support/mutate.rs).

use simpi_platform::{load, HostId, Mapping, Platform, PlatformError};

use std::path::Path;
use std::time::Instant;

// ---- the mutation generator: tests/support/mutate.rs ----

#[path = "../../../tests/support/mutate.rs"]
mod mutate;
use mutate::*;

/// An error must name the file, and a line unless it is about the whole file.
fn error_has_its_place(e: &PlatformError, path: &Path, whole_file: &[&str]) {
    assert_eq!(
        e.file.as_deref(),
        Some(&*path.display().to_string()),
        "an error without the file: {e}"
    );
    assert!(
        e.line > 0 || whole_file.iter().any(|m| e.msg.starts_with(m)),
        "an error without a line: {e}"
    );
}

/// Routes some host pairs of a platform that loaded (a platform that loads must route
/// or say why not).
fn route_some(p: &Platform, g: &mut Rng) {
    let n = p.num_hosts() as u32;
    if n == 0 {
        return;
    }
    let mut pairs = vec![(0, n - 1), (n - 1, 0), (0, 0)];
    for _ in 0..4 {
        pairs.push((g.below(n as usize) as u32, g.below(n as usize) as u32));
    }
    for (a, b) in pairs {
        let _ = p.route(HostId(a), HostId(b));
    }
    let _ = simpi_platform::check::summary(p);
}

const HEAD: &str = "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";

/// XML platforms: the benchmark ones, and zones with explicit routes and a dragonfly.
fn xml_seeds() -> Vec<String> {
    let mut v: Vec<String> = ["flat.xml", "flat-nobb.xml", "torus.xml", "fattree.xml", "cabinets.xml"]
        .iter()
        .map(|f| std::fs::read_to_string(root().join("bench/smpi/platforms").join(f)).unwrap())
        .collect();
    v.push(format!(
        "{HEAD}<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Floyd\">\n\
         <host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"2Gf,1Gf\" core=\"4\"><prop id=\"x\" value=\"y\"/></host>\n\
         <host id=\"c\" speed=\"1Gf\"/>\n<router id=\"r\"/>\n\
         <link id=\"ar\" bandwidth=\"1GBps\" latency=\"10us\"/>\n\
         <link id=\"rb\" bandwidth=\"1GBps\" latency=\"20us\" sharing_policy=\"SPLITDUPLEX\"/>\n\
         <link id=\"rc\" bandwidth=\"1GBps\" latency=\"30us\" sharing_policy=\"FATPIPE\"/>\n\
         <route src=\"a\" dst=\"r\"><link_ctn id=\"ar\"/></route>\n\
         <route src=\"r\" dst=\"b\"><link_ctn id=\"rb\" direction=\"UP\"/></route>\n\
         <route src=\"r\" dst=\"c\" symmetrical=\"NO\"><link_ctn id=\"rc\"/></route>\n\
         <route src=\"c\" dst=\"r\" symmetrical=\"NO\"><link_ctn id=\"rc\"/></route>\n\
         </zone></platform>\n"
    ));
    v.push(format!(
        "{HEAD}<platform version=\"4.1\">\n<zone id=\"top\" routing=\"Dijkstra\">\n\
         <zone id=\"left\" routing=\"Full\">\n<host id=\"l0\" speed=\"1Gf\"/>\n<router id=\"lr\"/>\n\
         <link id=\"l0l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n\
         <route src=\"l0\" dst=\"lr\"><link_ctn id=\"l0l\"/></route>\n</zone>\n\
         <cluster id=\"df\" topology=\"DRAGONFLY\" topo_parameters=\"2,1;2,1;2,1;2\" prefix=\"n\" suffix=\"\" \
         radical=\"0-15\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" limiter_link=\"2GBps\" loopback_bw=\"10GBps\" \
         loopback_lat=\"0\"/>\n\
         <link id=\"wan\" bandwidth=\"100MBps\" latency=\"5ms\" sharing_policy=\"SHARED\"/>\n\
         <zoneRoute src=\"left\" dst=\"df\" gw_src=\"lr\" gw_dst=\"n0\"><link_ctn id=\"wan\"/></zoneRoute>\n\
         </zone></platform>\n"
    ));
    v
}

/// TOML platforms: every generated topology, and explicit hosts, links and routes.
fn toml_seeds() -> Vec<String> {
    let node = "speed = \"1Gf\"\ncores = 2\n\
                link = { bandwidth = \"125MBps\", latency = \"50us\", sharing = \"split-duplex\" }\n\
                limiter = 1.5\nloopback = { bandwidth = \"10GBps\", latency = \"0us\" }\n";
    let mut v: Vec<String> = [
        "kind = \"flat\"\nhosts = 16\nbackbone = { bandwidth = \"10GBps\", latency = \"1us\", sharing = \"shared\" }\n",
        "kind = \"torus\"\ndims = [2, 3, 2]\n",
        "kind = \"fat-tree\"\nfat_tree = \"2;4,4;1,2;1,2\"\n",
        "kind = \"dragonfly\"\ndragonfly = \"3,1;4,1;4,1;2\"\n",
        "kind = \"cabinets\"\ncabinets = 3\nper_cabinet = 4\n\
         cabinet_switch = { bandwidth = \"10GBps\", latency = \"1us\" }\n\
         uplink = { bandwidth = \"1.25GBps\", latency = \"2us\" }\nuplink_limiter = \"1.6GBps\"\n",
    ]
    .iter()
    .map(|t| format!("name = \"t\"\n[topology]\n{t}{node}"))
    .collect();
    v.push(
        "routing = \"floyd\"\n[[host]]\nname = \"a\"\nspeed = \"1Gf\"\n[[host]]\nname = \"b\"\nspeed = \"2Gf\"\ncores = 4\n\
         [[router]]\nname = \"r\"\n[[link]]\nname = \"l\"\nbandwidth = \"1GBps\"\nlatency = \"10us\"\n\
         sharing = \"split-duplex\"\n[[link]]\nname = \"m\"\nbandwidth = \"1GBps\"\nlatency = \"10us\"\n\
         [[route]]\nsrc = \"a\"\ndst = \"r\"\nlinks = [\"l:up\"]\n[[route]]\nsrc = \"r\"\ndst = \"b\"\nlinks = [\"m\"]\n\
         symmetrical = false\n[[route]]\nsrc = \"b\"\ndst = \"r\"\nlinks = [\"m\"]\nsymmetrical = false\n"
            .into(),
    );
    v
}

/// Loads mutants of `seeds` written as `name`; returns (mutants, rejected).
fn mutate_platforms(seeds: &[String], name: &str, g: &mut Rng, per_seed: usize) -> (usize, usize) {
    let d = scratch(name);
    let path = d.join(name);
    for s in seeds {
        std::fs::write(&path, s).unwrap();
        if let Err(e) = load(&path) {
            panic!("the seed does not load: {e}\n{s}");
        }
    }
    // Whole-file problems: the file cannot be read, or says nothing.
    let whole_file = ["cannot read", "the platform has no"];
    let (mut total, mut rejected) = (0, 0);
    for s in seeds {
        for _ in 0..per_seed {
            let m = mutant(s.as_bytes(), g);
            std::fs::write(&path, &m).unwrap();
            total += 1;
            no_panic("the platform reader", &m, || match load(&path) {
                Ok(p) => route_some(&p, g),
                Err(e) => {
                    rejected += 1;
                    error_has_its_place(&e, &path, &whole_file);
                }
            });
        }
    }
    (total, rejected)
}

#[test]
fn mutated_xml_platforms_give_errors_not_panics() {
    let start = Instant::now();
    let (total, rejected) = mutate_platforms(&xml_seeds(), "platform.xml", &mut Rng(0x5eed_0101), scale(400));
    bites("XML", rejected, total, total / 4);
    eprintln!("XML: {total} mutants, {rejected} rejected, {:?}", start.elapsed());
}

#[test]
fn mutated_toml_platforms_give_errors_not_panics() {
    let start = Instant::now();
    let (total, rejected) = mutate_platforms(&toml_seeds(), "platform.toml", &mut Rng(0x5eed_0102), scale(500));
    bites("TOML", rejected, total, total / 4);
    eprintln!("TOML: {total} mutants, {rejected} rejected, {:?}", start.elapsed());
}

#[test]
fn mutated_host_files_give_errors_not_panics() {
    let start = Instant::now();
    let d = scratch("hostfile");
    let platforms: Vec<Platform> = ["flat.xml", "cabinets.xml"]
        .iter()
        .map(|f| load(&root().join("bench/smpi/platforms").join(f)).unwrap())
        .collect();
    let seeds = [
        std::fs::read_to_string(root().join("tests/golden/smpi-replay/npb_is_S/hostfile")).unwrap(),
        "# two ranks on the first node\nnode-0:2\nnode-1 slots=3\n\nnode-2  # one\nnode-15:1\n".into(),
        "cab0-0:4\ncab1-3 slots=2\ncab0-1\n".into(),
    ];
    let path = d.join("hostfile");
    let whole_file = ["cannot read", "the host file lists no host"];
    let mut g = Rng(0x5eed_0103);
    let (mut total, mut rejected) = (0, 0);
    for (k, s) in seeds.iter().enumerate() {
        let p = &platforms[usize::from(k == 2)];
        std::fs::write(&path, s).unwrap();
        assert!(
            Mapping::from_host_file(p, &path, 8).is_ok(),
            "the seed does not read:\n{s}"
        );
        for _ in 0..scale(1000) {
            let m = mutant(s.as_bytes(), &mut g);
            std::fs::write(&path, &m).unwrap();
            let ranks = [0, 1, 7, 64][g.below(4)];
            total += 1;
            no_panic("the host file reader", &m, || {
                match Mapping::from_host_file(p, &path, ranks) {
                    Ok(map) => {
                        assert_eq!(map.ranks(), ranks);
                        for r in 0..ranks {
                            assert!((map.host(r).0 as usize) < p.num_hosts());
                        }
                    }
                    Err(e) => {
                        rejected += 1;
                        error_has_its_place(&e, &path, &whole_file);
                    }
                }
            });
        }
    }
    bites("host files", rejected, total, total / 4);
    eprintln!(
        "host files: {total} mutants, {rejected} rejected, {:?}",
        start.elapsed()
    );
}

/// The inputs that ran out of memory before (an abort, which no test can catch), each
/// now an error with its place, or read.
#[test]
fn what_aborted_is_now_an_error() {
    let d = scratch("found");
    let write = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let err = |name: &str, text: &str| load(&write(name, text)).unwrap_err().to_string();
    let link = "link = { bandwidth = \"1GBps\", latency = \"1us\" }\n";
    // Sizes past any machine: 10^11 hosts (was 800 GB of host numbers), a torus whose
    // size overflows 64 bits, a dragonfly of 2^48 links, a fat tree of 2^35 switches.
    let e = err(
        "flat.toml",
        &format!("[topology]\nkind = \"flat\"\nhosts = 99999999999\n{link}"),
    );
    assert!(
        e.ends_with("flat.toml:3: topology.hosts = 99999999999: a platform has from 1 to 16777216 hosts"),
        "{e}"
    );
    let e = err(
        "torus.toml",
        &format!("[topology]\nkind = \"torus\"\ndims = [4294967295, 4294967295, 4294967295]\n{link}"),
    );
    assert!(
        e.ends_with("cluster 'platform' has more than 2^64 hosts: at most 16777216 are supported"),
        "{e}"
    );
    let e = err(
        "df.toml",
        &format!("[topology]\nkind = \"dragonfly\"\ndragonfly = \"1,1;1,1;16777216,1;1\"\n{link}"),
    );
    assert!(
        e.contains("df.toml:1: [topology]: cluster 'platform': the topology would build about "),
        "{e}"
    );
    assert!(
        e.ends_with(" links and switches: at most 67108864 are supported"),
        "{e}"
    );
    let e = err(
        "cab.toml",
        &format!("[topology]\nkind = \"cabinets\"\ncabinets = 100000\nper_cabinet = 1\ncabinet_switch = {{ bandwidth = \"1GBps\" }}\nuplink = {{ bandwidth = \"1GBps\" }}\n{link}"),
    );
    assert!(
        e.ends_with(
            "cab.toml:1: [topology]: 100000 cabinets would need 10000000000 routes between them: at most 1048576 are supported"
        ),
        "{e}"
    );
    let cluster = |params: &str, radical: &str| {
        format!(
            "{HEAD}<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n<cluster id=\"c\" topology=\"FAT_TREE\" \
             topo_parameters=\"{params}\" prefix=\"n\" suffix=\"\" radical=\"{radical}\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>\n\
             </zone></platform>\n"
        )
    };
    let e = err("ft.xml", &cluster("2;4,4;1,4294967295;1,2", "0-15"));
    assert!(e.contains("ft.xml:4: cluster 'c': the topology would build"), "{e}");
    let e = err("radical.xml", &cluster("2;4,4;1,2;1,2", "0-99999999999"));
    assert!(
        e.ends_with("radical.xml:4: radical '0-99999999999': 99999999999 is out of range (at most 2147483647)"),
        "{e}"
    );
    // A host file giving a host 2^32 - 1 ranks: was a 16 GB list of slots.
    let p = load(&root().join("bench/smpi/platforms/flat.xml")).unwrap();
    let hf = write("hostfile", "node-3:4294967295\nnode-4\n");
    let m = Mapping::from_host_file(&p, &hf, 3).unwrap();
    assert_eq!(
        (0..3).map(|r| m.host(r)).collect::<Vec<_>>(),
        vec![p.host_by_name("node-3").unwrap(); 3]
    );
    let hf = write("hostfile", "node-3:0\n");
    let e = Mapping::from_host_file(&p, &hf, 3).unwrap_err().to_string();
    assert!(e.ends_with("hostfile: the host file lists no host"), "{e}");
}
