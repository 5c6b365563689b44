//! `simpi._simpi`: the native half of the Python package. It takes settings as the text
//! a user would type on the command line, runs them through the facade exactly as
//! `simpi replay` does, and hands back plain Python lists and dicts; the Python half
//! (`python/simpi/`) turns those into DataFrames and runs sweeps.

mod run;
mod settings;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use run::Failure;
use simpi::{Pattern, Report, Workload};
use std::collections::HashMap;

create_exception!(
    simpi,
    SimpiError,
    PyException,
    "Base class of the errors of a replay that are not bad settings."
);
create_exception!(
    simpi,
    InputError,
    SimpiError,
    "An input file (schedule, trace, platform, host file) is malformed or unreadable; the message names the file and line."
);
create_exception!(
    simpi,
    StallError,
    SimpiError,
    "The workload cannot complete; the message lists every blocked rank and what it waits for."
);

fn to_py(f: Failure) -> PyErr {
    match f {
        Failure::Setting(m) => PyValueError::new_err(m),
        Failure::Input(m) => InputError::new_err(m),
        Failure::Stall(m) => StallError::new_err(m),
    }
}

/// Replays `source` (a file path), or the pattern the settings name, and returns the
/// report as a dict of plain values (times in picoseconds).
#[pyfunction]
#[pyo3(signature = (source, settings, coll))]
fn replay<'py>(
    py: Python<'py>,
    source: Option<String>,
    settings: HashMap<String, String>,
    coll: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = settings::parse(source, settings, coll).map_err(PyValueError::new_err)?;
    let report = py.detach(|| run::replay(&s)).map_err(to_py)?;
    report_dict(py, &report, s.replay.time_unit.name())
}

/// Checks a pattern's settings (`pattern`, `ranks`, `bytes`, `iterations`, `compute`,
/// `periodic`, and `time_unit` for the compute) without running it.
#[pyfunction]
fn check_pattern(settings: HashMap<String, String>) -> PyResult<()> {
    let s = settings::parse(None, settings, Vec::new()).map_err(PyValueError::new_err)?;
    let p = s
        .replay
        .pattern
        .ok_or_else(|| PyValueError::new_err("pattern: a pattern needs a name"))?;
    Workload::pattern(p, s.params, s.replay.time_unit)
        .map(drop)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The patterns: (name, description) pairs.
#[pyfunction]
fn patterns() -> Vec<(&'static str, &'static str)> {
    Pattern::ALL.iter().map(|(_, n, d)| (*n, *d)).collect()
}

/// The collective algorithms: (collective, name, SimGrid's name or None, source).
#[pyfunction]
fn algorithms() -> Vec<(&'static str, &'static str, Option<&'static str>, &'static str)> {
    simpi::mpi::coll::registry()
        .into_iter()
        .map(|a| (a.coll.name(), a.name, a.simgrid, a.source))
        .collect()
}

/// The report as Python values: lists by column, times in picoseconds.
fn report_dict<'py>(py: Python<'py>, r: &Report, unit: &str) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let ends: Vec<u64> = r.end_times.iter().map(|t| t.ps()).collect();
    d.set_item("end_ps", ends)?;
    d.set_item("events", r.events)?;
    d.set_item("ops", r.ops)?;
    d.set_item("load_seconds", r.load_seconds)?;
    d.set_item("sim_seconds", r.sim_seconds)?;
    d.set_item("peak_rss_bytes", r.peak_rss_bytes)?;
    d.set_item("warnings", r.warnings.clone())?;
    d.set_item("checksum", r.checksum())?;
    d.set_item("summary", r.summary() + &r.details())?;
    d.set_item("unit", unit)?;
    if !r.breakdown.is_empty() {
        let b = PyDict::new(py);
        let col = |f: fn(&simpi::analysis::RankBreakdown) -> u64| r.breakdown.iter().map(f).collect::<Vec<u64>>();
        b.set_item("compute", col(|x| x.compute))?;
        b.set_item("comm", col(|x| x.comm))?;
        b.set_item("wait", col(|x| x.wait))?;
        b.set_item("idle", col(|x| x.idle))?;
        d.set_item("breakdown", b)?;
    } else {
        d.set_item("breakdown", py.None())?;
    }
    let calls = PyDict::new(py);
    calls.set_item("name", r.calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>())?;
    calls.set_item("count", r.calls.iter().map(|c| c.count).collect::<Vec<_>>())?;
    calls.set_item("total", r.calls.iter().map(|c| c.total).collect::<Vec<_>>())?;
    calls.set_item("max", r.calls.iter().map(|c| c.max).collect::<Vec<_>>())?;
    d.set_item("calls", calls)?;
    let spans = PyDict::new(py);
    spans.set_item("rank", r.spans.iter().map(|s| s.rank).collect::<Vec<_>>())?;
    spans.set_item("call", r.spans.iter().map(|s| s.label.as_str()).collect::<Vec<_>>())?;
    spans.set_item("start", r.spans.iter().map(|s| s.start).collect::<Vec<_>>())?;
    spans.set_item("end", r.spans.iter().map(|s| s.end).collect::<Vec<_>>())?;
    d.set_item("spans", spans)?;
    let links = PyDict::new(py);
    links.set_item("link", r.links.iter().map(|l| l.link.as_str()).collect::<Vec<_>>())?;
    links.set_item("bytes", r.links.iter().map(|l| l.bytes).collect::<Vec<_>>())?;
    links.set_item("busy", r.links.iter().map(|l| l.busy.ps()).collect::<Vec<_>>())?;
    links.set_item("packets", r.links.iter().map(|l| l.packets).collect::<Vec<_>>())?;
    links.set_item("peak_queue", r.links.iter().map(|l| l.peak_queue).collect::<Vec<_>>())?;
    links.set_item("mean_queue", r.links.iter().map(|l| l.mean_queue).collect::<Vec<_>>())?;
    d.set_item("links", links)?;
    let buckets = r.message_times.as_ref().map(|t| t.buckets()).unwrap_or_default();
    let times = PyDict::new(py);
    times.set_item("lo", buckets.iter().map(|b| b.0).collect::<Vec<_>>())?;
    times.set_item("hi", buckets.iter().map(|b| b.1).collect::<Vec<_>>())?;
    times.set_item("count", buckets.iter().map(|b| b.2).collect::<Vec<_>>())?;
    d.set_item("message_times", times)?;
    Ok(d)
}

/// The native module.
#[pymodule]
fn _simpi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(check_pattern, m)?)?;
    m.add_function(wrap_pyfunction!(patterns, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add("SimpiError", m.py().get_type::<SimpiError>())?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("StallError", m.py().get_type::<StallError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
