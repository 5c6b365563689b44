//! Network models: how long a message occupies CPUs, NICs and the wire.
//!
//! Each model lives in its own module. The LogGOPS model is a pure cost function of the
//! message size; the executor in `simpi-mpi` applies it to per-rank CPU and NIC timers.

pub mod loggops;

pub use loggops::LogGops;
