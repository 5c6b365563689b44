//! Segmented linear regression with breakpoints found by the data (seed:
//! smpi-hybrid-model-ethernet-tcp, section 5): the points, sorted by x, are cut into
//! consecutive segments, each fitted with its own line `y = a + b·x` by least squares
//! weighted by each point's own uncertainty, relative to its value (times span
//! decades: a 1 µs miss matters at 10 µs, not at 10 ms). Dynamic programming finds the
//! best cut for every number of segments; the Bayesian information criterion with
//! known variances (χ² plus ln n per parameter) picks how many, so a breakpoint is only
//! kept when the data pay for its three parameters (intercept, slope, position) beyond
//! what their measured scatter explains.

/// A point: x (bytes), y (seconds) and y's standard error relative to y (0.01 for a
/// median known to 1 %; 1 when unknown, which makes the fit one of relative errors).
pub type Point = (f64, f64, f64);

/// The weight of a point in the least squares: one over its variance.
fn weight(p: &Point) -> f64 {
    1.0 / (p.1 * p.2).powi(2).max(f64::MIN_POSITIVE)
}

/// One fitted segment: the points `first..=last` (indices into the sorted input) and
/// their line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// Index of its first point.
    pub first: usize,
    /// Index of its last point.
    pub last: usize,
    /// Intercept.
    pub a: f64,
    /// Slope.
    pub b: f64,
}

impl Segment {
    /// The line at `x`.
    pub fn at(&self, x: f64) -> f64 {
        self.a + self.b * x
    }
}

/// Limits on each segment's line.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Smallest intercept.
    pub a_min: f64,
    /// Smallest slope.
    pub b_min: f64,
}

impl Bounds {
    /// Intercept and slope not negative (overheads, times).
    pub const NON_NEGATIVE: Bounds = Bounds { a_min: 0.0, b_min: 0.0 };
}

/// The weighted least-squares line of `pts` under `bounds`, and its weighted residual
/// sum of squares (χ²). With one distinct x, the slope is `b_min`.
pub fn fit_line(pts: &[Point], bounds: Bounds) -> (f64, f64, f64) {
    let sw: f64 = pts.iter().map(weight).sum();
    let mx = pts.iter().map(|p| weight(p) * p.0).sum::<f64>() / sw;
    let my = pts.iter().map(|p| weight(p) * p.1).sum::<f64>() / sw;
    let sxx: f64 = pts.iter().map(|p| weight(p) * (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| weight(p) * (p.0 - mx) * (p.1 - my)).sum();
    let mut b = if sxx > 0.0 { sxy / sxx } else { bounds.b_min };
    let mut a = my - b * mx;
    if b < bounds.b_min {
        // The best line with the slope at its bound goes through the weighted mean.
        b = bounds.b_min;
        a = my - b * mx;
    }
    if a < bounds.a_min {
        // The intercept at its bound: the slope by least squares through (0, a_min),
        // and no lower than its own bound.
        a = bounds.a_min;
        let sxx0: f64 = pts.iter().map(|p| weight(p) * p.0 * p.0).sum();
        let sxy0: f64 = pts.iter().map(|p| weight(p) * p.0 * (p.1 - a)).sum();
        b = if sxx0 > 0.0 {
            (sxy0 / sxx0).max(bounds.b_min)
        } else {
            bounds.b_min
        };
    }
    let rss = pts.iter().map(|p| weight(p) * (p.1 - a - b * p.0).powi(2)).sum();
    (a, b, rss)
}

/// Fits `pts` (sorted by x, distinct x) with at most `max_segments` segments of at
/// least `min_points` points each; the number of segments is the one with the lowest
/// BIC. `pts` must hold at least `min_points` points.
pub fn fit(pts: &[Point], min_points: usize, max_segments: usize, bounds: Bounds) -> Vec<Segment> {
    let n = pts.len();
    let min_points = min_points.max(1);
    assert!(n >= min_points, "fewer points than one segment needs");
    // cost[i][j]: the segment of points i..=j.
    let mut cost = vec![vec![f64::INFINITY; n]; n];
    for i in 0..n {
        for j in (i + min_points - 1)..n {
            cost[i][j] = fit_line(&pts[i..=j], bounds).2;
        }
    }
    // best[k][j]: the lowest cost of points 0..=j in k+1 segments; from[k][j]: where
    // the last of them starts.
    let kmax = max_segments.max(1).min(n / min_points);
    let mut best = vec![vec![f64::INFINITY; n]; kmax];
    let mut from = vec![vec![0usize; n]; kmax];
    best[0].copy_from_slice(&cost[0]);
    for k in 1..kmax {
        for j in 0..n {
            for s in (k * min_points)..=j {
                let c = best[k - 1][s - 1] + cost[s][j];
                if c < best[k][j] {
                    best[k][j] = c;
                    from[k][j] = s;
                }
            }
        }
    }
    let bic = |k: usize| best[k][n - 1] + (3 * (k + 1) - 1) as f64 * (n as f64).ln();
    let k = (0..kmax)
        .filter(|&k| best[k][n - 1].is_finite())
        .min_by(|&x, &y| bic(x).total_cmp(&bic(y)))
        .unwrap_or(0);
    let mut segments = Vec::with_capacity(k + 1);
    let mut last = n - 1;
    for kk in (0..=k).rev() {
        let first = if kk == 0 { 0 } else { from[kk][last] };
        let (a, b, _) = fit_line(&pts[first..=last], bounds);
        segments.push(Segment { first, last, a, b });
        if kk > 0 {
            last = first - 1;
        }
    }
    segments.reverse();
    segments
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Vec<f64> {
        (0..40).map(|i| 2f64.powf(i as f64 / 2.0)).collect()
    }

    #[test]
    fn one_line_is_found_exactly() {
        let pts: Vec<Point> = grid().into_iter().map(|x| (x, 1e-5 + 8e-8 * x, 1e-3)).collect();
        let s = fit(&pts, 3, 6, Bounds::NON_NEGATIVE);
        assert_eq!(s.len(), 1);
        assert!((s[0].a / 1e-5 - 1.0).abs() < 1e-9 && (s[0].b / 8e-8 - 1.0).abs() < 1e-9);
    }

    #[test]
    fn breakpoints_fall_where_the_line_changes() {
        // Three lines, changing after x = 2^6 and after x = 2^13 (indices 12 and 26).
        let f = |x: f64| {
            if x <= 64.0 {
                2e-5 + 1e-7 * x
            } else if x <= 8192.0 {
                5e-5 + 2e-7 * x
            } else {
                3e-4 + 9e-8 * x
            }
        };
        let pts: Vec<Point> = grid().into_iter().map(|x| (x, f(x), 1e-3)).collect();
        let s = fit(&pts, 3, 6, Bounds::NON_NEGATIVE);
        assert_eq!(
            s.iter().map(|s| (s.first, s.last)).collect::<Vec<_>>(),
            vec![(0, 12), (13, 26), (27, 39)]
        );
        assert!((s[1].a / 5e-5 - 1.0).abs() < 1e-9 && (s[2].b / 9e-8 - 1.0).abs() < 1e-9);
    }

    #[test]
    fn bounds_hold() {
        // Falling data: the slope stays at its bound and the line meets the mean.
        let pts: Vec<Point> = vec![(1.0, 3.0, 1.0), (2.0, 2.0, 1.0), (3.0, 1.0, 1.0)];
        let (a, b, _) = fit_line(&pts, Bounds::NON_NEGATIVE);
        assert_eq!(b, 0.0);
        assert!(a > 1.0 && a < 3.0);
        // Data whose line would cross below zero at x = 0.
        let pts: Vec<Point> = vec![(10.0, 1.0, 1.0), (20.0, 3.0, 1.0), (30.0, 5.0, 1.0)];
        let (a, b, _) = fit_line(&pts, Bounds::NON_NEGATIVE);
        assert_eq!(a, 0.0);
        assert!(b > 0.0);
    }
}
