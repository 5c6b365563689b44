//! Simulated time as integer picoseconds, and the units users write times in.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};
use std::str::FromStr;

/// A point in (or span of) simulated time, in picoseconds.
///
/// Integer time keeps runs bit-identical across machines; 2^64 ps is about 213 days.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Time zero.
    pub const ZERO: SimTime = SimTime(0);
    /// The largest representable time.
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// Picoseconds since time zero.
    pub const fn ps(self) -> u64 {
        self.0
    }

    /// This time in seconds, for display only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }

    /// Converts seconds to picoseconds, rounding to nearest: the one place where a
    /// floating-point duration becomes simulated time. A duration past the clock (up to
    /// +inf: an overhead `a + b · size` of valid factors may reach it) becomes
    /// [`SimTime::MAX`], which every sum keeps (they saturate) and the engine reports as
    /// time beyond the clock.
    pub fn from_secs_f64(secs: f64) -> SimTime {
        debug_assert!(secs >= 0.0, "a duration of {secs} s");
        SimTime(round_to_u64(secs * 1e12))
    }

    /// Adds, saturating at [`SimTime::MAX`] instead of wrapping.
    pub fn saturating_add(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(other.0))
    }
}

/// `x.round() as u64` (half away from zero, saturating; NaN gives 0) without the libm
/// call `round` compiles to on baseline x86-64, which showed in profiles: every message
/// converts a duration. The truncation is exact and so is `x - t` below 2^53; above it
/// every float is an integer.
#[inline]
pub fn round_to_u64(x: f64) -> u64 {
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 + rhs.0)
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 += rhs.0;
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 - rhs.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.as_secs_f64();
        if s >= 1.0 {
            write!(f, "{s:.6} s")
        } else if s >= 1e-3 {
            write!(f, "{:.6} ms", s * 1e3)
        } else if s >= 1e-6 {
            write!(f, "{:.6} us", s * 1e6)
        } else {
            write!(f, "{:.3} ns", s * 1e9)
        }
    }
}

/// A unit in which input files and options express times.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Picoseconds.
    Ps,
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
}

impl TimeUnit {
    /// Picoseconds in one of this unit.
    pub const fn ps_per_unit(self) -> u64 {
        match self {
            TimeUnit::Ps => 1,
            TimeUnit::Ns => 1_000,
            TimeUnit::Us => 1_000_000,
            TimeUnit::Ms => 1_000_000_000,
            TimeUnit::S => 1_000_000_000_000,
        }
    }

    /// Converts `n` of this unit to simulated time, or `None` on overflow.
    pub fn to_time(self, n: u64) -> Option<SimTime> {
        n.checked_mul(self.ps_per_unit()).map(SimTime)
    }

    /// The short name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            TimeUnit::Ps => "ps",
            TimeUnit::Ns => "ns",
            TimeUnit::Us => "us",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
        }
    }
}

impl FromStr for TimeUnit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ps" => Ok(TimeUnit::Ps),
            "ns" => Ok(TimeUnit::Ns),
            "us" => Ok(TimeUnit::Us),
            "ms" => Ok(TimeUnit::Ms),
            "s" => Ok(TimeUnit::S),
            _ => Err(format!("unknown time unit '{s}': expected ps, ns, us, ms or s")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_past_the_clock_become_its_end() {
        assert_eq!(SimTime::from_secs_f64(f64::INFINITY), SimTime::MAX);
        assert_eq!(SimTime::from_secs_f64(1e300), SimTime::MAX);
        // 2^64 ps is about 1.8447e7 s: just below stays exact to the rounding.
        assert_eq!(SimTime::from_secs_f64(1.5e-6), SimTime(1_500_000));
        assert_eq!(SimTime::from_secs_f64(1.8e7), SimTime(18_000_000_000_000_000_000));
    }

    #[test]
    fn round_to_u64_equals_round_then_cast() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            -0.7,
            4503599627370495.5,
            4503599627370497.0,
            9007199254740993.0,
            1.8446744073709552e19,
            1e30,
            f64::INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        // Pseudo-random values over many magnitudes, and halves near integers.
        let mut r = crate::Rng::new(7);
        for _ in 0..100_000 {
            let m = r.below(1 << 30) as f64 / (1u64 << 30) as f64;
            let e = r.below(70) as i32 - 5;
            xs.push(m * 2f64.powi(e));
            xs.push(r.below(1 << 40) as f64 + 0.5);
        }
        for x in xs {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x:e}");
        }
    }

    #[test]
    fn units_convert_to_picoseconds() {
        assert_eq!(TimeUnit::Ns.to_time(2500), Some(SimTime(2_500_000)));
        assert_eq!(TimeUnit::S.to_time(3), Some(SimTime(3_000_000_000_000)));
        assert_eq!(TimeUnit::S.to_time(u64::MAX / 10), None);
        assert_eq!("us".parse::<TimeUnit>(), Ok(TimeUnit::Us));
        assert!("min".parse::<TimeUnit>().is_err());
    }

    #[test]
    fn seconds_round_to_nearest_picosecond() {
        assert_eq!(SimTime::from_secs_f64(1.5e-12), SimTime(2));
        assert_eq!(SimTime::from_secs_f64(2.4e-12), SimTime(2));
        assert_eq!(SimTime::from_secs_f64(1.0), SimTime(1_000_000_000_000));
    }

    #[test]
    fn display_picks_a_readable_unit() {
        assert_eq!(SimTime(5_654_000).to_string(), "5.654000 us");
        assert_eq!(SimTime(1_500).to_string(), "1.500 ns");
    }
}
