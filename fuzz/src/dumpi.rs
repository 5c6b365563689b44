//! DUMPI traces: one rank's binary file (index, header, datatype sizes, call records)
//! read and converted into a schedule, as `simpi replay` and `simpi convert` read it.

use super::scratch::{fresh_dir, write};
use simpi::mpi::coll::CollSpec;
use simpi::CollChoice;
use simpi_trace::dumpi::{dumpi_calls, looks_like_dumpi, read_dumpi};
use simpi_trace::tit::TitOptions;

/// Reads the input as rank 0's file of a one-rank trace: every record decoded, then the
/// trace converted into a schedule.
pub fn dumpi(data: &[u8]) {
    let dir = fresh_dir();
    let path = write(&dir, "t-0000.bin", data);
    let _ = looks_like_dumpi(&path);
    let _ = dumpi_calls(&path);
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::by_name("ompi").expect("a selector");
    let choose = |s: &CollSpec| coll.choose(s);
    let opts = TitOptions {
        speed: &speed,
        choose: &choose,
        test_cost: 1e-6,
        calls: true,
    };
    if let Err(e) = read_dumpi(&path, &opts) {
        let _ = e.to_string();
    }
}
