//! The GOAL reader: accepted syntax, every error with its position, and agreement of
//! the fast path with the general parser.

use simpi_kernel::{Rng, TimeUnit};
use simpi_mpi::{BuildError, Op, OpId, OpKind, ANY_SOURCE, ANY_TAG};
use simpi_trace::goal::{parse_goal_with, GoalSink};
use simpi_trace::read_goal;

fn err(text: &str) -> String {
    match read_goal(text.as_bytes(), "t.goal", TimeUnit::Ns) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn reads_every_statement_form() {
    let text = "// header comment\nnum_ranks 3\n/* a block\ncomment */ rank 2 {\n\
        a: send 10b to 0 tag 5 cpu 1 nic 2\n\
        b : recv 7 b from -1 tag -1\n\
        calc 30 cpu 3\n\
        c: calc 40\n\
        b requires a\n\
        c irequires b // trailing\n\
        }\nrank 0 { }\n";
    let s = read_goal(text.as_bytes(), "t.goal", TimeUnit::Us).unwrap();
    assert_eq!(s.num_ranks(), 3);
    assert_eq!(s.rank_ops(2).len(), 4);
    assert_eq!(s.rank_ops(1).len(), 0);
    let ops: Vec<Op> = s.rank_ops(2).map(|i| *s.op(OpId(i))).collect();
    assert_eq!(
        (
            ops[0].kind,
            ops[0].size,
            ops[0].peer,
            ops[0].tag,
            ops[0].cpu,
            ops[0].nic
        ),
        (OpKind::Send, 10, 0, 5, 1, 2)
    );
    assert_eq!(
        (ops[1].kind, ops[1].size, ops[1].peer, ops[1].tag),
        (OpKind::Recv, 7, ANY_SOURCE, ANY_TAG)
    );
    assert_eq!((ops[2].kind, ops[2].size, ops[2].cpu), (OpKind::Calc, 30_000_000, 3));
    assert_eq!(ops[3].size, 40_000_000);
    let first = s.rank_ops(2).start;
    assert_eq!(s.done_successors(OpId(first)).collect::<Vec<_>>(), [first + 1]);
    assert_eq!(s.start_successors(OpId(first + 1)).collect::<Vec<_>>(), [first + 3]);
    assert_eq!((s.cpus(), s.nics()), (4, 3));
}

#[test]
fn unknown_label() {
    let e = err("num_ranks 1\nrank 0 {\na: calc 1\na requires nope\n}\n");
    assert_eq!(
        e,
        "t.goal:4:12: unknown label 'nope': labels must be defined earlier in the block of rank 0"
    );
}

#[test]
fn labels_are_per_rank() {
    let e = err("num_ranks 2\nrank 0 {\na: calc 1\n}\nrank 1 {\nb: calc 1\nb requires a\n}\n");
    assert!(e.starts_with("t.goal:7:12: unknown label 'a'"), "{e}");
}

#[test]
fn duplicate_label() {
    let e = err("num_ranks 1\nrank 0 {\na: calc 1\na: calc 2\n}\n");
    assert_eq!(e, "t.goal:4:1: duplicate label 'a': first defined at line 3");
}

#[test]
fn dependency_cycle() {
    let e =
        err("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\nc: calc 1\nb requires a\nc requires b\nb irequires c\n}\n");
    assert!(e.starts_with("t.goal:9:1: dependency cycle in rank 0: "), "{e}");
    assert!(
        e.contains("b (line 4) -> c (line 5) -> b (line 4)") || e.contains("c (line 5) -> b (line 4) -> c (line 5)"),
        "{e}"
    );
}

#[test]
fn rank_out_of_range() {
    assert_eq!(
        err("num_ranks 2\nrank 2 {\n}\n"),
        "t.goal:2:6: rank 2 is out of range: the schedule has 2 ranks (0..1)"
    );
    assert_eq!(
        err("num_ranks 2\nrank 0 {\nl: send 1b to 5\n}\n"),
        "t.goal:3:15: rank 5 is out of range: the schedule has 2 ranks (0..1)"
    );
    assert_eq!(
        err("num_ranks 2\nrank 0 {\nrecv 1b from 2\n}\n"),
        "t.goal:3:14: rank 2 is out of range: the schedule has 2 ranks (0..1)"
    );
}

#[test]
fn duplicate_rank_block() {
    assert_eq!(
        err("num_ranks 2\nrank 1 {\n}\nrank 1 {\n}\n"),
        "t.goal:4:6: rank 1 is defined twice"
    );
}

#[test]
fn syntax_errors_say_what_was_expected() {
    let cases = [
        ("rank 0 {\n}\n", "t.goal:1:1: expected 'num_ranks N' before the first rank block"),
        ("num_ranks 1\nrank 0\n", "t.goal:2:7: expected '{' after 'rank 0', found the end of the line"),
        ("num_ranks 1\nrank 0 {\nsend 1 to 0\n}\n", "t.goal:3:8: expected 'b' after the message size 1, found 'to'"),
        ("num_ranks 1\nrank 0 {\nsend 1b from 0\n}\n", "t.goal:3:9: expected 'to' after the size, found 'from'"),
        ("num_ranks 1\nrank 0 {\nsend 1b to -1\n}\n", "t.goal:3:12: expected a destination rank, found '-1'"),
        ("num_ranks 1\nrank 0 {\nrecv 1b from 0 tag x\n}\n", "t.goal:3:20: expected a tag (0..4294967294) or -1, found 'x'"),
        ("num_ranks 1\nrank 0 {\ncalc 5 cpu 300\n}\n", "t.goal:3:12: expected a cpu index (0..255), found '300'"),
        ("num_ranks 1\nrank 0 {\ncalc 5 nic 1\n}\n", "t.goal:3:8: expected the end of the line, found 'nic'"),
        ("num_ranks 1\nrank 0 {\ncalc 5 cpu 1 cpu 2\n}\n", "t.goal:3:14: 'cpu' given twice"),
        ("num_ranks 1\nrank 0 {\nx: jump\n}\n", "t.goal:3:4: expected 'send', 'recv' or 'calc' after label 'x:', found 'jump'"),
        ("num_ranks 1\nrank 0 {\nx needs y\n}\n", "t.goal:3:3: expected ':' (a labelled operation) or 'requires'/'irequires' (a dependency) after 'x', found 'needs'"),
        ("num_ranks 1\nrank 0 {\n# c\n}\n", "t.goal:3:1: expected an operation ('send', 'recv', 'calc'), a label, a dependency or '}', found '#'"),
        ("num_ranks 1\nrank 0 {\ncalc 99999999999999999999\n}\n", "t.goal:3:6: expected a compute time, found a number that does not fit in 64 bits"),
        ("num_ranks 0\n", "t.goal:1:11: num_ranks must be between 1 and 4294967294, found 0"),
        ("num_ranks 1\nnum_ranks 1\n", "t.goal:2:1: 'num_ranks' given twice"),
        ("num_ranks 1\nrank 0 {\ncalc 1\n", "t.goal:3: end of file inside the block of rank 0 opened at line 2: expected '}'"),
        ("num_ranks 1\n/* open\n", "t.goal:2: end of file inside a /* comment: expected '*/'"),
        ("", "t.goal: no 'num_ranks' line: this is not a GOAL schedule"),
        ("num_ranks 1\nhello\n", "t.goal:2:1: expected 'num_ranks N' or 'rank R {' outside a rank block, found 'hello'"),
    ];
    for (text, want) in cases {
        assert_eq!(err(text), want, "input:\n{text}");
    }
}

#[test]
fn compute_time_overflow_is_reported() {
    let text = "num_ranks 1\nrank 0 {\ncalc 20000000000 \n}\n";
    let e = read_goal(text.as_bytes(), "t.goal", TimeUnit::S)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "t.goal:3:6: compute time 20000000000 s overflows 2^64 ps");
}

#[test]
fn missing_file_is_named() {
    let e = simpi_trace::read_goal_file(std::path::Path::new("/nonexistent/x.goal"), TimeUnit::Ns).unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/x.goal: cannot open:"), "{e}");
}

#[test]
fn file_without_trailing_newline_and_with_crlf_reads() {
    let s = read_goal(
        "num_ranks 1\r\nrank 0 {\r\nl: calc 5\r\n}".as_bytes(),
        "t",
        TimeUnit::Ns,
    )
    .unwrap();
    assert_eq!(s.num_ops(), 1);
}

/// Records everything a parse reports, to compare two parses.
#[derive(Default, PartialEq, Debug)]
struct Recorder(Vec<String>);

impl GoalSink for Recorder {
    fn num_ranks(&mut self, n: u32) {
        self.0.push(format!("n {n}"));
    }
    fn begin_rank(&mut self, rank: u64) -> Result<(), BuildError> {
        self.0.push(format!("r {rank}"));
        Ok(())
    }
    fn op(&mut self, op: Op, line: u32) -> Result<u32, BuildError> {
        self.0.push(format!(
            "op {:?} {} {} {} {} {} @{line}",
            op.kind, op.size, op.peer, op.tag, op.cpu, op.nic
        ));
        Ok(self.0.iter().filter(|l| l.starts_with("op")).count() as u32 - 1)
    }
    fn requires(&mut self, a: u32, b: u32) {
        self.0.push(format!("req {a} {b}"));
    }
    fn irequires(&mut self, a: u32, b: u32) {
        self.0.push(format!("ireq {a} {b}"));
    }
    fn end_rank(&mut self) -> Result<(), BuildError> {
        self.0.push("end".into());
        Ok(())
    }
}

fn parse_both(text: &str) -> (Result<Recorder, String>, Result<Recorder, String>) {
    let run = |fast| {
        let mut r = Recorder::default();
        parse_goal_with(text.as_bytes(), "t", TimeUnit::Ns, &mut r, fast)
            .map(|_| r)
            .map_err(|e| e.to_string())
    };
    (run(true), run(false))
}

/// Random statements, many of them mutated into near-misses, must give the same
/// operations, dependencies and errors with and without the fast path.
#[test]
fn fast_path_agrees_with_the_general_parser() {
    let mut rng = Rng::new(77);
    let pieces = [
        "send",
        "recv",
        "calc",
        "b",
        "to",
        "from",
        "tag",
        "cpu",
        "nic",
        "-1",
        "0",
        "3",
        "7",
        "255",
        "256",
        "4294967295",
        "99999999999999999999",
        ":",
        "l1",
        "l2",
        "x_9",
        "requires",
        "irequires",
        "//c",
        "/*",
        "*/",
        "}",
        "\t",
        "  ",
    ];
    for case in 0..4000 {
        let mut lines = vec![
            "num_ranks 8".to_string(),
            "rank 1 {".to_string(),
            "l1: calc 1".into(),
            "l2: calc 2".into(),
        ];
        for _ in 0..3 {
            let line = match rng.below(4) {
                0 => {
                    let v = ["send", "recv"][rng.below(2) as usize];
                    let dir = if v == "send" { "to" } else { "from" };
                    format!(
                        "n{}: {v} {}b {dir} {} tag {} cpu {} nic {}",
                        rng.below(50),
                        rng.below(1000),
                        rng.below(9),
                        rng.below(3),
                        rng.below(3),
                        rng.below(2)
                    )
                }
                1 => format!("l{} requires l{}", 1 + rng.below(2), 1 + rng.below(2)),
                2 => format!("calc {} cpu {}", rng.below(100), rng.below(300)),
                _ => (0..1 + rng.below(8))
                    .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            // Mutate: drop or duplicate a character, or squeeze spaces.
            let mut b: Vec<u8> = line.into_bytes();
            match rng.below(5) {
                0 if !b.is_empty() => {
                    let i = rng.below(b.len() as u64) as usize;
                    b.remove(i);
                }
                1 if !b.is_empty() => {
                    let i = rng.below(b.len() as u64) as usize;
                    b.insert(i, b[i]);
                }
                2 => b.retain(|&c| c != b' ' || rng.below(3) != 0),
                _ => {}
            }
            lines.push(String::from_utf8(b).unwrap());
        }
        lines.push("}".into());
        let text = lines.join("\n");
        let (fast, general) = parse_both(&text);
        assert_eq!(fast, general, "case {case}:\n{text}");
    }
}

mod halves {
    use super::*;
    use simpi_trace::goal::read_goal_file_with;
    use simpi_trace::schedgen::{generate, generate_random, Params, Pattern, RandomParams};

    fn tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("simpi-halves-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn both(path: &std::path::Path) -> (Result<simpi_mpi::Schedule, String>, Result<simpi_mpi::Schedule, String>) {
        let par = read_goal_file_with(path, TimeUnit::Ns, 0).map_err(|e| e.to_string());
        let seq = read_goal_file_with(path, TimeUnit::Ns, u64::MAX).map_err(|e| e.to_string());
        (par, seq)
    }

    #[test]
    fn two_threads_build_the_same_schedule() {
        let text = generate(
            Pattern::Stencil3d,
            &Params {
                ranks: 64,
                bytes: 8,
                iterations: 3,
                compute: 5,
                periodic: false,
            },
            Vec::new(),
        )
        .unwrap();
        let p = tmp("stencil.goal", &text);
        let before = simpi_trace::goal::halves_joined();
        let (par, seq) = both(&p);
        assert_eq!(par.unwrap(), seq.unwrap());
        assert!(simpi_trace::goal::halves_joined() > before, "the file was not split");
        let rp = RandomParams {
            ranks: 40,
            messages: 300,
            computes: 100,
            max_bytes: 1 << 17,
            max_compute: 50,
            cpus: 2,
            nics: 2,
            seed: 5,
        };
        let text = generate_random(&rp, Vec::new()).unwrap();
        let p = tmp("random.goal", &text);
        let (par, seq) = both(&p);
        assert_eq!(par.unwrap(), seq.unwrap());
    }

    #[test]
    fn a_comment_across_the_middle_falls_back_to_one_thread() {
        let mut text = String::from("num_ranks 4\nrank 0 {\nl1: calc 1\n}\n/*\n");
        for _ in 0..200 {
            text.push_str("rank 3 {\nl1: calc 2\n}\n");
        }
        text.push_str("*/\nrank 1 {\nl1: calc 3\n}\n");
        let p = tmp("comment.goal", text.as_bytes());
        let (par, seq) = both(&p);
        let par = par.unwrap();
        assert_eq!(par, seq.unwrap());
        assert_eq!(par.num_ops(), 2);
    }

    #[test]
    fn a_last_block_across_the_middle_falls_back_to_one_thread() {
        // No `rank` line after the middle: there is nowhere to split (this used to loop
        // forever re-reading the last bytes of the file).
        let mut text = String::from("num_ranks 2\nrank 0 {\nl1: calc 1\n}\nrank 1 {\n");
        for i in 0..200 {
            text.push_str(&format!("l{i}: calc 2\n"));
        }
        text.push_str("}\n");
        let p = tmp("last.goal", text.as_bytes());
        let (par, seq) = both(&p);
        let par = par.unwrap();
        assert_eq!(par, seq.unwrap());
        assert_eq!(par.num_ops(), 201);
    }

    #[test]
    fn errors_in_the_second_half_keep_their_line_numbers() {
        let mut text = String::from("num_ranks 400\n");
        for r in 0..400 {
            text.push_str(&format!("rank {r} {{\nl1: calc 1\n}}\n"));
        }
        text.push_str("rank 5 {\n}\n");
        let p = tmp("dup.goal", text.as_bytes());
        let (par, seq) = both(&p);
        assert_eq!(par.unwrap_err(), seq.unwrap_err());
        let mut text = String::from("num_ranks 300\n");
        for r in 0..300 {
            text.push_str(&format!("rank {r} {{\nl1: calc 1\n}}\n"));
        }
        text = text.replace("rank 250 {\nl1: calc 1", "rank 250 {\nl1: calc x");
        let p = tmp("bad.goal", text.as_bytes());
        let (par, seq) = both(&p);
        let e = par.unwrap_err();
        assert_eq!(e, seq.unwrap_err());
        assert!(e.contains(":753:"), "{e}");
    }
}
