//! The progress line of a long run on standard error. On a terminal it appears once the
//! run has lasted two seconds, is redrawn in place at most five times a second and is
//! erased when the run ends; when standard error is not a terminal nothing is written.
//! `--progress` shows it from the start, wherever standard error goes (one line per
//! redraw when it is not a terminal, so a log stays readable).

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a run goes unannounced.
const QUIET_FOR: Duration = Duration::from_secs(2);
/// The least time between two redraws.
const REDRAW_EVERY: Duration = Duration::from_millis(200);

/// A progress line and when it was last drawn.
pub struct Meter {
    forced: bool,
    terminal: bool,
    started: Instant,
    last: Option<Instant>,
}

impl Meter {
    /// A meter started now; `forced` is `--progress`.
    pub fn new(forced: bool) -> Meter {
        Meter {
            forced,
            terminal: std::io::stderr().is_terminal(),
            started: Instant::now(),
            last: None,
        }
    }

    /// Draws `line(elapsed)` if a line is due: shown at all, and not drawn in the last
    /// fifth of a second. The line is made only then.
    pub fn show(&mut self, line: impl FnOnce(Duration) -> String) {
        let elapsed = self.started.elapsed();
        let shown = self.forced || (self.terminal && elapsed >= QUIET_FOR);
        if !shown || self.last.is_some_and(|t| t.elapsed() < REDRAW_EVERY) {
            return;
        }
        self.last = Some(Instant::now());
        let text = line(elapsed);
        let mut err = std::io::stderr().lock();
        // Progress is best effort: a closed standard error is not the run's failure.
        let _ = if self.terminal {
            write!(err, "\r{text}\x1b[K")
        } else {
            writeln!(err, "{text}")
        };
        let _ = err.flush();
    }

    /// Erases the line from a terminal (the run's own output follows).
    pub fn finish(&mut self) {
        if self.terminal && self.last.is_some() {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
        }
        self.last = None;
    }
}

/// A meter counting finished items (a sweep's points, replications) from the threads
/// that run them.
pub struct Counter {
    /// The line, and how many items have finished (counted under the same lock).
    meter: Mutex<(Meter, usize)>,
    total: usize,
    what: &'static str,
}

impl Counter {
    /// A counter of `total` items called `what` (plural, e.g. "points").
    pub fn new(forced: bool, total: usize, what: &'static str) -> Counter {
        Counter {
            meter: Mutex::new((Meter::new(forced), 0)),
            total,
            what,
        }
    }

    /// One more item finished.
    pub fn tick(&self) {
        if let Ok(mut guard) = self.meter.lock() {
            let (meter, done) = &mut *guard;
            *done += 1;
            let done = *done;
            meter.show(|elapsed| count_line(done, self.total, self.what, elapsed, simpi::report::rss_bytes()));
        }
    }

    /// Erases the line.
    pub fn finish(&self) {
        if let Ok(mut guard) = self.meter.lock() {
            guard.0.finish();
        }
    }
}

/// "12/64 points done, 3.1 points/s, about 14 s left, 85 MiB".
pub fn count_line(done: usize, total: usize, what: &str, elapsed: Duration, rss: Option<u64>) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
    let mut line = format!("{done}/{total} {what} done, {} {what}/s", rate_text(rate));
    if rate > 0.0 && done < total {
        let left = (total - done) as f64 / rate;
        // Under a second left is not worth a guess.
        if left >= 1.0 {
            line.push_str(&format!(", about {} left", duration_text(left)));
        }
    }
    if let Some(b) = rss {
        line.push_str(&format!(", {}", bytes_text(b)));
    }
    line
}

/// "simulated 1.2 ms, 45.0% of operations, 12.6 M events (2.3 M/s), 85 MiB".
pub fn run_line(p: &simpi::Progress, elapsed: Duration, rss: Option<u64>) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { p.events as f64 / secs } else { 0.0 };
    let mut line = format!(
        "simulated {}, {:.1}% of operations, {} events ({}/s)",
        p.now,
        100.0 * p.ops_done as f64 / p.ops_total.max(1) as f64,
        rate_text(p.events as f64),
        rate_text(rate)
    );
    if let Some(b) = rss {
        line.push_str(&format!(", {}", bytes_text(b)));
    }
    line
}

/// A count with k/M/G for thousands, millions, billions.
fn rate_text(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.1} G", x / 1e9),
        x if x >= 1e6 => format!("{:.1} M", x / 1e6),
        x if x >= 1e3 => format!("{:.1} k", x / 1e3),
        x if x >= 10.0 => format!("{x:.0}"),
        x => format!("{x:.1}"),
    }
}

/// Seconds as "42 s", "3 min 5 s" or "2 h 10 min".
fn duration_text(s: f64) -> String {
    let s = s.round() as u64;
    match s {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min {} s", s / 60, s % 60),
        s => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// Bytes in MiB, or GiB from 10 GiB.
fn bytes_text(b: u64) -> String {
    let mib = b as f64 / (1u64 << 20) as f64;
    if mib >= 10.0 * 1024.0 {
        format!("{:.1} GiB", mib / 1024.0)
    } else {
        format!("{mib:.0} MiB")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_says_how_far_how_fast_and_how_long_is_left() {
        // 16 of 64 in 8 s: 2 per second, 48 left at that rate is 24 s.
        let l = count_line(16, 64, "points", Duration::from_secs(8), Some(85 << 20));
        assert_eq!(l, "16/64 points done, 2.0 points/s, about 24 s left, 85 MiB");
        // Nothing left, no estimate; no memory where it is unknown.
        let l = count_line(64, 64, "points", Duration::from_secs(32), None);
        assert_eq!(l, "64/64 points done, 2.0 points/s");
    }

    #[test]
    fn a_run_line_gives_simulated_time_share_and_event_rate() {
        let p = simpi::Progress {
            events: 4_000_000,
            ops_done: 450,
            ops_total: 1000,
            now: simpi::SimTime(1_500_000_000),
        };
        let l = run_line(&p, Duration::from_secs(2), Some(12 << 30));
        assert_eq!(
            l,
            format!(
                "simulated {}, 45.0% of operations, 4.0 M events (2.0 M/s), 12.0 GiB",
                simpi::SimTime(1_500_000_000)
            )
        );
    }

    #[test]
    fn long_waits_read_in_minutes_and_hours() {
        assert_eq!(duration_text(59.4), "59 s");
        assert_eq!(duration_text(185.0), "3 min 5 s");
        assert_eq!(duration_text(7800.0), "2 h 10 min");
    }
}
