//! TIT traces: actions become the right operations and dependencies (checked through
//! LogGOPS end times worked out by hand), communicators, index files, and errors.

use simpi_kernel::TimeUnit;
use simpi_mpi::coll::{find, Algorithm, CollSpec, Collective};
use simpi_mpi::{run_loggops, OpId, OpKind};
use simpi_net::LogGops;
use simpi_trace::tit::{read_tit_on, TitOptions, TitTrace, PARALLEL_RANKS};
use std::path::PathBuf;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("simpi-tit-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn choose(s: &CollSpec) -> &'static Algorithm {
    let name = match s.coll {
        Collective::Bcast => "binomial",
        Collective::Allreduce => "rdb",
        Collective::Barrier => "bruck",
        other => panic!("no default for {other} in this test"),
    };
    find(s.coll, name).unwrap()
}

fn read(p: &std::path::Path) -> Result<TitTrace, String> {
    read_on(p, 2)
}

/// Reads with at most `threads` threads.
fn read_on(p: &std::path::Path, threads: usize) -> Result<TitTrace, String> {
    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose: &choose,
        test_cost: 1e-4,
        calls: true,
    };
    read_tit_on(p, &opts, threads).map_err(|e| e.to_string())
}

/// End times in ns under L=1000 o=100, no gaps, everything eager.
fn times(t: &mut TitTrace) -> Vec<u64> {
    schedule_times(&mut t.schedule)
}

/// [`times`] of a schedule.
fn schedule_times(s: &mut simpi_mpi::Schedule) -> Vec<u64> {
    let m = LogGops::from_units(TimeUnit::Ns, 1000, 100, 0, 0, 0, 1 << 40);
    let out = run_loggops(s, &m, None).unwrap();
    out.end_times.iter().map(|t| t.ps() / 1000).collect()
}

#[test]
fn ping_pong_with_computation() {
    // Rank 0 computes 1 ms, sends; rank 1 receives (arrival 1e6+100+1000, taken in by
    // +100), computes 2.5 ms, answers; rank 0 receives at 3,501,200 + 1,100 + 100.
    let p = write(
        "pp.txt",
        "0 init\n0 compute 1e+06\n0 send 1 42 1000 0\n0 recv 1 43 1000 0\n0 finalize\n\
         1 init\n1 recv 0 42 1000 0\n1 compute 2.5e+06\n1 send 0 43 1000 0\n1 finalize\n",
    );
    let mut t = read(&p).unwrap();
    assert_eq!(t.schedule.num_ranks(), 2);
    assert_eq!(t.schedule.num_ops(), 6);
    assert_eq!(times(&mut t), vec![3_502_400, 3_501_300]);
    let names: Vec<&str> = t.calls.iter().map(|c| &*c.name).collect();
    assert_eq!(names, ["compute", "send", "recv", "recv", "compute", "send"]);
}

#[test]
fn non_blocking_ring_with_waitall() {
    // Four ranks post irecv from the left and isend to the right, then compute 0.5 ms,
    // then waitall, then compute 1 ms. Messages arrive at 1,100 and are taken in by
    // 1,200 (the CPU is free: the send took 0..100, the compute starts at 100 and runs
    // to 500,100 — the message arrival waits for the CPU: 500,100 + 100 = 500,200).
    // The final compute starts at 500,200 and ends at 1,500,200.
    let mut text = String::new();
    for r in 0..4 {
        let (l, rt) = ((r + 3) % 4, (r + 1) % 4);
        text += &format!("{r} init\n{r} irecv {l} 7 2048 2\n{r} isend {rt} 7 2048 2\n{r} compute 500000\n{r} waitall 2\n{r} compute 1e6\n");
    }
    let p = write("ring.txt", &text);
    let mut t = read(&p).unwrap();
    assert_eq!(times(&mut t), vec![1_500_200; 4]);
}

#[test]
fn wait_picks_the_oldest_request_with_that_key() {
    // Rank 1 has two irecvs with the same key; `wait 0 1 5` waits for the first only.
    // Rank 0 sends immediately and again after 2 ms of compute. Rank 1 computes 1 ms
    // after the wait: from the first arrival (1,100 + 100 = 1,200) to 1,001,200; the
    // second message arrives at 2,000,100 + 1,100 and is taken in by 2,001,300.
    let p = write(
        "wait.txt",
        "0 send 1 5 8 6\n0 compute 2e6\n0 send 1 5 8 6\n\
         1 irecv 0 5 8 6\n1 irecv 0 5 8 6\n1 wait 0 1 5\n1 compute 1e6\n",
    );
    let mut t = read(&p).unwrap();
    assert_eq!(times(&mut t), vec![2_000_200, 2_001_300]);
}

#[test]
fn waitany_continues_after_the_first_completion() {
    // Rank 0 waits for any of two receives, then computes 1 ms. Rank 1 sends at once;
    // rank 2 after 5 ms. The compute starts when rank 1's message is in (1,200).
    let p = write(
        "any.txt",
        "0 irecv 1 1 8 6\n0 irecv 2 1 8 6\n0 waitAny 2\n0 compute 1e6\n\
         1 send 0 1 8 6\n2 compute 5e6\n2 send 0 1 8 6\n",
    );
    let mut t = read(&p).unwrap();
    let end = times(&mut t);
    // Rank 0 ends when the second message is taken in: 5,000,000 + 100 + 1,000 + 100.
    assert_eq!(end[0], 5_001_200);
    // Without waitany semantics the compute would end at 6,001,200; check it started early:
    // rank 0's CPU was busy 1,200..1,001,200 and idle when the second message arrived.
    assert!(end[0] < 6_001_200);
}

#[test]
fn communicators_split_and_collectives_stay_inside() {
    // Split 4 ranks into evens and odds (key = -rank: reversed order); each half runs an
    // allreduce of 8 bytes by recursive doubling over 2 ranks: one exchange,
    // 2o + L = 1,200 ns. Then a barrier on world (bruck, 2 rounds of 1,200).
    let mut text = String::new();
    for r in 0..4 {
        let c = if r % 2 == 0 { "even" } else { "odd" };
        text += &format!(
            "{r} comm_split world {} {} {c}\n{r} @{c} allreduce 1 0 0\n{r} barrier\n",
            r % 2,
            -(r as i64)
        );
    }
    let p = write("split.txt", &text);
    let mut t = read(&p).unwrap();
    let (_, even) = t.comms.get("even").unwrap();
    assert_eq!(even.members, vec![2, 0]);
    assert_eq!(times(&mut t), vec![3_600; 4]);
}

#[test]
fn index_files_and_shared_files_read_the_same() {
    let r0 = write("r0.txt", "0 send 1 1 10 6\n");
    let r1 = write("r1.txt", "1 recv 0 1 10 6\n0 send 1 1 10 6\n");
    let idx = write("index.txt", &format!("{}\n{}\n", r0.display(), r1.display()));
    let mut a = read(&idx).unwrap();
    assert!(a.warnings.iter().any(|w| w.contains("1 line(s)")), "{:?}", a.warnings);
    let shared = write("shared.txt", "0 send 1 1 10 6\n1 recv 0 1 10 6\n");
    let one = write("one.txt", &format!("{}\n", shared.display()));
    let mut b = read(&one).unwrap();
    assert_eq!(times(&mut a), times(&mut b));
}

#[test]
fn errors_name_file_and_line() {
    let p = write("bad1.txt", "0 init\n0 jump 3\n");
    assert!(read(&p).unwrap_err().ends_with("bad1.txt:2: unknown action 'jump'"));
    let p = write("bad2.txt", "0 wait 0 1 2\n");
    assert!(read(&p)
        .unwrap_err()
        .ends_with("bad2.txt:1: 'wait' without any outstanding isend or irecv"));
    let p = write("bad3.txt", "0 send 5 1 10 6\n1 init\n");
    assert!(read(&p)
        .unwrap_err()
        .ends_with("bad3.txt:1: destination 5 is out of range: the trace has 2 ranks"));
    let p = write("bad4.txt", "0 @nope barrier\n");
    assert!(read(&p)
        .unwrap_err()
        .ends_with("bad4.txt:1: unknown communicator 'nope'"));
    let p = write("bad5.txt", "0 bcast 10 3 0\n1 bcast 10 3 0\n");
    assert!(read(&p)
        .unwrap_err()
        .ends_with("bad5.txt:1: root 3 is out of range: the communicator has 2 ranks"));
    let p = write("bad6.txt", "0 comm_split sub 0 0 a\n");
    assert!(read(&p)
        .unwrap_err()
        .ends_with("bad6.txt:1: communicator 'a' has an unknown parent"));
    let p = write(
        "bad7.txt",
        "0 comm_create world A 0 1 0
1 comm_create world A 0 1 0
",
    );
    assert!(read(&p)
        .unwrap_err()
        .ends_with("bad7.txt:1: world rank 0 is listed twice in communicator 'A'"));
    let p = write("bad9.txt", "0 bcast 1099511627777 0\n1 bcast 1099511627777 0\n");
    assert!(read(&p).unwrap_err().ends_with(
        "bad9.txt:1: the bcast has a buffer of 1099511627777 bytes, more than the 1099511627776 (1 TiB) a rank may have"
    ));
    // The same id made twice by one rank, differently: its members would be counted twice.
    let p = write(
        "bad8.txt",
        "0 comm_split world 0 0 A
1 comm_split world 0 1 A
0 comm_split world 0 5 A
",
    );
    assert!(read(&p)
        .unwrap_err()
        .ends_with("bad8.txt:3: communicator 'A' is created a second time by rank 0 (first at line 1)"));
    // Declared twice alike (the tracer's `comm_known` of one unknown communicator): one
    // communicator of two ranks.
    let p = write(
        "known.txt",
        "0 comm_known world K 0 1
0 comm_known world K 0 1
1 comm_known world K 0 1
         0 @K barrier
1 @K barrier
",
    );
    let t = read(&p).unwrap();
    assert_eq!(t.comms.get("K").unwrap().1.members, vec![0, 1]);
}

#[test]
fn traces_convert_to_goal_with_the_same_times() {
    // The communicator trace above, through GOAL text and back: same end times.
    let mut text = String::new();
    for r in 0..4 {
        let c = if r % 2 == 0 { "even" } else { "odd" };
        text += &format!(
            "{r} comm_split world {} {} {c}\n{r} @{c} allreduce 1 0 0\n{r} compute 1e5\n{r} barrier\n",
            r % 2,
            -(r as i64)
        );
        text += &format!(
            "{r} isend {} 3 100 1\n{r} irecv {} 3 100 1\n{r} waitall\n",
            (r + 1) % 4,
            (r + 3) % 4
        );
    }
    let p = write("conv.txt", &text);
    let mut t = read(&p).unwrap();
    let direct = times(&mut t);
    let (goal, rep) = simpi_trace::goal::write_schedule(&t.schedule, Vec::new(), TimeUnit::Ns).unwrap();
    assert_eq!(rep.rounded_computes, 0);
    let mut back = simpi_trace::read_goal(&goal[..], "conv.goal", TimeUnit::Ns).unwrap();
    assert_eq!(direct, schedule_times(&mut back));
}

#[test]
fn goal_receives_take_the_size_of_their_message() {
    // Rank 1 posts 100-byte buffers for 10- and 30-byte messages: in order, each receive
    // gets its message's size. Rank 2 receives from any source: left as posted.
    let p = write(
        "resize.txt",
        "0 send 1 7 10 2\n0 send 1 7 30 2\n0 send 2 4 50 2\n\
         1 irecv 0 7 100 2\n1 irecv 0 7 100 2\n1 waitall\n2 recv -1 4 80 2\n",
    );
    let t = read(&p).unwrap();
    let (goal, rep) = simpi_trace::goal::write_schedule(&t.schedule, Vec::new(), TimeUnit::Ns).unwrap();
    let goal = String::from_utf8(goal).unwrap();
    assert_eq!(rep.resized_receives, 2);
    for line in [
        "l0: recv 10b from 0 tag 7",
        "l1: recv 30b from 0 tag 7",
        "l0: recv 80b from -1 tag 4",
    ] {
        assert!(goal.contains(line), "{line} missing from:\n{goal}");
    }
}

// ---- simpi's tracer dialect: completions name their requests ----

#[test]
fn waitall_with_listed_requests_waits_only_for_them() {
    // Rank 0 waits for its eager send (done at 100), computes 1 ms (to 1,000,100); the
    // receive of rank 1's late answer (sent at 2,001,200, arrives 2,002,300) is taken in by
    // 2,002,400. SimGrid's drain-everything waitall would put the compute after it.
    let p = write(
        "listed.txt",
        "0 irecv 1 5 8\n0 isend 1 6 8\n0 waitall 1 0 1 6\n0 compute 1e6\n0 wait 1 0 5\n\
         1 recv 0 6 8\n1 compute 2e6\n1 send 0 5 8\n",
    );
    let mut t = read(&p).unwrap();
    assert_eq!(times(&mut t), vec![2_002_400, 2_001_300]);
}

#[test]
fn non_blocking_collectives_overlap_computation() {
    // Rank 0 starts a barrier, computes 1 ms and then waits: the barrier's receive (arrival
    // 1,100) is taken in after the compute, by 1,000,200. A blocking barrier would end at
    // 1,200 and the compute at 1,001,200. (A non-blocking collective matches only
    // non-blocking ones, as in MPI: rank 1's is one too.)
    let p = write(
        "ibarrier.txt",
        "0 ibarrier\n0 compute 1e6\n0 wait -3 0 0\n1 ibarrier\n1 wait -3 1 0\n",
    );
    let mut t = read(&p).unwrap();
    assert_eq!(times(&mut t)[0], 1_000_200);
    // Against a blocking barrier it never matches: the run stalls and says so.
    let p = write("ibarrier-blocking.txt", "0 ibarrier\n0 wait -3 0 0\n1 barrier\n");
    let mut t = read(&p).unwrap();
    let m = LogGops::from_units(TimeUnit::Ns, 1000, 100, 0, 0, 0, 1 << 40);
    assert!(run_loggops(&mut t.schedule, &m, None).is_err());
}

#[test]
fn persistent_receives_keep_their_source() {
    // Rank 0's persistent receive names rank 1, so rank 2's earlier message (same tag, taken
    // in on arrival, 1,100..1,200, as LogGOPSim does for unexpected eager messages) waits for
    // the plain receive. Rank 1 computes to 1,000,000 and sends (to 1,000,100); its message
    // arrives at 1,001,100 and is taken in by 1,001,200. Matching any source would stall.
    let p = write(
        "persistent.txt",
        "0 recv_init\n0 Start 1 3 16 6 r\n0 wait 1 0 3\n0 recv 2 3 16\n0 request_free\n\
         1 compute 1e6\n1 send 0 3 16\n2 send 0 3 16\n",
    );
    let mut t = read(&p).unwrap();
    assert_eq!(times(&mut t), vec![1_001_200, 1_000_100, 100]);
    // startall lists each request with its partner and direction.
    let p = write(
        "startall.txt",
        "0 startall 2 1 3 16 s 1 4 16 r\n0 waitall 2 0 1 3 1 0 4\n1 recv 0 3 16\n1 send 0 4 16\n",
    );
    let mut t = read(&p).unwrap();
    assert_eq!(times(&mut t), vec![2_400, 1_300]);
}

#[test]
fn sendrecv_carries_its_tags_and_proc_null_is_dropped() {
    // Rank 0 sends tag 5 (arrives 1,100, received by 1,200), rank 1 answers with tag 9
    // (sent 1,200..1,300, arrives 2,300, received by 2,400). Operations with the tracer's
    // MPI_PROC_NULL (-2) vanish.
    let p = write(
        "sendrecv.txt",
        "0 sendRecv 8 1 8 1 6 6 5 9\n0 recv -2 1 8\n0 sendRecv 8 -2 8 -2 6 6 0 0\n\
         1 recv 0 5 8\n1 send 0 9 8\n1 send -2 1 8\n",
    );
    let mut t = read(&p).unwrap();
    assert_eq!(times(&mut t), vec![2_400, 1_300]);
}

#[test]
fn a_send_receive_with_itself_on_both_sides_is_a_copy() {
    // SMPI's MPI_Sendrecv copies the buffer when both peers are the caller and sends
    // nothing (its pairwise alltoallv does this in step 0): no operation, no time. With
    // only one side being itself it is two real messages: rank 1 sends to itself (an
    // eager message, taken in by its own receive) and receives rank 0's.
    let p = write(
        "selfcopy.txt",
        "0 sendRecv 800 0 800 0 6 6\n0 compute 1e3\n0 send 1 0 8\n\
         1 sendRecv 8 1 8 0 6 6\n1 recv 1 0 8\n",
    );
    let mut t = read(&p).unwrap();
    assert_eq!(t.schedule.num_ops(), 5);
    let ends = times(&mut t);
    assert_eq!(
        ends[0],
        1_000 + 100,
        "rank 0: the copy took nothing, then compute and send"
    );
    assert!(ends[1] > ends[0], "rank 1 waited for rank 0's message: {ends:?}");
}

#[test]
fn waitsome_and_tests_complete_what_the_real_calls_completed() {
    // testsome found nothing: 0.1 ms of test cost. waitsome completed tag 2 (arrived at
    // 1,100, taken in after the test cost: 100,100); the compute runs to 1,100,100; tag 1
    // (sent at 3,000,100, arrives 3,001,200) is taken in by 3,001,300.
    let p = write(
        "waitsome.txt",
        "0 irecv 1 1 8\n0 irecv 1 2 8\n0 testsome 2 0\n0 waitsome 2 1 1 0 2\n0 compute 1e6\n\
         0 test 1 0 1 1\n1 send 0 2 8\n1 compute 3e6\n1 send 0 1 8\n",
    );
    let mut t = read(&p).unwrap();
    // The final successful test waits for tag 1, then costs its 0.1 ms.
    assert_eq!(times(&mut t), vec![3_101_300, 3_000_200]);
}

/// A rank's operations and how many dependencies each has.
/// The trace text of `n` rounds, round `k` written by `round(k)`.
fn rounds(n: usize, round: impl Fn(usize) -> String) -> String {
    (0..n).map(round).collect()
}

fn rank_deps(t: &TitTrace, rank: u32) -> Vec<u32> {
    t.schedule
        .rank_ops(rank)
        .map(|id| t.schedule.dependencies(OpId(id)))
        .collect()
}

#[test]
fn wait_loops_without_a_blocking_call_keep_one_dependency_per_operation() {
    // isend/wait (irecv/wait) with a new tag each time and nothing blocking in between:
    // each request waits for the previous one only (it implies all earlier ones), not
    // for every earlier one. Times: rank 0's sends take 100 each, back to back (200 of
    // them end at 20,000); message k leaves at 100·k, arrives 1,100 later and is taken
    // in by 100·k + 1,200, just when the previous receive is done: the last (k = 199)
    // at 21,100.
    let n = 200;
    let text = rounds(n, |k| {
        format!("0 isend 1 {k} 8 0\n0 wait 0 1 {k}\n1 irecv 0 {k} 8 0\n1 wait 0 1 {k}\n")
    });
    let p = write("wait_loop.txt", &text);
    let mut t = read(&p).unwrap();
    for r in 0..2 {
        let deps = rank_deps(&t, r);
        assert_eq!(deps.len(), n);
        assert_eq!(deps[0], 0);
        assert!(deps[1..].iter().all(|&d| d == 1), "rank {r}: {deps:?}");
    }
    assert_eq!(times(&mut t), vec![20_000, 21_100]);
}

#[test]
fn waitany_without_its_request_completes_the_oldest() {
    // isend + waitAny (SimGrid's form, no key) 200 times: each waitany waits for the one
    // outstanding send, which then leaves the store (before, every later waitany waited
    // for all earlier sends too: quadratic). Times as for isend/wait: rank 0's sends
    // take 100 each (20,000), rank 1's blocking receives take in message k at
    // 100·k + 1,200 (the last at 21,100).
    let text = rounds(200, |k| format!("0 isend 1 {k} 8 0\n0 waitAny 1\n1 recv 0 {k} 8 0\n"));
    let p = write("waitany_loop.txt", &text);
    let mut t = read(&p).unwrap();
    assert!(
        t.schedule.num_edges() <= 3 * t.schedule.num_ops(),
        "{} edges",
        t.schedule.num_edges()
    );
    assert_eq!(times(&mut t), vec![20_000, 21_100]);
}

#[test]
fn waitall_loops_without_a_blocking_call_stay_linear() {
    // Two ranks exchange with irecv, isend, waitall, 300 times with nothing blocking in
    // between. Each round: sends take 0..100, messages arrive at 1,100 and are taken in by
    // 1,200, when the next round starts: 300 rounds end at 360,000. Each operation waits
    // for the two of the previous round (the first round's for nothing).
    let n = 300;
    let mut text = String::new();
    for r in 0..2 {
        for _ in 0..n {
            text += &format!("{r} irecv {o} 3 8 0\n{r} isend {o} 3 8 0\n{r} waitall 2\n", o = 1 - r);
        }
    }
    let p = write("waitall_loop.txt", &text);
    let mut t = read(&p).unwrap();
    assert_eq!(t.schedule.num_edges(), 2 * 2 * 2 * (n - 1));
    assert_eq!(times(&mut t), vec![360_000; 2]);
}

#[test]
fn requests_completed_together_are_joined_before_the_next_ones() {
    // 50 rounds of 20 isends (rank 0) or irecvs (rank 1), each round ended by a waitall.
    // Without a join, each of a round's 20 operations would wait for each of the 20
    // before (400 edges a round); with one, 20 into the join and 20 out of it. Times:
    // rank 0's sends take 100 each, back to back (a round of 2,000, 50 rounds end at
    // 100,000); message i of a round starting at T arrives at T + 100(i+1) + 1,000 and
    // is taken in by 100 later, just as the one before is done: rank 1's last at
    // 100,000 + 1,100.
    let (k, rounds) = (20, 50);
    let mut text = String::new();
    for _ in 0..rounds {
        for _ in 0..k {
            text += "0 isend 1 3 8 0\n";
        }
        text += "0 waitall 20\n";
        for _ in 0..k {
            text += "1 irecv 0 3 8 0\n";
        }
        text += "1 waitall 20\n";
    }
    let p = write("batches.txt", &text);
    let mut t = read(&p).unwrap();
    assert_eq!(t.schedule.num_ops(), 2 * (k * rounds + rounds - 1));
    assert_eq!(t.schedule.num_edges(), 2 * 2 * k * (rounds - 1));
    let joins = (0..t.schedule.num_ops() as u32)
        .filter(|&id| t.schedule.is_join(OpId(id)))
        .count();
    assert_eq!(joins, 2 * (rounds - 1));
    assert_eq!(times(&mut t), vec![100_000, 101_100]);
    // GOAL has no joins: the export leaves them out and writes the edges through them.
    let (goal, _) = simpi_trace::goal::write_schedule(&t.schedule, Vec::new(), TimeUnit::Ns).unwrap();
    let mut back = simpi_trace::read_goal(&goal[..], "batches.goal", TimeUnit::Ns).unwrap();
    assert_eq!(back.num_ops(), 2 * k * rounds);
    assert_eq!(back.num_edges(), 2 * k * k * (rounds - 1));
    assert_eq!(schedule_times(&mut back), vec![100_000, 101_100]);
}

#[test]
fn a_non_blocking_collective_waited_at_once_is_the_blocking_one() {
    // iallreduce then its wait, 30 times, against allreduce 30 times: the same end times
    // and about as many edges (a waited collective's end implies what it waited for;
    // before, every later collective waited for all earlier ends: quadratic).
    let rounds = 30;
    let (mut nb, mut bl) = (String::new(), String::new());
    for r in 0..4 {
        for i in 0..rounds {
            nb += &format!("{r} iallreduce 100 0 0\n{r} wait -3 {r} {i}\n");
            bl += &format!("{r} allreduce 100 0 0\n");
        }
    }
    let mut a = read(&write("iallreduce_loop.txt", &nb)).unwrap();
    let mut b = read(&write("allreduce_loop.txt", &bl)).unwrap();
    assert_eq!(times(&mut a), times(&mut b));
    assert!(
        a.schedule.num_edges() <= b.schedule.num_edges() + 4 * rounds,
        "{} edges against {}",
        a.schedule.num_edges(),
        b.schedule.num_edges()
    );
}

#[test]
fn a_collective_after_implied_requests_still_joins_them_on_the_cpu() {
    // Two isend/wait pairs leave a frontier of two sends, the first implied by the
    // second: the barrier still starts after a zero-length join (which waits for the
    // CPU), as it does after two requests, and the join waits for the second send only.
    let mut text = String::new();
    for r in 0..2 {
        let o = 1 - r;
        text += &format!("{r} isend {o} 1 8 0\n{r} wait {r} {o} 1\n{r} isend {o} 2 8 0\n{r} wait {r} {o} 2\n");
        text +=
            &format!("{r} recv {o} 1 8 0\n{r} recv {o} 2 8 0\n{r} isend {o} 3 8 0\n{r} wait {r} {o} 3\n{r} barrier\n");
    }
    let p = write("join.txt", &text);
    let t = read(&p).unwrap();
    let first = t.schedule.rank_ops(0).start;
    // isend, isend, recv, recv, isend, then the join.
    let join = t.schedule.op(OpId(first + 5));
    assert_eq!((join.kind, join.size), (OpKind::Calc, 0));
    assert!(!t.schedule.is_join(OpId(first + 5)), "it waits for the CPU");
    assert_eq!(t.schedule.dependencies(OpId(first + 5)), 1);
    assert_eq!(rank_deps(&t, 0)[..5], [0, 1, 1, 1, 1]);
}

#[test]
fn a_test_after_the_request_was_waited_for_costs_nothing() {
    // SimGrid's replay finds no request for the key any more and skips the test; while
    // the request is outstanding, a test costs its 0.1 ms.
    let p = write(
        "test_after.txt",
        "0 isend 1 4 8 0\n0 wait 0 1 4\n0 test 0 1 4\n0 isend 1 5 8 0\n0 test 0 1 5\n0 wait 0 1 5\n\
         1 recv 0 4 8 0\n1 recv 0 5 8 0\n",
    );
    let t = read(&p).unwrap();
    let kinds: Vec<OpKind> = t.schedule.rank_ops(0).map(|id| t.schedule.op(OpId(id)).kind).collect();
    assert_eq!(kinds, [OpKind::Send, OpKind::Send, OpKind::Calc]);
}

#[test]
fn collectives_on_the_self_communicator_move_nothing() {
    let p = write(
        "self.txt",
        "0 @self bcast 100 0 6\n0 @self allreduce 100 0 6\n0 compute 1e3\n1 compute 2e3\n",
    );
    let mut t = read(&p).unwrap();
    assert_eq!(t.schedule.num_ops(), 2);
    assert_eq!(times(&mut t), vec![1_000, 2_000]);
}

/// A trace of `p` ranks, one file per rank and an index: the even and the odd ranks each
/// form a communicator; rank r computes (p - r) µs and, in its communicator, sends 1000
/// bytes to the next rank and receives from the previous one (a chain, not a ring;
/// partners are world ranks, as in the dialect).
/// Ranks in `bad` have a bad line (line 3).
fn chain_trace(name: &str, p: u32, bad: &[u32]) -> PathBuf {
    let d = dir().join(name);
    std::fs::create_dir_all(&d).unwrap();
    let mut index = String::new();
    let half = p / 2;
    for r in 0..p {
        let (me, c) = (r / 2, r % 2);
        let mut t = format!("{r} init\n{r} comm_split world {c} {r} half{c}\n");
        if bad.contains(&r) {
            t.push_str(&format!("{r} send nowhere\n"));
        }
        t.push_str(&format!("{r} compute {}\n", (p - r) * 1000));
        if me + 1 < half {
            t.push_str(&format!("{r} @half{c} send {} 7 1000 0\n", r + 2));
        }
        if me > 0 {
            t.push_str(&format!("{r} @half{c} recv {} 7 1000 0\n", r - 2));
        }
        t.push_str(&format!("{r} finalize\n"));
        let f = d.join(format!("rank-{r}.txt"));
        std::fs::write(&f, t).unwrap();
        index.push_str(&format!("{}\n", f.display()));
    }
    let i = d.join("index.txt");
    std::fs::write(&i, index).unwrap();
    i
}

#[test]
fn large_traces_read_in_halves_give_the_one_pass_result() {
    // 128 ranks are converted on two threads (64 and more), messages crossing between
    // the halves. Under L=1000 o=100 with no gaps, with D = 1000(p - r) ns of compute:
    // a rank sends at D; its predecessor in the chain computed 2000 ns more, so that
    // message arrives at D + 3100 (after the rank's own send) and is in at D + 3200.
    // The head of a chain ends at D + 100 (its send's CPU time), the others at D + 3200.
    let p = 128u32;
    assert!(p >= PARALLEL_RANKS);
    let mut t = read(&chain_trace("chain128", p, &[])).unwrap();
    assert_eq!(t.schedule.num_ranks(), p);
    let want: Vec<u64> = (0..p)
        .map(|r| 1000 * (p - r) as u64 + if r / 2 == 0 { 100 } else { 3200 })
        .collect();
    assert_eq!(times(&mut t), want);
    // Calls are listed rank by rank with consecutive operation ranges.
    let (mut next, mut rank, mut total) = (0, 0, 0);
    for c in &t.calls {
        if c.rank != rank {
            (rank, next) = (c.rank, 0);
        }
        assert_eq!(c.first, next, "{c:?}");
        total += c.end - c.first;
        next = c.end;
    }
    assert_eq!(total as usize, t.schedule.num_ops());
    assert!(t.calls.windows(2).all(|w| w[0].rank <= w[1].rank));
    // One thread: the same operations and calls.
    let mut one = read_on(&chain_trace("chain128", p, &[]), 1).unwrap();
    assert_eq!(one.schedule.num_ops(), t.schedule.num_ops());
    assert_eq!(format!("{:?}", one.calls), format!("{:?}", t.calls));
    assert_eq!(times(&mut one), want);
    // The lower half's error is reported first, as in one pass; an error in the upper
    // half alone is reported too.
    for threads in [1, 2] {
        let e = read_on(&chain_trace("bad2", p, &[100, 10]), threads).unwrap_err();
        assert!(e.contains("rank-10.txt:3"), "{e}");
        let e = read_on(&chain_trace("bad1", p, &[100]), threads).unwrap_err();
        assert!(e.contains("rank-100.txt:3"), "{e}");
    }
}

/// A rank's collective calls are expanded once per distinct call and reused: the reuse
/// must keep communicators apart (same spec, other members) and chain repeated calls.
#[test]
fn repeated_collectives_expand_alike_and_communicators_stay_apart() {
    // Rank 2 is index 0 of both A = {2, 3} and B = {2, 0}: its bcasts on them have the
    // same arguments but must go to world ranks 3 and 0.
    let p = write(
        "reuse.txt",
        "0 comm_create world B 2 0\n0 @B bcast 100 0 6\n0 bcast 100 0 6\n0 bcast 100 0 6\n\
         1 bcast 100 0 6\n1 bcast 100 0 6\n\
         2 comm_create world A 2 3\n2 comm_create world B 2 0\n2 @A bcast 100 0 6\n2 @B bcast 100 0 6\n\
         2 bcast 100 0 6\n2 bcast 100 0 6\n\
         3 comm_create world A 2 3\n3 @A bcast 100 0 6\n3 bcast 100 0 6\n3 bcast 100 0 6\n",
    );
    let mut t = read(&p).unwrap();
    let s = &t.schedule;
    let ops: Vec<u32> = s.rank_ops(2).collect();
    let desc = |id: u32| {
        let o = s.op(simpi_mpi::OpId(id));
        (o.kind, o.peer, o.size, o.tag, s.context(id))
    };
    // Binomial bcast from index 0 of two ranks: one send to the other member.
    let (a, b) = (desc(ops[0]), desc(ops[1]));
    assert_eq!((a.0, a.1, a.2), (simpi_mpi::OpKind::Send, 3, 100));
    assert_eq!((b.0, b.1, b.2), (simpi_mpi::OpKind::Send, 0, 100));
    assert_ne!(a.4, b.4, "each communicator has its own context");
    // World bcast from 0 over 4 ranks, rank 2: receive from 0, then send to 3; twice,
    // alike, the second after the first.
    let world: Vec<_> = ops[2..].iter().map(|&id| desc(id)).collect();
    assert_eq!(world.len(), 4);
    assert_eq!(world[..2], world[2..]);
    assert_eq!((world[0].0, world[0].1), (simpi_mpi::OpKind::Recv, 0));
    assert_eq!((world[1].0, world[1].1), (simpi_mpi::OpKind::Send, 3));
    assert_eq!(s.done_successors(simpi_mpi::OpId(ops[3])).collect::<Vec<_>>(), [ops[4]]);
    assert_eq!(s.dependencies(simpi_mpi::OpId(ops[4])), 1);
    // And it runs: every rank gets its messages (no stall).
    times(&mut t);
}

/// Reads with `choose` picking every collective's algorithm.
fn read_choosing(p: &std::path::Path, choose: &(dyn Fn(&CollSpec) -> &'static Algorithm + Sync)) -> TitTrace {
    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose,
        test_cost: 1e-4,
        calls: true,
    };
    read_tit_on(p, &opts, 1).unwrap()
}

/// A choice of `allreduce`, and of the `reduce` and `bcast` it may be made of.
fn composite(
    allreduce: &'static str,
    reduce: &'static str,
    bcast: &'static str,
) -> impl Fn(&CollSpec) -> &'static Algorithm + Sync {
    move |s: &CollSpec| -> &'static Algorithm {
        let name = match s.coll {
            Collective::Allreduce => allreduce,
            Collective::Reduce => reduce,
            Collective::Bcast => bcast,
            other => panic!("no choice for {other}"),
        };
        find(s.coll, name).unwrap()
    }
}

/// One line (or lines) per rank of `n`.
fn every_rank(n: u32, f: &dyn Fn(u32) -> String) -> String {
    (0..n).map(f).collect()
}

/// The sizes of the schedule's sends, in operation order.
fn send_sizes(t: &TitTrace) -> Vec<u64> {
    (0..t.schedule.num_ops() as u32)
        .map(|i| t.schedule.op(OpId(i)))
        .filter(|op| op.kind == OpKind::Send)
        .map(|op| op.size)
        .collect()
}

#[test]
fn reduce_then_bcast_allreduce_runs_the_selected_reduce_and_bcast() {
    // SimGrid's allreduce__redbcast calls whatever reduce and bcast are selected. With
    // linear ones, an allreduce of 4 ranks must end exactly as a linear reduce to rank 0
    // followed by a flat-tree bcast from it, written as two calls; and differently from
    // the binomial pair (the default when nothing selects).
    same_as_written_out("redbcast", &|r| format!("{r} allreduce 1000 0 6\n"), &|r| {
        format!("{r} reduce 1000 0 0 6\n{r} bcast 1000 0 6\n")
    });
}

/// Checks that a 4-rank trace of one allreduce `alg` line per rank (`one`), its reduce
/// and bcast selected linear and flat-tree, ends as `two` (the calls written out) does,
/// and that with binomial ones it ends otherwise (the selection matters).
fn same_as_written_out(alg: &'static str, one: &dyn Fn(u32) -> String, two: &dyn Fn(u32) -> String) {
    let one = write(&format!("{alg}_one.txt"), &every_rank(4, one));
    let two = write(&format!("{alg}_written_out.txt"), &every_rank(4, two));
    let linear = composite(alg, "linear", "flattree");
    let want = times(&mut read_choosing(&two, &linear));
    assert_eq!(times(&mut read_choosing(&one, &linear)), want);
    let binomial = composite(alg, "binomial", "binomial");
    assert_ne!(
        times(&mut read_choosing(&one, &binomial)),
        want,
        "the selection made no difference"
    );
}

#[test]
fn reductions_of_an_empty_vector_send_nothing() {
    // SimGrid's reduce__binomial and reduce__scatter_gather return at once for a count of
    // 0, as MPICH does; the replay still runs the computation (1e3 flops: 1,000 ns).
    let p = write(
        "empty_reduce.txt",
        &every_rank(4, &|r| format!("{r} reduce 0 1e3 1 6\n")),
    );
    for alg in ["binomial", "scatter_gather"] {
        let choose = move |s: &CollSpec| -> &'static Algorithm {
            assert_eq!(s.coll, Collective::Reduce);
            find(Collective::Reduce, alg).unwrap()
        };
        let mut t = read_choosing(&p, &choose);
        assert_eq!(t.schedule.num_ops(), 4, "{alg}: one computation per rank");
        assert_eq!(times(&mut t), vec![1_000; 4], "{alg}");
    }
}

#[test]
fn the_logical_ring_allreduce_sends_its_remainder_through_the_selected_allreduce() {
    // SimGrid's allreduce__lr reduces `count mod n` left-over elements with
    // `colls::allreduce`: lr again when forced, which for fewer than n elements is
    // redbcast, by the selected reduce and bcast. On 4 ranks, 6 ints are the ring over 4
    // and that call over the last 2: the same end times as the two calls written out.
    same_as_written_out("lr", &|r| format!("{r} allreduce 6 0 2\n"), &|r| {
        format!("{r} allreduce 4 0 2\n{r} allreduce 2 0 2\n")
    });
}

#[test]
fn a_short_last_segment_of_a_pipelined_reduce_does_not_overtake() {
    // 8193 ints in segments of 8192: the last one is 4 bytes. In a flow model it arrives
    // long before the 32 KiB one, but an inner rank of the chain sends it only after
    // sending that one (blocking sends, in program order); otherwise it would reach the
    // parent first and be taken by the receive posted for 32 KiB.
    let p = write(
        "short_segment.txt",
        &every_rank(4, &|r| format!("{r} reduce 8193 0 0 1\n")),
    );
    let choose = |s: &CollSpec| -> &'static Algorithm {
        assert_eq!(s.coll, Collective::Reduce);
        find(Collective::Reduce, "pipeline").unwrap()
    };
    let t = read_choosing(&p, &choose);
    let sched = &t.schedule;
    for rank in [1, 2] {
        let ops: Vec<OpId> = sched.rank_ops(rank).map(OpId).collect();
        let send = |bytes: u64| {
            *ops.iter()
                .find(|&&id| sched.op(id).kind == OpKind::Send && sched.op(id).size == bytes)
                .unwrap()
        };
        let (long, short) = (send(32_768), send(4));
        // Everything that waits, directly or not, for the long send's completion.
        let mut after = vec![long.0];
        let mut i = 0;
        while i < after.len() {
            for n in sched.done_successors(OpId(after[i])) {
                if !after.contains(&n) {
                    after.push(n);
                }
            }
            i += 1;
        }
        assert!(
            after.contains(&short.0),
            "rank {rank}: the 4-byte send does not wait for the 32 KiB one"
        );
    }
}

#[test]
fn two_values_after_an_allgatherv_on_two_ranks_are_datatypes() {
    // SimGrid tells the optional fields apart by count: more than the ranks are datatypes
    // then displacements, more than two are displacements, two or fewer are datatypes. On
    // two ranks "1 1" are datatypes (int: 4 bytes), so 10 elements are 40 bytes.
    let p = write(
        "allgatherv2.txt",
        "0 allgatherv 10 10 10 1 1\n1 allgatherv 10 10 10 1 1\n",
    );
    let choose = |s: &CollSpec| -> &'static Algorithm {
        assert_eq!(s.coll, Collective::Allgatherv);
        find(Collective::Allgatherv, "ring").unwrap()
    };
    let t = read_choosing(&p, &choose);
    assert_eq!(send_sizes(&t), vec![40, 40]);
    // Three ranks: three values after the counts are displacements, and the datatype is
    // the default (bytes, as `init` had no argument).
    let p = write(
        "allgatherv3.txt",
        &every_rank(3, &|r| format!("{r} allgatherv 10 10 10 10 0 10 20\n")),
    );
    let t = read_choosing(&p, &choose);
    let sends = send_sizes(&t);
    assert!(sends.iter().all(|&b| b == 10), "{sends:?}");
}
