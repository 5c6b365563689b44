//! The settings of a Python replay. Each value arrives as the text a user would type
//! after the matching `simpi replay` flag and goes through the same parser
//! (`simpi::values`, the timeline's, the collective choice's); a combination the chosen
//! model or input would ignore is refused by the facade's check, the one `simpi replay`
//! runs (`simpi::settings`). Messages name the Python keyword (`speed: -1 is not a
//! positive finite number`).

use simpi::settings::{MappingKind, ModelName, Naming, PresetName, Setting, Syntax};
use simpi::timeline::{Filter, RankSet, Target, Window};
use simpi::values::{boolean, one_of, path, whole};
use simpi::{values, CollChoice, Format, PatternParams, ReplaySettings};
use std::collections::HashMap;

/// Every keyword the Python `replay` passes down in its settings map (`coll` comes as a
/// list of its own), so a misspelt one is an error here too.
pub const KEYS: [&str; 48] = [
    "pattern",
    "ranks",
    "bytes",
    "iterations",
    "compute",
    "periodic",
    "format",
    "model",
    "platform",
    "preset",
    "constant_time",
    "packet_preset",
    "mtu",
    "packet_buffer",
    "router_delay",
    "queues",
    "routing",
    "priority_up_to",
    "priority_limit",
    "protocol",
    "mapping",
    "ranks_per_host",
    "hostfile",
    "lat_factor",
    "bw_factor",
    "os",
    "or_",
    "async_small",
    "detached",
    "weight_s",
    "grow_injected_times",
    "L",
    "o",
    "g",
    "G",
    "O",
    "S",
    "time_unit",
    "coll_selector",
    "speed",
    "test_cost",
    "report",
    "timeline",
    "timeline_ranks",
    "timeline_window",
    "max_blocked_ranks",
    "distributions",
    "seed",
];

/// How messages name settings: by their keywords.
pub const NAMING: Naming = Naming {
    name: keyword,
    syntax: Syntax::Keywords,
};

/// A setting's keyword (the two the command line alone has are named as their flags
/// would be; Python never gives them).
fn keyword(s: Setting) -> &'static str {
    match s {
        Setting::Pattern => "pattern",
        Setting::Ranks => "ranks",
        Setting::Bytes => "bytes",
        Setting::Iterations => "iterations",
        Setting::Compute => "compute",
        Setting::Periodic => "periodic",
        Setting::InputFormat => "format",
        Setting::Model => "model",
        Setting::Platform => "platform",
        Setting::Preset => "preset",
        Setting::ConstantTime => "constant_time",
        Setting::Mapping => "mapping",
        Setting::RanksPerHost => "ranks_per_host",
        Setting::HostFile => "hostfile",
        Setting::LatFactor => "lat_factor",
        Setting::BwFactor => "bw_factor",
        Setting::Os => "os",
        Setting::Or => "or_",
        Setting::AsyncSmall => "async_small",
        Setting::Detached => "detached",
        Setting::WeightS => "weight_s",
        Setting::GrowInjectedTimes => "grow_injected_times",
        Setting::LatencyL => "L",
        Setting::OverheadO => "o",
        Setting::GapG => "g",
        Setting::GapPerByteG => "G",
        Setting::OverheadPerByteO => "O",
        Setting::EagerLimitS => "S",
        Setting::TimeUnit => "time_unit",
        Setting::Coll => "coll",
        Setting::CollSelector => "coll_selector",
        Setting::Speed => "speed",
        Setting::TestCost => "test_cost",
        Setting::Report => "report",
        Setting::OutputFormat => "output_format",
        Setting::Json => "json",
        Setting::Timeline => "timeline",
        Setting::TimelineRanks => "timeline_ranks",
        Setting::TimelineWindow => "timeline_window",
        Setting::PacketPreset => "packet_preset",
        Setting::Mtu => "mtu",
        Setting::PacketBuffer => "packet_buffer",
        Setting::RouterDelay => "router_delay",
        Setting::Queues => "queues",
        Setting::Routing => "routing",
        Setting::PriorityUpTo => "priority_up_to",
        Setting::PriorityLimit => "priority_limit",
        Setting::Protocol => "protocol",
        Setting::Noise => "noise",
        Setting::NoiseCosched => "noise_cosched",
        Setting::Seed => "seed",
        Setting::Replications => "replications",
        Setting::Distributions => "distributions",
    }
}

/// Everything a replay needs, parsed and checked.
pub struct Settings {
    /// The model, machine, input and output, as the facade checks them.
    pub replay: ReplaySettings,
    /// The pattern's parameters.
    pub params: PatternParams,
    /// Flop/s of a host without a platform.
    pub speed: f64,
    /// Seconds per MPI_Test of a trace.
    pub test_cost: f64,
    /// A timeline file to write.
    pub timeline: Option<Target>,
    /// Which part of the run the timeline shows.
    pub timeline_filter: Filter,
    /// Blocked ranks a stall report describes.
    pub max_blocked_ranks: usize,
}

/// Reads the settings map: unknown keywords, bad values and ignored combinations are
/// errors (a Python `ValueError`).
pub fn parse(source: Option<String>, given: HashMap<String, String>, coll: Vec<String>) -> Result<Settings, String> {
    let mut map: HashMap<&'static str, String> = HashMap::new();
    for (k, v) in given {
        let key: &'static str = KEYS
            .iter()
            .find(|&&known| known == k)
            .ok_or_else(|| format!("unknown setting {}", values::quote(&k)))?;
        map.insert(key, v);
    }
    let mut s = Settings {
        replay: ReplaySettings {
            source: source
                .as_deref()
                .map(path)
                .transpose()
                .map_err(|m| format!("source: {m}"))?,
            coll,
            // A replay's result always carries the breakdown unless `report=False`.
            report: true,
            ..ReplaySettings::default()
        },
        params: PatternParams::default(),
        speed: 1e9,
        test_cost: 1e-4,
        timeline: None,
        timeline_filter: Filter::default(),
        max_blocked_ranks: 20,
    };
    if !s.replay.coll.is_empty() {
        s.replay.given.insert(Setting::Coll);
    }
    // Each value through its parser; `key: message` on refusal.
    let mut take = |key: &'static str| map.remove(key).map(|v| (key, v));
    macro_rules! read {
        ($key:literal, $parse:expr, |$v:ident| $store:expr) => {
            if let Some((key, text)) = take($key) {
                let parsed = ($parse)(text.as_str()).map_err(|m: String| format!("{key}: {m}"))?;
                if let Some(setting) = Setting::ALL.into_iter().find(|s| keyword(*s) == key) {
                    s.replay.given.insert(setting);
                }
                let $v = parsed;
                $store;
            }
        };
    }
    read!("pattern", values::pattern, |v| s.replay.pattern = Some(v));
    read!("ranks", values::rank_count, |v| s.params.ranks = v);
    read!("bytes", whole, |v| s.params.bytes = v);
    read!("iterations", values::at_least_one, |v| s.params.iterations = v);
    read!("compute", whole, |v| s.params.compute = v);
    read!("periodic", boolean, |v| s.params.periodic = v);
    read!(
        "format",
        |t| one_of(
            t,
            &[
                ("goal", Format::Goal),
                ("tit", Format::Tit),
                ("otf2", Format::Otf2),
                ("liballprof", Format::Allprof),
                ("allprof", Format::Allprof),
                ("dumpi", Format::Dumpi)
            ]
        ),
        |v| s.replay.format = Some(v)
    );
    read!("model", ModelName::parse, |v| s.replay.model = Some(v));
    read!("platform", path, |v| s.replay.platform = Some(v));
    read!("preset", PresetName::parse, |v| s.replay.preset = v);
    read!("constant_time", values::duration, |v| s.replay.constant_time = v);
    let pk = &mut s.replay.packet;
    read!("packet_preset", values::packet_preset, |v| pk.preset = Some(v));
    read!("mtu", values::at_least_one, |v| pk.mtu = Some(v.into()));
    read!("packet_buffer", whole, |v| pk.buffer = Some(v));
    read!("router_delay", values::duration, |v| pk.router_delay = Some(v));
    read!("queues", values::queues, |v| pk.voq = Some(v));
    read!("routing", values::routing, |v| pk.routing = Some(v));
    read!("priority_up_to", whole, |v| pk.priority_up_to = Some(v));
    read!("priority_limit", values::priority_limit, |v| pk.priority_limit =
        Some(v));
    read!("protocol", values::host_protocol, |v| s.replay.protocol = v);
    read!(
        "mapping",
        |t| one_of(
            t,
            &[("block", MappingKind::Block), ("round-robin", MappingKind::RoundRobin)]
        ),
        |v| s.replay.mapping = v
    );
    read!("ranks_per_host", values::at_least_one, |v| s.replay.ranks_per_host = v);
    read!("hostfile", path, |v| s.replay.hostfile = Some(v));
    let c = &mut s.replay.changes;
    read!("lat_factor", values::lat_factors, |v| c.lat_factor = Some(v));
    read!("bw_factor", values::bw_factors, |v| c.bw_factor = Some(v));
    read!("os", values::overheads, |v| c.os = Some(v));
    read!("or_", values::overheads, |v| c.or = Some(v));
    read!("async_small", whole, |v| c.async_small = Some(v));
    read!("detached", whole, |v| c.detached = Some(v));
    read!("weight_s", values::non_negative, |v| c.weight_s = Some(v));
    read!("grow_injected_times", boolean, |v| c.grow_test_costs = Some(v));
    read!("L", whole, |v| s.replay.loggops[0] = v);
    read!("o", whole, |v| s.replay.loggops[1] = v);
    read!("g", whole, |v| s.replay.loggops[2] = v);
    read!("G", whole, |v| s.replay.loggops[3] = v);
    read!("O", whole, |v| s.replay.loggops[4] = v);
    read!("S", whole, |v| s.replay.loggops[5] = v);
    read!("time_unit", values::time_unit, |v| s.replay.time_unit = v);
    read!(
        "coll_selector",
        |t: &str| CollChoice::by_name(t).map(|_| t.to_string()),
        |v| s.replay.coll_selector = v
    );
    read!("speed", values::positive, |v| s.speed = v);
    read!("test_cost", values::clock_seconds, |v| s.test_cost = v);
    read!("report", boolean, |v| s.replay.report = v);
    read!("timeline", Target::parse, |v| s.timeline = Some(v));
    read!("timeline_ranks", RankSet::parse, |v| s.timeline_filter.ranks = Some(v));
    read!("timeline_window", Window::parse, |v| s.timeline_filter.window = Some(v));
    read!("distributions", path, |v| s.replay.distributions = Some(v));
    read!("seed", whole, |v| s.replay.noise.seed = v);
    read!("max_blocked_ranks", whole, |v| s.max_blocked_ranks =
        v.min(usize::MAX as u64) as usize);
    debug_assert!(map.is_empty(), "every known keyword is read");
    // `periodic=False` is the default, not a request.
    if !s.params.periodic {
        s.replay.given.remove(&Setting::Periodic);
    }
    s.replay.check(NAMING)?;
    // Overrides are checked now, so a bad one is refused before anything is read.
    s.replay.collectives(NAMING)?;
    Ok(s)
}
