//! Finds the source lines of given operations by reading a GOAL file again; used to
//! point error reports at lines without keeping line numbers in memory during runs.

use super::reader::{parse_goal_sized, GoalSink};
use simpi_kernel::TimeUnit;
use simpi_mpi::{BuildError, Op};
use std::collections::HashMap;
use std::path::Path;

struct Locator<'w> {
    wanted: &'w HashMap<(u32, u32), Option<u32>>,
    found: HashMap<(u32, u32), u32>,
    rank: u32,
    next: u32,
}

impl GoalSink for Locator<'_> {
    fn num_ranks(&mut self, _n: u32) {}
    fn begin_rank(&mut self, rank: u64) -> Result<(), BuildError> {
        self.rank = rank as u32;
        self.next = 0;
        Ok(())
    }
    fn op(&mut self, _op: Op, line: u32) -> Result<u32, BuildError> {
        let i = self.next;
        if self.wanted.contains_key(&(self.rank, i)) {
            self.found.insert((self.rank, i), line);
        }
        self.next += 1;
        Ok(i)
    }
    fn requires(&mut self, _a: u32, _b: u32) {}
    fn irequires(&mut self, _a: u32, _b: u32) {}
    fn end_rank(&mut self) -> Result<(), BuildError> {
        Ok(())
    }
    fn satisfied(&self) -> bool {
        self.found.len() == self.wanted.len()
    }
}

/// Maps `(rank, local op index)` pairs to their 1-based line in the GOAL file at `path`.
/// Pairs not found (or a file that no longer parses) are left out.
pub fn locate_ops(path: &Path, unit: TimeUnit, ops: &[(u32, u32)]) -> HashMap<(u32, u32), u32> {
    let wanted: HashMap<(u32, u32), Option<u32>> = ops.iter().map(|&k| (k, None)).collect();
    let mut loc = Locator {
        wanted: &wanted,
        found: HashMap::new(),
        rank: 0,
        next: 0,
    };
    if let Ok(f) = std::fs::File::open(path) {
        let size = f.metadata().map(|m| m.len()).ok();
        let _ = parse_goal_sized(std::io::BufReader::new(f), "", unit, &mut loc, true, size);
    }
    loc.found
}
