//! Distributions files (`--distributions FILE`, what `simpi bench` writes): the
//! reader, the file written back and read again, draws at every quantile and beyond
//! the measured sizes and contention, and the fixed mixed schedule replayed under the
//! stochastic model on them, with and without a platform.

use super::run::{exercise, mixed, platform};
use simpi::platform::HostId;
use simpi::{Distributions, Model};
use std::path::Path;

/// Reads the input as a distributions file; what reads must write and read back, and
/// drives draws and replays.
pub fn distributions(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let d = match Distributions::parse(Path::new("fuzz.txt"), text) {
        Ok(d) => d,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    Distributions::parse(Path::new("again.txt"), &d.to_text("again")).expect("a distributions file written back reads");
    let top = d.max_contention();
    for bytes in [0, 1, 1024, 65_536, u64::MAX] {
        for contention in [0, 1, top, top.saturating_add(1), u32::MAX] {
            for u in [0.0, 0.5, 1.0 - f64::EPSILON, 1.0] {
                let _ = d.sample(bytes, contention, u);
            }
        }
    }
    let (mut w, ranks) = mixed();
    let p = platform();
    let n = p.num_hosts() as u32;
    for with_platform in [false, true] {
        let model = Model::Stochastic {
            distributions: &d,
            platform: with_platform.then_some(p),
            hosts: (0..ranks).map(|r| HostId(r % n)).collect(),
            seed: data.len() as u64,
            replication: 1,
        };
        exercise(&mut w, &model);
    }
}
