//! One rank's DUMPI file (`<prefix>-<rank>.bin`), read record by record.
//!
//! The file starts with an 8-byte magic and ends with an index: the magic again and
//! 64-bit offsets of its sections (older versions lack the first few). Of those, the
//! reader needs the header (the DUMPI version, which changes a few layouts), the
//! datatype sizes (bytes per element of every datatype the rank used), the
//! performance-counter labels (their number sizes each record's counter values) and the
//! call stream: two 32-bit second biases (CPU, wall), then records, each a 16-bit
//! function id, an 8-bit mask of what follows, an optional thread id, CPU and wall
//! entry and exit times (16-bit seconds after the bias, 32-bit nanoseconds), counter
//! values, and the call's fields (`layouts.rs`), until the end-of-stream id.

use super::layouts::{END_OF_STREAM, FUNCTION_ENTER, FUNCTION_EXIT, LAYOUTS};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The file's first 8 bytes, and the index's mark.
pub(crate) const MAGIC: u64 = 0xffaa_dd44_554d_5049;
/// A status array's presence bits in the mask.
const STATUSES: u8 = 0b11;
const CPU_TIME: u8 = 1 << 2;
const WALL_TIME: u8 = 1 << 3;
const THREAD: u8 = 1 << 6;
const COUNTERS: u8 = 1 << 7;
/// Largest section the reader loads whole (datatype sizes, counter labels): 64 MiB.
const MAX_SECTION: u64 = 1 << 26;

/// One MPI status as recorded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Status {
    /// Bytes received.
    pub bytes: i32,
    /// The sender's rank in the communicator.
    pub source: i32,
    /// The tag (`-1`, any, in files before version 0.6.3).
    pub tag: i32,
}

/// A field of a call record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    /// An integer (any width, sign-extended from 32 bits; 16-bit handles unsigned).
    Int(i64),
    /// An array of integers (`I`, `H`, `B`).
    Ints(Vec<i32>),
    /// Statuses (none if the mask left them out).
    Statuses(Vec<Status>),
    /// A field the record does not hold (`?` not at the root), or one not kept
    /// (strings).
    Absent,
}

/// Entry and exit time of a call, in nanoseconds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct Span {
    /// Entry.
    pub start: u64,
    /// Exit.
    pub stop: u64,
}

/// One record of the call stream.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    /// The function id.
    pub id: u16,
    /// Byte offset of the record in its file.
    pub offset: u64,
    /// Wall-clock times, if recorded.
    pub wall: Option<Span>,
    /// CPU times, if recorded.
    pub cpu: Option<Span>,
    /// The thread, if recorded.
    pub thread: Option<u16>,
    /// The fields, one per letter of the layout (`?` makes none of its own).
    pub args: Vec<Arg>,
}

impl Record {
    /// The MPI name of the record's function.
    pub fn name(&self) -> &'static str {
        name_of(self.id)
    }

    /// Field `i` as an integer (a malformed record may hold another kind there).
    pub fn int(&self, i: usize) -> Result<i64, String> {
        match self.args.get(i) {
            Some(Arg::Int(v)) => Ok(*v),
            _ => Err(format!("{}: field {} is not an integer", self.name(), i + 1)),
        }
    }

    /// Field `i` as an array (empty if absent).
    pub fn ints(&self, i: usize) -> &[i32] {
        match self.args.get(i) {
            Some(Arg::Ints(v)) => v,
            _ => &[],
        }
    }

    /// Whether field `i` is present.
    pub fn has(&self, i: usize) -> bool {
        !matches!(self.args.get(i), None | Some(Arg::Absent))
    }

    /// The record's statuses (the last status field; empty if none recorded).
    pub fn statuses(&self) -> &[Status] {
        self.args
            .iter()
            .rev()
            .find_map(|a| match a {
                Arg::Statuses(s) => Some(&s[..]),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// The time the call was entered and left: wall-clock time, else CPU time.
    pub fn span(&self) -> Option<Span> {
        self.wall.or(self.cpu)
    }
}

/// The MPI name of function `id`.
pub(crate) fn name_of(id: u16) -> &'static str {
    match id {
        FUNCTION_ENTER => "function entry",
        FUNCTION_EXIT => "function exit",
        _ => LAYOUTS.get(id as usize).map_or("an unknown function", |l| l.0),
    }
}

/// A rank's file being read.
pub(crate) struct BinReader {
    path: String,
    src: BufReader<File>,
    /// Offset of the next byte.
    pos: u64,
    /// The file's length.
    len: u64,
    /// The DUMPI version that wrote it.
    version: [i8; 3],
    /// Bytes per element by DUMPI datatype id.
    sizes: Vec<i32>,
    /// Performance counters per record (values come in entry/exit pairs).
    counters: u32,
    cpu_bias: u64,
    wall_bias: u64,
    /// Records read.
    records: u64,
    /// The stream ended.
    ended: bool,
    /// Where the footer starts (0: unknown): the stream ends there at the latest.
    footer: u64,
}

impl BinReader {
    /// Opens the file at `path`: checks its magic and index, reads its header, datatype
    /// sizes and counter labels, and stands at its first call.
    pub fn open(path: &Path) -> Result<BinReader, String> {
        let shown = path.display().to_string();
        let f = File::open(path).map_err(|e| format!("{shown}: cannot open: {e}"))?;
        let len = f.metadata().map_err(|e| format!("{shown}: {e}"))?.len();
        let mut r = BinReader {
            path: shown,
            src: BufReader::with_capacity(1 << 16, f),
            pos: 0,
            len,
            version: [0; 3],
            sizes: Vec::new(),
            counters: 0,
            cpu_bias: 0,
            wall_bias: 0,
            records: 0,
            ended: false,
            footer: 0,
        };
        if len < 8 + 64 || r.u64()? != MAGIC {
            return Err(r.at(0, "not a DUMPI file (no DUMPI magic, or too short for an index)".into()));
        }
        // The index: the last 8 words. Newer versions put more offsets first, each
        // announced by the magic word (a file without them has other bytes there).
        r.seek(len - 64)?;
        let mut w = [0u64; 8];
        for x in &mut w {
            *x = r.u64()?;
        }
        let mut i = 0;
        let mut optional = [0u64; 3]; // datatype sizes, function addresses, counter labels
        let mut mark = w[0];
        i += 1;
        for slot in &mut optional {
            if mark == MAGIC {
                *slot = w[i];
            } else {
                mark = w[i];
            }
            i += 1;
        }
        if mark != MAGIC {
            return Err(r.at(
                len - 64,
                "the index at the end of the file has no DUMPI magic: truncated?".into(),
            ));
        }
        let [sizes, _, labels] = optional;
        let (header, body) = (w[4], w[5]);
        r.footer = w[6];
        if header > 0 {
            r.seek(header)?;
            for k in 0..3 {
                r.version[k] = r.u8()? as i8;
            }
        }
        if sizes > 0 {
            r.seek(sizes)?;
            let n = r.count(4)?;
            r.sizes = (0..n).map(|_| r.u32().map(|v| v as i32)).collect::<Result<_, _>>()?;
        }
        if labels > 0 {
            r.seek(labels)?;
            r.counters = r.count(2)? as u32;
        }
        if body == 0 || body >= len {
            return Err(r.at(len - 64, format!("the call stream's offset {body} is outside the file")));
        }
        r.seek(body)?;
        r.cpu_bias = r.u32()? as u64;
        r.wall_bias = r.u32()? as u64;
        Ok(r)
    }

    /// Bytes per element of DUMPI datatype `dt`, if the file records it.
    pub fn type_size(&self, dt: i64) -> Option<u64> {
        usize::try_from(dt)
            .ok()
            .and_then(|i| self.sizes.get(i))
            .filter(|&&s| s >= 0)
            .map(|&s| s as u64)
    }

    /// Records read so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// `msg` at byte `offset` of the file.
    pub fn at(&self, offset: u64, msg: String) -> String {
        format!("{}: byte {offset}: {msg}", self.path)
    }

    /// The next record; `None` at the end of the stream.
    pub fn next_record(&mut self) -> Result<Option<Record>, String> {
        if self.ended {
            return Ok(None);
        }
        let offset = self.pos;
        if self.footer > 0 && offset >= self.footer {
            // The library stops reading there too, marker or not.
            self.ended = true;
            return Ok(None);
        }
        let id = self.u16()?;
        if id == END_OF_STREAM {
            self.ended = true;
            return Ok(None);
        }
        let layout = match id {
            FUNCTION_ENTER | FUNCTION_EXIT => "l",
            _ => match LAYOUTS.get(id as usize) {
                Some((_, l)) if *l != "!" => l,
                _ => return Err(self.at(offset, format!("unknown function id {id}"))),
            },
        };
        self.records += 1;
        let mask = self.u8()?;
        let thread = if mask & THREAD != 0 { Some(self.u16()?) } else { None };
        let cpu = if mask & CPU_TIME != 0 {
            Some(self.span(self.cpu_bias)?)
        } else {
            None
        };
        let wall = if mask & WALL_TIME != 0 {
            Some(self.span(self.wall_bias)?)
        } else {
            None
        };
        if mask & COUNTERS != 0 {
            self.u8()?;
            self.skip(16 * self.counters as u64)?;
        }
        let args = self
            .fields(layout, mask)
            .map_err(|m| format!("{m} (in {} at byte {offset})", name_of(id)))?;
        Ok(Some(Record {
            id,
            offset,
            wall,
            cpu,
            thread,
            args,
        }))
    }

    /// A call's fields by `layout`.
    fn fields(&mut self, layout: &str, mask: u8) -> Result<Vec<Arg>, String> {
        let mut args = Vec::with_capacity(layout.len());
        let mut root = None;
        let mut only_at_root = false;
        for c in layout.bytes() {
            if c == b'?' {
                only_at_root = true;
                continue;
            }
            if std::mem::take(&mut only_at_root) {
                let me = match args.first() {
                    Some(Arg::Int(v)) => Some(*v),
                    _ => None,
                };
                if me != root {
                    args.push(Arg::Absent);
                    continue;
                }
            }
            let a = match c {
                b'b' => Arg::Int(self.u8()? as i64),
                b'h' => Arg::Int(self.u16()? as i64),
                b'i' => Arg::Int(self.u32()? as i32 as i64),
                b'r' => {
                    let v = self.u32()? as i32 as i64;
                    root = Some(v);
                    Arg::Int(v)
                }
                b'l' => Arg::Int(self.u64()? as i64),
                b'I' => Arg::Ints(self.ints(4)?),
                b'H' => Arg::Ints(self.ints(2)?),
                b'B' => Arg::Ints(self.ints(1)?),
                b'V' | b'W' => {
                    let since = if c == b'V' { [0, 6, 9] } else { [0, 6, 8] };
                    if self.version >= since {
                        Arg::Ints(self.ints(4)?)
                    } else {
                        Arg::Int(self.u32()? as i32 as i64)
                    }
                }
                b'C' => {
                    self.string()?;
                    Arg::Absent
                }
                b'D' => {
                    for _ in 0..self.count(4)? {
                        self.string()?;
                    }
                    Arg::Absent
                }
                b'E' => {
                    for _ in 0..self.count(8)? {
                        for _ in 0..self.count(4)? {
                            self.string()?;
                        }
                    }
                    Arg::Absent
                }
                b'J' => {
                    for _ in 0..self.count(4)? {
                        self.ints(4)?;
                    }
                    Arg::Absent
                }
                b'A' | b'a' => {
                    let argc = self.u32()? as i32;
                    if c == b'A' && self.version < [0, 6, 2] {
                        self.u32()?;
                    }
                    for _ in 0..argc.max(0) {
                        self.string()?;
                    }
                    Arg::Int(argc as i64)
                }
                b'S' => {
                    if mask & STATUSES == 0 {
                        Arg::Statuses(Vec::new())
                    } else {
                        let tagged = self.version >= [0, 6, 3];
                        let each = if tagged { 14 } else { 10 };
                        let n = self.signed_count(each)?;
                        let mut v = Vec::with_capacity(n);
                        for _ in 0..n {
                            let bytes = self.u32()? as i32;
                            let source = self.u32()? as i32;
                            self.u8()?;
                            self.u8()?;
                            let tag = if tagged { self.u32()? as i32 } else { -1 };
                            v.push(Status { bytes, source, tag });
                        }
                        Arg::Statuses(v)
                    }
                }
                other => unreachable!("layout letter {}", other as char),
            };
            args.push(a);
        }
        Ok(args)
    }

    /// An array of `width`-byte integers after its 32-bit count (a count not above zero
    /// is an empty array, as the library reads it).
    fn ints(&mut self, width: u64) -> Result<Vec<i32>, String> {
        let n = self.signed_count(width)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(match width {
                1 => self.u8()? as i32,
                2 => self.u16()? as i32,
                _ => self.u32()? as i32,
            });
        }
        Ok(v)
    }

    /// A string with a 32-bit length, skipped.
    fn string(&mut self) -> Result<(), String> {
        let n = self.count(1)?;
        self.skip(n as u64)
    }

    /// A 32-bit count of items of at least `each` bytes, checked against what is left.
    fn count(&mut self, each: u64) -> Result<usize, String> {
        let at = self.pos;
        let n = self.u32()?;
        if (n as i32) < 0 {
            return Err(self.at(at, format!("negative length {}", n as i32)));
        }
        self.fits(at, n as u64, each)
    }

    /// A 32-bit count that the library takes as empty when not above zero.
    fn signed_count(&mut self, each: u64) -> Result<usize, String> {
        let at = self.pos;
        let n = self.u32()? as i32;
        if n <= 0 {
            return Ok(0);
        }
        self.fits(at, n as u64, each)
    }

    fn fits(&self, at: u64, n: u64, each: u64) -> Result<usize, String> {
        if n.saturating_mul(each.max(1)) > self.len.saturating_sub(self.pos) || n > MAX_SECTION {
            return Err(self.at(at, format!("length {n} runs past the end of the file")));
        }
        Ok(n as usize)
    }

    /// Entry and exit times after `bias` seconds.
    fn span(&mut self, bias: u64) -> Result<Span, String> {
        let mut t = [0u64; 2];
        for x in &mut t {
            let s = self.u16()? as u64 + bias;
            let ns = self.u32()? as u64;
            *x = s * 1_000_000_000 + ns;
        }
        Ok(Span {
            start: t[0],
            stop: t[1],
        })
    }

    fn seek(&mut self, to: u64) -> Result<(), String> {
        if to > self.len {
            return Err(self.at(
                to,
                format!("offset {to} is past the end of the file ({} bytes)", self.len),
            ));
        }
        self.src
            .seek(SeekFrom::Start(to))
            .map_err(|e| format!("{}: {e}", self.path))?;
        self.pos = to;
        Ok(())
    }

    fn skip(&mut self, n: u64) -> Result<(), String> {
        if n > self.len.saturating_sub(self.pos) {
            return Err(self.at(self.pos, "truncated: the record runs past the end of the file".into()));
        }
        self.src
            .seek_relative(n as i64)
            .map_err(|e| format!("{}: {e}", self.path))?;
        self.pos += n;
        Ok(())
    }

    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut b = [0u8; N];
        match self.src.read_exact(&mut b) {
            Ok(()) => {
                self.pos += N as u64;
                Ok(b)
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err(self.at(self.pos, "truncated: the record runs past the end of the file".into()))
            }
            Err(e) => Err(format!("{}: {e}", self.path)),
        }
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.bytes::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_be_bytes(self.bytes()?))
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.bytes()?))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_be_bytes(self.bytes()?))
    }
}
