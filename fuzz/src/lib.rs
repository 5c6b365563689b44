//! The harnesses of simpi's fuzz targets: each takes the fuzzer's bytes and runs them
//! through the code a user's file or option reaches. Returning (with or without an
//! error from simpi) is fine; a panic, an abort, a hang or running out of memory is a
//! finding. Also compiled into `crates/simpi/tests/fuzz_regressions.rs`, which replays
//! the stored findings through the same functions (see docs/fuzzing.md).

pub mod allprof;
pub mod cli;
pub mod distributions;
pub mod dumpi;
pub mod goal;
pub mod measurements;
pub mod noise;
pub mod otf2;
pub mod platform;
pub mod preset;
// Not in the regression test, where Rust's runtime reports stack overflows itself.
#[cfg(not(test))]
pub mod process;
pub mod record;
pub mod run;
pub mod scratch;
pub mod tit;
pub mod wire;

/// A harness: runs one input.
pub type Harness = fn(&[u8]);

/// Every target: its name (as in `fuzz_targets/<name>.rs`) and its harness.
pub const TARGETS: [(&str, Harness); 20] = [
    ("goal", goal::goal),
    ("goal_replay", goal::goal_replay),
    ("tit", tit::tit),
    ("dumpi", dumpi::dumpi),
    ("tit_replay", tit::tit_replay),
    ("xml_platform", platform::xml_platform),
    ("toml_platform", platform::toml_platform),
    ("hostfile", platform::hostfile),
    ("platform_replay", platform::platform_replay),
    ("cli_values", cli::cli_values),
    ("noise", noise::noise),
    ("allprof", allprof::allprof),
    ("wire", wire::wire),
    ("otf2", otf2::otf2),
    ("otf2_replay", otf2::otf2_replay),
    ("preset", preset::preset),
    ("distributions", distributions::distributions),
    ("measurements", measurements::measurements),
    ("calibrate_fit", measurements::calibrate_fit),
    ("record", record::record),
];
