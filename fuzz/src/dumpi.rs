//! DUMPI traces: one rank's binary file (index, header, datatype sizes, call records)
//! read and converted into a schedule, as `simpi replay` and `simpi convert` read it.

use super::run::trace_options;
use super::scratch::{fresh_dir, write};
use simpi_trace::dumpi::{dumpi_calls, looks_like_dumpi, read_dumpi};

/// Reads the input as rank 0's file of a one-rank trace: every record decoded, then the
/// trace converted into a schedule.
pub fn dumpi(data: &[u8]) {
    let dir = fresh_dir();
    let path = write(&dir, "t-0000.bin", data);
    let _ = looks_like_dumpi(&path);
    let _ = dumpi_calls(&path);
    if let Err(e) = read_dumpi(&path, &trace_options(1e-6, true)) {
        let _ = e.to_string();
    }
}
