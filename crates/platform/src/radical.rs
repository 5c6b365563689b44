//! The host numbers of a cluster: SimGrid's radical (`0-15,20`), kept as ranges.

use crate::cluster::MAX_HOSTS;
use crate::units::clip;

/// The host numbers of a cluster (SimGrid's radical, `0-15,20`): inclusive ranges in
/// the order given, stored as ranges so that a million hosts take a few bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Radical {
    /// Inclusive ranges, in order.
    ranges: Vec<(u64, u64)>,
    /// Index of each range's first number.
    first: Vec<u64>,
    /// (start, range index), by start, for finding a number.
    sorted: Vec<(u64, usize)>,
    len: u64,
}

impl Radical {
    /// The numbers `0..n`.
    pub fn first_n(n: u64) -> Radical {
        if n == 0 {
            return Radical::from_ranges(Vec::new()).expect("no range, no overlap");
        }
        Radical::from_ranges(vec![(0, n - 1)]).expect("one range, no overlap")
    }

    /// The numbers of inclusive ranges, in order; an error if a number appears twice.
    pub fn from_ranges(ranges: Vec<(u64, u64)>) -> Result<Radical, String> {
        let mut first = Vec::with_capacity(ranges.len());
        let mut len = 0u64;
        for &(a, b) in &ranges {
            if b < a {
                return Err(format!("the range {a}-{b} is empty"));
            }
            first.push(len);
            len = len.saturating_add(b - a + 1);
        }
        let mut sorted: Vec<(u64, usize)> = ranges.iter().enumerate().map(|(i, r)| (r.0, i)).collect();
        sorted.sort_unstable();
        for w in sorted.windows(2) {
            let (prev, next) = (ranges[w[0].1], ranges[w[1].1]);
            if next.0 <= prev.1 {
                return Err(format!("the number {} is listed twice", next.0));
            }
        }
        Ok(Radical {
            ranges,
            first,
            sorted,
            len,
        })
    }

    /// SimGrid's syntax: comma-separated numbers and inclusive ranges `a-b`, each a
    /// non-negative C `int`; at most [`MAX_HOSTS`] numbers.
    pub fn parse(s: &str) -> Result<Radical, String> {
        let bad = || format!("radical '{}': expected numbers and ranges like 0-15,20", clip(s));
        let int = |t: &str| -> Result<u64, String> {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
                return Err(bad());
            }
            match t.parse::<u64>() {
                Ok(v) if v <= i32::MAX as u64 => Ok(v),
                _ => Err(format!(
                    "radical '{}': {} is out of range (at most {})",
                    clip(s),
                    clip(t),
                    i32::MAX
                )),
            }
        };
        let mut ranges = Vec::new();
        let mut total = 0u64;
        for piece in s.split(',') {
            let (a, b) = match piece.split_once('-') {
                Some((a, b)) => (int(a)?, int(b)?),
                None => {
                    let a = int(piece)?;
                    (a, a)
                }
            };
            if b < a {
                return Err(format!("radical '{}': the range {a}-{b} is empty", clip(s)));
            }
            total += b - a + 1;
            if total > MAX_HOSTS {
                return Err(format!("radical '{}' lists more than {MAX_HOSTS} hosts", clip(s)));
            }
            ranges.push((a, b));
        }
        Radical::from_ranges(ranges).map_err(|m| format!("radical '{}': {m}", clip(s)))
    }

    /// How many numbers.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th number.
    pub fn get(&self, i: u64) -> u64 {
        let r = self.first.partition_point(|&f| f <= i) - 1;
        self.ranges[r].0 + (i - self.first[r])
    }

    /// The position of number `v`, if listed.
    pub fn index_of(&self, v: u64) -> Option<u64> {
        let k = self.sorted.partition_point(|&(s, _)| s <= v);
        let (_, r) = *self.sorted.get(k.checked_sub(1)?)?;
        let (a, b) = self.ranges[r];
        (v >= a && v <= b).then(|| self.first[r] + (v - a))
    }

    /// The ranges, in order.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radicals() {
        let r = Radical::parse("0-3,7").unwrap();
        assert_eq!((0..5).map(|i| r.get(i)).collect::<Vec<_>>(), vec![0, 1, 2, 3, 7]);
        assert_eq!(r.index_of(7), Some(4));
        assert_eq!(r.index_of(5), None);
        assert!(Radical::parse("3-1").is_err());
        assert!(Radical::parse("a").is_err());
        assert!(Radical::parse("").is_err());
        assert!(Radical::parse("1,1").unwrap_err().contains("listed twice"));
        assert!(Radical::parse("0-5,3-9").unwrap_err().contains("listed twice"));
        assert!(Radical::parse("-5").is_err());
        assert!(Radical::parse("0-99999999999").unwrap_err().contains("out of range"));
        assert!(Radical::parse("0-2000000000").unwrap_err().contains("more than"));
    }
}
