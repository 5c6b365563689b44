//! The seeded mutation generator and checks shared by the malformed-input tests
//! (`crates/trace/tests/malformed.rs`, `crates/platform/tests/malformed.rs`), included by
//! each with `#[path]`: a byte deleted or inserted, a line duplicated or two swapped, the
//! text cut short, a number replaced by an extreme or broken one, a name replaced by an
//! unknown one.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// splitmix64: a tiny seeded generator, so every run makes the same mutants.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// What a number is replaced by: negative, zero, past 64 bits, past f64, not a number,
/// nothing, a lone sign, u32::MAX, past 32 bits, a fraction, a denormal, minus zero.
pub const NUMBERS: [&str; 12] = [
    "-1",
    "0",
    "18446744073709551616",
    "1e999",
    "nan",
    "",
    "-",
    "4294967295",
    "99999999999",
    "0.5",
    "1e-320",
    "-0",
];

/// What a name is replaced by.
pub const UNKNOWN: [&str; 3] = ["zz_unknown", "Q", "x9"];

/// Byte ranges (start, end) in a text.
pub type Spans = Vec<(usize, usize)>;

/// The byte ranges of number tokens (`-12`, `1.5e+06`) and of identifiers in `t`.
pub fn tokens(t: &[u8]) -> (Spans, Spans) {
    let (mut nums, mut idents) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < t.len() {
        let c = t[i];
        let signed = c == b'-' && t.get(i + 1).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_digit() || signed {
            let s = i;
            i += 1;
            while i < t.len() && t[i].is_ascii_digit() {
                i += 1;
            }
            if t.get(i) == Some(&b'.') && t.get(i + 1).is_some_and(u8::is_ascii_digit) {
                i += 1;
                while i < t.len() && t[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if matches!(t.get(i), Some(b'e' | b'E')) {
                let mut j = i + 1;
                if matches!(t.get(j), Some(b'+' | b'-')) {
                    j += 1;
                }
                if t.get(j).is_some_and(u8::is_ascii_digit) {
                    i = j;
                    while i < t.len() && t[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            nums.push((s, i));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < t.len() && (t[i].is_ascii_alphanumeric() || t[i] == b'_') {
                i += 1;
            }
            idents.push((s, i));
        } else {
            i += 1;
        }
    }
    (nums, idents)
}

/// The byte ranges of the lines of `t` (without their newlines).
pub fn lines(t: &[u8]) -> Spans {
    let mut v = Vec::new();
    let mut s = 0;
    for (i, &c) in t.iter().enumerate() {
        if c == b'\n' {
            v.push((s, i));
            s = i + 1;
        }
    }
    if s < t.len() {
        v.push((s, t.len()));
    }
    v
}

pub fn splice(t: &[u8], (s, e): (usize, usize), with: &[u8]) -> Vec<u8> {
    [&t[..s], with, &t[e..]].concat()
}

/// One random edit of `t`.
pub fn mutate(t: &[u8], g: &mut Rng) -> Vec<u8> {
    if t.is_empty() {
        return vec![b' ' + g.below(95) as u8];
    }
    let ls = lines(t);
    let (nums, idents) = tokens(t);
    match g.below(7) {
        // Delete a byte.
        0 => {
            let i = g.below(t.len());
            splice(t, (i, i + 1), b"")
        }
        // Duplicate a line.
        1 => {
            let (s, e) = ls[g.below(ls.len())];
            let mut line = t[s..e].to_vec();
            line.push(b'\n');
            splice(t, (s, s), &line)
        }
        // Swap two lines.
        2 => {
            let (a, b) = (ls[g.below(ls.len())], ls[g.below(ls.len())]);
            let (a, b) = if a.0 <= b.0 { (a, b) } else { (b, a) };
            if a == b {
                return t.to_vec();
            }
            [&t[..a.0], &t[b.0..b.1], &t[a.1..b.0], &t[a.0..a.1], &t[b.1..]].concat()
        }
        // Cut the text short.
        3 => t[..g.below(t.len())].to_vec(),
        // Replace a number.
        4 if !nums.is_empty() => splice(t, nums[g.below(nums.len())], NUMBERS[g.below(NUMBERS.len())].as_bytes()),
        // Replace a name.
        5 if !idents.is_empty() => splice(
            t,
            idents[g.below(idents.len())],
            UNKNOWN[g.below(UNKNOWN.len())].as_bytes(),
        ),
        // Insert a printable byte.
        _ => {
            let i = g.below(t.len() + 1);
            splice(t, (i, i), &[b' ' + g.below(95) as u8])
        }
    }
}

/// A mutant of `t`: one to three edits.
pub fn mutant(t: &[u8], g: &mut Rng) -> Vec<u8> {
    let mut m = mutate(t, g);
    for _ in 0..g.below(3) {
        m = mutate(&m, g);
    }
    m
}

// ---- helpers ----

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scratch directory of this test process.
pub fn scratch(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!(
        "{}-malformed-{}-{name}",
        env!("CARGO_PKG_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// A scratch directory, removed with what it holds when the test is done with it (a
/// run of the suite left hundreds behind).
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How many times more mutants to make than usual: `SIMPI_FUZZ_SCALE=20` for a longer hunt.
pub fn scale(n: usize) -> usize {
    n * std::env::var("SIMPI_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// Runs `f`; if it panics, fails with the panic and the input that caused it.
pub fn no_panic<T>(what: &str, input: &[u8], f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!(
                "{what} panicked ({msg}) on this input:\n{}",
                String::from_utf8_lossy(input)
            )
        }
    }
}

/// Fails unless more than `least` of the mutants were rejected: mutations that never
/// break anything would test nothing.
pub fn bites(what: &str, rejected: usize, total: usize, least: usize) {
    assert!(
        rejected > least,
        "{what}: only {rejected} of {total} mutants were rejected: the mutations do not bite"
    );
}
