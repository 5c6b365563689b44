//! A pattern as a rank program: each iteration computes (if asked, and always after the
//! first, to join the previous iteration as GOAL's schedgen did), then runs the
//! pattern's body: a collective of `mpi::coll`, or the stencil's halo exchange.
//! Run live in the engine (`simpi replay --pattern`) or written as GOAL ([`super::generate`]):
//! the same calls either way.

use super::{Params, Pattern};
use simpi_mpi::calls::{CollComm, RankCalls, Req};
use simpi_mpi::coll::{find, first_algorithm, Algorithm, CollSpec, Collective};
use simpi_mpi::comm::CommTable;
use simpi_mpi::live::{Program, Step};
use simpi_mpi::sink::OpSink;
use simpi_mpi::Error;

/// Where one rank is in its iterations.
#[derive(Copy, Clone, Default)]
struct RankState {
    iteration: u32,
    /// The iteration's compute was done (or not needed).
    computed: bool,
}

/// A pattern's rank program.
pub struct PatternProgram {
    pattern: Pattern,
    params: Params,
    /// The collective and its algorithm (none for the stencil).
    coll: Option<(Collective, &'static Algorithm)>,
    /// Picoseconds of compute at the start of each iteration.
    compute_ps: u64,
    /// By rank from `first`, grown as ranks make their first call: a program of
    /// billions of ranks written one rank at a time (`simpi schedgen`) holds the state
    /// of one.
    ranks: Vec<RankState>,
    /// The rank of `ranks[0]`.
    first: u32,
}

impl PatternProgram {
    /// The program of `pattern` with `params`, computes of `compute_ps` picoseconds.
    pub fn new(pattern: Pattern, params: Params, compute_ps: u64) -> PatternProgram {
        let coll = pattern.collective().map(|(c, name)| {
            (
                c,
                find(c, name).unwrap_or_else(|| panic!("{c} algorithm {name} is registered")),
            )
        });
        PatternProgram {
            pattern,
            params,
            coll,
            compute_ps,
            ranks: Vec::new(),
            first: 0,
        }
    }

    /// The pattern.
    pub fn pattern(&self) -> Pattern {
        self.pattern
    }

    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.params.ranks
    }

    /// Forgets the ranks below `rank`, which will make no more calls (a schedule being
    /// written has passed them).
    pub(crate) fn done_below(&mut self, rank: u32) {
        if rank > self.first {
            let k = ((rank - self.first) as usize).min(self.ranks.len());
            self.ranks.drain(..k);
            self.first = rank;
        }
    }

    /// The stencil's halo exchange: receives from every neighbour, sends to every
    /// neighbour, then waits for all of them (one step: only its last call can block).
    fn exchange<S: OpSink>(&self, r: u32, calls: &mut RankCalls<S::Ref>, s: &mut S) -> Result<(), Error> {
        let bytes = self.params.bytes;
        let neighbours = super::stencil3d::neighbours(self.params.ranks, r, self.params.periodic);
        let mut reqs: Vec<Req<S::Ref>> = Vec::with_capacity(2 * neighbours.len());
        // A message travelling in direction k carries tag k: the receiver expects the
        // tag of the opposite side.
        for &(dir, peer) in &neighbours {
            reqs.push(calls.irecv(s, peer, dir ^ 1, bytes, CommTable::p2p_context(0))?);
        }
        for &(dir, peer) in &neighbours {
            reqs.push(calls.isend(s, peer, dir, bytes, CommTable::p2p_context(0))?);
        }
        calls.wait(&reqs);
        Ok(())
    }
}

impl<R: Copy + PartialEq + std::fmt::Debug> Program<R> for PatternProgram {
    fn step<S: OpSink<Ref = R>>(&mut self, rank: u32, calls: &mut RankCalls<R>, s: &mut S) -> Result<Step, Error> {
        let r = rank.checked_sub(self.first).expect("a rank already done with") as usize;
        if r >= self.ranks.len() {
            if self.params.ranks > super::MAX_PATTERN_RANKS {
                return Err(Error::BadParameter(format!(
                    "a pattern has at most {} ranks, not {}",
                    super::MAX_PATTERN_RANKS,
                    self.params.ranks
                )));
            }
            // Ranks start in order (the engine's first pass, or one by one): this grows
            // the states to their final size, with no reallocation after the start.
            self.ranks.resize(r + 1, RankState::default());
        }
        let st = self.ranks[r];
        if st.iteration >= self.params.iterations {
            return Ok(Step::Ended);
        }
        if !st.computed {
            self.ranks[r].computed = true;
            if st.iteration > 0 || self.compute_ps > 0 {
                calls.compute(s, self.compute_ps)?;
                return Ok(Step::Called);
            }
        }
        self.ranks[r] = RankState {
            iteration: st.iteration + 1,
            computed: false,
        };
        match self.coll {
            Some((c, alg)) => {
                let spec = CollSpec::new(c, self.params.ranks, rank, self.params.bytes);
                let comm = CollComm {
                    index: 0,
                    members: None,
                    context: CommTable::coll_context(0),
                };
                calls.collective(s, comm, spec, alg, &first_algorithm)?;
            }
            None => self.exchange(rank, calls, s)?,
        }
        Ok(Step::Called)
    }
}
