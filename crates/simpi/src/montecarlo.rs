//! Monte Carlo replications and their statistics. Two things draw random numbers: OS
//! noise under the LogGOPS rules (a noise trace in LogGOPSim's format, each replication
//! drawing new per-rank offsets into it from the key (seed, replication, rank)), and the
//! stochastic model (each message's time, keyed by seed, replication, pair and index).
//!
//! Replications run on threads, each thread on a copy of the workload of its own; the
//! makespans come back in replication order and each depends only on its key, so the
//! result is the same bit for bit whatever the number of threads.

use crate::replay::{simulate, Model, SimOptions};
use crate::report::Report;
use crate::sweep::pool::map_ordered_with;
use crate::workload::{Body, Workload};
use crate::Error;
use simpi_kernel::{SimTime, TimeUnit};
use simpi_mpi::noise::{HostNoise, NoiseTrace, Placement};
use simpi_net::LogGops;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;
use std::time::Instant;

/// Reads the noise trace at `path`, its times in `unit`.
pub fn read_noise(path: &Path, unit: TimeUnit) -> Result<NoiseTrace, Error> {
    Ok(simpi_trace::noise::read_noise(path, unit)?)
}

/// The noise of a run: a trace and where ranks read it.
pub struct Noise<'t> {
    /// The trace.
    pub trace: &'t NoiseTrace,
    /// Each rank from its own offset, or all from one.
    pub placement: Placement,
    /// The seed of the offsets.
    pub seed: u64,
}

/// Number of ranks of a loaded workload.
fn ranks_of(w: &Workload<'_>) -> Result<u32, Error> {
    Ok(match &w.body {
        Body::Schedule(s) => s.num_ranks(),
        Body::Pattern { params, .. } => params.ranks,
        Body::Trace => simpi_trace::tit::tit_ranks(&w.path)?,
    })
}

/// Simulates `w` under LogGOPS `params` with `noise`, its offsets those of
/// replication `replication`.
pub fn simulate_noisy(
    w: &mut Workload<'_>,
    params: LogGops,
    noise: &Noise<'_>,
    replication: u64,
    opts: SimOptions<'_>,
) -> Result<Report, Error> {
    let ranks = ranks_of(w)?;
    let grain = w.unit.ps_per_unit();
    let offsets = HostNoise::draw(noise.trace, ranks, noise.placement, grain, noise.seed, replication);
    let model = Model::NoisyLogGops {
        params,
        noise: &offsets,
    };
    simulate(w, &model, opts)
}

/// A copy of `w` to run again: a whole schedule is copied (a run changes its
/// counters); a trace is read again, a pattern made again.
fn twin<'a>(w: &Workload<'a>) -> Workload<'a> {
    Workload {
        path: w.path.clone(),
        format: w.format,
        unit: w.unit,
        body: match &w.body {
            Body::Schedule(s) => Body::Schedule(s.clone()),
            Body::Trace => Body::Trace,
            Body::Pattern { pattern, params } => Body::Pattern {
                pattern: *pattern,
                params: *params,
            },
        },
        options: w.options,
        calls: None,
        warnings: Vec::new(),
        load_seconds: 0.0,
    }
}

/// What the replications draw at random.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Draws {
    /// Each rank's offset into a noise trace, placed so.
    NoiseOffsets(Placement),
    /// Each message's time, from measured distributions (the stochastic model).
    MessageTimes,
}

/// What replications gave.
#[derive(Clone, Debug)]
pub struct Replications {
    /// The seed of the draws.
    pub seed: u64,
    /// What is drawn.
    pub draws: Draws,
    /// The makespan of each replication, in replication order.
    pub makespans: Vec<SimTime>,
    /// Ranks of the workload.
    pub ranks: usize,
    /// Operations of one replication.
    pub ops: u64,
    /// Events of one replication (the same in every one).
    pub events: u64,
    /// Threads the replications ran on.
    pub threads: usize,
    /// Wall-clock seconds: loading plus all replications.
    pub wall_seconds: f64,
    /// Things the user should know, from every replication ([`merge_warnings`]).
    pub warnings: Vec<String>,
}

/// Runs `replications` replications of `w` with `noise` on up to `threads` threads;
/// replication `i` draws its offsets from (seed, i). The first failure in replication
/// order is the error.
pub fn replicate(
    w: &Workload<'_>,
    params: LogGops,
    noise: &Noise<'_>,
    replications: u32,
    threads: usize,
    max_blocked_ranks: usize,
) -> Result<Replications, Error> {
    replicate_watched(w, params, noise, replications, threads, max_blocked_ranks, &|| {})
}

/// [`replicate`], calling `replication_done` (from the thread that ran it) as each
/// replication finishes: a progress display counts them.
pub fn replicate_watched(
    w: &Workload<'_>,
    params: LogGops,
    noise: &Noise<'_>,
    replications: u32,
    threads: usize,
    max_blocked_ranks: usize,
    replication_done: &(dyn Fn() + Sync),
) -> Result<Replications, Error> {
    let run = |copy: &mut Workload<'_>, i: u64, opts: SimOptions<'_>| simulate_noisy(copy, params, noise, i, opts);
    let plan = Plan {
        replications,
        threads,
        max_blocked_ranks,
        seed: noise.seed,
        draws: Draws::NoiseOffsets(noise.placement),
    };
    replicate_runs(w, &plan, replication_done, run)
}

/// Runs `replications` replications of `w` under the stochastic `model` (its
/// replication number is replaced by each one's) on up to `threads` threads, calling
/// `replication_done` as each finishes. Any other model is refused: it draws nothing.
pub fn replicate_model(
    w: &Workload<'_>,
    model: &Model<'_>,
    replications: u32,
    threads: usize,
    max_blocked_ranks: usize,
    replication_done: &(dyn Fn() + Sync),
) -> Result<Replications, Error> {
    let Model::Stochastic {
        distributions,
        platform,
        hosts,
        seed,
        ..
    } = model
    else {
        return Err(Error::Setting(
            "replications draw OS noise (--noise) or message times (--model stochastic); this model draws nothing"
                .into(),
        ));
    };
    let run = |copy: &mut Workload<'_>, i: u64, opts: SimOptions<'_>| {
        let m = Model::Stochastic {
            distributions,
            platform: *platform,
            hosts: hosts.clone(),
            seed: *seed,
            replication: i,
        };
        simulate(copy, &m, opts)
    };
    let plan = Plan {
        replications,
        threads,
        max_blocked_ranks,
        seed: *seed,
        draws: Draws::MessageTimes,
    };
    replicate_runs(w, &plan, replication_done, run)
}

/// How many replications, on how many threads, and what they draw.
struct Plan {
    replications: u32,
    threads: usize,
    max_blocked_ranks: usize,
    seed: u64,
    draws: Draws,
}

/// Runs `run(copy, i, options)` for every replication `i` of `plan` on threads, each
/// thread on its own copy of `w`; the makespans in replication order.
fn replicate_runs<F>(
    w: &Workload<'_>,
    plan: &Plan,
    replication_done: &(dyn Fn() + Sync),
    run: F,
) -> Result<Replications, Error>
where
    F: Fn(&mut Workload<'_>, u64, SimOptions<'_>) -> Result<Report, Error> + Sync,
{
    let started = Instant::now();
    let items: Vec<u64> = (0..plan.replications as u64).collect();
    let threads = plan.threads.clamp(1, items.len().max(1));
    let reports = map_ordered_with(
        &items,
        threads,
        || twin(w),
        |copy, &i| {
            let opts = SimOptions {
                progress: None,
                max_blocked_ranks: plan.max_blocked_ranks,
                record: false,
            };
            let r = run(copy, i, opts).map(|r| (r.makespan(), r.events, r.ops, r.end_times.len(), r.warnings));
            replication_done();
            r
        },
    )
    .map_err(|(_, e)| e)?;
    let (ranks, ops, events) = match reports.first() {
        Some((_, e, o, r, _)) => (*r, *o, *e),
        None => (0, 0, 0),
    };
    let mut makespans = Vec::with_capacity(reports.len());
    let mut each = Vec::with_capacity(reports.len());
    for (m, _, _, _, w) in reports {
        makespans.push(m);
        each.push(w);
    }
    let warnings = merge_warnings(&each);
    Ok(Replications {
        seed: plan.seed,
        draws: plan.draws,
        makespans,
        ranks,
        ops,
        events,
        threads,
        wall_seconds: w.load_seconds + started.elapsed().as_secs_f64(),
        warnings,
    })
}

/// Most replications one run may ask for: 2^20 (their results are held until all are
/// done; a billion asked for would abort on allocating them).
pub const MAX_REPLICATIONS: u32 = 1 << 20;

/// Most distinct warnings [`merge_warnings`] lists; the others are counted.
const MOST_WARNINGS: usize = 8;

/// The warnings of every replication (`each[i]`: replication `i`'s), each distinct
/// text once, in the order first seen. A text not every replication gave says which
/// did (replications draw differently: one may meet what the others do not); past
/// [`MOST_WARNINGS`] texts the rest are counted, not listed.
pub fn merge_warnings(each: &[Vec<String>]) -> Vec<String> {
    /// A distinct text: how many replications gave it, the first [`LISTED`] of them,
    /// and the last (a replication giving it twice counts once).
    struct Seen<'w> {
        text: &'w str,
        count: usize,
        first: Vec<usize>,
        last: usize,
    }
    const LISTED: usize = 5;
    // Up to 2^20 replications, each possibly with a text of its own: found by hash.
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut texts: Vec<Seen<'_>> = Vec::new();
    for (i, ws) in each.iter().enumerate() {
        for w in ws {
            let k = *index.entry(w.as_str()).or_insert_with(|| {
                texts.push(Seen {
                    text: w.as_str(),
                    count: 0,
                    first: Vec::new(),
                    last: usize::MAX,
                });
                texts.len() - 1
            });
            let seen = &mut texts[k];
            if seen.last != i {
                seen.last = i;
                seen.count += 1;
                if seen.first.len() < LISTED {
                    seen.first.push(i);
                }
            }
        }
    }
    let n = each.len();
    let mut out: Vec<String> = texts
        .iter()
        .take(MOST_WARNINGS)
        .map(|s| {
            if s.count == n {
                s.text.to_string()
            } else {
                let mut list: Vec<String> = s.first.iter().map(usize::to_string).collect();
                if s.count > LISTED {
                    list.push("...".into());
                }
                format!("{} (in {} of {n} replications: {})", s.text, s.count, list.join(", "))
            }
        })
        .collect();
    if texts.len() > MOST_WARNINGS {
        out.push(format!(
            "{} other warnings in some replications (not listed)",
            texts.len() - MOST_WARNINGS
        ));
    }
    out
}

/// Statistics of a sample of times, in picoseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Sample size.
    pub n: usize,
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation (n - 1 in the denominator; 0 for one value).
    pub sd: f64,
    /// The 95 % confidence interval of the mean, Student's t with n - 1 degrees of
    /// freedom (the mean itself at both ends for one value).
    pub ci95: (f64, f64),
    /// The median (the mean of the two middle values for an even count).
    pub median: f64,
    /// The 95th percentile, nearest rank: the ⌈0.95·n⌉-th smallest value.
    pub p95: u64,
    /// The smallest value.
    pub min: u64,
    /// The largest value.
    pub max: u64,
}

impl Stats {
    /// The statistics of `sample` (None if empty).
    pub fn of(sample: &[SimTime]) -> Option<Stats> {
        let mut v: Vec<u64> = sample.iter().map(|t| t.ps()).collect();
        v.sort_unstable();
        let n = v.len();
        let (&min, &max) = (v.first()?, v.last()?);
        // Deviations from the minimum are small integers: summed exactly, then the
        // spread is computed around their mean.
        let d_mean = v.iter().map(|&x| (x - min) as u128).sum::<u128>() as f64 / n as f64;
        let mean = min as f64 + d_mean;
        let sd = if n > 1 {
            let ss: f64 = v.iter().map(|&x| ((x - min) as f64 - d_mean).powi(2)).sum();
            (ss / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let half = if n > 1 {
            t_quantile_975(n as u64 - 1) * sd / (n as f64).sqrt()
        } else {
            0.0
        };
        let median = if n % 2 == 1 {
            v[n / 2] as f64
        } else {
            (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0
        };
        // ⌈0.95·n⌉ in integers.
        let rank = (95 * n).div_ceil(100).max(1);
        Some(Stats {
            n,
            mean,
            sd,
            ci95: (mean - half, mean + half),
            median,
            p95: v[rank - 1],
            min,
            max,
        })
    }
}

/// The 0.975 quantile of Student's t distribution with `df` degrees of freedom (so
/// ±t bounds 95 %): found by bisection on the closed form of P(|T| ≤ t) for integer
/// degrees of freedom (Abramowitz and Stegun 26.7.3 and 26.7.4); above 1000 degrees of
/// freedom, the Cornish-Fisher expansion around the normal quantile (error < 1e-9).
pub fn t_quantile_975(df: u64) -> f64 {
    assert!(df > 0, "Student's t needs at least one degree of freedom");
    if df > 1000 {
        let z = 1.959_963_984_540_054_f64;
        let nu = df as f64;
        return z + (z.powi(3) + z) / (4.0 * nu) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * nu * nu);
    }
    let (mut lo, mut hi) = (0.0f64, 1000.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_central(mid, df) < 0.95 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// P(|T| ≤ t) for Student's t with `df` degrees of freedom (A&S 26.7.3, 26.7.4).
fn t_central(t: f64, df: u64) -> f64 {
    let theta = (t / (df as f64).sqrt()).atan();
    let (s, c2) = (theta.sin(), theta.cos().powi(2));
    if df.is_multiple_of(2) {
        // sin θ · (1 + ½cos²θ + (1·3)/(2·4)cos⁴θ + … up to cos^(df-2)θ)
        let (mut term, mut sum) = (1.0, 1.0);
        for k in (2..df).step_by(2) {
            term *= (k - 1) as f64 / k as f64 * c2;
            sum += term;
        }
        s * sum
    } else {
        // (2/π)(θ + sin θ · (cos θ + ⅔cos³θ + … up to cos^(df-2)θ)); θ alone for df 1.
        let c = theta.cos();
        let mut sum = 0.0;
        if df > 1 {
            let mut term = c;
            sum = c;
            for k in (3..df).step_by(2) {
                term *= (k - 1) as f64 / k as f64 * c2;
                sum += term;
            }
        }
        std::f64::consts::FRAC_2_PI * (theta + s * sum)
    }
}

/// `x` picoseconds as a time, below zero with a minus sign (a wide interval of the mean
/// of few replications may reach below zero: shown as computed, as in the JSON).
fn signed(x: f64) -> String {
    let t = SimTime(simpi_kernel::time::round_to_u64(x.abs()));
    if x < 0.0 && t.0 > 0 {
        format!("-{t}")
    } else {
        t.to_string()
    }
}

impl Replications {
    /// The statistics of the makespans.
    pub fn stats(&self) -> Option<Stats> {
        Stats::of(&self.makespans)
    }

    /// The noise's placement, if noise is what is drawn.
    fn placement_name(&self) -> Option<&'static str> {
        match self.draws {
            Draws::NoiseOffsets(Placement::Independent) => Some("independent"),
            Draws::NoiseOffsets(Placement::Cosched) => Some("cosched"),
            Draws::MessageTimes => None,
        }
    }

    /// A short human summary.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let ps = |x: f64| SimTime(simpi_kernel::time::round_to_u64(x.max(0.0)));
        let drawn = match self.placement_name() {
            Some(p) => format!("{p} noise offsets"),
            None => "message times from the distributions".to_string(),
        };
        let _ = writeln!(
            s,
            "replications {}  (seed {}, {drawn}, {} thread(s))",
            self.makespans.len(),
            self.seed,
            self.threads
        );
        if let Some(st) = self.stats() {
            let _ = writeln!(s, "makespan     mean {}", ps(st.mean));
            if st.n > 1 {
                let _ = writeln!(
                    s,
                    "             95% interval of the mean {} to {}  (Student t, {} df)",
                    signed(st.ci95.0),
                    ps(st.ci95.1),
                    st.n - 1
                );
            }
            let _ = writeln!(
                s,
                "             median {}, 95th percentile {}",
                ps(st.median),
                SimTime(st.p95)
            );
            let _ = writeln!(s, "             min {}, max {}", SimTime(st.min), SimTime(st.max));
        }
        let _ = writeln!(s, "ranks        {}", self.ranks);
        let _ = writeln!(s, "operations   {}  (per replication)", self.ops);
        let _ = writeln!(s, "events       {}  (per replication)", self.events);
        let _ = writeln!(s, "wall time    {:.3} s", self.wall_seconds);
        for w in &self.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    }

    /// One JSON object: `replications`, `seed`, `draws` (`noise` or `message_times`),
    /// `placement` (with noise), the makespan statistics
    /// (`makespan_mean_ps`, `makespan_ci95_ps` [low, high], `makespan_sd_ps`,
    /// `makespan_median_ps`, `makespan_p95_ps`, `makespan_min_ps`, `makespan_max_ps`),
    /// `makespans_ps` (each replication's, in order), `ranks`, `events`, `wall_seconds`.
    pub fn write_json<W: Write>(&self, mut out: W) -> io::Result<()> {
        let st = self.stats();
        write!(
            out,
            "{{\"replications\": {}, \"seed\": {}",
            self.makespans.len(),
            self.seed
        )?;
        match self.placement_name() {
            Some(p) => write!(out, ", \"draws\": \"noise\", \"placement\": \"{p}\"")?,
            None => write!(out, ", \"draws\": \"message_times\"")?,
        }
        if let Some(st) = st {
            write!(
                out,
                ", \"makespan_mean_ps\": {}, \"makespan_ci95_ps\": [{}, {}], \"makespan_sd_ps\": {}, \
                 \"makespan_median_ps\": {}, \"makespan_p95_ps\": {}, \"makespan_min_ps\": {}, \"makespan_max_ps\": {}",
                json_f64(st.mean),
                json_f64(st.ci95.0),
                json_f64(st.ci95.1),
                json_f64(st.sd),
                json_f64(st.median),
                st.p95,
                st.min,
                st.max
            )?;
        }
        out.write_all(b", \"makespans_ps\": [")?;
        for (i, t) in self.makespans.iter().enumerate() {
            if i > 0 {
                out.write_all(b", ")?;
            }
            write!(out, "{}", t.ps())?;
        }
        writeln!(
            out,
            "], \"ranks\": {}, \"events\": {}, \"wall_seconds\": {:.6}}}",
            self.ranks, self.events, self.wall_seconds
        )
    }
}

/// A float as JSON: shortest round-trip digits (finite by construction here).
fn json_f64(x: f64) -> String {
    if x.is_finite() {
        format!("{x:?}")
    } else {
        "null".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95 % critical values of Student's t from published tables.
        for (df, want) in [
            (1, 12.7062),
            (2, 4.3027),
            (3, 3.1824),
            (5, 2.5706),
            (10, 2.2281),
            (30, 2.0423),
            (99, 1.9842),
            (1000, 1.9623),
            (1001, 1.9623),
            (100_000, 1.9600),
        ] {
            let got = t_quantile_975(df);
            assert!((got - want).abs() < 6e-5, "df {df}: {got} (tables: {want})");
        }
    }

    #[test]
    fn statistics_by_hand() {
        let s = |v: &[u64]| Stats::of(&v.iter().map(|&x| SimTime(x)).collect::<Vec<_>>()).unwrap();
        // 1..=4: mean 2.5, sample variance (2.25+0.25+0.25+2.25)/3 = 5/3, median 2.5,
        // p95 the 4th smallest (⌈3.8⌉ = 4); half width t(3)·sd/2 = 3.182446·1.290994/2.
        let a = s(&[4, 1, 3, 2]);
        assert_eq!((a.n, a.mean, a.median, a.p95, a.min, a.max), (4, 2.5, 2.5, 4, 1, 4));
        assert!((a.sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        let half = 3.182446 * (5.0f64 / 3.0).sqrt() / 2.0;
        assert!((a.ci95.1 - 2.5 - half).abs() < 1e-5 && (2.5 - a.ci95.0 - half).abs() < 1e-5);
        // 20 values 1..=20: p95 is the 19th smallest; median (10+11)/2.
        let b = s(&(1..=20).collect::<Vec<_>>());
        assert_eq!((b.p95, b.median), (19, 10.5));
        // One value: no spread, the interval is the value.
        let c = s(&[7]);
        assert_eq!((c.mean, c.sd, c.ci95, c.p95), (7.0, 0.0, (7.0, 7.0), 7));
        // Large values: deviations from the minimum keep the spread exact.
        let big = 1u64 << 53;
        let d = s(&[big, big + 2, big + 4]);
        assert_eq!((d.mean, d.sd, d.median), ((big + 2) as f64, 2.0, (big + 2) as f64));
        assert!(Stats::of(&[]).is_none());
    }

    #[test]
    fn an_interval_below_zero_is_printed_as_computed() {
        assert_eq!(signed(-422_182_109.65), format!("-{}", SimTime(422_182_110)));
        assert_eq!(signed(5.0), SimTime(5).to_string());
        assert_eq!(signed(-0.2), SimTime(0).to_string());
    }

    #[test]
    fn warnings_of_every_replication_are_kept_once_each() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let each = vec![w(&["a"]), w(&["a", "b"]), w(&[]), w(&["a", "b", "b"])];
        assert_eq!(
            merge_warnings(&each),
            w(&[
                "a (in 3 of 4 replications: 0, 1, 3)",
                "b (in 2 of 4 replications: 1, 3)"
            ])
        );
        let all = vec![w(&["x"]), w(&["x"])];
        assert_eq!(merge_warnings(&all), w(&["x"]));
        let many: Vec<Vec<String>> = (0..12).map(|i| vec![format!("w{i}")]).collect();
        let m = merge_warnings(&many);
        assert_eq!(m.len(), MOST_WARNINGS + 1);
        assert_eq!(m[0], "w0 (in 1 of 12 replications: 0)");
        assert_eq!(m[MOST_WARNINGS], "4 other warnings in some replications (not listed)");
        let seven: Vec<Vec<String>> = (0..8).map(|i| if i < 7 { w(&["z"]) } else { w(&[]) }).collect();
        assert_eq!(
            merge_warnings(&seven),
            w(&["z (in 7 of 8 replications: 0, 1, 2, 3, 4, ...)"])
        );
    }
}
