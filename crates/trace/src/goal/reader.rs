//! The GOAL text reader: statements, labels and dependencies into a [`GoalSink`].

use super::lexer::{Lexer, Tok, TokKind};
use simpi_kernel::TimeUnit;
use simpi_mpi::{BuildError, Op, Schedule, ScheduleBuilder, ANY_SOURCE, ANY_TAG};
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::BufRead;
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
    fn op(&mut self, op: Op, _line: u32) -> Result<u32, BuildError> {
        self.0.as_mut().unwrap().push(op)
    }
    fn requires(&mut self, a: u32, b: u32) {
        self.0.as_mut().unwrap().requires(a, b)
    }
    fn irequires(&mut self, a: u32, b: u32) {
        self.0.as_mut().unwrap().irequires(a, b)
    }
    fn end_rank(&mut self) -> Result<(), BuildError> {
        self.0.as_mut().unwrap().end_rank()
    }
}

/// Reads a GOAL schedule from `input`; `name` is used in error messages and `unit` is
/// the unit of `calc` times.
pub fn read_goal<R: BufRead>(input: R, name: &str, unit: TimeUnit) -> Result<Schedule, GoalError> {
    let mut sink = BuildSink::default();
    parse_goal(input, name, unit, &mut sink)?;
    Ok(sink.0.expect("parse_goal guarantees num_ranks").finish())
}

/// Reads a GOAL schedule from a file.
pub fn read_goal_file(path: &Path, unit: TimeUnit) -> Result<Schedule, GoalError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| GoalError {
        file: name.clone(),
        line: 0,
        col: 0,
        msg: format!("cannot open: {e}"),
    })?;
    read_goal(std::io::BufReader::with_capacity(1 << 20, file), &name, unit)
}

/// A fast, deterministic hasher for short labels (FxHash's multiply-rotate).
#[derive(Default)]
struct LabelHasher(u64);

impl Hasher for LabelHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
}

type Labels = HashMap<Box<[u8]>, (u32, u32), BuildHasherDefault<LabelHasher>>;

struct OpenRank {
    rank: u64,
    line: u32,
    /// label -> (local index, line of definition)
    labels: Labels,
}

/// Parses GOAL text into `sink`.
pub fn parse_goal<R: BufRead, S: GoalSink>(
    mut input: R,
    name: &str,
    unit: TimeUnit,
    sink: &mut S,
) -> Result<(), GoalError> {
    let mut p = Parser {
        name,
        unit,
        line: 0,
        num_ranks: None,
        open: None,
        spare_labels: Labels::default(),
    };
    let mut lexer = Lexer::default();
    let mut buf: Vec<u8> = Vec::with_capacity(256);
    let mut spare: Vec<Tok<'static>> = Vec::new();
    loop {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| p.err(0, format!("read error: {e}")))?;
        if n == 0 {
            break;
        }
        p.line += 1;
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        let mut toks = recycle(spare);
        lexer.tokens(&buf, &mut toks);
        p.statements(&toks, sink)?;
        spare = recycle(toks);
        if sink.satisfied() {
            return Ok(());
        }
    }
    if lexer.in_block_comment() {
        return Err(p.err(0, "end of file inside a /* comment: expected '*/'".into()));
    }
    if let Some(open) = &p.open {
        return Err(GoalError {
            file: name.to_string(),
            line: p.line,
            col: 0,
            msg: format!(
                "end of file inside the block of rank {} opened at line {}: expected '}}'",
                open.rank, open.line
            ),
        });
    }
    if p.num_ranks.is_none() {
        return Err(GoalError {
            file: name.to_string(),
            line: 0,
            col: 0,
            msg: "no 'num_ranks' line: this is not a GOAL schedule".into(),
        });
    }
    Ok(())
}

/// Reuses a token vector's allocation for tokens of another line.
fn recycle<'b>(mut v: Vec<Tok<'_>>) -> Vec<Tok<'b>> {
    v.clear();
    v.into_iter().map(|_| unreachable!()).collect()
}

struct Parser<'n> {
    name: &'n str,
    unit: TimeUnit,
    line: u32,
    num_ranks: Option<u32>,
    open: Option<OpenRank>,
    spare_labels: Labels,
}

/// A cursor over one line's tokens.
struct Cur<'t, 'a> {
    toks: &'t [Tok<'a>],
    i: usize,
    /// Column just past the line's last token, for "expected ... at end of line".
    eol: u32,
}

impl<'a> Cur<'_, 'a> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.i).copied()
    }
    fn next(&mut self) -> Option<Tok<'a>> {
        let t = self.peek();
        self.i += 1;
        t
    }
    fn col(&self) -> u32 {
        self.peek().map_or(self.eol, |t| t.col)
    }
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
        let msg = match (&e, &self.open) {
            (BuildError::Cycle { rank, ops }, Some(open)) => {
                let mut by_index: HashMap<u32, (&[u8], u32)> = HashMap::new();
                for (k, &(idx, line)) in &open.labels {
                    by_index.insert(idx, (k, line));
                }
                let names: Vec<String> = ops
                    .iter()
                    .chain(ops.first())
                    .map(|i| match by_index.get(i) {
                        Some((k, line)) => format!("{} (line {line})", String::from_utf8_lossy(k)),
                        None => format!("operation #{i}"),
                    })
                    .collect();
                format!("dependency cycle in rank {rank}: {}", names.join(" -> "))
            }
            _ => e.to_string(),
        };
        self.err(col, msg)
    }

    fn statements<S: GoalSink>(&mut self, toks: &[Tok<'_>], sink: &mut S) -> Result<(), GoalError> {
        let eol = toks.last().map_or(1, |t| t.col + 1);
        let mut c = Cur { toks, i: 0, eol };
        while let Some(t) = c.peek() {
            if self.open.is_some() {
                self.rank_statement(&mut c, sink)?;
            } else {
                self.top_statement(&mut c, sink, t)?;
            }
        }
        Ok(())
    }

    fn top_statement<S: GoalSink>(&mut self, c: &mut Cur<'_, '_>, sink: &mut S, t: Tok<'_>) -> Result<(), GoalError> {
        match t.kind {
            TokKind::Word(b"num_ranks") => {
                c.next();
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
                self.num_ranks = Some(n as u32);
                sink.num_ranks(n as u32);
                self.end_of_statement(c)
            }
            TokKind::Word(b"rank") => {
                c.next();
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
                    return Err(self.err(
                        brace.map_or(c.eol, |t| t.col),
                        format!("expected '{{' after 'rank {r}', found {}", found(brace)),
                    ));
                }
                sink.begin_rank(r).map_err(|e| self.build_err(col, e))?;
                let mut labels = std::mem::take(&mut self.spare_labels);
                labels.clear();
                self.open = Some(OpenRank {
                    rank: r,
                    line: self.line,
                    labels,
                });
                Ok(())
            }
            _ => Err(self.err(
                t.col,
                format!(
                    "expected 'num_ranks N' or 'rank R {{' outside a rank block, found {}",
                    t.kind.describe()
                ),
            )),
        }
    }

    fn rank_statement<S: GoalSink>(&mut self, c: &mut Cur<'_, '_>, sink: &mut S) -> Result<(), GoalError> {
        let t = c.next().unwrap();
        match t.kind {
            TokKind::Punct(b'}') => {
                sink.end_rank().map_err(|e| self.build_err(t.col, e))?;
                let open = self.open.take().unwrap();
                self.spare_labels = open.labels;
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
                                op.map_or(c.eol, |t| t.col),
                                format!("expected 'send', 'recv' or 'calc' after label '{}:', found {}", String::from_utf8_lossy(label), found(op)),
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
                                    bt.map_or(c.eol, |t| t.col),
                                    format!("expected a label after '{}', found {}", String::from_utf8_lossy(kw), found(bt)),
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
                        next.map_or(c.eol, |t| t.col),
                        format!(
                            "expected ':' (a labelled operation) or 'requires'/'irequires' (a dependency) after '{}', found {}",
                            String::from_utf8_lossy(label),
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

    fn lookup(&self, label: &[u8], col: u32) -> Result<u32, GoalError> {
        let open = self.open.as_ref().unwrap();
        match open.labels.get(label) {
            Some(&(idx, _)) => Ok(idx),
            None => Err(self.err(
                col,
                format!(
                    "unknown label '{}': labels must be defined earlier in the block of rank {}",
                    String::from_utf8_lossy(label),
                    open.rank
                ),
            )),
        }
    }

    fn operation<S: GoalSink>(
        &mut self,
        c: &mut Cur<'_, '_>,
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
                    return Err(self.err(
                        b.map_or(c.eol, |t| t.col),
                        format!("expected 'b' after the message size {bytes}, found {}", found(b)),
                    ));
                }
                let dir: &[u8] = if is_send { b"to" } else { b"from" };
                let d = c.next();
                if !is_word(d, dir) {
                    return Err(self.err(
                        d.map_or(c.eol, |t| t.col),
                        format!(
                            "expected '{}' after the size, found {}",
                            String::from_utf8_lossy(dir),
                            found(d)
                        ),
                    ));
                }
                let pcol = c.col();
                let peer = match c.next().map(|t| t.kind) {
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
                    other => {
                        let what = if is_send {
                            "a destination rank"
                        } else {
                            "a source rank or -1"
                        };
                        return Err(self.err(
                            pcol,
                            format!(
                                "expected {what}, found {}",
                                found(other.map(|kind| Tok { col: pcol, kind }))
                            ),
                        ));
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
        let idx = sink.op(op, self.line).map_err(|e| self.build_err(col, e))?;
        if let Some((l, lcol)) = label {
            let line = self.line;
            let open = self.open.as_mut().unwrap();
            if let Some(&(_, first)) = open.labels.get(l) {
                return Err(self.err(
                    lcol,
                    format!(
                        "duplicate label '{}': first defined at line {first}",
                        String::from_utf8_lossy(l)
                    ),
                ));
            }
            open.labels.insert(l.into(), (idx, line));
        }
        self.end_of_statement(c)
    }

    /// Parses trailing `tag`, `cpu`, `nic` options, each at most once, in any order.
    fn options(&self, c: &mut Cur<'_, '_>, allowed: &[&[u8]]) -> Result<OpOptions, GoalError> {
        let mut o = OpOptions { tag: 0, cpu: 0, nic: 0 };
        let mut seen: Vec<&[u8]> = Vec::new();
        while let Some(t) = c.peek() {
            let TokKind::Word(w) = t.kind else { break };
            if !allowed.contains(&w) {
                break;
            }
            if seen.contains(&w) {
                return Err(self.err(t.col, format!("'{}' given twice", String::from_utf8_lossy(w))));
            }
            seen.push(w);
            c.next();
            let vcol = c.col();
            match w {
                b"tag" => {
                    o.tag = match c.next().map(|t| t.kind) {
                        Some(TokKind::MinusOne) => ANY_TAG,
                        Some(TokKind::Int(Some(v))) if v < ANY_TAG as u64 => v as u32,
                        other => {
                            return Err(self.err(
                                vcol,
                                format!(
                                    "expected a tag (0..{}) or -1, found {}",
                                    ANY_TAG - 1,
                                    found(other.map(|kind| Tok { col: vcol, kind }))
                                ),
                            ))
                        }
                    }
                }
                _ => {
                    let v = match c.next().map(|t| t.kind) {
                        Some(TokKind::Int(Some(v))) if v <= 255 => v as u8,
                        other => {
                            return Err(self.err(
                                vcol,
                                format!(
                                    "expected a {} index (0..255), found {}",
                                    String::from_utf8_lossy(w),
                                    found(other.map(|kind| Tok { col: vcol, kind }))
                                ),
                            ))
                        }
                    };
                    if w == b"cpu" {
                        o.cpu = v;
                    } else {
                        o.nic = v;
                    }
                }
            }
        }
        Ok(o)
    }

    fn int(&self, c: &mut Cur<'_, '_>, what: &str) -> Result<u64, GoalError> {
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
    fn end_of_statement(&self, c: &mut Cur<'_, '_>) -> Result<(), GoalError> {
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

struct OpOptions {
    tag: u32,
    cpu: u8,
    nic: u8,
}
