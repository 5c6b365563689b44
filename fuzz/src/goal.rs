//! GOAL schedules: the reader (in memory, and from a file split in two halves), the
//! exporter and the stall locator; then replays of what reads.

use super::run::{constant, exercise, loggops, small};
use super::scratch::{fresh_dir, write};
use simpi::{count_ranks, load, CollChoice, Format, LoadOptions, TimeUnit};
use simpi_trace::goal::{locate_ops, read_goal_file_with, write_schedule};
use simpi_trace::read_goal;

/// The time unit an input is read in: by its length, so that a given input always
/// reads the same way and every unit is tried (seconds make `calc` times overflow).
fn unit_of(data: &[u8]) -> TimeUnit {
    [TimeUnit::Ns, TimeUnit::Ps, TimeUnit::Us, TimeUnit::Ms, TimeUnit::S][data.len() % 5]
}

/// Reads `data` as a GOAL schedule the ways simpi does: in memory, and from a file with
/// the two-halves reader, which promises the sequential reader's result. What reads is
/// exported and its operations located in the file, as stall reports do.
pub fn goal(data: &[u8]) {
    let unit = unit_of(data);
    let in_memory = read_goal(data, "fuzz.goal", unit);
    let dir = fresh_dir();
    let path = write(&dir, "schedule.goal", data);
    let _ = count_ranks(&path, None).map_err(|e| e.to_string());
    let _ = Format::detect(&path);
    let halves = read_goal_file_with(&path, unit, 0);
    match (&in_memory, &halves) {
        (Ok(a), Ok(b)) => {
            assert_eq!(
                (a.num_ranks(), a.num_ops(), a.num_edges()),
                (b.num_ranks(), b.num_ops(), b.num_edges()),
                "the two-halves reader read another schedule than the sequential one"
            );
        }
        (Err(_), Err(e)) => {
            let _ = e.to_string();
        }
        (a, b) => panic!(
            "the sequential and two-halves readers disagree: {:?} vs {:?}",
            a.as_ref().err().map(|e| e.to_string()),
            b.as_ref().err().map(|e| e.to_string())
        ),
    }
    let Ok(s) = in_memory else { return };
    let _ = write_schedule(&s, std::io::sink(), unit);
    let mut wanted = Vec::new();
    for r in 0..s.num_ranks().min(8) {
        let n = s.rank_ops(r).len() as u32;
        wanted.push((r, 0));
        wanted.push((r, n.saturating_sub(1)));
    }
    let _ = locate_ops(&path, unit, &wanted);
}

/// Loads `data` as `simpi replay FILE` does and, if it is small, simulates it under
/// LogGOPS (the default parameters) and the constant model.
pub fn goal_replay(data: &[u8]) {
    let dir = fresh_dir();
    let path = write(&dir, "schedule.goal", data);
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
    let mut w = match load(&path, &opts) {
        Ok(w) => w,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let Some(ranks) = w.schedule().filter(|s| small(s)).map(|s| s.num_ranks()) else {
        return;
    };
    let m = loggops(ranks);
    exercise(&mut w, &m.model());
    exercise(&mut w, &constant());
}
