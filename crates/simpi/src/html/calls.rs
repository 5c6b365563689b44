//! The per-call table: what `--report` prints, with the mean and each call's colour in
//! the timeline.

use super::{colour, escape, time, Section};
use crate::Report;

/// The per-call section.
pub(super) struct Calls<'a> {
    pub(super) report: &'a Report,
}

/// A total over many ranks: a time while it fits the clock, else seconds.
fn total(ps: u128) -> String {
    match u64::try_from(ps) {
        Ok(ps) => time(ps),
        Err(_) => format!("{:.6} s", ps as f64 / 1e12),
    }
}

impl Section for Calls<'_> {
    fn id(&self) -> &str {
        "calls"
    }

    fn title(&self) -> &str {
        "Calls"
    }

    fn body(&self, out: &mut String) {
        let calls = &self.report.calls;
        if calls.is_empty() {
            out.push_str("<p class=\"note\">The run recorded no calls.</p>\n");
            return;
        }
        out.push_str(
            "<p class=\"note\">Time inside each MPI call (or operation, for a schedule), over all \
             ranks, longest total first.</p>\n<table id=\"calls-table\" class=\"numbers\">\n<thead><tr><th></th>\
             <th>call</th><th>count</th><th>total</th><th>mean</th><th>longest</th></tr></thead>\n<tbody>\n",
        );
        for (i, c) in calls.iter().enumerate() {
            let mean = c.total.checked_div(c.count as u128).unwrap_or(0) as u64;
            out.push_str(&format!(
                "<tr><td><span class=\"swatch\" style=\"background:{}\"></span></td><td class=\"name\">{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                colour(i),
                escape::text(&c.name),
                c.count,
                total(c.total),
                time(mean),
                time(c.max)
            ));
        }
        out.push_str("</tbody>\n</table>\n");
    }
}
