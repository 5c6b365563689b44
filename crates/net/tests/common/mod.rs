//! Shared by the network models' tests: running a list of messages to their ends.

// Each test file uses some of these helpers.
#![allow(dead_code)]

use simpi_kernel::SimTime;
use simpi_net::{HostId, NetworkModel};

/// Starts each `(time ps, src, dst, bytes)` and returns each one's end (ps).
pub fn run<N: NetworkModel>(net: &mut N, msgs: &[(u64, u32, u32, u64)]) -> Vec<u64> {
    let end = run_until(net, msgs, u64::MAX);
    assert_eq!(net.in_flight(), 0);
    end
}

/// Open-loop traffic: every host offers `bytes`-byte messages at `rate` bytes per
/// second, evenly spaced from a random phase, each to the host `pick(src, draw)`
/// chooses (`draw`: 64 random bits), until `horizon` ps. Returns the bytes per second
/// per host delivered in the second half of the run, when the network is in its
/// steady state (the accepted traffic; below the offered rate once it saturates).
pub fn accepted<N: NetworkModel>(
    net: &mut N,
    hosts: u32,
    rate: f64,
    bytes: u64,
    horizon: u64,
    pick: impl Fn(u32, u64) -> u32,
) -> f64 {
    let gap = (bytes as f64 / rate * 1e12) as u64;
    let mut rng = simpi_kernel::Rng::new(7);
    let mut msgs = Vec::new();
    for s in 0..hosts {
        let mut t = rng.next_u64() % gap;
        while t < horizon {
            msgs.push((t, s, pick(s, rng.next_u64()), bytes));
            t += gap;
        }
    }
    msgs.sort_by_key(|m| m.0);
    let ends = run_until(net, &msgs, horizon);
    let from = horizon / 2;
    let got = ends.iter().filter(|&&e| e >= from && e < horizon).count() as f64 * bytes as f64;
    got / ((horizon - from) as f64 * 1e-12) / hosts as f64
}

/// Starts each `(time ps, src, dst, bytes)` (in order of start, ties in list order)
/// and runs until the network is idle or its next event is at `horizon` ps or later;
/// returns each message's end (ps), `u64::MAX` for those not delivered by then.
fn run_until<N: NetworkModel>(net: &mut N, msgs: &[(u64, u32, u32, u64)], horizon: u64) -> Vec<u64> {
    let mut order: Vec<usize> = (0..msgs.len()).collect();
    order.sort_by_key(|&i| msgs[i].0);
    let mut next = 0;
    let mut end = vec![u64::MAX; msgs.len()];
    let mut done = Vec::new();
    loop {
        let tn = net.next_time().map(|t| t.ps());
        let ts = order.get(next).map(|&i| msgs[i].0);
        match (tn, ts) {
            (None, None) => break,
            (Some(n), _) if n >= horizon => break,
            (_, Some(s)) if tn.is_none_or(|n| s < n) => {
                let (_, a, b, bytes) = msgs[order[next]];
                net.start(SimTime(s), HostId(a), HostId(b), bytes, order[next] as u64)
                    .unwrap();
                next += 1;
            }
            (Some(n), _) => {
                net.advance(SimTime(n), &mut done);
                for tok in done.drain(..) {
                    end[tok as usize] = n;
                }
            }
            _ => unreachable!(),
        }
    }
    end
}
