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
pub use random::{generate_random, RandomParams};

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

/// Writes the GOAL schedule of `pattern` to `out` (times in GOAL's units, as
/// [`Params::compute`]).
pub fn generate<W: Write>(pattern: Pattern, p: &Params, out: W) -> io::Result<W> {
    assert!(p.ranks >= 1 && p.iterations >= 1);
    let mut w = GoalWriter::new(out, p.ranks)?;
    // Units pass through: a compute of `c` units is written as `calc c`.
    let unit_ps = 1;
    let mut prog = PatternProgram::new(pattern, *p, p.compute);
    for r in 0..p.ranks {
        w.begin_rank(r)?;
        let mut sink = GoalSink::new(&mut w, unit_ps);
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
        w.end_rank()?;
    }
    w.finish()
}

#[cfg(test)]
mod tests;
