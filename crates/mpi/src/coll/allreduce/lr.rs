//! Logical-ring allreduce (SimGrid 3.32 `allreduce__lr`): the vector is cut into one block
//! of `count / n` elements per rank; a ring of blocking send-receives reduces and scatters
//! the blocks, a second ring gathers them. Vectors of fewer than `n` elements are reduced
//! to rank 0 and broadcast (SimGrid's `redbcast`); the `count mod n` elements left over
//! go through the allreduce selected for them, as SimGrid's call to `colls::allreduce`
//! does (`lr` itself when forced, hence `redbcast`; `redbcast` when nothing selects).

use crate::coll::allreduce::TAG;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Phases, Shifted, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allreduce,
    name: "lr",
    source: "SimGrid 3.32 allreduce__lr (logical ring; the remainder by the selected allreduce)",
    simgrid: Some("lr"),
    emit,
    alike: None,
};

pub(crate) fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    let (n, r) = (s.size, s.me);
    let t = s.elem.max(1);
    let count = s.bytes / t;
    if count < n as u64 {
        return super::redbcast::emit(s, e);
    }
    let per = count / n as u64;
    // n blocks of `per` elements, then the remainder (if any) as block n.
    let mut sizes = vec![per * t; n as usize];
    let rest = s.bytes - per * t * n as u64;
    if rest > 0 {
        sizes.push(rest);
    }
    e.layout(&sizes);
    let (right, left) = ((r + 1) % n, (r + n - 1) % n);
    let mut p = Phases::new(e);
    let mut last: Vec<Step> = Vec::new();
    // Reduce-scatter: step i sends block r-1-i and combines block r-2-i into the own
    // contribution; rank r ends holding block r reduced.
    for i in 0..n - 1 {
        let out = (r + 2 * n - 1 - i) % n;
        let inb = (r + 2 * n - 2 - i) % n;
        let snd = p.send(right, TAG, &[out], &last);
        let rcv = p.recv(left, TAG, &[inb], Merge::Reduce, &last);
        last = vec![snd, rcv];
    }
    // Allgather: step i passes block r-i on.
    for i in 0..n - 1 {
        let out = (r + 2 * n - i) % n;
        let inb = (r + 2 * n - 1 - i) % n;
        let snd = p.send(right, TAG, &[out], &last);
        let rcv = p.recv(left, TAG, &[inb], Merge::Copy, &last);
        last = vec![snd, rcv];
    }
    if rest > 0 {
        p.next_phase();
        let remainder = CollSpec {
            bytes: rest,
            ..s.clone()
        };
        let alg = p
            .sub_algorithm(&remainder)
            .filter(|a| a.coll == Collective::Allreduce)
            .unwrap_or(&super::redbcast::ALGORITHM);
        (alg.emit)(&remainder, &mut Shifted::new(&mut p, n));
    }
}
