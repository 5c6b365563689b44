//! Readers and writers of the formats simpi replays, and generators of schedules.

pub mod allprof;
pub mod dumpi;
pub mod goal;
pub mod noise;
pub mod otf2;
pub mod quote;
pub mod schedgen;
pub mod tit;
pub mod trace_program;

pub use goal::{read_goal, read_goal_file, GoalError, GoalWriter};
pub use trace_program::{whole_schedule, TraceProgram};
