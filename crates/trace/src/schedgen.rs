//! Schedule generators: collective and application patterns written as GOAL, one rank
//! at a time, so even 2^20 ranks stream in constant memory.
//!
//! Every pattern is a function that writes one iteration of one rank's operations
//! after a start operation and returns the operations the next iteration waits for.
//! `--compute` inserts a computation of that length at the start of every iteration.

mod alltoall;
mod barrier;
mod bcast;
mod random;
mod rd_allreduce;
mod reduce;
mod ring_allreduce;
mod stencil3d;

pub use random::{generate_random, RandomParams};

use crate::goal::{GoalWriter, Label};
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
}

/// Writes the GOAL schedule of `pattern` to `out`.
pub fn generate<W: Write>(pattern: Pattern, p: &Params, out: W) -> io::Result<W> {
    assert!(p.ranks >= 1 && p.iterations >= 1);
    let mut w = GoalWriter::new(out, p.ranks)?;
    for r in 0..p.ranks {
        w.begin_rank(r)?;
        let mut tail: Vec<Label> = Vec::new();
        for it in 0..p.iterations {
            // Join the previous iteration (and carry the compute) in one calc; the first
            // iteration needs it only when it computes.
            let start = if it > 0 || p.compute > 0 {
                let c = w.calc(p.compute)?;
                for &t in &tail {
                    w.requires(c, t)?;
                }
                Some(c)
            } else {
                None
            };
            let mut s = Step { w: &mut w, start };
            tail = match pattern {
                Pattern::BinomialBcast => bcast::rank(p, r, &mut s)?,
                Pattern::BinomialReduce => reduce::rank(p, r, &mut s)?,
                Pattern::RecursiveDoublingAllreduce => rd_allreduce::rank(p, r, &mut s)?,
                Pattern::RingAllreduce => ring_allreduce::rank(p, r, &mut s)?,
                Pattern::DisseminationBarrier => barrier::rank(p, r, &mut s)?,
                Pattern::LinearAlltoall => alltoall::rank(p, r, &mut s)?,
                Pattern::Stencil3d => stencil3d::rank(p, r, &mut s)?,
            };
            if tail.is_empty() {
                tail.extend(start);
            }
        }
        w.end_rank()?;
    }
    w.finish()
}

/// What a pattern writes into: the writer plus the operation its first operations wait
/// for (none in a first iteration without compute).
pub(crate) struct Step<'a, W: Write> {
    w: &'a mut GoalWriter<W>,
    start: Option<Label>,
}

impl<W: Write> Step<'_, W> {
    /// A send whose start waits for `after` (or for the iteration's start if `None`).
    fn send(&mut self, bytes: u64, to: u32, tag: u32, after: Option<Label>) -> io::Result<Label> {
        let l = self.w.send(bytes, to, tag)?;
        self.after(l, after)?;
        Ok(l)
    }

    /// A receive whose start waits for `after` (or for the iteration's start if `None`).
    fn recv(&mut self, bytes: u64, from: u32, tag: u32, after: Option<Label>) -> io::Result<Label> {
        let l = self.w.recv(bytes, from, tag)?;
        self.after(l, after)?;
        Ok(l)
    }

    fn after(&mut self, l: Label, after: Option<Label>) -> io::Result<()> {
        if let Some(a) = after.or(self.start) {
            self.w.requires(l, a)?;
        }
        Ok(())
    }
}

/// Largest power of two not above `n` (n >= 1).
pub(crate) fn pow2_floor(n: u32) -> u32 {
    1 << (31 - n.leading_zeros())
}

#[cfg(test)]
mod tests;
