//! The values `simpi replay` takes on its command line, parsed by the parsers its flags
//! use (`simpi::values`, the timeline's `Target`, `RankSet` and `Window`) and used as
//! the binary uses them (crates/cli/src/replay.rs and trace_options.rs): the model and
//! its parameters, the collective choices, the trace options, the mapping, the pattern,
//! the timeline and its filters; then a small fixed trace or schedule, or the pattern,
//! simulated with them and every output written.
//!
//! An input is one option a line, `--flag value` or `--flag=value`. The binary's own
//! argument handling (clap: which flags exist, which conflict, `check_flags`) is not
//! reached: the cli crate has no library target. Flags clap parses as plain numbers or
//! booleans are parsed here with `str::parse`, as clap's parsers for them do.

use super::run::{outputs, MAX_RANKS, PLATFORM_XML};
use super::scratch::{fresh_dir, write};
use simpi::timeline::{self, FileFormat, Filter, RankSet, Target, Timeline, Window};
use simpi::{
    count_ranks, load, simulate, values, CollChoice, Format, LoadOptions, Machine, MappingSpec, ModelSpec, Pattern,
    PatternParams, Preset, PresetChanges, SimOptions, TimeUnit, Workload,
};
use std::collections::HashMap;
use std::str::FromStr;

/// A small trace with every kind of cost: computes, eager and rendezvous messages,
/// tests, and collectives Open MPI's and MPICH's rules expand differently.
pub const TRACE: &str = "\
0 init
1 init
2 init
3 init
0 compute 1e6
1 compute 2e6
0 isend 1 1 100 6
1 irecv 0 1 100 6
0 send 2 2 200000 6
2 recv 0 2 200000 6
1 test 0 1 1 0
1 wait 0 1 1
0 wait 0 1 1
0 allreduce 1000 1e3 6
1 allreduce 1000 1e3 6
2 allreduce 1000 1e3 6
3 allreduce 1000 1e3 6
0 bcast 70000 0 6
1 bcast 70000 0 6
2 bcast 70000 0 6
3 bcast 70000 0 6
0 alltoall 100 100 6 6
1 alltoall 100 100 6 6
2 alltoall 100 100 6 6
3 alltoall 100 100 6 6
3 sleep 1e-5
0 barrier
1 barrier
2 barrier
3 barrier
0 finalize
1 finalize
2 finalize
3 finalize
";

/// A small GOAL schedule: a dependency, eager and rendezvous sizes, a second CPU.
pub const GOAL: &str = "\
num_ranks 2
rank 0 {
  l1: calc 1000
  l2: send 100b to 1 tag 5
  l3: send 100000b to 1 tag 6 cpu 1
  l2 requires l1
}
rank 1 {
  l1: recv 100b from 0 tag 5
  l2: recv 100000b from 0 tag 6
  l3: calc 500
  l3 requires l2
}
";

/// The options an input gave; the last value of a flag wins, `--coll` accumulates.
struct Args<'a> {
    values: HashMap<&'a str, &'a str>,
    coll: Vec<&'a str>,
}

impl<'a> Args<'a> {
    fn read(text: &'a str) -> Args<'a> {
        let mut a = Args {
            values: HashMap::new(),
            coll: Vec::new(),
        };
        for line in text.lines() {
            let line = line.trim();
            let Some(flag) = line.strip_prefix("--").or_else(|| line.strip_prefix('-')) else {
                continue;
            };
            // The flag ends at the first space or `=` (a value may hold either).
            let (flag, value) = match flag.find([' ', '=']) {
                Some(i) => (&flag[..i], flag[i + 1..].trim_start()),
                None => (flag, ""),
            };
            if flag == "coll" {
                a.coll.push(value);
            } else {
                a.values.insert(flag, value);
            }
        }
        a
    }

    /// The flag's value, or its default.
    fn str(&self, flag: &str, default: &'a str) -> &'a str {
        self.values.get(flag).copied().unwrap_or(default)
    }

    /// The flag's value parsed, its default if absent; `Err` is a command-line error.
    fn num<T: FromStr>(&self, flag: &str, default: T) -> Result<T, ()> {
        match self.values.get(flag) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| ()),
        }
    }

    /// An optional flag's value parsed.
    fn opt<T: FromStr>(&self, flag: &str) -> Result<Option<T>, ()> {
        self.values.get(flag).map(|v| v.parse().map_err(|_| ())).transpose()
    }
}

/// Reads `data` as `simpi replay` options and runs the fixed workload (or the pattern)
/// with them; an invalid value ends the run, as it ends the binary's.
pub fn cli_values(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let a = Args::read(text);
    let _ = run(&a);
}

/// A flag's value through its parser, the default if absent; `Err`: exit code 2.
fn parsed<T>(a: &Args<'_>, flag: &str, default: &str, parse: fn(&str) -> Result<T, String>) -> Result<T, ()> {
    parse(a.str(flag, default)).map_err(drop)
}

/// An optional flag's value through its parser.
fn parsed_opt<T>(a: &Args<'_>, flag: &str, parse: fn(&str) -> Result<T, String>) -> Result<Option<T>, ()> {
    a.values.get(flag).map(|v| parse(v).map_err(drop)).transpose()
}

fn run(a: &Args<'_>) -> Result<(), ()> {
    let unit = parsed(a, "time-unit", "ns", values::time_unit)?;
    let model = a.str("model", "loggops");
    let changes = PresetChanges {
        lat_factor: parsed_opt(a, "lat-factor", values::lat_factors)?,
        bw_factor: parsed_opt(a, "bw-factor", values::bw_factors)?,
        os: parsed_opt(a, "os", values::overheads)?,
        or: parsed_opt(a, "or", values::overheads)?,
        async_small: a.opt("async-small")?,
        detached: a.opt("detached")?,
        weight_s: parsed_opt(a, "weight-s", values::non_negative)?,
        grow_test_costs: a.opt("grow-injected-times")?,
    };
    let base = match (model, a.str("preset", "smpi")) {
        ("flow", _) => Preset::flow(),
        (_, "smpi") => Preset::smpi(),
        (_, "plain") => Preset::plain(),
        _ => return Err(()),
    };
    let preset = || changes.apply(base.clone()).map_err(|e| drop(e.to_string()));
    let dir = fresh_dir();
    let spec = match model {
        "loggops" => ModelSpec::LogGops {
            params: [
                a.num("L", 2500)?,
                a.num("o", 1500)?,
                a.num("g", 1000)?,
                a.num("G", 6)?,
                a.num("O", 0)?,
                a.num("S", 65535)?,
            ],
            unit,
        },
        "constant" => ModelSpec::Constant {
            time: parsed(a, "constant-time", "1s", values::duration)?,
            preset: simpi::setup::constant_preset(preset()?),
        },
        "flow" | "hybrid" => ModelSpec::Flow {
            platform: write(&dir, "platform.xml", PLATFORM_XML.as_bytes()),
            mapping: match (a.str("mapping", "block"), a.values.get("hostfile")) {
                (_, Some(h)) => MappingSpec::HostFile(write(&dir, "hostfile", h.replace(',', "\n").as_bytes())),
                ("block", None) => MappingSpec::Block {
                    per_host: parsed(a, "ranks-per-host", "1", values::at_least_one)?,
                },
                ("round-robin", None) => MappingSpec::RoundRobin,
                _ => return Err(()),
            },
            preset: preset()?,
        },
        _ => return Err(()),
    };
    // The trace options (trace_options.rs): selector, overrides, speed, test cost.
    let selector = a.str("coll-selector", "ompi");
    if !["ompi", "mpich", "first"].contains(&selector) {
        return Err(());
    }
    let mut coll = CollChoice::by_name(selector).map_err(drop)?;
    for c in &a.coll {
        coll.add_override(c).map_err(drop)?;
    }
    let flops = parsed(a, "speed", "1e9", values::positive)?;
    let test_cost = parsed(a, "test-cost", "1e-4", values::clock_seconds)?;
    // The timeline and its filters.
    let timeline = parsed_opt(a, "timeline", Target::parse)?;
    let filter = Filter {
        ranks: parsed_opt(a, "timeline-ranks", RankSet::parse)?,
        window: parsed_opt(a, "timeline-window", Window::parse)?,
    };
    let format = timeline.map(|t| t.format);
    if let Some(name) = a.values.get("pattern") {
        let pattern = values::pattern(name).map_err(drop)?;
        return run_pattern(a, pattern, unit, &spec, format, &filter);
    }
    let (file, input) = match a.str("input", "tit") {
        "tit" => (write(&dir, "trace.txt", TRACE.as_bytes()), Format::Tit),
        "goal" => (write(&dir, "schedule.goal", GOAL.as_bytes()), Format::Goal),
        _ => return Err(()),
    };
    let ranks = count_ranks(&file, Some(input)).map_err(drop)?;
    filter.check(ranks).map_err(drop)?;
    let machine = Machine::new(&spec, ranks).map_err(|e| drop(e.to_string()))?;
    let speed = |r: u32| machine.speed(r).unwrap_or(flops);
    let opts = LoadOptions {
        format: Some(input),
        unit,
        speed: &speed,
        collectives: &coll,
        test_cost,
        calls: true,
        whole: a.values.contains_key("whole"),
    };
    let mut w = load(&file, &opts).map_err(|e| drop(e.to_string()))?;
    simulate_and_write(&mut w, &machine, format, &filter);
    Ok(())
}

/// `--pattern NAME --ranks N --bytes B --iterations I --compute C [--periodic]`: the
/// workload, its GOAL as `simpi schedgen` writes it, and its simulation, if small.
fn run_pattern(
    a: &Args<'_>,
    pattern: Pattern,
    unit: TimeUnit,
    spec: &ModelSpec,
    format: Option<FileFormat>,
    filter: &Filter,
) -> Result<(), ()> {
    let params = PatternParams {
        ranks: parsed(a, "ranks", "8", values::rank_count)?,
        bytes: a.num("bytes", 8)?,
        iterations: parsed(a, "iterations", "1", values::at_least_one)?,
        compute: a.num("compute", 0)?,
        periodic: a.values.contains_key("periodic"),
    };
    filter.check(params.ranks).map_err(drop)?;
    let mut w = Workload::pattern(pattern, params, unit).map_err(|e| drop(e.to_string()))?;
    if params.ranks > MAX_RANKS || params.iterations > 4 {
        return Ok(());
    }
    let _ = simpi_trace::schedgen::generate(pattern, &params, std::io::sink());
    let machine = Machine::new(spec, params.ranks).map_err(|e| drop(e.to_string()))?;
    simulate_and_write(&mut w, &machine, format, filter);
    Ok(())
}

/// Simulates `w` on `machine`, then writes the outputs and the timeline (if asked).
fn simulate_and_write(w: &mut Workload<'_>, machine: &Machine, format: Option<FileFormat>, filter: &Filter) {
    let opts = SimOptions {
        progress: None,
        max_blocked_ranks: 4,
        record: true,
    };
    match simulate(w, &machine.model(), opts) {
        Ok(r) => {
            outputs(&r, w.unit);
            if let Some(f) = format {
                let t = Timeline::of_spans(r.end_times.len() as u32, &r.spans);
                let _ = timeline::write(std::io::sink(), f, &t, filter);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}
