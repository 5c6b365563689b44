//! Preset files: a hybrid-model preset (SMPI's protocol and the flow network's
//! factors), LogGOPS parameters for GOAL replay and the measured host speed, as
//! `simpi calibrate` writes them and `--preset FILE` reads them. A TOML file:
//!
//! ```toml
//! [protocol]                    # simpi_mpi::Protocol; piece-wise strings in SimGrid syntax
//! os = "0:2.1e-05:1.2e-09"      # send overhead a + b*size seconds, by size segment
//! or = "0:1.8e-05:9.0e-10"      # receive overhead
//! async_small = 65536           # below: the message flows before its receive is posted
//! detached = 65536              # below: the sender goes on after os (rendezvous above)
//! envelope = 0                  # bytes added to every message
//! grow_test_costs = true        # SMPI's smpi/grow-injected-times
//! cpu_overheads = true          # optional; os, or and tests are CPU work (shared CPUs)
//! busy_wait = 0.4               # optional (0); a waiting rank's claim on shared CPUs, 0-1
//! stack_per_byte = 1.5e-8       # optional (0); CPU seconds per byte at each end (shared CPUs)
//! stack_per_message = 1e-5      # optional (0); CPU seconds per message at each end (shared CPUs)
//! wake_delay = 2e-4             # optional (0); seconds before a waiting rank on shared CPUs sees a message
//! [network]                     # simpi_net::FlowParams
//! lat_factor = "0:1.9;1480:2.4" # factor on the route's latency, by size
//! bw_factor = "0:0.6;1480:0.93" # factor on the flow's bandwidth share, by size
//! weight_s = 0                  # optional; 0: equal sharing
//! tcp_gamma = 4194304           # optional; absent: no TCP window bound
//! cross_traffic = 0.05          # optional; absent: none
//! converging_loss = 0.28        # optional (0); flows from m hosts on a link: bandwidth / (1 + it * ln m)
//! [loggops]                     # optional: LogGOPS for GOAL replay, seconds and bytes
//! L = 1.2e-4
//! o = 2.0e-5
//! g = 3.1e-5
//! G = 8.1e-8
//! O = 1.0e-9
//! S = 65535
//! [host]                        # optional
//! speed = 1.1e9                 # flop/s of one rank's compute kernel, measured
//! ```
//! Every key of `[protocol]` and `[network]` but the optional ones is required, so a
//! file says everything its model uses; errors name the file and line.

use crate::Error;
use serde::Deserialize;
use simpi_mpi::{Preset, Protocol};
use simpi_net::{FlowParams, LogGops, Piecewise};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// What a preset file holds.
#[derive(Clone, Debug, PartialEq)]
pub struct PresetFile {
    /// The hybrid model's protocol and network parameters.
    pub preset: Preset,
    /// LogGOPS parameters (picoseconds, `s` in bytes), if the file has them.
    pub loggops: Option<LogGops>,
    /// The measured flop rate of one rank's compute, if the file has it.
    pub host_speed: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    protocol: Spanned<ProtocolDesc>,
    network: Spanned<NetworkDesc>,
    loggops: Option<Spanned<LogGopsDesc>>,
    host: Option<Spanned<HostDesc>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProtocolDesc {
    os: Spanned<String>,
    or: Spanned<String>,
    async_small: Spanned<u64>,
    detached: Spanned<u64>,
    envelope: Spanned<u64>,
    grow_test_costs: bool,
    #[serde(default)]
    cpu_overheads: bool,
    #[serde(default)]
    busy_wait: Option<Spanned<f64>>,
    #[serde(default)]
    stack_per_byte: Option<Spanned<f64>>,
    stack_per_message: Option<Spanned<f64>>,
    wake_delay: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NetworkDesc {
    lat_factor: Spanned<String>,
    bw_factor: Spanned<String>,
    weight_s: Option<Spanned<f64>>,
    tcp_gamma: Option<Spanned<f64>>,
    cross_traffic: Option<Spanned<f64>>,
    converging_loss: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
struct LogGopsDesc {
    L: Spanned<f64>,
    o: Spanned<f64>,
    g: Spanned<f64>,
    G: Spanned<f64>,
    O: Spanned<f64>,
    S: Spanned<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostDesc {
    speed: Spanned<f64>,
}

/// Reads the preset file at `path`.
pub fn read(path: &Path) -> Result<PresetFile, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        msg: format!("cannot read the preset file: {e}"),
    })?;
    parse(&text, &path.display().to_string())
}

/// Parses a preset file's text; `name` is the file's name in errors.
pub fn parse(text: &str, name: &str) -> Result<PresetFile, Error> {
    let at = |span: Option<Range<usize>>, msg: String| {
        let line = span.map_or(1, |s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        Error::Input(format!("{name}:{line}: {msg}"))
    };
    let f: File = toml::from_str(text).map_err(|e| at(e.span(), e.message().to_string()))?;
    // An overhead uses two values a segment (a + b·size), a factor one.
    let pw = |s: &Spanned<String>, key: &str, most: usize| {
        Piecewise::parse(s.get_ref())
            .and_then(|f| f.check_width(most).map(|()| f))
            .map_err(|m| at(Some(s.span()), format!("{key}: {m}")))
    };
    let p = f.protocol.get_ref();
    let os = pw(&p.os, "os", 2)?;
    let or = pw(&p.or, "or", 2)?;
    for (key, v, span) in [("os", &os, p.os.span()), ("or", &or, p.or.span())] {
        if let Some(x) = v.values().find(|x| !(x.is_finite() && *x >= 0.0)) {
            return Err(at(Some(span), format!("{key}: {x} is not a finite number >= 0")));
        }
    }
    if p.async_small.get_ref() > p.detached.get_ref() {
        return Err(at(
            Some(p.async_small.span()),
            "async_small: the asynchronous threshold must not exceed the detached one (as in SimGrid)".into(),
        ));
    }
    let protocol = Protocol {
        os,
        or,
        async_small: *p.async_small.get_ref(),
        detached: *p.detached.get_ref(),
        envelope: *p.envelope.get_ref(),
        eager_all: false,
        grow_test_costs: p.grow_test_costs,
        cpu_overheads: p.cpu_overheads,
        busy_wait: p.busy_wait.as_ref().map_or(0.0, |w| *w.get_ref()),
        stack_per_byte: p.stack_per_byte.as_ref().map_or(0.0, |w| *w.get_ref()),
        stack_per_message: p.stack_per_message.as_ref().map_or(0.0, |w| *w.get_ref()),
        wake_delay: p.wake_delay.as_ref().map_or(0.0, |w| *w.get_ref()),
    };
    for (key, w) in [
        ("stack_per_byte", &p.stack_per_byte),
        ("stack_per_message", &p.stack_per_message),
    ] {
        if let Some(w) = w {
            if !(w.get_ref().is_finite() && *w.get_ref() >= 0.0) {
                return Err(at(
                    Some(w.span()),
                    format!("{key}: {} is not a finite number >= 0", w.get_ref()),
                ));
            }
        }
    }
    if let Some(w) = &p.wake_delay {
        let max = simpi_mpi::protocol::MAX_WAKE_DELAY;
        if !(0.0..=max).contains(w.get_ref()) {
            return Err(at(
                Some(w.span()),
                format!("wake_delay: {} is not a number of seconds from 0 to {max}", w.get_ref()),
            ));
        }
    }
    if let Some(w) = &p.busy_wait {
        if !(0.0..=1.0).contains(w.get_ref()) {
            return Err(at(
                Some(w.span()),
                format!("busy_wait: {} is not a number from 0 to 1", w.get_ref()),
            ));
        }
    }
    let n = f.network.get_ref();
    let network = FlowParams {
        lat_factor: pw(&n.lat_factor, "lat_factor", 1)?,
        bw_factor: pw(&n.bw_factor, "bw_factor", 1)?,
        weight_s: n.weight_s.as_ref().map_or(0.0, |w| *w.get_ref()),
        tcp_gamma: n.tcp_gamma.as_ref().map(|g| *g.get_ref()),
        cross_traffic: n.cross_traffic.as_ref().map(|c| *c.get_ref()),
        converging_loss: n.converging_loss.as_ref().map_or(0.0, |c| *c.get_ref()),
    };
    // Each value checked alone, so that a fault names its own line.
    let plain = FlowParams::plain;
    let one_by_one = [
        (
            n.lat_factor.span(),
            FlowParams {
                lat_factor: network.lat_factor.clone(),
                ..plain()
            },
        ),
        (
            n.bw_factor.span(),
            FlowParams {
                bw_factor: network.bw_factor.clone(),
                ..plain()
            },
        ),
        (
            n.weight_s.as_ref().map_or(0..0, |w| w.span()),
            FlowParams {
                weight_s: network.weight_s,
                ..plain()
            },
        ),
        (
            n.tcp_gamma.as_ref().map_or(0..0, |w| w.span()),
            FlowParams {
                tcp_gamma: network.tcp_gamma,
                ..plain()
            },
        ),
        (
            n.cross_traffic.as_ref().map_or(0..0, |w| w.span()),
            FlowParams {
                cross_traffic: network.cross_traffic,
                ..plain()
            },
        ),
        (
            n.converging_loss.as_ref().map_or(0..0, |w| w.span()),
            FlowParams {
                converging_loss: network.converging_loss,
                ..plain()
            },
        ),
    ];
    for (span, params) in one_by_one {
        params.validate().map_err(|e| at(Some(span), e.to_string()))?;
    }
    let loggops = match &f.loggops {
        None => None,
        Some(l) => {
            let d = l.get_ref();
            let ps = |v: &Spanned<f64>, key: &str| -> Result<u64, Error> {
                let s = *v.get_ref();
                let ps = s * 1e12;
                if !(s.is_finite() && s >= 0.0 && ps < u64::MAX as f64) {
                    return Err(at(
                        Some(v.span()),
                        format!("{key}: {s} is not a time in seconds between 0 and 2^64 ps"),
                    ));
                }
                Ok(ps.round() as u64)
            };
            Some(LogGops {
                l: ps(&d.L, "L")?,
                o: ps(&d.o, "o")?,
                g: ps(&d.g, "g")?,
                big_g: ps(&d.G, "G")?,
                big_o: ps(&d.O, "O")?,
                s: *d.S.get_ref(),
            })
        }
    };
    let host_speed = match &f.host {
        None => None,
        Some(h) => {
            let s = &h.get_ref().speed;
            let v = *s.get_ref();
            if !(v.is_finite() && v > 0.0) {
                return Err(at(Some(s.span()), format!("speed: {v} is not a positive flop rate")));
            }
            Some(v)
        }
    };
    Ok(PresetFile {
        preset: Preset { protocol, network },
        loggops,
        host_speed,
    })
}

/// A piece-wise function in SimGrid's syntax, every value to 6 significant digits.
fn piecewise_text(p: &Piecewise) -> String {
    p.segments()
        .iter()
        .map(|(bound, values)| {
            let v: Vec<String> = values.iter().map(|x| format!("{x:.6e}")).collect();
            format!("{bound}:{}", v.join(":"))
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// The file's text: `comment` (each line prefixed with `# `), then every section.
pub fn to_text(f: &PresetFile, comment: &str) -> String {
    let mut s: String = comment.lines().map(|l| format!("# {l}\n")).collect();
    let p = &f.preset.protocol;
    let n = &f.preset.network;
    s.push_str(&format!(
        "[protocol]\nos = \"{}\"\nor = \"{}\"\nasync_small = {}\ndetached = {}\nenvelope = {}\ngrow_test_costs = {}\n\
         cpu_overheads = {}\nbusy_wait = {:?}\nstack_per_byte = {:?}\nstack_per_message = {:?}\nwake_delay = {:?}\n",
        piecewise_text(&p.os),
        piecewise_text(&p.or),
        p.async_small,
        p.detached,
        p.envelope,
        p.grow_test_costs,
        p.cpu_overheads,
        p.busy_wait,
        p.stack_per_byte,
        p.stack_per_message,
        p.wake_delay
    ));
    s.push_str(&format!(
        "\n[network]\nlat_factor = \"{}\"\nbw_factor = \"{}\"\nweight_s = {:?}\n",
        piecewise_text(&n.lat_factor),
        piecewise_text(&n.bw_factor),
        n.weight_s
    ));
    if let Some(g) = n.tcp_gamma {
        s.push_str(&format!("tcp_gamma = {g:?}\n"));
    }
    if let Some(c) = n.cross_traffic {
        s.push_str(&format!("cross_traffic = {c:?}\n"));
    }
    if n.converging_loss > 0.0 {
        s.push_str(&format!("converging_loss = {:?}\n", n.converging_loss));
    }
    if let Some(l) = &f.loggops {
        let sec = |ps: u64| format!("{:.6e}", ps as f64 * 1e-12);
        s.push_str(&format!(
            "\n[loggops]\nL = {}\no = {}\ng = {}\nG = {}\nO = {}\nS = {}\n",
            sec(l.l),
            sec(l.o),
            sec(l.g),
            sec(l.big_g),
            sec(l.big_o),
            l.s
        ));
    }
    if let Some(v) = f.host_speed {
        s.push_str(&format!("\n[host]\nspeed = {v:.6e}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "[protocol]\nos = \"0:2e-5:1e-9\"\nor = \"0:1e-5\"\nasync_small = 100\ndetached = 200\nenvelope = 8\ngrow_test_costs = false\n\
        [network]\nlat_factor = \"0:2;1000:3\"\nbw_factor = \"0:0.5\"\nconverging_loss = 0.25\n[loggops]\nL = 1e-6\no = 2e-6\ng = 3e-6\nG = 8e-11\nO = 0\nS = 65535\n[host]\nspeed = 2e9\n";

    #[test]
    fn a_file_gives_every_value_it_states() {
        let f = parse(GOOD, "p.toml").unwrap();
        let p = &f.preset.protocol;
        assert_eq!(
            (p.async_small, p.detached, p.envelope, p.grow_test_costs),
            (100, 200, 8, false)
        );
        assert!((p.os.overhead(1000) - (2e-5 + 1e-6)).abs() < 1e-15);
        assert_eq!(f.preset.network.lat_factor.factor(1001), 3.0);
        assert_eq!(f.preset.network.bw_factor.factor(5), 0.5);
        assert_eq!((f.preset.network.weight_s, f.preset.network.tcp_gamma), (0.0, None));
        assert_eq!(f.preset.network.converging_loss, 0.25);
        let l = f.loggops.unwrap();
        // 8e-11 s is 80 ps per byte: below a nanosecond, kept exactly.
        assert_eq!(
            (l.l, l.o, l.g, l.big_g, l.big_o, l.s),
            (1_000_000, 2_000_000, 3_000_000, 80, 0, 65535)
        );
        assert_eq!(f.host_speed, Some(2e9));
    }

    #[test]
    fn written_files_read_back_to_the_same_preset() {
        let f = parse(GOOD, "p.toml").unwrap();
        let back = parse(&to_text(&f, "a comment\non two lines"), "q.toml").unwrap();
        assert_eq!(back, f);
        let smpi = PresetFile {
            preset: Preset::smpi(),
            loggops: None,
            host_speed: None,
        };
        let back = parse(&to_text(&smpi, ""), "s.toml").unwrap();
        assert_eq!(back.preset.protocol, smpi.preset.protocol);
        assert_eq!(back.preset.network.tcp_gamma, Some(4194304.0));
        assert_eq!(back.preset.network.cross_traffic, Some(0.05));
        for size in [0, 1, 300, 5000, 70000] {
            let (a, b) = (&back.preset.network, &smpi.preset.network);
            assert!((a.lat_factor.factor(size) / b.lat_factor.factor(size) - 1.0).abs() < 1e-5);
            assert!((a.bw_factor.factor(size) / b.bw_factor.factor(size) - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn faults_are_named_with_their_line() {
        let e = parse(&GOOD.replace("bw_factor = \"0:0.5\"", "bw_factor = \"0:-1\""), "p.toml").unwrap_err();
        assert!(
            e.to_string().starts_with("p.toml:10: ") && e.to_string().contains("bandwidth factor"),
            "{e}"
        );
        let e = parse(
            &GOOD.replace("converging_loss = 0.25", "converging_loss = nan"),
            "p.toml",
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("p.toml:11: ") && e.to_string().contains("converging loss"),
            "{e}"
        );
        let e = parse(&GOOD.replace("L = 1e-6", "L = -1e-6"), "p.toml").unwrap_err();
        assert!(e.to_string().starts_with("p.toml:13: L:"), "{e}");
        let e = parse(&GOOD.replace("envelope = 8\n", ""), "p.toml").unwrap_err();
        assert!(e.to_string().contains("envelope"), "{e}");
        let e = parse(&GOOD.replace("speed = 2e9", "speed = nan"), "p.toml").unwrap_err();
        assert!(e.to_string().starts_with("p.toml:20: speed"), "{e}");
        let e = parse(&format!("{GOOD}bogus = 1\n"), "p.toml").unwrap_err();
        assert!(e.to_string().contains("p.toml:"), "{e}");
        let e = parse(&GOOD.replace("async_small = 100", "async_small = 300"), "p.toml").unwrap_err();
        assert!(e.to_string().contains("asynchronous threshold"), "{e}");
        // Values past those used (an overhead's a and b, a factor's one) would be
        // silently ignored.
        let e = parse(&GOOD.replace("or = \"0:1e-5\"", "or = \"0:1e-5:1e-9:3\""), "p.toml").unwrap_err();
        assert!(
            e.to_string().starts_with("p.toml:3: ") && e.to_string().contains("3 values where 2 at most"),
            "{e}"
        );
        let e = parse(&GOOD.replace("\"0:2;1000:3\"", "\"0:2;1000:3:4\""), "p.toml").unwrap_err();
        assert!(
            e.to_string().starts_with("p.toml:9: lat_factor: ") && e.to_string().contains("2 values where 1"),
            "{e}"
        );
    }
}
