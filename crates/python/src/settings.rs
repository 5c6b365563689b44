//! The settings of a Python replay. Each value arrives as the text a user would type
//! after the matching `simpi replay` flag and goes through the same parser
//! (`simpi::values`, the timeline's, the collective choice's); a combination the chosen
//! model or input would ignore is refused as `simpi replay` refuses it. Messages name
//! the Python keyword (`speed: -1 is not a positive finite number`).

use simpi::timeline::{Filter, RankSet, Target, Window};
use simpi::{values, CollChoice, Format, MappingSpec, ModelSpec, Pattern, PatternParams, Preset, PresetChanges};
use simpi::{SimTime, TimeUnit};
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

/// The network models, as `model=` names them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ModelName {
    /// LogGOPS with LogGOPSim's semantics.
    Loggops,
    /// Flows over a platform, no factors.
    Flow,
    /// SMPI's hybrid model over a platform.
    Hybrid,
    /// Every message takes the same time.
    Constant,
}

impl ModelName {
    fn parse(s: &str) -> Result<ModelName, String> {
        match s {
            "loggops" => Ok(ModelName::Loggops),
            "flow" => Ok(ModelName::Flow),
            "hybrid" => Ok(ModelName::Hybrid),
            "constant" => Ok(ModelName::Constant),
            _ => Err(format!(
                "{} is not a model: expected loggops, flow, hybrid or constant",
                values::quote(s)
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            ModelName::Loggops => "loggops",
            ModelName::Flow => "flow",
            ModelName::Hybrid => "hybrid",
            ModelName::Constant => "constant",
        }
    }
}

/// Every keyword the Python `replay` passes down in its settings map (`coll` comes as a
/// list of its own), so a misspelt one is an error here too.
pub const KEYS: [&str; 37] = [
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
];

/// A whole number of the flag's type, as clap's integer parser reads it.
fn whole(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| format!("{} is not a whole number between 0 and {}", values::quote(s), u64::MAX))
}

fn boolean(s: &str) -> Result<bool, String> {
    match s {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{} is not true or false", values::quote(s))),
    }
}

fn path(s: &str) -> Result<PathBuf, String> {
    if s.is_empty() {
        Err("an empty path names no file".into())
    } else {
        Ok(PathBuf::from(s))
    }
}

fn one_of<T: Copy>(s: &str, names: &[(&str, T)]) -> Result<T, String> {
    names.iter().find(|(n, _)| *n == s).map(|(_, v)| *v).ok_or_else(|| {
        let all: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
        format!("{} is not one of {}", values::quote(s), all.join(", "))
    })
}

/// Ranks on hosts, as `mapping=` names them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum MappingKind {
    Block,
    RoundRobin,
}

/// Everything a replay needs, parsed and checked.
pub struct Settings {
    /// The file to replay (none for a pattern).
    pub source: Option<PathBuf>,
    /// The pattern to generate in the process.
    pub pattern: Option<Pattern>,
    /// The pattern's parameters.
    pub params: PatternParams,
    /// Input format (none: detected).
    pub format: Option<Format>,
    /// The model.
    pub model: ModelName,
    /// Platform file of the flow models.
    pub platform: Option<PathBuf>,
    preset_smpi: bool,
    constant_time: SimTime,
    mapping: MappingKind,
    ranks_per_host: u32,
    hostfile: Option<PathBuf>,
    changes: PresetChanges,
    loggops: [u64; 6],
    /// Unit of GOAL times, LogGOPS parameters and a pattern's compute.
    pub time_unit: TimeUnit,
    /// `op=algo` overrides.
    pub coll: Vec<String>,
    coll_selector: String,
    /// Flop/s of a host without a platform.
    pub speed: f64,
    /// Seconds per MPI_Test of a trace.
    pub test_cost: f64,
    /// Record operation times for the breakdown and the call table.
    pub report: bool,
    /// A timeline file to write.
    pub timeline: Option<Target>,
    /// Which part of the run the timeline shows.
    pub timeline_filter: Filter,
    /// Blocked ranks a stall report describes.
    pub max_blocked_ranks: usize,
    given: BTreeSet<&'static str>,
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
        source: source
            .as_deref()
            .map(path)
            .transpose()
            .map_err(|m| format!("source: {m}"))?,
        pattern: None,
        params: PatternParams {
            ranks: 8,
            bytes: 8,
            iterations: 1,
            compute: 0,
            periodic: false,
        },
        format: None,
        model: ModelName::Loggops,
        platform: None,
        preset_smpi: true,
        constant_time: SimTime::from_secs_f64(1.0),
        mapping: MappingKind::Block,
        ranks_per_host: 1,
        hostfile: None,
        changes: PresetChanges::default(),
        loggops: [2500, 1500, 1000, 6, 0, 65535],
        time_unit: TimeUnit::Ns,
        coll,
        coll_selector: "ompi".into(),
        speed: 1e9,
        test_cost: 1e-4,
        report: true,
        timeline: None,
        timeline_filter: Filter::default(),
        max_blocked_ranks: 20,
        given: BTreeSet::new(),
    };
    if !s.coll.is_empty() {
        s.given.insert("coll");
    }
    let mut model = None;
    // Each value through its parser; `key: message` on refusal.
    let mut take = |key: &'static str| map.remove(key).map(|v| (key, v));
    macro_rules! read {
        ($key:literal, $parse:expr, |$v:ident| $store:expr) => {
            if let Some((key, text)) = take($key) {
                let parsed = ($parse)(text.as_str()).map_err(|m: String| format!("{key}: {m}"))?;
                s.given.insert(key);
                let $v = parsed;
                $store;
            }
        };
    }
    read!("pattern", values::pattern, |v| s.pattern = Some(v));
    read!("ranks", values::rank_count, |v| s.params.ranks = v);
    read!("bytes", whole, |v| s.params.bytes = v);
    read!("iterations", values::at_least_one, |v| s.params.iterations = v);
    read!("compute", whole, |v| s.params.compute = v);
    read!("periodic", boolean, |v| s.params.periodic = v);
    read!(
        "format",
        |t| one_of(t, &[("goal", Format::Goal), ("tit", Format::Tit)]),
        |v| s.format = Some(v)
    );
    read!("model", ModelName::parse, |v| model = Some(v));
    read!("platform", path, |v| s.platform = Some(v));
    read!("preset", |t| one_of(t, &[("smpi", true), ("plain", false)]), |v| s
        .preset_smpi =
        v);
    read!("constant_time", values::duration, |v| s.constant_time = v);
    read!(
        "mapping",
        |t| one_of(
            t,
            &[("block", MappingKind::Block), ("round-robin", MappingKind::RoundRobin)]
        ),
        |v| s.mapping = v
    );
    read!("ranks_per_host", values::at_least_one, |v| s.ranks_per_host = v);
    read!("hostfile", path, |v| s.hostfile = Some(v));
    read!("lat_factor", values::lat_factors, |v| s.changes.lat_factor = Some(v));
    read!("bw_factor", values::bw_factors, |v| s.changes.bw_factor = Some(v));
    read!("os", values::overheads, |v| s.changes.os = Some(v));
    read!("or_", values::overheads, |v| s.changes.or = Some(v));
    read!("async_small", whole, |v| s.changes.async_small = Some(v));
    read!("detached", whole, |v| s.changes.detached = Some(v));
    read!("weight_s", values::non_negative, |v| s.changes.weight_s = Some(v));
    read!("grow_injected_times", boolean, |v| s.changes.grow_test_costs = Some(v));
    read!("L", whole, |v| s.loggops[0] = v);
    read!("o", whole, |v| s.loggops[1] = v);
    read!("g", whole, |v| s.loggops[2] = v);
    read!("G", whole, |v| s.loggops[3] = v);
    read!("O", whole, |v| s.loggops[4] = v);
    read!("S", whole, |v| s.loggops[5] = v);
    read!("time_unit", values::time_unit, |v| s.time_unit = v);
    read!(
        "coll_selector",
        |t: &str| CollChoice::by_name(t).map(|_| t.to_string()),
        |v| s.coll_selector = v
    );
    read!("speed", values::positive, |v| s.speed = v);
    read!("test_cost", values::clock_seconds, |v| s.test_cost = v);
    read!("report", boolean, |v| s.report = v);
    read!("timeline", Target::parse, |v| s.timeline = Some(v));
    read!("timeline_ranks", RankSet::parse, |v| s.timeline_filter.ranks = Some(v));
    read!("timeline_window", Window::parse, |v| s.timeline_filter.window = Some(v));
    read!("max_blocked_ranks", whole, |v| s.max_blocked_ranks =
        v.min(usize::MAX as u64) as usize);
    debug_assert!(map.is_empty(), "every known keyword is read");
    // `periodic=False` is the default, not a request.
    if !s.params.periodic {
        s.given.remove("periodic");
    }
    // The default model: SMPI's hybrid model on a platform, LogGOPS without one.
    s.model = model.unwrap_or(if s.platform.is_some() {
        ModelName::Hybrid
    } else {
        ModelName::Loggops
    });
    s.check()?;
    // Overrides are checked now, so a bad one is refused before anything is read.
    s.collectives()?;
    Ok(s)
}

impl Settings {
    fn given(&self, key: &str) -> bool {
        self.given.contains(key)
    }

    /// The collective choice: the selector, then the overrides.
    pub fn collectives(&self) -> Result<CollChoice, String> {
        let mut c = CollChoice::by_name(&self.coll_selector).map_err(|e| format!("coll_selector: {e}"))?;
        for o in &self.coll {
            c.add_override(o).map_err(|e| format!("coll: {e}"))?;
        }
        Ok(c)
    }

    /// Refuses what the chosen model, input or output would ignore (as `simpi replay`'s
    /// `check_flags`, in the keywords' names).
    fn check(&self) -> Result<(), String> {
        let model = self.model.name();
        match (&self.source, self.pattern) {
            (Some(_), Some(_)) => return Err("give a file to replay or a pattern, not both".into()),
            (None, None) => return Err("nothing to replay: give a file or pattern=NAME".into()),
            _ => {}
        }
        if self.pattern.is_none() {
            for key in ["ranks", "bytes", "iterations", "compute", "periodic"] {
                if self.given(key) {
                    return Err(format!("{key} is a pattern parameter: it needs pattern=NAME"));
                }
            }
        }
        if self.timeline.is_none() {
            for key in ["timeline_ranks", "timeline_window"] {
                if self.given(key) {
                    return Err(format!("{key} selects what timeline=FILE shows: give timeline too"));
                }
            }
        }
        let flow_like = matches!(self.model, ModelName::Flow | ModelName::Hybrid);
        match (&self.platform, self.model) {
            (None, ModelName::Loggops | ModelName::Constant) | (Some(_), ModelName::Flow | ModelName::Hybrid) => {}
            (Some(_), ModelName::Constant) => return Err("the constant model needs no platform".into()),
            (Some(_), ModelName::Loggops) => {
                return Err("platform is used by the flow and hybrid models: add model='flow' or model='hybrid'".into())
            }
            (None, _) => return Err(format!("model='{model}' needs platform=FILE")),
        }
        for key in ["L", "o", "g", "G", "O", "S"] {
            if self.given(key) && self.model != ModelName::Loggops {
                return Err(format!("{key} is a LogGOPS parameter: model='{model}' does not use it"));
            }
        }
        for key in [
            "mapping",
            "ranks_per_host",
            "hostfile",
            "lat_factor",
            "bw_factor",
            "weight_s",
        ] {
            if self.given(key) && !flow_like {
                return Err(format!(
                    "{key} is used by the flow and hybrid models, not by model='{model}'"
                ));
            }
        }
        for key in ["os", "or_", "async_small", "detached", "grow_injected_times", "preset"] {
            if self.given(key) && self.model == ModelName::Loggops {
                return Err(format!(
                    "{key} is a setting of SMPI's protocol: model='loggops' uses LogGOPS (L, o, g, G, O, S) instead"
                ));
            }
        }
        if self.given("preset") && self.model == ModelName::Flow {
            return Err(
                "model='flow' has its own settings (no factors, no overheads): preset is for model='hybrid' or 'constant'"
                    .into(),
            );
        }
        if self.given("constant_time") && self.model != ModelName::Constant {
            return Err(format!("constant_time is for model='constant', not model='{model}'"));
        }
        if self.hostfile.is_some() && (self.given("mapping") || self.given("ranks_per_host")) {
            return Err("hostfile places the ranks itself: drop mapping and ranks_per_host".into());
        }
        if self.given("ranks_per_host") && self.mapping == MappingKind::RoundRobin {
            return Err("ranks_per_host is for mapping='block'".into());
        }
        // Settings that only traces read (GOAL schedules and patterns have their operations).
        let tit = match (&self.source, self.format) {
            (_, Some(f)) => f == Format::Tit,
            (None, None) => false,
            (Some(f), None) => Format::detect(f) == Format::Tit,
        };
        for key in ["coll", "coll_selector", "speed", "test_cost", "grow_injected_times"] {
            if self.given(key) && !tit {
                let what = if self.pattern.is_some() {
                    "a pattern"
                } else {
                    "a GOAL schedule"
                };
                return Err(format!(
                    "{key} applies to TIT traces; {what} has its operations already"
                ));
            }
        }
        if self.given("format") && self.pattern.is_some() {
            return Err("format is the format of a file: a pattern has none".into());
        }
        if self.given("speed") && self.platform.is_some() {
            return Err("speed is the host speed without a platform: the platform's hosts have their own".into());
        }
        if self.given("periodic") && self.pattern != Some(Pattern::Stencil3d) {
            return Err("periodic is for pattern='stencil3d'".into());
        }
        Ok(())
    }

    /// The model the settings describe (as `simpi replay`'s `model_spec`).
    pub fn model_spec(&self) -> Result<ModelSpec, simpi::Error> {
        let base = match (self.model, self.preset_smpi) {
            (ModelName::Flow, _) => Preset::flow(),
            (_, true) => Preset::smpi(),
            (_, false) => Preset::plain(),
        };
        let preset = || self.changes.apply(base.clone());
        Ok(match (self.model, &self.platform) {
            (ModelName::Loggops, _) => ModelSpec::LogGops {
                params: self.loggops,
                unit: self.time_unit,
            },
            (ModelName::Constant, _) => ModelSpec::Constant {
                time: self.constant_time,
                preset: simpi::setup::constant_preset(preset()?),
            },
            (_, Some(platform)) => ModelSpec::Flow {
                platform: platform.clone(),
                mapping: match (&self.hostfile, self.mapping) {
                    (Some(f), _) => MappingSpec::HostFile(f.clone()),
                    (None, MappingKind::Block) => MappingSpec::Block {
                        per_host: self.ranks_per_host,
                    },
                    (None, MappingKind::RoundRobin) => MappingSpec::RoundRobin,
                },
                preset: preset()?,
            },
            (_, None) => return Err(simpi::Error::Setting("the flow models need a platform".into())),
        })
    }
}
