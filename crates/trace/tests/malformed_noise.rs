//! Malformed noise traces give errors, never panics: the traces of `tests/golden/noise`
//! and two written here are mutated a few thousand times by the seeded generator of
//! `tests/support/mutate.rs` (as `malformed.rs` does for GOAL and TIT). Each mutant is
//! read in every time unit; an error must name the file, and the line unless it is about
//! the whole trace; a trace that reads is then charged to intervals of every kind (short,
//! as long as the period, many periods long, at the clock's end), which must not panic.

use simpi_kernel::TimeUnit;
use simpi_trace::noise::{read_noise, NoiseError};
use std::path::Path;

#[path = "../../../tests/support/mutate.rs"]
mod mutate;
use mutate::*;

/// An error names the file, and a line unless it is about the whole trace.
fn noise_error_has_its_place(e: &NoiseError, path: &Path) {
    assert_eq!(e.file, path.display().to_string(), "{e}");
    assert!(e.to_string().starts_with(&e.file), "{e}");
    let whole = e.msg.contains("at least two") || e.msg.contains("no period") || e.msg.starts_with("cannot open");
    assert!(e.line > 0 || whole, "an error without a line: {e}");
}

#[test]
fn mutated_noise_traces_give_errors_not_panics() {
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let golden = root().join("tests/golden/noise");
    let mut dirs: Vec<_> = std::fs::read_dir(&golden).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for d in dirs {
        let text = std::fs::read(d.join("noise.txt")).unwrap();
        // Long traces cut to their first 40 lines: enough structure, cheaper mutants.
        let cut: Vec<u8> = text
            .split_inclusive(|&b| b == b'\n')
            .take(40)
            .flatten()
            .copied()
            .collect();
        if !seeds.contains(&cut) {
            seeds.push(cut);
        }
    }
    seeds.push(b"# fractions and exponents\n0.5 1e1\n2.25e3\t.5\n+3000 0\n".to_vec());
    seeds.push(b"10 5\n10 7\n20 100\n20 0\n40 1\n".to_vec());
    assert!(seeds.len() >= 5, "noise traces missing under {}", golden.display());
    let d = scratch("noise");
    let path = d.join("noise.txt");
    let mut g = Rng(0x5eed_0009);
    let (mut total, mut rejected) = (0, 0);
    for seed in &seeds {
        std::fs::write(&path, seed).unwrap();
        assert!(
            read_noise(&path, TimeUnit::Ns).is_ok(),
            "seed does not read:\n{}",
            String::from_utf8_lossy(seed)
        );
        for _ in 0..scale(400) {
            let m = mutant(seed, &mut g);
            std::fs::write(&path, &m).unwrap();
            let unit = [TimeUnit::Ps, TimeUnit::Ns, TimeUnit::Us, TimeUnit::S][g.below(4)];
            total += 1;
            match no_panic("the noise reader", &m, || read_noise(&path, unit)) {
                Err(e) => {
                    rejected += 1;
                    noise_error_has_its_place(&e, &path);
                }
                Ok(t) => {
                    let p = t.period();
                    for (at, len) in [
                        (0u128, 0u64),
                        (g.next() as u128, p / 2),
                        (g.next() as u128, p.saturating_sub(1)),
                        (g.next() as u128, p),
                        (u64::MAX as u128 * 2, p.saturating_mul(3).saturating_add(1)),
                        (g.next() as u128, u64::MAX),
                    ] {
                        no_panic("the noise charge", &m, || t.detour(at, len));
                    }
                }
            }
        }
    }
    bites("noise", rejected, total, total / 4);
    eprintln!("noise: {total} mutants, {rejected} rejected");
}
