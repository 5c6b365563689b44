//! Synchronised linear gather (Open MPI 4.1's `ompi_coll_base_gather_intra_linear_sync`,
//! `coll_base_gather.c`; tuned algorithm 3), with the first-segment size of SimGrid 3.32's
//! port (`gather-ompi.cpp`, `gather__ompi_linear_sync`). For each other rank `i` in
//! increasing order the root posts a receive of `i`'s first segment, sends `i` a
//! zero-byte go-ahead (blocking), posts a receive of the second segment and waits for the
//! first one; it then waits for all second segments. A non-root rank receives the
//! go-ahead, then sends the first segment and the second one (blocking).
//!
//! The first segment is 1024 bytes, or 32768 for blocks above 92160 bytes, rounded to
//! whole elements as Open MPI's `COLL_TUNED_COMPUTED_SEGCOUNT` does (down, or up when the
//! leftover is more than half an element); a block no longer than that is sent whole
//! and the second segment is an empty message, which is still sent. Open MPI 4.1's fixed
//! decision rules pass a first-segment size of 0 instead, which always sends the block
//! whole; simpi takes SimGrid's sizes so that replays match SimGrid's.

use crate::coll::gather::TAG;
use crate::coll::{computed_segcount, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Gather,
    name: "linear_sync",
    source:
        "Open MPI 4.1 coll/base gather linear_sync; first segment size by SimGrid 3.32 gather__ompi_linear_sync's rule",
    simgrid: Some("ompi_linear_sync"),
    emit,
    alike: None,
};

/// Bytes of the first segment of a block of `bytes` bytes with `elem`-byte elements.
fn first_segment(bytes: u64, elem: u64) -> u64 {
    let seg = if bytes > 92160 { 32768 } else { 1024 };
    let t = elem.max(1);
    let count = bytes / t;
    match computed_segcount(seg, t, count) {
        n if n == count => bytes,
        n => n * t,
    }
}

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let r = s.me;
    let root = s.root;
    let first_bytes = first_segment(s.bytes, s.elem);
    let second_bytes = s.bytes - first_bytes;
    if r != root {
        let go = e.recv_sync(root, TAG, 0, &[]);
        // The first segment carries the block: the second only adds its bytes.
        let first = e.send_sized(root, TAG, &[r], first_bytes, &[go]);
        e.send_sync(root, TAG, second_bytes, &[first]);
        return;
    }
    let mut last: Vec<Step> = Vec::new();
    for i in (0..s.size).filter(|&i| i != r) {
        let first = e.recv_sized(i, TAG, &[i], Merge::Copy, first_bytes, &last);
        let go = e.send_sync(i, TAG, 0, &last);
        // The second segment's receive is posted once the blocking go-ahead is sent; the
        // final wait-all is the end of the collective.
        e.recv_sync(i, TAG, second_bytes, &[go]);
        last = vec![first, go];
    }
}

#[cfg(test)]
mod tests {
    use super::first_segment;

    #[test]
    fn first_segment_follows_simgrids_sizes_in_whole_elements() {
        // (block bytes, element bytes, first segment): whole up to 1024 bytes; 1024 up to
        // 92160; 32768 above; 1024/24 = 42 r 16 > 12 rounds up to 43 elements (1032);
        // 32768/24 = 1365 r 8 ≤ 12 stays at 1365 (32760); elements above the segment
        // size leave the block whole.
        for (bytes, elem, want) in [
            (0, 1, 0),
            (1000, 1, 1000),
            (1024, 1, 1024),
            (1025, 1, 1024),
            (2000, 8, 1024),
            (1200, 24, 1032),
            (92160, 1, 1024),
            (92161, 1, 32768),
            (100000, 8, 32768),
            (100008, 24, 32760),
            (4096, 2048, 4096),
            (64, 0, 64),
        ] {
            assert_eq!(
                first_segment(bytes, elem),
                want,
                "{bytes} bytes of {elem}-byte elements"
            );
        }
    }
}
