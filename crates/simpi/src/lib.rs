//! The simpi facade: load a workload, pick a model, run, and get a [`Report`].
//!
//! This is the API boundary for front ends (the `simpi` binary, bindings): they see
//! these types, not the crates below. A replay's settings are described, checked and
//! turned into a model in one place ([`ReplaySettings`]), so every front end refuses the
//! same combinations.

pub mod analysis;
pub mod calibrate;
pub mod critical;
mod error;
pub mod html;
pub mod memory;
pub mod montecarlo;
pub mod online;
pub mod preset_file;
pub mod replay;
pub mod report;
pub mod settings;
pub mod setup;
pub mod sweep;
pub mod timeline;
pub mod values;
pub mod workload;

pub use error::Error;
pub use replay::{replay_goal, simulate, HostRules, Model, ReplayOptions, SimOptions};
pub use report::Report;
pub use settings::{Naming, ReplaySettings, Setting};
pub use setup::{Machine, MappingSpec, ModelSpec, PacketChanges, PacketHosts, PresetChanges};
pub use simpi_kernel::{SimTime, TimeUnit};
pub use simpi_mpi as mpi;
pub use simpi_mpi::Progress;
pub use simpi_mpi::{Preset, Protocol};
pub use simpi_net::{Distributions, FlowParams, LinkSeries, LogGops, PacketParams, Piecewise, Routing};
pub use simpi_platform as platform;
pub use simpi_trace::schedgen::{Params as PatternParams, Pattern};
pub use workload::{count_ranks, load, Body, CollChoice, Format, LoadOptions, Workload};

/// The first registered algorithm of a collective (`--coll-selector first`).
pub fn default_algorithm(s: &simpi_mpi::coll::CollSpec) -> &'static simpi_mpi::coll::Algorithm {
    simpi_mpi::coll::first_algorithm(s)
}
