//! The time breakdown: compute, communication, waiting and idle (as
//! [`crate::analysis::breakdown`] counts them), averaged over the ranks, and per rank as
//! a table with a stacked bar each (drawn by the script from the data).

use super::{time, Section};
use crate::analysis::RankBreakdown;
use crate::Report;
use std::fmt::Write as _;

/// At most this many ranks get a row (the first ones).
pub(super) const MAX_ROWS: usize = 1024;

/// The breakdown section.
pub(super) struct Breakdown<'a> {
    pub(super) report: &'a Report,
}

/// A part of a rank's time: its name and where the breakdown keeps it.
type Part = (&'static str, fn(&RankBreakdown) -> u64);

/// The four parts, in the order of the bars.
const PARTS: [Part; 4] = [
    ("compute", |b| b.compute),
    ("communication", |b| b.comm),
    ("waiting", |b| b.wait),
    ("idle", |b| b.idle),
];

impl Section for Breakdown<'_> {
    fn id(&self) -> &str {
        "breakdown"
    }

    fn title(&self) -> &str {
        "Time per rank"
    }

    fn body(&self, out: &mut String) {
        let b = &self.report.breakdown;
        if b.is_empty() {
            out.push_str("<p class=\"note\">The run recorded no operation times.</p>\n");
            return;
        }
        out.push_str(
            "<p class=\"note\">Until each rank's end: computing; moving data (a send or receive whose peer \
             was ready); waiting for a peer; idle (none of these). Where they overlap, the first applies.</p>\n\
             <table id=\"breakdown-summary\" class=\"numbers\">\n<thead><tr><th></th><th>average</th><th>max</th>\
             </tr></thead>\n<tbody>\n",
        );
        let n = b.len() as u128;
        for (i, (name, f)) in PARTS.iter().enumerate() {
            // Summed in 128 bits: the ranks' times together may pass 2^64 ps.
            let avg = (b.iter().map(|x| f(x) as u128).sum::<u128>() / n) as u64;
            let max = b.iter().map(f).max().unwrap_or(0);
            let _ = writeln!(
                out,
                "<tr><td class=\"name\"><span class=\"swatch part{i}\"></span>{name}</td><td>{}</td><td>{}</td></tr>",
                time(avg),
                time(max)
            );
        }
        out.push_str("</tbody>\n</table>\n");
        if b.len() > MAX_ROWS {
            let _ = writeln!(
                out,
                "<p class=\"note\">The table shows the first {MAX_ROWS} of {} ranks.</p>",
                b.len()
            );
        }
        out.push_str(
            "<div class=\"scroll\"><table id=\"breakdown-ranks\" class=\"numbers\">\n<thead><tr><th>rank</th>\
             <th>end</th><th>compute</th><th>communication</th><th>waiting</th><th>idle</th>\
             <th class=\"barcol\">share of the makespan</th></tr></thead>\n<tbody></tbody>\n</table></div>\n",
        );
    }

    /// `{"makespan": ps, "rows": [rank, end, compute, comm, wait, idle, ...]}`.
    fn data(&self, out: &mut String) -> bool {
        let r = self.report;
        if r.breakdown.is_empty() {
            return false;
        }
        let _ = write!(out, "{{\"makespan\":{},\"rows\":[", r.makespan().ps());
        for (i, b) in r.breakdown.iter().enumerate().take(MAX_ROWS) {
            if i > 0 {
                out.push(',');
            }
            let end = r.end_times.get(i).map_or(0, |t| t.ps());
            let _ = write!(out, "{i},{end},{},{},{},{}", b.compute, b.comm, b.wait, b.idle);
        }
        out.push_str("]}");
        true
    }
}
