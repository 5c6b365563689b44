//! The summary: makespan and who finishes last, the input and the model, counts.

use super::{escape, time, RunInfo, Section};
use crate::Report;

/// The summary section.
pub(super) struct Summary<'a> {
    pub(super) report: &'a Report,
    pub(super) info: &'a RunInfo,
}

impl Section for Summary<'_> {
    fn id(&self) -> &str {
        "summary"
    }

    fn title(&self) -> &str {
        "Summary"
    }

    fn body(&self, out: &mut String) {
        let r = self.report;
        let at = r.makespan();
        let rows = [
            (
                "Makespan",
                format!(
                    "<span id=\"makespan\">{}</span> <span id=\"last-rank\">({})</span>",
                    time(at.ps()),
                    escape::text(&r.who_finishes_last(at))
                ),
            ),
            ("Input", escape::text(&self.info.input)),
            ("Model", escape::text(&self.info.model)),
            ("Ranks", r.end_times.len().to_string()),
            ("Operations", r.ops.to_string()),
            ("Events", r.events.to_string()),
            (
                "Checksum",
                format!("<code>{:016x}</code> (of the ranks' end times)", r.checksum()),
            ),
        ];
        out.push_str("<dl class=\"summary\">\n");
        for (name, value) in rows {
            out.push_str(&format!("<dt>{name}</dt><dd>{value}</dd>\n"));
        }
        out.push_str("</dl>\n");
        if !r.warnings.is_empty() {
            out.push_str("<ul class=\"warnings\">\n");
            for w in &r.warnings {
                out.push_str(&format!("<li>warning: {}</li>\n", escape::text(w)));
            }
            out.push_str("</ul>\n");
        }
    }
}
