//! Platforms: the SimGrid XML and TOML readers, the host-file reader, and a GOAL
//! schedule replayed end to end on a platform of the input's.

use super::run::{exercise, platform, MAX_OPS, MAX_RANKS, PLATFORM_XML};
use super::scratch::{fresh_dir, parts, write};
use simpi::platform::{check, toml_file, xml, HostId, Mapping, Platform, PlatformError};
use simpi::{count_ranks, load, CollChoice, Format, LoadOptions, Machine, MappingSpec, ModelSpec, Preset, TimeUnit};
use std::path::Path;

/// Reads `data` as a SimGrid XML platform, then uses what reads.
pub fn xml_platform(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        use_platform(xml::parse(text, Path::new("fuzz.xml")));
    }
}

/// Reads `data` as a TOML platform, then uses what reads.
pub fn toml_platform(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        use_platform(toml_file::parse(text, Path::new("fuzz.toml")));
    }
}

/// What `simpi platform show|check` and a replay's set-up do with a platform: the
/// summary, routes between sampled pairs, and the block and round-robin mappings.
fn use_platform(p: Result<Platform, PlatformError>) {
    let p = match p {
        Ok(p) => p,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let _ = check::summary(&p);
    let _ = check::check(&p, 64);
    let n = p.num_hosts() as u32;
    if n == 0 {
        return;
    }
    for (a, b) in [(0, n - 1), (n - 1, 0), (0, 0), (n / 2, n / 3)] {
        let _ = p.route(HostId(a), HostId(b)).map_err(|e| e.to_string());
    }
    let _ = Mapping::block(&p, 4, 2);
    let _ = Mapping::round_robin(&p, 4);
}

/// Reads `data` as a host file for the 16 hosts `node-0` to `node-15`, for several
/// numbers of ranks, and through the facade's machine set-up.
pub fn hostfile(data: &[u8]) {
    let dir = fresh_dir();
    let hosts = write(&dir, "hostfile", data);
    let p = platform();
    for ranks in [0, 1, 7, MAX_RANKS] {
        match Mapping::from_host_file(p, &hosts, ranks) {
            Ok(m) => {
                for r in 0..m.ranks() {
                    let _ = m.host(r);
                }
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    let spec = ModelSpec::Flow {
        platform: write(&dir, "platform.xml", PLATFORM_XML.as_bytes()),
        mapping: MappingSpec::HostFile(hosts),
        preset: Preset::flow(),
    };
    if let Ok(m) = Machine::new(&spec, 8) {
        for r in 0..8 {
            let _ = m.speed(r);
        }
        let _ = m.model();
    }
}

/// A platform (XML if it starts with `<`, else TOML), a `%%` line, and a GOAL schedule:
/// replayed as `simpi replay --model flow|hybrid --platform P S` does, rank `r` on
/// host `r mod hosts`, if the schedule is small.
pub fn platform_replay(data: &[u8]) {
    let files = parts(data, 2);
    let (plat, sched) = (files[0], files.get(1).copied().unwrap_or_default());
    let dir = fresh_dir();
    let is_xml = plat.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<');
    let plat = write(&dir, if is_xml { "platform.xml" } else { "platform.toml" }, plat);
    let path = write(&dir, "schedule.goal", sched);
    let ranks = match count_ranks(&path, Some(Format::Goal)) {
        Ok(r) if r <= MAX_RANKS => r,
        _ => return,
    };
    let machines: Vec<Machine> = [Preset::flow(), Preset::smpi()]
        .into_iter()
        .filter_map(|preset| {
            let spec = ModelSpec::Flow {
                platform: plat.clone(),
                mapping: MappingSpec::RoundRobin,
                preset,
            };
            Machine::new(&spec, ranks).map_err(|e| e.to_string()).ok()
        })
        .collect();
    if machines.is_empty() {
        return;
    }
    let speed = |r: u32| machines[0].speed(r).unwrap_or(1e9);
    let coll = CollChoice::by_name("ompi").expect("a selector");
    let opts = LoadOptions {
        format: Some(Format::Goal),
        unit: TimeUnit::Ns,
        speed: &speed,
        collectives: &coll,
        test_cost: 0.0,
        calls: false,
        whole: false,
    };
    let Ok(mut w) = load(&path, &opts) else { return };
    match w.schedule() {
        Some(s) if s.num_ops() <= MAX_OPS && s.num_ranks() <= ranks => {}
        _ => return,
    }
    for m in &machines {
        exercise(&mut w, &m.model());
    }
}
