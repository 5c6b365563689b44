//! Binomial-tree reduce to rank 0: the mirror of the binomial broadcast. A rank first
//! receives from each child `rank + 2^k` (smallest subtree first), then sends its
//! combined data to its parent.

use super::{Params, Step};
use crate::goal::Label;
use std::io::{self, Write};

pub(super) fn rank<W: Write>(p: &Params, r: u32, s: &mut Step<'_, W>) -> io::Result<Vec<Label>> {
    let n = p.ranks;
    let mut ops = Vec::new();
    let mut last = None;
    let mut mask = 1u32;
    while mask < n {
        if r & mask != 0 {
            let parent = r - mask;
            ops.push(s.send(p.bytes, parent, 0, last)?);
            return Ok(ops);
        }
        if r + mask < n {
            // Children are combined one after the other, as a blocking receive loop does.
            last = Some(s.recv(p.bytes, r + mask, 0, last)?);
            ops.push(last.unwrap());
        }
        mask <<= 1;
    }
    Ok(ops)
}
