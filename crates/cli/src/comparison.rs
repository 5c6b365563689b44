//! A prediction set beside a measured run: the makespan, each rank's end and the time
//! per call type, each pair with its error |ln(predicted / measured)|; printed as a
//! table for people or as one JSON object (`simpi compare`).

use simpi::sweep::table::json_string;
use simpi::Report;
use simpi_tracer::times::RankTimes;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Lines of a times file that mark a point of the run rather than time in a call; the
/// replay makes no operation for them, so they have no predicted side.
const MARKERS: [&str; 3] = ["init", "finalize", "comm_known"];

/// A measured and a predicted quantity, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    /// What the traced run measured.
    pub measured: f64,
    /// What the replay predicted.
    pub predicted: f64,
}

impl Pair {
    /// ln(predicted / measured), when both are positive (else there is no ratio).
    pub fn ln_ratio(&self) -> Option<f64> {
        (self.measured > 0.0 && self.predicted > 0.0).then(|| (self.predicted / self.measured).ln())
    }

    /// |ln(predicted / measured)|: 0.05 is 5 % off either way, 0.69 a factor of two.
    pub fn error(&self) -> Option<f64> {
        self.ln_ratio().map(f64::abs)
    }
}

/// One call type over all ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRow {
    /// The call as the TIT trace names it (`send`, `allreduce`, `compute`).
    pub name: String,
    /// Lines of the times files with this name.
    pub count: u64,
    /// Calls of this name the replay recorded (a call that made no operation is not one).
    pub predicted_count: u64,
    /// Time in these calls, summed over ranks.
    pub time: Pair,
}

/// A prediction beside a measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Measured: the last rank's entry into MPI_Finalize; predicted: the replay's makespan.
    pub makespan: Pair,
    /// Each rank's end: its entry into MPI_Finalize, and its predicted end time.
    pub ranks: Vec<Pair>,
    /// Call types, by measured time (longest first), then predicted time, then name.
    pub calls: Vec<CallRow>,
}

impl Comparison {
    /// Sets `report` (a replay that recorded its calls) beside `measured`, one entry per
    /// rank of the same run.
    pub fn new(report: &Report, measured: &[RankTimes]) -> Comparison {
        let secs = |ps: u128| ps as f64 / 1e12;
        let ranks: Vec<Pair> = report
            .end_times
            .iter()
            .zip(measured)
            .map(|(p, m)| Pair {
                measured: m.finalize,
                predicted: secs(p.ps() as u128),
            })
            .collect();
        let makespan = Pair {
            measured: measured.iter().map(|m| m.finalize).fold(0.0, f64::max),
            predicted: secs(report.makespan().ps() as u128),
        };
        let mut rows: BTreeMap<&str, CallRow> = BTreeMap::new();
        let row = |name: &str| CallRow {
            name: name.to_string(),
            count: 0,
            predicted_count: 0,
            time: Pair {
                measured: 0.0,
                predicted: 0.0,
            },
        };
        for m in measured {
            for (name, t) in m.calls.iter().filter(|(n, _)| !MARKERS.contains(&n.as_str())) {
                let r = rows.entry(name).or_insert_with(|| row(name));
                r.count += t.count;
                r.time.measured += t.seconds;
            }
        }
        for c in &report.calls {
            let r = rows.entry(&c.name).or_insert_with(|| row(&c.name));
            r.predicted_count += c.count;
            r.time.predicted += secs(c.total);
        }
        let mut calls: Vec<CallRow> = rows.into_values().collect();
        calls.sort_by(|a, b| {
            b.time
                .measured
                .total_cmp(&a.time.measured)
                .then(b.time.predicted.total_cmp(&a.time.predicted))
                .then(a.name.cmp(&b.name))
        });
        Comparison { makespan, ranks, calls }
    }

    /// The mean and the largest error over ranks, and the rank of the largest (ranks
    /// without an error, a zero on either side, are left out); `None` if no rank has one.
    pub fn rank_errors(&self) -> Option<(f64, f64, usize)> {
        let errors: Vec<(usize, f64)> = self
            .ranks
            .iter()
            .enumerate()
            .filter_map(|(r, p)| p.error().map(|e| (r, e)))
            .collect();
        let (worst_rank, worst) = errors
            .iter()
            .copied()
            .fold(None, |w: Option<(usize, f64)>, (r, e)| match w {
                Some((_, we)) if we >= e => w,
                _ => Some((r, e)),
            })?;
        let mean = errors.iter().map(|(_, e)| e).sum::<f64>() / errors.len() as f64;
        Some((mean, worst, worst_rank))
    }

    /// The comparison for people.
    pub fn human(&self) -> String {
        let mut s = String::new();
        let m = &self.makespan;
        let _ = writeln!(
            s,
            "makespan   measured {}   predicted {}   error {}",
            time(m.measured),
            time(m.predicted),
            error(m.error())
        );
        match m.ln_ratio() {
            Some(l) => {
                let _ = writeln!(
                    s,
                    "           predicted / measured = {:.4} (ln {l:+.4}: {})",
                    l.exp(),
                    if l > 0.0 { "over" } else { "under" }
                );
            }
            None => {
                let _ = writeln!(s, "           (no ratio: a zero makespan)");
            }
        }
        let _ = writeln!(s, "\nrank          measured end     predicted end    error");
        for (r, p) in self.ranks.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {r:<8} {:>16} {:>17} {:>8}",
                time(p.measured),
                time(p.predicted),
                error(p.error())
            );
        }
        let _ = writeln!(
            s,
            "\ncall              count  predicted count         measured        predicted    error"
        );
        for c in &self.calls {
            let _ = writeln!(
                s,
                "  {:<14} {:>7} {:>16} {:>16} {:>16} {:>8}",
                c.name,
                c.count,
                c.predicted_count,
                time(c.time.measured),
                time(c.time.predicted),
                error(c.time.error())
            );
        }
        let _ = match self.rank_errors() {
            Some((mean, worst, r)) => writeln!(
                s,
                "\nranks: mean |ln(predicted/measured)| {mean:.4}, worst {worst:.4} (rank {r})"
            ),
            None => writeln!(s, "\nranks: no rank has both ends above zero"),
        };
        s
    }

    /// The comparison as one JSON object (times in seconds; an error or ratio that does
    /// not exist is `null`).
    pub fn json(&self) -> String {
        let num = |x: Option<f64>| x.map_or_else(|| "null".to_string(), |x| format!("{x}"));
        let pair = |p: &Pair| {
            format!(
                "\"measured_s\": {}, \"predicted_s\": {}, \"error\": {}",
                p.measured,
                p.predicted,
                num(p.error())
            )
        };
        let m = &self.makespan;
        let mut s = format!(
            "{{\"makespan\": {{{}, \"ln_ratio\": {}, \"ratio\": {}}}, \"ranks\": [",
            pair(m),
            num(m.ln_ratio()),
            num(m.ln_ratio().map(f64::exp))
        );
        for (r, p) in self.ranks.iter().enumerate() {
            let sep = if r > 0 { ", " } else { "" };
            let _ = write!(s, "{sep}{{\"rank\": {r}, {}}}", pair(p));
        }
        s.push_str("], \"calls\": [");
        for (i, c) in self.calls.iter().enumerate() {
            let sep = if i > 0 { ", " } else { "" };
            let _ = write!(
                s,
                "{sep}{{\"call\": {}, \"count\": {}, \"predicted_count\": {}, {}}}",
                json_string(&c.name),
                c.count,
                c.predicted_count,
                pair(&c.time)
            );
        }
        let errors = self.rank_errors();
        let _ = writeln!(
            s,
            "], \"mean_rank_error\": {}, \"worst_rank_error\": {}, \"worst_rank\": {}}}",
            num(errors.map(|e| e.0)),
            num(errors.map(|e| e.1)),
            errors.map_or_else(|| "null".to_string(), |e| e.2.to_string())
        );
        s
    }
}

/// An error with four decimals, `-` where there is none.
fn error(e: Option<f64>) -> String {
    e.map_or_else(|| "-".to_string(), |e| format!("{e:.4}"))
}

/// Seconds in the unit that suits them, as simpi prints simulated times (a measured
/// time may be slightly negative: clocks of different hosts).
fn time(s: f64) -> String {
    let a = s.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1.0 {
        format!("{s:.6} s")
    } else if a >= 1e-3 {
        format!("{:.6} ms", s * 1e3)
    } else if a >= 1e-6 {
        format!("{:.6} us", s * 1e6)
    } else {
        format!("{:.3} ns", s * 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_need_both_sides_above_zero() {
        let p = |measured, predicted| Pair { measured, predicted };
        // ln 2 = 0.693147..., independent of the sign.
        assert!((p(1.0, 2.0).error().unwrap() - std::f64::consts::LN_2).abs() < 1e-15);
        assert!((p(2.0, 1.0).ln_ratio().unwrap() + std::f64::consts::LN_2).abs() < 1e-15);
        assert_eq!(p(0.0, 1.0).error(), None);
        assert_eq!(p(1.0, 0.0).error(), None);
        assert_eq!(error(None), "-");
    }

    #[test]
    fn times_take_the_unit_that_suits_them() {
        assert_eq!(time(0.0), "0");
        assert_eq!(time(1.5), "1.500000 s");
        assert_eq!(time(0.0062), "6.200000 ms");
        assert_eq!(time(-2e-6), "-2.000000 us");
        assert_eq!(time(5e-9), "5.000 ns");
    }
}
