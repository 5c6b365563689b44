//! Issue 16 (fuzzing): every input a fuzz target ever crashed, aborted, hung or ran out
//! of memory on is kept in `fuzz/regressions/<target>/`, and replayed here through the
//! very harness the target runs (`fuzz/src`, compiled into this test). None may panic
//! or take longer than [`LIMIT`]. See docs/fuzzing.md.

#[path = "../../../fuzz/src/lib.rs"]
mod harness;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// What one input may take here (an optimised build; the fuzzer allows 10 s with
/// overflow checks and debug assertions on).
const LIMIT: Duration = Duration::from_secs(60);

/// The stack of libFuzzer's main thread, where the harnesses run when fuzzing (deep
/// but bounded recursion must behave the same here).
const STACK: usize = 8 << 20;

/// `fuzz/<kind>/<target>`: `regressions` (findings) or `corpus` (seeds).
fn inputs_of(kind: &str, target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join(kind)
        .join(target)
}

fn regressions(target: &str) -> PathBuf {
    inputs_of("regressions", target)
}

/// Runs every input in `dir` through `target`'s harness; lists those that panicked or
/// overran.
fn replay(dir: &Path, target: &str) -> Vec<String> {
    let (_, run) = harness::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .expect("a target of fuzz/src/lib.rs");
    let Ok(dir) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    // Hidden files (`.keep`) are not inputs.
    let mut inputs: Vec<PathBuf> = dir
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .collect();
    inputs.sort();
    let mut failures = Vec::new();
    for input in inputs {
        let data = std::fs::read(&input).expect("a stored input reads");
        let (tx, rx) = mpsc::channel();
        let run = *run;
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(move || {
                let outcome = std::panic::catch_unwind(|| run(&data));
                harness::scratch::remove_dir();
                let _ = tx.send(outcome.map_err(|p| {
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default()
                }));
            })
            .expect("a thread starts");
        match rx.recv_timeout(LIMIT) {
            Ok(Ok(())) => {}
            Ok(Err(msg)) => failures.push(format!("{}: panicked: {msg}", input.display())),
            Err(_) => failures.push(format!("{}: still running after {LIMIT:?}", input.display())),
        }
    }
    failures
}

macro_rules! regression_tests {
    ($($test:ident => $target:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            let failures = replay(&regressions($target), $target);
            assert!(failures.is_empty(), "{} of the stored inputs fail:\n{}", failures.len(), failures.join("\n"));
        }
    )*};
}

regression_tests! {
    issue16_fuzzing_goal_findings_stay_fixed => "goal",
    issue16_fuzzing_goal_replay_findings_stay_fixed => "goal_replay",
    issue16_fuzzing_tit_findings_stay_fixed => "tit",
    issue16_fuzzing_tit_replay_findings_stay_fixed => "tit_replay",
    issue20_fuzzing_allprof_findings_stay_fixed => "allprof",
    issue16_fuzzing_xml_platform_findings_stay_fixed => "xml_platform",
    issue16_fuzzing_toml_platform_findings_stay_fixed => "toml_platform",
    issue16_fuzzing_hostfile_findings_stay_fixed => "hostfile",
    issue16_fuzzing_platform_replay_findings_stay_fixed => "platform_replay",
    issue16_fuzzing_cli_values_findings_stay_fixed => "cli_values",
    noise_trace_findings_stay_fixed => "noise",
    dumpi_trace_findings_stay_fixed => "dumpi",
    online_message_findings_stay_fixed => "wire",
    otf2_decoder_stream_findings_stay_fixed => "otf2",
    otf2_replay_findings_stay_fixed => "otf2_replay",
    preset_file_findings_stay_fixed => "preset",
    distributions_file_findings_stay_fixed => "distributions",
    measurements_file_findings_stay_fixed => "measurements",
    calibrate_fit_findings_stay_fixed => "calibrate_fit",
    compute_record_findings_stay_fixed => "record",
}

/// Every target has a directory of findings (empty ones hold a `.keep`), so that a
/// renamed target cannot silently stop being replayed.
#[test]
fn issue16_fuzzing_every_target_has_a_regression_directory() {
    for (target, _) in harness::TARGETS {
        assert!(regressions(target).is_dir(), "fuzz/regressions/{target} is missing");
    }
}

/// The seed corpora run clean too: a harness that no longer fits the code it calls
/// shows here, before a fuzzing run.
#[test]
fn issue16_fuzzing_seed_corpora_run_clean() {
    let mut failures = Vec::new();
    for (target, _) in harness::TARGETS {
        failures.extend(replay(&inputs_of("corpus", target), target));
    }
    assert!(
        failures.is_empty(),
        "{} seeds fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The places that name every target agree with [`harness::TARGETS`]: `scripts/fuzz`'s
/// list, `fuzz/make-corpus`'s loop (all but `wire`, whose seeds are committed as they
/// are), one `fuzz_targets/<name>.rs` each and its `[[bin]]` in `fuzz/Cargo.toml`; so a
/// target added in one place and forgotten in another fails here, not in a long run.
#[test]
fn issue16_fuzzing_every_list_of_targets_names_the_same_ones() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let read = |p: PathBuf| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut want: Vec<String> = harness::TARGETS.iter().map(|(t, _)| t.to_string()).collect();
    want.sort();
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let script = read(fuzz.join("../scripts/fuzz"));
    let listed = script
        .lines()
        .find_map(|l| l.strip_prefix("targets_all=("))
        .and_then(|l| l.strip_suffix(')'))
        .expect("scripts/fuzz has a targets_all=(...) line");
    assert_eq!(
        sorted(listed.split_whitespace().map(String::from).collect()),
        want,
        "scripts/fuzz"
    );
    let corpus = read(fuzz.join("make-corpus"));
    let looped = corpus
        .lines()
        .find_map(|l| l.strip_prefix("for t in ").and_then(|l| l.strip_suffix("; do")))
        .expect("fuzz/make-corpus has a `for t in ...; do` loop");
    let mut no_wire = want.clone();
    no_wire.retain(|t| t != "wire");
    assert_eq!(
        sorted(looped.split_whitespace().map(String::from).collect()),
        no_wire,
        "fuzz/make-corpus"
    );
    let files: Vec<String> = std::fs::read_dir(fuzz.join("fuzz_targets"))
        .expect("fuzz/fuzz_targets")
        .map(|e| e.expect("an entry").path())
        .filter_map(|p| Some(p.file_name()?.to_str()?.strip_suffix(".rs")?.to_string()))
        .collect();
    assert_eq!(sorted(files), want, "fuzz/fuzz_targets");
    let bins: Vec<String> = read(fuzz.join("Cargo.toml"))
        .lines()
        .filter_map(|l| l.strip_prefix("name = \"")?.strip_suffix('"').map(String::from))
        .filter(|n| n != "simpi-fuzz" && n != "simpi_fuzz")
        .collect();
    assert_eq!(sorted(bins), want, "fuzz/Cargo.toml");
}
