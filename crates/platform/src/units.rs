//! Quantities with units, as SimGrid writes them: bandwidths (`125MBps`, `1Gbps`,
//! `10GiBps`), times (`50us`, `1.5ms`) and speeds (`1Gf`, `100Mflops`). A bare number is
//! bytes per second, seconds or flop/s.

/// Parses a bandwidth into bytes per second.
pub fn bandwidth(s: &str) -> Result<f64, String> {
    let units: &[(&str, f64)] = &[("Bps", 1.0), ("bps", 0.125)];
    parse(s, units, "a bandwidth like '125MBps' or '10Gbps'")
}

/// Parses a time into seconds.
pub fn time(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let units: &[(&str, f64)] = &[
        ("ps", 1e-12),
        ("ns", 1e-9),
        ("us", 1e-6),
        ("ms", 1e-3),
        ("s", 1.0),
        ("m", 60.0),
        ("h", 3600.0),
        ("d", 86400.0),
        ("w", 604800.0),
    ];
    // Times take no prefixes: the unit is the whole suffix.
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("expected a time like '50us' or '1.5ms', found '{s}'"))?;
    let k =
        if unit.is_empty() {
            1.0
        } else {
            units.iter().find(|(u, _)| *u == unit).map(|(_, k)| *k).ok_or_else(|| {
                format!("unknown time unit '{unit}' in '{s}': expected ps, ns, us, ms, s, m, h, d or w")
            })?
        };
    check(v * k, s)
}

/// Parses a computing speed into flop/s.
pub fn speed(s: &str) -> Result<f64, String> {
    let units: &[(&str, f64)] = &[("flops", 1.0), ("f", 1.0)];
    parse(s, units, "a speed like '1Gf' or '100Mflops'")
}

fn check(v: f64, s: &str) -> Result<f64, String> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("'{s}' is not a finite, non-negative quantity"))
    }
}

/// `number [prefix] unit`, with decimal (k, M, G, ...) or binary (Ki, Mi, ...) prefixes.
fn parse(s: &str, units: &[(&str, f64)], what: &str) -> Result<f64, String> {
    let s = s.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (num, suffix) = s.split_at(split);
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("expected {what}, found '{s}'"))?;
    if suffix.is_empty() {
        return check(v, s);
    }
    for &(unit, k) in units {
        if let Some(prefix) = suffix.strip_suffix(unit) {
            let m =
                prefix_factor(prefix).ok_or_else(|| format!("unknown prefix '{prefix}' in '{s}': expected {what}"))?;
            return check(v * m * k, s);
        }
    }
    Err(format!("unknown unit in '{s}': expected {what}"))
}

fn prefix_factor(p: &str) -> Option<f64> {
    const DEC: [&str; 9] = ["", "k", "M", "G", "T", "P", "E", "Z", "Y"];
    const BIN: [&str; 9] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"];
    if let Some(i) = DEC.iter().position(|d| *d == p) {
        return Some(1000f64.powi(i as i32));
    }
    BIN.iter().position(|b| *b == p).map(|i| 1024f64.powi(i as i32))
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
    }

    #[test]
    fn times() {
        assert_eq!(time("50us"), Ok(50.0 * 1e-6)); // as SimGrid: value times unit
        assert_eq!(time("1.5ms"), Ok(1.5e-3));
        assert_eq!(time("0"), Ok(0.0));
        assert_eq!(time("2s"), Ok(2.0));
        assert!(time("5 fortnights").is_err());
    }

    #[test]
    fn speeds() {
        assert_eq!(speed("1Gf"), Ok(1e9));
        assert_eq!(speed("100Mflops"), Ok(1e8));
        assert_eq!(speed("20000f"), Ok(20000.0));
    }
}
