//! Binomial-tree broadcast from rank 0: a rank receives from the rank that differs in
//! its lowest set bit, then forwards to `rank + 2^k` for every `2^k` below that bit,
//! largest subtree first (MPICH's binomial bcast, root 0).

use super::{Params, Step};
use crate::goal::Label;
use std::io::{self, Write};

pub(super) fn rank<W: Write>(p: &Params, r: u32, s: &mut Step<'_, W>) -> io::Result<Vec<Label>> {
    let n = p.ranks;
    let mut ops = Vec::new();
    let mut mask = 1u32;
    let mut got = None;
    while mask < n {
        if r & mask != 0 {
            got = Some(s.recv(p.bytes, r - mask, 0, None)?);
            ops.push(got.unwrap());
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if r + mask < n {
            ops.push(s.send(p.bytes, r + mask, 0, got)?);
        }
        mask >>= 1;
    }
    Ok(ops)
}
