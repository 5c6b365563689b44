//! Cutting a timeline down: some ranks (`0-3,8`) and a time window (`1ms:2ms`), so that a
//! run of millions of spans gives a file a viewer can open.

/// The longest piece of a user's value an error message quotes.
const QUOTE_LIMIT: usize = 40;

/// `s`, or its start if it is long (error messages quote what the user typed).
pub(super) fn clip(s: &str) -> String {
    if s.len() <= QUOTE_LIMIT {
        return s.to_string();
    }
    let mut end = QUOTE_LIMIT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// A set of ranks, as ranges `first-last` and single ranks separated by commas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankSet {
    /// Inclusive ranges, sorted, not overlapping nor touching.
    ranges: Vec<(u32, u32)>,
}

impl RankSet {
    /// Parses `0-3,8` (clap's `value_parser`).
    pub fn parse(s: &str) -> Result<RankSet, String> {
        let number = |t: &str| -> Result<u32, String> {
            let t = t.trim();
            t.parse::<u32>().map_err(|_| {
                format!(
                    "expected a rank (a whole number below 2^32), found '{}' in '{}'",
                    clip(t),
                    clip(s)
                )
            })
        };
        let mut ranges = Vec::new();
        for item in s.split(',') {
            if item.trim().is_empty() {
                return Err(format!(
                    "expected ranks like '0-3,8', found an empty item in '{}'",
                    clip(s)
                ));
            }
            let (a, b) = match item.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => {
                    let r = number(item)?;
                    (r, r)
                }
            };
            if a > b {
                return Err(format!("the range '{}' goes backwards", clip(item.trim())));
            }
            ranges.push((a, b));
        }
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Ok(RankSet { ranges: merged })
    }

    /// Whether `r` is in the set.
    pub fn contains(&self, r: u32) -> bool {
        let i = self.ranges.partition_point(|&(_, b)| b < r);
        self.ranges.get(i).is_some_and(|&(a, _)| a <= r)
    }

    /// The highest rank in the set.
    pub fn max(&self) -> Option<u32> {
        self.ranges.last().map(|&(_, b)| b)
    }
}

/// A time window: spans that overlap `start..=end` (ends included) are kept.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Start, ps.
    pub start: u64,
    /// End, ps ([`u64::MAX`]: open).
    pub end: u64,
}

impl Window {
    /// Parses `START:END`, times with a unit (`ps`, `ns`, `us`, `ms`, `s`), either side
    /// empty for an open end: `1ms:2ms`, `:500us`, `1.5ms:` (clap's `value_parser`).
    pub fn parse(s: &str) -> Result<Window, String> {
        let (a, b) = s
            .split_once(':')
            .ok_or_else(|| format!("expected a window START:END like '1ms:2ms', found '{}'", clip(s)))?;
        let start = if a.trim().is_empty() { 0 } else { time_ps(a)? };
        let end = if b.trim().is_empty() { u64::MAX } else { time_ps(b)? };
        if end < start {
            return Err(format!("the window '{}' ends before it starts", clip(s)));
        }
        Ok(Window { start, end })
    }
}

/// A time with a unit, in picoseconds (rounded to the nearest).
fn time_ps(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let units: [(&str, f64); 6] = [
        ("ps", 1.0),
        ("ns", 1e3),
        ("us", 1e6),
        ("µs", 1e6),
        ("ms", 1e9),
        ("s", 1e12),
    ];
    let (num, k) = match units.iter().find(|(u, _)| t.ends_with(u)) {
        Some((u, k)) => (&t[..t.len() - u.len()], *k),
        // A bare zero needs no unit; any other number does (is 100 ns or seconds?).
        None if t.parse::<f64>().is_ok_and(|v| v == 0.0) => ("0", 1.0),
        None => {
            return Err(format!(
                "expected a time with a unit (ps, ns, us, ms or s) like '1.5ms', found '{}'",
                clip(t)
            ))
        }
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("expected a time like '1.5ms', found '{}'", clip(t)))?;
    let ps = (v * k).round();
    if !ps.is_finite() || ps < 0.0 || ps >= u64::MAX as f64 {
        return Err(format!(
            "the time '{}' is not between 0 and the clock's range (about 213 days)",
            clip(t)
        ));
    }
    Ok(ps as u64)
}

/// Which spans a timeline keeps: those of the ranks in `ranks` (all if none) that
/// overlap `window` (all if none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// The ranks shown.
    pub ranks: Option<RankSet>,
    /// The time window shown.
    pub window: Option<Window>,
}

impl Filter {
    /// Checks the filter against a run of `ranks` ranks: naming a rank the run does not
    /// have is an error (a typo would otherwise give an empty timeline).
    pub fn check(&self, ranks: u32) -> Result<(), String> {
        match self.ranks.as_ref().and_then(RankSet::max) {
            Some(r) if r >= ranks => Err(format!(
                "rank {r} does not exist: the run has {ranks} rank{} (0-{})",
                if ranks == 1 { "" } else { "s" },
                ranks.saturating_sub(1)
            )),
            _ => Ok(()),
        }
    }

    /// Whether rank `r` is shown.
    pub fn keeps_rank(&self, r: u32) -> bool {
        match &self.ranks {
            Some(s) => s.contains(r),
            None => true,
        }
    }

    /// Whether a span from `start` to `end` (ps) overlaps the window.
    pub fn keeps_time(&self, start: u64, end: u64) -> bool {
        match self.window {
            Some(w) => start <= w.end && end >= w.start,
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_lists_merge_and_answer_membership() {
        let s = RankSet::parse("8, 0-3,2-4").unwrap();
        assert_eq!(s.ranges, [(0, 4), (8, 8)]);
        let members: Vec<u32> = (0..10).filter(|&r| s.contains(r)).collect();
        assert_eq!(members, [0, 1, 2, 3, 4, 8]);
        assert_eq!(s.max(), Some(8));
    }

    #[test]
    fn bad_rank_lists_are_refused() {
        for bad in ["", "1,", "a", "3-1", "-1", "1-", "4294967296", "0-3;8"] {
            assert!(RankSet::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn windows_take_units_and_open_ends() {
        assert_eq!(
            Window::parse("1ms:2ms").unwrap(),
            Window {
                start: 1_000_000_000,
                end: 2_000_000_000
            }
        );
        assert_eq!(
            Window::parse("0:1.5us").unwrap(),
            Window {
                start: 0,
                end: 1_500_000
            }
        );
        assert_eq!(
            Window::parse("100ns:").unwrap(),
            Window {
                start: 100_000,
                end: u64::MAX
            }
        );
        assert_eq!(Window::parse(":0.1us").unwrap().end, 100_000);
        assert_eq!(Window::parse("1e3ps:2s").unwrap().start, 1000);
    }

    #[test]
    fn bad_windows_are_refused() {
        for bad in [
            "1ms",
            "2ms:1ms",
            "100:200ns",
            "1mss:2ms",
            "-1ms:2ms",
            "nanms:1s",
            "1e300s:",
            "x:",
        ] {
            assert!(Window::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn a_filter_names_only_ranks_the_run_has() {
        let f = Filter {
            ranks: Some(RankSet::parse("0-3,8").unwrap()),
            window: None,
        };
        assert!(f.check(9).is_ok());
        let e = f.check(8).unwrap_err();
        assert_eq!(e, "rank 8 does not exist: the run has 8 ranks (0-7)");
    }

    #[test]
    fn the_window_keeps_what_overlaps_it() {
        let f = Filter {
            ranks: None,
            window: Some(Window { start: 10, end: 20 }),
        };
        let kept: Vec<(u64, u64)> = [(0, 9), (0, 10), (15, 16), (20, 30), (21, 30), (0, 100)]
            .into_iter()
            .filter(|&(a, b)| f.keeps_time(a, b))
            .collect();
        assert_eq!(kept, [(0, 10), (15, 16), (20, 30), (0, 100)]);
    }
}
