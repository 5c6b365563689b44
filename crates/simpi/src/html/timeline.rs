//! The timeline's data: the spans of the ranks shown, each on its lane, the messages
//! between them and the critical path, cut down for big runs (the first spans of each
//! rank and every span of the critical path; the first ranks and those of the path) so
//! that the page stays small and the script draws a bounded number of shapes.

use super::{escape, label_index, path::entries, Section, PALETTE};
use crate::critical::Link;
use crate::timeline::lanes;
use crate::Report;
use std::fmt::Write as _;

/// At most this many ranks (the first), plus the ranks of the critical path.
const MAX_RANKS: usize = 1024;
/// About this many spans in all: each rank shown gets an equal share of it...
const SPAN_BUDGET: usize = 20_000;
/// ...but at least this many.
const MIN_PER_RANK: usize = 8;
/// At most this many messages (the first whose two spans are shown).
const FLOW_BUDGET: usize = 20_000;

/// The timeline section: what it shows, chosen once.
pub(super) struct TimelineSection<'a> {
    report: &'a Report,
    /// Ranks shown, ascending.
    ranks: Vec<u32>,
    /// Spans shown (indices into the report's spans), by rank, start, end.
    kept: Vec<usize>,
    /// The lane of each span (by span index) and the lanes of each rank.
    lane: Vec<u32>,
    lanes: Vec<u32>,
    /// Spans given to each rank.
    per_rank: usize,
    /// Messages shown, as positions in `kept`, and how many had both spans shown.
    flows: Vec<(usize, usize)>,
    flows_between_kept: usize,
    /// Each span's position in `kept` (`usize::MAX`: not shown).
    pos: Vec<usize>,
    /// Ranks beyond the first [`MAX_RANKS`] shown for the critical path.
    extra_ranks: usize,
}

/// Greatest common divisor.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl<'a> TimelineSection<'a> {
    /// Chooses what to show of `report`.
    pub(super) fn new(report: &'a Report) -> TimelineSection<'a> {
        let n = report.end_times.len();
        let spans = &report.spans;
        let mut shown = vec![false; n];
        for s in shown.iter_mut().take(MAX_RANKS) {
            *s = true;
        }
        let mut extra_ranks = 0;
        for st in &report.critical {
            if let Some(s) = shown.get_mut(st.rank as usize) {
                if !*s {
                    *s = true;
                    extra_ranks += 1;
                }
            }
        }
        let ranks: Vec<u32> = (0..n as u32).filter(|&r| shown[r as usize]).collect();
        let per_rank = (SPAN_BUDGET / ranks.len().max(1)).max(MIN_PER_RANK);
        // Every span of the critical path, then each rank's first `per_rank`.
        let mut take = vec![false; spans.len()];
        for st in &report.critical {
            if let Some(t) = st.span.and_then(|i| take.get_mut(i)) {
                *t = true;
            }
        }
        let mut by_rank: Vec<usize> = (0..spans.len())
            .filter(|&i| shown.get(spans[i].rank as usize) == Some(&true))
            .collect();
        by_rank.sort_unstable_by_key(|&i| (spans[i].rank, spans[i].start, spans[i].end, i));
        let mut count = 0;
        for (k, &i) in by_rank.iter().enumerate() {
            if k == 0 || spans[by_rank[k - 1]].rank != spans[i].rank {
                count = 0;
            }
            if count < per_rank {
                take[i] = true;
            }
            count += 1;
        }
        let kept: Vec<usize> = by_rank.into_iter().filter(|&i| take[i]).collect();
        let (lane, lanes) = lanes::assign(spans, &kept, n as u32);
        let mut pos = vec![usize::MAX; spans.len()];
        for (k, &i) in kept.iter().enumerate() {
            pos[i] = k;
        }
        let between: Vec<(usize, usize)> = report
            .flows
            .iter()
            .filter_map(|f| {
                let (a, b) = (*pos.get(f.send)?, *pos.get(f.recv)?);
                (a != usize::MAX && b != usize::MAX).then_some((a, b))
            })
            .collect();
        let flows_between_kept = between.len();
        let flows = between.into_iter().take(FLOW_BUDGET).collect();
        TimelineSection {
            report,
            ranks,
            kept,
            lane,
            lanes,
            per_rank,
            flows,
            flows_between_kept,
            pos,
            extra_ranks,
        }
    }

    /// What the timeline leaves out, for people.
    fn note(&self) -> String {
        let r = self.report;
        let (spans, kept) = (r.spans.len(), self.kept.len());
        let (flows, shown_flows) = (r.flows.len(), self.flows.len());
        let ranks = r.end_times.len();
        if kept == spans && shown_flows == flows && self.ranks.len() == ranks {
            return format!(
                "Showing all {spans} spans of the {ranks} ranks and all {flows} messages. The outlined \
                 spans and the red line are the critical path."
            );
        }
        let mut s = String::from("Showing ");
        if self.ranks.len() < ranks {
            let _ = write!(s, "the first {} of {ranks} ranks", self.ranks.len() - self.extra_ranks);
            if self.extra_ranks > 0 {
                let _ = write!(s, " and {} more on the critical path", self.extra_ranks);
            }
            s.push_str("; ");
        }
        let _ = write!(
            s,
            "{kept} of {spans} spans (the first {} of each rank shown, and every span of the critical path); \
             {shown_flows} of {flows} messages",
            self.per_rank
        );
        if self.flows_between_kept > shown_flows {
            let _ = write!(s, " (the first {shown_flows} between spans shown)");
        } else if shown_flows < flows {
            s.push_str(" (those between spans shown)");
        }
        s.push_str(
            ". The outlined spans and the red line are the critical path. Write a timeline (--timeline, \
             with --timeline-ranks and --timeline-window) to see everything in Perfetto or ViTE.",
        );
        s
    }
}

impl Section for TimelineSection<'_> {
    fn id(&self) -> &str {
        "timeline"
    }

    fn title(&self) -> &str {
        "Timeline"
    }

    fn body(&self, out: &mut String) {
        if self.report.spans.is_empty() {
            out.push_str("<p class=\"note\">The run recorded no spans.</p>\n");
            return;
        }
        let _ = writeln!(
            out,
            "<p class=\"note\" id=\"timeline-note\">{}</p>",
            escape::text(&self.note())
        );
        out.push_str(
            "<div class=\"controls\"><button type=\"button\" id=\"timeline-reset\">Reset view</button>\n\
             <label><input type=\"checkbox\" id=\"timeline-messages\" checked> messages</label>\n\
             <span class=\"hint\">Wheel: zoom. Drag: pan. Double-click: reset.</span>\n\
             <span id=\"timeline-range\"></span></div>\n\
             <div id=\"timeline-view\"><canvas id=\"timeline-canvas\" width=\"800\" height=\"200\"></canvas>\
             <div id=\"timeline-tip\" hidden></div></div>\n\
             <div id=\"timeline-legend\" class=\"legend\"></div>\n\
             <p class=\"note\" id=\"timeline-status\"></p>\n",
        );
    }

    /// `{"unit": ps, "makespan", "ranks": [shown], "lanes": [of each shown], "counts":
    /// [spans of each shown], "labels", "colours", "spans": [lane, label, start, end,
    /// ...] (by rank as in "counts", then start), "flows": [send, recv, ...] (positions
    /// in spans), "critical": [rank, span position or -1, entry, end, link (0 start, 1
    /// rank, 2 message, 3 posted), ...]}`, times in `unit`s.
    fn data(&self, out: &mut String) -> bool {
        let r = self.report;
        if r.spans.is_empty() {
            return false;
        }
        let entered = entries(&r.critical);
        // Times are written in units of their greatest common divisor (a LogGOPS run in
        // nanoseconds: 1000 ps), exactly and shorter.
        let mut unit = r.makespan().ps();
        for &i in &self.kept {
            unit = gcd(gcd(unit, r.spans[i].start), r.spans[i].end);
        }
        for (s, &at) in r.critical.iter().zip(&entered) {
            unit = gcd(gcd(unit, at), s.end);
        }
        let unit = unit.max(1);
        let _ = write!(
            out,
            "{{\"unit\":{unit},\"makespan\":{},\"ranks\":[",
            r.makespan().ps() / unit
        );
        for (k, rank) in self.ranks.iter().enumerate() {
            let _ = write!(out, "{}{rank}", if k > 0 { "," } else { "" });
        }
        out.push_str("],\"lanes\":[");
        for (k, &rank) in self.ranks.iter().enumerate() {
            let _ = write!(
                out,
                "{}{}",
                if k > 0 { "," } else { "" },
                self.lanes[rank as usize].max(1)
            );
        }
        out.push_str("],\"counts\":[");
        let mut counts = vec![0usize; self.ranks.len()];
        let mut k = 0;
        for &i in &self.kept {
            // `kept` and `ranks` are both ascending by rank.
            while self.ranks[k] != r.spans[i].rank {
                k += 1;
            }
            counts[k] += 1;
        }
        for (k, c) in counts.iter().enumerate() {
            let _ = write!(out, "{}{c}", if k > 0 { "," } else { "" });
        }
        out.push_str("],\"labels\":[");
        for (k, c) in r.calls.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            escape::json_string(out, &c.name);
        }
        out.push_str("],\"colours\":[");
        for (k, c) in PALETTE.iter().enumerate() {
            let _ = write!(out, "{}\"{c}\"", if k > 0 { "," } else { "" });
        }
        out.push_str("],\"spans\":[");
        let labels = label_index(r);
        for (k, &i) in self.kept.iter().enumerate() {
            let s = &r.spans[i];
            let label = labels.get(s.label.as_str()).copied().unwrap_or(r.calls.len());
            let _ = write!(
                out,
                "{}{},{label},{},{}",
                if k > 0 { "," } else { "" },
                self.lane[i],
                s.start / unit,
                s.end / unit
            );
        }
        out.push_str("],\"flows\":[");
        for (k, (a, b)) in self.flows.iter().enumerate() {
            let _ = write!(out, "{}{a},{b}", if k > 0 { "," } else { "" });
        }
        out.push_str("],\"critical\":[");
        for (k, (s, &at)) in r.critical.iter().zip(&entered).enumerate() {
            let span = match s.span.and_then(|i| self.pos.get(i)) {
                Some(&p) if p != usize::MAX => p as i64,
                _ => -1,
            };
            let link = match s.link {
                Link::Start => 0,
                Link::Rank => 1,
                Link::Message { .. } => 2,
                Link::Posted => 3,
            };
            let _ = write!(
                out,
                "{}{},{span},{},{},{link}",
                if k > 0 { "," } else { "" },
                s.rank,
                at / unit,
                s.end / unit
            );
        }
        out.push_str("]}");
        true
    }
}
