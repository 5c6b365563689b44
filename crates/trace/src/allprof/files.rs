//! A liballprof trace's files: one per rank, named `<prefix><rank><suffix>` with the
//! rank zero-padded to the digits of the world size (`pmpi-trace-rank-0.txt`, or
//! `-00.txt` from ten ranks on). The trace is given by rank 0's file; the ranks are the
//! files that follow it without a gap. Each file is read a line at a time.

use crate::tit::TitError;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Longest line read: a vector collective on a million ranks fits.
const MAX_LINE: u64 = 64 << 20;

fn err(path: &Path, line: u32, msg: impl Into<String>) -> TitError {
    TitError {
        file: path.display().to_string(),
        line,
        msg: msg.into(),
    }
}

/// The per-rank files of the trace whose rank 0 file is `first`, in rank order.
pub(crate) fn rank_files(first: &Path) -> Result<Vec<PathBuf>, TitError> {
    if !first.is_file() {
        return Err(err(
            first,
            0,
            "not a file (give rank 0's trace file, e.g. pmpi-trace-rank-0.txt)",
        ));
    }
    let name = first
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| err(first, 0, "the file name is not UTF-8"))?;
    // The last run of digits that follows a '-' and is all zeros: rank 0.
    let bytes = name.as_bytes();
    let mut found = None;
    let mut i = bytes.len();
    while i > 0 {
        i -= 1;
        if bytes[i] == b'0' {
            let end = i + 1;
            let mut start = i;
            while start > 0 && bytes[start - 1] == b'0' {
                start -= 1;
            }
            let digits_end = end == bytes.len() || !bytes[end].is_ascii_digit();
            if start > 0 && bytes[start - 1] == b'-' && digits_end {
                found = Some((start, end));
                break;
            }
            i = start;
        }
    }
    let Some((start, end)) = found else {
        return Err(err(
            first,
            0,
            "expected rank 0's file of a liballprof trace, named <prefix>-0<suffix> \
             (e.g. pmpi-trace-rank-0.txt): its other ranks' files are found from it",
        ));
    };
    let (prefix, width, suffix) = (&name[..start], end - start, &name[end..]);
    let dir = first.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut files = vec![first.to_path_buf()];
    for r in 1u64.. {
        let digits = format!("{r:0width$}");
        if digits.len() > width {
            break;
        }
        let f = dir.join(format!("{prefix}{digits}{suffix}"));
        if !f.is_file() {
            break;
        }
        files.push(f);
    }
    Ok(files)
}

/// One rank's file, read a line at a time.
pub(crate) struct Lines {
    path: PathBuf,
    reader: Option<BufReader<File>>,
    buf: Vec<u8>,
    /// Lines read so far.
    pub(crate) line: u32,
    /// The last comment read was liballprof's `# Finalize clockdiff` (its clock
    /// synchronisation, which it runs inside MPI_Finalize before stamping its start).
    pub(crate) finalize_sync: bool,
}

impl Lines {
    /// The file at `path`, opened at its first read.
    pub(crate) fn new(path: PathBuf) -> Lines {
        Lines {
            path,
            reader: None,
            buf: Vec::new(),
            line: 0,
            finalize_sync: false,
        }
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The next line that is not blank nor a comment (`#`), without its end of line and
    /// any trailing comment; none at the end of the file.
    pub(crate) fn next(&mut self) -> Result<Option<&str>, TitError> {
        self.finalize_sync = false;
        loop {
            if self.reader.is_none() {
                let f = File::open(&self.path).map_err(|e| err(&self.path, 0, format!("cannot open: {e}")))?;
                self.reader = Some(BufReader::with_capacity(64 << 10, f));
            }
            let reader = self.reader.as_mut().expect("opened");
            self.buf.clear();
            let n = reader
                .by_ref()
                .take(MAX_LINE)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| err(&self.path, self.line + 1, format!("cannot read: {e}")))?;
            if n == 0 {
                // Done: the file's descriptor is not kept.
                self.reader = None;
                return Ok(None);
            }
            if self.line == u32::MAX {
                return Err(err(&self.path, self.line, "more lines than can be counted"));
            }
            self.line += 1;
            if n as u64 == MAX_LINE && self.buf.last() != Some(&b'\n') {
                return Err(err(
                    &self.path,
                    self.line,
                    format!("a line longer than {MAX_LINE} bytes"),
                ));
            }
            let text =
                std::str::from_utf8(&self.buf).map_err(|_| err(&self.path, self.line, "the line is not UTF-8 text"))?;
            if text.trim_start().starts_with('#') {
                self.finalize_sync = text.trim_start().starts_with("# Finalize clockdiff");
                continue;
            }
            // liballprof2 appends "  # backtrace [...]" to a call.
            let text = text.split_once('#').map_or(text, |(before, _)| before);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            // Re-borrow to return: the text is a slice of `buf`.
            let start = text.as_ptr() as usize - self.buf.as_ptr() as usize;
            let len = text.len();
            return Ok(Some(
                std::str::from_utf8(&self.buf[start..start + len]).expect("checked"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_rank_zero_with_its_padding() {
        let d = std::env::temp_dir().join(format!("simpi-allprof-files-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        for r in ["00", "01", "02", "04"] {
            std::fs::write(d.join(format!("t-{r}.txt")), "").unwrap();
        }
        let f = rank_files(&d.join("t-00.txt")).unwrap();
        assert_eq!(f.len(), 3);
        assert!(f[2].ends_with("t-02.txt"));
        assert!(rank_files(&d.join("t-01.txt")).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
