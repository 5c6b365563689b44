//! 3D 7-point stencil halo exchange: ranks form a `px × py × pz` grid (as balanced as
//! `MPI_Dims_create` makes it, non-periodic); each iteration computes, then exchanges
//! one face of `bytes` with each existing neighbour (non-blocking sends and receives,
//! then a wait-all, which the next iteration's compute waits for).

use super::{Params, Step};
use crate::goal::Label;
use std::io::{self, Write};

/// Balanced factorisation of `n` into three dimensions, largest first.
pub(crate) fn dims3(n: u32) -> [u32; 3] {
    let mut dims = [1u32; 3];
    // Assign prime factors, largest first, to the currently smallest dimension.
    let mut factors = Vec::new();
    let mut m = n;
    let mut f = 2;
    while f * f <= m {
        while m.is_multiple_of(f) {
            factors.push(f);
            m /= f;
        }
        f += 1;
    }
    if m > 1 {
        factors.push(m);
    }
    for &f in factors.iter().rev() {
        let i = (0..3).min_by_key(|&i| dims[i]).unwrap();
        dims[i] *= f;
    }
    dims.sort_unstable_by(|a, b| b.cmp(a));
    dims
}

pub(super) fn rank<W: Write>(p: &Params, r: u32, s: &mut Step<'_, W>) -> io::Result<Vec<Label>> {
    let d = dims3(p.ranks);
    let c = [r % d[0], (r / d[0]) % d[1], r / (d[0] * d[1])];
    let stride = [1, d[0], d[0] * d[1]];
    let mut ops = Vec::with_capacity(12);
    // Direction k in 0..6: axis k/2, towards + if k is even. A message travelling in
    // direction k carries tag k, so the receiver expects the tag of the opposite side.
    let mut neighbours = Vec::with_capacity(6);
    for axis in 0..3 {
        if c[axis] + 1 < d[axis] {
            neighbours.push((2 * axis as u32, r + stride[axis]));
        }
        if c[axis] > 0 {
            neighbours.push((2 * axis as u32 + 1, r - stride[axis]));
        }
    }
    for &(dir, peer) in &neighbours {
        ops.push(s.recv(p.bytes, peer, dir ^ 1, None)?);
    }
    for &(dir, peer) in &neighbours {
        ops.push(s.send(p.bytes, peer, dir, None)?);
    }
    Ok(ops)
}
