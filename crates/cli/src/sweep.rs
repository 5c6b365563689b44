//! `simpi sweep`: replays a grid of settings and inputs, one table row per point, on
//! the local cores or a Dask cluster; the grid, checks, runs, table and plots are the
//! facade's (`simpi::sweep`), the Python half is `sweep_python`.

use crate::progress::Counter;
use crate::sweep_python;
use crate::{EXIT_INPUT, EXIT_USAGE};
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use simpi::sweep::{self, keys, Axis, Key, Planned, Spec, Table, KEYS};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct SweepArgs {
    /// Files replayed at every point of the grid (GOAL schedules, TIT traces); or
    /// give --pattern NAME.
    files: Vec<PathBuf>,
    /// A swept setting and its values, e.g. `--vary L=1250,2500,5000`; repeat it for a
    /// grid (the points are the product, the last --vary fastest). KEY is a flag of
    /// `simpi replay` without its dashes (`L`, `G`, `bw-factor`, `ranks`, `coll`,
    /// `model`, `platform`, ...); values as that flag takes them.
    #[arg(long, value_name = "KEY=V1,V2,...")]
    vary: Vec<String>,
    /// Points replayed at once [default: one per core].
    #[arg(long, short = 'j', value_parser = jobs, conflicts_with = "dask")]
    jobs: Option<usize>,
    /// Write the table to FILE: `.csv`, `.json`, or `.parquet` (written by Python's
    /// pandas with pyarrow) [default: CSV on standard output].
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print the table as JSON instead of CSV.
    #[arg(long, conflicts_with = "output")]
    json: bool,
    /// Write SVG plots into DIR: the makespan against each swept setting, and one
    /// point's time per rank split into compute, communication, waiting and idle.
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// Write one self-contained HTML page: what was swept, the fastest and slowest
    /// points, the plots of --plots and the table (sortable by any column).
    #[arg(long, value_name = "FILE", value_parser = simpi::html::target)]
    html: Option<PathBuf>,
    /// The point (its row in the table, from 0) whose per-rank time is plotted (by
    /// --plots and --html).
    #[arg(long, value_name = "K", default_value_t = 0)]
    breakdown_point: usize,
    /// Run the points on a Dask distributed cluster, e.g. `tcp://127.0.0.1:8786`,
    /// through Python (`python3 -m simpi.sweep_main`; SIMPI_PYTHON names another
    /// interpreter), which needs the simpi package and dask.distributed.
    #[arg(long, value_name = "ADDRESS")]
    dask: Option<String>,
    /// Show progress (points done, rate, time left, memory) on standard error from the
    /// start [default: on a terminal, once the sweep has run two seconds].
    #[arg(long)]
    progress: bool,
    #[command(flatten)]
    fixed: Fixed,
}

fn jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "{} is not a whole number of at least 1",
            simpi::values::quote(s)
        )),
    }
}

/// The settings every point has: each of `simpi replay`'s flags but its outputs, as
/// text for the facade's parsers.
struct Fixed(Vec<(&'static Key, String)>);

impl FromArgMatches for Fixed {
    fn from_arg_matches(m: &ArgMatches) -> Result<Fixed, clap::Error> {
        let mut v = Vec::new();
        for k in &KEYS {
            if k.switch {
                if m.get_flag(k.keyword) {
                    v.push((k, "true".to_string()));
                }
            } else if let Some(values) = m.get_many::<String>(k.keyword) {
                v.extend(values.map(|x| (k, x.clone())));
            }
        }
        Ok(Fixed(v))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Fixed::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for Fixed {
    fn augment_args(mut cmd: Command) -> Command {
        for k in &KEYS {
            let name = k.name();
            let mut a = Arg::new(k.keyword)
                .help(k.help)
                .help_heading("Settings of every point (simpi replay's)");
            a = match name.chars().next() {
                Some(c) if name.len() == 1 => a.short(c).value_name(name),
                _ => a.long(name),
            };
            a = if k.switch {
                a.action(ArgAction::SetTrue)
            } else if k.repeatable() {
                a.action(ArgAction::Append)
            } else {
                a.action(ArgAction::Set)
            };
            cmd = cmd.arg(a);
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Fixed::augment_args(cmd)
    }
}

/// Where the table goes.
enum Out {
    Csv(Option<PathBuf>),
    Json(Option<PathBuf>),
    Parquet(PathBuf),
}

fn usage(m: String) -> (u8, String) {
    (EXIT_USAGE, m)
}

/// `--vary KEY=V1,V2,...` as an axis.
fn axis(text: &str) -> Result<Axis, String> {
    let (name, values) = text
        .split_once('=')
        .ok_or_else(|| format!("--vary {text}: expected KEY=V1,V2,..."))?;
    let key = keys::find(name).ok_or_else(|| {
        let names: Vec<&str> = KEYS.iter().map(|k| k.name()).collect();
        format!(
            "--vary: {} is not a setting of simpi replay; the settings are {}",
            simpi::values::quote(name),
            names.join(", ")
        )
    })?;
    let values: Vec<String> = values.split(',').map(str::to_string).collect();
    if values.iter().any(String::is_empty) {
        return Err(format!("--vary {text}: an empty value"));
    }
    Ok(Axis { key, values })
}

/// The sweep the arguments describe (not yet expanded).
fn spec(a: &SweepArgs) -> Result<Spec, String> {
    let grid = a.vary.iter().map(|v| axis(v)).collect::<Result<Vec<_>, _>>()?;
    let spec = Spec {
        grid,
        inputs: a.files.clone(),
        fixed: a.fixed.0.clone(),
    };
    let pattern =
        spec.grid.iter().any(|x| x.key.name() == "pattern") || spec.fixed.iter().any(|(k, _)| k.name() == "pattern");
    match (spec.inputs.is_empty(), pattern) {
        (false, true) => Err("give input files or --pattern, not both".into()),
        (true, false) => Err("nothing to sweep: give input files or --pattern NAME".into()),
        _ => Ok(spec),
    }
}

/// A fixed `-o` that looks like a table file: LogGOPS's `-o` was meant as an output.
fn hint(msg: String, spec_fixed: &[(&'static Key, String)]) -> String {
    let looks_like_file = spec_fixed
        .iter()
        .any(|(k, v)| k.flag == "-o" && [".csv", ".json", ".parquet"].iter().any(|e| v.ends_with(e)));
    if looks_like_file {
        format!("{msg} (-o is LogGOPS's overhead o, as in simpi replay: write the table with --output FILE)")
    } else {
        msg
    }
}

fn out_of(a: &SweepArgs) -> Result<Out, String> {
    let Some(path) = &a.output else {
        return Ok(if a.json { Out::Json(None) } else { Out::Csv(None) });
    };
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => Ok(Out::Csv(Some(path.clone()))),
        Some("json") => Ok(Out::Json(Some(path.clone()))),
        Some("parquet") => Ok(Out::Parquet(path.clone())),
        _ => Err(format!(
            "--output {}: the table is written as .csv, .json or .parquet",
            path.display()
        )),
    }
}

pub fn run(a: SweepArgs) -> Result<(), (u8, String)> {
    let spec = spec(&a).map_err(usage)?;
    let planned = spec.points().map_err(|m| usage(hint(m, &spec.fixed)))?;
    let out = out_of(&a).map_err(usage)?;
    if a.breakdown_point >= planned.len() {
        return Err(usage(format!(
            "--breakdown-point {}: the sweep has {} points (0 to {})",
            a.breakdown_point,
            planned.len(),
            planned.len() - 1
        )));
    }
    // The Python package, which runs the points on Dask, has no noise settings yet.
    let noisy = |k: &Key| k.name() == "noise" || k.name() == "noise-cosched" || k.name() == "seed";
    if a.dask.is_some() && (spec.grid.iter().any(|x| noisy(x.key)) || spec.fixed.iter().any(|(k, _)| noisy(k))) {
        return Err(usage(
            "--dask runs the points through the Python package, which has no --noise, --noise-cosched or --seed yet"
                .into(),
        ));
    }
    // Before a long sweep, not after it.
    if matches!(out, Out::Parquet(_)) {
        sweep_python::check("parquet")?;
    }
    let table = match &a.dask {
        Some(address) => sweep_python::run_on_dask(&spec, &planned, address)?,
        None => {
            let threads = a
                .jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let counter = Counter::new(a.progress, planned.len(), "points");
            let table = sweep::run_watched(&spec, &planned, threads, &|| counter.tick());
            counter.finish();
            table.map_err(|e| (e.failure.kind.exit_code(), e.to_string()))?
        }
    };
    for w in &table.warnings {
        eprintln!("simpi sweep: warning: {w}");
    }
    // Files first: a reader of standard output that stops early ends the process.
    if a.plots.is_some() || a.html.is_some() {
        let drawn = draw(&spec, &planned[a.breakdown_point], &table)?;
        if let Some(dir) = &a.plots {
            write_plots(&drawn, dir)?;
        }
        if let Some(path) = &a.html {
            write_html(&spec, &planned[a.breakdown_point], &table, &drawn, path)?;
        }
    }
    write_table(&table, &out)
}

/// The sweep's plots: the makespan against each swept setting, and the breakdown of
/// one point.
struct Drawn {
    makespan: Vec<sweep::plot::Plot>,
    breakdown: sweep::plot::Plot,
}

fn create(path: &Path) -> Result<std::io::BufWriter<std::fs::File>, (u8, String)> {
    std::fs::File::create(path)
        .map(std::io::BufWriter::new)
        .map_err(|e| (EXIT_INPUT, format!("{}: cannot create: {e}", path.display())))
}

/// Draws the makespan plots of `table` and the breakdown of `point` (replayed again,
/// recording every operation).
fn draw(spec: &Spec, point: &Planned, table: &Table) -> Result<Drawn, (u8, String)> {
    let b = sweep::breakdown(spec, point).map_err(|e| (e.failure.kind.exit_code(), e.to_string()))?;
    let title = format!("time per rank at point {}", point.index);
    Ok(Drawn {
        makespan: sweep::plot::makespan_plots(table),
        breakdown: sweep::plot::Plot {
            file_name: format!("breakdown-point-{}.svg", point.index),
            svg: sweep::plot::breakdown_plot(&b, &title, &spec.describe(point)),
        },
    })
}

/// Writes `text` to `path`.
fn write_file(path: &Path, text: &str) -> Result<(), (u8, String)> {
    let mut f = create(path)?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.flush())
        .map_err(|e| (EXIT_INPUT, format!("{}: {e}", path.display())))
}

/// Writes every plot into `dir` as an SVG file.
fn write_plots(drawn: &Drawn, dir: &Path) -> Result<(), (u8, String)> {
    std::fs::create_dir_all(dir).map_err(|e| (EXIT_INPUT, format!("{}: cannot create: {e}", dir.display())))?;
    for p in drawn.makespan.iter().chain([&drawn.breakdown]) {
        write_file(&dir.join(&p.file_name), &p.svg)?;
    }
    Ok(())
}

/// Writes the sweep's HTML page.
fn write_html(spec: &Spec, point: &Planned, table: &Table, drawn: &Drawn, path: &Path) -> Result<(), (u8, String)> {
    let title = if spec.inputs.is_empty() {
        // A sweep without input files has a pattern, fixed or swept.
        let fixed = spec
            .fixed
            .iter()
            .find(|(k, _)| k.name() == "pattern")
            .map(|(_, v)| v.clone());
        let swept = || {
            spec.grid
                .iter()
                .find(|x| x.key.name() == "pattern")
                .map(|x| x.values.join(", "))
        };
        format!("pattern {}", fixed.or_else(swept).unwrap_or_default())
    } else {
        let names: Vec<String> = spec.inputs.iter().map(|p| p.display().to_string()).collect();
        names.join(", ")
    };
    let info = simpi::html::SweepInfo {
        title,
        axes: spec
            .grid
            .iter()
            .map(|x| (x.key.name().to_string(), x.values.clone()))
            .collect(),
        fixed: spec.fixed.iter().map(|(k, v)| format!("{}={v}", k.name())).collect(),
        breakdown_point: spec.describe(point),
    };
    let page = simpi::html::sweep_page(table, &drawn.makespan, &drawn.breakdown.svg, &info);
    write_file(path, &page.render())
}

fn write_table(table: &Table, out: &Out) -> Result<(), (u8, String)> {
    let io = |what: &str| {
        let what = what.to_string();
        move |e: std::io::Error| (EXIT_INPUT, format!("writing {what}: {e}"))
    };
    match out {
        Out::Parquet(path) => sweep_python::write_parquet(table, path),
        Out::Csv(Some(path)) | Out::Json(Some(path)) => {
            let shown = path.display().to_string();
            let mut f = create(path)?;
            match out {
                Out::Csv(_) => table.write_csv(&mut f),
                _ => table.write_json(&mut f),
            }
            .and_then(|()| f.flush())
            .map_err(io(&shown))
        }
        Out::Csv(None) | Out::Json(None) => {
            let stdout = std::io::stdout();
            let mut o = std::io::BufWriter::new(stdout.lock());
            match out {
                Out::Csv(_) => table.write_csv(&mut o),
                _ => table.write_json(&mut o),
            }
            .and_then(|()| o.flush())
            .map_err(io("output"))
        }
    }
}
