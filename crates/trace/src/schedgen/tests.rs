//! Structural checks of the generated schedules: they parse, every send has a matching
//! receive, and operation counts follow the algorithms' formulas.

use super::*;
use crate::goal::read_goal;
use simpi_kernel::TimeUnit;
use simpi_mpi::{OpId, OpKind, Schedule};
use std::collections::HashMap;

fn build(pattern: Pattern, ranks: u32, bytes: u64, iterations: u32, compute: u64) -> Schedule {
    let p = Params {
        ranks,
        bytes,
        iterations,
        compute,
        periodic: false,
    };
    let text = generate(pattern, &p, Vec::new()).unwrap();
    read_goal(&text[..], "gen", TimeUnit::Ns).unwrap()
}

/// Bytes sent from a to b must equal bytes b receives from a, message by message.
fn assert_balanced(s: &Schedule) {
    let mut flows: HashMap<(u32, u32, u32), Vec<u64>> = HashMap::new();
    let mut recvs: HashMap<(u32, u32, u32), Vec<u64>> = HashMap::new();
    for r in 0..s.num_ranks() {
        for id in s.rank_ops(r) {
            let op = s.op(OpId(id));
            match op.kind {
                OpKind::Send => flows.entry((r, op.peer, op.tag)).or_default().push(op.size),
                OpKind::Recv => recvs.entry((op.peer, r, op.tag)).or_default().push(op.size),
                OpKind::Calc => {}
            }
        }
    }
    assert_eq!(flows, recvs);
}

fn count(s: &Schedule, kind: OpKind) -> usize {
    (0..s.num_ops() as u32).filter(|&i| s.op(OpId(i)).kind == kind).count()
}

#[test]
fn every_pattern_is_balanced_for_many_sizes() {
    for &(pat, _, _) in Pattern::ALL.iter() {
        for n in [1u32, 2, 3, 5, 8, 12, 17, 64] {
            let s = build(pat, n, 100, 2, 3);
            assert_balanced(&s);
        }
    }
}

#[test]
fn message_counts_follow_the_algorithms() {
    // Binomial trees send n-1 messages.
    assert_eq!(count(&build(Pattern::BinomialBcast, 13, 8, 1, 0), OpKind::Send), 12);
    assert_eq!(count(&build(Pattern::BinomialReduce, 13, 8, 1, 0), OpKind::Send), 12);
    // Recursive doubling with 2^k ranks: n·k messages.
    assert_eq!(
        count(&build(Pattern::RecursiveDoublingAllreduce, 16, 8, 1, 0), OpKind::Send),
        16 * 4
    );
    // 12 = 8 + 4: 4 folds, 8·3 exchanges, 4 results back.
    assert_eq!(
        count(&build(Pattern::RecursiveDoublingAllreduce, 12, 8, 1, 0), OpKind::Send),
        4 + 24 + 4
    );
    // Ring: 2(n-1) messages per rank.
    assert_eq!(count(&build(Pattern::RingAllreduce, 6, 60, 1, 0), OpKind::Send), 6 * 10);
    // Dissemination: ceil(log2 n) rounds.
    assert_eq!(
        count(&build(Pattern::DisseminationBarrier, 5, 1, 1, 0), OpKind::Send),
        5 * 3
    );
    // Linear all-to-all: n(n-1).
    assert_eq!(count(&build(Pattern::LinearAlltoall, 7, 1, 1, 0), OpKind::Send), 42);
    // 2x2x2 stencil: every rank has 3 neighbours; 3 iterations with compute.
    let st = build(Pattern::Stencil3d, 8, 1, 3, 10);
    assert_eq!(count(&st, OpKind::Send), 8 * 3 * 3);
    assert_eq!(count(&st, OpKind::Calc), 8 * 3);
}

#[test]
fn dims_are_balanced() {
    assert_eq!(stencil3d::dims3(8), [2, 2, 2]);
    assert_eq!(stencil3d::dims3(12), [3, 2, 2]);
    assert_eq!(stencil3d::dims3(7), [7, 1, 1]);
    assert_eq!(stencil3d::dims3(1 << 20), [128, 128, 64]);
}

#[test]
fn pattern_names_round_trip() {
    for &(p, name, _) in Pattern::ALL.iter() {
        assert_eq!(Pattern::from_name(name), Some(p));
        assert_eq!(p.name(), name);
    }
}

#[test]
fn issue16_schedgen_estimates_its_output_size() {
    // Every rank sampled (up to 64): within 3 % (the header is estimated, later
    // iterations are taken as the second); more ranks than samples: within 10 %, the
    // binomial trees' uneven ranks included.
    for &(pat, _, _) in Pattern::ALL.iter() {
        for (n, iterations) in [(1u32, 1u32), (5, 3), (64, 2), (100, 1), (300, 2)] {
            let p = Params {
                ranks: n,
                bytes: 1000,
                iterations,
                compute: 7,
                periodic: false,
            };
            let real = generate(pat, &p, Vec::new()).unwrap().len() as f64;
            let est = estimated_size(pat, &p, u64::MAX).unwrap() as f64;
            // Later iterations' labels have more digits than the second's.
            let tolerance = if n <= 64 { 40.0 + 0.03 * real } else { 0.1 * real };
            assert!(
                (est - real).abs() <= tolerance,
                "{} on {n} ranks x {iterations}: estimated {est}, wrote {real}",
                pat.name()
            );
        }
    }
}

#[test]
fn issue16_schedgen_refuses_a_quadratic_pattern_past_its_limit() {
    // A ring allreduce has 2(N-1) steps per rank: 5000 ranks are about 10^8 operations.
    let p = Params {
        ranks: 5000,
        bytes: 8,
        iterations: 1,
        compute: 0,
        periodic: false,
    };
    let start = std::time::Instant::now();
    let e = generate(Pattern::RingAllreduce, &p, Vec::new()).unwrap_err();
    assert!(start.elapsed().as_secs() < 5, "the estimate took {:?}", start.elapsed());
    assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
    let e = e.to_string();
    assert!(
        e.starts_with("ring-allreduce on 5000 rank(s) would be a GOAL file of about ")
            && e.ends_with(
                "more than the 1 GiB `simpi schedgen` writes: `simpi replay --pattern ring-allreduce --ranks 5000` \
                 simulates it without a file"
            ),
        "{e}"
    );
    // With a higher limit the same call writes; a tiny limit refuses even 4 ranks.
    let small = Params { ranks: 4, ..p };
    assert!(generate_at_most(Pattern::RingAllreduce, &small, Vec::new(), 10).is_err());
    assert!(generate_at_most(Pattern::RingAllreduce, &small, Vec::new(), u64::MAX).is_ok());
    // Billions of ranks: refused at once, with no per-rank allocation.
    let huge = Params {
        ranks: u32::MAX - 1,
        ..p
    };
    for pat in [Pattern::BinomialBcast, Pattern::LinearAlltoall, Pattern::Stencil3d] {
        let start = std::time::Instant::now();
        assert!(generate(pat, &huge, Vec::new()).is_err());
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    }
}

#[test]
fn issue16_random_schedules_past_their_limits_are_errors() {
    let p = RandomParams {
        ranks: 4,
        messages: u32::MAX,
        computes: u32::MAX,
        max_bytes: 10,
        max_compute: 10,
        cpus: 1,
        nics: 1,
        seed: 1,
    };
    let e = generate_random(&p, Vec::new()).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    let p = RandomParams {
        ranks: u32::MAX - 1,
        messages: 1,
        computes: 1,
        ..p
    };
    assert!(generate_random(&p, Vec::new()).is_err());
}

#[test]
fn issue16_a_pattern_of_more_than_2_31_ranks_is_an_error_not_a_hang() {
    // Collective algorithms double masks up to the communicator size: past 2^31 ranks
    // they would loop forever. The program refuses at its first call, and keeps no
    // state for the ranks before the one that calls.
    let p = Params {
        ranks: u32::MAX - 1,
        bytes: 8,
        iterations: 1,
        compute: 0,
        periodic: false,
    };
    let mut prog = PatternProgram::new(Pattern::BinomialBcast, p, 0);
    let mut w = GoalWriter::new(Vec::new(), p.ranks).unwrap();
    w.begin_rank(u32::MAX - 2).unwrap();
    let mut sink = goal_sink::GoalSink::new(&mut w, 1);
    let mut calls = RankCalls::<u32>::new(u32::MAX - 2);
    match prog.step(u32::MAX - 2, &mut calls, &mut sink) {
        Err(simpi_mpi::Error::BadParameter(m)) => {
            assert_eq!(m, "a pattern has at most 2147483648 ranks, not 4294967294")
        }
        other => panic!("{other:?}"),
    }
    // 2^31 ranks exactly: a rank far from 0 makes its first call without a state for
    // every rank before it.
    let p = Params { ranks: 1 << 31, ..p };
    let mut prog = PatternProgram::new(Pattern::BinomialBcast, p, 0);
    prog.done_below((1 << 31) - 1);
    let mut w = GoalWriter::new(Vec::new(), p.ranks).unwrap();
    w.begin_rank((1 << 31) - 1).unwrap();
    let mut sink = goal_sink::GoalSink::new(&mut w, 1);
    let mut calls = RankCalls::<u32>::new((1 << 31) - 1);
    assert!(matches!(
        prog.step((1 << 31) - 1, &mut calls, &mut sink),
        Ok(Step::Called)
    ));
}
