//! The names of cluster hosts (`prefix N suffix`), found without listing them: which
//! cluster a name belongs to, and whether two clusters would give a name twice.

use crate::cluster::Radical;
use crate::units::clip;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The clusters sharing a prefix and a suffix: their numbers, disjoint.
#[derive(Clone, Debug, Default)]
struct Group {
    /// First number of a range -> (last number, block).
    ranges: BTreeMap<u64, (u64, u32)>,
    hosts: u64,
}

impl Group {
    fn find(&self, v: u64) -> Option<u32> {
        let (_, &(end, b)) = self.ranges.range(..=v).next_back()?;
        (v <= end).then_some(b)
    }

    /// A number of `ranges` this group already has.
    fn overlap(&self, ranges: &[(u64, u64)]) -> Option<u64> {
        for &(a, b) in ranges {
            if let Some((&s, &(e, _))) = self.ranges.range(..=b).next_back() {
                if e >= a {
                    return Some(a.max(s));
                }
            }
        }
        None
    }

    fn numbers(&self) -> impl Iterator<Item = u64> + '_ {
        self.ranges.iter().flat_map(|(&s, &(e, _))| s..=e)
    }
}

/// Cluster host names by pattern.
#[derive(Clone, Debug, Default)]
pub(crate) struct HostNames {
    groups: HashMap<(String, String), Group>,
    /// Prefix -> suffixes used with it.
    by_prefix: BTreeMap<String, BTreeSet<String>>,
    /// Lengths of the prefixes used.
    prefix_lens: BTreeSet<usize>,
    /// Names compared one by one so far (bounded: see [`MAX_NAMES_COMPARED`]).
    compared: u64,
}

/// How many cluster host names may be compared one by one, over all clusters whose
/// prefixes and suffixes nest ('n' and 'n1'): past it the platform is refused rather
/// than checked for minutes.
pub const MAX_NAMES_COMPARED: u64 = 1 << 26;

/// The number written in `digits` as SimGrid writes numbers (no sign, no leading zero).
fn number(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    digits.parse().ok()
}

impl HostNames {
    /// The block whose host is called `name`, and the host's number.
    pub fn find(&self, name: &str) -> Option<(u32, u64)> {
        for &len in &self.prefix_lens {
            if len > name.len() || !name.is_char_boundary(len) {
                continue;
            }
            let (prefix, rest) = name.split_at(len);
            let Some(suffixes) = self.by_prefix.get(prefix) else {
                continue;
            };
            for suffix in suffixes {
                let Some(v) = rest.strip_suffix(suffix.as_str()).and_then(number) else {
                    continue;
                };
                let key = (prefix.to_string(), suffix.clone());
                if let Some(b) = self.groups.get(&key).and_then(|g| g.find(v)) {
                    return Some((b, v));
                }
            }
        }
        None
    }

    /// Records block `b`'s hosts `prefix N suffix`; an error naming a host that another
    /// block already has.
    pub fn add(&mut self, b: u32, prefix: &str, suffix: &str, radical: &Radical) -> Result<(), String> {
        let key = (prefix.to_string(), suffix.to_string());
        let twice = |v: u64| format!("host '{}' is defined twice", clip(&format!("{prefix}{v}{suffix}")));
        if let Some(g) = self.groups.get(&key) {
            if let Some(v) = g.overlap(radical.ranges()) {
                return Err(twice(v));
            }
        }
        // Another pattern may spell the same names ('n' 12 'x' and 'n1' 2 'x'): compare
        // with the groups whose prefix and suffix nest with ours, name by name on the
        // smaller side.
        let mut others: Vec<(String, String)> = Vec::new();
        for &len in self.prefix_lens.range(..=prefix.len()) {
            if !prefix.is_char_boundary(len) {
                continue;
            }
            if let Some(sufs) = self.by_prefix.get(&prefix[..len]) {
                others.extend(sufs.iter().map(|s| (prefix[..len].to_string(), s.clone())));
            }
        }
        for (p, sufs) in self.by_prefix.range(prefix.to_string()..) {
            if !p.starts_with(prefix) {
                break;
            }
            if p.len() > prefix.len() {
                others.extend(sufs.iter().map(|s| (p.clone(), s.clone())));
            }
        }
        for other in others {
            if other == key || !(other.1.ends_with(suffix) || suffix.ends_with(other.1.as_str())) {
                continue;
            }
            let g = &self.groups[&other];
            self.compared += g.hosts.min(radical.len());
            if self.compared > MAX_NAMES_COMPARED {
                return Err(format!(
                    "the host names of cluster prefix '{}' and of prefix '{}' are too alike to check (more than {MAX_NAMES_COMPARED} names compared): give clusters distinct prefixes",
                    clip(prefix),
                    clip(&other.0)
                ));
            }
            if g.hosts <= radical.len() {
                for v in g.numbers() {
                    let name = format!("{}{v}{}", other.0, other.1);
                    if let Some(w) = name
                        .strip_prefix(prefix)
                        .and_then(|r| r.strip_suffix(suffix))
                        .and_then(number)
                    {
                        if radical.index_of(w).is_some() {
                            return Err(format!("host '{}' is defined twice", clip(&name)));
                        }
                    }
                }
            } else {
                for &(a, z) in radical.ranges() {
                    for v in a..=z {
                        let name = format!("{prefix}{v}{suffix}");
                        if let Some(w) = name
                            .strip_prefix(other.0.as_str())
                            .and_then(|r| r.strip_suffix(other.1.as_str()))
                            .and_then(number)
                        {
                            if g.find(w).is_some() {
                                return Err(twice(v));
                            }
                        }
                    }
                }
            }
        }
        let g = self.groups.entry(key).or_default();
        for &(a, z) in radical.ranges() {
            g.ranges.insert(a, (z, b));
        }
        g.hosts += radical.len();
        self.by_prefix
            .entry(prefix.to_string())
            .or_default()
            .insert(suffix.to_string());
        self.prefix_lens.insert(prefix.len());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_and_duplicates_refused() {
        let mut n = HostNames::default();
        n.add(0, "node-", "", &Radical::parse("0-9").unwrap()).unwrap();
        n.add(1, "node-", "", &Radical::parse("10-19").unwrap()).unwrap();
        n.add(2, "c", ".x", &Radical::parse("1-3").unwrap()).unwrap();
        assert_eq!(n.find("node-0"), Some((0, 0)));
        assert_eq!(n.find("node-15"), Some((1, 15)));
        assert_eq!(n.find("node-20"), None);
        assert_eq!(n.find("node-05"), None);
        assert_eq!(n.find("c2.x"), Some((2, 2)));
        assert_eq!(n.find("c2"), None);
        assert!(n
            .add(3, "node-", "", &Radical::parse("19-25").unwrap())
            .unwrap_err()
            .contains("'node-19'"));
        // 'node-1' + '5' spells node-15.
        assert!(n
            .add(4, "node-1", "", &Radical::parse("5").unwrap())
            .unwrap_err()
            .contains("'node-15'"));
        assert!(n.add(5, "node-1", "", &Radical::parse("50").unwrap()).is_ok());
        // 'c' 12 '.x' and 'c1' 2 '.x'.
        n.add(6, "c1", ".x", &Radical::parse("2").unwrap()).unwrap();
        assert!(n
            .add(7, "c", ".x", &Radical::parse("12").unwrap())
            .unwrap_err()
            .contains("'c12.x'"));
    }
}
