//! The trees of Open MPI's tree-based collectives, seen from one rank.
//!
//! Every rank expands its own part of a collective, so it needs only its own parent and
//! children. Each is computed directly from the rank's number: building the whole tree
//! on every call would cost O(p) per rank and O(p²) per collective.

/// One rank's place in a rooted tree over relative ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TreeNode {
    /// The parent (`None` for the root).
    pub parent: Option<u32>,
    /// The children, in the order they are served.
    pub children: Vec<u32>,
}

impl TreeNode {
    /// Rank `v`'s place in Open MPI's chain topology over `n` ranks (root 0): the root
    /// heads `fanout` chains of consecutive ranks, the first `(n-1) mod fanout` chains one
    /// longer (`coll_base_topo.c`, `ompi_coll_base_topo_build_chain`).
    pub fn chain(n: u32, fanout: u32, v: u32) -> TreeNode {
        debug_assert!(v < n);
        if n <= 1 {
            return TreeNode {
                parent: None,
                children: Vec::new(),
            };
        }
        let f = fanout.clamp(1, n - 1);
        let (len, rem) = ((n - 1) / f, (n - 1) % f);
        // Chain c starts at 1 + c * len + min(c, rem) and has len (+1 if c < rem) ranks.
        let start = |c: u32| 1 + c * len + c.min(rem);
        if v == 0 {
            return TreeNode {
                parent: None,
                children: (0..f).map(start).collect(),
            };
        }
        let long = rem * (len + 1);
        let (c, l) = if v - 1 < long {
            ((v - 1) / (len + 1), len + 1)
        } else {
            (rem + (v - 1 - long) / len, len)
        };
        let pos = v - start(c);
        TreeNode {
            parent: Some(if pos == 0 { 0 } else { v - 1 }),
            children: if pos + 1 < l { vec![v + 1] } else { Vec::new() },
        }
    }

    /// Rank `v`'s place in Open MPI's `k`-ary tree over `n` ranks
    /// (`ompi_coll_base_topo_build_tree`): levels are filled in rank order (level `d`
    /// holds `k^d` ranks), but a rank's children are not the next ranks of the level
    /// below: the children of `v`, on level `d`, are `v + i·k^d` for `i` in `1..=k`. With
    /// `k = 2` the root's first subtree holds the odd ranks and its second the even ones.
    pub fn kary(n: u32, k: u32, v: u32) -> TreeNode {
        debug_assert!(v < n && k >= 1);
        let (v64, k64) = (u64::from(v), u64::from(k));
        // The level of v: `above` ranks on the levels before it, `width` on its own.
        let (mut above, mut width) = (0u64, 1u64);
        while above + width <= v64 {
            above += width;
            width *= k64;
        }
        let children = (1..=k64)
            .map(|i| v64 + i * width)
            .take_while(|&c| c < u64::from(n))
            .map(|c| c as u32)
            .collect();
        // Up one level: step back by the parent level's width until inside it.
        let parent = (v > 0).then(|| {
            let step = width / k64;
            let mut p = v64;
            while p >= above {
                p -= step;
            }
            p as u32
        });
        TreeNode { parent, children }
    }

    /// Rank `v`'s place in Open MPI's in-order binary tree over `n` communicator ranks
    /// (`ompi_coll_base_topo_build_in_order_bintree`): the root is `n - 1`; a subtree of
    /// `size` ranks topped by its last rank has as first child the rank just below it,
    /// heading the upper part, and as second child the top of the lower `size / 2` ranks
    /// (when size > 2). Found by walking down from the whole communicator, O(log n).
    pub fn in_order_binary(n: u32, v: u32) -> TreeNode {
        debug_assert!(v < n);
        let (mut size, mut me, mut top, mut delta) = (n as i64, v as i64, n as i64 - 1, 0i64);
        let mut parent = None;
        loop {
            let right = size >> 1;
            let left_child = if size > 1 { top - 1 } else { -1 };
            let right_child = if left_child > 0 { right - 1 } else { -1 };
            if me == top {
                let children = [left_child, right_child]
                    .into_iter()
                    .filter(|&c| c >= 0)
                    .map(|c| (c + delta) as u32)
                    .collect();
                return TreeNode { parent, children };
            }
            // `v` lies in one of this subtree's two parts: its top is the parent of the
            // part's top, and so on down.
            parent = Some((top + delta) as u32);
            if me > right_child {
                size -= right + 1;
                delta += right;
                me -= right;
                top = size - 1;
            } else {
                size = right;
                top = right_child;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that the nodes form one tree rooted at `root`: parent and child links agree
    /// both ways (for the in-order tree they come from different branches of the walk),
    /// every rank is somebody's child exactly once except the root, and every rank reaches
    /// the root. Returns each rank's depth.
    fn check_tree(n: u32, root: u32, node: &dyn Fn(u32) -> TreeNode) -> Vec<u32> {
        let nodes: Vec<TreeNode> = (0..n).map(node).collect();
        let mut child_of = vec![None; n as usize];
        for (v, t) in nodes.iter().enumerate() {
            for &c in &t.children {
                assert!(c < n, "n={n}: child {c} of {v} out of range");
                assert_eq!(child_of[c as usize], None, "n={n}: {c} has two parents");
                child_of[c as usize] = Some(v as u32);
                assert_eq!(nodes[c as usize].parent, Some(v as u32), "n={n}: {c}'s parent");
            }
        }
        for v in 0..n {
            assert_eq!(nodes[v as usize].parent, child_of[v as usize], "n={n}: parent of {v}");
            assert_eq!(nodes[v as usize].parent.is_none(), v == root, "n={n}: root");
        }
        (0..n)
            .map(|v| {
                let (mut u, mut d) = (v, 0);
                while let Some(p) = nodes[u as usize].parent {
                    u = p;
                    d += 1;
                    assert!(d <= n, "n={n}: cycle through {v}");
                }
                d
            })
            .collect()
    }

    #[test]
    fn chains_have_lengths_differing_by_at_most_one() {
        for n in 1..60 {
            for fanout in 1..6 {
                let depth = check_tree(n, 0, &|v| TreeNode::chain(n, fanout, v));
                if n == 1 {
                    continue;
                }
                let root = TreeNode::chain(n, fanout, 0);
                let f = fanout.min(n - 1);
                assert_eq!(root.children.len() as u32, f, "n={n} fanout={fanout}");
                // A chain's ranks are consecutive: each inner rank's child is the next rank.
                for v in 1..n {
                    for &c in &TreeNode::chain(n, fanout, v).children {
                        assert_eq!(c, v + 1);
                    }
                }
                // Chain lengths are the depths of the leaves: the first (n-1) mod f chains
                // are ceil((n-1)/f) long, the others floor((n-1)/f).
                let lengths: Vec<u32> = root
                    .children
                    .iter()
                    .map(|&s| {
                        let mut v = s;
                        while let Some(&c) = TreeNode::chain(n, fanout, v).children.first() {
                            v = c;
                        }
                        depth[v as usize]
                    })
                    .collect();
                let (len, rem) = ((n - 1) / f, (n - 1) % f);
                for (c, &l) in lengths.iter().enumerate() {
                    assert_eq!(l, len + u32::from((c as u32) < rem), "n={n} fanout={fanout}");
                }
            }
        }
    }

    #[test]
    fn kary_trees_fill_level_by_level() {
        for n in 1..60 {
            for k in 1..5 {
                let depth = check_tree(n, 0, &|v| TreeNode::kary(n, k, v));
                // Levels in rank order: depths never decrease with the rank, and level d
                // holds k^d ranks (the last one possibly fewer).
                for v in 1..n as usize {
                    assert!(depth[v] >= depth[v - 1]);
                }
                let max = *depth.iter().max().unwrap();
                for d in 0..max {
                    let at = depth.iter().filter(|&&x| x == d).count() as u64;
                    assert_eq!(at, (k as u64).pow(d), "n={n} k={k} level {d}");
                }
            }
        }
    }

    #[test]
    fn in_order_binary_trees_are_binary_in_order_and_balanced() {
        for n in 1..130 {
            let depth = check_tree(n, n - 1, &|v| TreeNode::in_order_binary(n, v));
            for v in 0..n {
                let t = TreeNode::in_order_binary(n, v);
                assert!(t.children.len() <= 2);
                // A subtree holds consecutive ranks topped by its own rank, the first
                // child's part above the second's: its first child is the rank just below.
                if let Some(&c) = t.children.first() {
                    assert_eq!(c, v - 1, "n={n} v={v}");
                }
                if let [a, b] = t.children[..] {
                    assert!(b < a);
                }
            }
            // Halving at every level keeps the depth within log2(n) + 1.
            let max = *depth.iter().max().unwrap();
            assert!(max <= 32 - n.leading_zeros(), "n={n}: depth {max}");
        }
    }

    #[test]
    fn small_trees_by_hand() {
        // 7 ranks, chain of fanout 2: 0 -> 1 -> 2 -> 3 and 0 -> 4 -> 5 -> 6.
        assert_eq!(TreeNode::chain(7, 2, 0).children, vec![1, 4]);
        assert_eq!(TreeNode::chain(7, 2, 4).parent, Some(0));
        assert_eq!(TreeNode::chain(7, 2, 3).children, Vec::<u32>::new());
        // 8 ranks, fanout 3: chains of 3, 2, 2 ranks: 1-2-3, 4-5, 6-7.
        assert_eq!(TreeNode::chain(8, 3, 0).children, vec![1, 4, 6]);
        assert_eq!(TreeNode::chain(8, 3, 5).children, Vec::<u32>::new());
        assert_eq!(TreeNode::chain(8, 3, 6).parent, Some(0));
        // Open MPI's binary tree of 7: 0 -> 1, 2; 1 -> 3, 5; 2 -> 4, 6 (odd ranks under
        // 1, even under 2). Ternary tree of 13: 1 -> 4, 7, 10; 2 -> 5, 8, 11; 3 -> 6, 9, 12.
        assert_eq!(TreeNode::kary(7, 2, 0).children, vec![1, 2]);
        assert_eq!(TreeNode::kary(7, 2, 1).children, vec![3, 5]);
        assert_eq!(TreeNode::kary(7, 2, 2).children, vec![4, 6]);
        assert_eq!(TreeNode::kary(7, 2, 5).parent, Some(1));
        assert_eq!(TreeNode::kary(7, 2, 4).parent, Some(2));
        assert_eq!(TreeNode::kary(6, 2, 2).children, vec![4]);
        assert_eq!(TreeNode::kary(13, 3, 2).children, vec![5, 8, 11]);
        assert_eq!(TreeNode::kary(13, 3, 9).parent, Some(3));
        assert_eq!(TreeNode::kary(16, 2, 5).children, vec![9, 13]);
        // In-order binary tree of 7 ranks: root 6 over the upper part {3,4,5} (top 5)
        // and the lower part {0,1,2} (top 2).
        assert_eq!(TreeNode::in_order_binary(7, 6).children, vec![5, 2]);
        assert_eq!(TreeNode::in_order_binary(7, 5).children, vec![4, 3]);
        assert_eq!(TreeNode::in_order_binary(7, 2).children, vec![1, 0]);
        assert_eq!(TreeNode::in_order_binary(7, 0).parent, Some(2));
    }
}
