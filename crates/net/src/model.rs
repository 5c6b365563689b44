//! The network-model seam: the MPI layer asks a model to move bytes between hosts and
//! learns when they have arrived. Every model (flow, constant, and the packet and
//! stochastic models to come) implements [`NetworkModel`]; the engine in `simpi-mpi` is
//! generic over it, so a call through the seam costs no dynamic dispatch.
//!
//! The contract: [`NetworkModel::start`] registers a transfer at the current time;
//! [`NetworkModel::next_time`] says when the model next needs to run (never earlier than
//! the last time it was advanced to); [`NetworkModel::advance`] runs it to that time and
//! hands back the tokens of transfers that completed, in an order that depends only on
//! what was started and when (determinism).

use crate::Error;
use simpi_kernel::SimTime;
use simpi_platform::HostId;

/// The caller's identifier of a transfer, returned when it completes.
pub type Token = u64;

/// A model of how long moving bytes between hosts takes.
pub trait NetworkModel {
    /// Starts moving `bytes` from `src` to `dst` at `now` (the engine's current time);
    /// `token` comes back from [`NetworkModel::advance`] once the last byte has arrived.
    fn start(&mut self, now: SimTime, src: HostId, dst: HostId, bytes: u64, token: Token) -> Result<(), Error>;

    /// When the model next has something to do, if any transfer is under way.
    fn next_time(&mut self) -> Option<SimTime>;

    /// Processes everything due at `now`, which must be [`NetworkModel::next_time`], and
    /// appends the tokens of the transfers that completed to `done`.
    fn advance(&mut self, now: SimTime, done: &mut Vec<Token>);

    /// Transfers started and not yet completed.
    fn in_flight(&self) -> usize;
}
