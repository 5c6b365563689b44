//! A sweep's table: one row per point, as CSV or JSON. The CSV is byte for byte what
//! pandas' `to_csv(index=False)` writes for `simpi.sweep`'s DataFrame of the same grid
//! (minimal quoting, floats as Python's `repr`), and it can be read back from there: a
//! sweep run by Python (on Dask) fills the command line's table.

use std::io::{self, Write};

/// Picoseconds per second.
const PS_PER_SECOND: f64 = 1e12;

/// One point's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The input file as given (none when the sweep has no input files).
    pub input: Option<String>,
    /// The point's value of each swept setting, as typed.
    pub values: Vec<String>,
    /// When the last rank finished, in picoseconds.
    pub makespan_ps: u64,
    /// Events the engine processed.
    pub events: u64,
}

/// The table of a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// Whether rows have an input file (the `input` column).
    pub has_input: bool,
    /// The swept settings' columns, by Python keyword, in the grid's order.
    pub columns: Vec<String>,
    /// The rows, in the grid's order.
    pub rows: Vec<Row>,
    /// What the points' replays warned of, each after the point it came from, in grid
    /// order (not a column: printed beside the table).
    pub warnings: Vec<String>,
}

impl Table {
    /// The header: `input` (with input files), the swept settings, `makespan` (s),
    /// `makespan_ps`, `events`.
    pub fn header(&self) -> Vec<String> {
        let mut h = Vec::with_capacity(self.columns.len() + 4);
        if self.has_input {
            h.push("input".to_string());
        }
        h.extend(self.columns.iter().cloned());
        h.extend(["makespan", "makespan_ps", "events"].map(String::from));
        h
    }

    /// Writes the table as CSV.
    pub fn write_csv<W: Write>(&self, mut out: W) -> io::Result<()> {
        let line = |fields: Vec<String>| {
            let mut l = fields.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(",");
            l.push('\n');
            l
        };
        out.write_all(line(self.header()).as_bytes())?;
        for r in &self.rows {
            let mut f: Vec<String> = r.input.iter().cloned().collect();
            f.extend(r.values.iter().cloned());
            f.push(py_float(r.makespan_ps as f64 / PS_PER_SECOND));
            f.push(r.makespan_ps.to_string());
            f.push(r.events.to_string());
            out.write_all(line(f).as_bytes())?;
        }
        Ok(())
    }

    /// Writes the table as a JSON array of objects, one per row, keys in the header's
    /// order. A swept setting's values are JSON numbers when every one of them is
    /// written as one (`2500`, `1e-6`), else strings (`10us`).
    pub fn write_json<W: Write>(&self, mut out: W) -> io::Result<()> {
        let numeric: Vec<bool> = (0..self.columns.len())
            .map(|c| self.rows.iter().all(|r| is_json_number(&r.values[c])))
            .collect();
        out.write_all(b"[")?;
        for (i, r) in self.rows.iter().enumerate() {
            let mut fields = Vec::new();
            if let Some(input) = &r.input {
                fields.push(format!("\"input\": {}", json_string(input)));
            }
            for (c, v) in r.values.iter().enumerate() {
                let v = if numeric[c] { v.clone() } else { json_string(v) };
                fields.push(format!("{}: {v}", json_string(&self.columns[c])));
            }
            fields.push(format!(
                "\"makespan\": {}",
                py_float(r.makespan_ps as f64 / PS_PER_SECOND)
            ));
            fields.push(format!("\"makespan_ps\": {}", r.makespan_ps));
            fields.push(format!("\"events\": {}", r.events));
            let sep = if i == 0 { "\n  " } else { ",\n  " };
            write!(out, "{sep}{{{}}}", fields.join(", "))?;
        }
        out.write_all(if self.rows.is_empty() { b"]\n" } else { b"\n]\n" })
    }

    /// Takes each row's makespan and events from `csv`, the same sweep's table as
    /// `simpi.sweep` wrote it: the header and every row's input and values must be this
    /// table's, in this order (so a reordering is caught, not printed).
    pub fn fill_from_csv(&mut self, csv: &str) -> Result<(), String> {
        let records = parse_csv(csv)?;
        let header = self.header();
        let mut lines = records.into_iter();
        match lines.next() {
            Some(h) if h == header => {}
            Some(h) => return Err(format!("its columns are {h:?}, expected {header:?}")),
            None => return Err("it is empty".into()),
        }
        let n = header.len();
        let total = self.rows.len();
        let mut count = 0;
        for (i, fields) in lines.enumerate() {
            let row = self
                .rows
                .get_mut(i)
                .ok_or_else(|| format!("it has more than the {total} rows of the sweep"))?;
            if fields.len() != n {
                return Err(format!("row {i} has {} fields, expected {n}", fields.len()));
            }
            let mut want: Vec<&str> = row.input.iter().map(String::as_str).collect();
            want.extend(row.values.iter().map(String::as_str));
            if fields[..want.len()] != want[..] {
                return Err(format!(
                    "row {i} is the point {:?}, expected {want:?}",
                    &fields[..want.len()]
                ));
            }
            let int = |s: &str, what: &str| {
                s.parse::<u64>()
                    .map_err(|_| format!("row {i}: {what} {s:?} is not a whole number"))
            };
            row.makespan_ps = int(&fields[n - 2], "makespan_ps")?;
            row.events = int(&fields[n - 1], "events")?;
            count += 1;
        }
        if count != self.rows.len() {
            return Err(format!("it has {count} rows, the sweep {}", self.rows.len()));
        }
        Ok(())
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV records (fields may be quoted, with `""` for a quote, and span lines).
fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match c {
            '"' if field.is_empty() => loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => {
                        line += usize::from(c == '\n');
                        field.push(c);
                    }
                    None => return Err(format!("line {line}: a quoted field does not end")),
                }
            },
            ',' => fields.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                fields.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut fields));
                line += 1;
            }
            c => field.push(c),
        }
    }
    if !field.is_empty() || !fields.is_empty() {
        fields.push(field);
        records.push(fields);
    }
    Ok(records)
}

/// `x` as Python's `repr` writes a float (and so pandas' CSV): the shortest digits that
/// read back as `x`, positional from 1e-4 up to 1e16 (with `.0` when whole), else
/// scientific with a signed exponent of at least two digits (`5.654e-06`).
pub fn py_float(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e}'s exponent is an integer");
    if (-4..16).contains(&exp) {
        let s = format!("{x}");
        if s.contains('.') {
            s
        } else {
            s + ".0"
        }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

/// Whether `s` is a number as JSON writes them.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let int_start = i;
    let n = digits(&mut i);
    if n == 0 || (n > 1 && b[int_start] == b'0') {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// `s` as a JSON string.
pub fn json_string(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_python_writes_them() {
        // Python 3: repr() of each.
        let cases = [
            (5.654e-06, "5.654e-06"),
            (0.0001, "0.0001"),
            (1e-05, "1e-05"),
            (1.0, "1.0"),
            (123456.789, "123456.789"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (2.5e-12, "2.5e-12"),
            (0.1 + 0.2, "0.30000000000000004"),
            (0.0, "0.0"),
            (1.5e300, "1.5e+300"),
        ];
        for (x, want) in cases {
            assert_eq!(py_float(x), want, "{x}");
        }
    }

    fn table() -> Table {
        Table {
            has_input: true,
            columns: vec!["L".into(), "bw_factor".into()],
            rows: vec![
                Row {
                    input: Some("a,b.goal".into()),
                    values: vec!["1".into(), "0:0.5".into()],
                    makespan_ps: 5_654_000,
                    events: 6,
                },
                Row {
                    input: Some("say \"hi\".goal".into()),
                    values: vec!["2".into(), "0:1".into()],
                    makespan_ps: 1_000_000_000_000,
                    events: 7,
                },
            ],
            warnings: Vec::new(),
        }
    }

    #[test]
    fn csv_quotes_minimally_and_reads_back() {
        let t = table();
        let mut out = Vec::new();
        t.write_csv(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "input,L,bw_factor,makespan,makespan_ps,events\n\
             \"a,b.goal\",1,0:0.5,5.654e-06,5654000,6\n\
             \"say \"\"hi\"\".goal\",2,0:1,1.0,1000000000000,7\n"
        );
        let mut empty = t.clone();
        for r in &mut empty.rows {
            r.makespan_ps = 0;
            r.events = 0;
        }
        empty.fill_from_csv(&text).unwrap();
        assert_eq!(empty, t);
    }

    #[test]
    fn a_reordered_or_short_table_is_refused() {
        let t = table();
        let mut out = Vec::new();
        t.write_csv(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let swapped = format!("{}\n{}\n{}\n", lines[0], lines[2], lines[1]);
        assert!(t
            .clone()
            .fill_from_csv(&swapped)
            .unwrap_err()
            .contains("row 0 is the point"));
        let short = format!("{}\n{}\n", lines[0], lines[1]);
        assert!(t.clone().fill_from_csv(&short).unwrap_err().contains("1 rows"));
        let other = text.replacen("makespan_ps", "ps", 1);
        assert!(t.clone().fill_from_csv(&other).unwrap_err().contains("columns"));
    }

    #[test]
    fn json_numbers_stay_numbers() {
        let mut out = Vec::new();
        table().write_json(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\"L\": 1, \"bw_factor\": \"0:0.5\""), "{text}");
        assert!(text.contains("\"input\": \"say \\\"hi\\\".goal\""), "{text}");
        assert!(text.contains("\"makespan\": 5.654e-06, \"makespan_ps\": 5654000, \"events\": 6"));
        for (s, num) in [
            ("2500", true),
            ("-1.5e-3", true),
            ("01", false),
            ("1.", false),
            ("10us", false),
            ("", false),
        ] {
            assert_eq!(is_json_number(s), num, "{s}");
        }
    }
}
