//! A k-ary n-tree with SimGrid's parameters (`levels; down_i; up_i; count_i`): hosts at
//! level 0, switches above; a level-`i` node has `up_i · count_i` parent ports and a
//! level-`i+1` switch `down_i · count_i` child ports. Nodes carry mixed-radix labels;
//! a parent and a child are related when their labels agree except at the parent's
//! level. Routing goes up d-mod-k until the current switch's subtree holds the
//! destination, then down, exactly as SimGrid 3.32 walks it.

use crate::model::LinkId;

/// One node (host or switch).
#[derive(Clone, Debug)]
pub struct FtNode {
    /// 0 for hosts.
    pub level: u32,
    /// Index within its level.
    pub position: u32,
    /// Mixed-radix label, one digit per level.
    pub label: Vec<u32>,
    /// Port -> index into the zone's link list.
    pub parents: Vec<Option<u32>>,
    /// Port -> index into the zone's link list.
    pub children: Vec<Option<u32>>,
    /// Limiter link, if any.
    pub limiter: Option<LinkId>,
    /// Loopback link (hosts), if any.
    pub loopback: Option<LinkId>,
}

/// A link between a child and a parent.
#[derive(Clone, Debug)]
pub struct FtLink {
    /// The parent node's index.
    pub up_node: u32,
    /// The child node's index.
    pub down_node: u32,
    /// Link used going up.
    pub up: LinkId,
    /// Link used going down.
    pub down: LinkId,
}

/// The structure of a fat tree.
#[derive(Clone, Debug)]
pub struct FatTreeZone {
    /// Number of switch levels.
    pub levels: u32,
    /// Children per level-(i+1) switch.
    pub down: Vec<u32>,
    /// Parents per level-i node.
    pub up: Vec<u32>,
    /// Parallel links between a level-i node and each parent.
    pub count: Vec<u32>,
    /// Nodes by level then position; hosts (members `0..n`) first.
    pub nodes: Vec<FtNode>,
    /// Links.
    pub links: Vec<FtLink>,
}

impl FatTreeZone {
    /// Nodes per level: hosts `Π down`, then `Π_{j≤i} up_j · Π_{j>i} down_j` switches.
    pub fn nodes_by_level(levels: u32, down: &[u32], up: &[u32]) -> Vec<u64> {
        let l = levels as usize;
        let mut v = vec![down.iter().map(|&d| d as u64).product()];
        for i in 0..l {
            let a: u64 = up[..=i].iter().map(|&x| x as u64).product();
            let b: u64 = down[i + 1..].iter().map(|&x| x as u64).product();
            v.push(a * b);
        }
        v
    }

    /// Builds the nodes and labels (no links yet) for `levels`, `down`, `up`, `count`.
    pub fn new(levels: u32, down: Vec<u32>, up: Vec<u32>, count: Vec<u32>) -> FatTreeZone {
        let l = levels as usize;
        let by_level = Self::nodes_by_level(levels, &down, &up);
        let mut nodes = Vec::new();
        for (lvl, &n) in by_level.iter().enumerate() {
            let max: Vec<u32> = (0..l).map(|j| if j + 1 > lvl { down[j] } else { up[j] }).collect();
            let mut label = vec![0u32; l];
            for pos in 0..n {
                let parents = if lvl < l { (up[lvl] * count[lvl]) as usize } else { 0 };
                let children = if lvl > 0 {
                    (down[lvl - 1] * count[lvl - 1]) as usize
                } else {
                    0
                };
                nodes.push(FtNode {
                    level: lvl as u32,
                    position: pos as u32,
                    label: label.clone(),
                    parents: vec![None; parents],
                    children: vec![None; children],
                    limiter: None,
                    loopback: None,
                });
                // Mixed-radix increment, digit 0 fastest.
                for d in 0..l {
                    label[d] += 1;
                    if label[d] < max[d] {
                        break;
                    }
                    label[d] = 0;
                }
            }
        }
        FatTreeZone {
            levels,
            down,
            up,
            count,
            nodes,
            links: Vec::new(),
        }
    }

    /// Index of the first node of `level`.
    pub fn level_start(&self, level: u32) -> usize {
        self.nodes
            .iter()
            .position(|n| n.level == level)
            .unwrap_or(self.nodes.len())
    }

    /// Whether `parent` and `child` are joined by links.
    pub fn related(&self, parent: usize, child: usize) -> bool {
        let (p, c) = (&self.nodes[parent], &self.nodes[child]);
        p.level == c.level + 1
            && (0..self.levels as usize).all(|i| p.label[i] == c.label[i] || i + 1 == p.level as usize)
    }

    /// Records a link between `parent` (at its child port) and `child` (at its parent port).
    pub fn connect(
        &mut self,
        parent: usize,
        parent_port: usize,
        child: usize,
        child_port: usize,
        up: LinkId,
        down: LinkId,
    ) {
        let k = self.links.len() as u32;
        self.links.push(FtLink {
            up_node: parent as u32,
            down_node: child as u32,
            up,
            down,
        });
        self.nodes[parent].children[parent_port] = Some(k);
        self.nodes[child].parents[child_port] = Some(k);
    }

    fn in_subtree(&self, root: usize, node: usize) -> bool {
        let (r, n) = (&self.nodes[root], &self.nodes[node]);
        if r.level <= n.level {
            return false;
        }
        (0..n.level as usize).all(|i| r.label[i] == n.label[i])
            && (r.level as usize..self.levels as usize).all(|i| r.label[i] == n.label[i])
    }

    pub(crate) fn route(&self, src: u32, dst: u32, out: &mut Vec<LinkId>) {
        let (s, t) = (src as usize, dst as usize);
        if s == t {
            if let Some(l) = self.nodes[s].loopback {
                out.push(l);
                return;
            }
        }
        let mut cur = s;
        while !self.in_subtree(cur, t) {
            let node = &self.nodes[cur];
            let mut d = self.nodes[t].position as usize;
            for i in 0..node.level as usize {
                d /= self.up[i] as usize;
            }
            let k = (self.up[node.level as usize] * self.count[node.level as usize]) as usize;
            d %= k;
            if let Some(l) = node.limiter {
                out.push(l);
            }
            let link = &self.links[node.parents[d].expect("fat tree: missing parent link") as usize];
            out.push(link.up);
            cur = link.up_node as usize;
        }
        while cur != t {
            let lvl = self.nodes[cur].level as usize;
            let d = self.nodes[s].position as usize % self.count[lvl - 1] as usize;
            let mut i = d * self.down[lvl - 1] as usize;
            // As in SimGrid, the scan continues with the new node after each step down.
            while i < self.nodes[cur].children.len() {
                let l = self.nodes[cur].level as usize;
                if i % self.down[l - 1] as usize == self.nodes[t].label[l - 1] as usize {
                    let link = &self.links[self.nodes[cur].children[i].expect("fat tree: missing child link") as usize];
                    out.push(link.down);
                    if let Some(lim) = self.nodes[cur].limiter {
                        out.push(lim);
                    }
                    cur = link.down_node as usize;
                }
                i += 1;
            }
        }
        if let Some(l) = self.nodes[cur].limiter {
            out.push(l);
        }
    }
}
