//! Ranks that share CPUs: processor sharing of a pool of cores.
//!
//! A pool has `C` cores and the ranks placed on it. While `n` tasks compete, each runs
//! at `min(1, C / n)` of a core: what SimGrid's CPU model gives actors executing on
//! one host (equal shares of `speed × cores`, none faster than one core), and what an
//! operating system's fair scheduler gives runnable threads. With busy waiting
//! (`Protocol::busy_wait` = `w` > 0), a rank of the pool that has no task is waiting
//! inside MPI and spinning (as Open MPI's progress loop does), so it competes too: `n`
//! counts it as `w` of a task.
//!
//! The pool keeps a virtual clock: the work one task has received since the start,
//! in picoseconds scaled by `2^SHIFT`. A task of `w` picoseconds started at virtual
//! time `v` ends when the clock reaches `v + w`, so a change in `n` costs nothing per
//! task. Integer arithmetic throughout: the same events give the same times.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Fixed-point bits of the virtual clock below one picosecond.
const SHIFT: u32 = 20;
/// A task's weight in the count of competitors (a spinning rank's is a fraction of it).
const TASK: u128 = 1 << 10;

/// Which ranks share which cores: the input of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuSharing {
    /// Each rank's pool, or `u32::MAX` for a rank with CPUs of its own.
    pub pool_of_rank: Vec<u32>,
    /// Each pool's cores.
    pub cores: Vec<u32>,
}

/// A rank with CPUs of its own.
pub const OWN_CPUS: u32 = u32::MAX;

impl CpuSharing {
    /// Every rank has CPUs of its own.
    pub fn none() -> CpuSharing {
        CpuSharing::default()
    }

    /// Pools from each rank's machine (`machine_of_rank`, any ids) and each machine's
    /// cores (`cores_of`). A machine running no more ranks than it has cores gives each
    /// its own: sharing would change nothing, and the engine's faster path stays.
    pub fn from_machines(machine_of_rank: &[u64], cores_of: impl Fn(u64) -> u32) -> CpuSharing {
        // Sorted, each machine's ranks are one run: counted in one pass (a platform
        // may have a million hosts).
        let mut ids: Vec<u64> = machine_of_rank.to_vec();
        ids.sort_unstable();
        let mut pools = Vec::new();
        let mut cores = Vec::new();
        for run in ids.chunk_by(|a, b| a == b) {
            let c = cores_of(run[0]).max(1);
            if run.len() > c as usize {
                pools.push(run[0]);
                cores.push(c);
            }
        }
        let pool_of_rank = machine_of_rank
            .iter()
            .map(|m| pools.binary_search(m).map_or(OWN_CPUS, |i| i as u32))
            .collect();
        CpuSharing { pool_of_rank, cores }
    }

    /// The pool of rank `r`, if it shares one.
    #[inline]
    pub fn pool(&self, r: u32) -> Option<u32> {
        match self.pool_of_rank.get(r as usize) {
            Some(&p) if p != OWN_CPUS => Some(p),
            _ => None,
        }
    }

    /// True if some rank shares a pool.
    pub fn any(&self) -> bool {
        !self.cores.is_empty()
    }

    /// Checks that every pool named has cores.
    pub fn validate(&self) -> Result<(), String> {
        if self.cores.contains(&0) {
            return Err("a CPU pool has no cores".into());
        }
        match self
            .pool_of_rank
            .iter()
            .find(|&&p| p != OWN_CPUS && p as usize >= self.cores.len())
        {
            Some(p) => Err(format!("CPU pool {p} is not defined")),
            None => Ok(()),
        }
    }
}

/// One pool's tasks under processor sharing.
#[derive(Debug)]
pub(crate) struct Pool {
    /// Cores, in units of `TASK`.
    cores: u128,
    /// Ranks placed on the pool (the spinners when they wait).
    ranks: u64,
    /// A waiting rank's weight, in units of `TASK`.
    spin: u128,
    /// Tasks running now.
    tasks: u64,
    /// Ranks with at least one task, and each rank's task count.
    busy_ranks: u64,
    /// Virtual clock (work per task so far, ps << SHIFT) and the time it was read.
    virtual_now: u128,
    at: u64,
    /// Running tasks by (virtual end, arrival): the first ends first.
    heap: BinaryHeap<Reverse<(u128, u64, u32)>>,
    arrivals: u64,
    /// Bumped at every change: a wake-up event names the generation it was set for.
    pub(crate) generation: u32,
}

impl Pool {
    /// A pool of `cores` for `ranks` ranks, a waiting rank claiming `spin` (0 to 1) of
    /// what a working one does.
    pub(crate) fn new(cores: u32, ranks: u64, spin: f64) -> Pool {
        Pool {
            cores: cores.max(1) as u128 * TASK,
            ranks,
            spin: (spin.clamp(0.0, 1.0) * TASK as f64).round() as u128,
            tasks: 0,
            busy_ranks: 0,
            virtual_now: 0,
            at: 0,
            heap: BinaryHeap::new(),
            arrivals: 0,
            generation: 0,
        }
    }

    /// How many compete for the cores, in units of `TASK`.
    fn competitors(&self) -> u128 {
        let waiting = self.ranks.saturating_sub(self.busy_ranks) as u128;
        self.tasks as u128 * TASK + waiting * self.spin
    }

    /// Moves the virtual clock to `t`.
    fn advance(&mut self, t: u64) {
        let dt = (t.saturating_sub(self.at) as u128) << SHIFT;
        let n = self.competitors();
        if self.tasks > 0 {
            self.virtual_now += if n <= self.cores { dt } else { dt * self.cores / n };
        }
        self.at = self.at.max(t);
    }

    /// Adds a task of `work` picoseconds at `t`, known to the caller as `task`;
    /// `first_of_rank` says its rank had no task.
    pub(crate) fn add(&mut self, t: u64, work: u64, task: u32, first_of_rank: bool) {
        self.advance(t);
        let end = self.virtual_now + ((work as u128) << SHIFT);
        self.heap.push(Reverse((end, self.arrivals, task)));
        self.arrivals += 1;
        self.tasks += 1;
        self.busy_ranks += first_of_rank as u64;
        self.generation = self.generation.wrapping_add(1);
    }

    /// When the first running task ends, if any runs. Rounded up, so that the clock
    /// advanced to that time has reached the task's end.
    pub(crate) fn next_end(&self) -> Option<u64> {
        let Reverse((end, _, _)) = *self.heap.peek()?;
        let left = end.saturating_sub(self.virtual_now);
        let n = self.competitors();
        let dt = if n <= self.cores {
            left.div_ceil(1 << SHIFT)
        } else {
            (left * n).div_ceil(self.cores << SHIFT)
        };
        // (n and cores share the unit TASK: their ratio is the share.)
        Some(self.at.saturating_add(u64::try_from(dt).unwrap_or(u64::MAX)))
    }

    /// Takes the next task that has ended by `t`, if any; the caller says, through
    /// `last_of_rank`, whether its rank has no task left.
    pub(crate) fn pop_ended(&mut self, t: u64) -> Option<u32> {
        self.advance(t);
        let Reverse((end, _, task)) = *self.heap.peek()?;
        if end > self.virtual_now {
            return None;
        }
        self.heap.pop();
        self.tasks -= 1;
        self.generation = self.generation.wrapping_add(1);
        Some(task)
    }

    /// The rank of a task just popped has no task left.
    pub(crate) fn rank_idle(&mut self) {
        self.busy_ranks -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs tasks `(start, work)` on a pool; gives each one's end.
    fn ends(cores: u32, ranks: u64, spin: f64, tasks: &[(u64, u64)]) -> Vec<u64> {
        let mut p = Pool::new(cores, ranks, spin);
        let mut out = vec![0; tasks.len()];
        let mut next = 0;
        loop {
            let arrival = tasks.get(next).map(|t| t.0);
            let end = p.next_end();
            match (arrival, end) {
                (None, None) => return out,
                (Some(a), e) if e.is_none_or(|e| a <= e) => {
                    // Each task its own rank.
                    p.add(a, tasks[next].1, next as u32, true);
                    next += 1;
                }
                (_, Some(e)) => {
                    while let Some(k) = p.pop_ended(e) {
                        p.rank_idle();
                        out[k as usize] = e;
                    }
                }
                _ => unreachable!(),
            }
        }
    }

    #[test]
    fn no_more_tasks_than_cores_run_at_full_speed() {
        assert_eq!(ends(2, 2, 0.0, &[(0, 1000), (5, 300)]), vec![1000, 305]);
    }

    #[test]
    fn four_equal_tasks_on_two_cores_take_twice_as_long() {
        assert_eq!(ends(2, 4, 0.0, &[(0, 1000); 4]), vec![2000; 4]);
    }

    #[test]
    fn shares_change_as_tasks_come_and_go() {
        // One core. A (work 10) alone for 4, then with B (work 2): both at 1/2, B ends
        // at 4 + 4 = 8, A has 6 - 2 = 4 left alone: ends at 12.
        assert_eq!(ends(1, 2, 0.0, &[(0, 10), (4, 2)]), vec![12, 8]);
        // Three tasks on two cores: each at 2/3. Work 2, 4, 4 from 0: the first ends
        // at 3 (2 / (2/3)); the others have 2 left, now at full speed: end at 5.
        assert_eq!(ends(2, 3, 0.0, &[(0, 2), (0, 4), (0, 4)]), vec![3, 5, 5]);
    }

    #[test]
    fn spinning_ranks_slow_the_working_ones() {
        // Eight ranks on two cores, one working, seven spinning: a quarter of a core.
        assert_eq!(ends(2, 8, 1.0, &[(0, 1000)]), vec![4000]);
        // Without busy waiting it runs alone at full speed.
        assert_eq!(ends(2, 8, 0.0, &[(0, 1000)]), vec![1000]);
        // Spinners claiming half a working rank's share: 2 / (1 + 7/2) of a core.
        assert_eq!(ends(2, 8, 0.5, &[(0, 1000)]), vec![2250]);
    }

    #[test]
    fn uneven_rates_round_up_to_the_picosecond() {
        // Three tasks on one core: 1/3 each. Work 1 ends at 3; then two at 1/2.
        assert_eq!(ends(1, 3, 0.0, &[(0, 1), (0, 2), (0, 2)]), vec![3, 5, 5]);
        // Seven tasks on three cores, 10 ps each: 70/3 = 23.33, rounded up to 24.
        assert_eq!(ends(3, 7, 0.0, &[(0, 10); 7]), vec![24; 7]);
    }

    #[test]
    fn sharing_groups_only_machines_with_more_ranks_than_cores() {
        let s = CpuSharing::from_machines(&[7, 7, 7, 3, 9, 9], |m| if m == 9 { 2 } else { 1 });
        assert_eq!(s.pool_of_rank, vec![0, 0, 0, OWN_CPUS, OWN_CPUS, OWN_CPUS]);
        assert_eq!(s.cores, vec![1]);
        assert!(s.validate().is_ok());
        assert!(CpuSharing::none().pool(0).is_none());
    }
}
