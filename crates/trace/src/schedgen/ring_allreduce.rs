//! Ring allreduce: the vector is cut into `n` chunks; `n-1` reduce-scatter steps then
//! `n-1` allgather steps pass one chunk to the right neighbour while receiving one from
//! the left. A step starts when the previous step's receive has completed.

use super::{Params, Step};
use crate::goal::Label;
use std::io::{self, Write};

/// Size of chunk `i` when `bytes` is cut into `n` near-equal chunks.
fn chunk(bytes: u64, n: u32, i: u32) -> u64 {
    let n = n as u64;
    bytes / n + u64::from((i as u64) < bytes % n)
}

pub(super) fn rank<W: Write>(p: &Params, r: u32, s: &mut Step<'_, W>) -> io::Result<Vec<Label>> {
    let n = p.ranks;
    let mut ops = Vec::new();
    if n == 1 {
        return Ok(ops);
    }
    let right = (r + 1) % n;
    let left = (r + n - 1) % n;
    let mut last = None;
    for step in 0..2 * (n - 1) {
        // In both phases step s sends chunk (r - s) and receives chunk (r - s - 1),
        // modulo n: after n-1 steps rank r holds the reduced chunk r + 1, which the
        // allgather then passes on.
        let send_chunk = (r + 2 * n - step) % n;
        let recv_chunk = (send_chunk + n - 1) % n;
        ops.push(s.send(chunk(p.bytes, n, send_chunk), right, 0, last)?);
        let rv = s.recv(chunk(p.bytes, n, recv_chunk), left, 0, last)?;
        ops.push(rv);
        last = Some(rv);
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::chunk;

    #[test]
    fn chunks_cover_the_vector() {
        for (bytes, n) in [(10u64, 3u32), (8, 8), (7, 16), (1 << 20, 7)] {
            let total: u64 = (0..n).map(|i| chunk(bytes, n, i)).sum();
            assert_eq!(total, bytes);
        }
    }
}
