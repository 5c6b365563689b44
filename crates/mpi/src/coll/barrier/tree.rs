//! Tree barrier (Open MPI's `ompi_coll_base_barrier_intra_tree`; SimGrid 3.32
//! `barrier-ompi.cpp`, `barrier__ompi_tree`). With `P` the smallest power of two not
//! below `n`, up the tree for `jump = 1, 2, …, P/2`: when `partner = rank XOR jump` is a
//! rank whose bits below `jump` are clear, the higher of the two sends a zero-byte
//! message to the lower, which receives it. Then down the tree for `jump = P/2, …, 1`
//! the same pairs exchange in the other direction. Every operation is blocking.

use crate::coll::barrier::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Barrier,
    name: "tree",
    source: "Open MPI coll/base tree barrier; SimGrid 3.32 barrier__ompi_tree",
    simgrid: Some("ompi_tree"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    let depth = n.next_power_of_two();
    let mut last: Vec<Step> = Vec::new();
    let pairs = |jump: u32| {
        let partner = r ^ jump;
        (partner & (jump - 1) == 0 && partner < n).then_some(partner)
    };
    let mut jump = 1u32;
    while jump < depth {
        if let Some(partner) = pairs(jump) {
            last = vec![if partner > r {
                e.recv_sync(partner, TAG, 0, &last)
            } else {
                e.send_sync(partner, TAG, 0, &last)
            }];
        }
        jump <<= 1;
    }
    jump = depth >> 1;
    while jump > 0 {
        if let Some(partner) = pairs(jump) {
            last = vec![if partner > r {
                e.send_sync(partner, TAG, 0, &last)
            } else {
                e.recv_sync(partner, TAG, 0, &last)
            }];
        }
        jump >>= 1;
    }
}
