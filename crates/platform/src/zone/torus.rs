//! A torus: node `r` has coordinates `c_k = (r / Π_{m<k} d_m) mod d_k` and, per
//! dimension, one link (or split-duplex pair) to its `+1` neighbour with wrap-around.
//! Routing is dimension-ordered as in SimGrid: correct the lowest differing dimension
//! first, going "right" when the target is at most half the ring ahead of the *source*
//! coordinate (SimGrid compares with the source, not the current node), else "left".

use crate::model::LinkId;

/// A torus zone over members `0..Π d`.
#[derive(Clone, Debug)]
pub struct TorusZone {
    dims: Vec<u32>,
    /// `links[node * dims + j]` = (up, down) of node's dimension-`j` link.
    links: Vec<(LinkId, LinkId)>,
    loopback: Vec<Option<LinkId>>,
    limiter: Vec<Option<LinkId>>,
}

impl TorusZone {
    /// A torus of `dims` whose links are given per node and dimension.
    pub fn new(
        dims: Vec<u32>,
        links: Vec<(LinkId, LinkId)>,
        loopback: Vec<Option<LinkId>>,
        limiter: Vec<Option<LinkId>>,
    ) -> TorusZone {
        let n: u64 = dims.iter().map(|&d| d as u64).product();
        assert_eq!(links.len() as u64, n * dims.len() as u64);
        TorusZone {
            dims,
            links,
            loopback,
            limiter,
        }
    }

    /// The dimensions.
    pub fn dims(&self) -> &[u32] {
        &self.dims
    }

    /// The neighbour of `node` one step up in dimension `j` (with wrap-around).
    pub fn neighbour(dims: &[u32], node: u32, j: usize) -> u32 {
        let dp: u32 = dims[..j].iter().product();
        let d = dims[j];
        if (node / dp) % d == d - 1 {
            node - (d - 1) * dp
        } else {
            node + dp
        }
    }

    pub(crate) fn route(&self, src: u32, dst: u32, out: &mut Vec<LinkId>) {
        let nd = self.dims.len();
        if src == dst {
            if let Some(Some(l)) = self.loopback.get(src as usize) {
                out.push(*l);
                return;
            }
        }
        let coord = |r: u32, j: usize| (r / self.dims[..j].iter().product::<u32>()) % self.dims[j];
        let mut cur = src;
        while cur != dst {
            let mut next = cur;
            let mut link = None;
            let mut dp = 1u32;
            for j in 0..nd {
                let d = self.dims[j];
                if (cur / dp) % d != (dst / dp) % d {
                    let (my, tgt) = (coord(src, j), coord(dst, j));
                    let right = (tgt > my && tgt <= my + d / 2) || (my > d / 2 && (my + d / 2) % d >= tgt);
                    if right {
                        next = if (cur / dp) % d == d - 1 {
                            cur + dp - dp * d
                        } else {
                            cur + dp
                        };
                        link = Some(self.links[cur as usize * nd + j].0);
                    } else {
                        next = if (cur / dp).is_multiple_of(d) {
                            cur + dp * d - dp
                        } else {
                            cur - dp
                        };
                        link = Some(self.links[next as usize * nd + j].1);
                    }
                    break;
                }
                dp *= d;
            }
            if let Some(Some(l)) = self.limiter.get(cur as usize) {
                out.push(*l);
            }
            out.push(link.expect("torus routing found no differing dimension"));
            cur = next;
        }
        if let Some(Some(l)) = self.limiter.get(dst as usize) {
            out.push(*l);
        }
    }
}
