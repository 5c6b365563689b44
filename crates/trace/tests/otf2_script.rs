//! The OTF2 reader without its decoder process: a script of the bytes a decoder sent
//! (what the `otf2` fuzz target reads) gives the very schedule the archive gives, and a
//! script cut anywhere is an error naming a file, not a panic.

use simpi_kernel::TimeUnit;
use simpi_mpi::coll::{registry, Algorithm, CollSpec};
use simpi_mpi::Schedule;
use simpi_trace::goal::write_schedule;
use simpi_trace::otf2::{read_otf2, read_otf2_script, record_otf2_script};
use simpi_trace::tit::TitOptions;
use std::path::{Path, PathBuf};

fn first(s: &CollSpec) -> &'static Algorithm {
    registry().into_iter().find(|a| a.coll == s.coll).expect("an algorithm")
}

fn gigaflop(_rank: u32) -> f64 {
    1e9
}

fn opts(calls: bool) -> TitOptions<'static> {
    TitOptions {
        speed: &gigaflop,
        choose: &first,
        test_cost: 1e-4,
        calls,
    }
}

fn archives() -> Vec<PathBuf> {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/otf2");
    let mut v: Vec<PathBuf> = std::fs::read_dir(golden)
        .unwrap()
        .map(|e| e.unwrap().path().join("traces.otf2"))
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    assert!(v.len() >= 4, "the golden archives: {v:?}");
    v
}

fn goal(s: &Schedule) -> Vec<u8> {
    let mut out = Vec::new();
    write_schedule(s, &mut out, TimeUnit::Ps).unwrap();
    out
}

#[test]
fn a_recorded_script_reads_to_the_archive_s_own_schedule() {
    let opts = opts(true);
    for anchor in archives() {
        let direct = read_otf2(&anchor, &opts).unwrap();
        let (recorded, script) = record_otf2_script(&anchor, &opts).unwrap();
        let replayed = read_otf2_script(&script, &opts).unwrap();
        let want = goal(&direct.schedule);
        assert!(want.len() > 100, "{}: an empty schedule", anchor.display());
        assert_eq!(goal(&recorded.schedule), want, "{}", anchor.display());
        assert_eq!(goal(&replayed.schedule), want, "{}", anchor.display());
    }
}

#[test]
fn a_script_cut_short_is_an_error_naming_a_file_of_the_archive() {
    let opts = opts(false);
    let anchor = &archives()[0];
    let (_, script) = record_otf2_script(anchor, &opts).unwrap();
    let mut cuts = 0;
    for end in (0..script.len()).step_by(97) {
        let e = read_otf2_script(&script[..end], &opts).unwrap_err();
        assert!(e.file.starts_with("script/traces"), "cut at {end}: {e}");
        cuts += 1;
    }
    assert!(cuts > 10);
}
