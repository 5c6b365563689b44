//! Issue 16 (hardening): inputs a user can write by mistake give a clear error naming the
//! file and line, in time and memory proportional to the input; never a panic, an abort
//! or a silent misreading. Each test is named after the issue's item.

use simpi_kernel::TimeUnit;
use simpi_mpi::coll::{Algorithm, CollSpec};
use simpi_trace::goal::{declared_ranks, read_goal_file, FREE_RANKS};
use simpi_trace::tit::{looks_like_tit, read_tit_on, TitOptions, TitTrace};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("simpi-hardening-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// An error message without the scratch directory before the file name.
fn short(e: impl ToString) -> String {
    let e = e.to_string();
    let d = format!("{}/", dir().display());
    e.strip_prefix(&d).map_or(e.clone(), str::to_string)
}

fn goal(name: &str, text: impl AsRef<[u8]>) -> Result<simpi_mpi::Schedule, String> {
    read_goal_file(&write(name, text), TimeUnit::Ns).map_err(short)
}

fn choose(s: &CollSpec) -> &'static Algorithm {
    simpi_mpi::coll::first_algorithm(s)
}

fn tit(name: &str, text: impl AsRef<[u8]>) -> Result<TitTrace, String> {
    tit_at(&write(name, text))
}

fn tit_at(p: &std::path::Path) -> Result<TitTrace, String> {
    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose: &choose,
        test_cost: 1e-6,
        calls: false,
    };
    read_tit_on(p, &opts, 1).map_err(short)
}

/// The error of a two-rank trace whose rank 0 runs `line` (at line 3) after `init`s.
fn tit_line(name: &str, line: &str) -> String {
    let text = format!("0 init\n1 init\n{line}\n1 recv 0 0 10\n0 send 1 0 10\n");
    match tit(name, text) {
        Ok(_) => panic!("'{line}' was accepted"),
        Err(e) => e,
    }
}

// ---- item 4: cost in proportion to the input ----

/// A one-rank cycle through `n` operations, each labelled, given as `n` dependencies.
fn cycle(n: usize) -> String {
    let mut s = String::from("num_ranks 1\nrank 0 {\n");
    for i in 0..n {
        s.push_str(&format!("a{i}: calc 1\n"));
    }
    for i in 0..n {
        s.push_str(&format!("a{} requires a{i}\n", (i + 1) % n));
    }
    s.push_str("}\n");
    s
}

#[test]
fn issue16_goal_cycle_detection_is_linear_and_its_message_short() {
    // 100,000 operations took over 120 s (quadratic): now well under a second, but the
    // bound leaves room for a loaded machine.
    let start = Instant::now();
    let e = goal("cycle.goal", cycle(100_000)).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    // The cycle a0 -> a1 -> ... -> a99999 -> a0, closed at the '}' (line 200,003), is
    // reported from one of its operations, naming four with their lines (a<i> is on line
    // i + 3) and how many more.
    assert!(
        e.starts_with("cycle.goal:200003:1: dependency cycle in rank 0 (through 100000 operations): "),
        "{e}"
    );
    assert!(e.contains(" -> ... 99996 more -> "), "{e}");
    assert!(e.len() < 300, "{} bytes: {e}", e.len());
    let first = e
        .split("operations): ")
        .nth(1)
        .unwrap()
        .split(" -> ")
        .next()
        .unwrap()
        .to_string();
    let i: usize = first
        .trim_start_matches('a')
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(first, format!("a{i} (line {})", i + 3));
    assert!(e.ends_with(&format!("-> {first}")), "{e}");
    // A short cycle is named in full.
    let e = goal("short.goal", cycle(3)).unwrap_err();
    assert!(!e.contains("more"), "{e}");
    assert_eq!(e.matches(" -> ").count(), 3, "{e}");
}

// ---- item 3: no allocation for ranks that do nothing ----

#[test]
fn issue16_goal_num_ranks_beyond_the_input_is_an_error() {
    for n in ["4294967294", "300000000", "1048577"] {
        let e = goal("many.goal", format!("num_ranks {n}\n")).unwrap_err();
        assert!(
            e.starts_with(&format!("many.goal:1:11: num_ranks {n} is more than the 1048576 ranks")),
            "{e}"
        );
    }
    // The largest count a small file may declare.
    let s = goal("most.goal", format!("num_ranks {FREE_RANKS}\n")).unwrap();
    assert_eq!(s.num_ranks() as u64, FREE_RANKS);
    // A file as long as its ranks are many may declare them: a comment pads it here.
    let n = FREE_RANKS + 10;
    let text = format!("num_ranks {n}\n/* {} */\n", "x".repeat(n as usize));
    assert_eq!(goal("padded.goal", text).unwrap().num_ranks() as u64, n);
    // Past the 32-bit range.
    let e = goal("huge.goal", "num_ranks 4294967295\n").unwrap_err();
    assert!(e.contains("num_ranks must be between 1 and 4294967294"), "{e}");
}

// ---- item 8: error messages ----

#[test]
fn issue16_goal_negative_num_ranks_says_what_is_wrong() {
    let p = write("negative.goal", "num_ranks -1\nrank 0 {\n}\n");
    let e = short(declared_ranks(&p).unwrap_err());
    assert_eq!(e, "negative.goal:1:11: expected the number of ranks, found '-1'");
    let e = goal("negative.goal", "num_ranks -1\n").unwrap_err();
    assert_eq!(e, "negative.goal:1:11: expected the number of ranks, found '-1'");
    // And the header alone is read for a valid file.
    assert_eq!(declared_ranks(&write("two.goal", "num_ranks 2\n")), Ok(2));
}

#[test]
fn issue16_byte_order_marks_are_skipped() {
    const BOM: &str = "\u{feff}";
    // GOAL: detected as GOAL, read as without the mark.
    let text = "num_ranks 2\nrank 0 {\nl: calc 5\n}\n";
    let p = write("bom.goal", format!("{BOM}{text}"));
    assert!(!looks_like_tit(&p));
    assert_eq!(declared_ranks(&p), Ok(2));
    assert_eq!(
        read_goal_file(&p, TimeUnit::Ns).unwrap(),
        goal("plain.goal", text).unwrap()
    );
    // A mark alone, or before a comment, changes nothing either.
    let p = write("bom-comment.goal", format!("{BOM}// made by hand\n{text}"));
    assert!(!looks_like_tit(&p));
    assert!(read_goal_file(&p, TimeUnit::Ns).is_ok());
    // TIT: a one-file trace, an index and a per-rank file, each starting with a mark.
    let trace = "0 init\n0 compute 1000\n1 init\n1 compute 2000\n";
    let p = write("bom-trace.txt", format!("{BOM}{trace}"));
    assert!(looks_like_tit(&p));
    let plain = tit("plain-trace.txt", trace).unwrap();
    assert_eq!(tit_at(&p).unwrap().schedule, plain.schedule);
    let r0 = write("bom-r0.tit", format!("{BOM}0 init\n0 compute 1000\n"));
    let r1 = write("bom-r1.tit", format!("{BOM}1 init\n1 compute 2000\n"));
    let idx = write("bom-index.txt", format!("{BOM}{}\n{}\n", r0.display(), r1.display()));
    assert!(looks_like_tit(&idx));
    assert_eq!(tit_at(&idx).unwrap().schedule, plain.schedule);
}

#[test]
fn issue16_format_detection_reads_past_goal_comments() {
    // A GOAL file opening with a comment over several lines was taken for a TIT index.
    let p = write(
        "comment.goal",
        "/* generated by\n   hand */\nnum_ranks 1\nrank 0 {\ncalc 1\n}\n",
    );
    assert!(!looks_like_tit(&p));
    let p = write("line-comment.goal", "// one\n\nnum_ranks 1\n");
    assert!(!looks_like_tit(&p));
    // A GOAL file missing its num_ranks line is still GOAL (the reader then says so).
    assert!(!looks_like_tit(&write("no-header.goal", "rank 0 {\n}\n")));
    // TIT: trace lines, with or without a comment first, and an index of files whose
    // names start like GOAL words.
    assert!(looks_like_tit(&write("t.txt", "# comment\n0 init\n")));
    assert!(looks_like_tit(&write("i.txt", "rank-0.tit\nrank-1.tit\n")));
}

#[test]
fn issue16_errors_quote_at_most_a_short_piece_of_the_input() {
    let long = "x".repeat(2 << 20);
    // GOAL: a 2 MB word where a number should be, a 2 MB unknown label.
    let e = goal("long1.goal", format!("num_ranks 1\nrank 0 {{\nsend {long}\n}}\n")).unwrap_err();
    assert!(
        e.len() < 300 && e.contains("(2097152 bytes)"),
        "{}",
        &e[..e.len().min(400)]
    );
    let e = goal("long2.goal", format!("num_ranks 1\nrank 0 {{\n{long} requires b\n}}\n")).unwrap_err();
    assert!(
        e.len() < 300 && e.contains("(2097152 bytes)"),
        "{}",
        &e[..e.len().min(400)]
    );
    // TIT: a 2 MB action name, count and communicator; an index naming a 2 MB path.
    for line in [
        format!("0 {long} 1"),
        format!("0 send 1 0 {long}"),
        format!("0 @{long} barrier"),
        format!("0 send 1 0 10 0 {long}"),
    ] {
        let e = tit_line("long.txt", &line);
        assert!(
            e.len() < 300 && e.contains("(2097152 bytes)"),
            "{}",
            &e[..e.len().min(400)]
        );
        assert!(e.contains("long.txt:3: "), "{}", &e[..e.len().min(400)]);
    }
    let e = tit("long-index.txt", format!("{long}\nb\n")).unwrap_err();
    assert!(
        e.len() < 300 && e.contains("long-index.txt:1: "),
        "{}",
        &e[..e.len().min(400)]
    );
}

// ---- item 5: TIT fields ----

#[test]
fn issue16_tit_negative_counts_and_amounts_are_errors() {
    for (line, msg) in [
        (
            "0 send 1 0 -1000",
            "'send' field 3: a count cannot be negative, found '-1000'",
        ),
        (
            "0 isend 1 0 -1 6",
            "'isend' field 3: a count cannot be negative, found '-1'",
        ),
        (
            "0 compute -5",
            "'compute' field 1: an amount cannot be negative, found '-5'",
        ),
        (
            "0 sleep -1",
            "'sleep' field 1: an amount cannot be negative, found '-1'",
        ),
        (
            "0 sleep -0.5e-3",
            "'sleep' field 1: an amount cannot be negative, found '-0.5e-3'",
        ),
        (
            "0 compute nan",
            "'compute' field 1: expected a finite number, found 'nan'",
        ),
        ("0 sleep inf", "'sleep' field 1: expected a finite number, found 'inf'"),
        ("0 bcast -5", "'bcast' field 1: a count cannot be negative, found '-5'"),
        (
            "0 allreduce 10 -5",
            "'allreduce' field 2: an amount cannot be negative, found '-5'",
        ),
        (
            "0 alltoall 1 -1",
            "'alltoall' field 2: a count cannot be negative, found '-1'",
        ),
        (
            "0 gatherv 1 1 -1",
            "'gatherv' field 3: a count cannot be negative, found '-1'",
        ),
        (
            "0 send 1 0 10 77",
            "unknown datatype id 77 (SimGrid's ids are -1 to 59)",
        ),
        ("0 send 1 0 10 x", "'send' field 4: expected a datatype id, found 'x'"),
        (
            "0 alltoall 1 1 0 99",
            "unknown datatype id 99 (SimGrid's ids are -1 to 59)",
        ),
        (
            "0 Start 1 0 8 6 x",
            "'Start' field 5: expected 'r' (a receive), found 'x'",
        ),
    ] {
        let e = tit_line("neg.txt", line);
        assert!(e.ends_with(&format!("neg.txt:3: {msg}")), "{line}: {e}");
    }
    // A receive's negative count is SimGrid's "size unknown" (it probes): accepted.
    let t = tit("probe.txt", "0 send 1 0 10\n1 recv 0 0 -1\n").unwrap();
    assert_eq!(t.schedule.num_ops(), 2);
}

#[test]
fn issue16_tit_field_counts_are_checked() {
    for (line, msg) in [
        (
            "0 waitall 3 1 2",
            "'waitall' names 3 request(s): a source, a destination and a tag each, 10 fields in all, found 3",
        ),
        ("0 test 1 2 3 9", "'test' field 4: expected 0 or 1, found '9'"),
        (
            "0 test 1 2 3 1 5",
            "'test' takes a source, a destination, a tag and optionally whether it completed (0 or 1): at \
             most 4 field(s), found 5 (the first extra one is '5')",
        ),
        (
            "0 send 1 0 10 0 junk",
            "'send' takes a destination, a tag, a count and optionally a datatype: at most 4 field(s), found 5 \
             (the first extra one is 'junk')",
        ),
        (
            "0 barrier 5",
            "'barrier' takes no argument: at most 0 field(s), found 1 (the first extra one is '5')",
        ),
        ("0 wait 1 0", "'wait' takes a source, a destination and a tag: at least 3 field(s), found 2"),
        ("0 compute 1 2", "'compute' takes a number of flops: at most 1 field(s), found 2 (the first extra one is '2')"),
        (
            "0 waitany 2 1 0 0 9",
            "'waitany' takes a request count and the source, destination and tag of the request that \
             completed (4 fields), or the count alone; found 5 fields",
        ),
        ("0 waitsome 1 2 0 1 0 0 1 0", "2 of 1 requests completed: more than were given"),
        ("0 testany 2 3", "'testany' field 2: expected 0 or 1, found '3'"),
        (
            "0 sendRecv 1 1 1 1 6 6 0",
            "'sendRecv' has a send tag but no receive tag: give both, or neither",
        ),
        (
            "0 startall 1 1 0 8",
            "'startall 1' needs a partner, a tag, a size and s or r per request: 5 fields, found 4",
        ),
        ("0 init 1 2", "'init' takes nothing, or a value that makes MPI_DOUBLE the default datatype: at most 1 field(s), found 2 (the first extra one is '2')"),
        (
            "0 allgatherv 1 1 1 0 0 0 0 0",
            "'allgatherv' takes a send count and 2 receive counts (one per rank of the communicator), optionally \
             datatypes and displacements: at most 7 field(s), found 8 (the first extra one is '0')",
        ),
    ] {
        let e = tit_line("fields.txt", line);
        assert!(e.ends_with(&format!("fields.txt:3: {msg}")), "{line}: {e}");
    }
}

#[test]
fn issue16_tit_comm_split_with_an_unknown_parent_is_an_error() {
    // A rank outside the new communicator ('-') still names its parent.
    let e = tit_line("parent1.txt", "0 comm_split nope 0 0 -");
    assert!(e.ends_with("parent1.txt:3: unknown parent communicator 'nope'"), "{e}");
    let e = tit_line("parent2.txt", "0 comm_create nope - 0 1");
    assert!(e.ends_with("parent2.txt:3: unknown parent communicator 'nope'"), "{e}");
    // A split of a communicator the rank is not in.
    let e = tit(
        "parent3.txt",
        "0 comm_split world 0 0 A\n1 comm_split world 1 0 -\n1 comm_split A 0 0 -\n",
    )
    .unwrap_err();
    assert!(
        e.ends_with("parent3.txt:3: rank 1 splits 'A' but is not a member of it"),
        "{e}"
    );
    // The same with a known parent is fine.
    tit(
        "parent4.txt",
        "0 comm_split world 0 0 A\n1 comm_split world 1 0 -\n0 comm_split A 5 0 -\n",
    )
    .unwrap();
}

// ---- item 8: a stalled trace names its lines ----

/// The stall report of the trace at `p` run live under LogGOPS.
fn live_stall(p: &std::path::Path) -> String {
    use simpi_mpi::engine::store::OpStore;
    let speed = |_r: u32| 1e9;
    let opts = TitOptions {
        speed: &speed,
        choose: &choose,
        test_cost: 1e-6,
        calls: false,
    };
    let prog = simpi_trace::tit::open_tit(p, &opts).unwrap();
    let ranks = prog.ranks();
    let model = simpi_net::LogGops::from_units(TimeUnit::Ns, 1000, 100, 0, 0, 0, 1 << 40);
    let (result, store) = simpi_mpi::run_loggops_on(simpi_mpi::live::Live::new(prog, ranks, 1, 1), &model, None, false);
    match result {
        Err(simpi_mpi::Error::Stall(stall)) => stall
            .render(usize::MAX, &|id| store.describe(id.0))
            .replace(&format!("{}/", dir().display()), ""),
        other => panic!("no stall: {:?}", other.map(|o| o.makespan())),
    }
}

#[test]
fn issue16_tit_stall_reports_name_the_file_and_line_of_every_blocked_operation() {
    // Collectives, a waitall, a send-receive: every rank blocks.
    let trace = "0 init\n1 init\n2 init\n3 init\n\
                 0 allreduce 100 0\n1 allreduce 100 0\n2 allreduce 100 0\n\
                 0 isend 1 5 100\n0 irecv 3 5 100\n0 waitall\n\
                 1 sendRecv 10 2 10 3\n2 bcast 10 1\n3 reduce 100 0 2\n";
    let shared = write("stuck.txt", trace);
    // The same as per-rank files behind an index.
    let mut index = String::new();
    for r in 0..4 {
        let mine: String = trace
            .lines()
            .filter(|l| l.starts_with(&format!("{r} ")))
            .map(|l| format!("{l}\n"))
            .collect();
        index.push_str(&format!("{}\n", write(&format!("stuck-{r}.tit"), mine).display()));
    }
    let per_rank = write("stuck-index.txt", index);
    for (p, file_of) in [
        (
            &shared,
            Box::new(|_r: usize| "stuck.txt".to_string()) as Box<dyn Fn(usize) -> String>,
        ),
        (&per_rank, Box::new(|r: usize| format!("stuck-{r}.tit"))),
    ] {
        let report = live_stall(p);
        assert!(!report.contains("operation #"), "{report}");
        // Each operation shown ends with its place, in the rank's own file.
        let mut rank = 0;
        for line in report.lines().skip(1) {
            if let Some(r) = line.trim().strip_prefix("rank ") {
                rank = r.split(':').next().unwrap().parse().unwrap();
                continue;
            }
            let place = line.rsplit(['(', ' ']).next().unwrap().trim_end_matches(')');
            let (file, n) = place.rsplit_once(':').unwrap_or_else(|| panic!("{line}\n{report}"));
            // A message that arrived names its sender's line, in the sender's file.
            let owner = match line.split("message from rank ").nth(1) {
                Some(r) => r.split(' ').next().unwrap().parse().unwrap(),
                None => rank,
            };
            assert_eq!(file, file_of(owner), "{line}\n{report}");
            assert!(n.parse::<u32>().is_ok(), "{line}\n{report}");
        }
        // Rank 0 waits in its allreduce (line 5 of the shared file, 2 of its own); rank 3's
        // reduce sent to rank 2 (line 13, or 2 of its own).
        let (at0, at3) = if p == &shared {
            ("stuck.txt:5", "stuck.txt:13")
        } else {
            ("stuck-0.tit:2", "stuck-3.tit:2")
        };
        assert!(report.contains(&format!("blocked in the call at {at0}")), "{report}");
        assert!(report.contains(&format!("send 100b to 2 tag 21 ({at3})")), "{report}");
    }
}

// ---- item 5: inputs without an end ----

#[test]
fn issue16_a_file_without_line_ends_is_refused_not_read_forever() {
    // GOAL: an endless line (as from /dev/zero) stops at 256 MiB.
    let e = simpi_trace::read_goal(std::io::repeat(b'a'), "endless", TimeUnit::Ns).unwrap_err();
    assert_eq!(
        e.to_string(),
        "endless:1: the line is longer than 256 MiB: this is not a GOAL schedule"
    );
    // TIT: /dev/zero as the trace of a one-entry index and of a per-rank index; random
    // bytes as a trace.
    if std::path::Path::new("/dev/zero").exists() {
        let one = write("zero-index.txt", "/dev/zero\n");
        let e = tit_at(&one).unwrap_err();
        assert_eq!(e, "/dev/zero:1: the line is longer than 256 MiB: this is not a trace");
        let two = write("zero-index2.txt", "/dev/zero\n/dev/zero\n");
        let e = tit_at(&two).unwrap_err();
        assert_eq!(e, "/dev/zero:1: the line is longer than 256 MiB: this is not a trace");
    }
    if std::path::Path::new("/dev/urandom").exists() {
        let e = tit_at(std::path::Path::new("/dev/urandom")).unwrap_err();
        assert!(e.starts_with("/dev/urandom:") && e.contains("valid UTF-8"), "{e}");
        let two = write("random-index.txt", "/dev/urandom\n/dev/urandom\n");
        let e = tit_at(&two).unwrap_err();
        assert!(e.starts_with("/dev/urandom:") && e.contains("valid UTF-8"), "{e}");
    }
}
