//! Chrome trace-event JSON (Perfetto, chrome://tracing): a process per rank, a thread
//! per lane, a complete event (`X`) per span with its kind and, when known, its message's
//! bytes, peer and tag; a flow (`s` at the send, `f` at the receive) per matched message.
//! The busiest links' use over time, when the run kept it, becomes counters of a
//! "network" process after the ranks: per link, the fraction of each bin spent sending
//! (`busy`) and the packets held at its receiving end (`queue`), at each bin's start.
//! Times are microseconds, written exactly (picoseconds are six decimals).

use super::{clean, View};
use std::io::{self, Write};

/// Writes `v` as a Chrome trace-event JSON document, one event per line, and flushes `w`.
pub(super) fn write<W: Write>(mut w: W, v: &View<'_>) -> io::Result<()> {
    let t = v.t;
    w.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")?;
    let mut first = true;
    let mut next = |w: &mut W| -> io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        first = false;
        Ok(())
    };
    for &r in &v.ranks {
        next(&mut w)?;
        write!(
            w,
            "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{r},\"args\":{{\"name\":\"rank {r}\"}}}}"
        )?;
        next(&mut w)?;
        write!(
            w,
            "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{r},\"args\":{{\"sort_index\":{r}}}}}"
        )?;
        for l in 0..v.lanes[r as usize] {
            next(&mut w)?;
            write!(
                w,
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{r},\"tid\":{l},\"args\":{{\"name\":\"lane {l}\"}}}}"
            )?;
            next(&mut w)?;
            write!(
                w,
                "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{r},\"tid\":{l},\"args\":{{\"sort_index\":{l}}}}}"
            )?;
        }
    }
    for &i in &v.kept {
        let s = &t.spans[i];
        let kind = t.kind(i);
        next(&mut w)?;
        write!(
            w,
            "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":",
            clean(&s.label, true),
            if kind == "compute" { "compute" } else { "mpi" },
            s.rank,
            v.lane[i]
        )?;
        micros(&mut w, s.start)?;
        w.write_all(b",\"dur\":")?;
        micros(&mut w, s.end.saturating_sub(s.start))?;
        write!(w, ",\"args\":{{\"kind\":\"{kind}\"")?;
        if let Some(m) = t.message(i) {
            write!(w, ",\"bytes\":{},\"peer\":{},\"tag\":{}", m.bytes, m.peer, m.tag)?;
        }
        w.write_all(b"}}")?;
    }
    // Each arrow leaves its send and reaches its receive at the middle of their spans: a
    // point strictly inside a span names it alone on its lane (see `lanes`).
    for (id, f) in v.flows.iter().enumerate() {
        for (ph, i) in [("s", f.send), ("f", f.recv)] {
            let s = &t.spans[i];
            next(&mut w)?;
            write!(
                w,
                "{{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"{ph}\",{}\"id\":{id},\"pid\":{},\"tid\":{},\"ts\":",
                if ph == "f" { "\"bp\":\"e\"," } else { "" },
                s.rank,
                v.lane[i]
            )?;
            micros(&mut w, s.start + (s.end.saturating_sub(s.start)) / 2)?;
            w.write_all(b"}")?;
        }
    }
    if !t.links.is_empty() {
        let pid = t.ranks;
        next(&mut w)?;
        write!(
            w,
            "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{pid},\"args\":{{\"name\":\"network\"}}}}"
        )?;
        for l in t.links {
            let width = l.width.ps();
            for (k, (busy, queue)) in l.busy.iter().zip(&l.queue).enumerate() {
                let start = width.saturating_mul(k as u64);
                if !v.filter.keeps_time(start, start.saturating_add(width)) {
                    continue;
                }
                next(&mut w)?;
                write!(
                    w,
                    "{{\"name\":\"{}\",\"ph\":\"C\",\"pid\":{pid},\"ts\":",
                    clean(&l.link, true)
                )?;
                micros(&mut w, start)?;
                write!(w, ",\"args\":{{\"busy\":{busy:.4},\"queue\":{queue:.4}}}}}")?;
            }
        }
    }
    w.write_all(b"\n]}\n")?;
    w.flush()
}

/// Writes `ps` picoseconds as microseconds, exactly, without trailing zeros.
fn micros<W: Write>(w: &mut W, ps: u64) -> io::Result<()> {
    let (whole, mut frac) = (ps / 1_000_000, ps % 1_000_000);
    if frac == 0 {
        return write!(w, "{whole}");
    }
    let mut digits = 6;
    while frac % 10 == 0 {
        frac /= 10;
        digits -= 1;
    }
    write!(w, "{whole}.{frac:0digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_are_exact() {
        let text = |ps: u64| {
            let mut out = Vec::new();
            micros(&mut out, ps).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(text(0), "0");
        assert_eq!(text(100_000), "0.1");
        assert_eq!(text(5_654_000), "5.654");
        assert_eq!(text(1), "0.000001");
        assert_eq!(text(12_000_000_000_000_005), "12000000000.000005");
    }
}
