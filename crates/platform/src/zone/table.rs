//! Zones whose routes are listed: `Full` uses exactly the listed routes; `Floyd` and
//! `Dijkstra` chain listed routes into shortest paths, a route's cost being its number
//! of links. Every member without a route to itself talks to itself through the
//! platform's loopback link (as SimGrid does for zones without sub-zones).

use crate::model::{LinkId, NetPointId, Platform};
use crate::zone::Gateways;
use std::collections::{BinaryHeap, HashMap};

/// The most members a Floyd zone may have: its tables take n² entries and n³ steps to
/// fill (2^11 members: 4 M entries, 8·10^9 steps, a few seconds). Dijkstra zones route
/// the same listed routes with memory proportional to them.
pub const MAX_FLOYD_MEMBERS: usize = 1 << 11;

/// Which table rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TableKind {
    /// Only listed routes.
    Full,
    /// Shortest paths, computed for all pairs when sealed.
    Floyd,
    /// Shortest paths, computed per query.
    Dijkstra,
}

/// A listed route.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRoute {
    /// Links in order.
    pub links: Vec<LinkId>,
    /// Gateways, for a route between sub-zones.
    pub gateways: Gateways,
}

/// A table zone.
#[derive(Clone, Debug)]
pub struct TableZone {
    /// The rule.
    pub kind: TableKind,
    routes: HashMap<(u32, u32), TableRoute>,
    /// Insertion order of the routes (Dijkstra visits edges in this order).
    order: Vec<(u32, u32)>,
    loopback: Option<LinkId>,
    /// Floyd: next hop table `pred[src * n + dst]` = the member before `dst`.
    floyd_pred: Vec<u32>,
    /// Dijkstra: per member, the listed routes leaving it (neighbour, cost).
    adjacency: Vec<Vec<(u32, u64)>>,
    /// Dijkstra: the last source's shortest-path tree (consecutive queries often share a
    /// source, as in SimGrid's DijkstraCache; `platform check` asks all of one source's
    /// pairs in a row).
    last_tree: LastTree,
    n: usize,
}

/// A source and its predecessor per member (`NONE`: unreachable).
#[derive(Debug, Default)]
struct LastTree(std::sync::Mutex<Option<(u32, std::sync::Arc<Vec<u32>>)>>);

impl Clone for LastTree {
    fn clone(&self) -> LastTree {
        LastTree::default()
    }
}

const NONE: u32 = u32::MAX;

impl TableZone {
    /// An empty zone of `kind`.
    pub fn new(kind: TableKind) -> TableZone {
        TableZone {
            kind,
            routes: HashMap::new(),
            order: Vec::new(),
            loopback: None,
            floyd_pred: Vec::new(),
            adjacency: Vec::new(),
            last_tree: LastTree::default(),
            n: 0,
        }
    }

    /// Lists a route from member `src` to member `dst`; if `symmetrical`, also the
    /// reverse one (links reversed, split-duplex halves swapped, gateways swapped).
    pub fn add_route(
        &mut self,
        p: &Platform,
        src: u32,
        dst: u32,
        route: TableRoute,
        symmetrical: bool,
    ) -> Result<(), String> {
        let reverse = symmetrical.then(|| TableRoute {
            links: route.links.iter().rev().map(|&l| p.reverse_link(l)).collect(),
            gateways: route.gateways.map(|(a, b)| (b, a)),
        });
        self.insert(src, dst, route)?;
        if let Some(r) = reverse {
            if src != dst {
                self.insert(dst, src, r)?;
            }
        }
        Ok(())
    }

    fn insert(&mut self, src: u32, dst: u32, route: TableRoute) -> Result<(), String> {
        if self.routes.contains_key(&(src, dst)) {
            return Err(
                "a route between these two points is already defined (perhaps as the reverse of a symmetrical route)"
                    .into(),
            );
        }
        self.routes.insert((src, dst), route);
        self.order.push((src, dst));
        Ok(())
    }

    /// Finishes the zone: records the loopback for members and computes Floyd's tables
    /// (an error naming the size if there are too many members for them).
    pub fn seal(&mut self, members: usize, loopback: Option<LinkId>) -> Result<(), String> {
        self.n = members;
        self.loopback = loopback;
        if self.kind == TableKind::Dijkstra {
            let mut adj: Vec<Vec<(u32, u64)>> = vec![Vec::new(); members];
            for &(a, b) in &self.order {
                if a != b {
                    adj[a as usize].push((b, self.routes[&(a, b)].links.len() as u64));
                }
            }
            self.adjacency = adj;
        }
        if self.kind == TableKind::Floyd && members > MAX_FLOYD_MEMBERS {
            return Err(format!(
                "a Floyd zone of {members} members needs tables of {members}² entries: at most {MAX_FLOYD_MEMBERS} members are supported (a Dijkstra zone routes the same routes)"
            ));
        }
        if self.kind == TableKind::Floyd {
            let n = members;
            let mut cost = vec![u64::MAX; n * n];
            let mut pred = vec![NONE; n * n];
            for &(a, b) in &self.order {
                let (a, b) = (a as usize, b as usize);
                cost[a * n + b] = self.routes[&(a as u32, b as u32)].links.len() as u64;
                pred[a * n + b] = a as u32;
            }
            for i in 0..n {
                if pred[i * n + i] == NONE && self.loopback.is_some() {
                    cost[i * n + i] = 1;
                    pred[i * n + i] = i as u32;
                }
            }
            for c in 0..n {
                for a in 0..n {
                    if cost[a * n + c] == u64::MAX {
                        continue;
                    }
                    for b in 0..n {
                        let via = cost[c * n + b];
                        if via == u64::MAX {
                            continue;
                        }
                        let through = cost[a * n + c] + via;
                        if through < cost[a * n + b] {
                            cost[a * n + b] = through;
                            pred[a * n + b] = pred[c * n + b];
                        }
                    }
                }
            }
            self.floyd_pred = pred;
        }
        Ok(())
    }

    /// The direct route of one hop (listed, or the loopback on the diagonal).
    fn hop(&self, a: u32, b: u32) -> Option<TableRoute> {
        match self.routes.get(&(a, b)) {
            Some(r) => Some(r.clone()),
            None if a == b => self.loopback.map(|l| TableRoute {
                links: vec![l],
                gateways: None,
            }),
            None => None,
        }
    }

    /// Appends the links from member `src` to member `dst`. A path of several zone
    /// routes also crosses each zone between them, from the gateway it was entered by to
    /// the one it is left by (as SimGrid's Floyd zones do); `depth` is the route
    /// resolver's, for its guard.
    pub(crate) fn route(
        &self,
        p: &Platform,
        src: u32,
        dst: u32,
        out: &mut Vec<LinkId>,
        depth: u32,
    ) -> Result<Gateways, String> {
        let hops: Vec<(u32, u32)> = match self.kind {
            TableKind::Full => vec![(src, dst)],
            TableKind::Floyd => {
                let n = self.n;
                let mut path = Vec::new();
                let mut b = dst;
                loop {
                    let a = *self.floyd_pred.get(src as usize * n + b as usize).unwrap_or(&NONE);
                    if a == NONE {
                        return Err("no route (the zone's routes do not connect these points)".into());
                    }
                    path.push((a, b));
                    if a == src {
                        break;
                    }
                    // Predecessors of shortest paths form a tree; guard anyway.
                    if path.len() > n {
                        return Err("the zone's routes form a loop".into());
                    }
                    b = a;
                }
                path.reverse();
                path
            }
            TableKind::Dijkstra => self.dijkstra(src, dst)?,
        };
        let mut gw_src: Option<NetPointId> = None;
        let mut gw_dst: Option<NetPointId> = None;
        for (i, &(a, b)) in hops.iter().enumerate() {
            let r = self
                .hop(a, b)
                .ok_or_else(|| "no route between these points in the zone".to_string())?;
            if let Some((gs, gd)) = r.gateways {
                if i == 0 {
                    gw_src = Some(gs);
                }
                if let Some(prev) = gw_dst.filter(|&g| g != gs) {
                    p.route_points(prev, gs, out, depth + 1)?;
                }
                gw_dst = Some(gd);
            }
            out.extend_from_slice(&r.links);
        }
        Ok(match (gw_src, gw_dst) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        })
    }

    fn dijkstra(&self, src: u32, dst: u32) -> Result<Vec<(u32, u32)>, String> {
        if src == dst && self.hop(src, dst).is_some() {
            return Ok(vec![(src, dst)]);
        }
        if src == dst {
            return Ok(Vec::new());
        }
        let pred = self.tree(src)?;
        if !matches!(pred.get(dst as usize), Some(&p) if p != NONE) {
            return Err("no route (the zone's routes do not connect these points)".into());
        }
        let mut path = Vec::new();
        let mut b = dst;
        while b != src {
            let a = pred[b as usize];
            path.push((a, b));
            b = a;
        }
        path.reverse();
        Ok(path)
    }

    /// The shortest-path tree from `src`: each member's predecessor.
    fn tree(&self, src: u32) -> Result<std::sync::Arc<Vec<u32>>, String> {
        if let Ok(last) = self.last_tree.0.lock() {
            if let Some((s, pred)) = &*last {
                if *s == src {
                    return Ok(pred.clone());
                }
            }
        }
        let n = self.n;
        let adj = &self.adjacency;
        if adj.len() != n || src as usize >= n {
            return Err("the zone is not sealed".into());
        }
        let mut dist = vec![u64::MAX; n];
        let mut pred = vec![NONE; n];
        let mut heap = BinaryHeap::new();
        dist[src as usize] = 0;
        heap.push(std::cmp::Reverse((0u64, src)));
        while let Some(std::cmp::Reverse((d, v))) = heap.pop() {
            if d > dist[v as usize] {
                continue;
            }
            for &(w, c) in &adj[v as usize] {
                if d + c < dist[w as usize] {
                    dist[w as usize] = d + c;
                    pred[w as usize] = v;
                    heap.push(std::cmp::Reverse((d + c, w)));
                }
            }
        }
        let pred = std::sync::Arc::new(pred);
        if let Ok(mut last) = self.last_tree.0.lock() {
            *last = Some((src, pred.clone()));
        }
        Ok(pred)
    }

    /// Number of listed routes.
    pub fn num_routes(&self) -> usize {
        self.routes.len()
    }
}
