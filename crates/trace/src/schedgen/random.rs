//! Random schedules for differential testing: messages between random ranks with
//! random sizes (eager and rendezvous), computes, `requires` and `irequires`
//! dependencies, several CPUs and NICs, and wildcard receives.
//!
//! Receives are grouped into classes whose members are interchangeable (same size,
//! same matching rule), so a wildcard never takes a message of another size. Each
//! message's receive is placed in its destination's order at the same point as the
//! send in the source's order, and dependencies only point backwards, which keeps most
//! schedules free of deadlock; callers that need a complete run should check it.

use crate::goal::{GoalWriter, Label};
use simpi_kernel::Rng;
use simpi_mpi::{ANY_SOURCE, ANY_TAG};
use std::io::{self, Write};

/// Knobs of the random generator.
#[derive(Copy, Clone, Debug)]
pub struct RandomParams {
    /// Number of ranks.
    pub ranks: u32,
    /// Number of messages.
    pub messages: u32,
    /// Number of computations.
    pub computes: u32,
    /// Largest message size in bytes (sizes are spread log-uniformly from 1).
    pub max_bytes: u64,
    /// Longest computation, in time units.
    pub max_compute: u64,
    /// CPUs per rank.
    pub cpus: u8,
    /// NICs per rank.
    pub nics: u8,
    /// The seed: the same seed gives the same schedule.
    pub seed: u64,
}

/// How a destination rank receives.
#[derive(Copy, Clone, PartialEq)]
enum RecvMode {
    /// By source and tag.
    Exact,
    /// From any source, by tag.
    AnySource,
    /// From a given source, any tag.
    AnyTag,
    /// Anything.
    Wild,
}

#[derive(Clone)]
enum Item {
    Send {
        to: u32,
        bytes: u64,
        tag: u32,
        cpu: u8,
        nic: u8,
    },
    Recv {
        from: u32,
        bytes: u64,
        tag: u32,
        cpu: u8,
        nic: u8,
    },
    Calc {
        time: u64,
        cpu: u8,
    },
    /// (a, b, irequires) as local indices: a waits for b.
    Dep(u32, u32, bool),
}

/// Most ranks of a random schedule (it is built in memory before it is written).
pub const MAX_RANDOM_RANKS: u32 = 1 << 20;

/// Most messages and computations, together, of a random schedule (about 200 bytes of
/// memory each while it is built).
pub const MAX_RANDOM_ITEMS: u64 = 1 << 23;

/// Writes a random schedule to `out`. Sizes past [`MAX_RANDOM_RANKS`] and
/// [`MAX_RANDOM_ITEMS`] are an error of kind `InvalidInput`, before anything is written.
pub fn generate_random<W: Write>(p: &RandomParams, out: W) -> io::Result<W> {
    let wanted = p.messages as u64 + p.computes as u64;
    if p.ranks > MAX_RANDOM_RANKS || wanted > MAX_RANDOM_ITEMS {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "a random schedule has at most {MAX_RANDOM_RANKS} ranks and {MAX_RANDOM_ITEMS} messages and \
                 computations (it is built in memory), not {} ranks and {wanted}",
                p.ranks
            ),
        ));
    }
    let mut rng = Rng::new(p.seed);
    let n = p.ranks.max(1);
    let modes: Vec<RecvMode> = (0..n)
        .map(|_| match rng.below(6) {
            0 => RecvMode::AnySource,
            1 => RecvMode::AnyTag,
            2 => RecvMode::Wild,
            _ => RecvMode::Exact,
        })
        .collect();
    let size = |rng: &mut Rng| -> u64 {
        let bits = 64 - p.max_bytes.max(1).leading_zeros() as u64;
        let b = rng.below(bits) + 1;
        (1 + rng.below(1u64 << b)).min(p.max_bytes.max(1))
    };
    // Interchangeable receives share a size: fix one per class.
    let wild_size: Vec<u64> = (0..n).map(|_| size(&mut rng)).collect();
    let pair_size: Vec<u64> = (0..(n as usize * n as usize).min(1 << 16))
        .map(|_| size(&mut rng))
        .collect();
    let exact_size: Vec<u64> = (0..(n as usize * n as usize * 4).min(1 << 16))
        .map(|_| size(&mut rng))
        .collect();
    let tag_size: Vec<u64> = (0..n as usize * 4).map(|_| size(&mut rng)).collect();

    let mut items: Vec<Vec<Item>> = vec![Vec::new(); n as usize];
    let mut counts = vec![0u32; n as usize];
    let total = wanted;
    for _ in 0..total {
        let is_msg = rng.below(total) < p.messages as u64;
        if is_msg {
            let src = rng.below(n as u64) as u32;
            let dst = rng.below(n as u64) as u32;
            let (bytes, tag, rfrom, rtag) = match modes[dst as usize] {
                RecvMode::Exact => {
                    let t = rng.below(4) as u32;
                    let k = ((src as usize * n as usize + dst as usize) * 4 + t as usize) % exact_size.len();
                    (exact_size[k], t, src, t)
                }
                RecvMode::AnySource => {
                    let t = rng.below(4) as u32;
                    (tag_size[dst as usize * 4 + t as usize], t, ANY_SOURCE, t)
                }
                RecvMode::AnyTag => {
                    let t = rng.below(4) as u32;
                    let k = (src as usize * n as usize + dst as usize) % pair_size.len();
                    (pair_size[k], t, src, ANY_TAG)
                }
                RecvMode::Wild => (wild_size[dst as usize], rng.below(4) as u32, ANY_SOURCE, ANY_TAG),
            };
            let (c, q) = (
                rng.below(p.cpus.max(1) as u64) as u8,
                rng.below(p.nics.max(1) as u64) as u8,
            );
            push(
                &mut items,
                &mut counts,
                &mut rng,
                src,
                Item::Send {
                    to: dst,
                    bytes,
                    tag,
                    cpu: c,
                    nic: q,
                },
            );
            let (c, q) = (
                rng.below(p.cpus.max(1) as u64) as u8,
                rng.below(p.nics.max(1) as u64) as u8,
            );
            push(
                &mut items,
                &mut counts,
                &mut rng,
                dst,
                Item::Recv {
                    from: rfrom,
                    bytes,
                    tag: rtag,
                    cpu: c,
                    nic: q,
                },
            );
        } else {
            let r = rng.below(n as u64) as u32;
            let time = 1 + rng.below(p.max_compute.max(1));
            let cpu = rng.below(p.cpus.max(1) as u64) as u8;
            push(&mut items, &mut counts, &mut rng, r, Item::Calc { time, cpu });
        }
    }

    let mut w = GoalWriter::new(out, n)?;
    for (r, list) in items.iter().enumerate() {
        w.begin_rank(r as u32)?;
        for it in list {
            match *it {
                Item::Send {
                    to,
                    bytes,
                    tag,
                    cpu,
                    nic,
                } => drop(w.send_on(bytes, to, tag, cpu, nic)?),
                Item::Recv {
                    from,
                    bytes,
                    tag,
                    cpu,
                    nic,
                } => drop(w.recv_on(bytes, from, tag, cpu, nic)?),
                Item::Calc { time, cpu } => drop(w.calc_on(time, cpu)?),
                Item::Dep(a, b, false) => w.requires(Label(a), Label(b))?,
                Item::Dep(a, b, true) => w.irequires(Label(a), Label(b))?,
            }
        }
        w.end_rank()?;
    }
    w.finish()
}

/// Appends an operation to rank `r` with up to two dependencies on earlier operations.
fn push(items: &mut [Vec<Item>], counts: &mut [u32], rng: &mut Rng, r: u32, it: Item) {
    let idx = counts[r as usize];
    counts[r as usize] += 1;
    items[r as usize].push(it);
    if idx == 0 {
        return;
    }
    for _ in 0..rng.below(3) {
        // Mostly recent predecessors, so chains form like real programs.
        let back = 1 + rng.below(idx.min(4) as u64) as u32;
        let irequires = rng.below(4) == 0;
        items[r as usize].push(Item::Dep(idx, idx - back, irequires));
    }
}
