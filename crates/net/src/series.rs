//! A quantity over time in a bounded number of equal bins: each bin holds the integral
//! of the quantity over its span (e.g. picoseconds busy, or packets · picoseconds held).
//! When the run outgrows the bins, neighbours merge and the width doubles, so memory
//! stays at [`MAX_BINS`] values whatever the run's length.

/// The most bins a series keeps.
pub const MAX_BINS: usize = 128;

/// Integrals of a quantity per bin of `width` picoseconds, from time 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Bins {
    /// Picoseconds per bin (a power of two times the first width).
    pub width: u64,
    /// The integral over each bin.
    pub sums: Vec<f64>,
}

impl Bins {
    /// Empty bins of `width` picoseconds to start with.
    pub fn new(width: u64) -> Bins {
        Bins {
            width: width.max(1),
            sums: Vec::new(),
        }
    }

    /// Adds `level` over `[from, to)` (picoseconds).
    pub fn add(&mut self, from: u64, to: u64, level: f64) {
        if to <= from || level == 0.0 {
            return;
        }
        while to.div_ceil(self.width) > MAX_BINS as u64 {
            self.coarsen();
        }
        let last = (to - 1) / self.width;
        if self.sums.len() <= last as usize {
            self.sums.resize(last as usize + 1, 0.0);
        }
        let mut t = from;
        while t < to {
            let b = t / self.width;
            let end = ((b + 1) * self.width).min(to);
            self.sums[b as usize] += level * (end - t) as f64;
            t = end;
        }
    }

    /// Covers the time up to `to` (ps) with bins, empty where nothing was added.
    pub fn extend_to(&mut self, to: u64) {
        while to.div_ceil(self.width) > MAX_BINS as u64 {
            self.coarsen();
        }
        let n = to.div_ceil(self.width) as usize;
        if self.sums.len() < n {
            self.sums.resize(n, 0.0);
        }
    }

    /// Merges neighbouring bins: half as many, twice as wide.
    pub fn coarsen(&mut self) {
        let merged = self.sums.chunks(2).map(|c| c.iter().sum()).collect();
        self.sums = merged;
        self.width = self.width.saturating_mul(2);
    }

    /// The mean level in each bin: its integral over its width.
    pub fn means(&self) -> Vec<f64> {
        self.sums.iter().map(|s| s / self.width as f64).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_spread_over_the_bins_they_cover() {
        let mut b = Bins::new(10);
        b.add(5, 25, 1.0);
        assert_eq!(b.sums, vec![5.0, 10.0, 5.0]);
        b.add(0, 10, 2.0);
        assert_eq!(b.means(), vec![2.5, 1.0, 0.5]);
        b.extend_to(41);
        assert_eq!(b.means(), vec![2.5, 1.0, 0.5, 0.0, 0.0]);
    }

    #[test]
    fn a_long_run_merges_bins_and_keeps_the_integral() {
        let mut b = Bins::new(1);
        for k in 0..1000u64 {
            b.add(2 * k, 2 * k + 1, 1.0); // busy half the time
        }
        assert!(b.sums.len() <= MAX_BINS);
        assert_eq!(b.sums.iter().sum::<f64>(), 1000.0);
        assert_eq!(b.width, 16);
        // Every full bin is half busy.
        assert!(
            b.means()[..b.sums.len() - 1].iter().all(|&m| m == 0.5),
            "{:?}",
            b.means()
        );
    }
}
