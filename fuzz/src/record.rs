//! Compute records (`simpi run --compute replay FILE`, what `--compute record` writes):
//! the reader, for runs of several sizes.

use super::scratch::{fresh_dir, write};
use simpi::online::record::read;

/// Reads the input as the record of runs of 1, 3 and 64 ranks.
pub fn record(data: &[u8]) {
    let dir = fresh_dir();
    let path = write(&dir, "compute.txt", data);
    for ranks in [1, 3, 64] {
        if let Err(e) = read(&path, ranks) {
            let _ = e.to_string();
        }
    }
}
