//! LogGOPSim's noise traces: one detour per line, `<start> <duration>`, in the replay's
//! time unit (LogGOPSim's nanoseconds by default), sorted by start; `#` begins a
//! comment line; blank lines are skipped. The format and how noise is charged are in
//! `docs/formats.md` and `docs/models.md`.
//!
//! Every value is checked where it is read: a number that is not a plain decimal (with
//! an optional exponent), negative, or past the 64-bit picosecond clock, a line without
//! exactly two numbers, a start before the previous one, is an error naming the file and
//! the line. Numbers are converted to picoseconds exactly (rounded half up below 1 ps).

use simpi_kernel::TimeUnit;
use simpi_mpi::noise::NoiseTrace;
use std::fmt;
use std::io::BufRead;
use std::path::Path;

/// A malformed or unreadable noise trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoiseError {
    /// The file name as given.
    pub file: String,
    /// 1-based line, or 0 when the problem is the whole file.
    pub line: u32,
    /// What is wrong and what was expected.
    pub msg: String,
}

impl fmt::Display for NoiseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.file, self.msg),
            l => write!(f, "{}:{}: {}", self.file, l, self.msg),
        }
    }
}

impl std::error::Error for NoiseError {}

/// Reads the noise trace at `path`, its times in `unit`.
pub fn read_noise(path: &Path, unit: TimeUnit) -> Result<NoiseTrace, NoiseError> {
    let file = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| NoiseError {
        file: file.clone(),
        line: 0,
        msg: format!("cannot open: {e}"),
    })?;
    parse_noise(std::io::BufReader::new(f), &file, unit)
}

/// Parses a noise trace from `input`; `file` names it in errors.
pub fn parse_noise<R: BufRead>(mut input: R, file: &str, unit: TimeUnit) -> Result<NoiseTrace, NoiseError> {
    let err = |line: u32, msg: String| NoiseError {
        file: file.to_string(),
        line,
        msg,
    };
    let mut detours: Vec<(u64, u64)> = Vec::new();
    let mut buf = Vec::new();
    let mut line = 0u32;
    let mut last_line = 0u32;
    loop {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| err(line.saturating_add(1), format!("cannot read: {e}")))?;
        if n == 0 {
            break;
        }
        line = line
            .checked_add(1)
            .ok_or_else(|| err(0, "more lines than 2^32".into()))?;
        let text = std::str::from_utf8(&buf).map_err(|_| err(line, "not UTF-8 text".into()))?;
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let mut fields = text.split_whitespace();
        let (Some(a), Some(b), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(err(
                line,
                format!("expected `<start> <duration>` (two numbers), found {}", quote(text)),
            ));
        };
        let start = time(a, unit).map_err(|m| err(line, format!("start {}: {m}", quote(a))))?;
        let duration = time(b, unit).map_err(|m| err(line, format!("duration {}: {m}", quote(b))))?;
        if let Some(&(prev, _)) = detours.last() {
            if start < prev {
                return Err(err(
                    line,
                    "this detour starts before the previous one: starts must not decrease (sort the trace)".into(),
                ));
            }
        }
        detours.push((start, duration));
        last_line = line;
    }
    let trace = NoiseTrace::new(&detours).map_err(|m| err(0, m))?;
    // Offsets into the trace are whole units: a shorter period would put every rank
    // of every replication at 0.
    if trace.period() < unit.ps_per_unit() {
        return Err(err(
            last_line,
            format!(
                "the period (this last start) is under one time unit ({}): offsets are whole units, so every rank would read the trace from 0 (give a finer --time-unit)",
                unit.name()
            ),
        ));
    }
    Ok(trace)
}

/// A value for an error message, cut short if long.
fn quote(s: &str) -> String {
    const MAX: usize = 40;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("'{}...'", &s[..i]),
        None => format!("'{s}'"),
    }
}

/// A decimal number of `unit`s (`12`, `2.5`, `1e3`, `.5`) as picoseconds, exactly,
/// rounded half up below one picosecond.
pub fn time(s: &str, unit: TimeUnit) -> Result<u64, String> {
    let body = s.strip_prefix('+').unwrap_or(s);
    if body.starts_with('-') {
        return Err("a time cannot be negative".into());
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa, ""),
    };
    let digits_ok = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits_ok(int) || !digits_ok(frac) {
        return Err("expected a decimal number".into());
    }
    let mut exp: i64 = match exponent {
        None => 0,
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits_ok(digits) {
                return Err("expected a decimal number (bad exponent)".into());
            }
            // Exponents past any useful size are clamped: the value is then 0 or too large.
            let v: i64 = digits.parse().unwrap_or(i64::MAX).min(1000);
            if e.starts_with('-') {
                -v
            } else {
                v
            }
        }
    };
    // The significant digits as one integer, and the power of ten it is scaled by.
    let mut m: u128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        match m.checked_mul(10).and_then(|x| x.checked_add((b - b'0') as u128)) {
            Some(x) => m = x,
            // More than 38 digits: the rest only shifts the scale.
            None => exp += 1,
        }
    }
    exp -= frac.len() as i64;
    exp += unit.ps_per_unit().ilog10() as i64;
    let too_big = || "past the simulated clock's end (2^64 ps, about 213 days)".to_string();
    let ps: u128 = if m == 0 {
        0
    } else if exp >= 0 {
        let scale = u32::try_from(exp)
            .ok()
            .and_then(|e| 10u128.checked_pow(e))
            .ok_or_else(too_big)?;
        m.checked_mul(scale).ok_or_else(too_big)?
    } else {
        match u32::try_from(-exp).ok().and_then(|e| 10u128.checked_pow(e)) {
            // Rounded half up; `m + div / 2` could pass u128's end with 38 digits.
            Some(div) => m / div + u128::from(m % div >= div - div / 2),
            None => 0,
        }
    };
    u64::try_from(ps).map_err(|_| too_big())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<NoiseTrace, NoiseError> {
        parse_noise(text.as_bytes(), "n.txt", TimeUnit::Ns)
    }

    #[test]
    fn a_long_fraction_rounds_without_overflow() {
        // Found by the `noise` fuzz target: 41 significant digits below the picosecond.
        let long = "3.1000018446744073709551684706447437095511";
        assert_eq!(time(long, TimeUnit::Ps), Ok(3));
        assert_eq!(time("3.5000000000000000000000000000000000000001", TimeUnit::Ps), Ok(4));
        assert_eq!(time("2.4999999999999999999999999999999999999999", TimeUnit::Ps), Ok(2));
    }

    #[test]
    fn times_convert_exactly() {
        let ns = |s| time(s, TimeUnit::Ns);
        assert_eq!(ns("12"), Ok(12_000));
        assert_eq!(ns("2.5"), Ok(2_500));
        assert_eq!(ns("+.25"), Ok(250));
        assert_eq!(ns("1e3"), Ok(1_000_000));
        assert_eq!(ns("1.5E-3"), Ok(2)); // 1.5 ps rounds half up
        assert_eq!(ns("0.0004"), Ok(0));
        assert_eq!(ns("0e999999999999999999999"), Ok(0));
        assert_eq!(time("18446744073709551615", TimeUnit::Ps), Ok(u64::MAX));
        assert!(time("18446744073709551616", TimeUnit::Ps).is_err());
        assert!(ns("1e17").is_err()); // 1e20 ps
        for bad in ["", ".", "-1", "1.2.3", "nan", "inf", "0x10", "1e", "1e+", "e5", "1_000"] {
            assert!(ns(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn a_trace_reads_with_comments_and_blank_lines() {
        let t = parse("# start duration\n0\t10\n\n100 5\n  1000  3  \n").unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(t.period(), 1_000_000);
        // [60 ns, 110 ns) meets the detour at 100 ns (5 ns).
        assert_eq!(t.detour(60_000, 50_000), 5_000);
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("0 1\n5 1 7\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.to_string().starts_with("n.txt:2: expected `<start> <duration>`"),
            "{e}"
        );
        let e = parse("0 1\n5 x\n").unwrap_err();
        assert!(e.to_string().starts_with("n.txt:2: duration 'x'"), "{e}");
        let e = parse("0 1\n10 1\n# c\n5 1\n").unwrap_err();
        assert_eq!((e.line, e.msg.contains("before the previous")), (4, true), "{e}");
        let e = parse("0 1\n").unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.msg.contains("at least two"), "{e}");
        let e = parse_noise(&b"0 1\n\xff 2\n"[..], "n.txt", TimeUnit::Ns).unwrap_err();
        assert_eq!(e.line, 2);
    }
}
