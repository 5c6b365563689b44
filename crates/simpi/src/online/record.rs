//! The computation of a run, recorded and replayed (`--compute record FILE`,
//! `--compute replay FILE`): per rank, the simulated picoseconds of computation before
//! each of its MPI calls, so that a rerun gives bit-identical simulated times whatever
//! the machine does meanwhile.
//!
//! The file is text: a first line naming the format and the rank count, then one line
//! per rank: the rank and its times, in call order.
//!
//! ```text
//! simpi-compute-record 1 ranks 2
//! 0 1500 0 230000
//! 1 0 0 12
//! ```

use std::collections::VecDeque;
use std::path::Path;

const MAGIC: &str = "simpi-compute-record 1";

/// Writes `times` (per rank, per call) to `path`.
pub fn write(path: &Path, times: &[Vec<u64>]) -> Result<(), String> {
    let mut text = format!("{MAGIC} ranks {}\n", times.len());
    for (r, t) in times.iter().enumerate() {
        text.push_str(&r.to_string());
        for ps in t {
            text.push(' ');
            text.push_str(&ps.to_string());
        }
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads the record at `path` for a run of `ranks` ranks.
pub fn read(path: &Path, ranks: u32) -> Result<Vec<VecDeque<u64>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let at = |line: usize, what: String| format!("{}:{}: {what}", path.display(), line + 1);
    let mut lines = text.lines().enumerate();
    let (_, head) = lines
        .next()
        .ok_or_else(|| at(0, "empty: not a compute record".into()))?;
    let n: u32 = head
        .strip_prefix(MAGIC)
        .and_then(|r| r.trim().strip_prefix("ranks "))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| at(0, format!("expected `{MAGIC} ranks N`")))?;
    if n != ranks {
        return Err(at(0, format!("a record of {n} ranks for a run of {ranks}")));
    }
    let mut out = vec![None; ranks as usize];
    for (i, line) in lines {
        let mut words = line.split_ascii_whitespace();
        let Some(first) = words.next() else { continue };
        let r: usize = first
            .parse()
            .ok()
            .filter(|&r| r < ranks as usize)
            .ok_or_else(|| at(i, format!("`{first}` is not a rank of the run")))?;
        if out[r].is_some() {
            return Err(at(i, format!("rank {r} a second time")));
        }
        let times: Result<VecDeque<u64>, String> = words
            .map(|w| {
                w.parse()
                    .map_err(|_| at(i, format!("`{w}` is not a time in picoseconds")))
            })
            .collect();
        out[r] = Some(times?);
    }
    out.into_iter()
        .enumerate()
        .map(|(r, t)| t.ok_or_else(|| format!("{}: no line for rank {r}", path.display())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written_and_bad_ones_name_their_line() {
        let dir = std::env::temp_dir().join(format!("simpi-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("r.txt");
        write(&p, &[vec![1, 2, u64::MAX], vec![]]).unwrap();
        let back = read(&p, 2).unwrap();
        assert_eq!(back[0], VecDeque::from(vec![1, 2, u64::MAX]));
        assert!(back[1].is_empty());
        assert!(read(&p, 3).unwrap_err().contains("r.txt:1: a record of 2 ranks"));
        std::fs::write(&p, format!("{MAGIC} ranks 1\n0 5 x\n")).unwrap();
        assert!(read(&p, 1).unwrap_err().contains("r.txt:2: `x` is not a time"));
        std::fs::write(&p, format!("{MAGIC} ranks 2\n0 5\n")).unwrap();
        assert!(read(&p, 2).unwrap_err().contains("no line for rank 1"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
