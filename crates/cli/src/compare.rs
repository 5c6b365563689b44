//! `simpi compare DIR [model options]`: replays a trace directory written by simpi's
//! tracer with `simpi replay`'s settings (the same flags, checked the same way) and sets
//! the prediction beside the times the traced run measured (`rank-<r>.times`).

use crate::comparison::Comparison;
use crate::replay::{self, ReplayArgs};
use crate::{given, EXIT_INPUT, EXIT_STALL, EXIT_USAGE};
use clap::{Arg, ArgMatches, Args};
use simpi::Format;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `simpi compare`: `simpi replay`'s, the input being a trace directory.
#[derive(Args)]
#[command(mut_args(for_compare))]
pub struct CompareArgs {
    #[command(flatten)]
    replay: ReplayArgs,
}

/// Flags of `simpi replay` about other inputs or outputs than a comparison's, by clap id
/// and as typed: hidden from `simpi compare --help`, refused if given.
const REFUSED: [(&str, &str); 15] = [
    ("pattern", "--pattern"),
    ("ranks", "--ranks"),
    ("bytes", "--bytes"),
    ("iterations", "--iterations"),
    ("compute", "--compute"),
    ("periodic", "--periodic"),
    ("input", "--input"),
    ("report", "--report"),
    ("timeline", "--timeline"),
    ("timeline_ranks", "--timeline-ranks"),
    ("timeline_window", "--timeline-window"),
    ("html", "--html"),
    ("format", "--format"),
    ("replications", "--replications"),
    ("jobs", "--jobs"),
];

/// `simpi replay`'s arguments as `simpi compare` shows them.
fn for_compare(a: Arg) -> Arg {
    match a.get_id().as_str() {
        "file" => a.value_name("DIR").required(true).help(
            "The trace directory written by `simpi trace -o DIR` or `simpi testbed --trace DIR` \
             (or its index.txt): the TIT trace to replay and the rank-<r>.times files it measured",
        ),
        "json" => a.help(
            "Print one JSON object instead: makespan, ranks and calls, each with measured_s, \
             predicted_s and error (null where either side is zero)",
        ),
        id if REFUSED.iter().any(|(r, _)| *r == id) => a.hide(true),
        _ => a,
    }
}

/// Runs `simpi compare`.
pub fn run(mut c: CompareArgs, m: &ArgMatches) -> Result<(), (u8, String)> {
    if let Some((_, flag)) = REFUSED.iter().find(|(id, _)| given(m, id)) {
        return Err((
            EXIT_USAGE,
            format!("{flag} is an option of simpi replay: simpi compare replays a trace directory once and prints the comparison"),
        ));
    }
    let Some(given_path) = c.replay.file.clone() else {
        return Err((EXIT_USAGE, "give the trace directory to compare".into()));
    };
    if given_path == Path::new("-") {
        return Err((
            EXIT_USAGE,
            "simpi compare reads a trace directory, not standard input".into(),
        ));
    }
    let (dir, index) = trace_files(&given_path)?;
    c.replay.file = Some(index.clone());
    let mut s = replay::settings(&c.replay, m);
    s.source = Some(index);
    s.format = Some(Format::Tit);
    s.check(replay::NAMING).map_err(|msg| (EXIT_USAGE, msg))?;
    let Some(report) = replay::simulate_once(&c.replay, &s, true)? else {
        // Only replications print instead of returning a run, and they are refused.
        return Err((EXIT_STALL, "the replay gave no single run to compare".into()));
    };
    let measured = simpi_tracer::times::read_times(&dir, report.end_times.len() as u32)
        .map_err(|e| (EXIT_INPUT, e.to_string()))?;
    let comparison = Comparison::new(&report, &measured);
    let text = if c.replay.json {
        comparison.json()
    } else {
        comparison.human()
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let io = |e: std::io::Error| (EXIT_INPUT, format!("writing output: {e}"));
    out.write_all(text.as_bytes()).map_err(io)?;
    for w in &report.warnings {
        eprintln!("simpi: warning: {w}");
    }
    out.flush().map_err(io)
}

/// The trace directory and its index, from either.
fn trace_files(path: &Path) -> Result<(PathBuf, PathBuf), (u8, String)> {
    let (dir, index) = if path.is_dir() {
        (path.to_path_buf(), path.join("index.txt"))
    } else {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (dir, path.to_path_buf())
    };
    if !index.is_file() {
        return Err((
            EXIT_INPUT,
            format!(
                "{}: no such file: give a directory written by `simpi trace -o DIR` or `simpi testbed --trace DIR`",
                index.display()
            ),
        ));
    }
    Ok((dir, index))
}
