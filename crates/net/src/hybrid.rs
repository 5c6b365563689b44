//! Parameters of the flow-level models: SMPI's piece-wise "hybrid" model and a plain
//! flow model (seeds: smpi-hybrid-model-ethernet-tcp, sections 2 and 4). The equations
//! are in `docs/models.md`.

use crate::piecewise::Piecewise;

/// SimGrid 3.32's default `smpi/bw-factor`.
pub const SMPI_BW_FACTOR: &str =
    "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084";
/// SimGrid 3.32's default `smpi/lat-factor`.
pub const SMPI_LAT_FACTOR: &str =
    "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467";

/// How messages move through the network and how the MPI protocol uses it.
#[derive(Clone, Debug, PartialEq)]
pub struct HybridParams {
    /// Factor on the route latency, by payload size.
    pub lat_factor: Piecewise,
    /// Factor on a flow's max-min share, by payload size.
    pub bw_factor: Piecewise,
    /// Sender overhead of a blocking send, `a + b·size` seconds.
    pub os: Piecewise,
    /// Receiver overhead after a message from a detached sender, `a + b·size`.
    pub or: Piecewise,
    /// Messages below this many bytes are sent at once, before the receive is posted.
    pub async_small: u64,
    /// Sends below this many bytes are detached: the sender continues after `os`.
    pub detached: u64,
    /// `weight-S` in bytes: a flow's sharing weight is `L + Σ S / bw_l`; 0 for equal weights.
    pub weight_s: f64,
    /// TCP window bound: a flow's rate is at most `gamma / (2 L)`.
    pub tcp_gamma: Option<f64>,
    /// Weight of the reverse flow (acknowledgements) on the links of the way back.
    pub cross_traffic: Option<f64>,
    /// Bytes added to every message (the MPI envelope).
    pub envelope: u64,
    /// Every message flows as soon as it is sent (the plain `flow` model).
    pub eager_all: bool,
    /// SMPI's `smpi/grow-injected-times`: every MPI_Test that finds its request not yet
    /// complete makes the next test's cost one `test_cost` longer, until a test finds
    /// its request complete (one count for the whole simulation, as in SMPI).
    pub grow_test_costs: bool,
}

impl HybridParams {
    /// SimGrid 3.32's SMPI defaults: 9-segment factors, weight-S 8775, TCP gamma 4 MiB,
    /// cross-traffic 0.05, 16-byte envelope, detached below 65536 bytes, no overheads.
    pub fn smpi() -> HybridParams {
        HybridParams {
            lat_factor: Piecewise::parse(SMPI_LAT_FACTOR).unwrap(),
            bw_factor: Piecewise::parse(SMPI_BW_FACTOR).unwrap(),
            os: Piecewise::parse("").unwrap(),
            or: Piecewise::parse("").unwrap(),
            async_small: 0,
            detached: 65536,
            weight_s: 8775.0,
            tcp_gamma: Some(4194304.0),
            cross_traffic: Some(0.05),
            envelope: 16,
            eager_all: false,
            grow_test_costs: true,
        }
    }

    /// The hybrid model without its calibration: no factors, no overheads, no envelope,
    /// no TCP bound, no cross-traffic, equal sharing; SMPI's protocol thresholds.
    pub fn plain() -> HybridParams {
        HybridParams {
            lat_factor: Piecewise::parse("").unwrap(),
            bw_factor: Piecewise::parse("").unwrap(),
            os: Piecewise::parse("").unwrap(),
            or: Piecewise::parse("").unwrap(),
            async_small: 0,
            detached: 65536,
            weight_s: 0.0,
            tcp_gamma: None,
            cross_traffic: None,
            envelope: 0,
            eager_all: false,
            grow_test_costs: true,
        }
    }

    /// The `flow` model: latency along the route, then the bandwidth share max-min over
    /// the route's links; a message flows as soon as it is sent.
    pub fn flow() -> HybridParams {
        HybridParams {
            eager_all: true,
            grow_test_costs: false,
            ..HybridParams::plain()
        }
    }
}
