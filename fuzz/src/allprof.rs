//! liballprof traces: the reader (rank files, lines, communicator handles, requests by
//! address) and the calls it makes; then live and whole replays of what reads.
//!
//! An input is rank 0's file, or several separated by `%%` lines: the k-th is
//! `pmpi-trace-rank-<k>.txt`.

use super::run::{exercise, loggops, small, trace_options};
use super::scratch::{fresh_dir, parts, write};
use simpi::{load, CollChoice, Format, LoadOptions, TimeUnit};
use simpi_trace::allprof::{looks_like_allprof, read_allprof};

/// Most rank files of an input.
const MAX_FILES: usize = 64;

/// Reads the trace whole (Open MPI's collectives); if it reads and is small, replays it
/// live and whole under LogGOPS as `simpi replay` would.
pub fn allprof(data: &[u8]) {
    let dir = fresh_dir();
    let files = parts(data, MAX_FILES);
    let mut first = None;
    for (k, f) in files.iter().enumerate() {
        let p = write(&dir, &format!("pmpi-trace-rank-{k}.txt"), f);
        first.get_or_insert(p);
    }
    let path = first.expect("one file at least");
    let _ = looks_like_allprof(&path);
    let ranks = match read_allprof(&path, &trace_options(1e-4, true)) {
        Ok(t) if small(&t.schedule) => t.schedule.num_ranks(),
        Ok(_) => return,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::by_name("ompi").expect("a selector");
    for whole in [false, true] {
        let lopts = LoadOptions {
            format: Some(Format::Allprof),
            unit: TimeUnit::Ns,
            speed: &speed,
            collectives: &coll,
            test_cost: 1e-4,
            calls: true,
            whole,
        };
        let Ok(mut w) = load(&path, &lopts) else { continue };
        exercise(&mut w, &loggops(ranks).model());
    }
}
