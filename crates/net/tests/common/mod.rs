//! Shared by the network models' tests: running a list of messages to their ends.

use simpi_kernel::SimTime;
use simpi_net::{HostId, NetworkModel};

/// Starts each `(time ps, src, dst, bytes)` and returns each one's end (ps).
pub fn run<N: NetworkModel>(net: &mut N, msgs: &[(u64, u32, u32, u64)]) -> Vec<u64> {
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
    assert_eq!(net.in_flight(), 0);
    end
}
