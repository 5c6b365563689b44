//! Linear all-to-all: every rank posts all its sends (to `rank+1`, `rank+2`, ...) and
//! all its receives (from `rank-1`, `rank-2`, ...) at once, as `MPI_Isend`/`MPI_Irecv`
//! loops followed by a wait-all do.

use super::{Params, Step};
use crate::goal::Label;
use std::io::{self, Write};

pub(super) fn rank<W: Write>(p: &Params, r: u32, s: &mut Step<'_, W>) -> io::Result<Vec<Label>> {
    let n = p.ranks;
    let mut ops = Vec::with_capacity(2 * n as usize);
    for i in 1..n {
        ops.push(s.send(p.bytes, (r + i) % n, 0, None)?);
    }
    for i in 1..n {
        ops.push(s.recv(p.bytes, (r + n - i) % n, 0, None)?);
    }
    Ok(ops)
}
