//! Network models: how long moving bytes between hosts takes.
//!
//! * [`model`]: the [`NetworkModel`] seam every model implements, and its [`Token`]s.
//! * [`flow`]: flows over a platform's routes with max-min sharing; with
//!   [`FlowParams::smpi`] it is the network half of SMPI's piece-wise "hybrid" model.
//! * [`packet`]: packets over a platform's routes, with cut-through forwarding,
//!   credit-based flow control and round-robin arbitration ([`PacketParams`]).
//! * [`constant`]: every transfer takes the same time (SimGrid's `Constant` model).
//! * [`stochastic`]: each message takes a time drawn from measured distributions
//!   ([`distributions`]) for its size and the contention it meets (PEVPM's model).
//! * [`loggops`]: the LogGOPS cost functions (the LogGOPS rules in `simpi-mpi` apply them
//!   to per-rank CPU and NIC timers: LogGOPS models the hosts, not a network of links).

pub mod constant;
pub mod distributions;
pub mod flow;
pub mod flow_params;
pub mod latency;
pub mod loggops;
pub mod model;
pub mod packet;
pub mod packet_params;
pub mod piecewise;
pub mod series;
pub mod stochastic;

pub use constant::ConstantNetwork;
pub use distributions::Distributions;
pub use flow::FlowNetwork;
pub use flow_params::FlowParams;
pub use latency::Latencies;
pub use loggops::LogGops;
pub use model::{LinkLoad, LinkSeries, NetworkModel, NoNetwork, Token};
pub use packet::PacketNetwork;
pub use packet_params::{PacketParams, Priority, Routing};
pub use piecewise::Piecewise;
pub use simpi_platform::{HostId, Platform, PlatformError};
pub use stochastic::{Scoreboard, StochasticNetwork};

/// Why a network model could not do what it was asked.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The platform has no route between two hosts (or a malformed one).
    Route(PlatformError),
    /// Simulated time would pass the clock's end (2^64 ps, about 213 days).
    TimeOverflow,
    /// A model parameter is out of its domain (the message says which and why).
    BadParameter(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Route(e) => write!(f, "{e}"),
            Error::TimeOverflow => f.write_str("the simulated time passes the clock's end (2^64 ps, about 213 days)"),
            Error::BadParameter(m) => write!(f, "bad network parameter: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<PlatformError> for Error {
    fn from(e: PlatformError) -> Error {
        Error::Route(e)
    }
}
