//! Golden cases under `tests/golden/`: each directory holds `schedule.goal`, `args`
//! (LogGOPS parameters as on the command line) and `expected.txt`, LogGOPSim's
//! `Host <i>: <t>` lines. Expected values come from hand derivations (written in each
//! schedule's comments) or from LogGOPSim itself (`tests/golden/loggopsim/`); a file
//! that reads `stall` expects the schedule to be reported as unable to complete.

use simpi::{replay_goal, Error, LogGops, Model, ReplayOptions, TimeUnit};
use std::path::{Path, PathBuf};

fn golden_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

fn parse_args(text: &str) -> (LogGops, TimeUnit) {
    let mut vals = [2500u64, 1500, 1000, 6, 0, 65535];
    let mut unit = TimeUnit::Ns;
    let toks: Vec<&str> = text.split_whitespace().collect();
    for pair in toks.chunks(2) {
        let v = pair[1];
        match pair[0] {
            "-L" => vals[0] = v.parse().unwrap(),
            "-o" => vals[1] = v.parse().unwrap(),
            "-g" => vals[2] = v.parse().unwrap(),
            "-G" => vals[3] = v.parse().unwrap(),
            "-O" => vals[4] = v.parse().unwrap(),
            "-S" => vals[5] = v.parse().unwrap(),
            "--time-unit" => unit = v.parse().unwrap(),
            other => panic!("unknown golden argument {other}"),
        }
    }
    (
        LogGops::from_units(unit, vals[0], vals[1], vals[2], vals[3], vals[4], vals[5]),
        unit,
    )
}

fn run_case(dir: &Path) -> Result<(), String> {
    let args = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
    let expected = std::fs::read_to_string(dir.join("expected.txt")).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (model, unit) = parse_args(&args);
    let result = replay_goal(
        &dir.join("schedule.goal"),
        ReplayOptions {
            unit,
            model: Model::LogGops(model),
            progress: None,
            max_blocked_ranks: 5,
        },
    );
    match (result, expected.trim() == "stall") {
        (Ok(report), false) => {
            let mut out = Vec::new();
            report.write_loggopsim(&mut out, unit).unwrap();
            let got = String::from_utf8(out).unwrap();
            if got.trim() != expected.trim() {
                return Err(format!(
                    "{}: end times differ\n--- expected\n{}\n--- got\n{}",
                    dir.display(),
                    expected.trim(),
                    got.trim()
                ));
            }
            Ok(())
        }
        (Err(Error::Stall(_)), true) => Ok(()),
        (Ok(_), true) => Err(format!("{}: expected a stall, but the run completed", dir.display())),
        (Err(e), _) => Err(format!("{}: {e}", dir.display())),
    }
}

fn cases_in(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("schedule.goal").exists())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn hand_derived_cases() {
    let cases = cases_in(&golden_root());
    assert!(cases.len() >= 7, "golden cases missing: {cases:?}");
    let failures: Vec<String> = cases.iter().filter_map(|d| run_case(d).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn loggopsim_reference_cases() {
    let root = golden_root().join("loggopsim");
    let cases = cases_in(&root);
    assert!(
        cases.len() >= 20,
        "LogGOPSim reference cases missing under {}",
        root.display()
    );
    let failures: Vec<String> = cases.iter().filter_map(|d| run_case(d).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from LogGOPSim:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
