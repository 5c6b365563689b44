//! Calibration measurement files (`simpi calibrate --from FILE`, what its measurement
//! program writes): the reader, the file written back (values to 10 digits) and read
//! again, and merging (`measurements`); the whole fit with its report, on a pair that
//! has cores of its own and on one whose ranks share two cores (`calibrate_fit`).

use simpi::calibrate::fit::{fit, Route};
use simpi::calibrate::measurements::{check_fittable, parse, Measurements};
use simpi::calibrate::report;

/// Most samples of an input the fit runs on (the seeds' 58 and 41 included): the fit
/// regresses every kind and simulates each size of the patterns that need the engine,
/// milliseconds an input, so larger files are read and checked only.
const MAX_FIT_SAMPLES: usize = 64;

/// Reads the input as a measurements file; gives what reads.
fn read(data: &[u8]) -> Option<Measurements> {
    let text = std::str::from_utf8(data).ok()?;
    match parse(text, "fuzz.txt") {
        Ok(m) => Some(m),
        Err(e) => {
            let _ = e.to_string();
            None
        }
    }
}

/// Reads the input as a measurements file; what reads must write back into a file that
/// reads and writes back to the same text (the writer rounds once), merge with itself,
/// and say whether it can be fitted, without a panic.
pub fn measurements(data: &[u8]) {
    let Some(m) = read(data) else {
        return;
    };
    let text = m.to_text();
    let again = parse(&text, "again.txt").expect("measurements written back read");
    assert_eq!(again.to_text(), text, "measurements written twice differ");
    let mut twice = m.clone();
    let _ = twice.merge(again, "again.txt");
    let _ = check_fittable(&m, "fuzz.txt");
}

/// Reads the input as `measurements` does; fits what reads (if small) and writes the
/// report, without a panic.
pub fn calibrate_fit(data: &[u8]) {
    let Some(m) = read(data) else {
        return;
    };
    if check_fittable(&m, "fuzz.txt").is_err() || samples(&m) > MAX_FIT_SAMPLES {
        return;
    }
    for shared_cores in [None, Some(2)] {
        let route = Route {
            latency: 50e-6,
            bandwidth: 125e6,
            shared_cores,
        };
        match fit(&m, route) {
            Ok(c) => {
                let _ = report(&c);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}

fn samples(m: &Measurements) -> usize {
    m.times.values().flat_map(|s| s.values()).map(Vec::len).sum::<usize>() + m.flops.len() + m.solo.len() + m.spin.len()
}
