//! One line of a liballprof trace: `MPI_<Name>:<start>:<argument>:...:<end>`, the
//! times in microseconds of `MPI_Wtime` (`-` where the tracer cannot read the clock:
//! MPI_Init's start, MPI_Finalize's end), each argument as the C wrapper prints it:
//! an integer, a pointer's value, a datatype as `id,size,extent`, a communicator as
//! `handle,rank,size`, and a count array as its pointer then `c0,c1,...` (one count
//! per rank of the call's communicator).

/// How one argument is printed, in the order of the call's C signature.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A pointer or handle whose value means nothing to the replay (one field).
    Ptr,
    /// An integer (one field).
    Int,
    /// A datatype: `id,size,extent` (one field).
    Type,
    /// A communicator: `handle,rank,size` (one field).
    Comm,
    /// An MPI_Op (one field).
    Op,
    /// A count array: its pointer, then the counts (two fields).
    Counts,
}

/// A communicator argument: the process's handle and its rank and size in it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct CommArg {
    /// The handle's value in the traced process.
    pub handle: u64,
    /// The process's rank in it.
    pub rank: u32,
    /// Its size.
    pub size: u32,
}

/// A parsed argument.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Arg {
    /// A pointer's (or an opaque handle's) value.
    Ptr(u64),
    /// An integer.
    Int(i64),
    /// A datatype's size in bytes.
    Type(u64),
    /// A communicator.
    Comm(CommArg),
    /// Counts of a count array.
    Counts(Vec<i64>),
}

/// A parsed line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Line<'t> {
    /// The MPI function's name.
    pub name: &'t str,
    /// Start, in picoseconds of the tracer's clock (none: `-`).
    pub start: Option<u64>,
    /// End, likewise.
    pub end: Option<u64>,
    /// The arguments the call's signature lists (empty for calls read by name only).
    pub args: Vec<Arg>,
}

/// Longest time a trace may give: the clock's 2^64 ps, in microseconds.
const MAX_MICROS: u64 = u64::MAX / 1_000_000;

/// A time field in microseconds (`123`, `123.45`) as picoseconds; `-` is none.
pub(crate) fn time(s: &str) -> Result<Option<u64>, String> {
    if s == "-" {
        return Ok(None);
    }
    let bad = || format!("'{}' is not a time in microseconds", clip(s));
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let whole: u64 = int.parse().map_err(|_| bad())?;
    if whole > MAX_MICROS {
        return Err(format!(
            "time {} µs is past what the simulated clock can count",
            clip(s)
        ));
    }
    // Digits past the picosecond are dropped.
    let mut ps = 0u64;
    let mut scale = 100_000u64;
    for b in frac.bytes().take(6) {
        ps += u64::from(b - b'0') * scale;
        scale /= 10;
    }
    whole
        .checked_mul(1_000_000)
        .and_then(|w| w.checked_add(ps))
        .map(Some)
        .ok_or_else(|| format!("time {} µs is past what the simulated clock can count", clip(s)))
}

/// At most 40 characters of `s`, for messages.
pub(crate) fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push_str("...");
    }
    out
}

fn int(s: &str, what: &str) -> Result<i64, String> {
    s.parse::<i64>()
        .map_err(|_| format!("{what} '{}' is not an integer", clip(s)))
}

fn uint(s: &str, what: &str) -> Result<u64, String> {
    s.parse::<u64>()
        .or_else(|_| s.parse::<i64>().map(|v| v as u64))
        .map_err(|_| format!("{what} '{}' is not an integer", clip(s)))
}

fn arg(kind: Kind, field: &str, list: Option<&str>) -> Result<Arg, String> {
    Ok(match kind {
        Kind::Ptr | Kind::Op => Arg::Ptr(uint(field, "the value")?),
        Kind::Int => Arg::Int(int(field, "the integer")?),
        Kind::Type => {
            let mut it = field.split(',');
            let (Some(_id), Some(size), Some(_extent), None) = (it.next(), it.next(), it.next(), it.next()) else {
                return Err(format!("datatype '{}' is not id,size,extent", clip(field)));
            };
            let size = int(size, "the datatype size")?;
            if size < 0 {
                return Err(format!("datatype size {size} is negative"));
            }
            Arg::Type(size as u64)
        }
        Kind::Comm => {
            let mut it = field.split(',');
            let (Some(h), Some(rank), Some(size), None) = (it.next(), it.next(), it.next(), it.next()) else {
                return Err(format!("communicator '{}' is not handle,rank,size", clip(field)));
            };
            let handle = uint(h, "the communicator handle")?;
            let rank = int(rank, "the rank")?;
            let size = int(size, "the communicator size")?;
            if size < 1 || size > i64::from(u32::MAX - 1) {
                return Err(format!("communicator size {size} is out of range"));
            }
            if rank < 0 || rank >= size {
                return Err(format!("rank {rank} is out of range for a communicator of {size}"));
            }
            Arg::Comm(CommArg {
                handle,
                rank: rank as u32,
                size: size as u32,
            })
        }
        Kind::Counts => {
            let list = list.unwrap_or("");
            let counts = list
                .split(',')
                .map(|c| int(c, "the count"))
                .collect::<Result<Vec<i64>, String>>()?;
            Arg::Counts(counts)
        }
    })
}

/// Parses `text` (one line, without its end of line) with the argument kinds `sig`
/// (none: the arguments are not read).
pub(crate) fn parse<'t>(text: &'t str, sig: Option<&[Kind]>) -> Result<Line<'t>, String> {
    let mut fields = text.split(':');
    let name = fields.next().unwrap_or("");
    if !name.starts_with("MPI_") || !name[4..].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(format!(
            "expected a call, MPI_<Name>:<start>:<arguments>:<end>; found '{}'",
            clip(text)
        ));
    }
    let rest: Vec<&str> = fields.collect();
    if rest.len() < 2 {
        return Err(format!("{name} needs a start and an end time"));
    }
    let start = time(rest[0]).map_err(|m| format!("{name}: start: {m}"))?;
    let end = time(rest[rest.len() - 1]).map_err(|m| format!("{name}: end: {m}"))?;
    let middle = &rest[1..rest.len() - 1];
    let mut args = Vec::new();
    if let Some(sig) = sig {
        let want: usize = sig.iter().map(|k| if *k == Kind::Counts { 2 } else { 1 }).sum();
        if middle.len() != want {
            return Err(format!(
                "{name} has {} argument field(s); liballprof writes {want}",
                middle.len()
            ));
        }
        let mut i = 0;
        for (n, &k) in sig.iter().enumerate() {
            let a = if k == Kind::Counts {
                i += 2;
                arg(k, middle[i - 2], Some(middle[i - 1]))
            } else {
                i += 1;
                arg(k, middle[i - 1], None)
            }
            .map_err(|m| format!("{name}: argument {}: {m}", n + 1))?;
            args.push(a);
        }
    }
    Ok(Line { name, start, end, args })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_microseconds_with_optional_fractions() {
        assert_eq!(time("-"), Ok(None));
        assert_eq!(time("12"), Ok(Some(12_000_000)));
        assert_eq!(time("12.5"), Ok(Some(12_500_000)));
        assert_eq!(time("0.000001"), Ok(Some(1)));
        assert!(time("1e3").is_err());
        assert!(time("").is_err());
        assert!(time("-3").is_err());
        assert!(time("99999999999999999999").is_err());
    }

    #[test]
    fn a_send_is_split_by_its_signature() {
        use Kind::*;
        let l = parse(
            "MPI_Send:10:140:4:10,8,8:1:7:555,0,4:12",
            Some(&[Ptr, Int, Type, Int, Int, Comm]),
        )
        .unwrap();
        assert_eq!(l.name, "MPI_Send");
        assert_eq!((l.start, l.end), (Some(10_000_000), Some(12_000_000)));
        assert_eq!(l.args[1], Arg::Int(4));
        assert_eq!(l.args[2], Arg::Type(8));
        assert_eq!(
            l.args[5],
            Arg::Comm(CommArg {
                handle: 555,
                rank: 0,
                size: 4
            })
        );
        let err = parse(
            "MPI_Send:10:140:4:10,8,8:1:555,0,4:12",
            Some(&[Ptr, Int, Type, Int, Int, Comm]),
        )
        .unwrap_err();
        assert!(err.contains("5 argument field(s); liballprof writes 6"), "{err}");
    }

    #[test]
    fn count_arrays_take_two_fields() {
        use Kind::*;
        let l = parse(
            "MPI_Reduce_scatter:1:2:3:77:1,2,3:10,4,4:3:9,1,3:5",
            Some(&[Ptr, Ptr, Counts, Type, Op, Comm]),
        )
        .unwrap();
        assert_eq!(l.args[2], Arg::Counts(vec![1, 2, 3]));
    }
}
