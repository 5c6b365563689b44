//! Where a trace's lines come from: an index file listing one file per rank, an index
//! with a single file holding every rank's lines, or such a file given directly.

use crate::quote::{quote, MAX_LINE};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};

/// A TIT trace on disk.
pub(crate) enum Source {
    /// `files[r]` holds rank `r`'s lines.
    PerRank(Vec<PathBuf>),
    /// One file; its lines grouped by rank: (line number, text).
    Shared {
        file: PathBuf,
        ranks: Vec<Vec<(u32, String)>>,
    },
}

/// Ranks a trace in one file may have without a line each. Small: every rank that
/// reaches a collective on the world expands its part over all ranks, which is O(ranks)
/// operations for ring algorithms, so a few lines naming a far rank number would cost
/// gigabytes (the TIT fuzz target found 3.4 KB naming rank 1,000,000 take 4 GB).
const FREE_RANKS: usize = 1 << 12;

/// A problem reading the files.
pub(crate) struct SourceError {
    pub file: String,
    pub line: u32,
    pub msg: String,
}

fn err(file: &Path, line: u32, msg: impl Into<String>) -> SourceError {
    SourceError {
        file: file.display().to_string(),
        line,
        msg: msg.into(),
    }
}

/// True if `line` is a trace line (`<rank> <action> ...`) rather than an index entry.
fn is_action_line(line: &str) -> bool {
    let mut w = line.split_ascii_whitespace();
    matches!((w.next(), w.next()), (Some(r), Some(_)) if r.parse::<u32>().is_ok())
}

/// The lines of `text`, as `str::lines` gives them (`\n` or `\r\n` ends a line; a final
/// one is optional), found with a SIMD byte search: the standard iterator's search was
/// 5 % of loading a 64-rank trace.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', text.as_bytes());
    std::iter::from_fn(move || match ends.next() {
        Some(end) => {
            // `\n` is ASCII: both cuts fall on character boundaries.
            let line = &text[start..end];
            start = end + 1;
            Some(line.strip_suffix('\r').unwrap_or(line))
        }
        None if start < text.len() => {
            let line = &text[start..];
            start = text.len();
            Some(line)
        }
        None => None,
    })
}

/// The text of the file at `path`, without a byte-order mark at its start.
/// Read a chunk at a time, checking as it goes that lines stay under [`MAX_LINE`] and
/// the text is UTF-8: a device or binary file given by mistake is refused at once
/// instead of read until memory runs out. Open and read errors are at line 0.
fn read_text(path: &Path) -> Result<String, SourceError> {
    let io = |e: std::io::Error| err(path, 0, e.to_string());
    let mut f = File::open(path).map_err(io)?;
    // As `read_to_string`: room for the whole file at once when its size is known.
    let size = f.metadata().map_or(0, |m| m.len()).min(1 << 32) as usize;
    let mut bytes: Vec<u8> = Vec::with_capacity(size + 1);
    // Bytes up to `checked` are valid UTF-8 and end a line.
    let mut checked = 0usize;
    loop {
        let n = match (&mut f).take(1 << 20).read_to_end(&mut bytes) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if n == 0 {
            break;
        }
        if let Some(end) = memchr::memrchr(b'\n', &bytes[checked..]) {
            let end = checked + end + 1;
            check_utf8(path, &bytes, checked, end)?;
            checked = end;
        }
        if bytes.len() - checked > MAX_LINE {
            return Err(too_long(path, line_at(&bytes, checked)));
        }
    }
    let len = bytes.len();
    check_utf8(path, &bytes, checked, len)?;
    let mut text = String::from_utf8(bytes).expect("checked piece by piece");
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// The 1-based number of the line at byte `at` of `bytes`.
fn line_at(bytes: &[u8], at: usize) -> u32 {
    memchr::memchr_iter(b'\n', &bytes[..at]).count() as u32 + 1
}

/// Checks that `bytes[from..to]` is UTF-8.
fn check_utf8(path: &Path, bytes: &[u8], from: usize, to: usize) -> Result<(), SourceError> {
    std::str::from_utf8(&bytes[from..to]).map(|_| ()).map_err(|e| {
        err(
            path,
            line_at(bytes, from + e.valid_up_to()),
            "read error: stream did not contain valid UTF-8",
        )
    })
}

fn too_long(path: &Path, line: u32) -> SourceError {
    err(
        path,
        line,
        format!("the line is longer than {} MiB: this is not a trace", MAX_LINE >> 20),
    )
}

fn meaningful(line: &str) -> Option<&str> {
    let t = line.trim_ascii();
    (!t.is_empty() && !t.starts_with('#')).then_some(t)
}

impl Source {
    /// Opens `path`: an index file, or a trace file of `<rank> <action>` lines.
    pub fn open(path: &Path) -> Result<Source, SourceError> {
        let text = read_text(path).map_err(|e| match e.line {
            0 => err(path, 0, format!("cannot read: {}", e.msg)),
            _ => e,
        })?;
        let first = lines(&text).find_map(meaningful);
        let Some(first) = first else {
            return Err(err(
                path,
                0,
                "the file is empty: expected an index of per-rank trace files, or trace lines",
            ));
        };
        if is_action_line(first) {
            return Self::shared(path, &text);
        }
        // An index: paths relative to the current directory (as SimGrid) or, failing that,
        // to the index's own directory.
        let base = path.parent().unwrap_or(Path::new("."));
        let entries: Vec<(u32, PathBuf)> = lines(&text)
            .enumerate()
            .filter_map(|(i, l)| meaningful(l).map(|l| (i as u32 + 1, PathBuf::from(l))))
            .collect();
        let resolve = |p: &PathBuf| {
            if p.exists() || p.is_absolute() {
                p.clone()
            } else {
                base.join(p)
            }
        };
        if entries.len() == 1 {
            let f = resolve(&entries[0].1);
            let t = read_text(&f).map_err(|e| match e.line {
                // Not there, or not readable: the index's line is at fault.
                0 => err(
                    path,
                    entries[0].0,
                    format!("cannot read trace file {}: {}", quote(&f.display().to_string()), e.msg),
                ),
                _ => e,
            })?;
            return Self::shared(&f, &t);
        }
        let mut files = Vec::new();
        for (line, p) in entries {
            let f = resolve(&p);
            if !f.exists() {
                let p = quote(&p.display().to_string());
                return Err(err(path, line, format!("trace file {p} does not exist")));
            }
            if f.is_dir() {
                let p = quote(&p.display().to_string());
                return Err(err(path, line, format!("trace file {p} is a directory")));
            }
            files.push(f);
        }
        Ok(Source::PerRank(files))
    }

    fn shared(path: &Path, text: &str) -> Result<Source, SourceError> {
        let mut ranks: Vec<Vec<(u32, String)>> = Vec::new();
        // Ranks without a line do nothing, and are allowed; but a rank number past both
        // the number of lines and FREE_RANKS is a typo that would make the trace huge.
        let count = lines(text).filter(|l| meaningful(l).is_some()).count();
        for (i, l) in lines(text).enumerate() {
            let Some(t) = meaningful(l) else { continue };
            let r: usize = t
                .split_ascii_whitespace()
                .next()
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| {
                    err(
                        path,
                        i as u32 + 1,
                        format!("expected '<rank> <action> ...', found {}", quote(t)),
                    )
                })?;
            if r >= count.max(FREE_RANKS) {
                return Err(err(
                    path,
                    i as u32 + 1,
                    format!(
                        "rank {r} is out of range: the ranks of a trace in one file are numbered below \
                         {FREE_RANKS}, or below its number of lines ({count}) if that is larger"
                    ),
                ));
            }
            if r >= ranks.len() {
                ranks.resize(r + 1, Vec::new());
            }
            ranks[r].push((i as u32 + 1, t.to_string()));
        }
        Ok(Source::Shared {
            file: path.to_path_buf(),
            ranks,
        })
    }

    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        match self {
            Source::PerRank(f) => f.len(),
            Source::Shared { ranks, .. } => ranks.len(),
        }
    }

    /// The file rank `r`'s lines are in.
    pub fn file_of(&self, r: usize) -> &Path {
        match self {
            Source::PerRank(files) => &files[r],
            Source::Shared { file, .. } => file,
        }
    }

    /// Whether rank `r`'s text contains any of `needles`: a quick filter before parsing
    /// its lines one by one. Text that is not valid UTF-8 counts as containing them, so
    /// that the full pass reports the error where it would have.
    pub fn mentions(&self, r: usize, needles: &[&str]) -> Result<bool, SourceError> {
        let any = |t: &[u8]| needles.iter().any(|n| memchr::memmem::find(t, n.as_bytes()).is_some());
        match self {
            Source::Shared { ranks, .. } => Ok(ranks[r].iter().any(|(_, t)| any(t.as_bytes()))),
            Source::PerRank(files) => {
                // A chunk at a time, the end of one kept before the next so that a
                // needle across the cut is found. Text that is not ASCII, or a line past
                // the longest, counts as a mention: the full read reports what is wrong.
                let path = &files[r];
                let io = |e: std::io::Error| err(path, 0, format!("cannot read: {e}"));
                let mut f = File::open(path).map_err(io)?;
                let keep = needles.iter().map(|n| n.len()).max().unwrap_or(1).saturating_sub(1);
                // A small file gets a buffer of its size: a 1 MiB one for each of a
                // small trace's ranks was most of its replay's system time.
                let size = f.metadata().map_or(u64::MAX, |m| m.len());
                let chunk = usize::try_from(size).unwrap_or(usize::MAX).clamp(4096, 1 << 20);
                let mut buf = vec![0u8; chunk + keep];
                let (mut held, mut line_len) = (0usize, 0usize);
                loop {
                    let n = match f.read(&mut buf[held..]) {
                        Ok(0) => return Ok(false),
                        Ok(n) => n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(io(e)),
                    };
                    let text = &buf[..held + n];
                    if any(text) || !text.is_ascii() {
                        return Ok(true);
                    }
                    line_len = match memchr::memrchr(b'\n', &text[held..]) {
                        Some(k) => n - k - 1,
                        None => line_len + n,
                    };
                    if line_len > MAX_LINE {
                        return Ok(true);
                    }
                    let from = text.len().saturating_sub(keep);
                    buf.copy_within(from..held + n, 0);
                    held = held + n - from;
                }
            }
        }
    }
}

/// Where one rank is in its lines: a per-rank file read in chunks, or the next of its
/// lines of a shared file (held in memory).
pub(crate) enum Cursor {
    /// A per-rank file.
    File(Box<FileCursor>),
    /// The index of the next line in the shared file's list for the rank.
    Shared(usize),
}

/// A per-rank file read a chunk at a time: memory is one chunk per rank, whatever the
/// file's length. The file stays open while the process may hold that many files
/// (see [`open_files_budget`]); otherwise it is opened again for each chunk.
pub(crate) struct FileCursor {
    file: Option<File>,
    /// Whether this cursor holds one of the budget's open files.
    holds_slot: bool,
    /// File offset of the next byte to read.
    offset: u64,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    eof: bool,
    /// Lines read so far.
    line: u32,
    /// The rank's number as it starts its lines.
    me: String,
}

impl Drop for FileCursor {
    fn drop(&mut self) {
        if self.holds_slot {
            OPEN_FILES.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Files the readers may keep open at once (a share of the process's limit); below
/// zero, readers open their file again for each chunk. Initialised on first use.
static OPEN_FILES: AtomicI64 = AtomicI64::new(i64::MIN);

/// Takes one slot of the open-files budget, if any is left.
fn take_open_slot() -> bool {
    if OPEN_FILES.load(Ordering::Relaxed) == i64::MIN {
        let _ = OPEN_FILES.compare_exchange(i64::MIN, open_files_budget(), Ordering::Relaxed, Ordering::Relaxed);
    }
    OPEN_FILES.fetch_sub(1, Ordering::Relaxed) > 0 || {
        OPEN_FILES.fetch_add(1, Ordering::Relaxed);
        false
    }
}

/// Half of the process's soft limit on open files, less a margin for everything else.
fn open_files_budget() -> i64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into a valid, owned struct.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0;
    if !ok || lim.rlim_cur == libc::RLIM_INFINITY {
        return 512;
    }
    (lim.rlim_cur.min(1 << 30) as i64 - 64) / 2
}

/// Bytes of a rank's read-ahead: 4 MiB over all ranks, 1 KiB to 256 KiB each (a line
/// longer than that grows it). Reading is not what replays wait for: at thousands of
/// ranks a read of 1 KiB per 40 lines costs less than the memory of larger chunks.
fn chunk_for(ranks: usize) -> usize {
    ((4 << 20) / ranks.max(1)).clamp(1 << 10, 256 << 10)
}

impl FileCursor {
    fn new(rank: usize) -> FileCursor {
        FileCursor {
            file: None,
            holds_slot: false,
            offset: 0,
            buf: Vec::new(),
            pos: 0,
            len: 0,
            eof: false,
            line: 0,
            me: rank.to_string(),
        }
    }

    /// The next raw line's number and byte range in `buf` (without its `\n`), or
    /// `None` at the end.
    fn next_raw(&mut self, path: &Path, chunk: usize) -> Result<Option<(u32, usize, usize)>, SourceError> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.pos..self.len]) {
                let start = self.pos;
                self.pos += i + 1;
                self.line += 1;
                return Ok(Some((self.line, start, start + i)));
            }
            if self.eof {
                if self.pos < self.len {
                    let start = self.pos;
                    self.pos = self.len;
                    self.line += 1;
                    return Ok(Some((self.line, start, self.len)));
                }
                return Ok(None);
            }
            self.refill(path, chunk)?;
        }
    }

    /// Where the rank's text of raw line `a..b` lies, if the line is meaningful and the
    /// rank's own.
    fn keep(&self, a: usize, b: usize) -> Result<Option<(usize, usize)>, ()> {
        let text = std::str::from_utf8(&self.buf[a..b]).map_err(|_| ())?;
        let text = text.strip_suffix('\r').unwrap_or(text);
        // A byte-order mark may start the file.
        let text = if self.line == 1 {
            text.strip_prefix('\u{feff}').unwrap_or(text)
        } else {
            text
        };
        let Some(t) = meaningful(text) else { return Ok(None) };
        if t.split_ascii_whitespace().next() != Some(self.me.as_str()) {
            return Ok(Some((0, 0)));
        }
        let off = t.as_ptr() as usize - self.buf[a..].as_ptr() as usize;
        Ok(Some((a + off, a + off + t.len())))
    }

    /// Moves the unread bytes to the front and reads more after them.
    fn refill(&mut self, path: &Path, chunk: usize) -> Result<(), SourceError> {
        let io = |e: std::io::Error| err(path, 0, format!("cannot read: {e}"));
        self.buf.copy_within(self.pos..self.len, 0);
        self.len -= self.pos;
        self.pos = 0;
        let mut file = match self.file.take() {
            Some(f) => f,
            None => {
                let mut f = File::open(path).map_err(io)?;
                if self.offset == 0 {
                    // First read: a buffer no larger than the file needs.
                    let size = f.metadata().map(|m| m.len()).unwrap_or(chunk as u64);
                    self.buf = vec![0; (size as usize + 1).clamp(64, chunk)];
                    self.holds_slot = take_open_slot();
                } else {
                    f.seek(SeekFrom::Start(self.offset)).map_err(io)?;
                }
                f
            }
        };
        if self.len == self.buf.len() {
            // A line longer than the buffer, up to a bound.
            if self.buf.len() >= MAX_LINE {
                return Err(too_long(path, self.line + 1));
            }
            let grown = (self.buf.len() * 2).max(64);
            self.buf.resize(grown, 0);
        }
        let n = loop {
            match file.read(&mut self.buf[self.len..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io(e)),
            }
        };
        self.len += n;
        self.offset += n as u64;
        if n == 0 {
            self.eof = true;
            if self.holds_slot {
                self.holds_slot = false;
                OPEN_FILES.fetch_add(1, Ordering::Relaxed);
            }
        } else if self.holds_slot {
            self.file = Some(file);
        }
        Ok(())
    }
}

impl Source {
    /// A cursor at the start of rank `r`'s lines.
    pub fn cursor(&self, r: usize) -> Cursor {
        match self {
            Source::PerRank(_) => Cursor::File(Box::new(FileCursor::new(r))),
            Source::Shared { .. } => Cursor::Shared(0),
        }
    }

    /// Rank `r`'s next meaningful line (and its number) after `cur`, or `None` at the
    /// end. Lines of other ranks in a per-rank file are skipped (as SimGrid does) and
    /// counted in `skipped`.
    pub fn next_line<'a>(
        &'a self,
        cur: &'a mut Cursor,
        r: usize,
        skipped: &mut u64,
    ) -> Result<Option<(u32, &'a str)>, SourceError> {
        match (self, cur) {
            (Source::Shared { ranks, .. }, Cursor::Shared(next)) => {
                let line = ranks[r].get(*next).map(|(n, t)| (*n, t.as_str()));
                *next += 1;
                Ok(line)
            }
            (Source::PerRank(files), Cursor::File(c)) => {
                let path = &files[r];
                let chunk = chunk_for(files.len());
                loop {
                    let Some((n, a, b)) = c.next_raw(path, chunk)? else {
                        return Ok(None);
                    };
                    match c.keep(a, b) {
                        Err(()) => return Err(err(path, n, "read error: stream did not contain valid UTF-8")),
                        Ok(None) => continue,
                        Ok(Some((0, 0))) => *skipped += 1,
                        Ok(Some((ta, tb))) => {
                            let t = std::str::from_utf8(&c.buf[ta..tb]).expect("checked by keep");
                            return Ok(Some((n, t)));
                        }
                    }
                }
            }
            _ => unreachable!("a cursor of another kind of source"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::lines;

    #[test]
    fn lines_split_as_the_standard_iterator_does() {
        for text in [
            "",
            "a",
            "a\n",
            "a\r\n",
            "a\rb\n",
            "\n\n",
            "x\r",
            "a\nb",
            "\r\n\r\n",
            "é\nü\r\nß",
            "a\n\nb\n",
        ] {
            let ours: Vec<&str> = lines(text).collect();
            let std: Vec<&str> = text.lines().collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }
}
