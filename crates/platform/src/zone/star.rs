//! A flat cluster: every member has a list of links towards the switch ("up": limiter,
//! private link, backbone) and back ("down"). A route is the source's up list followed by
//! the destination's down list, each link at most once; a member with a loopback link
//! talks to itself through it alone.

use crate::model::LinkId;

/// Per-member up and down link lists.
#[derive(Clone, Debug, Default)]
pub struct StarZone {
    up: Vec<Vec<LinkId>>,
    down: Vec<Vec<LinkId>>,
    loopback: Vec<Option<LinkId>>,
}

impl StarZone {
    /// Sets the links of member `local` (members without links, such as the cluster's
    /// router, route through the others' links only).
    pub fn set_member(&mut self, local: u32, up: Vec<LinkId>, down: Vec<LinkId>, loopback: Option<LinkId>) {
        let i = local as usize;
        if self.up.len() <= i {
            self.up.resize(i + 1, Vec::new());
            self.down.resize(i + 1, Vec::new());
            self.loopback.resize(i + 1, None);
        }
        self.up[i] = up;
        self.down[i] = down;
        self.loopback[i] = loopback;
    }

    pub(crate) fn route(&self, src: u32, dst: u32, out: &mut Vec<LinkId>) {
        let (s, d) = (src as usize, dst as usize);
        if s == d {
            if let Some(Some(l)) = self.loopback.get(s) {
                out.push(*l);
                return;
            }
        }
        let start = out.len();
        let empty = Vec::new();
        for &l in self
            .up
            .get(s)
            .unwrap_or(&empty)
            .iter()
            .chain(self.down.get(d).unwrap_or(&empty))
        {
            if !out[start..].contains(&l) {
                out.push(l);
            }
        }
    }
}
