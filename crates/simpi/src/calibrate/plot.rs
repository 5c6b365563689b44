//! The calibration's plot: measured medians (dots) against fitted curves (lines), one
//! panel per fit, on log-log axes, with the breakpoints as dashed verticals. One
//! self-contained SVG.

use super::Fitted;
use crate::sweep::svg::{Anchor, Svg};

const W: f64 = 640.0;
const H: f64 = 300.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 45.0;

/// The SVG of every fit, stacked.
pub fn fit_plot(fits: &[Fitted]) -> String {
    let mut svg = Svg::new(W, H * fits.len().max(1) as f64);
    for (i, f) in fits.iter().enumerate() {
        panel(&mut svg, f, i as f64 * H);
    }
    svg.finish()
}

/// Powers of ten covering `lo..=hi` (both positive).
fn decades(lo: f64, hi: f64) -> (f64, f64) {
    (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
    )
}

fn panel(svg: &mut Svg, f: &Fitted, y0: f64) {
    // Sizes are drawn at size + 1 so that 0 bytes has a place on a log axis.
    let pts: Vec<(f64, f64, f64)> = f
        .points
        .iter()
        .filter(|p| p.1 > 0.0 && p.2 > 0.0)
        .map(|&(b, m, t)| (b as f64 + 1.0, m, t))
        .collect();
    svg.text(W / 2.0, y0 + 22.0, 14.0, Anchor::Middle, false, f.what);
    if pts.is_empty() {
        return;
    }
    let (x_lo, x_hi) = decades(pts[0].0, pts.last().unwrap().0);
    let y_min = pts.iter().map(|p| p.1.min(p.2)).fold(f64::INFINITY, f64::min);
    let y_max = pts.iter().map(|p| p.1.max(p.2)).fold(0.0, f64::max);
    let (y_lo, y_hi) = decades(y_min, y_max);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let sx = |x: f64| LEFT + pw * (x / x_lo).log10() / (x_hi / x_lo).log10();
    let sy = |y: f64| y0 + TOP + ph * (1.0 - (y / y_lo).log10() / (y_hi / y_lo).log10());
    svg.rect(LEFT, y0 + TOP, pw, ph, "#fafafa", None);
    let mut x = x_lo;
    while x <= x_hi * 1.0001 {
        svg.line(sx(x), y0 + TOP, sx(x), y0 + TOP + ph, "#dddddd", 1.0);
        svg.text(
            sx(x),
            y0 + TOP + ph + 15.0,
            10.0,
            Anchor::Middle,
            false,
            &format!("{:.0e}", x),
        );
        x *= 10.0;
    }
    let mut y = y_lo;
    while y <= y_hi * 1.0001 {
        svg.line(LEFT, sy(y), LEFT + pw, sy(y), "#dddddd", 1.0);
        svg.text(LEFT - 5.0, sy(y) + 3.0, 10.0, Anchor::End, false, &format!("{:.0e}", y));
        y *= 10.0;
    }
    svg.text(
        LEFT + pw / 2.0,
        y0 + H - 8.0,
        11.0,
        Anchor::Middle,
        false,
        "message size + 1 (bytes)",
    );
    svg.text(16.0, y0 + TOP + ph / 2.0, 11.0, Anchor::Middle, true, "seconds");
    for &b in &f.breaks {
        let xb = sx(b as f64 + 1.0);
        if xb >= LEFT && xb <= LEFT + pw {
            svg.line(xb, y0 + TOP, xb, y0 + TOP + ph, "#e0a040", 1.0);
        }
    }
    let line: Vec<(f64, f64)> = pts.iter().map(|p| (sx(p.0), sy(p.2))).collect();
    svg.polyline(&line, "#1f5fbf");
    for p in &pts {
        let tip = format!(
            "{} B: measured {:.3} us, fitted {:.3} us",
            p.0 - 1.0,
            p.1 * 1e6,
            p.2 * 1e6
        );
        svg.circle(sx(p.0), sy(p.1), 3.0, "#c0392b", Some(&tip));
    }
    svg.text(
        LEFT + 8.0,
        y0 + TOP + 14.0,
        10.0,
        Anchor::Start,
        false,
        "dots: measured median; line: fitted; orange: breakpoints",
    );
}
