//! OS noise as LogGOPSim charges it (the rules are in `docs/models.md`, the trace
//! format in `docs/formats.md`).
//!
//! A noise trace lists detours (a start and a duration each, sorted by start) measured
//! on one machine; the trace repeats with the period of its last start. Each rank reads
//! it from its own offset (or all from one, co-scheduled). When a rank's CPU is busy
//! for an interval (a send's or a receive's overhead `o`, a computation), the interval
//! is placed in the trace and the detours it meets are added to the time the CPU stays
//! busy. The placement and what counts follow LogGOPSim exactly, quirks included:
//!
//! - an interval of length `len` starting at `t` on a rank with offset `off` starts in
//!   the trace at `(t + off) mod (period - len)`, so that it ends before the last start;
//! - the detour in progress there (the last that starts at or before it) counts with
//!   what remains of it, unless the interval starts at or before the first detour;
//! - every later detour that starts before the interval ends counts whole;
//! - the first detour of the trace counts only as the one in progress.
//!
//! LogGOPSim cannot place an interval at least as long as the period (it divides by
//! zero or reads past its table); simpi then starts it at `(t + off) mod period` and
//! lets it run on through the repeats of the trace as LogGOPSim's wrap-around code
//! would, counting whole periods at once.

use simpi_kernel::Rng;

/// A noise trace: detours in picoseconds, sorted by start, with prefix sums of their
/// durations so that the detours of any interval are summed at once, and an index of
/// the starts so that finding where an interval begins takes a step or two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoiseTrace {
    start: Vec<u64>,
    duration: Vec<u64>,
    /// `prefix[i]`: the durations of detours `0..=i`.
    prefix: Vec<u128>,
    /// Buckets of 2^shift ps, about one per detour: `bucket[b]` is the number of detours
    /// that start before `b << shift`.
    shift: u32,
    bucket: Vec<u32>,
}

impl NoiseTrace {
    /// A trace of `(start, duration)` detours in picoseconds. Refused (with the index
    /// of the offending detour where there is one): fewer than two detours, a start
    /// before the previous one, a last start of zero (no period).
    pub fn new(detours: &[(u64, u64)]) -> Result<NoiseTrace, String> {
        if detours.len() < 2 {
            return Err(format!(
                "a noise trace needs at least two detours (the last start is its period), found {}",
                detours.len()
            ));
        }
        if let Some(i) = (1..detours.len()).find(|&i| detours[i].0 < detours[i - 1].0) {
            return Err(format!(
                "detour {} starts at {} ps, before the previous one ({} ps): starts must not decrease",
                i + 1,
                detours[i].0,
                detours[i - 1].0
            ));
        }
        let period = detours[detours.len() - 1].0;
        if period == 0 {
            return Err("the last detour starts at 0: the trace has no period".into());
        }
        if detours.len() > u32::MAX as usize {
            return Err(format!("a noise trace has at most {} detours", u32::MAX));
        }
        let mut sum = 0u128;
        let prefix = detours
            .iter()
            .map(|&(_, d)| {
                sum += d as u128;
                sum
            })
            .collect();
        let start: Vec<u64> = detours.iter().map(|d| d.0).collect();
        // 2^shift <= period / n: fewer than 2n + 2 buckets.
        let shift = (period / start.len() as u64).max(1).ilog2();
        let mut i = 0;
        let bucket = (0..(period >> shift) + 2)
            .map(|b| {
                let from = (b as u128) << shift;
                while i < start.len() && (start[i] as u128) < from {
                    i += 1;
                }
                i as u32
            })
            .collect();
        Ok(NoiseTrace {
            start,
            duration: detours.iter().map(|d| d.1).collect(),
            prefix,
            shift,
            bucket,
        })
    }

    /// The period: the start of the last detour, in picoseconds.
    pub fn period(&self) -> u64 {
        self.start[self.start.len() - 1]
    }

    /// Number of detours.
    pub fn len(&self) -> usize {
        self.start.len()
    }

    /// Always false: a trace has at least two detours.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Durations of detours `a+1..=b` (none if `b <= a`).
    #[inline]
    fn between(&self, a: usize, b: usize) -> u128 {
        if b > a {
            self.prefix[b] - self.prefix[a]
        } else {
            0
        }
    }

    /// The last detour that starts at or before `ts`, for `start[0] < ts < period`.
    #[inline]
    fn in_progress_at(&self, ts: u64) -> usize {
        // Detours before bucket b start before ts; those from bucket b + 1 on, after it.
        let b = (ts >> self.shift) as usize;
        let (lo, hi) = (self.bucket[b] as usize, self.bucket[b + 1] as usize);
        lo + self.start[lo..hi].partition_point(|&s| s <= ts) - 1
    }

    /// The first detour from `from` on that starts at or after `end`: the detours
    /// `from..` that an interval ending at `end` reaches end there. Usually none, so
    /// the search gallops from `from` rather than bisecting the whole trace.
    #[inline]
    fn reached(&self, from: usize, end: u128) -> usize {
        let s = &self.start;
        if from >= s.len() || s[from] as u128 >= end {
            return from;
        }
        let (mut lo, mut step) = (from, 1);
        loop {
            // s[lo] starts before `end`.
            let hi = lo + step;
            if hi >= s.len() || s[hi] as u128 >= end {
                let hi = hi.min(s.len());
                return lo + 1 + s[lo + 1..hi].partition_point(|&x| (x as u128) < end);
            }
            lo = hi;
            step *= 2;
        }
    }

    /// The noise charged to an interval of `len` picoseconds that starts at `at` on a
    /// rank's clock shifted by its offset (`t + off`), in picoseconds (saturated at
    /// 2^64 - 1, which the rules then report as a clock overflow).
    pub fn detour(&self, at: u128, len: u64) -> u64 {
        let period = self.period() as u128;
        let last = self.start.len() - 1;
        // In 64 bits whenever the sum fits (always, short of the clock's end): a
        // 128-bit division costs several times a 64-bit one, on every charge.
        let rem = |m: u128| match u64::try_from(at) {
            Ok(a) => (a % m as u64) as u128,
            Err(_) => at % m,
        };
        let len = len as u128;
        let ts = if len < period { rem(period - len) } else { rem(period) };
        let mut noise = 0u128;
        let mut pos = 0;
        if ts > self.start[0] as u128 {
            // Below `last`, since ts < period.
            pos = self.in_progress_at(ts as u64);
            let end = self.start[pos] as u128 + self.duration[pos] as u128;
            noise += end.saturating_sub(ts);
        }
        let mut end = ts + len;
        if end > period {
            // Past the last start: every later detour counts, the trace starts over
            // (LogGOPSim's wrap: its first detour is not counted again), and each
            // further whole period adds detours 1..=last.
            noise += self.between(pos, last);
            end -= period;
            if end > period {
                let k = (end - 1) / period;
                noise = noise.saturating_add(k.saturating_mul(self.between(0, last)));
                end -= k * period;
            }
            pos = 0;
        }
        // Detours after `pos` that start before `end` (end <= period: never the last).
        noise = noise.saturating_add(self.between(pos, self.reached(pos + 1, end) - 1));
        noise.min(u64::MAX as u128) as u64
    }
}

/// Where each rank starts reading the trace.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Each rank from its own random offset (LogGOPSim's default).
    Independent,
    /// Every rank from one random offset (LogGOPSim's `--noise-cosched`).
    Cosched,
}

/// The first word of the random keys of noise offsets ("noise" in ASCII), so that no
/// other use of [`Rng::keyed`] draws from the same streams.
const NOISE_KEY: u64 = 0x6e_6f69_7365;

/// The key word that stands for "all ranks" in co-scheduled offsets.
const ALL_RANKS: u64 = u64::MAX;

/// A noise trace with each rank's offset into it: the noise of one replication.
#[derive(Clone, Debug)]
pub struct HostNoise<'t> {
    trace: &'t NoiseTrace,
    offsets: Vec<u64>,
}

impl<'t> HostNoise<'t> {
    /// Offsets for `ranks` ranks, whole multiples of `grain` picoseconds (the trace's
    /// time unit: LogGOPSim's offsets are whole nanoseconds) drawn uniformly below the
    /// period, from the key (seed, replication, rank), or (seed, replication, all) when
    /// co-scheduled: a rank's offset depends on nothing else.
    pub fn draw(
        trace: &'t NoiseTrace,
        ranks: u32,
        placement: Placement,
        grain: u64,
        seed: u64,
        replication: u64,
    ) -> Self {
        let grain = grain.max(1);
        let steps = (trace.period() / grain).max(1);
        let draw = |who: u64| Rng::keyed(&[NOISE_KEY, seed, replication, who]).below(steps) * grain;
        let offsets = match placement {
            Placement::Independent => (0..ranks as u64).map(draw).collect(),
            Placement::Cosched => vec![draw(ALL_RANKS); ranks as usize],
        };
        HostNoise { trace, offsets }
    }

    /// Given offsets, in picoseconds (to replay one particular draw, e.g. LogGOPSim's).
    pub fn with_offsets(trace: &'t NoiseTrace, offsets: Vec<u64>) -> Self {
        HostNoise { trace, offsets }
    }

    /// Each rank's offset into the trace, in picoseconds.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// The trace.
    pub fn trace(&self) -> &NoiseTrace {
        self.trace
    }
}

/// Noise as the LogGOPS rules ask for it; a type parameter of the rules, so that a run
/// without noise does no work for it at all.
pub trait Detours {
    /// False only for [`Quiet`]: the rules skip the call.
    const ON: bool;
    /// Noise charged to `rank`'s CPU busy for `len` picoseconds from `t`.
    fn detour(&self, rank: u32, t: u64, len: u64) -> u64;
}

/// No noise.
#[derive(Copy, Clone, Debug, Default)]
pub struct Quiet;

impl Detours for Quiet {
    const ON: bool = false;
    #[inline(always)]
    fn detour(&self, _rank: u32, _t: u64, _len: u64) -> u64 {
        0
    }
}

impl Detours for HostNoise<'_> {
    const ON: bool = true;
    #[inline]
    fn detour(&self, rank: u32, t: u64, len: u64) -> u64 {
        // A rank without an offset cannot occur (the run checks the count); read as 0.
        let off = self.offsets.get(rank as usize).copied().unwrap_or(0);
        self.trace.detour(t as u128 + off as u128, len)
    }
}

impl<D: Detours> Detours for &D {
    const ON: bool = D::ON;
    #[inline(always)]
    fn detour(&self, rank: u32, t: u64, len: u64) -> u64 {
        (**self).detour(rank, t, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The trace of the docs' example, in whole units (1 unit = 1 ps here): detours at
    /// 0 (10 long), 100 (5), 200 (7), 250 (100), 1000 (3); period 1000.
    fn trace() -> NoiseTrace {
        NoiseTrace::new(&[(0, 10), (100, 5), (200, 7), (250, 100), (1000, 3)]).unwrap()
    }

    /// LogGOPSim's walk, step by step (one detour at a time, wrapping at the last
    /// start), for intervals shorter than the period: the closed form must agree.
    fn walk(t: &NoiseTrace, at: u128, len: u64) -> u64 {
        let (s, d) = (&t.start, &t.duration);
        let period = t.period() as u128;
        let len = len as u128;
        let ts = at % (period - len);
        let mut noise = 0u128;
        let mut pos = 0;
        if ts > s[0] as u128 {
            while !(s[pos] as u128 <= ts && s[pos + 1] as u128 > ts) {
                pos += 1;
            }
            let e = s[pos] as u128 + d[pos] as u128;
            if e > ts {
                noise += e - ts;
            }
        }
        let mut end = ts + len;
        while end > s[pos + 1] as u128 {
            pos += 1;
            noise += d[pos] as u128;
            if pos == s.len() - 1 {
                end -= period;
                pos = 0;
            }
        }
        noise as u64
    }

    #[test]
    fn intervals_by_hand() {
        let t = trace();
        // len 50: placed at at mod 950.
        // at 0: at the first detour's start, which does not count; 100 is not < 50.
        assert_eq!(t.detour(0, 50), 0);
        // at 60: [60, 110) meets the detour at 100 (5).
        assert_eq!(t.detour(60, 50), 5);
        // at 5: in the first detour (0..10): 5 remain; nothing else before 55.
        assert_eq!(t.detour(5, 50), 5);
        // at 102: in the detour at 100 (ends 105): 3 remain; the one at 200 is not < 152.
        assert_eq!(t.detour(102, 50), 3);
        // at 150: [150, 200): 200 is not < 200.
        assert_eq!(t.detour(150, 50), 0);
        // at 151: [151, 201): the detour at 200 counts whole (7).
        assert_eq!(t.detour(151, 50), 7);
        // at 300: in the detour at 250 (ends 350): 50 remain, however short the interval.
        assert_eq!(t.detour(300, 1), 50);
        // at 950 + 60 = 1010: placed at 1010 mod 950 = 60, as at 60.
        assert_eq!(t.detour(1010, 50), 5);
        // len 900: placed at at mod 100. at 150 -> 50: [50, 950) meets 100, 200, 250.
        assert_eq!(t.detour(150, 900), 5 + 7 + 100);
        // len 0 at 203: only the detour in progress (200..207): 4.
        assert_eq!(t.detour(203, 0), 4);
    }

    #[test]
    fn intervals_as_long_as_the_period_wrap() {
        let t = trace();
        // len 1000 at 0: placed at 0 mod 1000 = 0 (no detour in progress: at the first
        // start); [0, 1000) meets 100, 200, 250 (112); 1000 is not < 1000.
        assert_eq!(t.detour(0, 1000), 112);
        // len 1001 at 0: end 1001 passes the last start: 100, 200, 250, 1000 (115),
        // then the trace starts over with end 1: nothing more.
        assert_eq!(t.detour(0, 1001), 115);
        // len 3150 at 20 (20 mod 1000 = 20, in the first detour: 0..10 is over):
        // end 3170: 100..1000 (115); end 2170 > 1000: (2170-1)/1000 = 2 whole periods of
        // detours 1..=4 (115 each); end 170: the detour at 100 (5).
        assert_eq!(t.detour(20, 3150), 115 + 2 * 115 + 5);
    }

    #[test]
    fn the_closed_form_agrees_with_the_walk() {
        let t = NoiseTrace::new(&[(3, 4), (10, 30), (10, 2), (25, 1), (40, 15), (41, 2), (90, 9), (120, 5)]).unwrap();
        for len in 0..t.period() {
            for at in 0..400u128 {
                assert_eq!(t.detour(at, len), walk(&t, at, len), "at {at} len {len}");
            }
        }
    }

    #[test]
    fn the_closed_form_agrees_with_the_walk_on_random_traces() {
        let mut r = Rng::new(11);
        for _ in 0..20 {
            // Gaps of 0 (equal starts) to 2^k, durations up to twice the gaps.
            let n = 2 + r.below(300) as usize;
            let k = 1 + r.below(40);
            let mut t = r.below(1 << k);
            let detours: Vec<(u64, u64)> = (0..n)
                .map(|_| {
                    let d = (t, r.below(2 << k));
                    t += if r.chance(0.1) { 0 } else { 1 + r.below(1 << k) };
                    d
                })
                .collect();
            let trace = NoiseTrace::new(&detours).unwrap();
            for _ in 0..2000 {
                let len = r.below(trace.period());
                let at = r.next_u64() as u128;
                assert_eq!(
                    trace.detour(at, len),
                    walk(&trace, at, len),
                    "at {at} len {len} of {detours:?}"
                );
            }
        }
    }

    #[test]
    fn bad_traces_are_refused() {
        assert!(NoiseTrace::new(&[(5, 1)]).unwrap_err().contains("at least two"));
        assert!(NoiseTrace::new(&[(5, 1), (4, 1)])
            .unwrap_err()
            .contains("detour 2 starts at 4"));
        assert!(NoiseTrace::new(&[(0, 1), (0, 1)]).unwrap_err().contains("no period"));
    }

    #[test]
    fn offsets_are_in_the_period_and_shared_when_cosched() {
        let t = trace();
        let a = HostNoise::draw(&t, 64, Placement::Independent, 1, 7, 3);
        assert!(a.offsets().iter().all(|&o| o < 1000));
        assert!(a.offsets().iter().any(|&o| o != a.offsets()[0]));
        // A rank's offset does not depend on how many ranks there are.
        let b = HostNoise::draw(&t, 8, Placement::Independent, 1, 7, 3);
        assert_eq!(&a.offsets()[..8], b.offsets());
        let c = HostNoise::draw(&t, 64, Placement::Cosched, 1, 7, 3);
        assert!(c.offsets().iter().all(|&o| o == c.offsets()[0]));
        let d = HostNoise::draw(&t, 64, Placement::Independent, 1, 7, 4);
        assert_ne!(a.offsets(), d.offsets());
        // In whole grains of 100: 0 to 900.
        let e = HostNoise::draw(&t, 64, Placement::Independent, 100, 7, 3);
        assert!(e.offsets().iter().all(|&o| o % 100 == 0 && o < 1000));
    }
}
