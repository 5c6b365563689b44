//! Setting up a simulation: which model, on which machine, with which parameters, and
//! where each rank runs. Every front end (the `simpi` binary, bindings, the live
//! library) describes what it wants as a [`ModelSpec`] and gets a [`Machine`] whose
//! [`Machine::model`] [`crate::simulate`] takes.

use crate::replay::Model;
use crate::Error;
use simpi_kernel::{SimTime, TimeUnit};
use simpi_mpi::Preset;
use simpi_net::{FlowParams, LogGops, Piecewise};
use simpi_platform::{HostId, Mapping, Platform};
use std::path::PathBuf;

/// The model to simulate under.
#[derive(Clone, Debug)]
pub enum ModelSpec {
    /// LogGOPS with LogGOPSim's semantics, parameters in the given unit.
    LogGops {
        /// L, o, g, G, O in `unit`, and S in bytes.
        params: [u64; 6],
        /// Their unit.
        unit: TimeUnit,
    },
    /// SMPI's protocol over the flow network of a platform (the `flow` and `hybrid`
    /// models differ by their preset).
    Flow {
        /// The platform file (TOML or SimGrid XML).
        platform: PathBuf,
        /// Where the ranks run.
        mapping: MappingSpec,
        /// The protocol and network parameters.
        preset: Preset,
    },
    /// SMPI's protocol, every transfer taking `time` (SimGrid's Constant model).
    Constant {
        /// The time of every transfer.
        time: SimTime,
        /// The protocol's settings come from this preset.
        preset: Preset,
    },
}

/// How ranks are placed on a platform's hosts.
#[derive(Clone, Debug)]
pub enum MappingSpec {
    /// Consecutive ranks on a host, `per_host` of them, hosts in platform order.
    Block {
        /// Ranks per host.
        per_host: u32,
    },
    /// Rank `r` on host `r mod hosts`.
    RoundRobin,
    /// A host file: one host name per line, optionally `name:count`.
    HostFile(PathBuf),
}

/// A preset by name, with the settings a user changed.
#[derive(Clone, Debug, Default)]
pub struct PresetChanges {
    /// Latency factors by size (parse SimGrid's `bound:factor;...` with
    /// [`crate::values::lat_factors`]).
    pub lat_factor: Option<Piecewise>,
    /// Bandwidth factors by size ([`crate::values::bw_factors`]).
    pub bw_factor: Option<Piecewise>,
    /// Send overhead by size, a + b·size seconds ([`crate::values::overheads`]).
    pub os: Option<Piecewise>,
    /// Receive overhead by size.
    pub or: Option<Piecewise>,
    /// Messages below this many bytes flow before the receive is posted.
    pub async_small: Option<u64>,
    /// Sends below this many bytes are detached.
    pub detached: Option<u64>,
    /// weight-S in bytes.
    pub weight_s: Option<f64>,
    /// SMPI's smpi/grow-injected-times.
    pub grow_test_costs: Option<bool>,
}

impl PresetChanges {
    /// `base` with these changes, checked.
    pub fn apply(&self, mut p: Preset) -> Result<Preset, Error> {
        if let Some(f) = &self.lat_factor {
            p.network.lat_factor = f.clone();
        }
        if let Some(f) = &self.bw_factor {
            p.network.bw_factor = f.clone();
        }
        if let Some(f) = &self.os {
            p.protocol.os = f.clone();
        }
        if let Some(f) = &self.or {
            p.protocol.or = f.clone();
        }
        if let Some(v) = self.async_small {
            p.protocol.async_small = v;
        }
        if let Some(v) = self.detached {
            p.protocol.detached = v;
        }
        if let Some(v) = self.weight_s {
            p.network.weight_s = v;
        }
        if let Some(v) = self.grow_test_costs {
            p.protocol.grow_test_costs = v;
        }
        if p.protocol.async_small > p.protocol.detached {
            return Err(Error::Setting(
                "--async-small must not exceed --detached (as in SimGrid)".into(),
            ));
        }
        p.validate().map_err(Error::Setting)?;
        Ok(p)
    }
}

/// A machine to simulate on: its platform, if the model has one, and each rank's host.
pub struct Machine {
    spec: ModelSpec,
    platform: Option<Platform>,
    hosts: Vec<HostId>,
    loggops: Option<LogGops>,
}

impl Machine {
    /// The machine `spec` describes, for `ranks` ranks.
    pub fn new(spec: &ModelSpec, ranks: u32) -> Result<Machine, Error> {
        crate::memory::check_ranks_fit(ranks.into())?;
        let mut m = Machine {
            spec: spec.clone(),
            platform: None,
            hosts: Vec::new(),
            loggops: None,
        };
        match spec {
            ModelSpec::LogGops { params, unit } => {
                let k = unit.ps_per_unit();
                let names = ["-L", "-o", "-g", "-G", "-O"];
                let mut ps = [0u64; 5];
                for i in 0..5 {
                    ps[i] = params[i].checked_mul(k).ok_or_else(|| {
                        Error::Setting(format!(
                            "{} overflows 2^64 picoseconds in unit {}",
                            names[i],
                            unit.name()
                        ))
                    })?;
                }
                m.loggops = Some(LogGops {
                    l: ps[0],
                    o: ps[1],
                    g: ps[2],
                    big_g: ps[3],
                    big_o: ps[4],
                    s: params[5],
                });
            }
            ModelSpec::Flow { platform, mapping, .. } => {
                let p = simpi_platform::load(platform)?;
                let map = match mapping {
                    MappingSpec::HostFile(f) => Mapping::from_host_file(&p, f, ranks)?,
                    MappingSpec::Block { per_host } => Mapping::block(&p, ranks, *per_host),
                    MappingSpec::RoundRobin => Mapping::round_robin(&p, ranks),
                };
                m.hosts = (0..ranks).map(|r| map.host(r)).collect();
                m.platform = Some(p);
            }
            ModelSpec::Constant { .. } => {}
        }
        Ok(m)
    }

    /// The flop rate of rank `r`'s host, if the machine has hosts.
    pub fn speed(&self, r: u32) -> Option<f64> {
        let p = self.platform.as_ref()?;
        Some(p.host_speed(self.hosts[r as usize]))
    }

    /// The model to hand to [`crate::simulate`].
    pub fn model(&self) -> Model<'_> {
        match &self.spec {
            ModelSpec::LogGops { .. } => Model::LogGops(self.loggops.expect("set up")),
            ModelSpec::Flow { preset, .. } => Model::Flow {
                platform: self.platform.as_ref().expect("set up"),
                hosts: self.hosts.clone(),
                preset: preset.clone(),
            },
            ModelSpec::Constant { time, preset } => Model::Constant {
                time: *time,
                protocol: preset.protocol.clone(),
            },
        }
    }
}

/// The constant model's preset: only the protocol applies (no route, so no factor).
pub fn constant_preset(p: Preset) -> Preset {
    Preset {
        network: FlowParams::plain(),
        ..p
    }
}
