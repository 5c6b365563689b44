//! Parameters of the flow network: SMPI's piece-wise "hybrid" factors and sharing
//! penalties, or none (a plain flow model) (seeds: smpi-hybrid-model-ethernet-tcp,
//! sections 2 and 4). The MPI protocol that runs over it (thresholds, overheads,
//! envelope) is `simpi_mpi::Protocol`. The equations are in `docs/models.md`.

use crate::piecewise::Piecewise;
use crate::Error;

/// SimGrid 3.32's default `smpi/bw-factor`.
pub const SMPI_BW_FACTOR: &str =
    "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084";
/// SimGrid 3.32's default `smpi/lat-factor`.
pub const SMPI_LAT_FACTOR: &str =
    "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467";

/// How the flow network times a transfer.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowParams {
    /// Factor on the route latency, by transfer size.
    pub lat_factor: Piecewise,
    /// Factor on a flow's max-min share, by transfer size.
    pub bw_factor: Piecewise,
    /// `weight-S` in bytes: a flow's sharing weight is `L + Σ S / bw_l`; 0 for equal weights.
    pub weight_s: f64,
    /// TCP window bound: a flow's rate is at most `gamma / (2 L)`.
    pub tcp_gamma: Option<f64>,
    /// Weight of the reverse flow (acknowledgements) on the links of the way back.
    pub cross_traffic: Option<f64>,
    /// Loss of a shared link under converging flows: carrying flows from `m` source
    /// hosts at once, it delivers its bandwidth / (1 + `converging_loss` · ln m) (TCP
    /// streams converging on a switch port lose packets and back off). 0: links
    /// deliver their bandwidth. At most 1e6.
    pub converging_loss: f64,
}

impl FlowParams {
    /// SimGrid 3.32's SMPI defaults: 9-segment factors, weight-S 8775, TCP gamma 4 MiB,
    /// cross-traffic 0.05.
    pub fn smpi() -> FlowParams {
        FlowParams {
            lat_factor: Piecewise::parse(SMPI_LAT_FACTOR).expect("a valid constant"),
            bw_factor: Piecewise::parse(SMPI_BW_FACTOR).expect("a valid constant"),
            weight_s: 8775.0,
            tcp_gamma: Some(4194304.0),
            cross_traffic: Some(0.05),
            converging_loss: 0.0,
        }
    }

    /// No factors, no TCP bound, no cross-traffic, equal sharing: latency along the
    /// route, then the max-min share of the route's links.
    pub fn plain() -> FlowParams {
        FlowParams {
            lat_factor: Piecewise::default(),
            bw_factor: Piecewise::default(),
            weight_s: 0.0,
            tcp_gamma: None,
            cross_traffic: None,
            converging_loss: 0.0,
        }
    }

    /// Checks every value where it could make a transfer free, negative or undefined:
    /// bandwidth factors must be positive and finite, latency factors finite and not
    /// negative, weight-S, gamma, cross-traffic and the converging loss finite and not
    /// negative (gamma positive).
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |what: &str, why: &str| Err(Error::BadParameter(format!("{what}: {why}")));
        for (what, p) in [
            ("bandwidth factor", &self.bw_factor),
            ("latency factor", &self.lat_factor),
        ] {
            if let Err(why) = p.check_width(1) {
                return bad(what, &why);
            }
        }
        for v in self.bw_factor.values() {
            if !(v.is_finite() && v > 0.0) {
                return bad("bandwidth factor", &format!("{v} is not a positive finite number"));
            }
        }
        for v in self.lat_factor.values() {
            if !(v.is_finite() && v >= 0.0) {
                return bad("latency factor", &format!("{v} is not a finite number >= 0"));
            }
        }
        if !(self.weight_s.is_finite() && self.weight_s >= 0.0) {
            return bad("weight-S", &format!("{} is not a finite number >= 0", self.weight_s));
        }
        if let Some(g) = self.tcp_gamma {
            if !(g.is_finite() && g > 0.0) {
                return bad("TCP gamma", &format!("{g} is not a positive finite number"));
            }
        }
        if let Some(c) = self.cross_traffic {
            if !(c.is_finite() && c >= 0.0) {
                return bad("cross-traffic", &format!("{c} is not a finite number >= 0"));
            }
        }
        if !(0.0..=1e6).contains(&self.converging_loss) {
            return bad(
                "converging loss",
                &format!("{} is not a number from 0 to 1e6", self.converging_loss),
            );
        }
        Ok(())
    }
}
