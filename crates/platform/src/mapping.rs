//! Which host each rank runs on.

use crate::error::PlatformError;
use crate::model::{HostId, Platform};
use std::path::Path;

/// A rank-to-host assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    hosts: Vec<HostId>,
}

impl Mapping {
    /// Ranks in platform host order, `per_host` consecutive ranks per host, wrapping
    /// around when there are more ranks than slots.
    pub fn block(p: &Platform, ranks: u32, per_host: u32) -> Mapping {
        let n = p.num_hosts() as u64;
        let per = per_host.max(1) as u64;
        Mapping {
            hosts: (0..ranks as u64).map(|r| HostId(((r / per) % n) as u32)).collect(),
        }
    }

    /// Rank `r` on host `r mod hosts`.
    pub fn round_robin(p: &Platform, ranks: u32) -> Mapping {
        let n = p.num_hosts() as u64;
        Mapping {
            hosts: (0..ranks as u64).map(|r| HostId((r % n) as u32)).collect(),
        }
    }

    /// A host file: one host name per line (optionally `name:count` or `name slots=count`
    /// for several consecutive ranks); blank lines and `#` comments are skipped.
    pub fn from_host_file(p: &Platform, path: &Path, ranks: u32) -> Result<Mapping, PlatformError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| PlatformError::at(path, 0, format!("cannot read: {e}")))?;
        // Slots past the first `ranks` are never used: they are checked, not stored (a
        // count may be huge).
        let mut slots = Vec::new();
        let mut listed = false;
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap().trim();
            if line.is_empty() {
                continue;
            }
            let (name, count) = if let Some((n, c)) = line.split_once(':') {
                (n.trim(), c.trim())
            } else if let Some((n, c)) = line.split_once(" slots=") {
                (n.trim(), c.trim())
            } else {
                (line, "1")
            };
            let count: u32 = count.parse().map_err(|_| {
                PlatformError::at(
                    path,
                    i as u32 + 1,
                    format!("expected a rank count after the host name, found '{count}'"),
                )
            })?;
            let h = p.host_by_name(name).ok_or_else(|| {
                PlatformError::at(
                    path,
                    i as u32 + 1,
                    format!("unknown host '{name}': not in the platform"),
                )
            })?;
            listed |= count > 0;
            let room = (ranks as usize).saturating_sub(slots.len());
            slots.extend(std::iter::repeat_n(h, (count as usize).min(room)));
        }
        if !listed {
            return Err(PlatformError::at(path, 0, "the host file lists no host"));
        }
        Ok(Mapping {
            hosts: (0..ranks as usize).map(|r| slots[r % slots.len()]).collect(),
        })
    }

    /// The host of rank `r`.
    pub fn host(&self, r: u32) -> HostId {
        self.hosts[r as usize]
    }

    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.hosts.len() as u32
    }
}
