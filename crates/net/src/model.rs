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

use crate::{Error, Latencies};
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

    /// What each link carried so far, for the models that know their links (none by
    /// default).
    fn link_loads(&self) -> Vec<LinkLoad> {
        Vec::new()
    }

    /// What the model could not do as measured or specified during the run, for the
    /// user (none by default).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// The distribution of messages' times from start to delivery, for the models that
    /// keep it (none by default).
    fn message_times(&self) -> Option<Latencies> {
        None
    }

    /// How the `n` links that carried the most bytes were used over time, for the models
    /// that keep it (none by default).
    fn link_series(&self, _n: usize) -> Vec<LinkSeries> {
        Vec::new()
    }
}

/// A link's use over time, in equal bins from time 0.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSeries {
    /// The platform's name of the link.
    pub link: String,
    /// Width of a bin.
    pub width: SimTime,
    /// The fraction of each bin the link spent sending (above 1 on a fat pipe sending
    /// several packets at once).
    pub busy: Vec<f64>,
    /// The mean number of packets held in the buffers at its receiving end, per bin.
    pub queue: Vec<f64>,
}

/// What a link carried during a run.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkLoad {
    /// The platform's name of the link.
    pub link: String,
    /// Bytes that crossed it (headers included, for packets).
    pub bytes: u64,
    /// Time it spent sending: its bytes at its full bandwidth.
    pub busy: SimTime,
    /// Packets that crossed it (0 for models without packets).
    pub packets: u64,
    /// Most packets at once in the buffers at its receiving end, sent into them and
    /// not yet gone on (0 for models without packets).
    pub peak_queue: u32,
    /// The same averaged over the run (time-weighted).
    pub mean_queue: f64,
}

/// No network: a type for rules that may run over a network and here run without one
/// (it has no value, so it is never started).
pub enum NoNetwork {}

impl NetworkModel for NoNetwork {
    fn start(&mut self, _: SimTime, _: HostId, _: HostId, _: u64, _: Token) -> Result<(), Error> {
        match *self {}
    }

    fn next_time(&mut self) -> Option<SimTime> {
        match *self {}
    }

    fn advance(&mut self, _: SimTime, _: &mut Vec<Token>) {
        match *self {}
    }

    fn in_flight(&self) -> usize {
        match *self {}
    }
}

/// A model lent to the engine, so its owner can read it after the run.
impl<N: NetworkModel + ?Sized> NetworkModel for &mut N {
    fn start(&mut self, now: SimTime, src: HostId, dst: HostId, bytes: u64, token: Token) -> Result<(), Error> {
        (**self).start(now, src, dst, bytes, token)
    }

    fn next_time(&mut self) -> Option<SimTime> {
        (**self).next_time()
    }

    fn advance(&mut self, now: SimTime, done: &mut Vec<Token>) {
        (**self).advance(now, done)
    }

    fn in_flight(&self) -> usize {
        (**self).in_flight()
    }

    fn link_loads(&self) -> Vec<LinkLoad> {
        (**self).link_loads()
    }

    fn warnings(&self) -> Vec<String> {
        (**self).warnings()
    }

    fn message_times(&self) -> Option<Latencies> {
        (**self).message_times()
    }

    fn link_series(&self, n: usize) -> Vec<LinkSeries> {
        (**self).link_series(n)
    }
}
