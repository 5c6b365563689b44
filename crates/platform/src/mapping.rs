//! Which host each rank runs on.

use crate::error::PlatformError;
use crate::model::{HostId, Platform};
use crate::units::clip;
use std::path::Path;

/// A rank-to-host assignment. Block and round-robin mappings are rules, computed per
/// rank, so that mapping many ranks costs nothing until they are placed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    ranks: u32,
    rule: Rule,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Rule {
    /// Consecutive ranks per host, wrapping around `hosts`.
    Block { hosts: u64, per: u64 },
    /// The slots a host file lists, wrapping around.
    Slots(Vec<HostId>),
}

impl Mapping {
    /// Ranks in platform host order, `per_host` consecutive ranks per host, wrapping
    /// around when there are more ranks than slots. `p` has at least one host (every
    /// sealed or loaded platform has).
    pub fn block(p: &Platform, ranks: u32, per_host: u32) -> Mapping {
        Mapping {
            ranks,
            rule: Rule::Block {
                hosts: p.num_hosts().max(1) as u64,
                per: per_host.max(1) as u64,
            },
        }
    }

    /// Rank `r` on host `r mod hosts`.
    pub fn round_robin(p: &Platform, ranks: u32) -> Mapping {
        Mapping::block(p, ranks, 1)
    }

    /// A host file: one host name per line (optionally `name:count` or `name slots=count`
    /// for several consecutive ranks); blank lines and `#` comments are skipped.
    pub fn from_host_file(p: &Platform, path: &Path, ranks: u32) -> Result<Mapping, PlatformError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| PlatformError::at(path, 0, format!("cannot read: {e}")))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        // Slots past the first `ranks` are never used: they are checked, not stored (a
        // count may be huge).
        let mut slots = Vec::new();
        let mut listed = false;
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |msg: String| PlatformError::at(path, i as u32 + 1, msg);
            let (name, count) = if let Some((n, c)) = line.split_once(':') {
                (n.trim(), c.trim())
            } else if let Some((n, c)) = line.split_once(" slots=") {
                (n.trim(), c.trim())
            } else {
                (line, "1")
            };
            let count: u32 = count.parse().map_err(|_| {
                at(format!(
                    "expected a rank count (0 to {}) after the host name, found '{}'",
                    u32::MAX,
                    clip(count)
                ))
            })?;
            let h = p
                .host_by_name(name)
                .ok_or_else(|| at(format!("unknown host '{}': not in the platform", clip(name))))?;
            listed |= count > 0;
            let room = (ranks as usize).saturating_sub(slots.len());
            slots.extend(std::iter::repeat_n(h, (count as usize).min(room)));
        }
        if !listed {
            return Err(PlatformError::at(path, 0, "the host file lists no host"));
        }
        Ok(Mapping {
            ranks,
            rule: Rule::Slots(slots),
        })
    }

    /// The host of rank `r` (below [`Mapping::ranks`]).
    pub fn host(&self, r: u32) -> HostId {
        assert!(r < self.ranks, "rank {r} of a mapping of {} ranks", self.ranks);
        match &self.rule {
            Rule::Block { hosts, per } => HostId(((r as u64 / per) % hosts) as u32),
            Rule::Slots(s) => s[r as usize % s.len()],
        }
    }

    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.ranks
    }
}
