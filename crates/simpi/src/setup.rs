//! Setting up a simulation: which model, on which machine, with which parameters, and
//! where each rank runs. Every front end (the `simpi` binary, bindings, the live
//! library) describes what it wants as a [`ModelSpec`] and gets a [`Machine`] whose
//! [`Machine::model`] [`crate::simulate`] takes.

use crate::replay::{HostRules, Model};
use crate::Error;
use simpi_kernel::{SimTime, TimeUnit};
use simpi_mpi::Preset;
use simpi_net::{Distributions, FlowParams, LogGops, PacketParams, Piecewise, Priority, Routing};
use simpi_platform::{HostId, Mapping, Platform};
use std::path::{Path, PathBuf};

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
    /// The packet network of a platform, under SMPI's protocol or LogGOPS's host costs.
    Packet {
        /// The platform file (TOML or SimGrid XML).
        platform: PathBuf,
        /// Where the ranks run.
        mapping: MappingSpec,
        /// What the hosts do around the network.
        hosts: PacketHosts,
        /// How packets are cut, buffered and forwarded.
        params: PacketParams,
    },
    /// Every message takes a time drawn from measured distributions (PEVPM's model).
    Stochastic {
        /// The distributions file ([`simpi_net::distributions`]).
        distributions: PathBuf,
        /// A platform whose routes count contention per link, and where the ranks
        /// run (none: contention counts every message in flight).
        platform: Option<(PathBuf, MappingSpec)>,
        /// The seed of the draws.
        seed: u64,
    },
    /// SMPI's protocol, every transfer taking `time` (SimGrid's Constant model).
    Constant {
        /// The time of every transfer.
        time: SimTime,
        /// The protocol's settings come from this preset.
        preset: Preset,
    },
}

/// What the hosts of the packet model do around the network.
#[derive(Clone, Debug)]
pub enum PacketHosts {
    /// SMPI's protocol, its settings from this preset.
    Smpi(Preset),
    /// LogGOPS's CPU and NIC costs (o, g, G, O, S in `unit`; L, unused, is ignored),
    /// messages crossing the network instead of taking L.
    LogGops {
        /// L, o, g, G, O in `unit`, and S in bytes.
        params: [u64; 6],
        /// Their unit.
        unit: TimeUnit,
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

/// The packet model's preset by name, with the settings a user changed.
#[derive(Clone, Debug, Default)]
pub struct PacketChanges {
    /// `generic` (the default) or `ib` ([`PacketParams::by_name`]).
    pub preset: Option<String>,
    /// Largest packet on the wire, headers included (bytes).
    pub mtu: Option<u64>,
    /// Buffer of a virtual channel (bytes; 0: sized to each link's round trip).
    pub buffer: Option<u64>,
    /// Time through a router.
    pub router_delay: Option<SimTime>,
    /// Virtual output queues (`true`) or one FIFO per input buffer.
    pub voq: Option<bool>,
    /// Minimal routes or detours.
    pub routing: Option<Routing>,
    /// Messages of at most this many bytes take the high-priority lane (two lanes).
    pub priority_up_to: Option<u64>,
    /// High-priority bytes a port sends in a row while a low packet waits
    /// (`u64::MAX`, the default with two lanes: no limit).
    pub priority_limit: Option<u64>,
}

impl PacketChanges {
    /// The preset with these changes and the routing's `seed`, checked.
    pub fn params(&self, seed: u64) -> Result<PacketParams, Error> {
        let name = self.preset.as_deref().unwrap_or("generic");
        let mut p = PacketParams::by_name(name).ok_or_else(|| {
            Error::Setting(format!(
                "{name} is not a packet preset: expected {}",
                PacketParams::NAMES.join(" or ")
            ))
        })?;
        if let Some(v) = self.mtu {
            p.mtu = v;
        }
        if let Some(v) = self.buffer {
            p.buffer = v;
        }
        if let Some(v) = self.router_delay {
            p.router_delay = v;
        }
        if let Some(v) = self.voq {
            p.voq = v;
        }
        if let Some(v) = self.routing {
            p.routing = v;
        }
        match (self.priority_up_to, self.priority_limit) {
            (Some(up_to), limit) => {
                p.priority = Some(Priority {
                    up_to,
                    limit: limit.unwrap_or(u64::MAX),
                })
            }
            (None, Some(_)) => {
                return Err(Error::Setting(
                    "--priority-limit needs --priority-up-to (which messages are high priority)".into(),
                ))
            }
            (None, None) => {}
        }
        p.seed = seed;
        p.validate().map_err(|e| Error::Setting(e.to_string()))?;
        Ok(p)
    }
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
    distributions: Option<Distributions>,
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
            distributions: None,
        };
        match spec {
            ModelSpec::LogGops { params, unit } => m.loggops = Some(loggops_ps(params, *unit)?),
            ModelSpec::Flow { platform, mapping, .. } | ModelSpec::Packet { platform, mapping, .. } => {
                if let ModelSpec::Packet {
                    hosts: PacketHosts::LogGops { params, unit },
                    ..
                } = spec
                {
                    m.loggops = Some(loggops_ps(params, *unit)?);
                }
                m.place(platform, mapping, ranks)?;
                if let ModelSpec::Packet { params, .. } = spec {
                    m.check_routing(platform, params)?;
                }
            }
            ModelSpec::Stochastic {
                distributions,
                platform,
                ..
            } => {
                let d = Distributions::read(distributions).map_err(|e| Error::Input(e.to_string()))?;
                m.distributions = Some(d);
                if let Some((platform, mapping)) = platform {
                    m.place(platform, mapping, ranks)?;
                }
            }
            ModelSpec::Constant { .. } => {}
        }
        Ok(m)
    }

    /// Loads `platform` and places `ranks` ranks on it by `mapping`.
    fn place(&mut self, platform: &Path, mapping: &MappingSpec, ranks: u32) -> Result<(), Error> {
        let p = simpi_platform::load(platform)?;
        let map = match mapping {
            MappingSpec::HostFile(f) => Mapping::from_host_file(&p, f, ranks)?,
            MappingSpec::Block { per_host } => Mapping::block(&p, ranks, *per_host),
            MappingSpec::RoundRobin => Mapping::round_robin(&p, ranks),
        };
        self.hosts = (0..ranks).map(|r| map.host(r)).collect();
        self.platform = Some(p);
        Ok(())
    }

    /// Refuses adaptive routing on a platform where packets have no other way to go:
    /// a setting the user chose that the platform cannot honour.
    fn check_routing(&self, file: &Path, params: &PacketParams) -> Result<(), Error> {
        let Some(platform) = self.platform.as_ref() else {
            return Ok(());
        };
        params.routing.fits(platform).map_err(|needs| {
            Error::Setting(format!(
                "--routing {}: the platform {} has {needs}; use --routing minimal",
                params.routing.name(),
                file.display()
            ))
        })
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
            ModelSpec::Packet { hosts, params, .. } => Model::Packet {
                platform: self.platform.as_ref().expect("set up"),
                hosts: self.hosts.clone(),
                rules: match hosts {
                    PacketHosts::Smpi(preset) => HostRules::Smpi(preset.protocol.clone()),
                    PacketHosts::LogGops { .. } => HostRules::LogGops(self.loggops.expect("set up")),
                },
                params: params.clone(),
            },
            ModelSpec::Stochastic { seed, .. } => Model::Stochastic {
                distributions: self.distributions.as_ref().expect("set up"),
                platform: self.platform.as_ref(),
                hosts: self.hosts.clone(),
                seed: *seed,
                replication: 0,
            },
            ModelSpec::Constant { time, preset } => Model::Constant {
                time: *time,
                protocol: preset.protocol.clone(),
            },
        }
    }
}

/// LogGOPS parameters in `unit` as picoseconds; one that passes the clock is refused.
fn loggops_ps(params: &[u64; 6], unit: TimeUnit) -> Result<LogGops, Error> {
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
    Ok(LogGops {
        l: ps[0],
        o: ps[1],
        g: ps[2],
        big_g: ps[3],
        big_o: ps[4],
        s: params[5],
    })
}

/// The constant model's preset: only the protocol applies (no route, so no factor).
pub fn constant_preset(p: Preset) -> Preset {
    Preset {
        network: FlowParams::plain(),
        ..p
    }
}
