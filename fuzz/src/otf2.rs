//! OTF2 traces: what the reader does with the OTF2 library's records, in this process
//! (definitions checked and mapped, events turned into MPI calls, collectives read
//! back from byte counts); `otf2_replay` then replays what reads.
//!
//! An input is the byte stream a decoder process sends (frames of records, as
//! `simpi_trace::otf2::record_otf2_script` records them from a real archive). The
//! library itself runs in that process in real use, where its crashes and loops become
//! errors; `crates/trace/tests/otf2_malformed.rs` mutates archives for that side.

use super::run::{exercise, flow, loggops, platform, small, trace_options, whole};
use simpi::TimeUnit;
use simpi::{Format, Preset};
use simpi_trace::goal::write_schedule;
use simpi_trace::otf2::read_otf2_script;

/// Reads the stream into a whole schedule (Open MPI's collectives), exported as GOAL.
pub fn otf2(data: &[u8]) {
    match read_otf2_script(data, &trace_options(1e-4, true)) {
        Ok(t) => {
            let _ = write_schedule(&t.schedule, std::io::sink(), TimeUnit::Ns);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// Reads the stream as `otf2` does; if it reads and is small, replays it under the
/// hybrid model and LogGOPS.
pub fn otf2_replay(data: &[u8]) {
    let trace = match read_otf2_script(data, &trace_options(1e-4, true)) {
        Ok(t) => t,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    if !small(&trace.schedule) {
        return;
    }
    let ranks = trace.schedule.num_ranks();
    let mut w = whole(trace.schedule, "script/traces.otf2", Format::Otf2);
    exercise(&mut w, &flow(platform(), ranks, Preset::smpi()));
    exercise(&mut w, &loggops(ranks).model());
}
