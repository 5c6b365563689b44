//! Presets: an SMPI protocol paired with flow-network parameters, the way SimGrid's
//! configurations pair `smpi/*` settings with a network model's.

use crate::protocol::Protocol;
use simpi_net::FlowParams;

/// A protocol and the network parameters it was calibrated with.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// The MPI protocol.
    pub protocol: Protocol,
    /// The flow network's parameters.
    pub network: FlowParams,
}

impl Preset {
    /// SimGrid 3.32's SMPI defaults: the `hybrid` model as SimGrid runs it.
    pub fn smpi() -> Preset {
        Preset {
            protocol: Protocol::smpi(),
            network: FlowParams::smpi(),
        }
    }

    /// The hybrid model without its calibration: SMPI's thresholds, no factors, no
    /// overheads, no envelope, no TCP bound, no cross-traffic, equal sharing.
    pub fn plain() -> Preset {
        Preset {
            protocol: Protocol::plain(),
            network: FlowParams::plain(),
        }
    }

    /// The plain `flow` model: latency along the route, then the bandwidth share
    /// max-min over the route's links; a message flows as soon as it is sent.
    pub fn flow() -> Preset {
        Preset {
            protocol: Protocol::flow(),
            network: FlowParams::plain(),
        }
    }

    /// Checks both halves (see [`Protocol::validate`] and [`FlowParams::validate`]).
    pub fn validate(&self) -> Result<(), String> {
        self.protocol.validate()?;
        self.network.validate().map_err(|e| e.to_string())
    }
}
