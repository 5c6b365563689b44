//! SimGrid time-independent traces: the reader and the MPI semantics that turn a rank's
//! calls into operations (index file, per-rank files, or one file of every rank's
//! lines); then live and whole replays of what reads.
//!
//! An input is one file, or several separated by `%%` lines: the first is then the
//! index (`trace.txt`), and the k-th after it is `trace.txt_files/<k>.txt` (from 0), the
//! names the seed corpus's indexes use.

use super::run::{constant, exercise, flow, loggops, platform, small};
use super::scratch::{fresh_dir, parts, write};
use simpi::mpi::coll::CollSpec;
use simpi::{load, CollChoice, Format, LoadOptions, Preset, TimeUnit};
use simpi_trace::goal::write_schedule;
use simpi_trace::tit::{looks_like_tit, read_tit_on, TitOptions};
use std::path::PathBuf;

/// Most files of an input (the index and 64 rank files).
const MAX_FILES: usize = 65;

/// Writes the trace's files; gives the path to open.
fn write_trace(data: &[u8]) -> PathBuf {
    let dir = fresh_dir();
    let files = parts(data, MAX_FILES);
    let index = write(&dir, "trace.txt", files[0]);
    for (k, f) in files[1..].iter().enumerate() {
        write(&dir, &format!("trace.txt_files/{k}.txt"), f);
    }
    index
}

/// Opens the trace as `simpi replay` does (detecting the format) and converts it into a
/// schedule, exported as GOAL: with Open MPI's collectives on two threads, or MPICH's
/// on one (by the input's length, so that a given input always takes the same path and
/// each takes one conversion).
pub fn tit(data: &[u8]) {
    let path = write_trace(data);
    let _ = looks_like_tit(&path);
    let speed = |_r: u32| 1e9;
    let (selector, threads) = if data.len() & 1 == 0 { ("ompi", 2) } else { ("mpich", 1) };
    let coll = CollChoice::by_name(selector).expect("a selector");
    let choose = |s: &CollSpec| coll.choose(s);
    let opts = TitOptions {
        speed: &speed,
        choose: &choose,
        test_cost: 1e-4,
        calls: true,
    };
    match read_tit_on(&path, &opts, threads) {
        Ok(t) => {
            let _ = write_schedule(&t.schedule, std::io::sink(), TimeUnit::Ns);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// Replays the trace if it is small: read live (as `simpi replay` does) over the flow
/// and hybrid models, and converted whole under the hybrid, LogGOPS and constant models.
pub fn tit_replay(data: &[u8]) {
    let path = write_trace(data);
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::by_name("ompi").expect("a selector");
    // The budget: convert the whole trace first (bounded by the reader's own limits).
    let ranks = {
        let choose = |s: &CollSpec| coll.choose(s);
        let opts = TitOptions {
            speed: &speed,
            choose: &choose,
            test_cost: 1e-4,
            calls: false,
        };
        match read_tit_on(&path, &opts, 1) {
            Ok(t) if small(&t.schedule) => t.schedule.num_ranks(),
            _ => return,
        }
    };
    let p = platform();
    for whole in [false, true] {
        let opts = LoadOptions {
            format: Some(Format::Tit),
            unit: TimeUnit::Ns,
            speed: &speed,
            collectives: &coll,
            test_cost: 1e-4,
            calls: true,
            whole,
        };
        let Ok(mut w) = load(&path, &opts) else { continue };
        exercise(&mut w, &flow(p, ranks, Preset::smpi()));
        if whole {
            exercise(&mut w, &loggops(ranks).model());
            exercise(&mut w, &constant());
        } else {
            exercise(&mut w, &flow(p, ranks, Preset::flow()));
        }
    }
}
