//! Readers and writers of the formats simpi replays, and generators of schedules.

pub mod allprof;
pub mod dumpi;
pub mod goal;
pub mod noise;
pub mod otf2;
pub mod quote;
pub mod schedgen;
pub mod tit;

pub use goal::{read_goal, read_goal_file, GoalError, GoalWriter};
