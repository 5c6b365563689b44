//! Malformed GOAL schedules and TIT traces give errors, never panics. Small valid inputs
//! (from the repository and written here) are mutated a few thousand times each by a
//! seeded generator: a byte deleted or inserted, a line duplicated or two swapped, the
//! text cut short, a number replaced by an extreme or broken one, a name replaced by an
//! unknown one. Each mutant goes through every path of the reader (GOAL: the fast path,
//! the general parser, the two-halves parse; TIT: one thread and two, shared and
//! per-rank files, every collective algorithm); none may panic, and an error must name
//! the file and, for a problem on a line, the line.
//!
//! The generator (tests/support/mutate.rs) is shared with `crates/platform/tests/malformed.rs`.

use simpi_kernel::TimeUnit;
use simpi_mpi::coll::select::Selector;
use simpi_mpi::coll::{find, registry, Algorithm, CollSpec};
use simpi_mpi::{BuildError, Op, Schedule, ScheduleBuilder};
use simpi_trace::goal::{parse_goal_with, read_goal_file, read_goal_file_with, GoalError, GoalSink};
use simpi_trace::tit::{read_tit_on, TitError, TitOptions};

use std::path::Path;
use std::time::Instant;

// ---- the mutation generator: tests/support/mutate.rs ----

#[path = "../../../tests/support/mutate.rs"]
mod mutate;
use mutate::*;

// ---- GOAL ----

/// The schedule builder as a sink for the general parser.
#[derive(Default)]
struct Build(Option<ScheduleBuilder>);

impl GoalSink for Build {
    fn num_ranks(&mut self, n: u32) {
        self.0 = Some(ScheduleBuilder::new(n));
    }
    fn begin_rank(&mut self, rank: u64) -> Result<(), BuildError> {
        self.0.as_mut().unwrap().begin_rank(rank)
    }
    fn op(&mut self, op: Op, _line: u32) -> Result<u32, BuildError> {
        self.0.as_mut().unwrap().push(op)
    }
    fn requires(&mut self, a: u32, b: u32) {
        self.0.as_mut().unwrap().requires(a, b)
    }
    fn irequires(&mut self, a: u32, b: u32) {
        self.0.as_mut().unwrap().irequires(a, b)
    }
    fn end_rank(&mut self) -> Result<(), BuildError> {
        self.0.as_mut().unwrap().end_rank()
    }
}

/// Parses `path` with the general parser only (no fast path).
fn general_parse(path: &Path, unit: TimeUnit) -> Result<Schedule, GoalError> {
    let f = std::fs::File::open(path).unwrap();
    let mut sink = Build::default();
    parse_goal_with(f, &path.display().to_string(), unit, &mut sink, false)?;
    Ok(sink.0.unwrap().finish())
}

/// An error must name the file, and a line unless it is about the whole file.
fn goal_error_has_its_place(e: &GoalError, path: &Path) {
    assert_eq!(e.file, path.display().to_string(), "{e}");
    assert!(e.to_string().starts_with(&e.file), "{e}");
    let whole_file = e.msg.starts_with("no 'num_ranks' line") || e.msg.starts_with("cannot open");
    assert!(e.line > 0 || whole_file, "an error without a line: {e}");
}

#[test]
fn mutated_goal_schedules_give_errors_not_panics() {
    let start = Instant::now();
    let mut seeds = vec![root().join("examples/thesis.goal")];
    for case in [
        "cpus-and-nics",
        "eager-late-receiver",
        "irequires-rendezvous",
        "rendezvous-late-receiver",
        "wildcards",
        "loggopsim/binomial-bcast-8-8",
        "loggopsim/dissemination-barrier-17-1",
    ] {
        seeds.push(root().join("tests/golden").join(case).join("schedule.goal"));
    }
    let d = scratch("goal");
    let path = d.join("mutant.goal");
    let mut g = Rng(0x5eed_0001);
    let (mut total, mut rejected) = (0, 0);
    for seed in &seeds {
        let text = std::fs::read(seed).unwrap_or_else(|e| panic!("{}: {e}", seed.display()));
        std::fs::write(&path, &text).unwrap();
        assert!(
            read_goal_file(&path, TimeUnit::Ns).is_ok(),
            "{} does not read",
            seed.display()
        );
        for _ in 0..scale(300) {
            let m = mutant(&text, &mut g);
            std::fs::write(&path, &m).unwrap();
            let unit = [TimeUnit::Ps, TimeUnit::Ns, TimeUnit::Us][g.below(3)];
            let fast = no_panic("the GOAL reader", &m, || read_goal_file(&path, unit));
            let general = no_panic("the general GOAL parser", &m, || general_parse(&path, unit));
            let halves = no_panic("the two-halves GOAL reader", &m, || read_goal_file_with(&path, unit, 0));
            total += 1;
            match (&fast, &general, &halves) {
                (Ok(a), Ok(b), Ok(c)) => {
                    assert!(
                        a == b && a == c,
                        "the readers build different schedules from:\n{}",
                        String::from_utf8_lossy(&m)
                    );
                }
                (Err(a), Err(b), Err(c)) => {
                    rejected += 1;
                    goal_error_has_its_place(a, &path);
                    assert_eq!(a, b, "the fast path and the general parser disagree");
                    assert_eq!(a, c, "the two-halves parse and the sequential one disagree");
                }
                _ => panic!(
                    "the readers disagree ({} / {} / {}) on:\n{}",
                    fast.is_ok(),
                    general.is_ok(),
                    halves.is_ok(),
                    String::from_utf8_lossy(&m)
                ),
            }
        }
    }
    bites("GOAL", rejected, total, total / 4);
    eprintln!("GOAL: {total} mutants, {rejected} rejected, {:?}", start.elapsed());
}

// ---- TIT ----

/// The algorithm of a collective: `k` = 0 for Open MPI's rules, `k` > 0 for the k-th
/// registered algorithm of that collective (so that every algorithm meets bad sizes).
fn pick(s: &CollSpec, k: usize) -> &'static Algorithm {
    let all: Vec<&'static Algorithm> = registry().into_iter().filter(|a| a.coll == s.coll).collect();
    match k {
        0 => find(s.coll, Selector::Ompi.choose(s.coll, s.size, s, true)).unwrap_or(all[0]),
        k => all[(k - 1) % all.len()],
    }
}

/// Reads the trace at `path` on at most `threads` threads, expanding collectives with
/// the algorithms `k` picks.
fn read_tit(path: &Path, threads: usize, k: usize) -> Result<(), TitError> {
    let speed = |r: u32| 1e9 * (1 + r % 3) as f64;
    let choose = move |s: &CollSpec| pick(s, k);
    let opts = TitOptions {
        speed: &speed,
        choose: &choose,
        test_cost: 1e-4,
        calls: true,
    };
    read_tit_on(path, &opts, threads).map(|_| ())
}

/// An error must name one of the trace's files (`names`), and a line unless it is about
/// a whole file.
fn tit_error_has_its_place(e: &TitError, names: &[&str]) {
    assert!(
        names.iter().any(|n| e.file.ends_with(n)),
        "an error without the file: {e}"
    );
    let whole_file = ["cannot read", "the file is empty", "the trace has no rank"]
        .iter()
        .any(|m| e.msg.starts_with(m));
    assert!(e.line > 0 || whole_file, "an error without a line: {e}");
}

/// A trace of two ranks in one file: point-to-point calls of both dialects.
const P2P: &str = "0 init
0 compute 1e+06
0 send 1 42 1000 0
0 recv 1 43 1000 0
0 isend 1 5 8 6
0 irecv 1 6 8 6
0 waitall 2 0 1 5 1 0 6
0 sendRecv 8 1 8 1 6 6 5 9
0 startall 2 1 3 16 s 1 4 16 r
0 waitall 2 0 1 3 1 0 4
0 irecv 1 1 8
0 irecv 1 2 8
0 testsome 2 0
0 waitsome 2 1 1 0 2
0 test 1 0 1 1
0 recv_init
0 Start 1 7 16 6 r
0 wait 1 0 7
0 sleep 0.001
0 finalize
1 init 1
1 recv 0 42 1000 0
1 compute 2.5e+06
1 send 0 43 1000 0
1 irecv 0 5 8 6
1 isend 0 6 8 6
1 wait 0 1 5
1 waitAny 1 1 0 6
1 recv 0 5 8
1 send 0 9 8
1 recv 0 3 16
1 send 0 4 16
1 send 0 2 8
1 irecv -1 1 8
1 testany 1 1 -1 1 1
1 waitall
1 send 0 7 16
1 send -2 1 8
1 finalize
";

/// A trace of four ranks in one file: every collective, on world, split, duplicated,
/// created and self communicators.
fn collectives() -> String {
    let mut t = String::new();
    for r in 0..4 {
        let sub = if r < 3 { "sub" } else { "-" };
        t += &format!(
            "{r} init
{r} comm_split world {c} {r} half{c}
{r} comm_dup world dup
{r} comm_create world {sub} 0 1 2
{r} bcast 100 0 6
{r} reduce 10 5 1 6
{r} allreduce 10 5 6
{r} alltoall 10 10 6 6
{r} alltoallv 40 10 10 10 10 40 10 10 10 10 6 6
{r} gather 10 10 0 6 6
{r} allgather 10 10 6 6
{r} gatherv 10 10 10 10 10 0 6 6
{r} allgatherv 10 10 10 10 10 6 6
{r} scatter 10 10 0 6 6
{r} scatterv 10 10 10 10 10 0 6 6
{r} reducescatter 10 10 10 10 5 6
{r} reducescatterblock 10 5 6
{r} scan 10 5 6
{r} exscan 10 5 6
{r} barrier
{r} ibcast 16 1 6
{r} wait -3 {r} 0
{r} @half{c} bcast 100 1 6
{r} @dup allreduce 1 0 6
{r} @self bcast 100 0 6
{r} compute 1e5
{r} finalize
",
            c = r % 2
        );
        if r < 3 {
            t += &format!("{r} @sub barrier\n{r} @sub alltoallv 3 1 1 1 3 1 1 1\n");
        }
    }
    t
}

/// A ring of eight ranks in one file (eight ranks are read on two threads).
fn ring() -> String {
    let mut t = String::new();
    for r in 0..8 {
        let (l, n) = ((r + 7) % 8, (r + 1) % 8);
        t += &format!(
            "{r} init\n{r} irecv {l} 7 2048 2\n{r} isend {n} 7 2048 2\n{r} compute 500000\n{r} waitall 2\n\
             {r} comm_split world {c} {r} c{c}\n{r} @c{c} allreduce 4 4 6\n{r} finalize\n",
            c = r % 2
        );
    }
    t
}

#[test]
fn mutated_tit_traces_in_one_file_give_errors_not_panics() {
    let start = Instant::now();
    let d = scratch("tit-shared");
    let path = d.join("trace.txt");
    let seeds = [P2P.to_string(), collectives(), ring()];
    for s in &seeds {
        std::fs::write(&path, s).unwrap();
        if let Err(e) = read_tit(&path, 2, 0) {
            panic!("the seed does not read: {e}\n{s}");
        }
    }
    let mut g = Rng(0x5eed_0002);
    let (mut total, mut rejected) = (0, 0);
    for seed in &seeds {
        for k in 0..scale(700) {
            let m = mutant(seed.as_bytes(), &mut g);
            std::fs::write(&path, &m).unwrap();
            total += 1;
            if let Err(e) = no_panic("the TIT reader", &m, || read_tit(&path, 1 + k % 2, k % 9)) {
                rejected += 1;
                tit_error_has_its_place(&e, &["trace.txt"]);
            }
        }
    }
    bites("TIT (one file)", rejected, total, total / 4);
    eprintln!(
        "TIT, one file: {total} mutants, {rejected} rejected, {:?}",
        start.elapsed()
    );
}

#[test]
fn mutated_tit_traces_in_per_rank_files_give_errors_not_panics() {
    let start = Instant::now();
    let mut g = Rng(0x5eed_0003);
    let (mut total, mut rejected) = (0, 0);
    for case in ["npb_is_S", "osu_alltoall"] {
        let src = root().join("tests/golden/smpi-replay").join(case);
        let d = scratch(case);
        std::fs::create_dir_all(d.join("trace.txt_files")).unwrap();
        let index = std::fs::read(src.join("trace.txt")).unwrap();
        let names: Vec<String> = String::from_utf8_lossy(&index).lines().map(str::to_owned).collect();
        let texts: Vec<Vec<u8>> = names.iter().map(|n| std::fs::read(src.join(n)).unwrap()).collect();
        for (n, t) in names.iter().zip(&texts) {
            std::fs::write(d.join(n), t).unwrap();
        }
        let idx = d.join("trace.txt");
        let mut all: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
        all.push("trace.txt");
        for k in 0..scale(400) {
            // Usually one rank's file is broken; sometimes the index.
            let (file, m) = if k % 8 == 7 {
                (idx.clone(), mutant(&index, &mut g))
            } else {
                let r = g.below(names.len());
                (d.join(&names[r]), mutant(&texts[r], &mut g))
            };
            std::fs::write(&file, &m).unwrap();
            total += 1;
            if let Err(e) = no_panic("the TIT reader", &m, || read_tit(&idx, 1 + k % 2, k % 9)) {
                rejected += 1;
                tit_error_has_its_place(&e, &all);
            }
            // Put the file back.
            let orig = if file == idx {
                index.clone()
            } else {
                texts[names.iter().position(|n| d.join(n) == file).unwrap()].clone()
            };
            std::fs::write(&file, orig).unwrap();
        }
    }
    bites("TIT (per-rank files)", rejected, total, total / 4);
    eprintln!(
        "TIT, per-rank files: {total} mutants, {rejected} rejected, {:?}",
        start.elapsed()
    );
}

/// The inputs that panicked (or hung, or ran out of memory) before, each now an error
/// with its place, or read.
#[test]
fn what_panicked_is_now_an_error() {
    let d = scratch("found");
    let write = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let tit = |name: &str, text: &str, k: usize| read_tit(&write(name, text), 2, k).map_err(|e| e.to_string());
    let segmented_ring = registry()
        .into_iter()
        .filter(|a| a.coll == simpi_mpi::coll::Collective::Allreduce)
        .position(|a| a.name == "segmented_ring")
        .unwrap()
        + 1;
    // A rank number past any sensible size in a one-file trace: was a failed allocation
    // of 2.4 TB (an abort).
    let e = tit("rank.txt", "0 init\n99999999999 init\n", 0).unwrap_err();
    assert!(
        e.ends_with(
            "rank.txt:2: rank 99999999999 is out of range: the ranks of a trace in one file are numbered \
             below 4096, or below its number of lines (2) if that is larger"
        ),
        "{e}"
    );
    // Far rank numbers in a few lines: 3.4 KB of collectives naming rank 1,000,000 took
    // 4 GB (the TIT fuzz target's finding, kept in fuzz/regressions/tit). Each rank's
    // part of a ring collective over the world is O(ranks) operations.
    let far = "0 init\n0 bcast 5000 0 1\n1 init\n1 bcast 5000 0 1\n1000000 init\n";
    let e = tit("far.txt", far, 0).unwrap_err();
    assert!(e.contains("far.txt:5: rank 1000000 is out of range"), "{e}");
    // The largest rank a short file may name.
    let near = far.replace("1000000", "4095");
    match tit("near.txt", &near, 0) {
        Ok(_) => {}
        Err(e) => assert!(!e.contains("out of range"), "{e}"),
    }
    // A count times its datatype's size past 64 bits: was an overflow (a panic in debug
    // builds, a wrong size otherwise).
    let e = tit("count.txt", "0 send 1 1 9e18 0\n1 recv 0 1 8\n", 0).unwrap_err();
    assert!(
        e.ends_with("count.txt:1: count 9000000000000000000 of 8-byte elements is more than 2^64 bytes"),
        "{e}"
    );
    // A collective moving more than 2^64 bytes in all: was an overflow in the selector.
    let big = "bcast 9000000000000000000 0 6";
    let e = tit("total.txt", &format!("0 {big}\n1 {big}\n2 {big}\n"), 0).unwrap_err();
    assert!(
        e.ends_with("total.txt:1: the bcast moves more than 2^64 bytes in all"),
        "{e}"
    );
    // An empty allreduce by the segmented ring: was a division by zero.
    assert_eq!(
        tit("empty.txt", "0 allreduce 0 0 6\n1 allreduce 0 0 6\n", segmented_ring),
        Ok(())
    );
    // A communicator listing a world rank the trace does not have: was an index out of
    // bounds in the collective's expansion.
    let e = tit(
        "comm.txt",
        "0 comm_create world c 0 1 2\n0 @c barrier\n1 comm_create world c 0 1 2\n",
        0,
    )
    .unwrap_err();
    assert!(
        e.ends_with("comm.txt:1: world rank 2 is out of range: the trace has 2 ranks"),
        "{e}"
    );
    // An index naming a directory: the error named the directory, not the index's line.
    let files = d.join("files");
    std::fs::create_dir_all(&files).unwrap();
    let r0 = write("r0.txt", "0 init\n");
    let e = tit("index.txt", &format!("{}\n{}\n", r0.display(), files.display()), 0).unwrap_err();
    assert!(
        e.contains("index.txt:2: trace file ") && e.ends_with("files' is a directory"),
        "{e}"
    );
}
