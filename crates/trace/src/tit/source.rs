//! Where a trace's lines come from: an index file listing one file per rank, an index
//! with a single file holding every rank's lines, or such a file given directly.

use std::path::{Path, PathBuf};

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

/// Ranks a trace in one file may have without a line each.
const FREE_RANKS: usize = 1 << 20;

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

fn meaningful(line: &str) -> Option<&str> {
    let t = line.trim_ascii();
    (!t.is_empty() && !t.starts_with('#')).then_some(t)
}

impl Source {
    /// Opens `path`: an index file, or a trace file of `<rank> <action>` lines.
    pub fn open(path: &Path) -> Result<Source, SourceError> {
        let text = std::fs::read_to_string(path).map_err(|e| err(path, 0, format!("cannot read: {e}")))?;
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
            let t = std::fs::read_to_string(&f).map_err(|e| {
                err(
                    path,
                    entries[0].0,
                    format!("cannot read trace file {}: {e}", f.display()),
                )
            })?;
            return Self::shared(&f, &t);
        }
        let mut files = Vec::new();
        for (line, p) in entries {
            let f = resolve(&p);
            if !f.exists() {
                return Err(err(path, line, format!("trace file {} does not exist", p.display())));
            }
            if f.is_dir() {
                return Err(err(path, line, format!("trace file {} is a directory", p.display())));
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
                        format!("expected '<rank> <action> ...', found '{t}'"),
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
                let path = &files[r];
                let bytes = std::fs::read(path).map_err(|e| err(path, 0, format!("cannot read: {e}")))?;
                // A file that is not UTF-8 counts as a mention: the full read reports it.
                Ok(any(&bytes) || std::str::from_utf8(&bytes).is_err())
            }
        }
    }

    /// Calls `f(file, line number, text)` for each of rank `r`'s lines, in order. Lines of
    /// other ranks in a per-rank file are skipped (as SimGrid does) and counted.
    pub fn for_each<F>(&self, r: usize, skipped: &mut u64, mut f: F) -> Result<(), SourceError>
    where
        F: FnMut(&Path, u32, &str) -> Result<(), SourceError>,
    {
        match self {
            Source::Shared { file, ranks } => {
                for (line, text) in &ranks[r] {
                    f(file, *line, text)?;
                }
            }
            Source::PerRank(files) => {
                let path = &files[r];
                // One read and no allocation per line: traces have millions of lines.
                let bytes = std::fs::read(path).map_err(|e| err(path, 0, format!("cannot read: {e}")))?;
                // Lines before a bad byte are read first, as a line-by-line reader would.
                let (text, bad) = match std::str::from_utf8(&bytes) {
                    Ok(t) => (t, None),
                    Err(e) => {
                        let ok = &bytes[..e.valid_up_to()];
                        let cut = ok.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                        let line = ok[..cut].iter().filter(|&&b| b == b'\n').count() as u32 + 1;
                        let text = std::str::from_utf8(&ok[..cut]).expect("a valid prefix");
                        (text, Some(line))
                    }
                };
                let me = r.to_string();
                for (i, line) in lines(text).enumerate() {
                    let Some(t) = meaningful(line) else { continue };
                    if t.split_ascii_whitespace().next() != Some(me.as_str()) {
                        *skipped += 1;
                        continue;
                    }
                    f(path, i as u32 + 1, t)?;
                }
                if let Some(line) = bad {
                    return Err(err(path, line, "read error: stream did not contain valid UTF-8"));
                }
            }
        }
        Ok(())
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
