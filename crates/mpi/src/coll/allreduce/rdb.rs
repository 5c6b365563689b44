//! Recursive-doubling allreduce (MPICH's; SimGrid 3.32 `allreduce-rdb.cpp`). With
//! `rem = n - 2^k` extra ranks, the first `2·rem` ranks fold pairwise (even ranks send
//! their vector to the odd neighbour and wait for the result); the remaining `2^k` ranks
//! exchange whole vectors with `newrank XOR 2^i` for each `i`, combining; the odd ranks
//! then return the result to their even partners.

use crate::coll::allreduce::TAG;
use crate::coll::{pow2_floor, Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "rdb",
    source: "MPICH recursive doubling; SimGrid 3.32 allreduce__rdb",
    simgrid: Some("rdb"),
    emit,
    alike: Some(crate::coll::alike_by_xor_on_powers_of_two),
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let n = s.size;
    let r = s.me;
    let pof2 = pow2_floor(n);
    let rem = n - pof2;
    // The steps the next exchange waits for: `last[..waits]` (an array, not a Vec:
    // this runs once per rank and call).
    let mut last: [Step; 2] = [0; 2];
    let mut waits = 0;
    let newrank = if r < 2 * rem {
        if r.is_multiple_of(2) {
            let s1 = e.send(r + 1, TAG, &[0], &[]);
            e.recv(r + 1, TAG, &[0], Merge::Copy, &[s1]);
            return;
        }
        last[0] = e.recv(r - 1, TAG, &[0], Merge::Reduce, &[]);
        waits = 1;
        r / 2
    } else {
        r - rem
    };
    let real = |nr: u32| if nr < rem { nr * 2 + 1 } else { nr + rem };
    let mut mask = 1u32;
    while mask < pof2 {
        let partner = real(newrank ^ mask);
        // MPI_Sendrecv: both posted together, the combine waits for both.
        let snd = e.send(partner, TAG, &[0], &last[..waits]);
        let rcv = e.recv(partner, TAG, &[0], Merge::Reduce, &last[..waits]);
        last = [snd, rcv];
        waits = 2;
        mask <<= 1;
    }
    if r < 2 * rem {
        e.send(r - 1, TAG, &[0], &last[..waits]);
    }
}
