//! Network models: how long a message occupies CPUs, NICs and the wire.
//!
//! * [`loggops`]: the LogGOPS cost functions (the executor in `simpi-mpi` applies them to
//!   per-rank CPU and NIC timers).
//! * [`flow`]: flows over a platform's routes with max-min sharing; with
//!   [`hybrid::HybridParams`] it is SMPI's piece-wise "hybrid" model or a plain flow model.

pub mod flow;
pub mod hybrid;
pub mod loggops;
pub mod piecewise;

pub use flow::{FlowNetwork, Token};
pub use hybrid::HybridParams;
pub use loggops::LogGops;
pub use piecewise::Piecewise;
pub use simpi_platform::{HostId, Platform, PlatformError};
