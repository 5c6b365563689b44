//! GOAL, the schedule language of LogGOPSim: per-rank send / recv / calc operations
//! with `requires` and `irequires` dependencies (seed: LogGOPSim thesis, section 3.1).
//!
//! The reader streams: it holds one line and one rank's label table at a time, and the
//! schedule in compact form. The writer streams too.

mod export;
mod fast;
mod labels;
mod lexer;
mod locate;
mod reader;
mod writer;

pub use export::{write_schedule, ExportReport};
pub use locate::locate_ops;
pub use reader::{
    declared_ranks, halves_joined, parse_goal, parse_goal_with, read_goal, read_goal_file, read_goal_file_with,
    GoalError, GoalSink, FREE_RANKS,
};
pub use writer::{GoalWriter, Label};
