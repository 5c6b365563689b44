//! The one check of a replay's settings and the model it builds: the same refusal in
//! either front end's words, and each model's spec from the settings that shape it.

use simpi::settings::{HostProtocol, MappingKind, ModelName, Naming, Output, PresetName, Setting, Syntax};
use simpi::{MappingSpec, ModelSpec, Pattern, Piecewise, Preset, ReplaySettings, SimTime, TimeUnit};
use std::path::PathBuf;

/// Flags spelt as a command line would (only the settings the cases below name).
fn flag(s: Setting) -> &'static str {
    match s {
        Setting::Model => "--model",
        Setting::Platform => "--platform",
        Setting::Pattern => "--pattern",
        Setting::Periodic => "--periodic",
        Setting::Preset => "--preset",
        Setting::Mapping => "--mapping",
        Setting::RanksPerHost => "--ranks-per-host",
        Setting::InputFormat => "--input",
        Setting::Report => "--report",
        Setting::Json => "--json",
        Setting::OutputFormat => "--format",
        Setting::LatencyL => "-L",
        Setting::OverheadO => "-o",
        Setting::GapG => "-g",
        Setting::GapPerByteG => "-G",
        Setting::OverheadPerByteO => "-O",
        Setting::EagerLimitS => "-S",
        Setting::Mtu => "--mtu",
        Setting::Protocol => "--protocol",
        Setting::Os => "--os",
        Setting::Seed => "--seed",
        Setting::Routing => "--routing",
        _ => "--other",
    }
}

/// Keywords as a Python call would spell them: the flag without its dashes, but for two.
fn keyword(s: Setting) -> &'static str {
    match s {
        Setting::RanksPerHost => "ranks_per_host",
        Setting::InputFormat => "format",
        other => flag(other).trim_start_matches('-'),
    }
}

const FLAGS: Naming = Naming {
    name: flag,
    syntax: Syntax::Flags,
};
const KEYWORDS: Naming = Naming {
    name: keyword,
    syntax: Syntax::Keywords,
};

fn goal() -> ReplaySettings {
    ReplaySettings {
        source: Some(PathBuf::from("x.goal")),
        format: Some(simpi::Format::Goal),
        ..ReplaySettings::default()
    }
}

fn with(mut s: ReplaySettings, given: &[Setting]) -> ReplaySettings {
    s.given.extend(given.iter().copied());
    s
}

/// Both front ends' refusal of `s`.
fn refusals(s: &ReplaySettings) -> (String, String) {
    (s.check(FLAGS).unwrap_err(), s.check(KEYWORDS).unwrap_err())
}

#[test]
fn a_refusal_speaks_each_front_ends_syntax() {
    let mut s = goal();
    s.model = Some(ModelName::Flow);
    assert_eq!(
        refusals(&s),
        (
            "--model flow needs --platform FILE".to_string(),
            "model='flow' needs platform=FILE".to_string()
        )
    );
    let s = with(goal(), &[Setting::Preset]);
    assert_eq!(
        refusals(&s),
        (
            "--preset is a setting of SMPI's protocol: --model loggops uses LogGOPS (-L -o -g -G -O -S) instead"
                .to_string(),
            "preset is a setting of SMPI's protocol: model='loggops' uses LogGOPS (L, o, g, G, O, S) instead"
                .to_string()
        )
    );
    let mut s = with(goal(), &[Setting::RanksPerHost]);
    s.platform = Some(PathBuf::from("p.xml"));
    s.mapping = MappingKind::RoundRobin;
    assert_eq!(
        refusals(&s),
        (
            "--ranks-per-host is for --mapping block".to_string(),
            "ranks_per_host is for mapping='block'".to_string()
        )
    );
}

#[test]
fn defaults_that_were_not_typed_are_not_refused() {
    // The same values given explicitly are refused: only `given` tells them apart.
    let mut s = goal();
    s.platform = Some(PathBuf::from("p.xml"));
    assert_eq!(s.model(), ModelName::Hybrid);
    assert_eq!(s.check(FLAGS), Ok(()));
    let s = with(s, &[Setting::LatencyL]);
    assert_eq!(
        s.check(FLAGS).unwrap_err(),
        "-L is a LogGOPS parameter: --model hybrid does not use it"
    );
}

#[test]
fn input_and_output_settings_are_checked() {
    let pattern = |p| ReplaySettings {
        pattern: Some(p),
        ..ReplaySettings::default()
    };
    let s = with(pattern(Pattern::RecursiveDoublingAllreduce), &[Setting::Periodic]);
    assert_eq!(s.check(KEYWORDS).unwrap_err(), "periodic is for pattern='stencil3d'");
    assert_eq!(
        with(pattern(Pattern::Stencil3d), &[Setting::Periodic]).check(KEYWORDS),
        Ok(())
    );
    let mut s = with(pattern(Pattern::RecursiveDoublingAllreduce), &[Setting::InputFormat]);
    s.format = Some(simpi::Format::Goal);
    assert_eq!(
        s.check(FLAGS).unwrap_err(),
        "--input is the format of a file: a pattern has none"
    );
    let mut s = goal();
    s.report = true;
    assert_eq!(s.check(FLAGS), Ok(()));
    s.output = Output::Json;
    assert_eq!(
        s.check(FLAGS).unwrap_err(),
        "--report prints with the human format: drop --json or --format loggopsim"
    );
    let both = ReplaySettings {
        pattern: Some(Pattern::RecursiveDoublingAllreduce),
        ..goal()
    };
    assert_eq!(
        both.check(KEYWORDS).unwrap_err(),
        "give a file to replay or a pattern, not both"
    );
    assert_eq!(
        ReplaySettings::default().check(KEYWORDS).unwrap_err(),
        "nothing to replay: give a file or pattern=NAME"
    );
}

#[test]
fn loggops_takes_its_parameters_and_unit() {
    let s = ReplaySettings {
        loggops: [1, 2, 3, 4, 5, 6],
        time_unit: TimeUnit::Us,
        ..goal()
    };
    match s.model_spec().unwrap() {
        ModelSpec::LogGops { params, unit } => {
            assert_eq!(params, [1, 2, 3, 4, 5, 6]);
            assert_eq!(unit, TimeUnit::Us);
        }
        other => panic!("expected LogGOPS, got {other:?}"),
    }
}

#[test]
fn the_flow_model_ignores_the_preset_name_and_keeps_changes() {
    let mut s = goal();
    s.platform = Some(PathBuf::from("p.xml"));
    s.model = Some(ModelName::Flow);
    s.preset = PresetName::Smpi;
    s.changes.detached = Some(1 << 20);
    s.hostfile = Some(PathBuf::from("hosts"));
    match s.model_spec().unwrap() {
        ModelSpec::Flow {
            platform,
            mapping,
            preset,
        } => {
            assert_eq!(platform, PathBuf::from("p.xml"));
            assert!(matches!(mapping, MappingSpec::HostFile(f) if f == std::path::Path::new("hosts")));
            let mut want = Preset::flow();
            want.protocol.detached = 1 << 20;
            assert_eq!(preset, want);
        }
        other => panic!("expected flow, got {other:?}"),
    }
    // Without a host file, the mapping and ranks per host.
    s.hostfile = None;
    s.model = Some(ModelName::Hybrid);
    s.preset = PresetName::Plain;
    s.ranks_per_host = 3;
    match s.model_spec().unwrap() {
        ModelSpec::Flow { mapping, preset, .. } => {
            assert!(matches!(mapping, MappingSpec::Block { per_host: 3 }));
            let mut want = Preset::plain();
            want.protocol.detached = 1 << 20;
            assert_eq!(preset, want);
        }
        other => panic!("expected flow, got {other:?}"),
    }
    s.mapping = MappingKind::RoundRobin;
    assert!(matches!(
        s.model_spec().unwrap(),
        ModelSpec::Flow {
            mapping: MappingSpec::RoundRobin,
            ..
        }
    ));
}

#[test]
fn the_constant_model_keeps_the_protocol_but_no_factors() {
    let mut s = goal();
    s.model = Some(ModelName::Constant);
    s.constant_time = SimTime(7_000_000);
    s.changes.lat_factor = Some(Piecewise::parse("0:3").unwrap());
    match s.model_spec().unwrap() {
        ModelSpec::Constant { time, preset } => {
            assert_eq!(time, SimTime(7_000_000));
            // SMPI's protocol; the network's factors, the user's change among them, dropped.
            assert_eq!(preset.protocol, Preset::smpi().protocol);
            assert_eq!(preset.network, simpi::FlowParams::plain());
        }
        other => panic!("expected constant, got {other:?}"),
    }
}

#[test]
fn a_contradictory_protocol_is_a_setting_error() {
    let mut s = goal();
    s.model = Some(ModelName::Constant);
    s.changes.async_small = Some(10);
    s.changes.detached = Some(5);
    let e = s.model_spec().unwrap_err();
    assert!(matches!(e, simpi::Error::Setting(_)), "{e}");
}

#[test]
fn model_names_round_trip_and_others_are_refused() {
    for m in ModelName::ALL {
        assert_eq!(ModelName::parse(m.name()), Ok(m));
    }
    assert_eq!(
        ModelName::parse("fast").unwrap_err(),
        "'fast' is not a model: expected loggops, flow, hybrid, constant, packet or stochastic"
    );
}

#[test]
fn packet_settings_are_refused_where_the_model_would_ignore_them() {
    let mut s = goal();
    s.platform = Some(PathBuf::from("p.toml"));
    s.model = Some(ModelName::Flow);
    let s = with(s, &[Setting::Model, Setting::Platform, Setting::Mtu]);
    assert_eq!(refusals(&s).0, "--mtu is for --model packet, not --model flow");
    // The packet model with LogGOPS's host costs: o, g, G, O, S apply; L (the network
    // takes its place) and SMPI's protocol settings do not.
    let mut p = goal();
    p.platform = Some(PathBuf::from("p.toml"));
    p.model = Some(ModelName::Packet);
    p.protocol = HostProtocol::Loggops;
    let base = [Setting::Model, Setting::Platform, Setting::Protocol];
    assert_eq!(
        with(p.clone(), &[&base[..], &[Setting::OverheadO, Setting::Mtu]].concat()).check(FLAGS),
        Ok(())
    );
    let l = with(p.clone(), &[&base[..], &[Setting::LatencyL]].concat());
    assert_eq!(
        refusals(&l).0,
        "-L is LogGOPS's network latency: over --model packet the network takes its place"
    );
    let os = with(p.clone(), &[&base[..], &[Setting::Os]].concat());
    assert!(refusals(&os)
        .0
        .starts_with("--os is a setting of SMPI's protocol: --protocol loggops"));
    // Under SMPI's protocol (the default) LogGOPS's parameters are refused.
    p.protocol = HostProtocol::Smpi;
    let o = with(p, &[Setting::Model, Setting::Platform, Setting::OverheadO]);
    assert_eq!(
        refusals(&o).0,
        "-o is a LogGOPS parameter: --model packet does not use it"
    );
}

#[test]
fn the_seed_draws_the_packet_models_detours_and_only_with_detours() {
    let mut p = goal();
    p.platform = Some(PathBuf::from("p.toml"));
    p.model = Some(ModelName::Packet);
    let base = [Setting::Model, Setting::Platform, Setting::Seed];
    // Without detours, a seed would draw nothing.
    assert_eq!(
        refusals(&with(p.clone(), &base)).0,
        "--seed draws the detours of --routing valiant, --routing ugal or --routing adaptive (on a dragonfly): give one of them"
    );
    for r in [simpi::Routing::Valiant, simpi::Routing::Ugal, simpi::Routing::Adaptive] {
        p.packet.routing = Some(r);
        p.noise.seed = 42;
        let s = with(p.clone(), &[&base[..], &[Setting::Routing]].concat());
        assert_eq!(s.check(FLAGS), Ok(()));
        match s.model_spec().unwrap() {
            ModelSpec::Packet { params, .. } => assert_eq!((params.routing, params.seed), (r, 42)),
            other => panic!("expected packet, got {other:?}"),
        }
    }
    // Routing is the packet model's.
    p.model = Some(ModelName::Flow);
    let f = with(p, &[Setting::Model, Setting::Platform, Setting::Routing]);
    assert_eq!(refusals(&f).0, "--routing is for --model packet, not --model flow");
}
