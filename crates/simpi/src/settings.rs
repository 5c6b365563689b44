//! A replay's settings as plain data, checked in one place for every front end: the
//! model and its parameters, the machine, the input, the output, and which settings the
//! user gave. A setting the run would ignore, or one that contradicts another, is refused
//! by [`ReplaySettings::check`] in the front end's own words (`--os` on the command line,
//! `os` in Python, through a [`Naming`]); [`ReplaySettings::model_spec`] builds the model.

use crate::setup::{constant_preset, MappingSpec, ModelSpec, PacketChanges, PacketHosts, PresetChanges};
use crate::{values, CollChoice, Error, Format, Pattern, Preset, SimTime, TimeUnit};
use simpi_net::Routing;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The network models, by the names users give them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ModelName {
    /// LogGOPS with LogGOPSim's semantics.
    Loggops,
    /// Flows over a platform's routes, no factors or overheads.
    Flow,
    /// SMPI's hybrid model over a platform.
    Hybrid,
    /// Every message takes the same time, under SMPI's protocol.
    Constant,
    /// Packets over a platform's routes, under SMPI's protocol.
    Packet,
    /// Message times drawn from measured distributions (PEVPM's model).
    Stochastic,
}

impl ModelName {
    /// Every model, in the order messages list them.
    pub const ALL: [ModelName; 6] = [
        ModelName::Loggops,
        ModelName::Flow,
        ModelName::Hybrid,
        ModelName::Constant,
        ModelName::Packet,
        ModelName::Stochastic,
    ];

    /// The name users type.
    pub fn name(self) -> &'static str {
        match self {
            ModelName::Loggops => "loggops",
            ModelName::Flow => "flow",
            ModelName::Hybrid => "hybrid",
            ModelName::Constant => "constant",
            ModelName::Packet => "packet",
            ModelName::Stochastic => "stochastic",
        }
    }

    /// The model named `s`.
    pub fn parse(s: &str) -> Result<ModelName, String> {
        ModelName::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            format!(
                "{} is not a model: expected loggops, flow, hybrid, constant, packet or stochastic",
                values::quote(s)
            )
        })
    }
}

/// The preset the hybrid and constant models start from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PresetName {
    /// SimGrid 3.32's SMPI defaults ([`Preset::smpi`]).
    Smpi,
    /// No factors, overheads, envelope, TCP bound or cross-traffic ([`Preset::plain`]).
    Plain,
    /// A preset file ([`crate::preset_file`], as `simpi calibrate` writes one); its
    /// LogGOPS section, if any, also gives the `loggops` model its parameters.
    File(PathBuf),
}

impl PresetName {
    /// `smpi`, `plain`, or the path of a preset file.
    pub fn parse(s: &str) -> Result<PresetName, String> {
        match s {
            "smpi" => Ok(PresetName::Smpi),
            "plain" => Ok(PresetName::Plain),
            _ if s.contains('.') || s.contains('/') => Ok(PresetName::File(values::path(s)?)),
            _ => Err(format!(
                "{} is not a preset: expected smpi, plain or a preset file (simpi calibrate writes one)",
                values::quote(s)
            )),
        }
    }
}

/// What the hosts do around the packet network.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HostProtocol {
    /// SMPI's protocol ([`ReplaySettings::preset`] and its changes).
    Smpi,
    /// LogGOPS's CPU and NIC costs, messages crossing the network instead of taking L.
    Loggops,
}

/// How ranks are placed on a platform's hosts when no host file is given.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MappingKind {
    /// Consecutive ranks on a host ([`ReplaySettings::ranks_per_host`] of them).
    Block,
    /// Rank `r` on host `r mod hosts`.
    RoundRobin,
}

/// What the result is printed as.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// A summary for people (the only form with the report's details).
    Human,
    /// LogGOPSim's `Host <i>: <t>` lines.
    Loggopsim,
    /// One JSON object.
    Json,
}

/// A setting a user can give, named by each front end through a [`Naming`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Setting {
    /// The pattern to generate.
    Pattern,
    /// Pattern: ranks.
    Ranks,
    /// Pattern: message size.
    Bytes,
    /// Pattern: repetitions.
    Iterations,
    /// Pattern: compute per iteration.
    Compute,
    /// Pattern stencil3d: the grid wraps around.
    Periodic,
    /// The input file's format.
    InputFormat,
    /// The network model.
    Model,
    /// The platform file.
    Platform,
    /// The preset.
    Preset,
    /// The constant model's time.
    ConstantTime,
    /// The rank mapping.
    Mapping,
    /// Ranks per host of the block mapping.
    RanksPerHost,
    /// A host file.
    HostFile,
    /// Latency factors.
    LatFactor,
    /// Bandwidth factors.
    BwFactor,
    /// Send overhead.
    Os,
    /// Receive overhead.
    Or,
    /// Messages that flow before their receive is posted.
    AsyncSmall,
    /// Sends that are detached.
    Detached,
    /// weight-S.
    WeightS,
    /// SMPI's smpi/grow-injected-times.
    GrowInjectedTimes,
    /// LogGOPS latency L.
    LatencyL,
    /// LogGOPS overhead per message o.
    OverheadO,
    /// LogGOPS gap per message g.
    GapG,
    /// LogGOPS gap per byte G.
    GapPerByteG,
    /// LogGOPS overhead per byte O.
    OverheadPerByteO,
    /// LogGOPS eager limit S.
    EagerLimitS,
    /// The unit of times in the input and of the LogGOPS parameters.
    TimeUnit,
    /// Collective algorithm overrides.
    Coll,
    /// The collective selector.
    CollSelector,
    /// Host speed without a platform.
    Speed,
    /// Cost of a trace's MPI_Test.
    TestCost,
    /// The time breakdown and call statistics.
    Report,
    /// The output format.
    OutputFormat,
    /// JSON output.
    Json,
    /// A timeline file.
    Timeline,
    /// The ranks a timeline shows.
    TimelineRanks,
    /// The time window a timeline shows.
    TimelineWindow,
    /// The packet model's preset.
    PacketPreset,
    /// The packet model's largest packet.
    Mtu,
    /// The packet model's buffer per virtual channel.
    PacketBuffer,
    /// The packet model's router delay.
    RouterDelay,
    /// The packet model's input queues (FIFO or per output).
    Queues,
    /// The packet model's routing (minimal or detours).
    Routing,
    /// The largest message on the packet model's high-priority lane.
    PriorityUpTo,
    /// Bytes the high-priority lane may send in a row while a low packet waits.
    PriorityLimit,
    /// What the packet model's hosts do: SMPI's protocol or LogGOPS's costs.
    Protocol,
    /// An OS noise trace.
    Noise,
    /// Every rank reads the noise trace from one offset.
    NoiseCosched,
    /// The seed of the noise's offsets.
    Seed,
    /// Monte Carlo replications.
    Replications,
    /// The stochastic model's measured distributions.
    Distributions,
}

impl Setting {
    /// Every setting.
    pub const ALL: [Setting; 53] = [
        Setting::Pattern,
        Setting::Ranks,
        Setting::Bytes,
        Setting::Iterations,
        Setting::Compute,
        Setting::Periodic,
        Setting::InputFormat,
        Setting::Model,
        Setting::Platform,
        Setting::Preset,
        Setting::ConstantTime,
        Setting::Mapping,
        Setting::RanksPerHost,
        Setting::HostFile,
        Setting::LatFactor,
        Setting::BwFactor,
        Setting::Os,
        Setting::Or,
        Setting::AsyncSmall,
        Setting::Detached,
        Setting::WeightS,
        Setting::GrowInjectedTimes,
        Setting::LatencyL,
        Setting::OverheadO,
        Setting::GapG,
        Setting::GapPerByteG,
        Setting::OverheadPerByteO,
        Setting::EagerLimitS,
        Setting::TimeUnit,
        Setting::Coll,
        Setting::CollSelector,
        Setting::Speed,
        Setting::TestCost,
        Setting::Report,
        Setting::OutputFormat,
        Setting::Json,
        Setting::Timeline,
        Setting::TimelineRanks,
        Setting::TimelineWindow,
        Setting::PacketPreset,
        Setting::Mtu,
        Setting::PacketBuffer,
        Setting::RouterDelay,
        Setting::Queues,
        Setting::Routing,
        Setting::PriorityUpTo,
        Setting::PriorityLimit,
        Setting::Protocol,
        Setting::Noise,
        Setting::NoiseCosched,
        Setting::Seed,
        Setting::Replications,
        Setting::Distributions,
    ];
}

/// How a front end's users write a setting with a value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Command-line flags: `--model flow`, `--platform FILE`, lists `-L -o`.
    Flags,
    /// Keyword arguments: `model='flow'`, `platform=FILE`, lists `L, o`.
    Keywords,
}

/// How a front end names settings in its messages.
#[derive(Copy, Clone)]
pub struct Naming {
    /// A setting's name as users type it (`--os`, `os`).
    pub name: fn(Setting) -> &'static str,
    /// How a value goes with it.
    pub syntax: Syntax,
}

impl Naming {
    fn of(&self, s: Setting) -> &'static str {
        (self.name)(s)
    }

    /// `s` given the value `v`: `--model flow`, `model='flow'`.
    fn set(&self, s: Setting, v: &str) -> String {
        match self.syntax {
            Syntax::Flags => format!("{} {v}", self.of(s)),
            Syntax::Keywords => format!("{}='{v}'", self.of(s)),
        }
    }

    /// `s` with a placeholder for the user's value: `--platform FILE`, `platform=FILE`.
    fn placeholder(&self, s: Setting, what: &str) -> String {
        match self.syntax {
            Syntax::Flags => format!("{} {what}", self.of(s)),
            Syntax::Keywords => format!("{}={what}", self.of(s)),
        }
    }

    /// A value alone: `constant`, `'constant'`.
    fn value(&self, v: &str) -> String {
        match self.syntax {
            Syntax::Flags => v.to_string(),
            Syntax::Keywords => format!("'{v}'"),
        }
    }

    fn list(&self, settings: &[Setting]) -> String {
        let names: Vec<&str> = settings.iter().map(|s| self.of(*s)).collect();
        names.join(match self.syntax {
            Syntax::Flags => " ",
            Syntax::Keywords => ", ",
        })
    }
}

/// Settings only LogGOPS reads.
const LOGGOPS: [Setting; 6] = [
    Setting::LatencyL,
    Setting::OverheadO,
    Setting::GapG,
    Setting::GapPerByteG,
    Setting::OverheadPerByteO,
    Setting::EagerLimitS,
];

/// Settings only the models over a platform read.
const MACHINE: [Setting; 3] = [Setting::Mapping, Setting::RanksPerHost, Setting::HostFile];

/// Settings only the flow network reads (the flow and hybrid models).
const FLOW: [Setting; 3] = [Setting::LatFactor, Setting::BwFactor, Setting::WeightS];

/// Settings only the packet network reads.
const PACKET: [Setting; 9] = [
    Setting::PacketPreset,
    Setting::Mtu,
    Setting::PacketBuffer,
    Setting::RouterDelay,
    Setting::Queues,
    Setting::Routing,
    Setting::PriorityUpTo,
    Setting::PriorityLimit,
    Setting::Protocol,
];

/// Settings of SMPI's protocol (every model but LogGOPS).
const PROTOCOL: [Setting; 6] = [
    Setting::Os,
    Setting::Or,
    Setting::AsyncSmall,
    Setting::Detached,
    Setting::GrowInjectedTimes,
    Setting::Preset,
];

/// Settings only traces read: GOAL schedules and patterns have their operations.
const TRACE: [Setting; 5] = [
    Setting::Coll,
    Setting::CollSelector,
    Setting::Speed,
    Setting::TestCost,
    Setting::GrowInjectedTimes,
];

/// Settings of a generated pattern.
const PATTERN: [Setting; 5] = [
    Setting::Ranks,
    Setting::Bytes,
    Setting::Iterations,
    Setting::Compute,
    Setting::Periodic,
];

/// OS noise and Monte Carlo replications (LogGOPS only; see [`crate::montecarlo`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoiseSettings {
    /// A noise trace in LogGOPSim's format, its times in the replay's time unit.
    pub trace: Option<PathBuf>,
    /// Every rank reads the trace from one offset (else each from its own).
    pub cosched: bool,
    /// The seed of the offsets.
    pub seed: u64,
    /// Replications, each with offsets of its own (at least 1).
    pub replications: u32,
}

impl Default for NoiseSettings {
    /// No noise, seed 1, one replication.
    fn default() -> NoiseSettings {
        NoiseSettings {
            trace: None,
            cosched: false,
            seed: 1,
            replications: 1,
        }
    }
}

/// A replay's settings: each value (a default where the user gave none), and which ones
/// the user gave.
#[derive(Clone, Debug)]
pub struct ReplaySettings {
    /// The file to replay (none for a pattern).
    pub source: Option<PathBuf>,
    /// The file's format (none: detected from the file).
    pub format: Option<Format>,
    /// The pattern to generate in the process.
    pub pattern: Option<Pattern>,
    /// The model (none: hybrid with a platform, LogGOPS without).
    pub model: Option<ModelName>,
    /// The platform of the flow and hybrid models.
    pub platform: Option<PathBuf>,
    /// The preset of the hybrid, constant and packet models (the packet model takes
    /// only its protocol).
    pub preset: PresetName,
    /// The packet model's parameters.
    pub packet: PacketChanges,
    /// What the packet model's hosts do.
    pub protocol: HostProtocol,
    /// The constant model's time per message.
    pub constant_time: SimTime,
    /// Where ranks run when there is no host file.
    pub mapping: MappingKind,
    /// Ranks per host of the block mapping.
    pub ranks_per_host: u32,
    /// A host file, instead of `mapping`.
    pub hostfile: Option<PathBuf>,
    /// Changes to the preset.
    pub changes: PresetChanges,
    /// LogGOPS L, o, g, G, O in `time_unit`, and S in bytes.
    pub loggops: [u64; 6],
    /// Unit of a GOAL schedule's times, LogGOPS parameters and a pattern's compute.
    pub time_unit: TimeUnit,
    /// Whose rules pick collective algorithms (`ompi`, `mpich`, `first`).
    pub coll_selector: String,
    /// `op=algo` overrides of the selector.
    pub coll: Vec<String>,
    /// Record operations for the time breakdown and the call statistics.
    pub report: bool,
    /// What the result is printed as.
    pub output: Output,
    /// OS noise, the seed and replications.
    pub noise: NoiseSettings,
    /// The stochastic model's distributions file.
    pub distributions: Option<PathBuf>,
    /// The settings the user gave (a default the user did not type is not given).
    pub given: BTreeSet<Setting>,
}

impl Default for ReplaySettings {
    /// `simpi replay`'s defaults: LogGOPS with LogGOPSim's example parameters in ns,
    /// SMPI's preset, one rank per host, a constant time of 1 s (SimGrid's), Open MPI's
    /// collectives, human output without the report.
    fn default() -> ReplaySettings {
        ReplaySettings {
            source: None,
            format: None,
            pattern: None,
            model: None,
            platform: None,
            preset: PresetName::Smpi,
            packet: PacketChanges::default(),
            protocol: HostProtocol::Smpi,
            constant_time: SimTime(1_000_000_000_000),
            mapping: MappingKind::Block,
            ranks_per_host: 1,
            hostfile: None,
            changes: PresetChanges::default(),
            loggops: [2500, 1500, 1000, 6, 0, 65535],
            time_unit: TimeUnit::Ns,
            coll_selector: "ompi".into(),
            coll: Vec::new(),
            report: false,
            output: Output::Human,
            noise: NoiseSettings::default(),
            distributions: None,
            given: BTreeSet::new(),
        }
    }
}

impl ReplaySettings {
    /// The model asked for, or the default: SMPI's hybrid model on a platform, LogGOPS
    /// without one.
    pub fn model(&self) -> ModelName {
        self.model.unwrap_or(if self.platform.is_some() {
            ModelName::Hybrid
        } else {
            ModelName::Loggops
        })
    }

    fn given(&self, s: Setting) -> bool {
        self.given.contains(&s)
    }

    /// Whether the input is a trace of MPI calls, TIT or OTF2 (given, or detected from
    /// the file).
    fn is_trace(&self) -> bool {
        match (&self.source, self.format) {
            (_, Some(f)) => f.is_trace(),
            (None, None) => false,
            (Some(f), None) => Format::detect(f).is_trace(),
        }
    }

    /// Refuses settings the chosen model, input or output would ignore, and settings
    /// that contradict each other: one that silently does nothing misleads. The message
    /// names settings as `naming` does.
    pub fn check(&self, naming: Naming) -> Result<(), String> {
        let n = |s: Setting| naming.of(s);
        match (&self.source, self.pattern) {
            (Some(_), Some(_)) => return Err("give a file to replay or a pattern, not both".into()),
            (None, None) => {
                return Err(format!(
                    "nothing to replay: give a file or {}",
                    naming.placeholder(Setting::Pattern, "NAME")
                ))
            }
            _ => {}
        }
        if self.pattern.is_none() {
            if let Some(s) = PATTERN.into_iter().find(|s| self.given(*s)) {
                return Err(format!(
                    "{} is a pattern parameter: it needs {}",
                    n(s),
                    naming.placeholder(Setting::Pattern, "NAME")
                ));
            }
        }
        if !self.given(Setting::Timeline) {
            for s in [Setting::TimelineRanks, Setting::TimelineWindow] {
                if self.given(s) {
                    return Err(format!(
                        "{} selects what {} shows: give {} too",
                        n(s),
                        naming.placeholder(Setting::Timeline, "FILE"),
                        n(Setting::Timeline)
                    ));
                }
            }
        }
        self.check_model(naming)?;
        if !self.is_trace() {
            if let Some(s) = TRACE.into_iter().find(|s| self.given(*s)) {
                let what = if self.pattern.is_some() {
                    "a pattern"
                } else {
                    "a GOAL schedule"
                };
                return Err(format!(
                    "{} applies to TIT traces; {what} has its operations already",
                    n(s)
                ));
            }
        }
        if self.given(Setting::InputFormat) && self.pattern.is_some() {
            return Err(format!(
                "{} is the format of a file: a pattern has none",
                n(Setting::InputFormat)
            ));
        }
        if self.given(Setting::Speed) && self.platform.is_some() {
            return Err(format!(
                "{} is the host speed without a platform: the platform's hosts have their own",
                n(Setting::Speed)
            ));
        }
        if self.given(Setting::Periodic) && self.pattern != Some(Pattern::Stencil3d) {
            return Err(format!(
                "{} is for {}",
                n(Setting::Periodic),
                naming.set(Setting::Pattern, "stencil3d")
            ));
        }
        if self.report && self.output != Output::Human {
            return Err(format!(
                "{} prints with the human format: drop {} or {}",
                n(Setting::Report),
                n(Setting::Json),
                naming.set(Setting::OutputFormat, "loggopsim")
            ));
        }
        Ok(())
    }

    /// The part of [`ReplaySettings::check`] about the model and the machine: settings
    /// the chosen model would ignore, a platform where one is needed (or not), the
    /// mapping's. `simpi run` checks its settings with it too.
    pub fn check_model(&self, naming: Naming) -> Result<(), String> {
        let n = |s: Setting| naming.of(s);
        let model = self.model();
        let set_model = |m: ModelName| naming.set(Setting::Model, m.name());
        let this_model = set_model(model);
        let flow_like = matches!(model, ModelName::Flow | ModelName::Hybrid);
        let stochastic = model == ModelName::Stochastic;
        let on_platform = flow_like || model == ModelName::Packet || (stochastic && self.platform.is_some());
        match (&self.platform, model) {
            (None, ModelName::Loggops | ModelName::Constant)
            | (_, ModelName::Stochastic)
            | (Some(_), ModelName::Flow | ModelName::Hybrid | ModelName::Packet) => {}
            (Some(_), ModelName::Constant) => {
                return Err(format!("the constant model needs no {}", n(Setting::Platform)))
            }
            (Some(_), ModelName::Loggops) => {
                return Err(format!(
                    "{} is used by the flow, hybrid and packet models: add {}, {} or {}",
                    n(Setting::Platform),
                    set_model(ModelName::Flow),
                    set_model(ModelName::Hybrid),
                    set_model(ModelName::Packet)
                ))
            }
            (None, _) => {
                return Err(format!(
                    "{this_model} needs {}",
                    naming.placeholder(Setting::Platform, "FILE")
                ))
            }
        }
        let loggops_hosts = model == ModelName::Packet && self.protocol == HostProtocol::Loggops;
        for s in LOGGOPS {
            if s == Setting::LatencyL && loggops_hosts && self.given(s) {
                return Err(format!(
                    "{} is LogGOPS's network latency: over {this_model} the network takes its place",
                    n(s)
                ));
            }
            if self.given(s) && stochastic {
                return Err(format!(
                    "{} is a LogGOPS parameter: {this_model} takes every message's time, host costs included, from {}",
                    n(s),
                    naming.placeholder(Setting::Distributions, "FILE")
                ));
            }
            if self.given(s) && model != ModelName::Loggops && !loggops_hosts {
                return Err(format!("{} is a LogGOPS parameter: {this_model} does not use it", n(s)));
            }
        }
        match (stochastic, &self.distributions) {
            (true, None) => {
                return Err(format!(
                    "{this_model} draws message times from measured distributions: give {}",
                    naming.placeholder(Setting::Distributions, "FILE")
                ))
            }
            (false, Some(_)) => {
                return Err(format!(
                    "{} is for {}, not {this_model}",
                    n(Setting::Distributions),
                    set_model(ModelName::Stochastic)
                ))
            }
            _ => {}
        }
        self.check_noise(naming)?;
        for s in MACHINE {
            if self.given(s) && !on_platform {
                return Err(format!(
                    "{} is used by the models over a platform (flow, hybrid, packet), not by {this_model}",
                    n(s)
                ));
            }
        }
        for s in FLOW {
            if self.given(s) && !flow_like {
                return Err(format!(
                    "{} is used by the flow and hybrid models, not by {this_model}",
                    n(s)
                ));
            }
        }
        for s in PACKET {
            if self.given(s) && model != ModelName::Packet {
                return Err(format!(
                    "{} is for {}, not {this_model}",
                    n(s),
                    set_model(ModelName::Packet)
                ));
            }
        }
        for s in PROTOCOL {
            // A preset file may carry LogGOPS's parameters too.
            if s == Setting::Preset && matches!(self.preset, PresetName::File(_)) {
                continue;
            }
            if self.given(s) && loggops_hosts {
                return Err(format!(
                    "{} is a setting of SMPI's protocol: {} uses LogGOPS's costs ({}) instead",
                    n(s),
                    naming.set(Setting::Protocol, "loggops"),
                    naming.list(&LOGGOPS[1..])
                ));
            }
            if self.given(s) && model == ModelName::Loggops {
                return Err(format!(
                    "{} is a setting of SMPI's protocol: {this_model} uses LogGOPS ({}) instead",
                    n(s),
                    naming.list(&LOGGOPS)
                ));
            }
            if self.given(s) && stochastic {
                return Err(format!(
                    "{} is a setting of SMPI's protocol: {this_model} takes every message's time, protocol included, from {}",
                    n(s),
                    naming.placeholder(Setting::Distributions, "FILE")
                ));
            }
        }
        if self.given(Setting::Preset) && model == ModelName::Flow {
            return Err(format!(
                "{this_model} has its own settings (no factors, no overheads): {} is for {} or {}",
                n(Setting::Preset),
                set_model(ModelName::Hybrid),
                naming.value(ModelName::Constant.name())
            ));
        }
        if self.given(Setting::ConstantTime) && model != ModelName::Constant {
            return Err(format!(
                "{} is for {}, not {this_model}",
                n(Setting::ConstantTime),
                set_model(ModelName::Constant)
            ));
        }
        if self.hostfile.is_some() && (self.given(Setting::Mapping) || self.given(Setting::RanksPerHost)) {
            return Err(format!(
                "{} places the ranks itself: drop {} and {}",
                n(Setting::HostFile),
                n(Setting::Mapping),
                n(Setting::RanksPerHost)
            ));
        }
        if self.given(Setting::RanksPerHost) && self.mapping == MappingKind::RoundRobin {
            return Err(format!(
                "{} is for {}",
                n(Setting::RanksPerHost),
                naming.set(Setting::Mapping, "block")
            ));
        }
        Ok(())
    }

    /// Refuses noise settings without a noise trace, noise under a model that ignores
    /// it, and outputs of one run with several replications.
    fn check_noise(&self, naming: Naming) -> Result<(), String> {
        let n = |s: Setting| naming.of(s);
        let trace = naming.placeholder(Setting::Noise, "FILE");
        let model = self.model();
        if self.noise.trace.is_some() && model == ModelName::Stochastic {
            return Err(format!(
                "{} charges OS noise under LogGOPSim's rules: {} does not use it (its measured times hold the hosts' noise)",
                n(Setting::Noise),
                naming.set(Setting::Model, model.name())
            ));
        }
        if self.noise.trace.is_none() && model == ModelName::Stochastic {
            if self.given(Setting::NoiseCosched) {
                return Err(format!(
                    "{} places the noise of {trace}: give {} too",
                    n(Setting::NoiseCosched),
                    n(Setting::Noise)
                ));
            }
            return self.check_replications(naming);
        }
        if self.noise.trace.is_none() {
            let why = |s: Setting| match s {
                Setting::NoiseCosched => "places the noise",
                Setting::Seed => "draws the noise's offsets",
                _ => "repeats a run with new noise offsets",
            };
            for s in [Setting::NoiseCosched, Setting::Seed, Setting::Replications] {
                // The packet model's detours draw from the seed too.
                let detours = model == ModelName::Packet && self.packet.routing.is_some_and(Routing::draws);
                if s == Setting::Seed && model == ModelName::Packet && self.given(s) && !detours {
                    return Err(format!(
                        "{} draws the detours of {}, {} or {} (on a dragonfly): give one of them",
                        n(s),
                        naming.set(Setting::Routing, Routing::Valiant.name()),
                        naming.set(Setting::Routing, Routing::Ugal.name()),
                        naming.set(Setting::Routing, Routing::Adaptive.name())
                    ));
                }
                if self.given(s) && !(s == Setting::Seed && detours) {
                    return Err(format!(
                        "{} {} of {trace}: give {} too",
                        n(s),
                        why(s),
                        n(Setting::Noise)
                    ));
                }
            }
            return Ok(());
        }
        if model != ModelName::Loggops {
            return Err(format!(
                "{} charges OS noise under LogGOPSim's rules: {} does not use it (use {})",
                n(Setting::Noise),
                naming.set(Setting::Model, model.name()),
                naming.set(Setting::Model, ModelName::Loggops.name())
            ));
        }
        self.check_replications(naming)
    }

    /// Refuses outputs of one run with several replications.
    fn check_replications(&self, naming: Naming) -> Result<(), String> {
        let n = |s: Setting| naming.of(s);
        if self.noise.replications > crate::montecarlo::MAX_REPLICATIONS {
            return Err(format!(
                "{}: at most {} replications (each keeps its result until all are done)",
                naming.set(Setting::Replications, &self.noise.replications.to_string()),
                crate::montecarlo::MAX_REPLICATIONS
            ));
        }
        if self.noise.replications > 1 {
            let one_run = if self.report {
                Some(n(Setting::Report).to_string())
            } else if self.given(Setting::Timeline) {
                Some(n(Setting::Timeline).to_string())
            } else if self.output == Output::Loggopsim {
                Some(naming.set(Setting::OutputFormat, "loggopsim"))
            } else {
                None
            };
            if let Some(what) = one_run {
                return Err(format!(
                    "{what} describes one run, and {} gives statistics over {}: drop one of them",
                    naming.set(Setting::Replications, &self.noise.replications.to_string()),
                    self.noise.replications
                ));
            }
        }
        Ok(())
    }

    /// The collective choice: the selector, then the overrides; a bad one is refused
    /// with the setting's name.
    pub fn collectives(&self, naming: Naming) -> Result<CollChoice, String> {
        let mut c = CollChoice::by_name(&self.coll_selector)
            .map_err(|e| format!("{}: {e}", naming.of(Setting::CollSelector)))?;
        for o in &self.coll {
            c.add_override(o)
                .map_err(|e| format!("{}: {e}", naming.of(Setting::Coll)))?;
        }
        Ok(c)
    }

    /// The model the settings describe: the preset (flow's own for the flow model) with
    /// the user's changes, checked; the mapping from the host file, else `mapping`.
    pub fn model_spec(&self) -> Result<ModelSpec, Error> {
        let model = self.model();
        let file = match &self.preset {
            PresetName::File(p) => Some(crate::preset_file::read(p)?),
            _ => None,
        };
        let base = match (model, &self.preset, &file) {
            (ModelName::Flow, _, _) => Preset::flow(),
            (_, _, Some(f)) => f.preset.clone(),
            (_, PresetName::Plain, _) => Preset::plain(),
            _ => Preset::smpi(),
        };
        let preset = || self.changes.apply(base.clone());
        let loggops = || -> Result<([u64; 6], TimeUnit), Error> {
            let Some(f) = &file else {
                return Ok((self.loggops, self.time_unit));
            };
            let Some(l) = &f.loggops else {
                return Err(Error::Input(format!(
                    "{}: the preset file has no [loggops] section for the loggops model",
                    self.preset_path().display()
                )));
            };
            // The file's values in ps, each replaced by the user's where one was given.
            let k = self.time_unit.ps_per_unit();
            let mut p = [l.l, l.o, l.g, l.big_g, l.big_o, l.s];
            for (i, s) in LOGGOPS.iter().enumerate() {
                if self.given(*s) {
                    p[i] = if i == 5 {
                        self.loggops[5]
                    } else {
                        self.loggops[i]
                            .checked_mul(k)
                            .ok_or_else(|| Error::Setting(format!("{s:?} overflows 2^64 picoseconds")))?
                    };
                }
            }
            Ok((p, TimeUnit::Ps))
        };
        Ok(match (model, &self.platform) {
            (ModelName::Loggops, _) => {
                let (params, unit) = loggops()?;
                ModelSpec::LogGops { params, unit }
            }
            (ModelName::Stochastic, platform) => ModelSpec::Stochastic {
                distributions: self
                    .distributions
                    .clone()
                    .ok_or_else(|| Error::Setting("the stochastic model needs its distributions".into()))?,
                platform: platform.as_ref().map(|p| (p.clone(), self.mapping_spec())),
                seed: self.noise.seed,
            },
            (ModelName::Constant, _) => ModelSpec::Constant {
                time: self.constant_time,
                preset: constant_preset(preset()?),
            },
            (ModelName::Packet, Some(platform)) => {
                let hosts = match self.protocol {
                    HostProtocol::Smpi => PacketHosts::Smpi(constant_preset(preset()?)),
                    HostProtocol::Loggops => {
                        let (params, unit) = loggops()?;
                        PacketHosts::LogGops { params, unit }
                    }
                };
                let mut params = self.packet.params(self.noise.seed)?;
                // Users give the lane's bound as an MPI message size; the network sees
                // SMPI's envelope too.
                if let (Some(q), PacketHosts::Smpi(p)) = (&mut params.priority, &hosts) {
                    q.up_to = q.up_to.saturating_add(p.protocol.envelope);
                }
                ModelSpec::Packet {
                    platform: platform.clone(),
                    mapping: self.mapping_spec(),
                    hosts,
                    params,
                }
            }
            (_, Some(platform)) => ModelSpec::Flow {
                platform: platform.clone(),
                mapping: self.mapping_spec(),
                preset: preset()?,
            },
            (_, None) => return Err(Error::Setting("the models over a platform need one".into())),
        })
    }

    /// The preset file's path (empty for a named preset).
    fn preset_path(&self) -> PathBuf {
        match &self.preset {
            PresetName::File(p) => p.clone(),
            _ => PathBuf::new(),
        }
    }

    /// Where ranks run: the host file, else `mapping`.
    fn mapping_spec(&self) -> MappingSpec {
        match (&self.hostfile, self.mapping) {
            (Some(f), _) => MappingSpec::HostFile(f.clone()),
            (None, MappingKind::Block) => MappingSpec::Block {
                per_host: self.ranks_per_host,
            },
            (None, MappingKind::RoundRobin) => MappingSpec::RoundRobin,
        }
    }
}
