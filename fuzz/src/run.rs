//! Simulating what an input described, within a budget, under each model, and writing
//! every output of the result: the part of a harness after its reader.
//!
//! The engine has no event limit, so a harness simulates only workloads small enough
//! to finish in a fraction of a second ([`small`]): the fuzzer then finds hangs in the
//! readers and the engine, not long but legitimate simulations.

use simpi::mpi::coll::{Algorithm, CollSpec};
use simpi::mpi::Schedule;
use simpi::platform::{HostId, Platform};
use simpi::timeline::{self, FileFormat, Filter, Timeline};
use simpi::CollChoice;
use simpi::{simulate, Machine, Model, ModelSpec, Preset, Report, SimOptions, SimTime, TimeUnit, Workload};
use simpi_trace::tit::TitOptions;
use std::io::sink;
use std::sync::OnceLock;

/// Most operations a harness simulates (the events of a run grow with its operations).
pub const MAX_OPS: usize = 20_000;

/// Most ranks a harness simulates or maps.
pub const MAX_RANKS: u32 = 64;

/// True if `s` is small enough to simulate.
pub fn small(s: &Schedule) -> bool {
    s.num_ops() <= MAX_OPS && s.num_ranks() <= MAX_RANKS
}

/// The platform the trace and command-line harnesses run on: 16 hosts `node-0` to
/// `node-15` on split-duplex private links and a shared backbone.
pub const PLATFORM_XML: &str = r#"<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="AS0" routing="Full">
    <cluster id="flat" prefix="node-" suffix="" radical="0-15" speed="1Gf" bw="125MBps" lat="50us" bb_bw="250MBps" bb_lat="10us"/>
  </zone>
</platform>
"#;

/// A schedule of every kind of operation: computes, sends and receives, eager and
/// rendezvous, on two CPUs (noise meets them all; presets and distributions time them).
pub const MIXED: &str = "num_ranks 3
rank 0 {
a: calc 700
b: send 100000b to 1 tag 0
c: recv 8b from 2 tag 1 cpu 1
b requires a
}
rank 1 {
a: recv 100000b from 0 tag 0
b: calc 50
c: send 8b to 2 tag 2
b requires a
c requires b
}
rank 2 {
a: recv 8b from 1 tag 2
b: send 8b to 0 tag 1
b requires a
}
";

/// [`MIXED`] as a workload, and its number of ranks.
pub fn mixed() -> (Workload<'static>, u32) {
    let s = simpi_trace::read_goal(MIXED.as_bytes(), "mixed.goal", TimeUnit::Ns).expect("the fixed schedule reads");
    let ranks = s.num_ranks();
    (whole(s, "mixed.goal", simpi::Format::Goal), ranks)
}

/// A schedule read whole from `path` (in `format`) as a workload, times in ns.
pub fn whole(s: Schedule, path: &str, format: simpi::Format) -> Workload<'static> {
    Workload {
        path: path.into(),
        format: Some(format),
        unit: TimeUnit::Ns,
        body: simpi::Body::Schedule(s),
        options: None,
        calls: None,
        warnings: Vec::new(),
        load_seconds: 0.0,
    }
}

/// Every rank computes at 1 Gflop/s.
fn gigaflop(_rank: u32) -> f64 {
    1e9
}

/// Open MPI's collective algorithms.
fn ompi(s: &CollSpec) -> &'static Algorithm {
    static OMPI: OnceLock<CollChoice> = OnceLock::new();
    OMPI.get_or_init(|| CollChoice::by_name("ompi").expect("a selector"))
        .choose(s)
}

/// How the trace harnesses read a trace: 1 Gflop/s, Open MPI's collectives, each test
/// costing `test_cost` seconds, the calls kept if `calls`.
pub fn trace_options(test_cost: f64, calls: bool) -> TitOptions<'static> {
    TitOptions {
        speed: &gigaflop,
        choose: &ompi,
        test_cost,
        calls,
    }
}

/// [`PLATFORM_XML`], read once.
pub fn platform() -> &'static Platform {
    static P: OnceLock<Platform> = OnceLock::new();
    P.get_or_init(|| {
        simpi::platform::xml::parse(PLATFORM_XML, std::path::Path::new("fixed.xml")).expect("the fixed platform reads")
    })
}

/// The flow network of `p` with `preset`, rank `r` on host `r mod hosts`.
pub fn flow<'p>(p: &'p Platform, ranks: u32, preset: Preset) -> Model<'p> {
    let n = p.num_hosts() as u32;
    Model::Flow {
        platform: p,
        hosts: (0..ranks).map(|r| HostId(r % n)).collect(),
        preset,
    }
}

/// SimGrid's Constant network model, 10 µs a message, SMPI's protocol.
pub fn constant() -> Model<'static> {
    Model::Constant {
        time: SimTime::from_secs_f64(1e-5),
        protocol: simpi::setup::constant_preset(Preset::smpi()).protocol,
    }
}

/// The LogGOPS machine of `simpi replay`'s default parameters (L=2500, o=1500, g=1000,
/// G=6, O=0 ns, S=65535 bytes).
pub fn loggops(ranks: u32) -> Machine {
    let spec = ModelSpec::LogGops {
        params: [2500, 1500, 1000, 6, 0, 65535],
        unit: TimeUnit::Ns,
    };
    Machine::new(&spec, ranks).expect("the default LogGOPS parameters are valid")
}

/// Simulates `w` under `model`, recording operations, and writes every output of the
/// result; an error is rendered (its message is code too).
pub fn exercise(w: &mut Workload<'_>, model: &Model<'_>) {
    let opts = SimOptions {
        progress: None,
        max_blocked_ranks: 4,
        record: true,
    };
    match simulate(w, model, opts) {
        Ok(r) => outputs(&r, w.unit),
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// Every output `simpi replay` can write of a report.
pub fn outputs(r: &Report, unit: TimeUnit) {
    let _ = r.summary();
    let _ = r.details();
    let _ = r.checksum();
    let _ = r.write_json(sink());
    let _ = r.write_loggopsim(sink(), unit);
    let t = Timeline::of_spans(r.end_times.len() as u32, &r.spans);
    for format in [FileFormat::Chrome, FileFormat::Paje] {
        let _ = timeline::write(sink(), format, &t, &Filter::default());
    }
}
