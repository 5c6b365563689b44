//! Paje (ViTE, PajeNG): a container per rank holding a container per lane; each span is a
//! state pushed on its lane at its start and popped at its end. The spans of a lane never
//! overlap, so the state a `PopState` removes (the top of the lane's stack) is always the
//! span that ended. Matched messages are links from the send's lane to the receive's.
//! Times are seconds, written exactly (picoseconds are twelve decimals).

use super::{clean, View};
use std::io::{self, Write};

/// The event definitions of the Paje generic format this writer uses, by id.
const DEFINITIONS: [(&str, &[&str]); 9] = [
    (
        "PajeDefineContainerType",
        &["Alias string", "Type string", "Name string"],
    ),
    ("PajeDefineStateType", &["Alias string", "Type string", "Name string"]),
    (
        "PajeCreateContainer",
        &[
            "Time date",
            "Alias string",
            "Type string",
            "Container string",
            "Name string",
        ],
    ),
    ("PajeDestroyContainer", &["Time date", "Type string", "Name string"]),
    (
        "PajePushState",
        &["Time date", "Type string", "Container string", "Value string"],
    ),
    ("PajePopState", &["Time date", "Type string", "Container string"]),
    (
        "PajeDefineLinkType",
        &[
            "Alias string",
            "Type string",
            "StartContainerType string",
            "EndContainerType string",
            "Name string",
        ],
    ),
    (
        "PajeStartLink",
        &[
            "Time date",
            "Type string",
            "Container string",
            "Value string",
            "StartContainer string",
            "Key string",
        ],
    ),
    (
        "PajeEndLink",
        &[
            "Time date",
            "Type string",
            "Container string",
            "Value string",
            "EndContainer string",
            "Key string",
        ],
    ),
];

/// What happens at an instant of the trace.
#[derive(Copy, Clone)]
enum Event {
    /// Span `i` starts.
    Push(usize),
    /// Span `i` ends.
    Pop(usize),
    /// Flow `k` leaves its send.
    LinkStart(usize),
    /// Flow `k` reaches its receive.
    LinkEnd(usize),
}

/// Writes `v` as a Paje trace and flushes `w`.
pub(super) fn write<W: Write>(mut w: W, v: &View<'_>) -> io::Result<()> {
    let t = v.t;
    for (id, (name, fields)) in DEFINITIONS.iter().enumerate() {
        writeln!(w, "%EventDef {name} {id}")?;
        for f in *fields {
            writeln!(w, "%       {f}")?;
        }
        writeln!(w, "%EndEventDef")?;
    }
    writeln!(w, "0 CT_Program 0 \"Program\"")?;
    writeln!(w, "0 CT_Rank CT_Program \"Rank\"")?;
    writeln!(w, "0 CT_Lane CT_Rank \"Lane\"")?;
    writeln!(w, "1 ST_Call CT_Lane \"MPI call\"")?;
    writeln!(w, "6 LT_Message CT_Program CT_Lane CT_Lane \"Message\"")?;
    writeln!(w, "2 0.000000000000 C_Program CT_Program 0 \"simpi\"")?;
    for &r in &v.ranks {
        writeln!(w, "2 0.000000000000 C_{r} CT_Rank C_Program \"rank {r}\"")?;
        for l in 0..v.lanes[r as usize] {
            writeln!(w, "2 0.000000000000 C_{r}_{l} CT_Lane C_{r} \"rank {r} lane {l}\"")?;
        }
    }
    // A lane's events are listed in its order (push, pop, push, ...: its spans follow
    // each other), then all of them sorted by time with a stable sort, which keeps that
    // order at equal times; links come after the states of their instant.
    let mut events: Vec<(u64, Event)> = Vec::with_capacity(2 * (v.kept.len() + v.flows.len()));
    for &i in &v.kept {
        let s = &t.spans[i];
        events.push((s.start, Event::Push(i)));
        events.push((s.end.max(s.start), Event::Pop(i)));
    }
    for (k, f) in v.flows.iter().enumerate() {
        events.push((t.spans[f.send].start, Event::LinkStart(k)));
    }
    for (k, f) in v.flows.iter().enumerate() {
        // A receive ends after its message left; max() keeps a link from going back.
        let at = t.spans[f.recv].end.max(t.spans[f.send].start);
        events.push((at, Event::LinkEnd(k)));
    }
    events.sort_by_key(|&(at, _)| at);
    let lane = |i: usize| (t.spans[i].rank, v.lane[i]);
    for &(at, e) in &events {
        match e {
            Event::Push(i) => {
                let (r, l) = lane(i);
                writeln!(
                    w,
                    "4 {} ST_Call C_{r}_{l} \"{}\"",
                    Seconds(at),
                    clean(&t.spans[i].label, false)
                )?;
            }
            Event::Pop(i) => {
                let (r, l) = lane(i);
                writeln!(w, "5 {} ST_Call C_{r}_{l}", Seconds(at))?;
            }
            Event::LinkStart(k) => {
                let (r, l) = lane(v.flows[k].send);
                writeln!(w, "7 {} LT_Message C_Program \"message\" C_{r}_{l} m{k}", Seconds(at))?;
            }
            Event::LinkEnd(k) => {
                let (r, l) = lane(v.flows[k].recv);
                writeln!(w, "8 {} LT_Message C_Program \"message\" C_{r}_{l} m{k}", Seconds(at))?;
            }
        }
    }
    let end = Seconds(events.last().map_or(0, |&(at, _)| at));
    for &r in &v.ranks {
        for l in 0..v.lanes[r as usize] {
            writeln!(w, "3 {end} CT_Lane C_{r}_{l}")?;
        }
        writeln!(w, "3 {end} CT_Rank C_{r}")?;
    }
    writeln!(w, "3 {end} CT_Program C_Program")?;
    w.flush()
}

/// Picoseconds shown as seconds with twelve decimals (exact).
struct Seconds(u64);

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const PS: u64 = 1_000_000_000_000;
        write!(f, "{}.{:012}", self.0 / PS, self.0 % PS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact() {
        assert_eq!(Seconds(5_654_000).to_string(), "0.000005654000");
        assert_eq!(Seconds(u64::MAX).to_string(), "18446744.073709551615");
    }
}
