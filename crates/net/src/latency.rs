//! The distribution of messages' network times, kept in log-spaced buckets so that a
//! run of millions of messages costs a few hundred counters: each power of two is cut
//! into [`SUB`] equal buckets, so a quantile read from the buckets is within 1/SUB
//! (6.25 %) of the exact one, and below 2·SUB ps buckets are exact.

/// Buckets per power of two.
pub const SUB: u64 = 16;

/// A histogram of times in picoseconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Latencies {
    /// Count per bucket, by bucket index (see [`Latencies::bounds`]).
    counts: Vec<u64>,
    /// Times recorded.
    pub count: u64,
    /// Sum of the times (ps), for the mean.
    pub sum: u128,
    /// Shortest time recorded (ps; 0 when none).
    pub min: u64,
    /// Longest time recorded (ps; 0 when none).
    pub max: u64,
}

/// The bucket of `t`: exact below `2·SUB`, then `SUB` per power of two.
fn bucket(t: u64) -> usize {
    if t < 2 * SUB {
        return t as usize;
    }
    let e = 63 - t.leading_zeros() as u64; // 2^e <= t < 2^(e+1), e >= log2(2·SUB)
    let shift = e - SUB.trailing_zeros() as u64;
    let sub = (t >> shift) - SUB; // 0 .. SUB-1
    (2 * SUB + (e - SUB.trailing_zeros() as u64 - 1) * SUB + sub) as usize
}

impl Latencies {
    /// Records one time.
    pub fn record(&mut self, t: u64) {
        let b = bucket(t);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.min = if self.count == 0 { t } else { self.min.min(t) };
        self.max = self.max.max(t);
        self.count += 1;
        self.sum += t as u128;
    }

    /// The times a bucket holds: from `lo` to `hi` inclusive.
    pub fn bounds(index: usize) -> (u64, u64) {
        let i = index as u64;
        if i < 2 * SUB {
            return (i, i);
        }
        let k = i - 2 * SUB;
        let shift = k / SUB + 1;
        let lo = (SUB + k % SUB) << shift;
        (lo, lo + (1 << shift) - 1)
    }

    /// The non-empty buckets: `(lo, hi, count)`, shortest first.
    pub fn buckets(&self) -> Vec<(u64, u64, u64)> {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| {
                let (lo, hi) = Latencies::bounds(i);
                (lo, hi, c)
            })
            .collect()
    }

    /// The time below which a fraction `q` of the messages took: found in its bucket by
    /// spreading the bucket's messages evenly over it, and kept between the shortest
    /// and longest times recorded; 0 when empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            if seen + c >= rank {
                let (lo, hi) = Latencies::bounds(i);
                let within = ((hi - lo) as u128 * (rank - seen) as u128 / c as u128) as u64;
                return (lo + within).min(self.max).max(self.min);
            }
            seen += c;
        }
        self.max
    }

    /// The mean time (ps), 0 when empty.
    pub fn mean(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            (self.sum / self.count as u128) as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_times_and_hold_what_they_say() {
        // Consecutive buckets meet without gaps or overlaps, and every time lands in
        // the bucket whose bounds hold it.
        for i in 0..400 {
            let (lo, hi) = Latencies::bounds(i);
            assert!(lo <= hi);
            assert_eq!(Latencies::bounds(i + 1).0, hi + 1, "bucket {i}");
            assert_eq!(bucket(lo), i);
            assert_eq!(bucket(hi), i);
        }
        // A bucket spans at most 1/SUB of its lower end past the exact range.
        for i in 2 * SUB as usize..400 {
            let (lo, hi) = Latencies::bounds(i);
            assert!((hi + 1 - lo) * SUB <= lo, "bucket {i}: {lo}..{hi}");
        }
        assert_eq!(bucket(u64::MAX), bucket(1 << 63) + SUB as usize - 1);
    }

    #[test]
    fn quantiles_of_a_known_sample() {
        // 1..=1000 ns: the median is 500 ns and the 99th percentile 990 ns, each read
        // from its bucket (at most 1/SUB off).
        let mut h = Latencies::default();
        for ns in 1..=1000u64 {
            h.record(ns * 1000);
        }
        assert_eq!((h.count, h.min, h.max, h.mean()), (1000, 1000, 1_000_000, 500_500));
        for (q, exact) in [(0.5, 500_000u64), (0.99, 990_000), (1.0, 1_000_000)] {
            let got = h.quantile(q);
            let off = (got as f64 / exact as f64 - 1.0).abs();
            assert!(off <= 1.0 / SUB as f64, "q {q}: {got}");
        }
        assert_eq!(h.buckets().iter().map(|b| b.2).sum::<u64>(), 1000);
        assert_eq!(Latencies::default().quantile(0.5), 0);
    }
}
