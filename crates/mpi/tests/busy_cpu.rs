//! Many operations waiting for one busy CPU under LogGOPS (the executor parks them
//! instead of re-queueing each one whenever the CPU frees): the times must be the
//! closed-form LogGOPS ones, in LogGOPSim's order.

use simpi_mpi::{run_loggops, Op, ScheduleBuilder};
use simpi_net::LogGops;

/// L=10 o=3 g=5 G=2 O=1 (ps), everything eager; 1-byte messages pay no per-byte cost.
fn model() -> LogGops {
    LogGops {
        l: 10,
        o: 3,
        g: 5,
        big_g: 2,
        big_o: 1,
        s: 1 << 20,
    }
}

/// Rank 0 starts `n` one-byte sends at once, to ranks 1..=n, plus a computation of
/// `calc` ps (if any) on the same CPU; every other rank receives one message.
fn fan_out(n: u32, calc: Option<u64>) -> Vec<u64> {
    let mut b = ScheduleBuilder::new(n + 1);
    b.begin_rank(0).unwrap();
    for to in 1..=n {
        b.push(Op::send(1, to, 0, 0, 0)).unwrap();
    }
    if let Some(ps) = calc {
        b.push(Op::calc(ps, 0)).unwrap();
    }
    b.end_rank().unwrap();
    for r in 1..=n {
        b.begin_rank(r as u64).unwrap();
        b.push(Op::recv(1, 0, 0, 0, 0)).unwrap();
        b.end_rank().unwrap();
    }
    let mut sched = b.finish();
    let out = run_loggops(&mut sched, &model(), None).unwrap();
    out.end_times.iter().map(|t| t.ps()).collect()
}

#[test]
fn sends_started_together_leave_one_gap_apart() {
    // g = 5 > o = 3: send i (from 0) starts at 5i; its message is ready at the receiver
    // o + L = 13 later and taken in for o = 3. Rank 0's CPU is busy until 5(n-1) + 3.
    // Which receiver gets the k-th send follows LogGOPSim's (unstable) sort of the
    // enabled sends, so the receivers' end times are compared as a set.
    let n = 300;
    let end = fan_out(n, None);
    assert_eq!(end[0], 5 * (n as u64 - 1) + 3);
    let mut got = end[1..].to_vec();
    got.sort_unstable();
    let want: Vec<u64> = (0..n as u64).map(|k| 5 * k + 13 + 3).collect();
    assert_eq!(got, want);
}

#[test]
fn a_computation_waiting_with_the_sends_runs_as_soon_as_the_cpu_frees() {
    // The sends come first (LogGOPSim orders freshly enabled sends before computes);
    // the first one holds the CPU until 3. The others are NIC-bound until 5, so the
    // computation, also enabled at 0, takes the CPU at 3 until 7. From then on each send
    // starts when the CPU and the NIC are both free: 7, 12, 17, ... (the NIC gap, 5, is
    // the longer), so the k-th send (k >= 1) starts at 7 + 5(k-1). Receivers compared as
    // a set, as above.
    let n = 50u64;
    let end = fan_out(n as u32, Some(4));
    let mut got = end[1..].to_vec();
    got.sort_unstable();
    let want: Vec<u64> = std::iter::once(16)
        .chain((1..n).map(|k| 7 + 5 * (k - 1) + 16))
        .collect();
    assert_eq!(got, want);
    assert_eq!(end[0], 7 + 5 * (n - 2) + 3);
}

#[test]
fn many_messages_to_one_rank_are_taken_in_one_after_another() {
    // Ranks 1..=n each send one byte to rank 0 at time 0; rank 0 posted all receives.
    // Every message is ready at 13; rank 0 takes them in one at a time, each holding the
    // CPU for o = 3 and the NIC's receive side for g = 5: message k at 13 + 5k.
    let n = 200u32;
    let mut b = ScheduleBuilder::new(n + 1);
    b.begin_rank(0).unwrap();
    for from in 1..=n {
        b.push(Op::recv(1, from, 0, 0, 0)).unwrap();
    }
    b.end_rank().unwrap();
    for r in 1..=n {
        b.begin_rank(r as u64).unwrap();
        b.push(Op::send(1, 0, 0, 0, 0)).unwrap();
        b.end_rank().unwrap();
    }
    let mut sched = b.finish();
    let out = run_loggops(&mut sched, &model(), None).unwrap();
    assert_eq!(out.end_times[0].ps(), 13 + 5 * (n as u64 - 1) + 3);
    for r in 1..=n as usize {
        assert_eq!(out.end_times[r].ps(), 3);
    }
}
