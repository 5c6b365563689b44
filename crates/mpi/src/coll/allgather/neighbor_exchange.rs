//! Neighbour-exchange allgather (Open MPI's `ompi_coll_base_allgather_intra_neighborexchange`,
//! after Chen et al.; SimGrid 3.32 `allgather__ompi_neighborexchange`): ranks pair up
//! (`2j`, `2j+1`) and swap their blocks; then, in `n/2 - 1` steps alternating between the
//! left and the right neighbour, each rank passes on the two blocks it received last and
//! receives two new ones. Odd sizes run the ring, as Open MPI does. (SimGrid falls back
//! to its own `allgather__ring` there, the `shifted` exchange, so on odd sizes the two
//! differ: Open MPI is followed.)

use crate::coll::allgather::{ring::ring, TAG};
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};

/// The algorithm's registry entry.
pub const ALGORITHM: Algorithm = Algorithm {
    coll: Collective::Allgather,
    name: "neighbor_exchange",
    source: "Open MPI coll/base allgather neighborexchange (ring on odd sizes); SimGrid 3.32 allgather__ompi_neighborexchange on even sizes",
    simgrid: Some("ompi_neighborexchange"),
    emit,
    alike: None,
};

fn emit(s: &CollSpec, e: &mut dyn Emitter) {
    neighbor_exchange(s, e, TAG);
}

/// The exchange on blocks of any sizes, with `tag`.
pub(crate) fn neighbor_exchange(s: &CollSpec, e: &mut dyn Emitter, tag: u32) {
    let (n, r) = (s.size, s.me);
    if n % 2 == 1 {
        return ring(s, e, tag);
    }
    let pairs = n / 2;
    let j = r / 2;
    let even = r % 2 == 0;
    let pair_blocks = |p: u32| [2 * (p % pairs), 2 * (p % pairs) + 1];
    // Step 0: swap own blocks with the pair mate.
    let mate = if even { r + 1 } else { r - 1 };
    let snd = e.send(mate, tag, &[r], &[]);
    let rcv = e.recv(mate, tag, &[mate], Merge::Copy, &[]);
    let mut last: Vec<Step> = vec![snd, rcv];
    let mut sent_pair = j;
    for i in 1..pairs {
        // Odd steps talk to the neighbour outside the pair, even steps to the mate.
        let partner = match (even, i % 2 == 1) {
            (true, true) => (r + n - 1) % n,
            (false, true) => (r + 1) % n,
            (_, false) => mate,
        };
        let half = i.div_ceil(2);
        let got = match (even, i % 2 == 1) {
            (true, true) => j + pairs - half,
            (true, false) => j + i / 2,
            (false, true) => j + half,
            (false, false) => j + pairs - i / 2,
        } % pairs;
        let snd = e.send(partner, tag, &pair_blocks(sent_pair), &last);
        let rcv = e.recv(partner, tag, &pair_blocks(got), Merge::Copy, &last);
        last = vec![snd, rcv];
        sent_pair = got;
    }
}
