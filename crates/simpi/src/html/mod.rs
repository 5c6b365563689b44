//! The HTML reports (`simpi replay --html`, `simpi sweep --html`): one self-contained
//! page (style, script and data inlined; nothing fetched). A run's has the summary, a
//! zoomable timeline, the critical path, the time breakdown per rank and the per-call
//! table; a sweep's, its plots and its table of points.
//!
//! A page is a [`Page`] of [`Section`]s: each writes its HTML and, if the page's script
//! draws it, its data as JSON. [`report_page`] makes the sections of one run,
//! [`sweep_page`] those of a sweep (its plots and its table of points); a new kind of
//! page is new sections, with an initialiser in `report.js` for what they draw.
//!
//! Everything taken from inputs (file names, call names, the model's description) is
//! escaped ([`escape`]); big runs are cut down (ranks, spans and messages embedded are
//! capped) and the page says what it left out.

mod breakdown;
mod calls;
pub mod describe;
pub mod escape;
mod page;
mod path;
mod summary;
mod sweep;
mod timeline;

pub use page::{Page, Section};
pub use sweep::{sweep_page, SweepInfo};

use crate::Report;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;

/// What the page says about the run besides its [`Report`].
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// The input: a file name, or a pattern and its parameters.
    pub input: String,
    /// The model and its settings, for people.
    pub model: String,
}

/// A report file named by the user (clap's `value_parser`): its name must end in `.html`
/// or `.htm`, so that a page does not take the name of a timeline (`.json`, `.paje`) or
/// of standard output (`-`).
pub fn target(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("html" | "htm") if path.file_stem().is_some_and(|n| !n.is_empty()) => Ok(path),
        _ => Err(format!(
            "an HTML report is a file whose name ends in .html or .htm, not {}",
            crate::values::quote(s)
        )),
    }
}

/// The colours of the calls, by rank of their total time (then again from the start).
const PALETTE: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    "#1f77b4", "#8c564b",
];

/// The colour of the call at `i` in [`Report::calls`].
fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// The index of each call name in [`Report::calls`] (its colour).
fn label_index(report: &Report) -> HashMap<&str, usize> {
    report
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect()
}

/// `ps` as people read it (`SimTime`'s display).
fn time(ps: u64) -> String {
    crate::SimTime(ps).to_string()
}

/// The page of one run.
pub fn report_page<'a>(report: &'a Report, info: &'a RunInfo) -> Page<'a> {
    let mut page = Page::new(&info.input);
    page.push(summary::Summary { report, info });
    page.push(timeline::TimelineSection::new(report));
    page.push(path::CriticalPath { report });
    page.push(breakdown::Breakdown { report });
    page.push(calls::Calls { report });
    page
}

/// Writes the page of one run to `w` and flushes it.
pub fn write_report<W: Write>(mut w: W, report: &Report, info: &RunInfo) -> io::Result<()> {
    w.write_all(report_page(report, info).render().as_bytes())?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_files_are_html_pages() {
        assert_eq!(target("out/r.html").unwrap(), PathBuf::from("out/r.html"));
        assert!(target("R.HTM").is_ok());
        for bad in ["-", "r.json", "r", "r.html.txt", ".html", ""] {
            let e = target(bad).unwrap_err();
            assert!(e.contains(".html or .htm"), "{bad}: {e}");
        }
    }
}
