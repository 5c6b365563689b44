//! Parsers of the values a user types for settings (command-line flags, Python keyword
//! arguments): each checks the value's domain where it is read, so a bad value is refused
//! before anything runs, with a message that quotes at most a short piece of it.
//!
//! Every parser has the shape `fn(&str) -> Result<T, String>`, which is what clap's
//! `value_parser` takes: a refused value is a command-line error (exit code 2).

use crate::{SimTime, TimeUnit};
use simpi_net::Piecewise;

pub use simpi_trace::quote::quote;
use simpi_trace::quote::QUOTE_LIMIT;

/// Piece-wise values `bound:value;...` whose every value satisfies `ok`.
fn piecewise(s: &str, ok: fn(f64) -> bool, domain: &str) -> Result<Piecewise, String> {
    let p = Piecewise::parse(s).map_err(|e| clip_message(&e))?;
    let bad = p.values().find(|v| !ok(*v));
    match bad {
        Some(v) => Err(format!("{v} is not {domain}")),
        None => Ok(p),
    }
}

/// Error messages of lower layers may quote a whole chunk: keep them short.
fn clip_message(m: &str) -> String {
    if m.len() <= 4 * QUOTE_LIMIT {
        m.to_string()
    } else {
        let mut end = 4 * QUOTE_LIMIT;
        while !m.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &m[..end])
    }
}

fn finite_non_negative(v: f64) -> bool {
    v.is_finite() && v >= 0.0
}

fn finite_positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// Latency factors by size (`--lat-factor`): finite and not negative.
pub fn lat_factors(s: &str) -> Result<Piecewise, String> {
    piecewise(s, finite_non_negative, "a finite latency factor >= 0")
}

/// Bandwidth factors by size (`--bw-factor`): positive and finite (0 would make
/// transfers never end, a negative or infinite one would make them free).
pub fn bw_factors(s: &str) -> Result<Piecewise, String> {
    piecewise(s, finite_positive, "a positive finite bandwidth factor")
}

/// Overheads by size (`--os`, `--or`): `bound:a:b` for a + b·size seconds, finite and
/// not negative.
pub fn overheads(s: &str) -> Result<Piecewise, String> {
    piecewise(s, finite_non_negative, "a finite overhead >= 0 (seconds)")
}

/// A plain number, finite and not negative (seconds of `--test-cost`, bytes of
/// `--weight-s`).
pub fn non_negative(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if finite_non_negative(v) {
        Ok(v)
    } else {
        Err(format!("{v} is not a finite number >= 0"))
    }
}

/// A plain number, positive and finite (flop/s of `--speed`).
pub fn positive(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if finite_positive(v) {
        Ok(v)
    } else {
        Err(format!("{v} is not a positive finite number"))
    }
}

fn number(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .map_err(|_| format!("{} is not a number", quote(s)))
}

/// Seconds that must fit the simulated clock (`--test-cost`: each test call costs it,
/// so a value beyond the clock could only overflow).
pub fn clock_seconds(s: &str) -> Result<f64, String> {
    let v = non_negative(s)?;
    if v * 1e12 >= u64::MAX as f64 {
        return Err(format!("{v} s is beyond the simulated clock (2^64 ps, about 213 days)"));
    }
    Ok(v)
}

/// A duration with a SimGrid unit (`10us`, `1.5ms`, `2s`; a bare number is seconds),
/// within the simulated clock (`--constant-time`).
pub fn duration(s: &str) -> Result<SimTime, String> {
    let secs = simpi_platform::units::time(s).map_err(|e| clip_message(&e.to_string()))?;
    if !finite_non_negative(secs) {
        return Err(format!("{} is not a finite duration >= 0", quote(s)));
    }
    if secs * 1e12 >= u64::MAX as f64 {
        return Err(format!(
            "{} is beyond the simulated clock (2^64 ps, about 213 days)",
            quote(s)
        ));
    }
    Ok(SimTime::from_secs_f64(secs))
}

/// A rank count of a generated pattern: 1 to 2^32 - 2 (rank numbers stay below
/// `u32::MAX`, which stands for "any source").
pub fn rank_count(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (1..u32::MAX as u64).contains(&n) => Ok(n as u32),
        _ => Err(format!(
            "{} is not a rank count between 1 and {}",
            quote(s),
            u32::MAX - 1
        )),
    }
}

/// A file size in bytes, with an optional binary unit: `500000`, `64KiB`, `2GiB`,
/// `1TiB` (`K`, `M`, `G`, `T` alone mean the same; `--max-size`).
pub fn file_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(digits);
    let shift = match unit.trim() {
        "" | "B" => 0,
        "K" | "KiB" => 10,
        "M" | "MiB" => 20,
        "G" | "GiB" => 30,
        "T" | "TiB" => 40,
        _ => {
            return Err(format!(
                "{} is not a size: a whole number of bytes, or with KiB, MiB, GiB or TiB",
                quote(s)
            ))
        }
    };
    n.parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(1u64 << shift))
        .filter(|&v| v > 0)
        .ok_or_else(|| format!("{} is not a size between 1 byte and 2^64 - 1 bytes", quote(s)))
}

/// A rank's stack when ranks are coroutines (`--stack-size`): a size as
/// [`file_size`] reads it, from 64 KiB to 1 GiB.
pub fn stack_size(s: &str) -> Result<usize, String> {
    let bytes = file_size(s)?;
    if !(64 << 10..=1 << 30).contains(&bytes) {
        return Err(format!("{} is not a stack size between 64KiB and 1GiB", quote(s)));
    }
    Ok(bytes as usize)
}

/// A count of at least 1 (`--iterations`, `--ranks-per-host`).
pub fn at_least_one(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{} is not a whole number between 1 and {}", quote(s), u32::MAX)),
    }
}

/// A pattern's name, as `simpi schedgen` and `--pattern` take it.
pub fn pattern(s: &str) -> Result<crate::Pattern, String> {
    crate::Pattern::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = crate::Pattern::ALL.iter().map(|(_, n, _)| *n).collect();
        format!("unknown pattern {}: expected one of {}", quote(s), names.join(", "))
    })
}

/// A time unit name (`ps`, `ns`, `us`, `ms`, `s`).
pub fn time_unit(s: &str) -> Result<TimeUnit, String> {
    s.parse::<TimeUnit>().map_err(|e| clip_message(&e.to_string()))
}

/// A whole number, as clap reads integer flags (no sign, no spaces).
pub fn whole(s: &str) -> Result<u64, String> {
    s.parse::<u64>()
        .map_err(|_| format!("{} is not a whole number between 0 and {}", quote(s), u64::MAX))
}

/// `true` or `false`, as a switch given a value (Python, sweeps).
pub fn boolean(s: &str) -> Result<bool, String> {
    match s {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{} is not true or false", quote(s))),
    }
}

/// A path: any text but the empty one.
pub fn path(s: &str) -> Result<std::path::PathBuf, String> {
    if s.is_empty() {
        Err("an empty path names no file".into())
    } else {
        Ok(std::path::PathBuf::from(s))
    }
}

/// The packet model's preset: `generic` or `ib` (`--packet-preset`).
pub fn packet_preset(s: &str) -> Result<String, String> {
    match simpi_net::PacketParams::by_name(s) {
        Some(_) => Ok(s.to_string()),
        None => Err(format!(
            "{} is not one of {}",
            quote(s),
            simpi_net::PacketParams::NAMES.join(", ")
        )),
    }
}

/// The packet model's routing: `minimal`, `valiant`, `ugal` or `adaptive` (`--routing`).
pub fn routing(s: &str) -> Result<simpi_net::Routing, String> {
    simpi_net::Routing::by_name(s).ok_or_else(|| {
        format!(
            "{} is not a routing: expected {}",
            quote(s),
            simpi_net::Routing::NAMES.join(", ")
        )
    })
}

/// The bytes the packet model's high-priority lane may send in a row while a low
/// packet waits: a whole number or `none` (no limit) (`--priority-limit`).
pub fn priority_limit(s: &str) -> Result<u64, String> {
    if s == "none" {
        return Ok(u64::MAX);
    }
    whole(s).map_err(|e| format!("{e}, or none"))
}

/// The packet model's input queues: `voq` (one per output) or `fifo` (`--queues`).
pub fn queues(s: &str) -> Result<bool, String> {
    one_of(s, &[("voq", true), ("fifo", false)])
}

/// What the packet model's hosts do: `smpi` or `loggops` (`--protocol`).
pub fn host_protocol(s: &str) -> Result<crate::settings::HostProtocol, String> {
    use crate::settings::HostProtocol;
    one_of(s, &[("smpi", HostProtocol::Smpi), ("loggops", HostProtocol::Loggops)])
}

/// One of `names`, given by its name.
pub fn one_of<T: Copy>(s: &str, names: &[(&str, T)]) -> Result<T, String> {
    names.iter().find(|(n, _)| *n == s).map(|(_, v)| *v).ok_or_else(|| {
        let all: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
        format!("{} is not one of {}", quote(s), all.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_out_of_their_domain_are_refused() {
        for bad in ["0:0", "0:-1", "0:nan", "0:inf", "0:1;100:0"] {
            assert!(bw_factors(bad).is_err(), "{bad}");
        }
        for bad in ["0:-1", "0:nan", "0:inf", "abc", "0:"] {
            assert!(lat_factors(bad).is_err(), "{bad}");
        }
        assert_eq!(bw_factors("0:0.5").unwrap().factor(10), 0.5);
        assert_eq!(lat_factors("0:0").unwrap().factor(10), 0.0);
        assert!(overheads("0:1e-6:-1").is_err());
        assert_eq!(overheads("0:1:2").unwrap().overhead(3), 7.0);
    }

    #[test]
    fn numbers_out_of_their_domain_are_refused() {
        for bad in ["-1", "nan", "inf", "-inf", "x", ""] {
            assert!(non_negative(bad).is_err(), "{bad}");
            assert!(positive(bad).is_err(), "{bad}");
        }
        assert!(positive("0").is_err());
        assert_eq!(non_negative("0").unwrap(), 0.0);
        assert!(clock_seconds("1e10").is_err());
        assert_eq!(clock_seconds("1e-4").unwrap(), 1e-4);
    }

    #[test]
    fn durations_must_fit_the_clock() {
        assert_eq!(duration("10us").unwrap(), SimTime::from_secs_f64(10e-6));
        assert!(duration("1e9s").is_err());
        assert!(duration("-1s").is_err());
    }

    #[test]
    fn counts_and_names_are_checked() {
        assert!(rank_count("0").is_err());
        assert!(rank_count("4294967295").is_err());
        assert_eq!(rank_count("4294967294").unwrap(), u32::MAX - 1);
        assert!(at_least_one("0").is_err());
        assert!(pattern("foo").is_err());
        assert_eq!(pattern("rd-allreduce").unwrap().name(), "rd-allreduce");
    }

    #[test]
    fn long_input_is_quoted_short() {
        let long = "x".repeat(2_000_000);
        let m = bw_factors(&long).unwrap_err();
        assert!(m.len() < 400, "{} bytes", m.len());
        assert!(quote(&long).contains("2000000 bytes"));
        // Multi-byte characters are cut on a boundary.
        assert!(quote(&"é".repeat(100)).starts_with("'é"));
    }
}
