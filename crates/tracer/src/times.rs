//! The measured side of a trace directory: each rank's `rank-<r>.times`, one line
//! `<name> <start_s> <end_s>` per line of its TIT file (seconds from the origin all ranks
//! share, just after MPI_Init), summed per call name, with the moment the rank entered
//! MPI_Finalize (its `finalize` line's start).

use crate::Error;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// The lines of one call name on one rank.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallTime {
    /// How many lines.
    pub count: u64,
    /// Their durations (end - start) summed, seconds.
    pub seconds: f64,
}

/// One rank's measured times.
#[derive(Clone, Debug, PartialEq)]
pub struct RankTimes {
    /// When the rank entered MPI_Finalize, seconds.
    pub finalize: f64,
    /// Per call name as the times file spells it (the TIT action: `send`, `allreduce`,
    /// `compute`, also `init`, `finalize`, `comm_known`).
    pub calls: BTreeMap<String, CallTime>,
}

/// The times file of rank `r` in trace directory `dir`.
pub fn times_path(dir: &Path, r: u32) -> PathBuf {
    dir.join(format!("rank-{r}.times"))
}

/// Reads the times files of ranks `0..ranks` of `dir`.
pub fn read_times(dir: &Path, ranks: u32) -> Result<Vec<RankTimes>, Error> {
    (0..ranks).map(|r| read_rank(&times_path(dir, r))).collect()
}

/// Reads one times file. A line that is not a name and two finite times, the end not
/// before the start, is an error at its line, and so is a file without exactly one
/// `finalize` line: without it the rank's end is unknown.
pub fn read_rank(path: &Path) -> Result<RankTimes, Error> {
    let file = std::fs::File::open(path).map_err(|error| Error::Io {
        action: "read",
        path: path.to_path_buf(),
        error,
    })?;
    let mut reader = std::io::BufReader::new(file);
    let bad = |line: usize, message: &'static str| Error::Format {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut calls: BTreeMap<String, CallTime> = BTreeMap::new();
    let mut finalize = None;
    let mut text = String::new();
    let mut line = 0;
    loop {
        text.clear();
        match reader.read_line(&mut text) {
            Ok(0) => break,
            Ok(_) => line += 1,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(bad(line + 1, "not text (invalid UTF-8)"))
            }
            Err(error) => {
                return Err(Error::Io {
                    action: "read",
                    path: path.to_path_buf(),
                    error,
                })
            }
        }
        let mut words = text.split_whitespace();
        let Some(name) = words.next() else { continue };
        let (Some(start), Some(end), None) = (words.next(), words.next(), words.next()) else {
            return Err(bad(line, "expected `<name> <start_s> <end_s>`"));
        };
        let seconds = |w: &str| w.parse::<f64>().ok().filter(|s| s.is_finite());
        let (Some(start), Some(end)) = (seconds(start), seconds(end)) else {
            return Err(bad(line, "a start or end that is not a finite number of seconds"));
        };
        if end < start {
            return Err(bad(line, "the call ends before it starts"));
        }
        if name == "finalize" {
            if finalize.is_some() {
                return Err(bad(line, "a second `finalize` line"));
            }
            finalize = Some(start);
        }
        // One allocation per name, not per line.
        match calls.get_mut(name) {
            Some(c) => {
                c.count += 1;
                c.seconds += end - start;
            }
            None => {
                calls.insert(
                    name.to_string(),
                    CallTime {
                        count: 1,
                        seconds: end - start,
                    },
                );
            }
        }
    }
    let finalize = finalize.ok_or_else(|| {
        bad(
            line.max(1),
            "the file ends without a `finalize` line: the rank did not reach MPI_Finalize under the tracer",
        )
    })?;
    Ok(RankTimes { finalize, calls })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("simpi-times-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn durations_are_summed_per_name_and_finalize_gives_the_end() {
        let p = file(
            "ok",
            "init 0.000000000 0.000000000\ncompute 0.0 0.25\nsend 0.25 0.5\ncompute 0.5 1.0\n\nfinalize 1.0 1.125\n",
        );
        let t = read_rank(&p).unwrap();
        assert_eq!(t.finalize, 1.0);
        assert_eq!(
            t.calls["compute"],
            CallTime {
                count: 2,
                seconds: 0.75
            }
        );
        assert_eq!(
            t.calls["send"],
            CallTime {
                count: 1,
                seconds: 0.25
            }
        );
        assert_eq!(t.calls["finalize"].seconds, 0.125);
        assert_eq!(t.calls.len(), 4);
        let _ = std::fs::remove_file(p);
    }

    #[test]
    fn malformed_lines_are_named_by_line() {
        for (name, text, line, what) in [
            ("fields", "init 0 0\nsend 0.1\nfinalize 1 1\n", 2, "expected"),
            ("number", "init 0 0\nsend 0.1 x\n", 2, "finite"),
            ("nan", "init 0 0\ncompute 0 0\nsend nan 1\n", 3, "finite"),
            ("order", "send 0.2 0.1\n", 1, "before it starts"),
            ("twice", "finalize 1 1\nfinalize 2 2\n", 2, "second"),
            ("none", "init 0 0\nsend 0 1\n", 2, "without a `finalize`"),
            ("empty", "", 1, "without a `finalize`"),
        ] {
            let p = file(name, text);
            let e = read_rank(&p).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{}:{line}: ", p.display())), "{name}: {e}");
            assert!(e.contains(what), "{name}: {e}");
            let _ = std::fs::remove_file(p);
        }
    }
}
