//! The seam of trace formats. Each reader (TIT, OTF2, liballprof, DUMPI) turns its files
//! into a rank program ([`simpi_mpi::live::Program`]); [`TraceProgram`] is what such a
//! program also offers, so that one conversion to a whole schedule
//! ([`whole_schedule`]) and one live replay path (the facade's) serve every format. A new
//! format is a reader whose program is listed in the `trace_programs!` line below.

use crate::tit::{CommTable, TitTrace};
use crate::{allprof::AllprofProgram, dumpi::DumpiProgram, otf2::Otf2Program, tit::TitProgram};
use simpi_mpi::calls::RankCalls;
use simpi_mpi::live::{Program, Step};
use simpi_mpi::{CallRecord, Error, ScheduleBuilder};
use std::sync::Arc;

/// A trace reader's rank program.
pub trait TraceProgram<R>: Program<R> {
    /// Number of ranks.
    fn ranks(&self) -> u32;
    /// The communicators.
    fn comms(&self) -> &Arc<CommTable>;
    /// The calls recorded (empty unless the reader was asked to keep them).
    fn take_calls(&mut self) -> Vec<CallRecord>;
    /// Things the user should know, once the trace has run.
    fn warnings(&self) -> Vec<String>;
    /// The first malformed input no rank reached (reported instead of a stall it
    /// explains).
    fn check_unread(&mut self) -> Result<(), Error>;
    /// Rank `r` has ended: its state can go.
    fn done_with(&mut self, r: usize);
}

/// Each listed program is a [`TraceProgram`] through its own methods of those names.
macro_rules! trace_programs {
    ($($program:ident),*) => {$(
        impl<R: Copy + PartialEq + std::fmt::Debug> TraceProgram<R> for $program<'_, R> {
            fn ranks(&self) -> u32 {
                $program::ranks(self)
            }
            fn comms(&self) -> &Arc<CommTable> {
                $program::comms(self)
            }
            fn take_calls(&mut self) -> Vec<CallRecord> {
                $program::take_calls(self)
            }
            fn warnings(&self) -> Vec<String> {
                $program::warnings(self)
            }
            fn check_unread(&mut self) -> Result<(), Error> {
                $program::check_unread(self)
            }
            fn done_with(&mut self, r: usize) {
                $program::done_with(self, r)
            }
        }
    )*};
}

trace_programs!(TitProgram, Otf2Program, AllprofProgram, DumpiProgram);

/// Runs every rank of `prog` to its end, one after the other, into a whole schedule;
/// `locate` makes an error at rank `r` the reader's own (with its file and place).
pub fn whole_schedule<P, E>(mut prog: P, locate: impl Fn(Error, u32, &P) -> E) -> Result<TitTrace, E>
where
    P: TraceProgram<u32>,
{
    let p = prog.ranks();
    let mut b = ScheduleBuilder::new(p);
    for r in 0..p {
        b.begin_rank(r as u64).map_err(|e| locate(e.into(), r, &prog))?;
        let mut calls = RankCalls::<u32>::new(r);
        loop {
            match prog.step(r, &mut calls, &mut b) {
                Ok(Step::Called) => {}
                Ok(Step::Ended) => break,
                Ok(Step::Pause) => unreachable!("a trace never pauses"),
                Err(e) => return Err(locate(e, r, &prog)),
            }
        }
        b.end_rank().map_err(|e| locate(e.into(), r, &prog))?;
        prog.done_with(r as usize);
    }
    Ok(TitTrace {
        schedule: b.finish(),
        comms: Arc::clone(prog.comms()),
        calls: prog.take_calls(),
        warnings: prog.warnings(),
    })
}

/// The simulated picoseconds of `seconds` of computation read from a trace (negative
/// spans count as none); a span the clock cannot count (2^64 ps) is an error.
pub(crate) fn seconds_to_ps(seconds: f64) -> Result<u64, String> {
    if seconds * 1e12 >= u64::MAX as f64 {
        return Err(format!(
            "a computation of {seconds:e} s is longer than the simulated clock can count (2^64 ps, about 213 days)"
        ));
    }
    Ok(simpi_kernel::SimTime::from_secs_f64(seconds.max(0.0)).ps())
}

/// The warning for `n` requests posted under a handle (or ID) whose earlier request was
/// still outstanding: a correct program cannot do that, and the earlier request is then
/// waited for by nothing.
pub(crate) fn reused_requests_warning(n: u64) -> String {
    format!("{n} request(s) were posted under a handle still outstanding: the earlier request is waited for by nothing")
}

/// The warning for `n` synchronous sends replayed as standard sends.
pub(crate) fn sync_as_standard_warning(n: u64) -> String {
    format!(
        "{n} synchronous send(s) (MPI_Ssend, MPI_Issend) were written as standard sends: a whole \
         schedule (GOAL) has no synchronous mode; simpi replay simulates them"
    )
}

/// An error of the MPI layer, as a message for the trace's place.
pub(crate) fn msg(e: Error) -> String {
    e.to_string()
}
