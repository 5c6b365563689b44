//! Dissemination barrier: in round `k` every rank sends to `rank + 2^k` and receives
//! from `rank - 2^k` (mod n), for `ceil(log2 n)` rounds; a round starts when the
//! previous round's receive has completed.

use super::{Params, Step};
use crate::goal::Label;
use std::io::{self, Write};

pub(super) fn rank<W: Write>(p: &Params, r: u32, s: &mut Step<'_, W>) -> io::Result<Vec<Label>> {
    let n = p.ranks as u64;
    let mut ops = Vec::new();
    let mut last = None;
    let mut dist = 1u64;
    while dist < n {
        let to = ((r as u64 + dist) % n) as u32;
        let from = ((r as u64 + n - dist % n) % n) as u32;
        ops.push(s.send(p.bytes, to, 0, last)?);
        let rv = s.recv(p.bytes, from, 0, last)?;
        ops.push(rv);
        last = Some(rv);
        dist *= 2;
    }
    Ok(ops)
}
