//! Piece-wise functions of the message size, in SimGrid's string syntax:
//! `bound:v0[:v1...];bound:...`. A segment applies to sizes *strictly above* its bound and
//! up to the next bound (SimGrid 3.32 compares `size > bound`, whatever its docs say).

/// A piece-wise function of size with one or more values per segment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Piecewise {
    /// (bound, values), sorted by bound.
    segments: Vec<(u64, Vec<f64>)>,
}

impl Piecewise {
    /// Parses `bound:value[:value..]` chunks separated by `;`; values are numbers (seconds
    /// for overheads). Chunks may come in any order.
    pub fn parse(s: &str) -> Result<Piecewise, String> {
        let mut segments = Vec::new();
        for chunk in s.split(';').map(str::trim).filter(|c| !c.is_empty()) {
            let mut fields = chunk.split(':');
            let bound = fields.next().unwrap().trim();
            // SimGrid reads the bound as an integer, dropping any fraction.
            let bound: u64 = bound
                .split('.')
                .next()
                .unwrap()
                .parse()
                .map_err(|_| format!("expected 'bound:value' chunks like '65472:0.94', found '{chunk}'"))?;
            let values: Vec<f64> = fields
                .map(|v| {
                    v.trim()
                        .parse::<f64>()
                        .map_err(|_| format!("'{v}' in '{chunk}' is not a number"))
                })
                .collect::<Result<_, _>>()?;
            if values.is_empty() {
                return Err(format!("'{chunk}' has a bound but no value"));
            }
            segments.push((bound, values));
        }
        segments.sort_by_key(|s| s.0);
        Ok(Piecewise { segments })
    }

    /// A factor: 1.0 up to and including the first bound, then each segment's first value.
    pub fn factor(&self, size: u64) -> f64 {
        let mut cur = 1.0;
        for (bound, v) in &self.segments {
            if size <= *bound {
                return cur;
            }
            cur = v[0];
        }
        cur
    }

    /// An overhead `a + b·size` seconds: the first segment's formula applies up to its
    /// bound too (SimGrid's rule for `smpi/os`, `or`, `ois`); empty means 0.
    pub fn overhead(&self, size: u64) -> f64 {
        let lin = |v: &Vec<f64>| v[0] + v.get(1).copied().unwrap_or(0.0) * size as f64;
        let Some(first) = self.segments.first() else { return 0.0 };
        let mut cur = lin(&first.1);
        for (bound, v) in &self.segments {
            if size <= *bound {
                return cur;
            }
            cur = lin(v);
        }
        cur
    }

    /// A function from `(bound, values)` segments in any order (each with at least
    /// one value).
    pub fn from_segments(mut segments: Vec<(u64, Vec<f64>)>) -> Piecewise {
        segments.sort_by_key(|s| s.0);
        Piecewise { segments }
    }

    /// The segments, `(bound, values)` sorted by bound.
    pub fn segments(&self) -> &[(u64, Vec<f64>)] {
        &self.segments
    }

    /// Every value of every segment.
    pub fn values(&self) -> impl Iterator<Item = f64> + '_ {
        self.segments.iter().flat_map(|(_, v)| v.iter().copied())
    }

    /// Refuses a segment with more than `most` values: what reads it would use only the
    /// first `most` and ignore the rest (a factor is `bound:value`, an overhead
    /// `bound:a:b` for `a + b·size`).
    pub fn check_width(&self, most: usize) -> Result<(), String> {
        match self.segments.iter().find(|(_, v)| v.len() > most) {
            Some((bound, v)) => Err(format!(
                "the segment from {bound} bytes has {} values where {most} at most are used",
                v.len()
            )),
            None => Ok(()),
        }
    }

    /// True if every value is 1 (factors) — used to describe presets.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_apply_strictly_above_their_bound() {
        let f = Piecewise::parse("65472:0.94;0:0.81;1426:0.6").unwrap();
        assert_eq!(f.factor(0), 1.0);
        assert_eq!(f.factor(1), 0.81);
        assert_eq!(f.factor(1426), 0.81);
        assert_eq!(f.factor(1427), 0.6);
        assert_eq!(f.factor(65472), 0.6);
        assert_eq!(f.factor(65473), 0.94);
    }

    #[test]
    fn overheads_use_the_first_formula_below_the_first_bound() {
        let o = Piecewise::parse("0:1e-6:1e-9;1000:2e-6:2e-9").unwrap();
        assert_eq!(o.overhead(0), 1e-6);
        assert!((o.overhead(100) - (1e-6 + 100.0 * 1e-9)).abs() < 1e-18);
        assert!((o.overhead(2000) - (2e-6 + 2000.0 * 2e-9)).abs() < 1e-18);
        assert_eq!(Piecewise::parse("").unwrap().overhead(5), 0.0);
    }

    #[test]
    fn segments_wider_than_their_use_are_found() {
        let o = Piecewise::parse("0:1e-6:1e-9;1000:2e-6:2e-9:7").unwrap();
        assert!(o.check_width(3).is_ok());
        let e = o.check_width(2).unwrap_err();
        assert!(e.contains("from 1000 bytes has 3 values"), "{e}");
        assert!(Piecewise::parse("0:1;9:2").unwrap().check_width(1).is_ok());
    }

    #[test]
    fn malformed_strings_are_errors() {
        assert!(Piecewise::parse("abc").is_err());
        assert!(Piecewise::parse("10").is_err());
        assert!(Piecewise::parse("10:x").is_err());
    }
}
