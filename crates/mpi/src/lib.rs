//! Operation schedules, MPI matching and protocols, and the executor that runs them.
//!
//! Every way into simpi (GOAL schedules, traces, live programs) becomes a [`Schedule`] of
//! sends, receives and computes with dependencies; [`run_loggops`] executes it.

pub mod coll;
pub mod cxx_sort;
pub mod exec;
pub mod exec_flow;
pub mod matching;
pub mod op;
pub mod schedule;
pub mod stall;
mod test_costs;

pub use exec::{run_loggops, run_loggops_with, OpTime, Outcome, Progress, RunStats};
pub use exec_flow::{run_flow, FlowError};
pub use op::{Op, OpId, OpKind, Rank, ANY_SOURCE, ANY_TAG};
pub use schedule::{BuildError, Schedule, ScheduleBuilder};
pub use simpi_net::LogGops as LogGopsParams;
pub use stall::{Pending, Stall, StalledRank};
