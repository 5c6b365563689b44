//! Timelines people can open: Chrome trace-event JSON (Perfetto, chrome://tracing) and
//! Paje (ViTE). One row per rank; collectives appear as one span over their messages.

use crate::analysis::Span;
use std::collections::BTreeSet;
use std::io::{self, Write};

/// Writes `spans` as a Chrome trace-event JSON document (times in microseconds).
pub fn write_chrome<W: Write>(mut w: W, ranks: u32, spans: &[Span]) -> io::Result<()> {
    writeln!(w, "{{\"displayTimeUnit\": \"ns\", \"traceEvents\": [")?;
    let mut first = true;
    let mut sep = |w: &mut W| -> io::Result<()> {
        if !first {
            w.write_all(b",\n")?;
        }
        first = false;
        Ok(())
    };
    sep(&mut w)?;
    write!(
        w,
        "{{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {{\"name\": \"simpi\"}}}}"
    )?;
    for r in 0..ranks {
        sep(&mut w)?;
        write!(w, "{{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": {r}, \"args\": {{\"name\": \"rank {r}\"}}}}")?;
    }
    for s in spans {
        sep(&mut w)?;
        write!(
            w,
            "{{\"name\": \"{}\", \"cat\": \"{}\", \"ph\": \"X\", \"pid\": 0, \"tid\": {}, \"ts\": {:.6}, \"dur\": {:.6}}}",
            escape(&s.label),
            if s.label == "compute" { "compute" } else { "mpi" },
            s.rank,
            s.start as f64 * 1e-6,
            (s.end - s.start) as f64 * 1e-6
        )?;
    }
    writeln!(w, "\n]}}")
}

fn escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            c if (c as u32) < 0x20 => vec![' '],
            c => vec![c],
        })
        .collect()
}

/// Writes `spans` as a Paje trace (times in seconds). Overlapping spans of one rank are
/// shown as nested states (the later one on top).
pub fn write_paje<W: Write>(mut w: W, ranks: u32, spans: &[Span]) -> io::Result<()> {
    // Event definitions (the Paje generic format).
    let defs: [(&str, u32, &[&str]); 6] = [
        (
            "PajeDefineContainerType",
            0,
            &["Alias string", "Type string", "Name string"],
        ),
        (
            "PajeDefineStateType",
            1,
            &["Alias string", "Type string", "Name string"],
        ),
        (
            "PajeCreateContainer",
            2,
            &[
                "Time date",
                "Alias string",
                "Type string",
                "Container string",
                "Name string",
            ],
        ),
        ("PajeDestroyContainer", 3, &["Time date", "Type string", "Name string"]),
        (
            "PajePushState",
            4,
            &["Time date", "Type string", "Container string", "Value string"],
        ),
        ("PajePopState", 5, &["Time date", "Type string", "Container string"]),
    ];
    for (name, id, fields) in defs {
        writeln!(w, "%EventDef {name} {id}")?;
        for f in fields {
            writeln!(w, "%       {f}")?;
        }
        writeln!(w, "%EndEventDef")?;
    }
    writeln!(w, "0 CT_Program 0 \"Program\"")?;
    writeln!(w, "0 CT_Rank CT_Program \"Rank\"")?;
    writeln!(w, "1 ST_Call CT_Rank \"MPI call\"")?;
    writeln!(w, "2 0.000000000 C_Program CT_Program 0 \"simpi\"")?;
    for r in 0..ranks {
        writeln!(w, "2 0.000000000 C_{r} CT_Rank C_Program \"rank {r}\"")?;
    }
    // Push at starts and pop at ends, in time order (ends first at equal times).
    let mut ev: Vec<(u64, u8, usize)> = Vec::with_capacity(spans.len() * 2);
    for (i, s) in spans.iter().enumerate() {
        ev.push((s.start, 1, i));
        ev.push((s.end, 0, i));
    }
    ev.sort_unstable();
    let mut open: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); ranks as usize];
    let mut end = 0u64;
    for (t, kind, i) in ev {
        let s = &spans[i];
        let secs = t as f64 * 1e-12;
        end = end.max(t);
        if kind == 1 {
            open[s.rank as usize].insert(i);
            writeln!(w, "4 {secs:.12} ST_Call C_{} \"{}\"", s.rank, escape(&s.label))?;
        } else if open[s.rank as usize].remove(&i) {
            writeln!(w, "5 {secs:.12} ST_Call C_{}", s.rank)?;
        }
    }
    let secs = end as f64 * 1e-12;
    for r in 0..ranks {
        writeln!(w, "3 {secs:.12} CT_Rank C_{r}")?;
    }
    writeln!(w, "3 {secs:.12} CT_Program C_Program")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans() -> Vec<Span> {
        vec![
            Span {
                rank: 0,
                label: "compute".into(),
                start: 0,
                end: 2_000_000,
            },
            Span {
                rank: 1,
                label: "bcast".into(),
                start: 1_000_000,
                end: 3_000_000,
            },
        ]
    }

    #[test]
    fn chrome_json_parses_and_has_every_span() {
        let mut out = Vec::new();
        write_chrome(&mut out, 2, &spans()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\"name\": \"bcast\", \"cat\": \"mpi\", \"ph\": \"X\", \"pid\": 0, \"tid\": 1, \"ts\": 1.000000, \"dur\": 2.000000"), "{text}");
        // Balanced brackets: a cheap well-formedness check (serde is not a dependency).
        assert_eq!(text.matches('{').count(), text.matches('}').count());
        assert!(text.trim_end().ends_with("]}"));
    }

    #[test]
    fn paje_pushes_and_pops_in_order() {
        let mut out = Vec::new();
        write_paje(&mut out, 2, &spans()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let body: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("4 ") || l.starts_with("5 "))
            .collect();
        assert_eq!(
            body,
            [
                "4 0.000000000000 ST_Call C_0 \"compute\"",
                "4 0.000001000000 ST_Call C_1 \"bcast\"",
                "5 0.000002000000 ST_Call C_0",
                "5 0.000003000000 ST_Call C_1"
            ]
        );
    }
}
