//! The point-to-point protocol of the flow executor, on a two-host cluster with the
//! `plain` preset (no factors): private links of B = 1e8 B/s and 10 us each way, so a
//! message of s bytes takes L + s/B with L = 20 us once it flows. Expected times are
//! worked out by hand in each test.

use simpi_kernel::SimTime;
use simpi_mpi::{run_flow, Error, Op, OpKind, Preset, ScheduleBuilder};
use simpi_net::{HostId, Piecewise};
use simpi_platform::cluster::{cluster_platform, ClusterSpec};

const L: f64 = 20e-6;
const B: f64 = 1e8;

/// Rank 0 sends `s` bytes to rank 1; rank 1 computes `delay` seconds first, then receives.
fn exchange(s: u64, delay: f64, params: Preset) -> Result<Vec<f64>, Error> {
    let p = cluster_platform(&ClusterSpec::flat("c", 2, 1e9, B, 10e-6)).unwrap();
    let mut b = ScheduleBuilder::new(2);
    b.begin_rank(0).unwrap();
    b.push(Op::send(s, 1, 0, 0, 0)).unwrap();
    b.end_rank().unwrap();
    b.begin_rank(1).unwrap();
    let c = b.push(Op::calc(SimTime::from_secs_f64(delay).ps(), 0)).unwrap();
    let r = b.push(Op::recv(s, 0, 0, 0, 0)).unwrap();
    b.requires(r, c);
    b.end_rank().unwrap();
    let mut sched = b.finish();
    let out = run_flow(&mut sched, &p, &[HostId(0), HostId(1)], params, None, false)?;
    Ok(out.end_times.iter().map(|t| t.as_secs_f64()).collect())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-11 + 1e-9 * b.abs()
}

#[test]
fn detached_send_returns_at_once_and_flows_when_the_receive_is_posted() {
    let t = exchange(1000, 0.0, Preset::plain()).unwrap();
    assert!(close(t[0], 0.0) && close(t[1], L + 1000.0 / B), "{t:?}");
    // Receiver busy until 1 ms: the transfer starts then.
    let t = exchange(1000, 1e-3, Preset::plain()).unwrap();
    assert!(close(t[0], 0.0) && close(t[1], 1e-3 + L + 1000.0 / B), "{t:?}");
}

#[test]
fn rendezvous_send_returns_when_the_data_has_arrived() {
    let t = exchange(1_000_000, 1e-3, Preset::plain()).unwrap();
    let end = 1e-3 + L + 1e6 / B;
    assert!(close(t[0], end) && close(t[1], end), "{t:?}");
}

#[test]
fn small_asynchronous_messages_flow_before_the_receive_is_posted() {
    let mut p = Preset::plain();
    p.protocol.async_small = 2000;
    let t = exchange(1000, 1e-3, p).unwrap();
    // Arrived at L + s/B < 1 ms: the receive completes as it is posted.
    assert!(close(t[1], 1e-3), "{t:?}");
}

#[test]
fn overheads_delay_the_send_and_the_receive_of_detached_messages() {
    let mut p = Preset::plain();
    p.protocol.os = Piecewise::parse("0:2e-6:0").unwrap();
    p.protocol.or = Piecewise::parse("0:1e-6:1e-9").unwrap();
    let t = exchange(1000, 0.0, p.clone()).unwrap();
    assert!(close(t[0], 2e-6), "{t:?}");
    assert!(close(t[1], 2e-6 + L + 1000.0 / B + 1e-6 + 1000.0 * 1e-9), "{t:?}");
    // A rendezvous send pays neither (as SMPI's blocking MPI_Send above the threshold).
    let t = exchange(1_000_000, 0.0, p).unwrap();
    let end = L + 1e6 / B;
    assert!(close(t[0], end) && close(t[1], end), "{t:?}");
}

#[test]
fn the_flow_model_sends_everything_at_once() {
    let t = exchange(1_000_000, 1e-3, Preset::flow()).unwrap();
    assert!(close(t[0], 0.0), "{t:?}");
    assert!(close(t[1], L + 1e6 / B), "{t:?}");
}

#[test]
fn an_unmatched_receive_is_a_stall() {
    let p = cluster_platform(&ClusterSpec::flat("c", 2, 1e9, B, 10e-6)).unwrap();
    let mut b = ScheduleBuilder::new(2);
    b.begin_rank(1).unwrap();
    b.push(Op::recv(8, 0, 3, 0, 0)).unwrap();
    b.end_rank().unwrap();
    let mut sched = b.finish();
    match run_flow(&mut sched, &p, &[HostId(0), HostId(1)], Preset::smpi(), None, false) {
        Err(Error::Stall(s)) => assert_eq!(s.blocked_ranks, 1),
        other => panic!("expected a stall, got {other:?}"),
    }
}

#[test]
fn a_schedule_runs_again_with_the_same_result_under_either_executor() {
    // The first run counts the dependencies down; every later run must recount them.
    let p = cluster_platform(&ClusterSpec::flat("c", 2, 1e9, B, 10e-6)).unwrap();
    let mut b = ScheduleBuilder::new(2);
    b.begin_rank(0).unwrap();
    let c = b.push(Op::calc(SimTime::from_secs_f64(1e-3).ps(), 0)).unwrap();
    let s = b.push(Op::send(1000, 1, 0, 0, 0)).unwrap();
    b.requires(s, c);
    b.end_rank().unwrap();
    b.begin_rank(1).unwrap();
    b.push(Op::recv(1000, 0, 0, 0, 0)).unwrap();
    b.end_rank().unwrap();
    let mut sched = b.finish();
    let hosts = [HostId(0), HostId(1)];
    let flow = |sched: &mut simpi_mpi::Schedule| {
        let out = run_flow(sched, &p, &hosts, Preset::plain(), None, false).unwrap();
        out.end_times.iter().map(|t| t.as_secs_f64()).collect::<Vec<f64>>()
    };
    let first = flow(&mut sched);
    assert!(close(first[1], 1e-3 + L + 1000.0 / B), "{first:?}");
    // LogGOPS with L = 5 ps, o = 1 ps, nothing else: the receive ends at 1 ms + o + L + o.
    let m = simpi_net::LogGops {
        l: 5,
        o: 1,
        g: 0,
        big_g: 0,
        big_o: 0,
        s: u64::MAX,
    };
    for _ in 0..2 {
        let out = simpi_mpi::run_loggops(&mut sched, &m, None).unwrap();
        assert_eq!(out.end_times[1].ps(), SimTime::from_secs_f64(1e-3).ps() + 7);
    }
    assert_eq!(flow(&mut sched), first);
    assert_eq!(flow(&mut sched), first);
}

/// Rank 0 computes 1 ms, then sends A and B (1000 bytes each, detached). Rank 1 posts
/// the receive of A, tests it `tests_a` times, posts B's, tests it twice, computes 1 ms.
/// Tests cost 0.1 ms each (times SMPI's growing count). Returns rank 1's end.
fn polling(params: Preset, tests_a: usize) -> f64 {
    let p = cluster_platform(&ClusterSpec::flat("c", 2, 1e9, B, 10e-6)).unwrap();
    let test = SimTime::from_secs_f64(1e-4).ps();
    let mut b = ScheduleBuilder::new(2);
    b.begin_rank(0).unwrap();
    let c = b.push(Op::calc(SimTime::from_secs_f64(1e-3).ps(), 0)).unwrap();
    let a = b.push(Op::send(1000, 1, 1, 0, 0)).unwrap();
    let s = b.push(Op::send(1000, 1, 2, 0, 0)).unwrap();
    b.requires(a, c);
    b.requires(s, a);
    b.end_rank().unwrap();
    b.begin_rank(1).unwrap();
    // Each op waits for the last compute; receives are non-blocking (irecv): nothing
    // waits for them.
    let mut last = None;
    let mut chain = |b: &mut ScheduleBuilder, op: Op, tests: Option<u32>| {
        let l = b.push(op).unwrap();
        if let Some(prev) = last {
            b.requires(l, prev);
        }
        if let Some(r) = tests {
            b.test_of(l, r);
        }
        if op.kind == OpKind::Calc {
            last = Some(l);
        }
        l
    };
    let ra = chain(&mut b, Op::recv(1000, 0, 1, 0, 0), None);
    for _ in 0..tests_a {
        chain(&mut b, Op::calc(test, 0), Some(ra));
    }
    let rb = chain(&mut b, Op::recv(1000, 0, 2, 0, 0), None);
    for _ in 0..2 {
        chain(&mut b, Op::calc(test, 0), Some(rb));
    }
    chain(&mut b, Op::calc(SimTime::from_secs_f64(1e-3).ps(), 0), None);
    b.end_rank().unwrap();
    let mut sched = b.finish();
    let out = run_flow(&mut sched, &p, &[HostId(0), HostId(1)], params, None, false).unwrap();
    out.end_times[1].as_secs_f64()
}

#[test]
fn failed_tests_cost_more_each_time_until_one_finds_its_request_complete() {
    // A flows once both sides are posted (1 ms) and is in at 1 ms + L + 1000/B = 1.03 ms.
    // Tests of A sleep 0.1, 0.2, 0.3, 0.4 ms (failing: the count grows), then 0.5 ms:
    // at 1.5 ms the fifth finds A complete and sets the count back to 1; a sixth test
    // of A finds SMPI's null request and costs nothing. B's receive is posted at 1.5 ms
    // and its flow starts (1.53 ms in); its first test sleeps 0.1 ms and finds it, its
    // second costs nothing; the compute ends at 1.6 + 1 = 2.6 ms.
    let t = polling(Preset::plain(), 6);
    assert!(close(t, 2.6e-3), "{t}");
}

#[test]
fn without_growth_every_test_costs_the_same() {
    // Flat 0.1 ms: six tests of A end at 0.6 ms (A not in yet), B's receive is posted
    // then, two tests to 0.8 ms, the compute to 1.8 ms. A and B flow together from 1 ms
    // and are in by 1.04 ms, before that.
    let mut p = Preset::plain();
    p.protocol.grow_test_costs = false;
    let t = polling(p, 6);
    assert!(close(t, 1.8e-3), "{t}");
}
