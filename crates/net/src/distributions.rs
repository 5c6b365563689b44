//! Measured distributions of message times (MPIBench's histograms), and sampling from
//! them: what the stochastic model draws each message's time from.
//!
//! A file holds one histogram per (message size, contention level): how many of the
//! measured messages took each range of times. The format, one item per line (`#`
//! starts a comment):
//!
//! ```text
//! unit us                 # the unit of every time below: ps, ns, us, ms or s
//! dist 1024 1             # the histogram of 1024-byte messages with 1 in flight
//! bucket 50 55 120        # 120 of them took from 50 to 55 us
//! bucket 55 70 31
//! dist 1024 4             # ... with 4 messages in flight
//! bucket 61 90 151
//! ```
//!
//! A message's time is drawn by inverse CDF: a uniform `u` picks the bucket holding
//! that share of the counts, and the point that far across it. Sizes between two
//! measured sizes take the time between the two sizes' times at the same `u`
//! (linearly in bytes); sizes beyond the largest extend the line through the last two
//! (never below the largest's time); sizes below the smallest take its time. Contention
//! is interpolated the same way between measured levels; past the highest level the
//! highest is used and the model says so.

use crate::Error;
use simpi_kernel::SimTime;
use std::path::Path;

/// One histogram: buckets `(from_ps, to_ps, count)` in increasing time order.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    buckets: Vec<(f64, f64, u64)>,
    total: u64,
}

impl Histogram {
    /// A histogram of `buckets` (from, to, count; in picoseconds): sorted, not
    /// overlapping, `from < to`, at least one count.
    pub fn new(buckets: Vec<(f64, f64, u64)>) -> Result<Histogram, String> {
        let mut last_to = 0.0;
        for &(from, to, _) in &buckets {
            if !(from.is_finite() && to.is_finite() && from >= 0.0 && from < to) {
                return Err(format!(
                    "a bucket is from a time to a later one, both finite and not negative (not {from} to {to} ps)"
                ));
            }
            if from < last_to {
                return Err("buckets are in increasing order of time and do not overlap".into());
            }
            last_to = to;
        }
        let total = buckets.iter().try_fold(0u64, |t, b| t.checked_add(b.2));
        match total {
            Some(total) if total > 0 => Ok(Histogram { buckets, total }),
            Some(_) => Err("a histogram needs at least one counted message".into()),
            None => Err("the counts add up past 2^64".into()),
        }
    }

    /// The time (ps) at quantile `u` in `[0, 1)`: within the bucket that holds that
    /// share of the counts, the same share of the way across it.
    pub fn quantile(&self, u: f64) -> f64 {
        let target = u.clamp(0.0, 1.0) * self.total as f64;
        let mut below = 0.0;
        for &(from, to, n) in &self.buckets {
            let n = n as f64;
            if n > 0.0 && target < below + n {
                return from + (to - from) * (target - below) / n;
            }
            below += n;
        }
        // u = 1 (or rounding at the top): the end of the last counted bucket.
        self.buckets.iter().rev().find(|b| b.2 > 0).map_or(0.0, |b| b.1)
    }

    /// A histogram of measured times (picoseconds) in log-spaced buckets,
    /// `per_decade` to a factor of ten (bucket `k` spans `10^(k/per_decade)` to
    /// `10^((k+1)/per_decade)` ps); times at or below 0 (a clock offset corrected too
    /// far) go into a bucket from 0 to the first positive one's start. Empty buckets
    /// are left out.
    pub fn from_samples(samples: &[f64], per_decade: u32) -> Result<Histogram, String> {
        if per_decade == 0 {
            return Err("buckets per decade start at 1".into());
        }
        if let Some(bad) = samples.iter().find(|t| !t.is_finite()) {
            return Err(format!("a measured time is {bad}"));
        }
        let d = per_decade as f64;
        let mut counts: std::collections::BTreeMap<i64, u64> = std::collections::BTreeMap::new();
        let mut not_positive = 0u64;
        for &t in samples {
            if t <= 0.0 {
                not_positive += 1;
            } else {
                *counts.entry((t.log10() * d).floor() as i64).or_insert(0) += 1;
            }
        }
        let edge = |k: i64| 10f64.powf(k as f64 / d);
        let mut buckets = Vec::with_capacity(counts.len() + 1);
        if not_positive > 0 {
            let first = counts.keys().next().map_or(1.0, |&k| edge(k));
            buckets.push((0.0, first, not_positive));
        }
        buckets.extend(counts.iter().map(|(&k, &n)| (edge(k), edge(k + 1), n)));
        Histogram::new(buckets)
    }

    /// The buckets: (from, to, count), times in picoseconds.
    pub fn buckets(&self) -> &[(f64, f64, u64)] {
        &self.buckets
    }

    /// The mean time (ps), each bucket's messages at its middle.
    pub fn mean(&self) -> f64 {
        let sum: f64 = self.buckets.iter().map(|&(a, b, n)| (a + b) / 2.0 * n as f64).sum();
        sum / self.total as f64
    }
}

/// The histograms of one contention level, by message size.
#[derive(Clone, Debug, PartialEq)]
struct Level {
    contention: u32,
    /// (bytes, histogram), sizes increasing.
    sizes: Vec<(u64, Histogram)>,
}

/// Measured message times by size and contention.
#[derive(Clone, Debug, PartialEq)]
pub struct Distributions {
    /// Levels, contention increasing.
    levels: Vec<Level>,
}

/// A histogram as read: its (bytes, contention), the line of its `dist`, its buckets.
type Read = ((u64, u32), usize, Vec<(f64, f64, u64)>);

/// Where an item was read (file and line), for errors.
fn at(file: &Path, line: usize, msg: impl std::fmt::Display) -> Error {
    Error::BadParameter(format!("{}:{line}: {msg}", file.display()))
}

/// Picoseconds per unit.
fn unit_ps(unit: &str) -> Option<f64> {
    Some(match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" => 1e6,
        "ms" => 1e9,
        "s" => 1e12,
        _ => return None,
    })
}

/// A token quoted for a message, cut to 40 characters.
fn quoted(s: &str) -> String {
    let cut: String = s.chars().take(40).collect();
    if cut.len() < s.len() {
        format!("'{cut}...'")
    } else {
        format!("'{cut}'")
    }
}

impl Distributions {
    /// Distributions from histograms keyed by (bytes, contention level).
    pub fn new(mut items: Vec<((u64, u32), Histogram)>) -> Result<Distributions, String> {
        if items.is_empty() {
            return Err("no distribution: at least one 'dist' with buckets is needed".into());
        }
        items.sort_by_key(|(k, _)| (k.1, k.0));
        let mut levels: Vec<Level> = Vec::new();
        for ((bytes, contention), h) in items {
            if contention == 0 {
                return Err("contention levels count messages in flight, from 1".into());
            }
            match levels.last_mut() {
                Some(l) if l.contention == contention => {
                    if l.sizes.last().is_some_and(|s| s.0 == bytes) {
                        return Err(format!("two distributions of {bytes} bytes at contention {contention}"));
                    }
                    l.sizes.push((bytes, h));
                }
                _ => levels.push(Level {
                    contention,
                    sizes: vec![(bytes, h)],
                }),
            }
        }
        Ok(Distributions { levels })
    }

    /// Reads a distributions file (see the module's documentation); errors name the
    /// file and line.
    pub fn read(path: &Path) -> Result<Distributions, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::BadParameter(format!("{}: cannot read: {e}", path.display())))?;
        Distributions::parse(path, &text)
    }

    /// Parses the text of a distributions file called `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Distributions, Error> {
        let mut unit: Option<f64> = None;
        let mut dists: Vec<Read> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.split('#').next().unwrap_or("").trim();
            let words: Vec<&str> = line.split_ascii_whitespace().collect();
            match words.as_slice() {
                [] => {}
                ["unit", u] => {
                    if unit.is_some() {
                        return Err(at(path, n, "a second 'unit' line"));
                    }
                    unit = Some(
                        unit_ps(u)
                            .ok_or_else(|| at(path, n, format!("unknown unit {}: ps, ns, us, ms or s", quoted(u))))?,
                    );
                }
                ["dist", bytes, contention] => {
                    let bytes: u64 = bytes.parse().map_err(|_| {
                        at(
                            path,
                            n,
                            format!("message size {} is not a whole number of bytes", quoted(bytes)),
                        )
                    })?;
                    let contention: u32 = contention.parse().ok().filter(|&c| c >= 1).ok_or_else(|| {
                        at(
                            path,
                            n,
                            format!(
                                "contention {} is not a whole number of messages in flight, from 1",
                                quoted(contention)
                            ),
                        )
                    })?;
                    if let Some((_, first, _)) = dists.iter().find(|d| d.0 == (bytes, contention)) {
                        return Err(at(
                            path,
                            n,
                            format!("{bytes} bytes at contention {contention} were given already, on line {first}"),
                        ));
                    }
                    dists.push(((bytes, contention), n, Vec::new()));
                }
                ["bucket", from, to, count] => {
                    let scale = unit.ok_or_else(|| at(path, n, "a 'unit' line comes before the first bucket"))?;
                    let Some(d) = dists.last_mut() else {
                        return Err(at(
                            path,
                            n,
                            "a bucket belongs to a 'dist <bytes> <contention>' line above it",
                        ));
                    };
                    let time = |w: &str| -> Result<f64, Error> {
                        match w.parse::<f64>() {
                            // In picoseconds, within the clock's range: checked here so
                            // that the fault is this line's.
                            Ok(x) if x.is_finite() && x >= 0.0 => {
                                let ps = x * scale;
                                if ps < u64::MAX as f64 {
                                    Ok(ps)
                                } else {
                                    Err(at(
                                        path,
                                        n,
                                        format!("time {} is past the simulated clock's range", quoted(w)),
                                    ))
                                }
                            }
                            _ => Err(at(
                                path,
                                n,
                                format!("time {} is not a finite number of at least 0", quoted(w)),
                            )),
                        }
                    };
                    let (from, to) = (time(from)?, time(to)?);
                    if from >= to {
                        return Err(at(path, n, "a bucket ends after it starts"));
                    }
                    if let Some(&(_, last_to, _)) = d.2.last() {
                        if from < last_to {
                            return Err(at(path, n, "buckets go in increasing order of time and do not overlap"));
                        }
                    }
                    let count: u64 = count
                        .parse()
                        .map_err(|_| at(path, n, format!("count {} is not a whole number", quoted(count))))?;
                    d.2.push((from, to, count));
                }
                [word, ..] => {
                    return Err(at(
                        path,
                        n,
                        format!(
                            "expected 'unit U', 'dist BYTES CONTENTION' or 'bucket FROM TO COUNT', found {}",
                            quoted(word)
                        ),
                    ))
                }
            }
        }
        let mut items = Vec::with_capacity(dists.len());
        for (key, line, buckets) in dists {
            let h = Histogram::new(buckets).map_err(|m| at(path, line, m))?;
            items.push((key, h));
        }
        Distributions::new(items).map_err(|m| Error::BadParameter(format!("{}: {m}", path.display())))
    }

    /// Distributions from measured messages `(bytes, contention, seconds)`: one
    /// histogram per size and level, `per_decade` log-spaced buckets to a factor of ten
    /// ([`Histogram::from_samples`]).
    pub fn from_samples(samples: &[(u64, u32, f64)], per_decade: u32) -> Result<Distributions, String> {
        let mut by_key: std::collections::BTreeMap<(u64, u32), Vec<f64>> = std::collections::BTreeMap::new();
        for &(bytes, contention, seconds) in samples {
            by_key.entry((bytes, contention)).or_default().push(seconds * 1e12);
        }
        let mut items = Vec::with_capacity(by_key.len());
        for (key, times) in by_key {
            let h = Histogram::from_samples(&times, per_decade)
                .map_err(|m| format!("{} bytes at contention {}: {m}", key.0, key.1))?;
            items.push((key, h));
        }
        Distributions::new(items)
    }

    /// Every histogram with its (bytes, contention), contention then size increasing.
    pub fn entries(&self) -> impl Iterator<Item = (u64, u32, &Histogram)> {
        self.levels
            .iter()
            .flat_map(|l| l.sizes.iter().map(move |(b, h)| (*b, l.contention, h)))
    }

    /// The file's text (see the module's documentation), times in microseconds, after
    /// `comment` (each of its lines made a comment).
    pub fn to_text(&self, comment: &str) -> String {
        let mut out = String::new();
        for line in comment.lines() {
            out.push_str(&format!("# {line}\n"));
        }
        out.push_str("unit us\n");
        for (bytes, contention, h) in self.entries() {
            out.push_str(&format!("dist {bytes} {contention}\n"));
            for &(from, to, n) in h.buckets() {
                // Shortest text that reads back to the same time.
                out.push_str(&format!("bucket {:?} {:?} {n}\n", from / 1e6, to / 1e6));
            }
        }
        out
    }

    /// The highest contention level measured.
    pub fn max_contention(&self) -> u32 {
        self.levels.last().map_or(1, |l| l.contention)
    }

    /// The time (ps) of a `bytes`-byte message at `contention` messages in flight, at
    /// quantile `u` (see the module's documentation for the interpolation).
    pub fn time_at(&self, bytes: u64, contention: u32, u: f64) -> f64 {
        let levels = &self.levels;
        let hi = levels.partition_point(|l| l.contention < contention);
        if hi == 0 {
            return level_time(&levels[0], bytes, u);
        }
        if hi == levels.len() {
            return level_time(&levels[hi - 1], bytes, u);
        }
        let (a, b) = (&levels[hi - 1], &levels[hi]);
        if b.contention == contention {
            return level_time(b, bytes, u);
        }
        let w = (contention - a.contention) as f64 / (b.contention - a.contention) as f64;
        let (ta, tb) = (level_time(a, bytes, u), level_time(b, bytes, u));
        ta + (tb - ta) * w
    }

    /// [`Distributions::time_at`] as a simulated duration.
    pub fn sample(&self, bytes: u64, contention: u32, u: f64) -> Result<SimTime, Error> {
        let ps = self.time_at(bytes, contention, u).round();
        if ps.is_finite() && ps >= 0.0 && ps < u64::MAX as f64 {
            Ok(SimTime(ps as u64))
        } else {
            Err(Error::TimeOverflow)
        }
    }
}

/// The time of a `bytes`-byte message in one level, at quantile `u`.
fn level_time(level: &Level, bytes: u64, u: f64) -> f64 {
    let s = &level.sizes;
    let hi = s.partition_point(|(b, _)| *b < bytes);
    if hi == 0 {
        return s[0].1.quantile(u);
    }
    if hi < s.len() && s[hi].0 == bytes {
        return s[hi].1.quantile(u);
    }
    if s.len() == 1 {
        return s[0].1.quantile(u);
    }
    // Between two sizes, or past the last (the line through the last two).
    let (i, j) = if hi == s.len() {
        (s.len() - 2, s.len() - 1)
    } else {
        (hi - 1, hi)
    };
    let (ta, tb) = (s[i].1.quantile(u), s[j].1.quantile(u));
    let w = (bytes - s[i].0) as f64 / (s[j].0 - s[i].0) as f64;
    let t = ta + (tb - ta) * w;
    if hi == s.len() {
        t.max(tb)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dists(text: &str) -> Result<Distributions, String> {
        Distributions::parse(Path::new("d.txt"), text).map_err(|e| match e {
            Error::BadParameter(m) => m,
            e => format!("{e:?}"),
        })
    }

    #[test]
    fn quantiles_are_read_across_buckets() {
        // 1 message in 0..10, 3 in 10..20 (ns): the CDF is 0.25 at 10 ns.
        let h = Histogram::new(vec![(0.0, 10e3, 1), (10e3, 20e3, 3)]).unwrap();
        assert_eq!(h.quantile(0.0), 0.0);
        assert_eq!(h.quantile(0.125), 5e3);
        assert_eq!(h.quantile(0.25), 10e3);
        // 0.625: half of the second bucket's share (0.25 + 0.75/2).
        assert_eq!(h.quantile(0.625), 15e3);
        assert_eq!(h.quantile(1.0), 20e3);
        assert_eq!(h.mean(), (5e3 + 3.0 * 15e3) / 4.0);
    }

    #[test]
    fn empty_buckets_are_skipped() {
        let h = Histogram::new(vec![(0.0, 1.0, 0), (5.0, 7.0, 2), (7.0, 9.0, 0)]).unwrap();
        assert_eq!(h.quantile(0.0), 5.0);
        assert_eq!(h.quantile(0.5), 6.0);
        assert_eq!(h.quantile(1.0), 7.0);
    }

    /// Two sizes at contention 1 and one at 3, each a single bucket.
    const TWO_SIZES: &str = "unit us
dist 0 1
bucket 10 20 1     # 0 bytes, 1 in flight: 10..20 us
dist 1000 1
bucket 30 40 5
dist 1000 3
bucket 60 80 2
";

    #[test]
    fn sizes_and_contention_are_interpolated_at_the_same_quantile() {
        let d = dists(TWO_SIZES).unwrap();
        // Measured points: at u = 0.5, 15 us and 35 us.
        assert_eq!(d.time_at(0, 1, 0.5), 15e6);
        assert_eq!(d.time_at(1000, 1, 0.5), 35e6);
        // Half way in bytes: half way in time.
        assert_eq!(d.time_at(500, 1, 0.5), 25e6);
        // Past the last size: the line through the last two (20 us per 1000 bytes).
        assert_eq!(d.time_at(2000, 1, 0.5), 55e6);
        // Contention 2 is half way between levels 1 and 3 (1000 bytes: 35 and 70 us);
        // level 3 has one size, used for every size.
        assert_eq!(d.time_at(1000, 2, 0.5), 52.5e6);
        assert_eq!(d.time_at(10, 3, 0.5), 70e6);
        // Past the highest level: the highest.
        assert_eq!(d.time_at(1000, 9, 0.0), 60e6);
        assert_eq!(d.max_contention(), 3);
        assert_eq!(d.sample(500, 1, 0.5).unwrap(), SimTime(25_000_000));
    }

    #[test]
    fn samples_fall_into_log_spaced_buckets() {
        // 10 per decade: 1.0 and 1.2 us (1e6, 1.2e6 ps) share [10^6, 10^6.1); 2 us is in
        // [10^6.3, 10^6.4); -1 ps (an offset corrected too far) is below them all.
        let h = Histogram::from_samples(&[1e6, 1.2e6, 2e6, -1.0], 10).unwrap();
        let b = h.buckets();
        assert_eq!(b.len(), 3);
        assert_eq!((b[0].0, b[0].2), (0.0, 1));
        assert_eq!((b[1].0, b[1].2), (1e6, 2));
        assert!((b[1].1 - 10f64.powf(6.1)).abs() < 1e-3);
        assert!((b[2].0 - 10f64.powf(6.3)).abs() < 1e-3 && b[2].2 == 1);
        assert_eq!(b[0].1, b[1].0);
        assert!(Histogram::from_samples(&[f64::NAN], 10).is_err());
    }

    #[test]
    fn a_written_file_reads_back_the_same() {
        let d = dists(TWO_SIZES).unwrap();
        let text = d.to_text("made by a test\nsecond line");
        assert!(text.starts_with("# made by a test\n# second line\nunit us\n"), "{text}");
        assert_eq!(dists(&text).unwrap(), d);
    }

    #[test]
    fn faults_are_named_with_their_line() {
        for (text, want) in [
            (
                "unit us\ndist 8 1\n",
                "d.txt:2: a histogram needs at least one counted message",
            ),
            ("unit min\n", "d.txt:1: unknown unit 'min'"),
            (
                "dist 8 1\nbucket 1 2 3\n",
                "d.txt:2: a 'unit' line comes before the first bucket",
            ),
            ("unit ns\nbucket 1 2 3\n", "d.txt:2: a bucket belongs to a 'dist"),
            ("unit ns\ndist 8 0\n", "d.txt:2: contention '0' is not a whole number"),
            ("unit ns\ndist -8 1\n", "d.txt:2: message size '-8'"),
            (
                "unit ns\ndist 8 1\nbucket 2 1 3\n",
                "d.txt:3: a bucket ends after it starts",
            ),
            ("unit ns\ndist 8 1\nbucket 1 nan 3\n", "d.txt:3: time 'nan'"),
            // Past the clock after the unit's scaling: the bucket's own line says so.
            (
                "unit s\ndist 8 1\nbucket 1e300 1e301 1\n",
                "d.txt:3: time '1e300' is past the simulated clock's range",
            ),
            (
                "unit s\ndist 8 1\nbucket 0 1e301 1\n",
                "d.txt:3: time '1e301' is past the simulated clock's range",
            ),
            (
                "unit ns\ndist 8 1\nbucket 1 5 3\nbucket 4 6 1\n",
                "d.txt:4: buckets go in increasing order",
            ),
            (
                "unit ns\ndist 8 1\nbucket 1 5 3\ndist 8 1\n",
                "d.txt:4: 8 bytes at contention 1 were given already, on line 2",
            ),
            ("unit ns\ndist 8 1\nbucket 1 5 1.5\n", "d.txt:3: count '1.5'"),
            ("unit ns\nfoo\n", "d.txt:2: expected 'unit U'"),
            ("unit ns\n", "d.txt: no distribution"),
        ] {
            let e = dists(text).unwrap_err();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
