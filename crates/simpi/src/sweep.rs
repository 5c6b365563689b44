//! Sweeps: one replay per point of a grid of settings and inputs, one table row each.
//!
//! A [`Spec`] names the swept settings with their values ([`Axis`]), the input files
//! and the fixed settings, each by the names `simpi replay` gives them
//! ([`keys::KEYS`]). [`Spec::points`] expands it, inputs outermost, then the axes in
//! their order with the last one fastest (Python's `itertools.product`, as
//! `simpi.sweep` does), and checks every point as `simpi replay` checks its flags
//! ([`ReplaySettings::check`](crate::ReplaySettings::check)), so a bad value or a
//! setting a point would ignore is refused before anything runs, naming the point.
//! [`run`] replays the points on threads; the [`Table`] is in grid order whatever
//! the number of threads. `plot` draws it.

pub mod keys;
pub mod plot;
pub(crate) mod pool;
mod run;
pub mod svg;
pub mod table;

use crate::settings::{Naming, Syntax};
use crate::Workload;
pub use keys::{Key, Point, KEYS};
pub use run::{replay, Failure, FailureKind};
use std::path::PathBuf;
pub use table::{Row, Table};

/// How a sweep's messages name settings: by their flags, as `simpi replay` does.
pub const FLAGS: Naming = Naming {
    name: flag_of,
    syntax: Syntax::Flags,
};

/// The flag of a setting, as typed (`--report` and the other outputs, which a sweep
/// does not take, as `simpi replay` names them).
fn flag_of(s: crate::Setting) -> &'static str {
    use crate::Setting as S;
    match s {
        S::Report => "--report",
        S::OutputFormat => "--format",
        S::Json => "--json",
        S::Timeline => "--timeline",
        S::TimelineRanks => "--timeline-ranks",
        S::TimelineWindow => "--timeline-window",
        S::Replications => "--replications",
        other => KEYS
            .iter()
            .find(|k| k.setting == Some(other))
            .map_or("a setting", |k| k.flag),
    }
}

/// A swept setting and the values it takes, as typed.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The setting.
    pub key: &'static Key,
    /// Its values, in the order the table lists them.
    pub values: Vec<String>,
}

/// What a sweep runs.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    /// The swept settings, slowest first.
    pub grid: Vec<Axis>,
    /// Files replayed at every point (none: the settings name a pattern).
    pub inputs: Vec<PathBuf>,
    /// Settings every point has, as typed (only `coll` may come more than once).
    pub fixed: Vec<(&'static Key, String)>,
}

/// A point of a sweep, expanded and checked.
#[derive(Clone, Debug)]
pub struct Planned {
    /// Its place in the grid (0 first), the table's row.
    pub index: usize,
    /// Its input file as given.
    pub input: Option<PathBuf>,
    /// Its value of each swept setting, as typed.
    pub values: Vec<String>,
    /// What it replays.
    pub point: Point,
}

impl Spec {
    /// The grid's own faults: a setting swept twice, swept and fixed, fixed twice
    /// (but `coll`), an axis without values, or too many points.
    fn check_grid(&self) -> Result<(), String> {
        for (i, a) in self.grid.iter().enumerate() {
            let f = a.key.flag;
            if self.grid[..i].iter().any(|b| b.key == a.key) {
                return Err(format!("{f} is swept twice"));
            }
            if a.values.is_empty() {
                return Err(format!("{f} is swept over no value"));
            }
            if self.fixed.iter().any(|(k, _)| *k == a.key) {
                return Err(format!("{f} is both swept and fixed"));
            }
        }
        for (i, (k, _)) in self.fixed.iter().enumerate() {
            if !k.repeatable() && self.fixed[..i].iter().any(|(o, _)| o == k) {
                return Err(format!("{} is given twice", k.flag));
            }
        }
        Ok(())
    }

    /// How many points the sweep has (saturating).
    pub fn len(&self) -> usize {
        self.grid
            .iter()
            .fold(self.inputs.len().max(1), |n, a| n.saturating_mul(a.values.len()))
    }

    /// Whether the sweep has no point (an axis without values).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The empty table of the sweep: its columns, and a row per point with its input
    /// and values (makespan and events zero until run).
    pub fn table(&self, planned: &[Planned]) -> Table {
        Table {
            has_input: !self.inputs.is_empty(),
            columns: self.grid.iter().map(|a| a.key.keyword.to_string()).collect(),
            rows: planned
                .iter()
                .map(|p| Row {
                    input: p.input.as_ref().map(|f| f.display().to_string()),
                    values: p.values.clone(),
                    makespan_ps: 0,
                    events: 0,
                })
                .collect(),
            warnings: Vec::new(),
        }
    }

    /// Every point, in grid order, each checked as `simpi replay` checks its flags. A
    /// refusal names the point: `point 3 (input=a.goal, -L 5): -L: ...`.
    pub fn points(&self) -> Result<Vec<Planned>, String> {
        self.check_grid()?;
        // Each planned point holds its settings (about a kilobyte): the cap keeps a grid
        // typed too large from filling the memory before anything runs.
        const MAX_POINTS: usize = 1 << 17;
        let n = self.len();
        if n > MAX_POINTS {
            return Err(format!("the sweep has {n} points, more than {MAX_POINTS}"));
        }
        let mut base = Point::default();
        for (k, v) in &self.fixed {
            base.set(k, v)?;
        }
        let inputs: Vec<Option<&PathBuf>> = if self.inputs.is_empty() {
            vec![None]
        } else {
            self.inputs.iter().map(Some).collect()
        };
        let per_input = n / inputs.len();
        let mut out = Vec::with_capacity(n);
        for input in inputs {
            for j in 0..per_input {
                // Mixed radix, the last axis fastest.
                let mut rest = j;
                let mut pick = vec![0; self.grid.len()];
                for (a, axis) in self.grid.iter().enumerate().rev() {
                    pick[a] = rest % axis.values.len();
                    rest /= axis.values.len();
                }
                let values: Vec<String> = self.grid.iter().zip(&pick).map(|(a, &i)| a.values[i].clone()).collect();
                let mut planned = Planned {
                    index: out.len(),
                    input: input.cloned(),
                    values,
                    point: base.clone(),
                };
                planned.point.replay.source = input.cloned();
                let checked = self.set_values(&mut planned).and_then(|()| check(&planned.point));
                checked.map_err(|m| format!("{}: {m}", self.describe(&planned)))?;
                out.push(planned);
            }
        }
        Ok(out)
    }

    fn set_values(&self, p: &mut Planned) -> Result<(), String> {
        for (axis, v) in self.grid.iter().zip(&p.values) {
            p.point.set(axis.key, v)?;
        }
        Ok(())
    }

    /// A point as a message names it: `point 3 (input=a.goal, -L 5, --model flow)`.
    pub fn describe(&self, p: &Planned) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(f) = &p.input {
            parts.push(format!("input={}", f.display()));
        }
        for (a, v) in self.grid.iter().zip(&p.values) {
            parts.push(format!("{} {v}", a.key.flag));
        }
        format!("point {} ({})", p.index, parts.join(", "))
    }
}

/// The checks `simpi replay` makes before it reads anything: settings the point would
/// ignore, the collective choice, a pattern's parameters, the model's settings.
fn check(p: &Point) -> Result<(), String> {
    p.replay.check(FLAGS)?;
    p.replay.collectives(FLAGS)?;
    if let Some(pattern) = p.replay.pattern {
        Workload::pattern(pattern, p.params, p.replay.time_unit).map_err(|e| e.to_string())?;
    }
    p.replay.model_spec().map_err(|e| e.to_string())?;
    Ok(())
}

/// A point that failed, and why.
#[derive(Clone, Debug)]
pub struct PointFailure {
    /// The point as messages name it ([`Spec::describe`]).
    pub point: String,
    /// Why.
    pub failure: Failure,
}

impl std::fmt::Display for PointFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.point, self.failure.message)
    }
}

/// Runs every point on up to `threads` threads and fills the sweep's table (rows in
/// grid order). A failing point stops the sweep: the first failure in grid order is
/// returned, whatever the number of threads.
pub fn run(spec: &Spec, planned: &[Planned], threads: usize) -> Result<Table, PointFailure> {
    run_watched(spec, planned, threads, &|| {})
}

/// [`run`], calling `point_done` (from the thread that ran it) as each point finishes:
/// a progress display counts them.
pub fn run_watched(
    spec: &Spec,
    planned: &[Planned],
    threads: usize,
    point_done: &(dyn Fn() + Sync),
) -> Result<Table, PointFailure> {
    let results = pool::map_ordered(planned, threads, |p| {
        let r = replay(&p.point, false).map(|r| (r.makespan().ps(), r.events, r.warnings));
        point_done();
        r
    })
    .map_err(|(i, failure)| PointFailure {
        point: spec.describe(&planned[i]),
        failure,
    })?;
    let mut table = spec.table(planned);
    for ((row, p), (makespan_ps, events, warnings)) in table.rows.iter_mut().zip(planned).zip(results) {
        row.makespan_ps = makespan_ps;
        row.events = events;
        if !warnings.is_empty() {
            let point = spec.describe(p);
            table
                .warnings
                .extend(warnings.into_iter().map(|w| format!("{point}: {w}")));
        }
    }
    Ok(table)
}

/// The per-rank time breakdown of one point (compute, communication, waiting, idle;
/// [`crate::analysis::breakdown`]), from a replay that records every operation.
pub fn breakdown(spec: &Spec, p: &Planned) -> Result<Vec<crate::analysis::RankBreakdown>, PointFailure> {
    replay(&p.point, true)
        .map(|r| r.breakdown)
        .map_err(|failure| PointFailure {
            point: spec.describe(p),
            failure,
        })
}
