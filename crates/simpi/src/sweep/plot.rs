//! The sweep's plots as SVG: the makespan against each swept setting (one line per
//! combination of the other settings and input), and one point's per-rank time split
//! into compute, communication, waiting and idle as stacked bars.

use super::svg::{Anchor, Svg};
use super::table::Table;
use crate::analysis::RankBreakdown;

/// A plot and the name of its file.
pub struct Plot {
    /// File name, e.g. `makespan-vs-L.svg`.
    pub file_name: String,
    /// The SVG document.
    pub svg: String,
}

/// Line colours (Tableau 10), then again.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
];

/// Legend lines shown before "and N more".
const LEGEND_LINES: usize = 14;

/// Ranks a breakdown shows at most (bars thinner than a pixel show nothing).
pub const MAX_BARS: usize = 512;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 46.0;
const BOTTOM: f64 = 64.0;

/// Picoseconds per second.
const PS: f64 = 1e12;

/// A time unit for axis labels: the largest of s, ms, us, ns, ps not above `max`
/// seconds.
fn time_unit(max_s: f64) -> (&'static str, f64) {
    [("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("ps", 1e-12)]
        .into_iter()
        .find(|(_, u)| max_s >= *u)
        .unwrap_or(("ps", 1e-12))
}

/// About five round tick values within `lo..=hi`; with `cover`, the last one at or
/// above `hi`.
fn ticks(lo: f64, hi: f64, cover: bool) -> Vec<f64> {
    let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = if cover { (hi / step).ceil() } else { (hi / step).floor() } as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A number for a tick label: whole numbers in full, others with four significant
/// digits, trailing zeros dropped.
fn label(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let s = format!("{:.*}", (3 - v.abs().log10().floor() as i32).clamp(0, 15) as usize, v);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "0" || s == "-0" {
        format!("{v:.3e}")
    } else {
        s
    }
}

/// How an x axis places a setting's values.
enum XAxis {
    /// Numbers on a linear scale.
    Linear { lo: f64, hi: f64 },
    /// Positive numbers spanning two decades or more, on a log scale.
    Log { lo: f64, hi: f64 },
    /// Anything else: the values in the grid's order, evenly spaced.
    Categories(Vec<String>),
}

impl XAxis {
    fn of(values: &[&str]) -> XAxis {
        let nums: Option<Vec<f64>> = values
            .iter()
            .map(|v| v.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect();
        match nums {
            Some(n) if !n.is_empty() => {
                let lo = n.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = n.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                // A margin, so the end points do not sit on the frame.
                if lo > 0.0 && hi / lo >= 100.0 {
                    let pad = (hi / lo).powf(0.04);
                    XAxis::Log {
                        lo: lo / pad,
                        hi: hi * pad,
                    }
                } else if hi > lo {
                    let pad = (hi - lo) * 0.04;
                    XAxis::Linear {
                        lo: lo - pad,
                        hi: hi + pad,
                    }
                } else {
                    XAxis::Linear {
                        lo: lo - 1.0,
                        hi: hi + 1.0,
                    }
                }
            }
            _ => {
                let mut cats: Vec<String> = Vec::new();
                for v in values {
                    if !cats.iter().any(|c| c == v) {
                        cats.push(v.to_string());
                    }
                }
                XAxis::Categories(cats)
            }
        }
    }

    /// Position of `v` in 0..=1 across the plot.
    fn at(&self, v: &str) -> f64 {
        match self {
            XAxis::Linear { lo, hi } => (v.trim().parse::<f64>().unwrap_or(*lo) - lo) / (hi - lo),
            XAxis::Log { lo, hi } => {
                let x = v.trim().parse::<f64>().unwrap_or(*lo);
                (x.log10() - lo.log10()) / (hi.log10() - lo.log10())
            }
            XAxis::Categories(c) => {
                let i = c.iter().position(|x| x == v).unwrap_or(0);
                (i as f64 + 0.5) / c.len() as f64
            }
        }
    }

    /// Tick positions (0..=1) and labels.
    fn ticks(&self) -> Vec<(f64, String)> {
        match self {
            XAxis::Linear { lo, hi } => ticks(*lo, *hi, false)
                .into_iter()
                .map(|t| ((t - lo) / (hi - lo), label(t)))
                .collect(),
            XAxis::Log { lo, hi } => {
                let (a, b) = (lo.log10().ceil() as i32, hi.log10().floor() as i32);
                (a..=b)
                    .map(|e| {
                        let t = 10f64.powi(e);
                        ((t.log10() - lo.log10()) / (hi.log10() - lo.log10()), label(t))
                    })
                    .collect()
            }
            XAxis::Categories(c) => c
                .iter()
                .enumerate()
                .map(|(i, v)| ((i as f64 + 0.5) / c.len() as f64, v.clone()))
                .collect(),
        }
    }
}

/// Axes, ticks and titles of a plot whose y axis runs from 0 to `y_max` (in the unit's
/// seconds); returns the y ticks' scale.
fn frame(svg: &mut Svg, right: f64, title: (&str, &str), x_title: &str, y_title: &str, y_max: f64) -> f64 {
    let (x0, x1, y0, y1) = (LEFT, WIDTH - right, HEIGHT - BOTTOM, TOP);
    svg.text(WIDTH / 2.0, 20.0, 15.0, Anchor::Middle, false, title.0);
    svg.text(WIDTH / 2.0, 36.0, 11.0, Anchor::Middle, false, &clip(title.1, 120));
    let y_ticks = ticks(0.0, y_max, true);
    let top = y_ticks
        .last()
        .copied()
        .unwrap_or(y_max)
        .max(y_max)
        .max(f64::MIN_POSITIVE);
    for t in &y_ticks {
        let y = y0 - (y0 - y1) * t / top;
        svg.line(x0, y, x1, y, "#e0e0e0", 1.0);
        svg.text(x0 - 6.0, y + 4.0, 11.0, Anchor::End, false, &label(*t));
    }
    svg.line(x0, y0, x1, y0, "#333333", 1.0);
    svg.line(x0, y0, x0, y1, "#333333", 1.0);
    svg.text((x0 + x1) / 2.0, HEIGHT - 16.0, 13.0, Anchor::Middle, false, x_title);
    svg.text(20.0, (y0 + y1) / 2.0, 13.0, Anchor::Middle, true, y_title);
    top
}

/// One SVG per swept setting: the makespan against the setting's values, a line for
/// each combination of the other settings' values and input. Names are
/// `makespan-vs-<keyword>.svg` (with the column's number when two keywords differ only
/// in case, as `g` and `G` do, for file systems that ignore case).
pub fn makespan_plots(table: &Table) -> Vec<Plot> {
    let lower: Vec<String> = table.columns.iter().map(|c| c.to_lowercase()).collect();
    (0..table.columns.len())
        .map(|c| {
            let name = &table.columns[c];
            let clash = lower.iter().filter(|l| **l == lower[c]).count() > 1;
            let file_name = if clash {
                format!("makespan-vs-{name}-{}.svg", c + 1)
            } else {
                format!("makespan-vs-{name}.svg")
            };
            Plot {
                file_name,
                svg: makespan_plot(table, c),
            }
        })
        .collect()
}

/// The makespan against column `c`.
fn makespan_plot(table: &Table, c: usize) -> String {
    let values: Vec<&str> = table.rows.iter().map(|r| r.values[c].as_str()).collect();
    let axis = XAxis::of(&values);
    // Lines: rows that agree on everything but column `c`, in order of first row;
    // named by what differs between lines (not an input or value all rows share).
    let varies = |f: &dyn Fn(&super::table::Row) -> &str| table.rows.iter().any(|r| f(r) != f(&table.rows[0]));
    let input_varies = varies(&|r| r.input.as_deref().unwrap_or(""));
    let mut lines: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, r) in table.rows.iter().enumerate() {
        let mut parts: Vec<String> = Vec::new();
        if let Some(input) = r.input.as_ref().filter(|_| input_varies) {
            parts.push(format!("input={input}"));
        }
        for (k, v) in r.values.iter().enumerate() {
            if k != c && varies(&|r| r.values[k].as_str()) {
                parts.push(format!("{}={v}", table.columns[k]));
            }
        }
        let key = parts.join(", ");
        match lines.iter_mut().find(|(k, _)| *k == key) {
            Some((_, rows)) => rows.push(i),
            None => lines.push((key, vec![i])),
        }
    }
    let legend = lines.len() > 1 || !lines.first().is_some_and(|(k, _)| k.is_empty());
    // Room for the legend's longest name (about 6.5 pixels a character).
    let longest = lines.iter().map(|(k, _)| k.chars().count().min(34)).max().unwrap_or(0);
    let right = if legend {
        (50.0 + 6.5 * longest as f64).clamp(120.0, 270.0)
    } else {
        30.0
    };
    let max_s = table.rows.iter().map(|r| r.makespan_ps).max().unwrap_or(0) as f64 / PS;
    let (unit, per) = time_unit(max_s);
    let mut svg = Svg::new(WIDTH, HEIGHT);
    let name = &table.columns[c];
    let top = frame(
        &mut svg,
        right,
        (&format!("makespan vs {name}"), ""),
        name,
        &format!("makespan ({unit})"),
        max_s / per,
    );
    let (x0, x1, y0, y1) = (LEFT, WIDTH - right, HEIGHT - BOTTOM, TOP);
    for (t, text) in axis.ticks() {
        let x = x0 + (x1 - x0) * t;
        svg.line(x, y0, x, y0 + 5.0, "#333333", 1.0);
        svg.text(x, y0 + 18.0, 11.0, Anchor::Middle, false, &text);
    }
    let xy = |row: usize| {
        let r = &table.rows[row];
        let x = x0 + (x1 - x0) * axis.at(&r.values[c]);
        let y = y0 - (y0 - y1) * (r.makespan_ps as f64 / PS / per) / top;
        (x, y)
    };
    for (n, (key, rows)) in lines.iter().enumerate() {
        let colour = PALETTE[n % PALETTE.len()];
        let mut pts: Vec<(f64, f64)> = rows.iter().map(|&r| xy(r)).collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        svg.polyline(&pts, colour);
        for &r in rows {
            let (x, y) = xy(r);
            let row = &table.rows[r];
            let tip = format!(
                "{name}={}{}{key}: makespan {} {unit}",
                row.values[c],
                if key.is_empty() { "" } else { ", " },
                label(row.makespan_ps as f64 / PS / per)
            );
            svg.circle(x, y, 3.5, colour, Some(&tip));
        }
        if legend && n < LEGEND_LINES {
            let ly = TOP + 8.0 + 18.0 * n as f64;
            svg.rect(x1 + 16.0, ly - 9.0, 12.0, 12.0, colour, None);
            svg.text(x1 + 34.0, ly + 1.0, 11.0, Anchor::Start, false, &clip(key, 34));
        }
    }
    if legend && lines.len() > LEGEND_LINES {
        let ly = TOP + 8.0 + 18.0 * LEGEND_LINES as f64;
        let more = format!("and {} more", lines.len() - LEGEND_LINES);
        svg.text(x1 + 16.0, ly + 1.0, 11.0, Anchor::Start, false, &more);
    }
    svg.finish()
}

/// `s` cut to `max` characters, with an ellipsis.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('\u{2026}');
        t
    }
}

/// A part of a rank's time: its name, colour, and where a breakdown keeps it.
type Part = (&'static str, &'static str, fn(&RankBreakdown) -> u64);

/// The per-rank split of a point's time (compute, communication, waiting, idle, which
/// add up to each rank's end) as stacked bars; at most [`MAX_BARS`] ranks, the first.
/// `title` and `subtitle` say which point it is.
pub fn breakdown_plot(b: &[RankBreakdown], title: &str, subtitle: &str) -> String {
    let shown = &b[..b.len().min(MAX_BARS)];
    let total = |r: &RankBreakdown| r.compute + r.comm + r.wait + r.idle;
    let max_s = shown.iter().map(total).max().unwrap_or(0) as f64 / PS;
    let (unit, per) = time_unit(max_s);
    let right = 150.0;
    let mut svg = Svg::new(WIDTH, HEIGHT);
    let x_title = if shown.len() < b.len() {
        format!("rank (the first {} of {})", shown.len(), b.len())
    } else {
        "rank".to_string()
    };
    let top = frame(
        &mut svg,
        right,
        (title, subtitle),
        &x_title,
        &format!("time ({unit})"),
        max_s / per,
    );
    let (x0, x1, y0, y1) = (LEFT, WIDTH - right, HEIGHT - BOTTOM, TOP);
    let parts: [Part; 4] = [
        ("compute", "#4e79a7", |r| r.compute),
        ("communication", "#f28e2b", |r| r.comm),
        ("waiting", "#e15759", |r| r.wait),
        ("idle", "#bab0ac", |r| r.idle),
    ];
    let slot = (x1 - x0) / shown.len().max(1) as f64;
    let bar = (slot * 0.8).max(0.5);
    let scale = |ps: u64| (y0 - y1) * (ps as f64 / PS / per) / top;
    for (rank, r) in shown.iter().enumerate() {
        let x = x0 + slot * rank as f64 + (slot - bar) / 2.0;
        let mut y = y0;
        for (name, colour, get) in parts {
            let h = scale(get(r));
            if h > 0.0 {
                let tip = format!("rank {rank}: {name} {} {unit}", label(get(r) as f64 / PS / per));
                svg.rect(x, y - h, bar, h, colour, Some(&tip));
                y -= h;
            }
        }
    }
    // Rank labels: about ten.
    let every = shown.len().div_ceil(10).max(1);
    for rank in (0..shown.len()).step_by(every) {
        let x = x0 + slot * (rank as f64 + 0.5);
        svg.text(x, y0 + 18.0, 11.0, Anchor::Middle, false, &rank.to_string());
    }
    for (i, (name, colour, _)) in parts.iter().enumerate() {
        let ly = TOP + 8.0 + 18.0 * i as f64;
        svg.rect(x1 + 16.0, ly - 9.0, 12.0, 12.0, colour, None);
        svg.text(x1 + 34.0, ly + 1.0, 11.0, Anchor::Start, false, name);
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::super::table::Row;
    use super::*;

    fn row(input: &str, values: &[&str], makespan_ps: u64) -> Row {
        Row {
            input: Some(input.into()),
            values: values.iter().map(|v| v.to_string()).collect(),
            makespan_ps,
            events: 1,
        }
    }

    #[test]
    fn one_plot_per_setting_one_line_per_other_value() {
        let t = Table {
            has_input: true,
            columns: vec!["L".into(), "coll".into()],
            rows: vec![
                row("a<b>.goal", &["1000", "allreduce=rdb"], 1_000_000),
                row("a<b>.goal", &["1000", "allreduce=ring"], 2_000_000),
                row("a<b>.goal", &["2000", "allreduce=rdb"], 3_000_000),
                row("a<b>.goal", &["2000", "allreduce=ring"], 4_000_000),
            ],
            warnings: Vec::new(),
        };
        let plots = makespan_plots(&t);
        let names: Vec<&str> = plots.iter().map(|p| p.file_name.as_str()).collect();
        assert_eq!(names, ["makespan-vs-L.svg", "makespan-vs-coll.svg"]);
        // Against L: a line per algorithm, two points each; the input's name escaped.
        let l = &plots[0].svg;
        assert_eq!(l.matches("<polyline").count(), 2);
        assert_eq!(l.matches("<circle").count(), 4);
        // Lines are named by what differs between them, not by the one input.
        assert!(l.contains(">coll=allreduce=ring<"));
        assert!(!l.contains("input="));
        // Times in microseconds (the largest is 4 us).
        assert!(l.contains("makespan (us)"));
        // Against coll: categories in grid order, a line per L.
        let c = &plots[1].svg;
        assert_eq!(c.matches("<polyline").count(), 2);
        assert!(c.find(">allreduce=rdb<").unwrap() < c.find(">allreduce=ring<").unwrap());
    }

    #[test]
    fn case_clashes_get_distinct_names() {
        let t = Table {
            has_input: false,
            columns: vec!["g".into(), "G".into()],
            rows: vec![Row {
                input: None,
                values: vec!["1".into(), "2".into()],
                makespan_ps: 5,
                events: 1,
            }],
            warnings: Vec::new(),
        };
        let names: Vec<String> = makespan_plots(&t).into_iter().map(|p| p.file_name).collect();
        assert_eq!(names, ["makespan-vs-g-1.svg", "makespan-vs-G-2.svg"]);
    }

    #[test]
    fn bars_stack_to_each_ranks_end() {
        let b = [
            RankBreakdown {
                compute: 1_000_000,
                comm: 2_000_000,
                wait: 0,
                idle: 1_000_000,
            },
            RankBreakdown {
                compute: 0,
                comm: 0,
                wait: 4_000_000,
                idle: 0,
            },
        ];
        let svg = breakdown_plot(&b, "point 0", "input=x<y>");
        assert!(svg.contains(">input=x&lt;y&gt;<"));
        // Three parts of rank 0 and one of rank 1 (empty parts draw nothing).
        assert_eq!(svg.matches("<title>rank 0:").count(), 3);
        assert_eq!(svg.matches("<title>rank 1:").count(), 1);
        assert!(svg.contains("rank 0: communication 2 us"));
        assert!(svg.contains("rank 1: waiting 4 us"));
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 10.0, false), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(0.0, 7.3, false), [0.0, 2.0, 4.0, 6.0]);
        assert_eq!(ticks(0.0, 7.3, true), [0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(ticks(1000.0, 8000.0, false), [2000.0, 4000.0, 6000.0, 8000.0]);
        assert_eq!(label(2.5), "2.5");
        assert_eq!(label(1250.0), "1250");
        assert_eq!(label(0.012346), "0.01235");
    }
}
