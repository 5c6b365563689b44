//! Routing rules of zones. Each rule finds the links between two members of its zone
//! (by their index among the zone's members) and, for routes between sub-zones, the
//! gateways to continue from.

pub mod dragonfly;
pub mod fat_tree;
pub mod star;
pub mod table;
pub mod torus;

use crate::model::{LinkId, NetPointId, Platform};
pub use dragonfly::DragonflyZone;
pub use fat_tree::FatTreeZone;
pub use star::StarZone;
pub use table::{TableKind, TableRoute, TableZone};
pub use torus::TorusZone;

/// A zone's routing rule.
#[derive(Clone, Debug)]
pub enum ZoneRouting {
    /// Routes listed explicitly (SimGrid `Full`), or shortest paths over listed routes
    /// (`Floyd`, `Dijkstra`).
    Table(TableZone),
    /// A flat cluster: per-member up and down link lists.
    Star(StarZone),
    /// A torus with dimension-order routing.
    Torus(TorusZone),
    /// A k-ary n-tree (SimGrid's parameters and d-mod-k routing).
    FatTree(FatTreeZone),
    /// A dragonfly with minimal routing.
    Dragonfly(DragonflyZone),
}

/// Gateways of a route between two sub-zones: where to continue inside each.
pub type Gateways = Option<(NetPointId, NetPointId)>;

impl ZoneRouting {
    /// Appends the links from member `src` to member `dst` to `out`.
    pub(crate) fn local_route(
        &self,
        p: &Platform,
        src: u32,
        dst: u32,
        out: &mut Vec<LinkId>,
    ) -> Result<Gateways, String> {
        match self {
            ZoneRouting::Table(t) => t.route(p, src, dst, out),
            ZoneRouting::Star(s) => {
                s.route(src, dst, out);
                Ok(None)
            }
            ZoneRouting::Torus(t) => {
                t.route(src, dst, out);
                Ok(None)
            }
            ZoneRouting::FatTree(f) => {
                f.route(src, dst, out);
                Ok(None)
            }
            ZoneRouting::Dragonfly(d) => {
                d.route(src, dst, out);
                Ok(None)
            }
        }
    }

    /// A short name of the rule, for summaries.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ZoneRouting::Table(t) => match t.kind {
                TableKind::Full => "Full",
                TableKind::Floyd => "Floyd",
                TableKind::Dijkstra => "Dijkstra",
            },
            ZoneRouting::Star(_) => "cluster (flat)",
            ZoneRouting::Torus(_) => "torus",
            ZoneRouting::FatTree(_) => "fat tree",
            ZoneRouting::Dragonfly(_) => "dragonfly",
        }
    }
}
