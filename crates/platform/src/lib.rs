//! Platforms: hosts (speed, cores), links (bandwidth, latency, sharing policy) and the
//! routes between hosts, organised as a tree of zones the way SimGrid does it.
//!
//! A zone routes between its members (hosts, routers, sub-zones) by its own rule: an
//! explicit table (`Full`, `Floyd`, `Dijkstra`), a star (a flat cluster: per-host up and
//! down links, optional backbone, limiters and loopbacks), a torus, a fat tree or a
//! dragonfly. A route between hosts of different zones goes up to their common ancestor,
//! across it between gateways, and down. Generators build common machines; files come in
//! a native TOML format or as SimGrid XML (version 4.1).

pub mod check;
pub mod cluster;
pub mod error;
pub mod generate;
pub mod mapping;
pub mod model;
pub mod route;
pub mod toml_file;
pub mod units;
pub mod xml;
pub mod zone;

pub use error::PlatformError;
pub use mapping::Mapping;
pub use model::{Host, HostId, Link, LinkId, NetPointId, Platform, Policy, ZoneId};
pub use route::Route;

/// Loads a platform file, by extension: `.xml` is SimGrid's format, anything else TOML.
pub fn load(path: &std::path::Path) -> Result<Platform, PlatformError> {
    let text = std::fs::read_to_string(path).map_err(|e| PlatformError::at(path, 0, format!("cannot read: {e}")))?;
    let p = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("xml")) {
        xml::parse(&text, path)?
    } else {
        toml_file::parse(&text, path)?
    };
    Ok(p)
}
