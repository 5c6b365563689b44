//! The result of a run: per-rank end times and counters, and their renderings.

use simpi_kernel::{SimTime, TimeUnit};
use std::fmt::Write as _;
use std::io::{self, Write};

/// Links the human report lists.
const HOTTEST_LINKS: usize = 5;

/// Reads one number out of a rank's breakdown.
type Field = dyn Fn(&crate::analysis::RankBreakdown) -> u64;

/// What a simulation produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Time at which each rank finished.
    pub end_times: Vec<SimTime>,
    /// Events the engine processed (LogGOPSim's count: operations plus messages).
    pub events: u64,
    /// Operations in the workload.
    pub ops: u64,
    /// Wall-clock seconds spent reading the input.
    pub load_seconds: f64,
    /// Wall-clock seconds spent simulating.
    pub sim_seconds: f64,
    /// Peak resident memory of the process so far, in bytes, if the OS tells.
    pub peak_rss_bytes: Option<u64>,
    /// Things the user should know that did not stop the run.
    pub warnings: Vec<String>,
    /// Per-rank time breakdown (when the run recorded operation times).
    pub breakdown: Vec<crate::analysis::RankBreakdown>,
    /// Per-call statistics (when recorded).
    pub calls: Vec<crate::analysis::CallStat>,
    /// The timeline's spans (when recorded).
    pub spans: Vec<crate::analysis::Span>,
    /// The message of each span, by span index (when recorded).
    pub messages: Vec<Option<crate::timeline::Message>>,
    /// Arrows from each send's span to the span of the receive it matched.
    pub flows: Vec<crate::timeline::Flow>,
    /// The critical path, earliest step first (when recorded; see [`crate::critical`]).
    pub critical: Vec<crate::critical::Step>,
    /// What each link carried, busiest first (models over a platform: flow, hybrid,
    /// packet).
    pub links: Vec<simpi_net::LinkLoad>,
    /// The distribution of messages' times from start to delivery in the network
    /// (the packet model).
    pub message_times: Option<simpi_net::Latencies>,
    /// The busiest links' use over time (the packet model), for the timeline.
    pub link_series: Vec<simpi_net::LinkSeries>,
}

/// Peak resident set size of this process (Linux `VmHWM`), if available. Read from
/// `/proc/self/status`, not `getrusage`: `ru_maxrss` carries the parent's peak across
/// fork and exec, so a replay started by a large process (a Python harness, `cargo run`)
/// would report that process's memory.
pub fn peak_rss_bytes() -> Option<u64> {
    status_kib("VmHWM:").map(|kib| kib * 1024)
}

/// Resident set size of this process now (Linux `VmRSS`), if available: what a
/// progress display shows as memory.
pub fn rss_bytes() -> Option<u64> {
    status_kib("VmRSS:").map(|kib| kib * 1024)
}

/// A `/proc/self/status` field given in kB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

impl Report {
    /// The latest end time over all ranks.
    pub fn makespan(&self) -> SimTime {
        self.end_times.iter().copied().max().unwrap_or(SimTime::ZERO)
    }

    /// Total wall-clock seconds.
    pub fn wall_seconds(&self) -> f64 {
        self.load_seconds + self.sim_seconds
    }

    /// Simulated events per wall-clock second of simulation.
    pub fn events_per_second(&self) -> f64 {
        if self.sim_seconds > 0.0 {
            self.events as f64 / self.sim_seconds
        } else {
            0.0
        }
    }

    /// Which ranks end at the makespan `at`: one, a few by number, or how many.
    pub(crate) fn who_finishes_last(&self, at: SimTime) -> String {
        let mut last = (0..self.end_times.len()).filter(|&r| self.end_times[r] == at);
        let first: Vec<usize> = last.by_ref().take(4).collect();
        let count = first.len() + last.count();
        match (count, first.as_slice()) {
            (_, []) => "no rank".into(),
            (1, [r]) => format!("rank {r} finishes last"),
            (2, [a, b]) => format!("ranks {a} and {b} finish last, together"),
            (3, [a, b, c]) => format!("ranks {a}, {b} and {c} finish last, together"),
            (n, _) if n == self.end_times.len() => format!("all {n} ranks finish together"),
            (n, [a, b, ..]) => format!("{n} ranks finish last, together: {a}, {b}, ..."),
            (n, _) => format!("{n} ranks finish last, together"),
        }
    }

    /// A short human summary.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let at = self.end_times.iter().copied().max().unwrap_or(SimTime::ZERO);
        let _ = writeln!(s, "makespan     {}  ({})", at, self.who_finishes_last(at));
        let _ = writeln!(s, "ranks        {}", self.end_times.len());
        let _ = writeln!(s, "operations   {}", self.ops);
        let _ = writeln!(s, "events       {}", self.events);
        let _ = writeln!(s, "events/s     {:.3e}", self.events_per_second());
        let _ = writeln!(
            s,
            "wall time    {:.3} s  (load {:.3} s, simulate {:.3} s)",
            self.wall_seconds(),
            self.load_seconds,
            self.sim_seconds
        );
        if let Some(b) = self.peak_rss_bytes {
            let _ = writeln!(s, "peak memory  {:.1} MiB", b as f64 / (1u64 << 20) as f64);
        }
        let _ = writeln!(s, "checksum     {:016x}  (of the per-rank end times)", self.checksum());
        for w in &self.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    }

    /// FNV-1a over the per-rank end times in picoseconds: equal checksums mean equal
    /// results, to compare runs at a glance.
    pub fn checksum(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for t in &self.end_times {
            for b in t.ps().to_le_bytes() {
                h ^= b as u64;
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        h
    }

    /// The time breakdown and the call table, for people.
    pub fn details(&self) -> String {
        let mut s = String::new();
        if !self.breakdown.is_empty() {
            let n = self.breakdown.len() as f64;
            let avg = |f: &dyn Fn(&crate::analysis::RankBreakdown) -> u64| {
                // Summed in 128 bits: the ranks' times together may pass 2^64 ps.
                SimTime((self.breakdown.iter().map(|b| f(b) as u128).sum::<u128>() as f64 / n) as u64)
            };
            let max = |f: &dyn Fn(&crate::analysis::RankBreakdown) -> u64| {
                SimTime(self.breakdown.iter().map(f).max().unwrap_or(0))
            };
            let _ = writeln!(s, "\ntime per rank      average          max");
            let rows: [(&str, &Field); 4] = [
                ("compute", &|b| b.compute),
                ("communication", &|b| b.comm),
                ("waiting", &|b| b.wait),
                ("idle", &|b| b.idle),
            ];
            for (name, f) in rows {
                let _ = writeln!(s, "  {name:<14} {:>14} {:>14}", avg(f).to_string(), max(f).to_string());
            }
        }
        if !self.links.is_empty() {
            let span = self.makespan().ps().max(1) as f64;
            // Buffer occupancy only where packets were simulated.
            let queues = self.links.iter().any(|l| l.packets > 0);
            let _ = write!(
                s,
                "\nbusiest links          busy   utilisation          bytes    packets"
            );
            let _ = writeln!(s, "{}", if queues { "  queue: peak   mean" } else { "" });
            for l in self.links.iter().take(HOTTEST_LINKS) {
                let _ = write!(
                    s,
                    "  {:<16} {:>10} {:>12.1}% {:>14} {:>10}",
                    l.link,
                    l.busy.to_string(),
                    100.0 * l.busy.ps() as f64 / span,
                    l.bytes,
                    l.packets
                );
                if queues {
                    let _ = write!(s, " {:>12} {:>6.2}", l.peak_queue, l.mean_queue);
                }
                s.push('\n');
            }
        }
        if let Some(t) = self.message_times.as_ref().filter(|t| t.count > 0) {
            let q = |f: f64| SimTime(t.quantile(f)).to_string();
            let _ = writeln!(
                s,
                "\nmessages in the network {}: mean {}, median {}, 90% {}, 99% {}, max {}",
                t.count,
                SimTime(t.mean()),
                q(0.5),
                q(0.9),
                q(0.99),
                SimTime(t.max)
            );
        }
        if !self.calls.is_empty() {
            let _ = writeln!(s, "\ncall                count          total        longest");
            for c in &self.calls {
                let _ = writeln!(
                    s,
                    "  {:<14} {:>9} {:>14} {:>14}",
                    c.name,
                    c.count,
                    match u64::try_from(c.total) {
                        Ok(ps) => SimTime(ps).to_string(),
                        // Past one clock's range: seconds, as SimTime prints them.
                        Err(_) => format!("{:.6} s", c.total as f64 / 1e12),
                    },
                    SimTime(c.max).to_string()
                );
            }
        }
        s
    }

    /// LogGOPSim's output lines, `Host <i>: <t>` with `t` in the schedule's unit, so
    /// scripts written for LogGOPSim keep working. Times that are not whole units are
    /// printed with a fraction.
    pub fn write_loggopsim<W: Write>(&self, mut out: W, unit: TimeUnit) -> io::Result<()> {
        let k = unit.ps_per_unit();
        for (i, t) in self.end_times.iter().enumerate() {
            let ps = t.ps();
            if ps % k == 0 {
                writeln!(out, "Host {i}: {}", ps / k)?;
            } else {
                let digits = k.trailing_zeros_dec();
                writeln!(out, "Host {i}: {}.{:0w$}", ps / k, ps % k, w = digits)?;
            }
        }
        Ok(())
    }

    /// One JSON object:
    /// `{"makespan_ps": int, "ranks": [{"rank": int, "end_ps": int}, ...], "events": int, "wall_seconds": float}`,
    /// with `"links": [{"link": str, "bytes": int, "busy_ps": int, "packets": int,
    /// "peak_queue": int, "mean_queue": float}, ...]` (busiest first) when the model
    /// has links, then `"message_times": {"count", "mean_ps", "min_ps", "p50_ps",
    /// "p90_ps", "p99_ps", "max_ps", "buckets": [{"lo_ps", "hi_ps", "count"}, ...]}`
    /// when it keeps them (the packet model), before `"events"`.
    pub fn write_json<W: Write>(&self, mut out: W) -> io::Result<()> {
        write!(out, "{{\"makespan_ps\": {}, \"ranks\": [", self.makespan().ps())?;
        for (i, t) in self.end_times.iter().enumerate() {
            if i > 0 {
                out.write_all(b", ")?;
            }
            match self.breakdown.get(i) {
                Some(b) => write!(
                    out,
                    "{{\"rank\": {i}, \"end_ps\": {}, \"compute_ps\": {}, \"comm_ps\": {}, \"wait_ps\": {}, \"idle_ps\": {}}}",
                    t.ps(),
                    b.compute,
                    b.comm,
                    b.wait,
                    b.idle
                )?,
                None => write!(out, "{{\"rank\": {i}, \"end_ps\": {}}}", t.ps())?,
            }
        }
        out.write_all(b"]")?;
        if !self.links.is_empty() {
            out.write_all(b", \"links\": [")?;
            for (i, l) in self.links.iter().enumerate() {
                if i > 0 {
                    out.write_all(b", ")?;
                }
                write!(
                    out,
                    "{{\"link\": {}, \"bytes\": {}, \"busy_ps\": {}, \"packets\": {}, \"peak_queue\": {}, \"mean_queue\": {:.6}}}",
                    crate::sweep::table::json_string(&l.link),
                    l.bytes,
                    l.busy.ps(),
                    l.packets,
                    l.peak_queue,
                    l.mean_queue
                )?;
            }
            out.write_all(b"]")?;
        }
        if let Some(t) = &self.message_times {
            write!(
                out,
                ", \"message_times\": {{\"count\": {}, \"mean_ps\": {}, \"min_ps\": {}, \"p50_ps\": {}, \"p90_ps\": {}, \"p99_ps\": {}, \"max_ps\": {}, \"buckets\": [",
                t.count,
                t.mean(),
                t.min,
                t.quantile(0.5),
                t.quantile(0.9),
                t.quantile(0.99),
                t.max
            )?;
            for (i, (lo, hi, n)) in t.buckets().into_iter().enumerate() {
                if i > 0 {
                    out.write_all(b", ")?;
                }
                write!(out, "{{\"lo_ps\": {lo}, \"hi_ps\": {hi}, \"count\": {n}}}")?;
            }
            out.write_all(b"]}")?;
        }
        writeln!(
            out,
            ", \"events\": {}, \"wall_seconds\": {:.6}}}",
            self.events,
            self.wall_seconds()
        )
    }
}

trait DecimalDigits {
    fn trailing_zeros_dec(self) -> usize;
}

impl DecimalDigits for u64 {
    /// Number of decimal zeros of a power of ten.
    fn trailing_zeros_dec(self) -> usize {
        let mut n = self;
        let mut d = 0;
        while n >= 10 {
            n /= 10;
            d += 1;
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            end_times: vec![SimTime(5_654_000), SimTime(1_500_500)],
            events: 6,
            ops: 6,
            load_seconds: 0.5,
            sim_seconds: 0.25,
            peak_rss_bytes: None,
            warnings: vec![],
            breakdown: vec![],
            calls: vec![],
            spans: vec![],
            messages: vec![],
            flows: vec![],
            critical: vec![],
            links: vec![],
            message_times: None,
            link_series: vec![],
        }
    }

    #[test]
    fn loggopsim_lines_use_the_schedule_unit() {
        let mut out = Vec::new();
        report().write_loggopsim(&mut out, TimeUnit::Ns).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "Host 0: 5654\nHost 1: 1500.500\n");
    }

    #[test]
    fn json_has_the_documented_shape() {
        let mut out = Vec::new();
        report().write_json(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"makespan_ps\": 5654000, \"ranks\": [{\"rank\": 0, \"end_ps\": 5654000}, {\"rank\": 1, \"end_ps\": 1500500}], \"events\": 6, \"wall_seconds\": 0.750000}\n"
        );
    }

    #[test]
    fn checksum_is_fnv1a_of_the_end_times() {
        // FNV-1a of the 16 little-endian bytes, computed independently in Python:
        // h = 0xcbf29ce484222325; for b in (5654000).to_bytes(8,'little') +
        // (1500500).to_bytes(8,'little'): h = ((h ^ b) * 0x100000001b3) % 2**64
        assert_eq!(report().checksum(), 0x6d17_1763_82c3_7bad);
    }

    #[test]
    fn summary_names_the_last_rank() {
        let s = report().summary();
        assert!(s.contains("makespan     5.654000 us  (rank 0 finishes last)"), "{s}");
        assert!(s.contains("events/s     2.400e1"), "{s}");
    }

    #[test]
    fn issue16_ranks_that_tie_are_all_named() {
        let with_ends = |ends: &[u64]| Report {
            end_times: ends.iter().map(|&t| SimTime(t)).collect(),
            ..report()
        };
        let line = |ends: &[u64]| with_ends(ends).summary().lines().next().unwrap().to_string();
        assert!(line(&[5, 9, 9]).ends_with("(ranks 1 and 2 finish last, together)"));
        assert!(line(&[9, 9]).ends_with("(ranks 0 and 1 finish last, together)"));
        assert!(line(&[9, 1, 9, 9]).ends_with("(ranks 0, 2 and 3 finish last, together)"));
        assert!(line(&[9, 9, 9, 9]).ends_with("(all 4 ranks finish together)"));
        assert!(line(&[9, 9, 1, 9, 9]).ends_with("(4 ranks finish last, together: 0, 1, ...)"));
        assert!(line(&[1, 9, 2]).ends_with("(rank 1 finishes last)"));
    }
}
