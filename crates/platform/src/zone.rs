//! Routing rules of zones. Each rule finds the links between two members of its zone
//! (by their index among the zone's members) and, for routes between sub-zones, the
//! gateways to continue from.

pub mod dragonfly;
pub mod fat_tree;
pub mod star;
pub mod table;
pub mod torus;

use crate::block::Layout;
use crate::model::{LinkId, NetPointId, Platform};
pub use table::{TableKind, TableRoute, TableZone};

/// A cluster zone's link to the block that describes it (see [`crate::cluster`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClusterRef(pub(crate) u32);

impl ClusterRef {
    /// A cluster zone whose block is not laid out yet.
    pub(crate) const PENDING: ClusterRef = ClusterRef(u32::MAX);
}

/// A zone's routing rule.
#[derive(Clone, Debug)]
pub enum ZoneRouting {
    /// Routes listed explicitly (SimGrid `Full`), or shortest paths over listed routes
    /// (`Floyd`, `Dijkstra`).
    Table(TableZone),
    /// A cluster: a flat one (per-host up and down links), a torus with dimension-order
    /// routing, a k-ary n-tree (SimGrid's parameters and d-mod-k routing) or a dragonfly
    /// with minimal routing, its routes computed from the cluster's description.
    Cluster(ClusterRef),
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
        depth: u32,
    ) -> Result<Gateways, String> {
        match self {
            ZoneRouting::Table(t) => t.route(p, src, dst, out, depth),
            ZoneRouting::Cluster(c) => {
                let b = p.block(*c).ok_or("the cluster is not built")?;
                let (s, d) = (src - b.local0, dst - b.local0);
                match &b.layout {
                    Layout::Flat => star::route(b, s, d, out),
                    Layout::Torus => torus::route(b, p.implicit_loopback(), s, d, out),
                    Layout::FatTree(_) => fat_tree::route(b, s, d, out),
                    Layout::Dragonfly => dragonfly::route(b, s, d, out),
                }
                Ok(None)
            }
        }
    }

    /// A short name of the rule, for summaries.
    pub fn kind_name(&self, p: &Platform) -> &'static str {
        match self {
            ZoneRouting::Table(t) => match t.kind {
                TableKind::Full => "Full",
                TableKind::Floyd => "Floyd",
                TableKind::Dijkstra => "Dijkstra",
            },
            ZoneRouting::Cluster(c) => p.block(*c).map_or("cluster", |b| b.spec.topology.name()),
        }
    }
}
