//! The part of `simpi sweep` done by the Python package (`python3 -m simpi.sweep_main`):
//! running the points on a Dask cluster through `simpi.sweep`, and writing Parquet
//! through pandas. What is handed over goes through files, not pipes, so a Python that
//! fails before reading cannot end simpi with SIGPIPE.

use crate::{EXIT_INPUT, EXIT_STALL, EXIT_USAGE};
use simpi::sweep::table::json_string;
use simpi::sweep::{Planned, Spec, Table};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The interpreter: `SIMPI_PYTHON`, else `python3`.
fn interpreter() -> String {
    std::env::var("SIMPI_PYTHON")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "python3".into())
}

/// What to install, for a message.
fn instructions(python: &str, need: &str) -> String {
    let (what, extra) = if need == "--dask" {
        ("dask.distributed", "dask")
    } else {
        ("pyarrow", "parquet")
    };
    format!(
        "{need} needs Python 3 with the simpi package and {what}: \
         `{python} -m pip install './crates/python[{extra}]'` from simpi's repository \
         (or set SIMPI_PYTHON to an interpreter that has them)"
    )
}

/// A file of this process, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn with(name: &str, contents: &[u8]) -> Result<TempFile, (u8, String)> {
        let path = std::env::temp_dir().join(format!("simpi-sweep-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).map_err(|e| (EXIT_INPUT, format!("{}: cannot write: {e}", path.display())))?;
        Ok(TempFile(path))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `python -m simpi.sweep_main ARGS` for `need` (`--dask`, `--output .parquet`);
/// its standard output on success. Its exit codes are simpi's (1 input, 2 usage,
/// 3 cannot complete); a missing interpreter or module is a usage error saying what
/// to install.
fn sweep_main(args: &[&str], need: &str) -> Result<String, (u8, String)> {
    let python = interpreter();
    let out = Command::new(&python)
        .args(["-m", "simpi.sweep_main"])
        .args(args)
        .output()
        .map_err(|e| {
            (
                EXIT_USAGE,
                format!("cannot run {python} ({e}): {}", instructions(&python, need)),
            )
        })?;
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    if out.status.success() {
        if !stderr.is_empty() {
            eprintln!("{stderr}");
        }
        return String::from_utf8(out.stdout).map_err(|_| (EXIT_STALL, "Python's table is not UTF-8".into()));
    }
    if stderr.contains("ModuleNotFoundError") || stderr.contains("No module named") {
        let last = stderr.lines().last().unwrap_or("");
        return Err((EXIT_USAGE, format!("{last}: {}", instructions(&python, need))));
    }
    let code = match out.status.code() {
        Some(c @ 1..=3) => c as u8,
        _ => EXIT_STALL,
    };
    Err((code, stderr))
}

/// Fails, saying what to install, unless Python can do `what` (`dask`, `parquet`).
pub fn check(what: &str) -> Result<(), (u8, String)> {
    let need = if what == "dask" {
        "--dask"
    } else {
        "--output FILE.parquet"
    };
    sweep_main(&["--check", what], need).map(drop)
}

/// The sweep as `simpi.sweep_main` reads it: the grid (keys in order, values as typed),
/// the input files as given (none: null) and the fixed settings, by Python keyword;
/// `coll` as a list.
fn spec_json(spec: &Spec) -> String {
    let list = |v: &mut dyn Iterator<Item = &str>| {
        let items: Vec<String> = v.map(json_string).collect();
        format!("[{}]", items.join(", "))
    };
    let grid: Vec<String> = spec
        .grid
        .iter()
        .map(|a| {
            format!(
                "{}: {}",
                json_string(a.key.keyword),
                list(&mut a.values.iter().map(String::as_str))
            )
        })
        .collect();
    let inputs = if spec.inputs.is_empty() {
        "null".to_string()
    } else {
        let shown: Vec<String> = spec.inputs.iter().map(|f| f.display().to_string()).collect();
        list(&mut shown.iter().map(String::as_str))
    };
    let mut fixed: Vec<String> = Vec::new();
    let colls: Vec<&str> = spec
        .fixed
        .iter()
        .filter(|(k, _)| k.repeatable())
        .map(|(_, v)| v.as_str())
        .collect();
    for (k, v) in spec.fixed.iter().filter(|(k, _)| !k.repeatable()) {
        fixed.push(format!("{}: {}", json_string(k.keyword), json_string(v)));
    }
    if !colls.is_empty() {
        fixed.push(format!("\"coll\": {}", list(&mut colls.into_iter())));
    }
    format!(
        "{{\"grid\": {{{}}}, \"inputs\": {inputs}, \"fixed\": {{{}}}}}\n",
        grid.join(", "),
        fixed.join(", ")
    )
}

/// Runs the sweep on the Dask cluster at `address` with `simpi.sweep` and fills the
/// table from the table it prints (which must be this sweep's, row for row).
pub fn run_on_dask(spec: &Spec, planned: &[Planned], address: &str) -> Result<Table, (u8, String)> {
    let file = TempFile::with("spec.json", spec_json(spec).as_bytes())?;
    let path = file.0.display().to_string();
    let csv = sweep_main(&["--spec", &path, "--dask", address], "--dask")?;
    let mut table = spec.table(planned);
    table.fill_from_csv(&csv).map_err(|m| {
        (
            EXIT_STALL,
            format!("the table simpi.sweep returned is not this sweep's: {m}"),
        )
    })?;
    Ok(table)
}

/// Writes the table as Parquet through pandas.
pub fn write_parquet(table: &Table, path: &Path) -> Result<(), (u8, String)> {
    let mut csv = Vec::new();
    table
        .write_csv(&mut csv)
        .map_err(|e| (EXIT_INPUT, format!("writing the table: {e}")))?;
    let file = TempFile::with("table.csv", &csv)?;
    let from = file.0.display().to_string();
    let to = path.display().to_string();
    sweep_main(&["--parquet", &from, &to], "--output FILE.parquet").map(drop)
}
