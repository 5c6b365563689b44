//! The critical path ([`crate::critical`]): which ranks and messages set the makespan,
//! as a short account, the ranks it spends most time on, and its steps.

use super::{escape, time, Section};
use crate::critical::{Link, Step};
use crate::Report;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Steps listed at each end of a longer path (the middle is summarised).
const LISTED: usize = 100;
/// Ranks named in the account before "...".
const NAMED: usize = 16;
/// Ranks in the table of time on the path.
const TOP: usize = 10;

/// The critical-path section.
pub(super) struct CriticalPath<'a> {
    pub(super) report: &'a Report,
}

/// Where each step enters the path: its start, or the end of the step before when that
/// is later (a receive posted early joins the path when its message leaves).
pub(super) fn entries(steps: &[Step]) -> Vec<u64> {
    let mut prev_end = 0;
    steps
        .iter()
        .map(|s| {
            let at = s.start.max(prev_end).min(s.end);
            prev_end = s.end;
            at
        })
        .collect()
}

/// How step `i` follows the step before it, for people.
fn how(steps: &[Step], i: usize) -> String {
    let prev = i.checked_sub(1).map(|p| steps[p].rank);
    match (steps[i].link, prev) {
        (Link::Message { bytes }, Some(p)) => format!("after a message of {bytes} B from rank {p}"),
        (Link::Posted, Some(p)) => format!("once rank {p} posted the receive"),
        (Link::Start, _) | (_, None) => "start".to_string(),
        (Link::Rank, Some(_)) => String::new(),
    }
}

impl Section for CriticalPath<'_> {
    fn id(&self) -> &str {
        "critical"
    }

    fn title(&self) -> &str {
        "Critical path"
    }

    fn body(&self, out: &mut String) {
        let steps = &self.report.critical;
        if steps.is_empty() {
            out.push_str("<p class=\"note\">The run recorded no operations to follow.</p>\n");
            return;
        }
        let entered = entries(steps);
        let mut per_rank: BTreeMap<u32, (u64, usize)> = BTreeMap::new();
        for (s, &at) in steps.iter().zip(&entered) {
            let e = per_rank.entry(s.rank).or_default();
            e.0 += s.end - at;
            e.1 += 1;
        }
        let messages = steps.iter().filter(|s| matches!(s.link, Link::Message { .. })).count();
        let postings = steps.iter().filter(|s| s.link == Link::Posted).count();
        let on_path: u64 = per_rank.values().map(|v| v.0).sum();
        let last = steps.last().expect("not empty");
        let makespan = self.report.makespan().ps();
        let mut named: Vec<String> = per_rank.keys().take(NAMED).map(u32::to_string).collect();
        if per_rank.len() > NAMED {
            named.push("...".into());
        }
        let _ = writeln!(
            out,
            "<p id=\"critical-summary\">Walking back from rank {} ({}), the path that sets the \
             makespan has {} step{} on {} rank{} (<span id=\"critical-ranks\">{}</span>) and crosses {} \
             message{}{}. Its steps cover {} of the makespan, {}{}.</p>",
            last.rank,
            if self.report.end_times.iter().filter(|t| t.ps() == makespan).count() > 1 {
                "the lowest of the ranks that end last"
            } else {
                "it ends last"
            },
            steps.len(),
            if steps.len() == 1 { "" } else { "s" },
            per_rank.len(),
            if per_rank.len() == 1 { "" } else { "s" },
            named.join(", "),
            messages,
            if messages == 1 { "" } else { "s" },
            if postings > 0 {
                format!(" and waits {postings} time(s) for a receive to be posted")
            } else {
                String::new()
            },
            time(on_path),
            time(makespan),
            if on_path < makespan {
                format!(
                    "; the other {} are gaps between them that no recorded operation accounts for",
                    time(makespan - on_path)
                )
            } else {
                String::new()
            },
        );
        if last.end < makespan {
            let _ = writeln!(
                out,
                "<p class=\"note\">Rank {}'s last recorded operation ends at {}: the model keeps the rank busy \
                 until {} after it (LogGOPS takes in a message on the rank's CPU, for example).</p>",
                last.rank,
                time(last.end),
                time(makespan)
            );
        }
        let mut top: Vec<(u32, u64, usize)> = per_rank.iter().map(|(&r, &(t, n))| (r, t, n)).collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out.push_str(
            "<table id=\"critical-ranks-table\" class=\"numbers\">\n<thead><tr><th>rank</th><th>time on the path</th>\
             <th>steps</th></tr></thead>\n<tbody>\n",
        );
        for (r, t, n) in top.iter().take(TOP) {
            let _ = writeln!(out, "<tr><td>{r}</td><td>{}</td><td>{n}</td></tr>", time(*t));
        }
        if top.len() > TOP {
            let _ = writeln!(
                out,
                "<tr><td colspan=\"3\" class=\"note\">and {} more ranks</td></tr>",
                top.len() - TOP
            );
        }
        out.push_str("</tbody>\n</table>\n");
        out.push_str(
            "<p class=\"note\">The steps, earliest first; each starts where the one before it ends, unless its \
             own rank held it back longer. Click a step to see it in the timeline.</p>\n<ol id=\"critical-steps\">\n",
        );
        let n = steps.len();
        for i in 0..n {
            if n > 2 * LISTED && i == LISTED {
                let _ = writeln!(
                    out,
                    "<li class=\"gap\" value=\"{}\">... {} steps not listed ...</li>",
                    i + 1,
                    n - 2 * LISTED
                );
            }
            if n > 2 * LISTED && (LISTED..n - LISTED).contains(&i) {
                continue;
            }
            let s = &steps[i];
            let at = entered[i];
            let how = how(steps, i);
            let _ = writeln!(
                out,
                "<li value=\"{}\" data-step=\"{i}\"><span class=\"when\">{} to {}</span> <span class=\"rank\">rank {}</span> \
                 <b>{}</b> <span class=\"dur\">({})</span>{}{}</li>",
                i + 1,
                time(at),
                time(s.end),
                s.rank,
                escape::text(&s.label),
                time(s.end - at),
                if how.is_empty() { "" } else { " <span class=\"via\">" },
                if how.is_empty() {
                    String::new()
                } else {
                    format!("{how}</span>")
                },
            );
        }
        out.push_str("</ol>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(rank: u32, start: u64, end: u64, link: Link) -> Step {
        Step {
            rank,
            span: None,
            label: "x".into(),
            start,
            end,
            link,
        }
    }

    #[test]
    fn a_step_enters_the_path_when_the_one_before_ends() {
        // A receive posted at 0 joins when the send before it ends (1500); a step that
        // starts after a gap keeps its start; an empty posting stays at its instant.
        let steps = [
            step(1, 0, 100, Link::Start),
            step(1, 100, 1600, Link::Rank),
            step(0, 0, 5654, Link::Message { bytes: 10 }),
            step(0, 6000, 6000, Link::Rank),
        ];
        assert_eq!(entries(&steps), [0, 100, 1600, 6000]);
        assert_eq!(how(&steps, 2), "after a message of 10 B from rank 1");
        assert_eq!(how(&steps, 0), "start");
        assert_eq!(how(&steps, 1), "");
    }
}
