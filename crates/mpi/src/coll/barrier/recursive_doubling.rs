//! Recursive-doubling barrier (Open MPI's `ompi_coll_base_barrier_intra_recursivedoubling`;
//! SimGrid 3.32 `barrier-ompi.cpp`, `barrier__ompi_recursivedoubling`). With `p'` the
//! largest power of two not above `n`: a rank `r >= p'` does one zero-byte send-receive
//! with `r - p'` and is done; a rank `r < n - p'` first receives from `r + p'`. Ranks
//! below `p'` then do a zero-byte send-receive with `r XOR mask` for `mask = 1, 2, …,
//! p'/2`, and ranks below `n - p'` finally send to `r + p'` (blocking), which releases it.

use crate::coll::barrier::TAG;
use crate::coll::{pow2_floor, Algorithm, CollSpec, Collective, Emitter, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Barrier,
    name: "recursive_doubling",
    source: "Open MPI coll/base recursive doubling barrier; SimGrid 3.32 barrier__ompi_recursivedoubling",
    simgrid: Some("ompi_recursivedoubling"),
    emit,
    alike: Some(crate::coll::alike_by_xor_on_powers_of_two),
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    let adj = pow2_floor(n);
    if r >= adj {
        let peer = r - adj;
        e.send_sync(peer, TAG, 0, &[]);
        e.recv_sync(peer, TAG, 0, &[]);
        return;
    }
    let mut last: Vec<Step> = Vec::new();
    if r < n - adj {
        last = vec![e.recv_sync(r + adj, TAG, 0, &[])];
    }
    let mut mask = 1u32;
    while mask < adj {
        let peer = r ^ mask;
        let snd = e.send_sync(peer, TAG, 0, &last);
        let rcv = e.recv_sync(peer, TAG, 0, &last);
        last = vec![snd, rcv];
        mask <<= 1;
    }
    if r < n - adj {
        e.send_sync(r + adj, TAG, 0, &last);
    }
}
