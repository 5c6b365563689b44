//! Noise traces: the reader (in memory and from a file, which must agree), the charge
//! of intervals of every kind against what reads, and two replications of a small fixed
//! schedule with that noise, as `simpi replay --noise FILE --replications 2` runs them.

use super::run::{loggops, MIXED};
use super::scratch::{fresh_dir, write};
use simpi::montecarlo::{read_noise, replicate, Noise};
use simpi::mpi::noise::Placement;
use simpi::{load, CollChoice, Format, LoadOptions, Model, TimeUnit};
use simpi_trace::noise::parse_noise;

/// The time unit an input is read in, by its length.
fn unit_of(data: &[u8]) -> TimeUnit {
    [TimeUnit::Ns, TimeUnit::Ps, TimeUnit::Us, TimeUnit::Ms, TimeUnit::S][data.len() % 5]
}

/// Reads `data` as a noise trace, charges intervals against it, and replays the fixed
/// schedule with it twice (independent, then co-scheduled offsets).
pub fn noise(data: &[u8]) {
    let unit = unit_of(data);
    let in_memory = parse_noise(data, "fuzz.txt", unit);
    let dir = fresh_dir();
    let path = write(&dir, "noise.txt", data);
    let from_file = read_noise(&path, unit);
    let trace = match (in_memory, from_file) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "the trace reads differently from memory and from a file");
            a
        }
        (Err(a), Err(simpi::Error::Noise(b))) => {
            assert_eq!((a.line, a.msg), (b.line, b.msg), "the readers refuse differently");
            return;
        }
        (a, b) => panic!(
            "the readers disagree: {:?} vs {:?}",
            a.err().map(|e| e.to_string()),
            b.err().map(|e| e.to_string())
        ),
    };
    let p = trace.period();
    for (at, len) in [
        (0u128, 0u64),
        (p as u128 / 3, p / 2),
        (u64::MAX as u128, p.saturating_sub(1)),
        (7, p),
        (u64::MAX as u128 * 2, p.saturating_mul(5).saturating_add(3)),
        (1, u64::MAX),
    ] {
        let _ = trace.detour(at, len);
    }
    let schedule = write(&dir, "schedule.goal", MIXED.as_bytes());
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::by_name("first").expect("a selector");
    let opts = LoadOptions {
        format: Some(Format::Goal),
        unit: TimeUnit::Ns,
        speed: &speed,
        collectives: &coll,
        test_cost: 0.0,
        calls: false,
        whole: false,
    };
    let w = load(&schedule, &opts).expect("the fixed schedule reads");
    let Model::LogGops(params) = loggops(3).model() else {
        return;
    };
    for placement in [Placement::Independent, Placement::Cosched] {
        let noise = Noise {
            trace: &trace,
            placement,
            seed: data.len() as u64,
        };
        match replicate(&w, params, &noise, 2, 1, 4) {
            Ok(r) => {
                let _ = r.summary();
                let _ = r.write_json(std::io::sink());
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}
