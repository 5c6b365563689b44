//! The settings a sweep takes, by name: every `simpi replay` setting but its outputs
//! (`--report`, `--format`, `--json`, the timeline's), each with its command-line flag,
//! its Python keyword, and a parser of its text into a [`Point`]. A value is read by the
//! parser `simpi replay` gives its flag (`simpi::values`, or the same domain), so a
//! sweep accepts and refuses what a replay does.

use crate::settings::{MappingKind, ModelName, PresetName, Setting};
use crate::values::{boolean, one_of, path, whole};
use crate::{values, CollChoice, Format, PatternParams, ReplaySettings};

/// A setting a sweep can vary or fix.
#[derive(Debug, PartialEq, Eq)]
pub struct Key {
    /// The flag as typed: `-L`, `--bw-factor`, `--or`, `--input`.
    pub flag: &'static str,
    /// The Python keyword (`L`, `bw_factor`, `or_`, `format`); tables name columns by it,
    /// so the command line's and Python's tables have the same columns.
    pub keyword: &'static str,
    /// The facade's setting (none for `max-blocked-ranks`, which changes no result).
    pub setting: Option<Setting>,
    /// A switch: given on the command line without a value (`--periodic`); varied as
    /// `true,false`.
    pub switch: bool,
    /// What it is, for `--help`.
    pub help: &'static str,
}

impl Key {
    /// The flag without its dashes: `L`, `bw-factor`.
    pub fn name(&self) -> &'static str {
        self.flag.trim_start_matches('-')
    }

    /// Whether the key may be given more than once (`--coll`).
    pub fn repeatable(&self) -> bool {
        self.setting == Some(Setting::Coll)
    }
}

const fn key(flag: &'static str, keyword: &'static str, setting: Setting, help: &'static str) -> Key {
    Key {
        flag,
        keyword,
        setting: Some(setting),
        switch: false,
        help,
    }
}

/// Every key, in `simpi replay --help`'s order.
pub const KEYS: [Key; 47] = [
    key(
        "--pattern",
        "pattern",
        Setting::Pattern,
        "Replay a pattern generated in the process instead of files",
    ),
    key(
        "--ranks",
        "ranks",
        Setting::Ranks,
        "Pattern: number of ranks [default: 8]",
    ),
    key(
        "--bytes",
        "bytes",
        Setting::Bytes,
        "Pattern: message size in bytes [default: 8]",
    ),
    key(
        "--iterations",
        "iterations",
        Setting::Iterations,
        "Pattern: number of repetitions [default: 1]",
    ),
    key(
        "--compute",
        "compute",
        Setting::Compute,
        "Pattern: compute before every iteration, in the time unit [default: 0]",
    ),
    Key {
        flag: "--periodic",
        keyword: "periodic",
        setting: Some(Setting::Periodic),
        switch: true,
        help: "Pattern stencil3d: the grid wraps around",
    },
    key(
        "--input",
        "format",
        Setting::InputFormat,
        "Input format, goal or tit [default: detected]",
    ),
    key(
        "--model",
        "model",
        Setting::Model,
        "loggops, flow, hybrid or constant [default: hybrid with --platform, loggops without]",
    ),
    key(
        "--platform",
        "platform",
        Setting::Platform,
        "Platform file (.toml or SimGrid .xml) of the flow, hybrid and packet models",
    ),
    key(
        "--preset",
        "preset",
        Setting::Preset,
        "smpi, plain or a preset file [default: smpi]",
    ),
    key(
        "--constant-time",
        "constant_time",
        Setting::ConstantTime,
        "Constant model: the time every message takes [default: 1s]",
    ),
    key(
        "--packet-preset",
        "packet_preset",
        Setting::PacketPreset,
        "Packet model: generic, ib or dragonfly [default: generic]",
    ),
    key(
        "--mtu",
        "mtu",
        Setting::Mtu,
        "Packet model: largest packet on the wire, headers included, bytes",
    ),
    key(
        "--packet-buffer",
        "packet_buffer",
        Setting::PacketBuffer,
        "Packet model: input buffer per virtual channel, bytes (0: each link's round trip)",
    ),
    key(
        "--router-delay",
        "router_delay",
        Setting::RouterDelay,
        "Packet model: time through a router (10ns, 0.1us)",
    ),
    key(
        "--queues",
        "queues",
        Setting::Queues,
        "Packet model: voq (a queue per output) or fifo (head-of-line blocking)",
    ),
    key(
        "--routing",
        "routing",
        Setting::Routing,
        "Packet model: minimal, on a dragonfly valiant or ugal (detours drawn from --seed), adaptive on a fat tree, torus or dragonfly [default: minimal]",
    ),
    key(
        "--priority-up-to",
        "priority_up_to",
        Setting::PriorityUpTo,
        "Packet model: two virtual lanes, messages of at most this many bytes on the high-priority one",
    ),
    key(
        "--priority-limit",
        "priority_limit",
        Setting::PriorityLimit,
        "Packet model: high-priority bytes a port sends in a row while a low packet waits (none: no limit) [default: none]",
    ),
    key(
        "--protocol",
        "protocol",
        Setting::Protocol,
        "Packet model: smpi (SMPI's protocol) or loggops (LogGOPS's host costs) [default: smpi]",
    ),
    key(
        "--mapping",
        "mapping",
        Setting::Mapping,
        "block or round-robin [default: block]",
    ),
    key(
        "--ranks-per-host",
        "ranks_per_host",
        Setting::RanksPerHost,
        "Ranks per host of the block mapping [default: 1]",
    ),
    key(
        "--hostfile",
        "hostfile",
        Setting::HostFile,
        "A host file, instead of --mapping",
    ),
    key(
        "--lat-factor",
        "lat_factor",
        Setting::LatFactor,
        "Hybrid: latency factors by size, `bound:factor;...`",
    ),
    key(
        "--bw-factor",
        "bw_factor",
        Setting::BwFactor,
        "Hybrid: bandwidth factors by size, `bound:factor;...`",
    ),
    key("--os", "os", Setting::Os, "Hybrid: send overhead `bound:a:b;...`"),
    key("--or", "or_", Setting::Or, "Hybrid: receive overhead `bound:a:b;...`"),
    key(
        "--async-small",
        "async_small",
        Setting::AsyncSmall,
        "Hybrid: messages below this many bytes flow before their receive",
    ),
    key(
        "--detached",
        "detached",
        Setting::Detached,
        "Hybrid: sends below this many bytes are detached",
    ),
    key("--weight-s", "weight_s", Setting::WeightS, "Hybrid: weight-S in bytes"),
    key(
        "--grow-injected-times",
        "grow_injected_times",
        Setting::GrowInjectedTimes,
        "Hybrid: true or false, SimGrid's smpi/grow-injected-times",
    ),
    key(
        "-L",
        "L",
        Setting::LatencyL,
        "LogGOPS latency L, in the time unit [default: 2500]",
    ),
    key(
        "-o",
        "o",
        Setting::OverheadO,
        "LogGOPS overhead per message o, in the time unit [default: 1500]",
    ),
    key(
        "-g",
        "g",
        Setting::GapG,
        "LogGOPS gap per message g, in the time unit [default: 1000]",
    ),
    key(
        "-G",
        "G",
        Setting::GapPerByteG,
        "LogGOPS gap per byte G, in the time unit [default: 6]",
    ),
    key(
        "-O",
        "O",
        Setting::OverheadPerByteO,
        "LogGOPS overhead per byte O, in the time unit [default: 0]",
    ),
    key(
        "-S",
        "S",
        Setting::EagerLimitS,
        "Largest eager message in bytes [default: 65535]",
    ),
    key(
        "--time-unit",
        "time_unit",
        Setting::TimeUnit,
        "Unit of schedules' times and of L, o, g, G, O [default: ns]",
    ),
    key(
        "--coll",
        "coll",
        Setting::Coll,
        "Use this algorithm for a collective, `op=algo` (repeatable when fixed)",
    ),
    key(
        "--coll-selector",
        "coll_selector",
        Setting::CollSelector,
        "ompi, mpich or first [default: ompi]",
    ),
    key(
        "--speed",
        "speed",
        Setting::Speed,
        "Host speed in flop/s for traces without a platform [default: 1e9]",
    ),
    key(
        "--test-cost",
        "test_cost",
        Setting::TestCost,
        "Seconds each MPI_Test of a trace costs [default: 1e-4]",
    ),
    key(
        "--noise",
        "noise",
        Setting::Noise,
        "LogGOPS: an OS noise trace (LogGOPSim's format, in the time unit); a point is one run",
    ),
    Key {
        flag: "--noise-cosched",
        keyword: "noise_cosched",
        setting: Some(Setting::NoiseCosched),
        switch: true,
        help: "Noise: every rank reads the trace from one offset",
    },
    key(
        "--seed",
        "seed",
        Setting::Seed,
        "The seed of noise offsets and of the stochastic model's draws [default: 1]; vary it for replications",
    ),
    key(
        "--distributions",
        "distributions",
        Setting::Distributions,
        "Stochastic: the measured message times (a distributions file, docs/models.md)",
    ),
    Key {
        flag: "--max-blocked-ranks",
        keyword: "max_blocked_ranks",
        setting: None,
        switch: false,
        help: "How many blocked ranks a stalled point's error describes [default: 20]",
    },
];

/// The key named `name`: its flag with or without dashes (`-L`, `L`, `--bw-factor`,
/// `bw-factor`) or its Python keyword (`bw_factor`, `or_`). `format` is refused: on the
/// command line it is the output's format, the input's is `input`.
pub fn find(name: &str) -> Option<&'static Key> {
    let bare = name.trim_start_matches('-');
    KEYS.iter()
        .find(|k| k.name() == bare || (k.keyword == bare && bare != "format"))
}

/// What one point of a sweep runs: a replay's settings and what a replay reads beside
/// them. The defaults are `simpi replay`'s.
#[derive(Clone, Debug)]
pub struct Point {
    /// The model, machine and input, as the facade checks them.
    pub replay: ReplaySettings,
    /// A pattern's parameters.
    pub params: PatternParams,
    /// Flop/s of a host without a platform (traces).
    pub speed: f64,
    /// Seconds per MPI_Test of a trace.
    pub test_cost: f64,
    /// Blocked ranks a stall report describes.
    pub max_blocked_ranks: usize,
}

impl Default for Point {
    fn default() -> Point {
        Point {
            replay: ReplaySettings::default(),
            params: PatternParams::default(),
            speed: 1e9,
            test_cost: 1e-4,
            max_blocked_ranks: 20,
        }
    }
}

impl Point {
    /// Sets `key` to the value `text` and records it as given; a value out of the
    /// setting's domain is refused with the flag's name: `-L: 'x' is not a whole number`.
    pub fn set(&mut self, key: &Key, text: &str) -> Result<(), String> {
        self.apply(key, text).map_err(|m| format!("{}: {m}", key.flag))?;
        if let Some(s) = key.setting {
            self.replay.given.insert(s);
        }
        // `periodic=false` is the default, not a request (as in Python).
        if key.setting == Some(Setting::Periodic) && !self.params.periodic {
            self.replay.given.remove(&Setting::Periodic);
        }
        if key.setting == Some(Setting::NoiseCosched) && !self.replay.noise.cosched {
            self.replay.given.remove(&Setting::NoiseCosched);
        }
        Ok(())
    }

    fn apply(&mut self, key: &Key, t: &str) -> Result<(), String> {
        let r = &mut self.replay;
        let c = &mut r.changes;
        let Some(setting) = key.setting else {
            self.max_blocked_ranks = whole(t)?.min(usize::MAX as u64) as usize;
            return Ok(());
        };
        match setting {
            Setting::Pattern => r.pattern = Some(values::pattern(t)?),
            Setting::Ranks => self.params.ranks = values::rank_count(t)?,
            Setting::Bytes => self.params.bytes = whole(t)?,
            Setting::Iterations => self.params.iterations = values::at_least_one(t)?,
            Setting::Compute => self.params.compute = whole(t)?,
            Setting::Periodic => self.params.periodic = boolean(t)?,
            Setting::InputFormat => {
                r.format = Some(one_of(
                    t,
                    &[
                        ("goal", Format::Goal),
                        ("tit", Format::Tit),
                        ("otf2", Format::Otf2),
                        ("liballprof", Format::Allprof),
                        ("allprof", Format::Allprof),
                        ("dumpi", Format::Dumpi),
                    ],
                )?)
            }
            Setting::Model => r.model = Some(ModelName::parse(t)?),
            Setting::Platform => r.platform = Some(path(t)?),
            Setting::Preset => r.preset = PresetName::parse(t)?,
            Setting::ConstantTime => r.constant_time = values::duration(t)?,
            Setting::PacketPreset => r.packet.preset = Some(values::packet_preset(t)?),
            Setting::Mtu => r.packet.mtu = Some(values::at_least_one(t)?.into()),
            Setting::PacketBuffer => r.packet.buffer = Some(whole(t)?),
            Setting::RouterDelay => r.packet.router_delay = Some(values::duration(t)?),
            Setting::Queues => r.packet.voq = Some(values::queues(t)?),
            Setting::Routing => r.packet.routing = Some(values::routing(t)?),
            Setting::PriorityUpTo => r.packet.priority_up_to = Some(whole(t)?),
            Setting::PriorityLimit => r.packet.priority_limit = Some(values::priority_limit(t)?),
            Setting::Protocol => r.protocol = values::host_protocol(t)?,
            Setting::Mapping => {
                r.mapping = one_of(
                    t,
                    &[("block", MappingKind::Block), ("round-robin", MappingKind::RoundRobin)],
                )?
            }
            Setting::RanksPerHost => r.ranks_per_host = values::at_least_one(t)?,
            Setting::HostFile => r.hostfile = Some(path(t)?),
            Setting::LatFactor => c.lat_factor = Some(values::lat_factors(t)?),
            Setting::BwFactor => c.bw_factor = Some(values::bw_factors(t)?),
            Setting::Os => c.os = Some(values::overheads(t)?),
            Setting::Or => c.or = Some(values::overheads(t)?),
            Setting::AsyncSmall => c.async_small = Some(whole(t)?),
            Setting::Detached => c.detached = Some(whole(t)?),
            Setting::WeightS => c.weight_s = Some(values::non_negative(t)?),
            Setting::GrowInjectedTimes => c.grow_test_costs = Some(boolean(t)?),
            Setting::LatencyL => r.loggops[0] = whole(t)?,
            Setting::OverheadO => r.loggops[1] = whole(t)?,
            Setting::GapG => r.loggops[2] = whole(t)?,
            Setting::GapPerByteG => r.loggops[3] = whole(t)?,
            Setting::OverheadPerByteO => r.loggops[4] = whole(t)?,
            Setting::EagerLimitS => r.loggops[5] = whole(t)?,
            Setting::TimeUnit => r.time_unit = values::time_unit(t)?,
            // Checked with the selector by `ReplaySettings::collectives`.
            Setting::Coll => r.coll.push(t.to_string()),
            Setting::CollSelector => {
                CollChoice::by_name(t)?;
                r.coll_selector = t.to_string();
            }
            Setting::Speed => self.speed = values::positive(t)?,
            Setting::TestCost => self.test_cost = values::clock_seconds(t)?,
            Setting::Report
            | Setting::OutputFormat
            | Setting::Json
            | Setting::Timeline
            | Setting::TimelineRanks
            | Setting::TimelineWindow => {
                return Err("is an output of simpi replay, not a setting of a sweep's points".into())
            }
            Setting::Noise => r.noise.trace = Some(path(t)?),
            Setting::NoiseCosched => r.noise.cosched = boolean(t)?,
            Setting::Seed => r.noise.seed = whole(t)?,
            Setting::Distributions => r.distributions = Some(path(t)?),
            Setting::Replications => return Err("a point of a sweep is one run: vary --seed to replicate it".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_both_ways() {
        for (i, k) in KEYS.iter().enumerate() {
            for other in &KEYS[i + 1..] {
                assert_ne!(k.name(), other.name());
                assert_ne!(k.keyword, other.keyword);
            }
            assert_eq!(find(k.flag), Some(k));
            assert_eq!(find(k.name()), Some(k));
            if k.keyword != "format" {
                assert_eq!(find(k.keyword), Some(k));
            }
        }
        assert_eq!(find("format"), None);
        assert_eq!(find("latency"), None);
        assert_eq!(find("or_").map(|k| k.flag), Some("--or"));
    }

    #[test]
    fn values_go_through_the_replay_parsers() {
        let mut p = Point::default();
        p.set(find("L").unwrap(), "1250").unwrap();
        p.set(find("bw-factor").unwrap(), "0:0.5").unwrap();
        assert_eq!(p.replay.loggops[0], 1250);
        assert!(p.replay.given.contains(&Setting::LatencyL));
        assert!(p.replay.given.contains(&Setting::BwFactor));
        let e = p.set(find("G").unwrap(), "-1").unwrap_err();
        assert!(e.starts_with("-G: '-1' is not a whole number"), "{e}");
        let e = p.set(find("bw-factor").unwrap(), "0:0").unwrap_err();
        assert!(e.starts_with("--bw-factor: "), "{e}");
        let e = p.set(find("model").unwrap(), "fast").unwrap_err();
        assert!(e.contains("is not a model"), "{e}");
        // periodic=false is no request.
        p.set(find("periodic").unwrap(), "false").unwrap();
        assert!(!p.replay.given.contains(&Setting::Periodic));
    }
}
