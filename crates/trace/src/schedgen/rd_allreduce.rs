//! Recursive-doubling allreduce. With `2^k` ranks, in step `i` every rank exchanges its
//! whole vector with `rank XOR 2^i`. Otherwise the first `2·rem` ranks (`rem = n - 2^k`)
//! fold pairwise first (even ranks hand their vector to the odd neighbour and sit out),
//! and get the result back at the end (MPICH's scheme).
//!
//! Each step is a send-receive pair: both start when the previous step's receive has
//! completed.

use super::{pow2_floor, Params, Step};
use crate::goal::Label;
use std::io::{self, Write};

pub(super) fn rank<W: Write>(p: &Params, r: u32, s: &mut Step<'_, W>) -> io::Result<Vec<Label>> {
    let n = p.ranks;
    let pof2 = pow2_floor(n);
    let rem = n - pof2;
    let bytes = p.bytes;
    let mut ops = Vec::new();
    let mut last: Option<Label> = None;

    // Fold: of each pair (2j, 2j+1) below 2·rem, the even rank drops out.
    let newrank = if r < 2 * rem {
        if r.is_multiple_of(2) {
            ops.push(s.send(bytes, r + 1, 0, None)?);
            let back = s.recv(bytes, r + 1, 0, None)?;
            ops.push(back);
            return Ok(ops);
        }
        last = Some(s.recv(bytes, r - 1, 0, None)?);
        ops.push(last.unwrap());
        r / 2
    } else {
        r - rem
    };
    let real = |nr: u32| if nr < rem { nr * 2 + 1 } else { nr + rem };

    let mut mask = 1u32;
    while mask < pof2 {
        let partner = real(newrank ^ mask);
        ops.push(s.send(bytes, partner, 1, last)?);
        let rv = s.recv(bytes, partner, 1, last)?;
        ops.push(rv);
        last = Some(rv);
        mask <<= 1;
    }

    if r < 2 * rem {
        ops.push(s.send(bytes, r - 1, 0, last)?);
    }
    Ok(ops)
}
