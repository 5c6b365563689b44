//! 3D 7-point stencil halo exchange: ranks form a `px × py × pz` grid (as balanced as
//! `MPI_Dims_create` makes it, periodic or not); each iteration computes, then exchanges
//! one face of `bytes` with each neighbour (non-blocking sends and receives, then a
//! wait-all, which the next iteration's compute waits for).

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

/// The neighbours of rank `r` in the grid of `n` ranks, as (direction, rank): direction
/// `k` in 0..6 is axis `k / 2`, towards + if `k` is even. With `periodic`, the grid
/// wraps around; a neighbour that is the rank itself (an axis of length 1) is left out.
pub(crate) fn neighbours(n: u32, r: u32, periodic: bool) -> Vec<(u32, u32)> {
    let d = dims3(n);
    let c = [r % d[0], (r / d[0]) % d[1], r / (d[0] * d[1])];
    let stride = [1, d[0], d[0] * d[1]];
    let mut out = Vec::with_capacity(6);
    for axis in 0..3 {
        let dir = 2 * axis as u32;
        let up = if c[axis] + 1 < d[axis] {
            Some(r + stride[axis])
        } else {
            periodic.then(|| r - c[axis] * stride[axis])
        };
        let down = if c[axis] > 0 {
            Some(r - stride[axis])
        } else {
            periodic.then(|| r + (d[axis] - 1) * stride[axis])
        };
        for (k, peer) in [(dir, up), (dir + 1, down)] {
            if let Some(p) = peer.filter(|&p| p != r) {
                out.push((k, p));
            }
        }
    }
    out
}
