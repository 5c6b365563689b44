//! The GOAL text reader: statements, labels and dependencies into a [`GoalSink`].

use super::fast::{fast_statement, Fast};
use super::labels::{LabelDef, LabelTable};
use super::lexer::{Lexer, Tok, TokKind};
use crate::quote::{quote, quote_bytes, BOM, MAX_LINE, QUOTE_LIMIT};
use simpi_kernel::TimeUnit;
use simpi_mpi::{BuildError, Op, OpKind, Schedule, ScheduleBuilder, ANY_SOURCE, ANY_TAG};
use std::fmt;
use std::io::Read;
use std::path::Path;

/// A problem in a GOAL file, with where it is and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalError {
    /// The file name as given.
    pub file: String,
    /// 1-based line, or 0 when the problem is not at a line (e.g. the file is missing).
    pub line: u32,
    /// 1-based column, or 0 when not known.
    pub col: u32,
    /// What is wrong and what was expected.
    pub msg: String,
}

impl fmt::Display for GoalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.col) {
            (0, _) => write!(f, "{}: {}", self.file, self.msg),
            (l, 0) => write!(f, "{}:{}: {}", self.file, l, self.msg),
            (l, c) => write!(f, "{}:{}:{}: {}", self.file, l, c, self.msg),
        }
    }
}

impl std::error::Error for GoalError {}

/// Receives what the reader parses. The schedule builder is one sink; the op locator
/// used for error reports is another.
pub trait GoalSink {
    /// The `num_ranks` line.
    fn num_ranks(&mut self, n: u32);
    /// A `rank R {` line.
    fn begin_rank(&mut self, rank: u64) -> Result<(), BuildError>;
    /// An operation at `line`; returns its rank-local index.
    fn op(&mut self, op: Op, line: u32) -> Result<u32, BuildError>;
    /// `a requires b`, by local indices.
    fn requires(&mut self, a: u32, b: u32);
    /// `a irequires b`, by local indices.
    fn irequires(&mut self, a: u32, b: u32);
    /// The closing `}` of a rank.
    fn end_rank(&mut self) -> Result<(), BuildError>;
    /// True once the sink has everything it wants; the reader then stops early.
    fn satisfied(&self) -> bool {
        false
    }
}

#[derive(Default)]
struct BuildSink(Option<ScheduleBuilder>);

impl GoalSink for BuildSink {
    fn num_ranks(&mut self, n: u32) {
        self.0 = Some(ScheduleBuilder::new(n));
    }
    fn begin_rank(&mut self, rank: u64) -> Result<(), BuildError> {
        self.0.as_mut().unwrap().begin_rank(rank)
    }
    #[inline]
    fn op(&mut self, op: Op, _line: u32) -> Result<u32, BuildError> {
        self.0.as_mut().unwrap().push(op)
    }
    #[inline]
    fn requires(&mut self, a: u32, b: u32) {
        self.0.as_mut().unwrap().requires(a, b)
    }
    #[inline]
    fn irequires(&mut self, a: u32, b: u32) {
        self.0.as_mut().unwrap().irequires(a, b)
    }
    fn end_rank(&mut self) -> Result<(), BuildError> {
        self.0.as_mut().unwrap().end_rank()
    }
}

/// Reads a GOAL schedule from `input`; `name` is used in error messages and `unit` is
/// the unit of `calc` times.
pub fn read_goal<R: Read>(input: R, name: &str, unit: TimeUnit) -> Result<Schedule, GoalError> {
    read_goal_sized(input, name, unit, None)
}

/// [`read_goal`] of an input of `size` bytes, if known (it bounds `num_ranks`).
fn read_goal_sized<R: Read>(input: R, name: &str, unit: TimeUnit, size: Option<u64>) -> Result<Schedule, GoalError> {
    let mut sink = BuildSink::default();
    parse_goal_sized(input, name, unit, &mut sink, true, size)?;
    Ok(sink.0.expect("parse_goal guarantees num_ranks").finish())
}

/// Ranks a schedule may declare whatever its size: `num_ranks` may exceed the rank
/// blocks (ranks without one do nothing), but each declared rank costs memory in the
/// schedule and the simulation, so a larger count must come with a file at least that
/// many bytes long (a block takes more than a byte: a schedule that defines its ranks
/// always passes). A typo such as `num_ranks 300000000` is refused instead of taking
/// gigabytes.
pub const FREE_RANKS: u64 = 1 << 20;

/// The most ranks an input of `size` bytes (unknown: `None`) may declare.
fn max_ranks(size: Option<u64>) -> u64 {
    size.unwrap_or(0).clamp(FREE_RANKS, u32::MAX as u64 - 1)
}

/// The number of ranks the GOAL file at `path` declares, read from its header alone,
/// with the reader's checks and messages (a malformed or missing `num_ranks` line is
/// reported at its line).
pub fn declared_ranks(path: &Path) -> Result<u32, GoalError> {
    let name = path.display().to_string();
    let cannot = |e: std::io::Error| GoalError {
        file: name.clone(),
        line: 0,
        col: 0,
        msg: format!("cannot open: {e}"),
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    let size = file.metadata().map_err(cannot)?.len();
    let mut probe = NumRanks(None);
    parse_goal_sized(file, &name, TimeUnit::Ns, &mut probe, true, Some(size))?;
    Ok(probe.0.expect("a schedule without num_ranks is an error"))
}

/// Reads a GOAL schedule from a file; large files are parsed by two threads.
pub fn read_goal_file(path: &Path, unit: TimeUnit) -> Result<Schedule, GoalError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    read_goal_file_with(path, unit, if threads >= 2 { PARALLEL_MIN_BYTES } else { u64::MAX })
}

/// Files at least this large are parsed in two halves at once.
const PARALLEL_MIN_BYTES: u64 = 8 << 20;

/// [`read_goal_file`] with the size above which two threads are used (for tests).
#[doc(hidden)]
pub fn read_goal_file_with(path: &Path, unit: TimeUnit, parallel_min: u64) -> Result<Schedule, GoalError> {
    let name = path.display().to_string();
    let cannot = |e: std::io::Error| GoalError {
        file: name.clone(),
        line: 0,
        col: 0,
        msg: format!("cannot open: {e}"),
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    let size = file.metadata().map_err(cannot)?.len();
    if size >= parallel_min {
        if let Some(s) = read_in_halves(path, &name, unit, size)? {
            return Ok(s);
        }
    }
    read_goal_sized(file, &name, unit, Some(size))
}

/// Parses the two halves of a file (split before a `rank` line near the middle) in two
/// threads and joins the results, which are identical to a sequential parse. Returns
/// `None` whenever the split might not be clean (the first half ends inside a block or
/// comment), the second half has any error (so the sequential parse can report it with
/// the right line number), or the halves define the same rank.
fn read_in_halves(path: &Path, name: &str, unit: TimeUnit, size: u64) -> Result<Option<Schedule>, GoalError> {
    use std::io::{Seek, SeekFrom};
    let open = || std::fs::File::open(path).ok();
    let Some(head) = open() else { return Ok(None) };
    let mut probe = NumRanks(None);
    let _ = parse_goal_part(head, name, unit, &mut probe, None, size);
    let Some(n) = probe.0 else { return Ok(None) };
    let Some(split) = open().and_then(|f| find_split(f, size / 2)) else {
        return Ok(None);
    };
    let (Some(first), Some(mut second)) = (open(), open()) else {
        return Ok(None);
    };
    if second.seek(SeekFrom::Start(split)).is_err() {
        return Ok(None);
    }
    let (a, b) = std::thread::scope(|scope| {
        let b = scope.spawn(move || {
            let mut sink = BuildSink(Some(ScheduleBuilder::new(n)));
            parse_goal_part(second, name, unit, &mut sink, Some(n), size).map(|end| (end, sink))
        });
        let mut sink = BuildSink::default();
        let a = parse_goal_part(first.take(split), name, unit, &mut sink, None, size).map(|end| (end, sink));
        (a, b.join().expect("parser thread panicked"))
    });
    let (end_a, sink_a) = a?;
    if end_a.in_comment || end_a.open_rank.is_some() {
        return Ok(None);
    }
    let Ok((end_b, sink_b)) = b else { return Ok(None) };
    if end_b.in_comment || end_b.open_rank.is_some() {
        return Ok(None);
    }
    let (Some(a), Some(b)) = (sink_a.0, sink_b.0) else {
        return Ok(None);
    };
    let mut whole = a.finish();
    if whole.append(b.finish()).is_err() {
        return Ok(None);
    }
    HALVES_JOINED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(Some(whole))
}

static HALVES_JOINED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many files were parsed in two halves so far (for tests).
#[doc(hidden)]
pub fn halves_joined() -> usize {
    HALVES_JOINED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The offset of the first line at or after `from` that starts with `rank` (a place
/// where, in a well-formed file, a rank block begins).
fn find_split(mut f: std::fs::File, from: u64) -> Option<u64> {
    use std::io::{Seek, SeekFrom};
    f.seek(SeekFrom::Start(from)).ok()?;
    let mut buf = vec![0u8; 1 << 20];
    let mut pos = from;
    loop {
        let n = f.read(&mut buf).ok()?;
        if let Some(k) = memchr::memmem::find(&buf[..n], b"\nrank ") {
            return Some(pos + k as u64 + 1);
        }
        if n <= 6 {
            // Nothing new past the bytes read again: the end of the file.
            return None;
        }
        // Step back a little so a marker across the boundary is still found.
        pos += (n - 6) as u64;
        f.seek(SeekFrom::Start(pos)).ok()?;
    }
}

/// A sink that only wants `num_ranks`.
struct NumRanks(Option<u32>);

impl GoalSink for NumRanks {
    fn num_ranks(&mut self, n: u32) {
        self.0 = Some(n);
    }
    fn begin_rank(&mut self, _rank: u64) -> Result<(), BuildError> {
        Ok(())
    }
    fn op(&mut self, _op: Op, _line: u32) -> Result<u32, BuildError> {
        Ok(0)
    }
    fn requires(&mut self, _a: u32, _b: u32) {}
    fn irequires(&mut self, _a: u32, _b: u32) {}
    fn end_rank(&mut self) -> Result<(), BuildError> {
        Ok(())
    }
    fn satisfied(&self) -> bool {
        self.0.is_some()
    }
}

/// Bytes read from the input at a time.
const CHUNK: usize = 4 << 20;

/// Parses GOAL text into `sink`. Reads in large chunks and parses lines in place.
pub fn parse_goal<R: Read, S: GoalSink>(input: R, name: &str, unit: TimeUnit, sink: &mut S) -> Result<(), GoalError> {
    parse_goal_with(input, name, unit, sink, true)
}

/// [`parse_goal`], optionally without the fast path (to test that both agree).
#[doc(hidden)]
pub fn parse_goal_with<R: Read, S: GoalSink>(
    input: R,
    name: &str,
    unit: TimeUnit,
    sink: &mut S,
    fast: bool,
) -> Result<(), GoalError> {
    parse_goal_sized(input, name, unit, sink, fast, None)
}

/// [`parse_goal_with`] of an input of `size` bytes, if known (it bounds `num_ranks`:
/// see [`FREE_RANKS`]).
pub(crate) fn parse_goal_sized<R: Read, S: GoalSink>(
    input: R,
    name: &str,
    unit: TimeUnit,
    sink: &mut S,
    fast: bool,
    size: Option<u64>,
) -> Result<(), GoalError> {
    let end = parse_lines(input, name, unit, sink, fast, None, max_ranks(size))?;
    let at_end = |msg: String| GoalError {
        file: name.to_string(),
        line: end.lines,
        col: 0,
        msg,
    };
    if end.in_comment {
        return Err(at_end("end of file inside a /* comment: expected '*/'".into()));
    }
    if let Some((rank, line)) = end.open_rank {
        return Err(at_end(format!(
            "end of file inside the block of rank {rank} opened at line {line}: expected '}}'"
        )));
    }
    if !end.saw_num_ranks && !sink.satisfied() {
        return Err(GoalError {
            file: name.to_string(),
            line: 0,
            col: 0,
            msg: "no 'num_ranks' line: this is not a GOAL schedule".into(),
        });
    }
    Ok(())
}

/// Parses part of a file; `num_ranks` is given for a part that starts after the header.
fn parse_goal_part<R: Read, S: GoalSink>(
    input: R,
    name: &str,
    unit: TimeUnit,
    sink: &mut S,
    num_ranks: Option<u32>,
    size: u64,
) -> Result<PartEnd, GoalError> {
    parse_lines(input, name, unit, sink, true, num_ranks, max_ranks(Some(size)))
}

/// Where the input stopped.
struct PartEnd {
    lines: u32,
    in_comment: bool,
    open_rank: Option<(u64, u32)>,
    saw_num_ranks: bool,
}

fn parse_lines<R: Read, S: GoalSink>(
    mut input: R,
    name: &str,
    unit: TimeUnit,
    sink: &mut S,
    fast: bool,
    num_ranks: Option<u32>,
    max_ranks: u64,
) -> Result<PartEnd, GoalError> {
    let mut p = Parser {
        fast,
        name,
        unit,
        line: 0,
        num_ranks,
        max_ranks,
        open: None,
        labels: LabelTable::default(),
        in_comment: false,
        rank_len: 0,
    };
    let mut buf: Vec<u8> = vec![0; CHUNK];
    let mut filled = 0usize;
    let mut eof = false;
    // Whether the start of the input, where a byte-order mark may be, is still ahead.
    let mut at_start = true;
    'read: while !eof {
        if filled == buf.len() {
            // A line longer than the buffer: grow it, up to a bound.
            if buf.len() >= MAX_LINE {
                p.line += 1;
                return Err(p.err(
                    0,
                    format!(
                        "the line is longer than {} MiB: this is not a GOAL schedule",
                        MAX_LINE >> 20
                    ),
                ));
            }
            buf.resize(buf.len() * 2, 0);
        }
        let n = loop {
            match input.read(&mut buf[filled..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(p.err(0, format!("read error: {e}"))),
            }
        };
        eof = n == 0;
        filled += n;
        let mut start = 0;
        if at_start && (filled >= BOM.len() || eof) {
            at_start = false;
            if buf[..filled].starts_with(BOM) {
                start = BOM.len();
            }
        } else if at_start {
            continue; // too few bytes yet to tell
        }
        while let Some(k) = memchr::memchr(b'\n', &buf[start..filled]) {
            p.line(&buf[start..start + k], sink)?;
            start += k + 1;
            if sink.satisfied() {
                break 'read;
            }
        }
        if eof && start < filled {
            p.line(&buf[start..filled], sink)?;
            start = filled;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
    }
    Ok(PartEnd {
        lines: p.line,
        in_comment: p.in_comment,
        open_rank: p.open.as_ref().map(|o| (o.rank, o.line)),
        saw_num_ranks: p.num_ranks.is_some() && num_ranks.is_none(),
    })
}

struct OpenRank {
    rank: u64,
    line: u32,
}

struct Parser<'n> {
    /// Whether to try the fast path first.
    fast: bool,
    name: &'n str,
    unit: TimeUnit,
    line: u32,
    num_ranks: Option<u32>,
    /// The most ranks `num_ranks` may declare (see [`FREE_RANKS`]).
    max_ranks: u64,
    open: Option<OpenRank>,
    labels: LabelTable,
    in_comment: bool,
    /// Operations defined so far in the open rank (the next one's local index).
    rank_len: u32,
}

fn found(t: Option<Tok<'_>>) -> String {
    match t {
        Some(t) => t.kind.describe(),
        None => "the end of the line".into(),
    }
}

fn is_word(t: Option<Tok<'_>>, w: &[u8]) -> bool {
    matches!(t, Some(Tok { kind: TokKind::Word(x), .. }) if x == w)
}

fn text(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

impl Parser<'_> {
    fn err(&self, col: u32, msg: String) -> GoalError {
        GoalError {
            file: self.name.to_string(),
            line: self.line,
            col,
            msg,
        }
    }

    fn build_err(&self, col: u32, e: BuildError) -> GoalError {
        let msg = match &e {
            BuildError::Cycle { rank, ops } => cycle_message(*rank, ops, &self.labels),
            _ => e.to_string(),
        };
        self.err(col, msg)
    }

    /// Parses one line (without its newline).
    #[inline]
    fn line<S: GoalSink>(&mut self, bytes: &[u8], sink: &mut S) -> Result<(), GoalError> {
        self.line += 1;
        if self.fast && self.open.is_some() && !self.in_comment {
            if let Some(f) = fast_statement(bytes) {
                if self.apply_fast(f, sink)? {
                    return Ok(());
                }
            }
        }
        let mut c = Lexer::new(bytes, self.in_comment);
        while c.peek().is_some() {
            if self.open.is_some() {
                self.rank_statement(&mut c, sink)?;
            } else {
                self.top_statement(&mut c, sink)?;
            }
        }
        self.in_comment = c.in_comment;
        Ok(())
    }

    fn top_statement<S: GoalSink>(&mut self, c: &mut Lexer<'_>, sink: &mut S) -> Result<(), GoalError> {
        let t = c.next().unwrap();
        match t.kind {
            TokKind::Word(b"num_ranks") => {
                if self.num_ranks.is_some() {
                    return Err(self.err(t.col, "'num_ranks' given twice".into()));
                }
                let col = c.col();
                let n = self.int(c, "the number of ranks")?;
                if n == 0 || n >= u32::MAX as u64 {
                    return Err(self.err(
                        col,
                        format!("num_ranks must be between 1 and {}, found {n}", u32::MAX - 1),
                    ));
                }
                if n > self.max_ranks {
                    return Err(self.err(
                        col,
                        format!(
                            "num_ranks {n} is more than the {} ranks this schedule may declare: up to \
                             {FREE_RANKS}, or as many as the file has bytes if that is more (ranks without \
                             a block do nothing, but each still takes memory)",
                            self.max_ranks
                        ),
                    ));
                }
                self.num_ranks = Some(n as u32);
                sink.num_ranks(n as u32);
                self.end_of_statement(c)
            }
            TokKind::Word(b"rank") => {
                if self.num_ranks.is_none() {
                    return Err(self.err(t.col, "expected 'num_ranks N' before the first rank block".into()));
                }
                let col = c.col();
                let r = self.int(c, "a rank number")?;
                let brace = c.next();
                if !matches!(
                    brace,
                    Some(Tok {
                        kind: TokKind::Punct(b'{'),
                        ..
                    })
                ) {
                    let at = brace.map_or(c.eol(), |t| t.col);
                    return Err(self.err(at, format!("expected '{{' after 'rank {r}', found {}", found(brace))));
                }
                sink.begin_rank(r).map_err(|e| self.build_err(col, e))?;
                self.labels.clear();
                self.rank_len = 0;
                self.open = Some(OpenRank {
                    rank: r,
                    line: self.line,
                });
                Ok(())
            }
            other => Err(self.err(
                t.col,
                format!(
                    "expected 'num_ranks N' or 'rank R {{' outside a rank block, found {}",
                    other.describe()
                ),
            )),
        }
    }

    fn rank_statement<S: GoalSink>(&mut self, c: &mut Lexer<'_>, sink: &mut S) -> Result<(), GoalError> {
        let t = c.next().unwrap();
        match t.kind {
            TokKind::Punct(b'}') => {
                sink.end_rank().map_err(|e| self.build_err(t.col, e))?;
                self.open = None;
                Ok(())
            }
            TokKind::Word(w @ (b"send" | b"recv" | b"calc")) => self.operation(c, sink, w, t.col, None),
            TokKind::Word(label) => {
                let next = c.next();
                match next.map(|t| t.kind) {
                    Some(TokKind::Punct(b':')) => {
                        let op = c.next();
                        match op.map(|t| t.kind) {
                            Some(TokKind::Word(w @ (b"send" | b"recv" | b"calc"))) => {
                                self.operation(c, sink, w, op.unwrap().col, Some((label, t.col)))
                            }
                            _ => Err(self.err(
                                op.map_or(c.eol(), |t| t.col),
                                format!(
                                    "expected 'send', 'recv' or 'calc' after label {}, found {}",
                                    quote_bytes(&[label, b":"].concat()),
                                    found(op)
                                ),
                            )),
                        }
                    }
                    Some(TokKind::Word(kw @ (b"requires" | b"irequires"))) => {
                        let a = self.lookup(label, t.col)?;
                        let bt = c.next();
                        let b = match bt.map(|t| t.kind) {
                            Some(TokKind::Word(l)) => self.lookup(l, bt.unwrap().col)?,
                            _ => {
                                return Err(self.err(
                                    bt.map_or(c.eol(), |t| t.col),
                                    format!("expected a label after '{}', found {}", text(kw), found(bt)),
                                ))
                            }
                        };
                        if kw == b"requires" {
                            sink.requires(a, b);
                        } else {
                            sink.irequires(a, b);
                        }
                        self.end_of_statement(c)
                    }
                    _ => Err(self.err(
                        next.map_or(c.eol(), |t| t.col),
                        format!(
                            "expected ':' (a labelled operation) or 'requires'/'irequires' (a dependency) after {}, found {}",
                            quote_bytes(label),
                            found(next)
                        ),
                    )),
                }
            }
            other => Err(self.err(
                t.col,
                format!(
                    "expected an operation ('send', 'recv', 'calc'), a label, a dependency or '}}', found {}",
                    other.describe()
                ),
            )),
        }
    }

    #[inline]
    fn lookup(&self, label: &[u8], col: u32) -> Result<u32, GoalError> {
        match self.labels.get(label) {
            Some(d) => Ok(d.idx),
            None => Err(self.err(
                col,
                format!(
                    "unknown label {}: labels must be defined earlier in the block of rank {}",
                    quote_bytes(label),
                    self.open.as_ref().unwrap().rank
                ),
            )),
        }
    }

    fn operation<S: GoalSink>(
        &mut self,
        c: &mut Lexer<'_>,
        sink: &mut S,
        kind: &[u8],
        col: u32,
        label: Option<(&[u8], u32)>,
    ) -> Result<(), GoalError> {
        let num_ranks = self.num_ranks.unwrap() as u64;
        let op = match kind {
            b"calc" => {
                let tcol = c.col();
                let t = self.int(c, "a compute time")?;
                let ps = self.unit.to_time(t).ok_or_else(|| {
                    self.err(tcol, format!("compute time {t} {} overflows 2^64 ps", self.unit.name()))
                })?;
                let opts = self.options(c, &[b"cpu"])?;
                Op::calc(ps.0, opts.cpu)
            }
            _ => {
                let is_send = kind == b"send";
                let bytes = self.int(c, "a message size in bytes, like '10b'")?;
                let b = c.next();
                if !is_word(b, b"b") {
                    let at = b.map_or(c.eol(), |t| t.col);
                    return Err(self.err(
                        at,
                        format!("expected 'b' after the message size {bytes}, found {}", found(b)),
                    ));
                }
                let dir: &[u8] = if is_send { b"to" } else { b"from" };
                let d = c.next();
                if !is_word(d, dir) {
                    let at = d.map_or(c.eol(), |t| t.col);
                    return Err(self.err(
                        at,
                        format!("expected '{}' after the size, found {}", text(dir), found(d)),
                    ));
                }
                let pcol = c.col();
                let pt = c.next();
                let peer = match pt.map(|t| t.kind) {
                    Some(TokKind::MinusOne) if !is_send => ANY_SOURCE,
                    Some(TokKind::Int(Some(r))) if r < num_ranks => r as u32,
                    Some(TokKind::Int(Some(r))) => {
                        return Err(self.err(
                            pcol,
                            format!(
                                "rank {r} is out of range: the schedule has {num_ranks} ranks (0..{})",
                                num_ranks - 1
                            ),
                        ))
                    }
                    _ => {
                        let what = if is_send {
                            "a destination rank"
                        } else {
                            "a source rank or -1"
                        };
                        return Err(self.err(pcol, format!("expected {what}, found {}", found(pt))));
                    }
                };
                let opts = self.options(c, &[b"tag", b"cpu", b"nic"])?;
                if is_send {
                    Op::send(bytes, peer, opts.tag, opts.cpu, opts.nic)
                } else {
                    Op::recv(bytes, peer, opts.tag, opts.cpu, opts.nic)
                }
            }
        };
        self.end_of_statement(c)?;
        self.define(op, col, label, sink)
    }

    /// Adds an operation and its label.
    #[inline]
    fn define<S: GoalSink>(
        &mut self,
        op: Op,
        col: u32,
        label: Option<(&[u8], u32)>,
        sink: &mut S,
    ) -> Result<(), GoalError> {
        if let Some((l, lcol)) = label {
            let def = LabelDef {
                idx: self.rank_len,
                line: self.line,
            };
            if let Err(first) = self.labels.insert(l, def) {
                return Err(self.err(
                    lcol,
                    format!(
                        "duplicate label {}: first defined at line {}",
                        quote_bytes(l),
                        first.line
                    ),
                ));
            }
        }
        let idx = sink.op(op, self.line).map_err(|e| self.build_err(col, e))?;
        debug_assert_eq!(idx, self.rank_len);
        self.rank_len += 1;
        Ok(())
    }

    /// Applies a statement from the fast path. Returns false, having changed nothing,
    /// when the statement needs an error message (the general parser then words it).
    #[inline]
    fn apply_fast<S: GoalSink>(&mut self, f: Fast<'_>, sink: &mut S) -> Result<bool, GoalError> {
        match f {
            Fast::Dep { a, b, irequires } => {
                let (Some(a), Some(b)) = (self.labels.get(a), self.labels.get(b)) else {
                    return Ok(false);
                };
                if irequires {
                    sink.irequires(a.idx, b.idx);
                } else {
                    sink.requires(a.idx, b.idx);
                }
                Ok(true)
            }
            Fast::Op {
                label,
                kind,
                size,
                peer,
                tag,
                cpu,
                nic,
            } => {
                let op = match kind {
                    OpKind::Calc => match self.unit.to_time(size) {
                        Some(ps) => Op::calc(ps.0, cpu),
                        None => return Ok(false),
                    },
                    _ => {
                        let wild = kind == OpKind::Recv && peer == ANY_SOURCE;
                        if peer >= self.num_ranks.unwrap() && !wild {
                            return Ok(false);
                        }
                        if kind == OpKind::Send {
                            Op::send(size, peer, tag, cpu, nic)
                        } else {
                            Op::recv(size, peer, tag, cpu, nic)
                        }
                    }
                };
                if let Some(l) = label {
                    let def = LabelDef {
                        idx: self.rank_len,
                        line: self.line,
                    };
                    if self.labels.insert(l, def).is_err() {
                        return Ok(false); // a duplicate: the general path reports it
                    }
                }
                self.define(op, 1, None, sink)?;
                Ok(true)
            }
        }
    }

    /// Parses trailing `tag`, `cpu`, `nic` options, each at most once, in any order.
    fn options(&self, c: &mut Lexer<'_>, allowed: &[&[u8]]) -> Result<OpOptions, GoalError> {
        let mut o = OpOptions { tag: 0, cpu: 0, nic: 0 };
        let mut seen = [false; 3];
        while let Some(t) = c.peek() {
            let TokKind::Word(w) = t.kind else { break };
            let Some(k) = [&b"tag"[..], b"cpu", b"nic"].iter().position(|x| *x == w) else {
                break;
            };
            if !allowed.contains(&w) {
                break;
            }
            if seen[k] {
                return Err(self.err(t.col, format!("'{}' given twice", text(w))));
            }
            seen[k] = true;
            c.next();
            let vcol = c.col();
            let vt = c.next();
            if k == 0 {
                o.tag = match vt.map(|t| t.kind) {
                    Some(TokKind::MinusOne) => ANY_TAG,
                    Some(TokKind::Int(Some(v))) if v < ANY_TAG as u64 => v as u32,
                    _ => {
                        return Err(self.err(
                            vcol,
                            format!("expected a tag (0..{}) or -1, found {}", ANY_TAG - 1, found(vt)),
                        ))
                    }
                };
            } else {
                let v = match vt.map(|t| t.kind) {
                    Some(TokKind::Int(Some(v))) if v <= 255 => v as u8,
                    _ => {
                        return Err(self.err(
                            vcol,
                            format!("expected a {} index (0..255), found {}", text(w), found(vt)),
                        ))
                    }
                };
                if k == 1 {
                    o.cpu = v;
                } else {
                    o.nic = v;
                }
            }
        }
        Ok(o)
    }

    fn int(&self, c: &mut Lexer<'_>, what: &str) -> Result<u64, GoalError> {
        let col = c.col();
        match c.next() {
            Some(Tok {
                kind: TokKind::Int(Some(v)),
                ..
            }) => Ok(v),
            Some(Tok {
                kind: TokKind::Int(None),
                ..
            }) => Err(self.err(
                col,
                format!("expected {what}, found a number that does not fit in 64 bits"),
            )),
            other => Err(self.err(col, format!("expected {what}, found {}", found(other)))),
        }
    }

    /// After a statement only `}` (closing the rank) may follow on the same line.
    fn end_of_statement(&self, c: &mut Lexer<'_>) -> Result<(), GoalError> {
        match c.peek() {
            None => Ok(()),
            Some(Tok {
                kind: TokKind::Punct(b'}'),
                ..
            }) if self.open.is_some() => Ok(()),
            Some(t) => Err(self.err(
                t.col,
                format!("expected the end of the line, found {}", t.kind.describe()),
            )),
        }
    }
}

/// Operations of a dependency cycle an error message names before saying how many more.
const CYCLE_SHOWN: usize = 4;

/// "dependency cycle in rank R: a (line 3) -> b (line 4) -> a (line 3)", naming at most
/// [`CYCLE_SHOWN`] operations of a long cycle. Linear in the cycle and the labels: a
/// cycle through every operation of a large rank must not take quadratic time to
/// describe, nor a message as long as the rank.
fn cycle_message(rank: u32, ops: &[u32], labels: &LabelTable) -> String {
    let shown = &ops[..ops.len().min(CYCLE_SHOWN)];
    let names = labels.names_of(shown);
    let name = |k: usize| match &names[k] {
        Some((label, def)) if label.len() <= QUOTE_LIMIT => format!("{label} (line {})", def.line),
        Some((label, def)) => format!("{} (line {})", quote(label), def.line),
        None => format!("operation #{}", shown[k]),
    };
    let mut parts: Vec<String> = (0..shown.len()).map(name).collect();
    if ops.len() > shown.len() {
        parts.push(format!("... {} more", ops.len() - shown.len()));
    }
    parts.push(name(0));
    let through = if ops.len() > shown.len() {
        format!(" (through {} operations)", ops.len())
    } else {
        String::new()
    };
    format!("dependency cycle in rank {rank}{through}: {}", parts.join(" -> "))
}

struct OpOptions {
    tag: u32,
    cpu: u8,
    nic: u8,
}
