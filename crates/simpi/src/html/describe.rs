//! The report's words for the run's input and model, from the settings a front end
//! checked ([`ReplaySettings`]).

use crate::settings::{HostProtocol, MappingKind, ModelName, Naming, PresetName, ReplaySettings, Setting};
use crate::setup::{ModelSpec, PacketHosts};
use crate::{Format, Pattern, PatternParams, TimeUnit};

/// Settings that change a preset, named when given.
const CHANGES: [Setting; 8] = [
    Setting::LatFactor,
    Setting::BwFactor,
    Setting::Os,
    Setting::Or,
    Setting::AsyncSmall,
    Setting::Detached,
    Setting::WeightS,
    Setting::GrowInjectedTimes,
];

/// A generated pattern and its parameters (compute in `unit`s).
pub fn pattern(p: Pattern, params: &PatternParams, unit: TimeUnit) -> String {
    let plural = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let mut s = format!(
        "pattern {}: {}, {}, {}",
        p.name(),
        plural(params.ranks.into(), "rank"),
        plural(params.bytes, "byte"),
        plural(params.iterations.into(), "iteration")
    );
    if params.compute > 0 {
        s.push_str(&format!(", compute {} {}", params.compute, unit.name()));
    }
    if params.periodic {
        s.push_str(", periodic");
    }
    s
}

/// The model of `s` and the settings that make it, with settings named as `naming`
/// names them.
pub fn model(s: &ReplaySettings, naming: Naming) -> String {
    let preset = match &s.preset {
        PresetName::Smpi => "SMPI's preset".to_string(),
        PresetName::Plain => "the plain preset".to_string(),
        PresetName::File(p) => format!("the preset of {}", p.display()),
    };
    let platform = || match &s.platform {
        Some(p) => {
            let mapping = match (&s.hostfile, s.mapping) {
                (Some(h), _) => format!("ranks placed by {}", h.display()),
                (None, MappingKind::Block) => format!("{} rank(s) per host, in order", s.ranks_per_host),
                (None, MappingKind::RoundRobin) => "ranks round-robin over the hosts".to_string(),
            };
            format!("platform {}, {mapping}", p.display())
        }
        None => "no platform".to_string(),
    };
    // LogGOPS's parameters as the run took them: a preset file's `[loggops]`, each
    // replaced by the one given on the line.
    let loggops = || {
        let (params, unit) = match s.model_spec() {
            Ok(ModelSpec::LogGops { params, unit }) => (params, unit),
            Ok(ModelSpec::Packet {
                hosts: PacketHosts::LogGops { params, unit },
                ..
            }) => (params, unit),
            _ => (s.loggops, s.time_unit),
        };
        let [l, o, g, big_g, big_o, eager] = params;
        format!(
            "L {l}, o {o}, g {g}, G {big_g}, O {big_o} {}; eager up to {eager} bytes",
            unit.name()
        )
    };
    let mut out = match s.model() {
        ModelName::Loggops => format!("loggops (LogGOPSim's rules): {}", loggops()),
        ModelName::Flow => format!("flow (max-min sharing, no factors or overheads); {}", platform()),
        ModelName::Hybrid => format!("hybrid (SMPI's model) with {preset}; {}", platform()),
        ModelName::Constant => format!(
            "constant: every message takes {}, SMPI's protocol from {preset}",
            s.constant_time
        ),
        ModelName::Packet => match s.packet.params(s.noise.seed) {
            Ok(p) => format!(
                "packet ({} preset: {}-byte packets, {}, routers {}, {}, {} routing{}) with {}; {}",
                s.packet.preset.as_deref().unwrap_or("generic"),
                p.mtu,
                match p.buffer {
                    0 => "buffers sized to each link's round trip".to_string(),
                    b => format!("{b}-byte buffers"),
                },
                p.router_delay,
                if p.voq { "virtual output queues" } else { "FIFO inputs" },
                p.routing.name(),
                match p.priority {
                    None => String::new(),
                    Some(q) => format!(
                        ", messages up to {} bytes on a high-priority lane{}",
                        q.up_to,
                        match q.limit {
                            u64::MAX => String::new(),
                            l => format!(" ({l} bytes in a row while a low packet waits)"),
                        }
                    ),
                },
                match s.protocol {
                    HostProtocol::Smpi => format!("SMPI's protocol from {preset}"),
                    HostProtocol::Loggops => format!("LogGOPS's host costs ({})", loggops()),
                },
                platform()
            ),
            Err(e) => format!("packet ({e})"),
        },
        ModelName::Stochastic => format!(
            "stochastic (message times drawn from {}, seed {}); contention counted {}",
            s.distributions
                .as_ref()
                .map_or_else(|| "?".into(), |d| d.display().to_string()),
            s.noise.seed,
            match s.platform {
                Some(_) => format!("on the busiest link of each route; {}", platform()),
                None => "over every message in flight".to_string(),
            }
        ),
    };
    let changed: Vec<&str> = CHANGES
        .into_iter()
        .filter(|c| s.given.contains(c))
        .map(|c| (naming.name)(c))
        .collect();
    if !changed.is_empty() {
        out.push_str(&format!("; changed: {}", changed.join(", ")));
    }
    let trace = match (&s.source, s.format) {
        (_, Some(f)) => f.is_trace(),
        (Some(f), None) => Format::detect(f).is_trace(),
        (None, None) => false,
    };
    if trace {
        out.push_str(&format!("; collectives: {}'s choices", s.coll_selector));
        if !s.coll.is_empty() {
            out.push_str(&format!(" except {}", s.coll.join(", ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const FLAGS: Naming = Naming {
        name: |s| match s {
            Setting::Os => "--os",
            _ => "--other",
        },
        syntax: crate::settings::Syntax::Flags,
    };

    #[test]
    fn models_name_their_parameters() {
        let s = ReplaySettings::default();
        assert_eq!(
            model(&s, FLAGS),
            "loggops (LogGOPSim's rules): L 2500, o 1500, g 1000, G 6, O 0 ns; eager up to 65535 bytes"
        );
        let mut s = ReplaySettings {
            platform: Some(PathBuf::from("p.xml")),
            hostfile: Some(PathBuf::from("hosts")),
            source: Some(PathBuf::from("trace.txt")),
            format: Some(Format::Tit),
            coll: vec!["allreduce=rdb".into()],
            ..ReplaySettings::default()
        };
        s.given.insert(Setting::Os);
        assert_eq!(
            model(&s, FLAGS),
            "hybrid (SMPI's model) with SMPI's preset; platform p.xml, ranks placed by hosts; changed: --os; \
             collectives: ompi's choices except allreduce=rdb"
        );
    }

    #[test]
    fn loggops_parameters_are_those_the_run_took() {
        // A preset file's [loggops] (L = 1.517708e-4 s, ...), G given on the line.
        let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/testbed-100Mbps.preset.toml");
        let mut s = ReplaySettings {
            preset: PresetName::File(file),
            ..ReplaySettings::default()
        };
        s.loggops[3] = 7;
        s.given.insert(Setting::GapPerByteG);
        assert_eq!(
            model(&s, FLAGS),
            "loggops (LogGOPSim's rules): L 151770800, o 5071553, g 5239763, G 7000, O 1307 ps; eager up to 65480 bytes"
        );
        // The packet model names its preset, routing and what its hosts do.
        let s = ReplaySettings {
            model: Some(ModelName::Packet),
            platform: Some(PathBuf::from("ft.toml")),
            protocol: HostProtocol::Loggops,
            packet: crate::setup::PacketChanges {
                routing: Some(simpi_net::Routing::Adaptive),
                ..Default::default()
            },
            ..ReplaySettings::default()
        };
        let d = model(&s, FLAGS);
        assert!(d.starts_with("packet (generic preset: "), "{d}");
        assert!(d.contains(", adaptive routing) with LogGOPS's host costs (L 2500, o 1500, g 1000, G 6, O 0 ns; eager up to 65535 bytes)"), "{d}");
    }

    #[test]
    fn patterns_give_their_parameters() {
        let params = PatternParams {
            ranks: 1024,
            bytes: 8,
            iterations: 1,
            compute: 0,
            periodic: false,
        };
        assert_eq!(
            pattern(Pattern::from_name("rd-allreduce").unwrap(), &params, TimeUnit::Ns),
            "pattern rd-allreduce: 1024 ranks, 8 bytes, 1 iteration"
        );
    }
}
