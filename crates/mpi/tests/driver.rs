//! The driver API: calls posted one at a time, as a live program makes them. Times are
//! worked out by hand under the constant network (every message 5 us) and the flow
//! protocol (every send detached, every message flowing at once, no overheads).

use simpi_kernel::SimTime;
use simpi_mpi::coll::{find, CollSpec, Collective};
use simpi_mpi::driver::{Call, Driver, Posted};
use simpi_mpi::engine::loggops::LogGopsRules;
use simpi_mpi::engine::smpi::SmpiRules;
use simpi_mpi::engine::Rules;
use simpi_mpi::live::Live;
use simpi_mpi::{Error, Protocol};
use simpi_net::{ConstantNetwork, HostId, LogGops};

const US: u64 = 1_000_000;

fn driver(ranks: u32) -> Driver<SmpiRules<ConstantNetwork>> {
    let net = ConstantNetwork::new(SimTime(5 * US));
    let hosts = (0..ranks).map(HostId).collect();
    Driver::new(ranks, SmpiRules::new(net, Protocol::flow(), hosts, 1))
}

fn send(to: u32, handle: u64) -> Call {
    Call::Send {
        to,
        tag: 0,
        bytes: 1000,
        handle,
        comm: 0,
        sync: false,
    }
}

/// A put of 1000 bytes to rank 1.
fn put(handle: u64) -> Call {
    Call::Put {
        target: 1,
        tag: 0,
        bytes: 1000,
        comm: 3,
        handle,
    }
}

/// A get of 1000 bytes from rank 1, asked in 16.
fn get(handle: u64) -> Call {
    Call::Get {
        target: 1,
        tag: 1,
        ask: 16,
        answer: 1000,
        comm: 3,
        handle,
    }
}

fn recv(from: u32, handle: u64) -> Call {
    Call::Recv {
        from,
        tag: 0,
        bytes: 1000,
        handle,
        comm: 0,
    }
}

#[test]
fn a_ping_pong_posted_call_by_call_reports_when_ranks_go_on_and_what_matched() -> Result<(), Error> {
    let mut d = driver(2);
    // Both ranks start at 0 with no call yet.
    assert_eq!(d.run()?, vec![0, 1]);
    d.post(0, send(1, 10))?;
    d.post(1, recv(0, 20))?;
    // The detached send returns at once; the receive waits for the message.
    assert_eq!(d.run()?, vec![0]);
    assert_eq!(d.now(), SimTime(0));
    d.post(0, recv(1, 11))?;
    // The message takes 5 us: rank 1's receive returns then, and matched the send.
    assert_eq!(d.run()?, vec![1]);
    assert_eq!(d.now(), SimTime(5 * US));
    assert_eq!(d.take_matches(), vec![(10, 20)]);
    d.post(1, send(0, 21))?;
    assert_eq!(d.run()?, vec![1]);
    d.post(1, Call::Finalize)?;
    // The reply arrives at 10 us; rank 0 then computes 1 us and finalizes.
    assert_eq!(d.run()?, vec![0]);
    assert_eq!(d.now(), SimTime(10 * US));
    assert_eq!(d.take_matches(), vec![(21, 11)]);
    d.post(0, Call::Compute(US))?;
    assert_eq!(d.run()?, vec![0]);
    assert_eq!(d.now(), SimTime(11 * US));
    d.post(0, Call::Finalize)?;
    assert_eq!(d.run()?, Vec::<u32>::new());
    let out = d.finish()?;
    assert_eq!(out.end_times, vec![SimTime(11 * US), SimTime(5 * US)]);
    Ok(())
}

/// Runs each rank's calls as a live front end does: one call per rank each time
/// [`Driver::run`] lets it go on. Returns the end times.
fn run_call_by_call<R: Rules<Live<Posted>>>(
    mut d: Driver<R>,
    mut calls: Vec<Vec<Call>>,
) -> Result<Vec<SimTime>, Error> {
    for c in calls.iter_mut() {
        c.reverse();
    }
    let mut go = d.run()?;
    while !go.is_empty() {
        for r in go {
            if let Some(c) = calls[r as usize].pop() {
                d.post(r, c)?;
            }
        }
        go = d.run()?;
    }
    Ok(d.finish()?.end_times)
}

#[test]
fn a_rank_whose_call_completes_at_once_goes_on_at_once_whatever_is_posted_after_it() -> Result<(), Error> {
    // Both ranks exchange a message (5 us). Then rank 0 computes nothing (a
    // zero-length computation, done as soon as posted) and sends 4 messages, which
    // rank 1 receives; both wait. Rank 0's sends are detached (their requests complete
    // when posted), so it ends at 5 us; the messages arrive at 10 us, when rank 1
    // ends. The bug this guards against: posting rank 1's next call in the round where
    // rank 0's computation completed hid that rank 0 could go on, which then went on
    // only at the next event, 5 us late (ends at 10 and 15 us).
    let irecv = |from: u32, handle: u64, tag: u32| Call::Irecv {
        from,
        tag,
        bytes: 1000,
        handle,
        comm: 0,
    };
    let isend = |to: u32, handle: u64, tag: u32| Call::Isend {
        to,
        tag,
        bytes: 1000,
        handle,
        comm: 0,
        sync: false,
    };
    let mut rank0 = vec![irecv(1, 1, 0), send(1, 2), Call::Wait(vec![1]), Call::Compute(0)];
    let mut rank1 = vec![irecv(0, 4, 0), send(0, 5), Call::Wait(vec![4])];
    for i in 0..4 {
        rank0.push(isend(1, 100 + i, 10 + i as u32));
        rank1.push(irecv(0, 200 + i, 10 + i as u32));
    }
    rank0.extend([Call::Wait((100..104).collect()), Call::Finalize]);
    rank1.extend([Call::Wait((200..204).collect()), Call::Finalize]);
    // SMPI's thresholds (no message flows before its receive is posted).
    let net = ConstantNetwork::new(SimTime(5 * US));
    let d = Driver::new(2, SmpiRules::new(net, Protocol::plain(), vec![HostId(0), HostId(1)], 1));
    let ends = run_call_by_call(d, vec![rank0, rank1])?;
    assert_eq!(ends, vec![SimTime(5 * US), SimTime(10 * US)]);
    Ok(())
}

#[test]
fn non_blocking_calls_and_a_collective_go_through_the_driver() -> Result<(), Error> {
    // Four ranks: each sends to the next and receives from the previous (non-blocking,
    // then a wait), then a dissemination barrier (Open MPI's bruck: two rounds of
    // one 0-byte message each on 4 ranks, 5 us per round), then finalize.
    let mut d = driver(4);
    assert_eq!(d.run()?, vec![0, 1, 2, 3]);
    for r in 0..4u32 {
        d.post(
            r,
            Call::Irecv {
                from: (r + 3) % 4,
                tag: 1,
                bytes: 8,
                handle: 100 + r as u64,
                comm: 0,
            },
        )?;
        d.post(
            r,
            Call::Isend {
                to: (r + 1) % 4,
                tag: 1,
                bytes: 8,
                handle: 200 + r as u64,
                comm: 0,
                sync: false,
            },
        )?;
        d.post(r, Call::Wait(vec![100 + r as u64, 200 + r as u64]))?;
        let spec = CollSpec::new(Collective::Barrier, 4, r, 0);
        let alg = find(Collective::Barrier, "bruck").expect("registered");
        d.post(
            r,
            Call::Collective {
                spec,
                alg,
                comm: 0,
                members: None,
            },
        )?;
        d.post(r, Call::Finalize)?;
    }
    // Posted ahead: the ranks run to the end without pausing.
    assert_eq!(d.run()?, Vec::<u32>::new());
    let mut m = d.take_matches();
    m.sort_unstable();
    assert_eq!(m, vec![(200, 101), (201, 102), (202, 103), (203, 100)]);
    // Ring exchange 5 us, then two barrier rounds of 5 us each.
    let out = d.finish()?;
    assert_eq!(out.end_times, vec![SimTime(15 * US); 4]);
    Ok(())
}

#[test]
fn a_call_to_a_rank_that_does_not_exist_is_refused() {
    let mut d = driver(2);
    d.run().unwrap();
    assert!(matches!(d.post(0, send(7, 1)), Err(Error::BadParameter(_))));
    assert!(matches!(d.post(5, Call::Finalize), Err(Error::BadParameter(_))));
}

#[test]
fn one_sided_transfers_need_no_call_and_no_cpu_of_the_target() -> Result<(), Error> {
    // Rank 1 computes 20 us and makes no call meanwhile. Rank 0 puts 1000 bytes to it
    // (one message: done at 5 us), then gets from it (a request and an answer: two
    // messages, done at 15 us), whatever rank 1's CPU is doing.
    let mut d = driver(2);
    assert_eq!(d.run()?, vec![0, 1]);
    d.post(1, Call::Compute(20 * US))?;
    d.post(1, Call::Finalize)?;
    d.post(0, put(7))?;
    d.post(0, Call::Wait(vec![7]))?;
    assert_eq!(d.run()?, vec![0]);
    assert_eq!(d.now(), SimTime(5 * US));
    d.post(0, get(8))?;
    d.post(0, Call::Wait(vec![8]))?;
    assert_eq!(d.run()?, vec![0]);
    assert_eq!(d.now(), SimTime(15 * US));
    // One-sided traffic matches nothing a program posted.
    assert_eq!(d.take_matches(), Vec::new());
    d.post(0, Call::Finalize)?;
    assert_eq!(d.run()?, Vec::<u32>::new());
    let out = d.finish()?;
    assert_eq!(out.end_times, vec![SimTime(15 * US), SimTime(20 * US)]);
    Ok(())
}

#[test]
fn a_one_sided_target_on_shared_cores_does_not_wait_to_notice_but_its_origin_does() -> Result<(), Error> {
    // Two ranks on one core, a waiting rank noticing its message 100 us late. The put's
    // message is served by the target's NIC: done at 5 us. The get's request too (in at
    // 10 us, answered at once), but its answer is a receive rank 0 waits for: 15 + 100.
    let net = ConstantNetwork::new(SimTime(5 * US));
    let mut proto = Protocol::flow();
    proto.wake_delay = 1e-4;
    let sharing = simpi_mpi::CpuSharing::from_machines(&[0, 0], |_| 1);
    let rules = SmpiRules::new(net, proto, vec![HostId(0), HostId(0)], 1).with_sharing(sharing);
    let mut d = Driver::new(2, rules);
    assert_eq!(d.run()?, vec![0, 1]);
    d.post(1, Call::Finalize)?;
    d.post(0, put(7))?;
    d.post(0, Call::Wait(vec![7]))?;
    assert_eq!(d.run()?, vec![0]);
    assert_eq!(d.now(), SimTime(5 * US));
    d.post(0, get(8))?;
    d.post(0, Call::Wait(vec![8]))?;
    assert_eq!(d.run()?, vec![0]);
    assert_eq!(d.now(), SimTime(115 * US));
    Ok(())
}

#[test]
fn a_one_sided_transfer_to_a_rank_that_does_not_exist_is_refused() {
    let mut d = driver(2);
    let put = Call::Put {
        target: 2,
        tag: 0,
        bytes: 8,
        comm: 1,
        handle: 1,
    };
    assert!(d.post(0, put).is_err());
}

/// Rank 0 sends 1000 bytes to rank 1 (blocking, or non-blocking then waited for),
/// synchronously or not; rank 1 computes 50 us before it posts the receive.
fn late_receiver(sync: bool, blocking: bool) -> Vec<Vec<Call>> {
    let mut s = send(1, 1);
    let rank0 = if blocking {
        if let Call::Send { sync: ref mut m, .. } = s {
            *m = sync;
        }
        vec![s, Call::Finalize]
    } else {
        let q = Call::Isend {
            to: 1,
            tag: 0,
            bytes: 1000,
            handle: 1,
            comm: 0,
            sync,
        };
        vec![q, Call::Compute(US), Call::Wait(vec![1]), Call::Finalize]
    };
    vec![rank0, vec![Call::Compute(50 * US), recv(0, 2), Call::Finalize]]
}

#[test]
fn a_synchronous_send_completes_only_once_its_receive_is_posted() -> Result<(), Error> {
    for blocking in [true, false] {
        // Standard: detached, rank 0 goes on at once (after its 1 us of compute if
        // non-blocking); the message arrives at 5 us and waits for rank 1 at 50 us.
        let standard = run_call_by_call(driver(2), late_receiver(false, blocking))?;
        let rank0 = if blocking { 0 } else { US };
        assert_eq!(standard, vec![SimTime(rank0), SimTime(50 * US)], "blocking {blocking}");
        // Synchronous: the message flows once the receive is posted at 50 us, and
        // both ends complete when it arrives, at 55 us.
        let sync = run_call_by_call(driver(2), late_receiver(true, blocking))?;
        assert_eq!(sync, vec![SimTime(55 * US), SimTime(55 * US)], "blocking {blocking}");
    }
    // Under LogGOPS (L = 5 us, o = 1 us, S large: every standard send eager), a
    // standard send costs its sender o; a synchronous one, like a rendezvous send,
    // completes when the receive matches its message, at 50 us.
    let m = LogGops {
        l: 5 * US,
        o: US,
        g: 0,
        big_g: 0,
        big_o: 0,
        s: 1 << 20,
    };
    let loggops = || Driver::new(2, LogGopsRules::new(m, 2, 1, 1));
    let standard = run_call_by_call(loggops(), late_receiver(false, true))?;
    assert_eq!(standard[0], SimTime(US));
    let sync = run_call_by_call(loggops(), late_receiver(true, true))?;
    assert_eq!(sync[0], SimTime(50 * US));
    Ok(())
}

#[test]
fn a_cancelled_receive_completes_at_once_unless_it_matched_before() -> Result<(), Error> {
    let irecv = |tag: u32, handle: u64| Call::Irecv {
        from: 1,
        tag,
        bytes: 1000,
        handle,
        comm: 0,
    };
    let send_tag = |tag: u32, handle: u64| Call::Send {
        to: 0,
        tag,
        bytes: 1000,
        handle,
        comm: 0,
        sync: false,
    };
    // Rank 0 cancels a receive nothing has matched (it completes at once, at 0), then
    // receives the message of tag 0 that rank 1 sends at 10 us with another receive
    // (at 15 us). Its receive of tag 1 matched rank 1's first message (at 5 us) before
    // rank 0 cancels it at 20 us: that cancellation fails and the receive keeps its
    // message.
    let mut calls = [
        vec![
            irecv(1, 4),
            irecv(0, 1),
            Call::Cancel(1),
            Call::Wait(vec![1]),
            Call::Recv {
                from: 1,
                tag: 0,
                bytes: 1000,
                handle: 3,
                comm: 0,
            },
            Call::Compute(5 * US),
            Call::Cancel(4),
            Call::Wait(vec![4]),
            Call::Finalize,
        ],
        vec![send_tag(1, 10), Call::Compute(10 * US), send_tag(0, 11), Call::Finalize],
    ];
    for c in calls.iter_mut() {
        c.reverse();
    }
    let mut d = driver(2);
    let (mut matches, mut cancelled) = (Vec::new(), Vec::new());
    let mut go = d.run()?;
    while !go.is_empty() {
        matches.extend(d.take_matches());
        cancelled.extend(d.take_cancelled());
        for r in go {
            if let Some(c) = calls[r as usize].pop() {
                d.post(r, c)?;
            }
        }
        go = d.run()?;
    }
    matches.extend(d.take_matches());
    cancelled.extend(d.take_cancelled());
    assert_eq!(cancelled, vec![1]);
    matches.sort_unstable();
    assert_eq!(matches, vec![(10, 4), (11, 3)]);
    let out = d.finish()?;
    assert_eq!(out.end_times, vec![SimTime(20 * US), SimTime(10 * US)]);
    Ok(())
}
