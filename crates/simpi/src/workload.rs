//! Loading workloads: GOAL schedules, TIT, OTF2 and liballprof traces become one [`Workload`].

use crate::Error;
use simpi_kernel::TimeUnit;
use simpi_mpi::coll::{registry, Algorithm, CollSpec, Collective};
use simpi_mpi::CallRecord;
use simpi_mpi::Schedule;
use simpi_trace::schedgen::{Params, Pattern};
use simpi_trace::tit::{read_tit, TitOptions, TitTrace};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Which format an input is in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// LogGOPSim's GOAL schedule.
    Goal,
    /// SimGrid time-independent trace (or simpi's dialect of it).
    Tit,
    /// OTF2 trace (Score-P's), given by its anchor file.
    Otf2,
    /// liballprof trace (LogGOPSim's tracer), given by rank 0's file.
    Allprof,
    /// DUMPI trace (SST's), given by its `.meta` file or a rank's `.bin` file.
    Dumpi,
}

impl Format {
    /// Guesses from the file's header (OTF2) or first meaningful line.
    pub fn detect(path: &Path) -> Format {
        if simpi_trace::otf2::looks_like_otf2(path) {
            Format::Otf2
        } else if simpi_trace::allprof::looks_like_allprof(path) {
            Format::Allprof
        } else if simpi_trace::dumpi::looks_like_dumpi(path) {
            Format::Dumpi
        } else if simpi_trace::tit::looks_like_tit(path) {
            Format::Tit
        } else {
            Format::Goal
        }
    }

    /// A trace of MPI calls (whose collectives are expanded and whose tests cost), not
    /// a schedule.
    pub fn is_trace(self) -> bool {
        matches!(self, Format::Tit | Format::Otf2 | Format::Allprof | Format::Dumpi)
    }
}

/// How collectives are expanded: per-operation overrides, else a selector.
pub struct CollChoice {
    /// `--coll OP=ALGO` overrides.
    pub overrides: HashMap<Collective, &'static Algorithm>,
    /// The algorithm for everything else.
    pub select: Box<dyn Fn(&CollSpec) -> &'static Algorithm + Send + Sync>,
}

impl CollChoice {
    /// The choices of an MPI library's decision rules (`Selector::Ompi`: Open MPI 4.1's
    /// fixed rules; `Selector::Mpich`: MPICH 4's defaults), for commutative operations.
    pub fn library(sel: simpi_mpi::coll::select::Selector) -> CollChoice {
        CollChoice::new(Box::new(move |s: &CollSpec| {
            let name = sel.choose(s.coll, s.size, s, true);
            simpi_mpi::coll::find(s.coll, name).unwrap_or_else(|| crate::default_algorithm(s))
        }))
    }

    /// A choice by name: `ompi`, `mpich`, or `first` (the first registered algorithm).
    pub fn by_name(name: &str) -> Result<CollChoice, String> {
        if name == "first" {
            return Ok(CollChoice::new(Box::new(crate::default_algorithm)));
        }
        simpi_mpi::coll::select::Selector::parse(name)
            .map(CollChoice::library)
            .ok_or_else(|| format!("unknown selector '{name}': expected ompi, mpich or first"))
    }

    /// Overrides on top of `select`.
    pub fn new(select: Box<dyn Fn(&CollSpec) -> &'static Algorithm + Send + Sync>) -> CollChoice {
        CollChoice {
            overrides: HashMap::new(),
            select,
        }
    }

    /// The algorithm for a call.
    pub fn choose(&self, s: &CollSpec) -> &'static Algorithm {
        match self.overrides.get(&s.coll) {
            Some(a) => a,
            None => (self.select)(s),
        }
    }

    /// Parses `op=algo` into an override; `algo` is simpi's name or SimGrid's (both
    /// printed by `simpi list-algorithms`), simpi's winning where they clash.
    pub fn add_override(&mut self, spec: &str) -> Result<(), String> {
        use crate::values::quote;
        let (op, alg) = spec
            .split_once('=')
            .ok_or_else(|| format!("expected OP=ALGORITHM, found {}", quote(spec)))?;
        let coll = Collective::from_name(op).ok_or_else(|| {
            let names: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
            format!("unknown collective {}: expected one of {}", quote(op), names.join(", "))
        })?;
        let of_coll = || registry().into_iter().filter(|a| a.coll == coll);
        let a = of_coll()
            .find(|a| a.name == alg)
            .or_else(|| of_coll().find(|a| a.simgrid == Some(alg)))
            .ok_or_else(|| {
                let names: Vec<&str> = of_coll().map(|a| a.name).collect();
                format!(
                    "unknown {op} algorithm {}: expected one of {}",
                    quote(alg),
                    names.join(", ")
                )
            })?;
        self.overrides.insert(coll, a);
        Ok(())
    }
}

/// What loading needs to know.
#[derive(Clone, Copy)]
pub struct LoadOptions<'a> {
    /// The format (None: detect).
    pub format: Option<Format>,
    /// Time unit of GOAL schedules.
    pub unit: TimeUnit,
    /// Flop/s of rank `r`'s host (TIT `compute` and reduction costs).
    pub speed: &'a (dyn Fn(u32) -> f64 + Sync),
    /// How collectives are expanded (TIT).
    pub collectives: &'a CollChoice,
    /// Seconds an MPI_Test costs (TIT).
    pub test_cost: f64,
    /// Whether to keep a record of every MPI call of a TIT trace, which reports and
    /// timelines need ([`Workload::calls`]).
    pub calls: bool,
    /// Convert a TIT trace into a whole schedule before simulating it (to export it,
    /// or to compare), instead of reading each rank's calls as it reaches them.
    pub whole: bool,
}

/// What a workload's operations come from.
pub enum Body {
    /// A whole schedule: a GOAL file, or a trace converted at load time.
    Schedule(Schedule),
    /// A trace run live: read as ranks reach their calls, during the simulation.
    Trace,
    /// A pattern generated in the process as ranks reach their calls.
    Pattern {
        /// The pattern.
        pattern: Pattern,
        /// Its parameters (compute in `unit`s).
        params: Params,
    },
}

/// A workload ready to simulate.
pub struct Workload<'a> {
    /// Where it came from.
    pub path: PathBuf,
    /// Its file format (none for a pattern).
    pub format: Option<Format>,
    /// The GOAL time unit.
    pub unit: TimeUnit,
    /// Where its operations come from.
    pub body: Body,
    /// How it was loaded (a live trace is read with these options; none for a pattern).
    pub options: Option<LoadOptions<'a>>,
    /// The MPI calls, for traces loaded with [`LoadOptions::calls`] (a live trace's
    /// once it has run).
    pub calls: Option<Vec<CallRecord>>,
    /// Things the user should know.
    pub warnings: Vec<String>,
    /// Seconds spent loading.
    pub load_seconds: f64,
}

/// Number of ranks of the workload at `path` without loading it.
pub fn count_ranks(path: &Path, format: Option<Format>) -> Result<u32, Error> {
    match format.unwrap_or_else(|| Format::detect(path)) {
        Format::Tit => Ok(simpi_trace::tit::tit_ranks(path)?),
        Format::Otf2 => Ok(simpi_trace::otf2::otf2_ranks(path)?),
        Format::Allprof => Ok(simpi_trace::allprof::allprof_ranks(path)?),
        Format::Dumpi => Ok(simpi_trace::dumpi::dumpi_ranks(path)?),
        Format::Goal => Ok(simpi_trace::goal::declared_ranks(path)?),
    }
}

impl Workload<'_> {
    /// A pattern's workload, generated in the process as the simulation runs; compute
    /// times in `unit`.
    pub fn pattern(pattern: Pattern, params: Params, unit: TimeUnit) -> Result<Workload<'static>, Error> {
        if params.ranks == 0 || params.ranks == u32::MAX {
            return Err(Error::Setting(format!("a pattern needs 1 to {} ranks", u32::MAX - 1)));
        }
        if params.iterations == 0 {
            return Err(Error::Setting("a pattern needs at least one iteration".into()));
        }
        if params.compute.checked_mul(unit.ps_per_unit()).is_none() {
            return Err(Error::Setting(format!(
                "a compute of {} {} is longer than the simulated clock can count",
                params.compute,
                unit.name()
            )));
        }
        Ok(Workload {
            path: PathBuf::from(format!("pattern:{}", pattern.name())),
            format: None,
            unit,
            body: Body::Pattern { pattern, params },
            options: None,
            calls: None,
            warnings: Vec::new(),
            load_seconds: 0.0,
        })
    }

    /// The whole schedule, if the workload has one (GOAL, or a trace loaded with
    /// [`LoadOptions::whole`]).
    pub fn schedule(&self) -> Option<&Schedule> {
        match &self.body {
            Body::Schedule(s) => Some(s),
            Body::Trace | Body::Pattern { .. } => None,
        }
    }
}

/// What a loader gives: the body, the calls (when asked for) and warnings.
type Loaded = (Body, Option<Vec<CallRecord>>, Vec<String>);

/// A trace to read during the simulation, once its reader has counted its ranks.
fn traced<E>(ranks: Result<u32, E>) -> Result<Loaded, Error>
where
    Error: From<E>,
{
    ranks?;
    Ok((Body::Trace, None, Vec::new()))
}

/// A trace read whole into a schedule by `read`, with the load options' reader settings.
fn whole<E>(opts: &LoadOptions<'_>, read: impl FnOnce(&TitOptions<'_>) -> Result<TitTrace, E>) -> Result<Loaded, Error>
where
    Error: From<E>,
{
    let choose = |s: &CollSpec| opts.collectives.choose(s);
    let t = read(&TitOptions {
        speed: opts.speed,
        choose: &choose,
        test_cost: opts.test_cost,
        calls: opts.calls,
    })?;
    Ok((Body::Schedule(t.schedule), opts.calls.then_some(t.calls), t.warnings))
}

/// Loads the workload at `path`: a GOAL schedule is read whole; a TIT trace is opened
/// (its index and files checked), an OTF2 trace's definitions read, to be read during
/// the simulation, unless
/// [`LoadOptions::whole`] asks for a schedule now.
pub fn load<'a>(path: &Path, opts: &LoadOptions<'a>) -> Result<Workload<'a>, Error> {
    let t0 = Instant::now();
    let format = opts.format.unwrap_or_else(|| Format::detect(path));
    let (body, calls, warnings) = match format {
        Format::Goal => {
            let s = simpi_trace::read_goal_file(path, opts.unit)?;
            (Body::Schedule(s), None, Vec::new())
        }
        // A trace is checked now and read as the simulation runs, or read whole.
        Format::Tit if !opts.whole => traced(simpi_trace::tit::tit_ranks(path))?,
        Format::Allprof if !opts.whole => traced(simpi_trace::allprof::allprof_ranks(path))?,
        Format::Otf2 if !opts.whole => traced(simpi_trace::otf2::otf2_ranks(path))?,
        Format::Dumpi if !opts.whole => traced(simpi_trace::dumpi::dumpi_ranks(path))?,
        Format::Tit => whole(opts, |o| read_tit(path, o))?,
        Format::Allprof => whole(opts, |o| simpi_trace::allprof::read_allprof(path, o))?,
        Format::Otf2 => whole(opts, |o| simpi_trace::otf2::read_otf2(path, o))?,
        Format::Dumpi => whole(opts, |o| simpi_trace::dumpi::read_dumpi(path, o))?,
    };
    Ok(Workload {
        path: path.to_path_buf(),
        format: Some(format),
        unit: opts.unit,
        body,
        options: Some(*opts),
        calls,
        warnings,
        load_seconds: t0.elapsed().as_secs_f64(),
    })
}
