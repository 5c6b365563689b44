//! Platforms: hosts (speed, cores), links (bandwidth, latency, sharing policy) and the
//! routes between hosts, organised as a tree of zones the way SimGrid does it.
//!
//! A zone routes between its members (hosts, routers, sub-zones) by its own rule: an
//! explicit table (`Full`, `Floyd`, `Dijkstra`), or a cluster — a star (per-host up and
//! down links, optional backbone, limiters and loopbacks), a torus, a fat tree or a
//! dragonfly — whose hosts, links and routes are computed on demand, so that a cluster
//! of millions of hosts costs what the hosts used cost. A route between hosts of
//! different zones goes up to their common ancestor, across it between gateways, and
//! down. Generators build common machines; files come in a native TOML format or as
//! SimGrid XML (version 4.1).

mod block;
pub mod check;
pub mod cluster;
pub mod detour;
pub mod error;
pub mod generate;
mod ids;
pub mod mapping;
pub mod model;
mod names;
mod radical;
pub mod route;
pub mod toml_file;
pub mod units;
pub mod xml;
mod xml_scan;
pub mod zone;

pub use error::PlatformError;
pub use mapping::Mapping;
pub use model::{Host, HostId, Link, LinkId, NetPointId, Platform, Policy, ZoneId};
pub use route::Route;

/// Loads a platform file, by extension: `.xml` is SimGrid's format, anything else TOML.
/// What it accepts with a warning (see [`Platform::warnings`]) is printed on standard
/// error, `warning: file:line: ...`, at most [`MAX_WARNINGS_SHOWN`] of them.
pub fn load(path: &std::path::Path) -> Result<Platform, PlatformError> {
    let p = read(path)?;
    let w = p.warnings();
    for w in w.iter().take(MAX_WARNINGS_SHOWN) {
        eprintln!("warning: {w}");
    }
    if w.len() > MAX_WARNINGS_SHOWN {
        eprintln!(
            "warning: {} more warnings about {}",
            w.len() - MAX_WARNINGS_SHOWN,
            path.display()
        );
    }
    Ok(p)
}

/// How many warnings [`load`] prints.
pub const MAX_WARNINGS_SHOWN: usize = 10;

/// Reads a platform file like [`load`], keeping its warnings in the platform.
pub fn read(path: &std::path::Path) -> Result<Platform, PlatformError> {
    let text = std::fs::read_to_string(path).map_err(|e| PlatformError::at(path, 0, format!("cannot read: {e}")))?;
    // A byte-order mark is not part of the text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("xml")) {
        xml::parse(text, path)
    } else {
        toml_file::parse(text, path)
    }
}
