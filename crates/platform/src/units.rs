//! Quantities with units, read the way SimGrid 3.32 reads them: a number as C's `strtod`
//! reads it (so `1.25e8Bps` and `1E9f` are fine), immediately followed by a unit from a
//! fixed list. Bandwidths are `Bps` or `bps` with decimal (`k M G T P E Z Y`) or binary
//! (`Ki Mi Gi Ti Pi Ei Zi Yi`) prefixes; times are `w d h m s ms us ns ps`; speeds are
//! `f` with decimal prefixes or `flops` with long ones (`kiloflops`, `megaflops`, ...).
//! A bare number is bytes per second, seconds or flop/s; SimGrid accepts it with a
//! warning when it is not zero, and so do the readers (see [`unitless`]).

/// What a quantity may be.
struct Kind {
    /// Units and their factors.
    units: &'static [(&'static str, f64)],
    /// How to write one, for error messages.
    example: &'static str,
}

const KI: f64 = 1024.0;

const BANDWIDTH: Kind = Kind {
    units: &[
        ("Bps", 1.0),
        ("kBps", 1e3),
        ("MBps", 1e6),
        ("GBps", 1e9),
        ("TBps", 1e12),
        ("PBps", 1e15),
        ("EBps", 1e18),
        ("ZBps", 1e21),
        ("YBps", 1e24),
        ("KiBps", KI),
        ("MiBps", KI * KI),
        ("GiBps", KI * KI * KI),
        ("TiBps", KI * KI * KI * KI),
        ("PiBps", KI * KI * KI * KI * KI),
        ("EiBps", KI * KI * KI * KI * KI * KI),
        ("ZiBps", KI * KI * KI * KI * KI * KI * KI),
        ("YiBps", KI * KI * KI * KI * KI * KI * KI * KI),
        ("bps", 0.125),
        ("kbps", 0.125 * 1e3),
        ("Mbps", 0.125 * 1e6),
        ("Gbps", 0.125 * 1e9),
        ("Tbps", 0.125 * 1e12),
        ("Pbps", 0.125 * 1e15),
        ("Ebps", 0.125 * 1e18),
        ("Zbps", 0.125 * 1e21),
        ("Ybps", 0.125 * 1e24),
        ("Kibps", 0.125 * KI),
        ("Mibps", 0.125 * KI * KI),
        ("Gibps", 0.125 * KI * KI * KI),
        ("Tibps", 0.125 * KI * KI * KI * KI),
        ("Pibps", 0.125 * KI * KI * KI * KI * KI),
        ("Eibps", 0.125 * KI * KI * KI * KI * KI * KI),
        ("Zibps", 0.125 * KI * KI * KI * KI * KI * KI * KI),
        ("Yibps", 0.125 * KI * KI * KI * KI * KI * KI * KI * KI),
    ],
    example: "a bandwidth like '125MBps', '10Gbps' or '1.25e8Bps'",
};

const TIME: Kind = Kind {
    units: &[
        ("w", 604800.0),
        ("d", 86400.0),
        ("h", 3600.0),
        ("m", 60.0),
        ("s", 1.0),
        ("ms", 1e-3),
        ("us", 1e-6),
        ("ns", 1e-9),
        ("ps", 1e-12),
    ],
    example: "a time like '50us', '1.5ms' or '1e-5s' (units w d h m s ms us ns ps)",
};

const SPEED: Kind = Kind {
    units: &[
        ("f", 1.0),
        ("kf", 1e3),
        ("Mf", 1e6),
        ("Gf", 1e9),
        ("Tf", 1e12),
        ("Pf", 1e15),
        ("Ef", 1e18),
        ("Zf", 1e21),
        ("Yf", 1e24),
        ("flops", 1.0),
        ("kiloflops", 1e3),
        ("megaflops", 1e6),
        ("gigaflops", 1e9),
        ("teraflops", 1e12),
        ("petaflops", 1e15),
        ("exaflops", 1e18),
        ("zetaflops", 1e21),
        ("yottaflops", 1e24),
    ],
    example: "a speed like '1Gf', '1E9f' or '100megaflops'",
};

/// Parses a bandwidth into bytes per second.
pub fn bandwidth(s: &str) -> Result<f64, String> {
    parse(s, &BANDWIDTH)
}

/// Parses a time into seconds.
pub fn time(s: &str) -> Result<f64, String> {
    parse(s, &TIME)
}

/// Parses a computing speed into flop/s.
pub fn speed(s: &str) -> Result<f64, String> {
    parse(s, &SPEED)
}

/// Whether `s` is a number without a unit other than zero: SimGrid 3.32 takes it in the
/// default unit and warns ("Deprecated unit-less value"); the readers warn likewise.
pub fn unitless(s: &str) -> bool {
    let s = s.trim();
    let end = number_end(s);
    end > 0 && end == s.len() && s.parse::<f64>().is_ok_and(|v| v != 0.0)
}

/// A token for a message: at most 80 characters of it, so that a huge input does not
/// make a huge message.
pub fn clip(s: &str) -> String {
    const MAX: usize = 80;
    match s.char_indices().nth(MAX) {
        None => s.to_string(),
        Some((i, _)) => format!("{}... ({} bytes)", &s[..i], s.len()),
    }
}

/// The length of the longest prefix of `s` that `strtod` reads as a decimal number:
/// a sign, digits with at most one point (at least one digit), and an exponent only if
/// digits follow its `e` (so `5Ef` is 5 exaflops and `1e9f` is 10^9 flops).
fn number_end(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return 0;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    i
}

fn parse(s: &str, kind: &Kind) -> Result<f64, String> {
    let s = s.trim();
    let end = number_end(s);
    if end == 0 {
        return Err(format!("expected {}, found '{}'", kind.example, clip(s)));
    }
    let (num, unit) = s.split_at(end);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("expected {}, found '{}'", kind.example, clip(s)))?;
    // strtod reports a range error past f64 (SimGrid then refuses the value); 1e999
    // reads as infinity here and 1e-400 as zero.
    let mantissa_nonzero = num
        .split(['e', 'E'])
        .next()
        .is_some_and(|m| m.bytes().any(|c| (b'1'..=b'9').contains(&c)));
    if !v.is_finite() || (mantissa_nonzero && v.abs() < f64::MIN_POSITIVE) {
        return Err(format!("value out of range: '{}'", clip(s)));
    }
    let factor = if unit.is_empty() {
        1.0
    } else {
        kind.units
            .iter()
            .find(|(u, _)| *u == unit)
            .map(|(_, k)| *k)
            .ok_or_else(|| {
                format!(
                    "unknown unit '{}' in '{}': expected {}",
                    clip(unit),
                    clip(s),
                    kind.example
                )
            })?
    };
    let v = v * factor;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("'{}' is not a finite, non-negative quantity", clip(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidths() {
        assert_eq!(bandwidth("125MBps"), Ok(1.25e8));
        assert_eq!(bandwidth("1Gbps"), Ok(1.25e8));
        assert_eq!(bandwidth("1GiBps"), Ok(1073741824.0));
        assert_eq!(bandwidth("42"), Ok(42.0));
        assert!(bandwidth("10 parsecs").is_err());
        assert!(bandwidth("fast").is_err());
        // A space between number and unit is not SimGrid's syntax either.
        assert!(bandwidth("125 MBps").is_err());
    }

    #[test]
    fn times() {
        assert_eq!(time("50us"), Ok(50.0 * 1e-6)); // as SimGrid: value times unit
        assert_eq!(time("1.5ms"), Ok(1.5e-3));
        assert_eq!(time("0"), Ok(0.0));
        assert_eq!(time("2s"), Ok(2.0));
        assert_eq!(time("2m"), Ok(120.0));
        assert!(time("5 fortnights").is_err());
        assert!(time("5ks").is_err(), "times take no prefixes");
    }

    #[test]
    fn speeds() {
        assert_eq!(speed("1Gf"), Ok(1e9));
        assert_eq!(speed("100megaflops"), Ok(1e8));
        assert_eq!(speed("20000f"), Ok(20000.0));
        assert_eq!(speed("20000flops"), Ok(20000.0));
        // SimGrid knows 'Mf' and 'megaflops', not 'Mflops'.
        assert!(speed("100Mflops").unwrap_err().contains("unknown unit 'Mflops'"));
    }

    #[test]
    fn issue16_scientific_notation_is_read_as_simgrid_reads_it() {
        assert_eq!(bandwidth("1.25e8Bps"), Ok(1.25e8));
        assert_eq!(bandwidth("1.25E+8Bps"), Ok(1.25e8));
        assert_eq!(time("1e7s"), Ok(1e7));
        assert_eq!(time("5e-6s"), Ok(5e-6));
        assert_eq!(speed("1E9f"), Ok(1e9));
        // An 'E' not followed by digits is a prefix: 5 exaflops, 2 exabytes per second.
        assert_eq!(speed("5Ef"), Ok(5e18));
        assert_eq!(bandwidth("2EBps"), Ok(2e18));
        assert_eq!(speed(".5Gf"), Ok(5e8));
        assert!(bandwidth("1e999Bps").unwrap_err().contains("out of range"));
        assert!(time("1e-400s").unwrap_err().contains("out of range"));
        assert!(bandwidth("-1Bps").is_err());
        assert!(bandwidth("nan").is_err());
        assert!(bandwidth("inf").is_err());
        assert!(speed("1e").is_err());
    }

    #[test]
    fn issue16_unitless_values_are_recognised() {
        assert!(unitless("125"));
        assert!(unitless("1e9"));
        assert!(unitless(" 0.1 "));
        assert!(!unitless("0"), "SimGrid does not warn for a unit-less zero");
        assert!(!unitless("0.0"));
        assert!(!unitless("125Bps"));
        assert!(!unitless("abc"));
    }

    #[test]
    fn issue16_messages_quote_at_most_80_characters() {
        let huge = "9".repeat(100_000) + "parsecs";
        let e = bandwidth(&huge).unwrap_err();
        assert!(e.len() < 400, "{} bytes", e.len());
    }
}
