//! Workload patterns: common collectives and a stencil, as rank programs that make
//! MPI calls ([`PatternProgram`]). The collectives are `mpi::coll`'s algorithms, the
//! ones traces replay with. A pattern runs live in the engine (`simpi replay --pattern`,
//! nothing written) or is written as GOAL one rank at a time ([`generate`]), so even
//! 2^20 ranks stream in constant memory. `random` writes random operation-level GOAL
//! schedules for testing.

mod goal_sink;
mod program;
mod random;
mod stencil3d;

pub use program::PatternProgram;
pub use random::{generate_random, RandomParams, MAX_RANDOM_ITEMS, MAX_RANDOM_RANKS};

use crate::goal::GoalWriter;
use goal_sink::GoalSink;
use simpi_mpi::calls::RankCalls;
use simpi_mpi::coll::Collective;
use simpi_mpi::live::{Program, Step};
use std::io::{self, Write};

/// The patterns `simpi schedgen` knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Binomial-tree broadcast from rank 0.
    BinomialBcast,
    /// Binomial-tree reduction to rank 0.
    BinomialReduce,
    /// Recursive-doubling allreduce (with MPICH's fold for non-powers of two).
    RecursiveDoublingAllreduce,
    /// Ring allreduce: ring reduce-scatter then ring allgather.
    RingAllreduce,
    /// Dissemination barrier.
    DisseminationBarrier,
    /// Linear all-to-all: every rank sends to and receives from every other.
    LinearAlltoall,
    /// 3D 7-point stencil halo exchange with compute.
    Stencil3d,
}

impl Pattern {
    /// Every pattern with its command-line name and a one-line description.
    pub const ALL: [(Pattern, &'static str, &'static str); 7] = [
        (
            Pattern::BinomialBcast,
            "binomial-bcast",
            "binomial-tree broadcast from rank 0",
        ),
        (
            Pattern::BinomialReduce,
            "binomial-reduce",
            "binomial-tree reduce to rank 0",
        ),
        (
            Pattern::RecursiveDoublingAllreduce,
            "rd-allreduce",
            "recursive-doubling allreduce",
        ),
        (
            Pattern::RingAllreduce,
            "ring-allreduce",
            "ring allreduce (reduce-scatter + allgather)",
        ),
        (
            Pattern::DisseminationBarrier,
            "dissemination-barrier",
            "dissemination barrier",
        ),
        (Pattern::LinearAlltoall, "linear-alltoall", "linear all-to-all"),
        (
            Pattern::Stencil3d,
            "stencil3d",
            "3D 7-point stencil halo exchange with compute",
        ),
    ];

    /// The pattern called `name` on the command line.
    pub fn from_name(name: &str) -> Option<Pattern> {
        Pattern::ALL.iter().find(|(_, n, _)| *n == name).map(|(p, _, _)| *p)
    }

    /// The command-line name of the pattern.
    pub fn name(self) -> &'static str {
        Pattern::ALL.iter().find(|(p, _, _)| *p == self).unwrap().1
    }
}

/// Parameters shared by all patterns.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Number of ranks.
    pub ranks: u32,
    /// Message size in bytes (the whole vector for reductions, per pair for alltoall,
    /// per face for the stencil).
    pub bytes: u64,
    /// Repetitions of the pattern, each after the previous one completed locally.
    pub iterations: u32,
    /// Compute time at the start of each iteration, in GOAL time units.
    pub compute: u64,
    /// Stencil: the grid wraps around (a torus: every rank has six neighbours).
    pub periodic: bool,
}

impl Default for Params {
    /// The command line's defaults: 8 ranks, 8 bytes, one iteration, no compute.
    fn default() -> Params {
        Params {
            ranks: 8,
            bytes: 8,
            iterations: 1,
            compute: 0,
            periodic: false,
        }
    }
}

impl Pattern {
    /// The collective a pattern runs, and the name of its `mpi::coll` algorithm.
    pub fn collective(self) -> Option<(Collective, &'static str)> {
        Some(match self {
            Pattern::BinomialBcast => (Collective::Bcast, "binomial"),
            Pattern::BinomialReduce => (Collective::Reduce, "binomial"),
            Pattern::RecursiveDoublingAllreduce => (Collective::Allreduce, "rdb"),
            Pattern::RingAllreduce => (Collective::Allreduce, "ring"),
            Pattern::DisseminationBarrier => (Collective::Barrier, "bruck"),
            Pattern::LinearAlltoall => (Collective::Alltoall, "linear"),
            Pattern::Stencil3d => return None,
        })
    }
}

/// The most ranks a pattern has: collective algorithms count ranks in 32 bits, and
/// compute masks and distances up to twice the communicator's size.
pub const MAX_PATTERN_RANKS: u32 = 1 << 31;

/// The most bytes of GOAL [`generate`] writes: 1 GiB, about 40 million operations.
/// Some patterns grow as the square of the ranks (each rank of a ring allreduce makes
/// 2(N-1) steps, of a linear all-to-all 2(N-1) messages), so a rank count typed for a
/// simulation (`--ranks 5000`) would write gigabytes; `simpi replay --pattern` runs
/// any of them without a file.
pub const MAX_OUTPUT_BYTES: u64 = 1 << 30;

/// Writes the GOAL schedule of `pattern` to `out` (times in GOAL's units, as
/// [`Params::compute`]), refusing before writing anything a schedule estimated at more
/// than [`MAX_OUTPUT_BYTES`] (an error of kind `FileTooLarge` that says how large it
/// would be and what runs it without a file).
pub fn generate<W: Write>(pattern: Pattern, p: &Params, out: W) -> io::Result<W> {
    generate_at_most(pattern, p, out, MAX_OUTPUT_BYTES)
}

/// [`generate`] with another limit on the estimated size (`u64::MAX`: none).
pub fn generate_at_most<W: Write>(pattern: Pattern, p: &Params, out: W, max_bytes: u64) -> io::Result<W> {
    check_params(p)?;
    if max_bytes < u64::MAX {
        let size = estimate(pattern, p, max_bytes)?;
        if size.bytes > max_bytes {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!(
                    "{} on {} rank(s){} would be a GOAL file of {} {}, more than the {} \
                     `simpi schedgen` writes: `simpi replay --pattern {} --ranks {}` simulates it \
                     without a file",
                    pattern.name(),
                    p.ranks,
                    if p.iterations > 1 {
                        format!(" x {} iterations", p.iterations)
                    } else {
                        String::new()
                    },
                    if size.lower_bound { "at least" } else { "about" },
                    human_bytes(size.bytes),
                    human_bytes(max_bytes),
                    pattern.name(),
                    p.ranks
                ),
            ));
        }
    }
    let mut w = GoalWriter::new(out, p.ranks)?;
    let mut prog = PatternProgram::new(pattern, *p, p.compute);
    for r in 0..p.ranks {
        write_rank(&mut prog, &mut w, r)?;
        prog.done_below(r + 1);
    }
    w.finish()
}

fn check_params(p: &Params) -> io::Result<()> {
    if p.ranks == 0 || p.iterations == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a pattern needs at least one rank and one iteration",
        ));
    }
    if p.ranks > MAX_PATTERN_RANKS {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a pattern has at most {MAX_PATTERN_RANKS} ranks, not {}", p.ranks),
        ));
    }
    Ok(())
}

/// Writes rank `r`'s block.
fn write_rank<W: Write>(prog: &mut PatternProgram, w: &mut GoalWriter<W>, r: u32) -> io::Result<()> {
    // Units pass through: a compute of `c` units is written as `calc c`.
    let unit_ps = 1;
    w.begin_rank(r)?;
    let mut sink = GoalSink::new(w, unit_ps);
    let mut calls = RankCalls::<u32>::new(r);
    loop {
        match prog.step(r, &mut calls, &mut sink) {
            Ok(Step::Called) => {}
            Ok(Step::Ended) => break,
            Ok(Step::Pause) => unreachable!("a pattern never pauses"),
            Err(e) => return Err(sink.failed.take().unwrap_or_else(|| io::Error::other(e.to_string()))),
        }
    }
    if let Some(e) = sink.failed.take() {
        return Err(e);
    }
    w.end_rank()
}

/// Ranks whose blocks an estimate writes, at most.
const SAMPLE_RANKS: u32 = 64;

/// Bytes of blocks an estimate writes, at most (it stops sampling past them).
const SAMPLE_BYTES: u64 = 16 << 20;

/// The size in bytes of the GOAL schedule of `pattern`, estimated from the blocks of up
/// to [`SAMPLE_RANKS`] ranks spread over the range, of one and of two iterations (later
/// iterations repeat the second): exact for patterns whose ranks all write the same
/// amount, close for the others. Counting stops once the estimate is past `limit`
/// (the result is then a lower bound above it), so an estimate costs little however
/// large the pattern.
pub fn estimated_size(pattern: Pattern, p: &Params, limit: u64) -> io::Result<u64> {
    Ok(estimate(pattern, p, limit)?.bytes)
}

/// An estimated size, and whether it is only a lower bound (the estimate stopped once
/// past its limit).
struct Estimate {
    bytes: u64,
    lower_bound: bool,
}

/// See [`estimated_size`].
fn estimate(pattern: Pattern, p: &Params, limit: u64) -> io::Result<Estimate> {
    check_params(p)?;
    let n = p.ranks as u64;
    // Every block takes at least `\nrank R {\n}\n`, and an operation at least 8 bytes
    // (`l1: calc` has 9): past the limit with that alone, no need to look further (nor
    // to expand collectives over billions of ranks, nor a rank's million steps).
    let ops = match pattern {
        // Per iteration: 2(N-1) steps, a send and a receive each.
        Pattern::RingAllreduce => 4 * (n - 1),
        // Per iteration: a send to and a receive from every other rank.
        Pattern::LinearAlltoall => 2 * (n - 1),
        _ => 0,
    };
    let at_least = n.saturating_mul(12 + 8 * ops.saturating_mul(p.iterations as u64));
    if at_least > limit {
        return Ok(Estimate {
            bytes: at_least,
            lower_bound: true,
        });
    }
    let samples = p.ranks.min(SAMPLE_RANKS);
    // Bytes of the sampled blocks with one iteration and with two.
    let mut one = 0u64;
    let mut two = 0u64;
    let mut taken = 0u64;
    for k in 0..samples {
        let r = (k as u64 * n / samples as u64) as u32;
        let block = |iterations: u32, cap: u64| -> io::Result<Option<u64>> {
            let q = Params { iterations, ..*p };
            let mut prog = PatternProgram::new(pattern, q, q.compute);
            prog.done_below(r); // no state for the ranks before
            let mut w = GoalWriter::new(Counter { bytes: 0, cap }, q.ranks)?;
            let header = format!("num_ranks {}\n", q.ranks).len() as u64;
            match write_rank(&mut prog, &mut w, r).and_then(|_| w.finish()) {
                Ok(c) => Ok(Some(c.bytes - header)),
                Err(e) if e.kind() == io::ErrorKind::FileTooLarge => Ok(None),
                Err(e) => Err(e),
            }
        };
        // One block alone past the limit: the schedule is too (it holds every block).
        let past = Estimate {
            bytes: limit.saturating_add(1),
            lower_bound: true,
        };
        let Some(b1) = block(1, limit.saturating_add(1))? else {
            return Ok(past);
        };
        let b2 = if p.iterations > 1 {
            match block(2, limit.saturating_add(1))? {
                Some(b) => b,
                None => return Ok(past),
            }
        } else {
            b1
        };
        one += b1;
        two += b2;
        taken += 1;
        if one + two > SAMPLE_BYTES {
            break;
        }
    }
    // Per rank: the first iteration, then each further one as the second.
    let per_rank = (one as f64 + (two as f64 - one as f64) * (p.iterations as f64 - 1.0)) / taken as f64;
    let total = per_rank * n as f64 + 32.0;
    Ok(Estimate {
        bytes: if total >= u64::MAX as f64 {
            u64::MAX
        } else {
            total as u64
        },
        lower_bound: false,
    })
}

/// Counts bytes written, failing (as `FileTooLarge`) past `cap`.
struct Counter {
    bytes: u64,
    cap: u64,
}

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len() as u64;
        if self.bytes > self.cap {
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, "past the estimate's cap"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `2.6 GB`, `1 GiB`-style sizes for messages.
fn human_bytes(b: u64) -> String {
    if b >= 1 << 30 && b.is_multiple_of(1 << 30) {
        return format!("{} GiB", b >> 30);
    }
    let units = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    for (name, size) in units {
        if b as f64 >= size {
            return format!("{:.1} {name}", b as f64 / size);
        }
    }
    format!("{b} bytes")
}

#[cfg(test)]
mod tests;
