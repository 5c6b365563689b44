//! Turns a TIT trace into a schedule, rank by rank: each action becomes operations whose
//! dependencies follow MPI's semantics (SimGrid 3.32's replayer where it defines them).
//!
//! * A blocking call waits for everything the program waited for so far (the *frontier*)
//!   and becomes the new frontier. A non-blocking `isend`/`irecv`/`Start`, or a non-blocking
//!   collective, waits for the frontier but nothing waits for it until a completion call adds
//!   it to the frontier: `wait` (the oldest request with that source, destination and tag).
//! * Completion calls that list their requests (simpi's tracer) complete exactly those:
//!   `waitall n keys`, `waitany n key`, `waitsome n k keys`, and tests that found requests
//!   complete. Without a list (SimGrid), `waitall` waits for every request, `waitany` for
//!   any one (and the oldest request counts as the one it completed), and a test of a key
//!   with an outstanding request is a compute of `test_cost` seconds (SimGrid's
//!   `smpi/test` sleep) marked as a test of the oldest such request
//!   ([`simpi_mpi::ScheduleBuilder::test_of`]: the run decides what it costs and finds);
//!   SimGrid skips tests of keys without one.
//! * A request waited for implies what it waited for: those entries leave the frontier
//!   (without this, request loops with no blocking call made edges quadratic).
//! * Collectives are expanded by the algorithm `choose` picks, in the communicator's
//!   collective context; reductions then compute their `comp` flops. `@self` is a
//!   communicator of one rank.
//! * `compute f` takes `f / speed(rank)` seconds; `sleep s` takes `s` seconds.
//! * Negative sources are MPI_ANY_SOURCE (SimGrid writes -333 or -555), negative tags
//!   MPI_ANY_TAG (-444); operations with a negative destination, or simpi's MPI_PROC_NULL
//!   (-2) as source, are dropped and counted.

use super::actions::{parse, Action, Key, ICOLL_SOURCE, PROC_NULL, UNMODELLED_SOURCE};
use super::comms::{CommTable, Creation};
use super::source::{Source, SourceError};
use simpi_kernel::{MixHashMap, MixHasher, SimTime};
use simpi_mpi::coll::emit::Template;
use simpi_mpi::coll::{Algorithm, CollSpec, Collective};
use simpi_mpi::{BuildError, CallRecord, Op, Schedule, ScheduleBuilder, ANY_SOURCE, ANY_TAG};
use std::collections::hash_map::Entry;
use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::hash::BuildHasherDefault;
use std::path::Path;
use std::sync::Arc;

/// How to convert a trace.
pub struct TitOptions<'a> {
    /// Flop/s of the host rank `r` runs on (for `compute` and reduction costs).
    pub speed: &'a (dyn Fn(u32) -> f64 + Sync),
    /// The algorithm of a collective call.
    pub choose: &'a (dyn Fn(&CollSpec) -> &'static Algorithm + Sync),
    /// Seconds an MPI_Test-like call costs.
    pub test_cost: f64,
    /// Whether to keep a [`CallRecord`] of every MPI call (reports and timelines use
    /// them; without, [`TitTrace::calls`] is empty and a large trace loads faster).
    pub calls: bool,
}

/// A converted trace.
#[derive(Debug)]
pub struct TitTrace {
    /// The schedule.
    pub schedule: Schedule,
    /// Its communicators.
    pub comms: CommTable,
    /// Every MPI call, in each rank's program order (empty unless
    /// [`TitOptions::calls`]).
    pub calls: Vec<CallRecord>,
    /// Things the user should know.
    pub warnings: Vec<String>,
}

/// A problem in a trace, with its file and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TitError {
    /// File.
    pub file: String,
    /// 1-based line, 0 if not at a line.
    pub line: u32,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for TitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.msg)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.msg)
        }
    }
}

impl std::error::Error for TitError {}

impl From<SourceError> for TitError {
    fn from(e: SourceError) -> Self {
        TitError {
            file: e.file,
            line: e.line,
            msg: e.msg,
        }
    }
}

fn at(file: &Path, line: u32, msg: impl Into<String>) -> SourceError {
    SourceError {
        file: file.display().to_string(),
        line,
        msg: msg.into(),
    }
}

/// A line's arguments, on the stack unless there are many (vector collectives list one
/// count per rank): most lines have a handful, and allocating for each showed.
#[derive(Default)]
struct Args<'t> {
    inline: [&'t str; 16],
    spilled: Vec<&'t str>,
}

impl<'t> Args<'t> {
    fn collect(&mut self, words: impl Iterator<Item = &'t str>) -> &[&'t str] {
        let mut n = 0;
        for w in words {
            if n < self.inline.len() {
                self.inline[n] = w;
            } else {
                if n == self.inline.len() {
                    self.spilled.extend_from_slice(&self.inline);
                }
                self.spilled.push(w);
            }
            n += 1;
        }
        if n <= self.inline.len() {
            &self.inline[..n]
        } else {
            &self.spilled
        }
    }
}

/// Splits `<rank> [@comm] <action> <args>` into (comm id, action name, the arguments'
/// words), collecting nothing: most lines are not what pass 1 looks for, and pass 2
/// keeps them in [`Args`].
fn words(text: &str) -> (Option<&str>, &str, std::str::SplitAsciiWhitespace<'_>) {
    let mut w = text.split_ascii_whitespace();
    w.next(); // rank
    let mut name = w.next().unwrap_or("");
    let mut comm = None;
    if let Some(c) = name.strip_prefix('@') {
        comm = Some(c);
        name = w.next().unwrap_or("");
    }
    (comm, name, w)
}

/// Number of ranks of the TIT trace at `path` (reads only the index, or the shared file).
pub fn tit_ranks(path: &Path) -> Result<u32, TitError> {
    Ok(Source::open(path)?.ranks() as u32)
}

/// True if `path` looks like a TIT trace or index rather than a GOAL schedule: its first
/// meaningful line is `<rank> <action>` or a file name, not `num_ranks N`.
pub fn looks_like_tit(path: &Path) -> bool {
    use std::io::BufRead;
    let Ok(f) = std::fs::File::open(path) else { return false };
    for line in std::io::BufReader::new(f).lines().take(1000) {
        let Ok(line) = line else { return false };
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with("//") || t.starts_with("/*") {
            continue;
        }
        return !t.starts_with("num_ranks");
    }
    false
}

/// Reads the TIT trace at `path` (index file or trace file) into a schedule.
pub fn read_tit(path: &Path, opts: &TitOptions<'_>) -> Result<TitTrace, TitError> {
    // Asked only for traces that could use a second thread: the answer reads cgroup
    // files, a noticeable part of replaying a 2-rank trace.
    read_tit_with(path, opts, || {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    })
}

/// [`read_tit`] with at most `threads` threads: traces of [`PARALLEL_RANKS`] ranks or more
/// are read in two halves when `threads >= 2`, with the same result as one pass.
pub fn read_tit_on(path: &Path, opts: &TitOptions<'_>, threads: usize) -> Result<TitTrace, TitError> {
    read_tit_with(path, opts, || threads)
}

fn read_tit_with(path: &Path, opts: &TitOptions<'_>, threads: impl FnOnce() -> usize) -> Result<TitTrace, TitError> {
    let src = Source::open(path)?;
    let p = src.ranks() as u32;
    if p == 0 {
        return Err(TitError {
            file: path.display().to_string(),
            line: 0,
            msg: "the trace has no rank".into(),
        });
    }
    // Pass 1: communicator creations (in two halves on two threads for large traces).
    type Found = (Vec<Vec<(Creation, u32)>>, Vec<String>, u64);
    let find = |ranks: std::ops::Range<u32>| -> Result<Found, TitError> {
        let mut creations: Vec<Vec<(Creation, u32)>> = Vec::with_capacity(ranks.len());
        let mut files: Vec<String> = Vec::with_capacity(ranks.len());
        let mut skipped = 0u64;
        for r in ranks {
            // Most ranks create no communicator: one search of their text instead of
            // splitting every line.
            if !src.mentions(r as usize, CREATOR_TEXT)? {
                creations.push(Vec::new());
                files.push(src.file_of(r as usize).display().to_string());
                continue;
            }
            let mut found = Vec::new();
            let mut name_of_file = String::new();
            src.for_each(r as usize, &mut skipped, |file, line, text| {
                if name_of_file.is_empty() {
                    name_of_file = file.display().to_string();
                }
                let (_, name, rest) = words(text);
                if !is_creator(name) {
                    return Ok(());
                }
                let mut args = Args::default();
                let args = args.collect(rest);
                if args.is_empty() {
                    return Ok(());
                }
                let a = parse(name, args, 0, false).map_err(|m| at(file, line, m))?;
                let c = match a {
                    Action::CommSplit {
                        parent,
                        color,
                        key,
                        new,
                    } => Creation::Split {
                        parent,
                        color,
                        key,
                        new,
                    },
                    Action::CommDup { parent, new } => Creation::Dup { parent, new },
                    Action::CommCreate { parent, new, members } => Creation::Create { parent, new, members },
                    _ => return Ok(()),
                };
                found.push((c, line));
                Ok(())
            })?;
            creations.push(found);
            files.push(name_of_file);
        }
        Ok((creations, files, skipped))
    };
    let two = p >= PARALLEL_RANKS && threads() >= 2;
    let (creations, files, _) = if two {
        let mid = p / 2;
        let (lower, upper) = std::thread::scope(|sc| {
            let upper = sc.spawn(|| find(mid..p));
            (find(0..mid), upper.join().expect("trace reader thread panicked"))
        });
        let (mut c, mut f, k) = lower?;
        let (c2, f2, k2) = upper?;
        c.extend(c2);
        f.extend(f2);
        (c, f, k + k2)
    } else {
        find(0..p)?
    };
    let comms = CommTable::build(p, &creations).map_err(|(r, line, msg)| TitError {
        file: files[r as usize].clone(),
        line,
        msg,
    })?;
    // Pass 2: conversion. Ranks are independent here: large traces are converted in two
    // halves on two threads and joined; the result is the same as one pass in order.
    let convert = |ranks: std::ops::Range<u32>| -> Result<Part, TitError> {
        let mut part = Part {
            schedule: None,
            calls: Vec::new(),
            skipped: 0,
            dropped: 0,
        };
        let mut b = ScheduleBuilder::new(p);
        // Call names, allocated once each.
        let mut names: HashSet<Arc<str>, BuildHasherDefault<MixHasher>> = HashSet::default();
        for r in ranks {
            b.begin_rank(r as u64).map_err(|e| TitError {
                file: files[r as usize].clone(),
                line: 0,
                msg: e.to_string(),
            })?;
            let mut conv = RankConv {
                b: &mut b,
                r,
                p,
                comms: &comms,
                opts,
                after: Vec::new(),
                after_gen: 0,
                hidden: 0,
                store: MixHashMap::default(),
                outstanding: 0,
                double_default: false,
                dropped: &mut part.dropped,
                icolls: 0,
                templates: MixHashMap::default(),
            };
            let calls = &mut part.calls;
            let keep_calls = opts.calls;
            let names = &mut names;
            src.for_each(r as usize, &mut part.skipped, |file, line, text| {
                let before = conv.b.open_len();
                let (comm, name, rest) = words(text);
                let mut args = Args::default();
                conv.action(comm, name, args.collect(rest))
                    .map_err(|m| at(file, line, m))?;
                let after = conv.b.open_len();
                if keep_calls && after > before {
                    let name = match names.get(name) {
                        Some(n) => Arc::clone(n),
                        None => {
                            let n: Arc<str> = Arc::from(name);
                            names.insert(Arc::clone(&n));
                            n
                        }
                    };
                    calls.push(CallRecord {
                        rank: r,
                        name,
                        first: before as u64,
                        end: after as u64,
                    });
                }
                Ok(())
            })?;
            b.end_rank().map_err(|e| TitError {
                file: files[r as usize].clone(),
                line: 0,
                msg: e.to_string(),
            })?;
        }
        part.schedule = Some(b.finish());
        Ok(part)
    };
    let (first, second) = if two {
        let mid = p / 2;
        std::thread::scope(|sc| {
            let upper = sc.spawn(|| convert(mid..p));
            let lower = convert(0..mid);
            (lower, Some(upper.join().expect("conversion thread panicked")))
        })
    } else {
        (convert(0..p), None)
    };
    // The lower half's error comes first, as in a sequential pass.
    let mut whole = first?;
    let mut schedule = whole.schedule.take().expect("converted");
    if let Some(second) = second {
        let mut second = second?;
        schedule
            .append(second.schedule.take().expect("converted"))
            .map_err(|e| TitError {
                file: files[0].clone(),
                line: 0,
                msg: e.to_string(),
            })?;
        whole.calls.extend(second.calls);
        whole.skipped += second.skipped;
        whole.dropped += second.dropped;
    }
    let (calls, skipped, dropped) = (whole.calls, whole.skipped, whole.dropped);
    let mut warnings = Vec::new();
    if skipped > 0 {
        warnings.push(format!(
            "{skipped} line(s) of per-rank files belonged to another rank and were skipped"
        ));
    }
    if dropped > 0 {
        warnings.push(format!(
            "{dropped} send(s) to MPI_PROC_NULL (a negative rank) were dropped"
        ));
    }
    Ok(TitTrace {
        schedule,
        comms,
        calls,
        warnings,
    })
}

/// Text that every action [`is_creator`] accepts contains.
const CREATOR_TEXT: &[&str] = &["comm_", "cart_", "graph_"];

/// Actions that may define a communicator.
fn is_creator(name: &str) -> bool {
    name.starts_with("comm_")
        || matches!(
            name,
            "cart_create" | "cart_sub" | "graph_create" | "dist_graph_create" | "dist_graph_create_adjacent"
        )
}

/// Traces with at least this many ranks are converted on two threads (measured: 5 to
/// 10 % faster replays of 16-rank traces; smaller ones read in milliseconds anyway).
pub const PARALLEL_RANKS: u32 = 8;

/// What converting a range of ranks produced.
struct Part {
    schedule: Option<Schedule>,
    calls: Vec<CallRecord>,
    skipped: u64,
    dropped: u64,
}

struct RankConv<'a, 'o> {
    b: &'a mut ScheduleBuilder,
    r: u32,
    p: u32,
    comms: &'a CommTable,
    opts: &'a TitOptions<'o>,
    /// What the next blocking call must wait for (the frontier), less what
    /// [`RankConv::wait_for`] found implied.
    after: Vec<u32>,
    /// Changes whenever `after` changes other than by growing: a request's `len` is
    /// a prefix of `after` only within the generation it was added in.
    after_gen: u32,
    /// Entries dropped from `after` as implied since it was last set anew: the frontier
    /// had `after.len() + hidden` entries, which decides whether a collective needs a
    /// join operation.
    hidden: usize,
    /// Outstanding requests by (source, destination, tag), oldest first. Keys without
    /// any stay for a while ([`RankConv::prune_store`]).
    store: MixHashMap<Key, VecDeque<Req>>,
    /// Requests in `store`.
    outstanding: usize,
    double_default: bool,
    dropped: &'a mut u64,
    /// Non-blocking collectives started so far.
    icolls: i64,
    /// This rank's collective calls seen so far, as recorded from their algorithms.
    templates: MixHashMap<TemplateKey, Template>,
}

/// A frontier longer than this is joined before an operation is added after it: many
/// requests completed together and many more posted after them would otherwise give
/// each of the latter an edge from each of the former.
const JOIN_AT: usize = 8;

/// Largest buffer of one collective call on one rank: 1 TiB, beyond any process's
/// memory. Segmented algorithms cut buffers into pieces of a few KiB; a typo of a few
/// digits more would otherwise ask for billions of them.
pub const MAX_COLL_BYTES: u64 = 1 << 40;

/// Distinct collective calls a rank remembers; past this the memory is dropped and
/// filled again (calls whose arguments never repeat, such as data-dependent
/// all-to-allv counts, would otherwise keep every one).
const MAX_TEMPLATES: usize = 256;

/// What a collective call's operations depend on: the same key, the same template.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct TemplateKey {
    /// The communicator's index. With the spec's size it fixes the translation to world
    /// ranks: index 0 is the world (listed or not) or, with one rank, MPI_COMM_SELF.
    comm: usize,
    /// The algorithm, by address: registry entries are statics (comparing names cost
    /// a `memcmp` per call).
    alg: usize,
    spec: CollSpec,
}

fn build(e: BuildError) -> String {
    e.to_string()
}

/// An outstanding request: its operation, which waited (directly, or through a
/// collective's entry) for the first `len` entries of the frontier of generation `gen`.
#[derive(Copy, Clone, Debug)]
struct Req {
    op: u32,
    gen: u32,
    len: u32,
}

impl RankConv<'_, '_> {
    /// The next blocking call waits for local op `l` only.
    fn then(&mut self, l: u32) {
        self.reset_after(&[l]);
    }

    /// Sets the frontier anew, to `ops`.
    fn reset_after(&mut self, ops: &[u32]) {
        self.after.clear();
        self.after.extend_from_slice(ops);
        self.after_gen = self.after_gen.wrapping_add(1);
        self.hidden = 0;
    }

    /// Replaces a long frontier by a join of it (which takes no CPU): the operations
    /// that follow each wait for the join instead of for every entry.
    fn join_after(&mut self) -> Result<(), String> {
        let j = self.b.push_join().map_err(build)?;
        for &a in &self.after {
            self.b.requires(j, a);
        }
        let had = self.after.len() + self.hidden;
        self.reset_after(&[j]);
        // The frontier still counts what it had (whether a collective needs its own
        // join depends on that).
        self.hidden = had - 1;
        Ok(())
    }

    /// Stores under key `k` the request of local op `l`, which waits for the whole
    /// frontier (directly, or through a collective's entry).
    fn post(&mut self, k: Key, l: u32) {
        let req = Req {
            op: l,
            gen: self.after_gen,
            len: self.after.len() as u32,
        };
        self.store.entry(k).or_default().push_back(req);
        self.outstanding += 1;
    }

    /// Adds completed requests to the frontier. A request's op started only once the
    /// first `len` entries of the frontier had completed; if the frontier has only grown
    /// since (same generation), those entries are implied by the request's and dropped.
    /// Loops of non-blocking calls and waits with no blocking call in between would
    /// otherwise make every operation wait for all earlier ones: edges quadratic in the
    /// trace's length.
    fn wait_for(&mut self, reqs: &[Req]) {
        let implied = reqs
            .iter()
            .filter(|q| q.gen == self.after_gen)
            .map(|q| q.len as usize)
            .max()
            .unwrap_or(0)
            .min(self.after.len());
        if implied > 0 {
            self.after.drain(..implied);
            self.hidden += implied;
            self.after_gen = self.after_gen.wrapping_add(1);
        }
        self.after.extend(reqs.iter().map(|q| q.op));
    }

    /// Adds `op` after the frontier; returns its local index.
    fn add(&mut self, op: Op, ctx: u32) -> Result<u32, String> {
        if self.after.len() > JOIN_AT {
            self.join_after()?;
        }
        let l = self.b.push(op).map_err(build)?;
        self.b.set_context(l, ctx);
        for &a in &self.after {
            self.b.requires(l, a);
        }
        Ok(l)
    }

    fn calc(&mut self, seconds: f64) -> Result<(), String> {
        // The simulated clock counts picoseconds in 64 bits: about 213 days.
        if seconds * 1e12 >= u64::MAX as f64 {
            return Err(format!(
                "a computation of {seconds:e} s is longer than the simulated clock can count (2^64 ps, about 213 days)"
            ));
        }
        let l = self.add(Op::calc(SimTime::from_secs_f64(seconds.max(0.0)).ps(), 0), 0)?;
        self.then(l);
        Ok(())
    }

    /// A test of local request op `req`: a compute of `test_cost` that the run may
    /// lengthen (SMPI's growing test sleeps) or skip (the request was found complete by
    /// an earlier test).
    fn test(&mut self, req: u32) -> Result<(), String> {
        let cost = SimTime::from_secs_f64(self.opts.test_cost.max(0.0)).ps();
        let l = self.add(Op::calc(cost, 0), 0)?;
        self.b.test_of(l, req);
        self.then(l);
        Ok(())
    }

    fn rank_arg(&self, v: i64, what: &str) -> Result<u32, String> {
        if v < 0 || v >= self.p as i64 {
            return Err(format!("{what} {v} is out of range: the trace has {} ranks", self.p));
        }
        Ok(v as u32)
    }

    fn action(&mut self, comm: Option<&str>, name: &str, args: &[&str]) -> Result<(), String> {
        let self_comm = [self.r];
        let (ci, members) = match comm {
            None => (0, None),
            // Each rank's MPI_COMM_SELF: nothing crosses it.
            Some("self") => (0, Some(&self_comm[..])),
            Some(id) => {
                let (i, c) = self
                    .comms
                    .get(id)
                    .ok_or_else(|| format!("unknown communicator '{id}'"))?;
                (i, Some(&c.members[..]))
            }
        };
        let n = members.map_or(self.p as usize, |m| m.len());
        let p2p = CommTable::p2p_context(ci);
        match parse(name, args, n, self.double_default)? {
            Action::Init { double_default } => self.double_default = double_default,
            Action::NoOp | Action::CommSplit { .. } | Action::CommDup { .. } | Action::CommCreate { .. } => {}
            Action::Start { peer, tag, bytes, recv } => self.start(peer, tag, bytes, recv, p2p)?,
            Action::Startall { starts } => {
                for (peer, tag, bytes, recv) in starts {
                    self.start(peer, tag, bytes, recv, p2p)?;
                }
            }
            Action::Send {
                blocking,
                peer,
                tag,
                bytes,
            } => {
                if peer < 0 {
                    *self.dropped += 1;
                    return Ok(());
                }
                let to = self.rank_arg(peer, "destination")?;
                let l = self.add(Op::send(bytes, to, wild_tag(tag), 0, 0), p2p)?;
                if blocking {
                    self.then(l);
                } else {
                    self.post((self.r as i64, peer, tag), l);
                }
            }
            Action::Recv {
                blocking,
                peer,
                tag,
                bytes,
            } => {
                if peer == PROC_NULL {
                    *self.dropped += 1;
                    return Ok(());
                }
                let from = if peer < 0 {
                    ANY_SOURCE
                } else {
                    self.rank_arg(peer, "source")?
                };
                let l = self.add(Op::recv(bytes, from, wild_tag(tag), 0, 0), p2p)?;
                if blocking {
                    self.then(l);
                } else {
                    self.post((peer, self.r as i64, tag), l);
                }
            }
            Action::Wait { src, dst, tag } => {
                let special = src == ICOLL_SOURCE || src == UNMODELLED_SOURCE;
                if !special && self.outstanding == 0 {
                    return Err("'wait' without any outstanding isend or irecv".into());
                }
                self.complete((src, dst, tag));
            }
            Action::Test { src, dst, tag, done } => {
                if done {
                    // simpi's tracer: the real test completed it.
                    self.complete((src, dst, tag));
                    let cost = self.opts.test_cost;
                    self.calc(cost)?;
                } else if let Some(q) = self.store.get_mut(&(src, dst, tag)).filter(|q| !q.is_empty()) {
                    // SimGrid's replay takes the oldest request with the key and puts it
                    // (or, if the test finds it complete, a null request) back last; the
                    // test's cost and outcome are decided when it runs.
                    let req = q.pop_front().expect("stored keys have requests");
                    q.push_back(req);
                    self.test(req.op)?;
                }
            }
            Action::TestSome { done } => {
                self.complete_all(done);
                let cost = self.opts.test_cost;
                self.calc(cost)?;
            }
            Action::Waitall { reqs: Some(reqs) } => self.complete_all(reqs),
            Action::Waitall { reqs: None } => {
                let mut all: Vec<Req> = self.store.drain().flat_map(|(_, q)| q).collect();
                self.outstanding = 0;
                all.sort_unstable_by_key(|q| q.op);
                self.wait_for(&all);
            }
            Action::Waitany { done: Some(k) } => self.complete(k),
            Action::Waitsome { done } => self.complete_all(done),
            Action::Waitany { done: None } => {
                let mut all: Vec<(u32, Key)> = self
                    .store
                    .iter()
                    .flat_map(|(&k, q)| q.iter().map(move |r| (r.op, k)))
                    .collect();
                all.sort_unstable_by_key(|&(op, _)| op);
                if let Some(&(oldest, key)) = all.first() {
                    let j = self.b.push(Op::calc(0, 0)).map_err(build)?;
                    for &(op, _) in &all {
                        self.b.requires(j, op);
                    }
                    self.b.any_of(j);
                    self.after.push(j);
                    // The call completed one request, which one the trace does not say:
                    // the oldest leaves the store (else every later waitany would wait
                    // for all requests ever made, and complete with the first).
                    self.store.get_mut(&key).expect("stored").retain(|r| r.op != oldest);
                    self.outstanding -= 1;
                    self.prune_store();
                }
            }
            Action::SendRecv {
                sbytes,
                dst,
                rbytes,
                src,
                stag,
                rtag,
            } => {
                let to = if dst >= 0 {
                    Some(self.rank_arg(dst, "destination")?)
                } else {
                    None
                };
                let from = match src {
                    PROC_NULL => None,
                    s if s < 0 => Some(ANY_SOURCE),
                    s => Some(self.rank_arg(s, "source")?),
                };
                // With itself on both sides, SMPI copies the buffer and sends nothing
                // (`Request::sendrecv`): no time passes.
                if to == Some(self.r) && from == Some(self.r) {
                    return Ok(());
                }
                let mut ends = Vec::new();
                if let Some(to) = to {
                    ends.push(self.add(Op::send(sbytes, to, wild_tag(stag), 0, 0), p2p)?);
                }
                if let Some(from) = from {
                    ends.push(self.add(Op::recv(rbytes, from, wild_tag(rtag), 0, 0), p2p)?);
                }
                if !ends.is_empty() {
                    self.reset_after(&ends);
                }
            }
            Action::Compute { flops } => {
                let secs = flops / (self.opts.speed)(self.r);
                self.calc(secs)?;
            }
            Action::Sleep { seconds } => self.calc(seconds)?,
            Action::Nonblocking(coll) => {
                let k = self.icolls;
                self.icolls += 1;
                let (end, _) = self.collective(ci, members, *coll)?;
                // Every operation of the collective waits for the frontier (which it
                // leaves as it was), directly or through its entry: its end is a request.
                if let Some(end) = end {
                    self.post((ICOLL_SOURCE, self.r as i64, k), end);
                }
            }
            coll => {
                let (end, comp) = self.collective(ci, members, coll)?;
                if let Some(end) = end {
                    self.then(end);
                }
                if comp > 0.0 {
                    let secs = comp / (self.opts.speed)(self.r);
                    self.calc(secs)?;
                }
            }
        }
        Ok(())
    }

    /// Starts a persistent request: a send to `peer`, or a receive (`recv`, or SimGrid's
    /// convention of naming this rank) from `peer` (any source when unknown).
    fn start(&mut self, peer: i64, tag: i64, bytes: u64, recv: bool, ctx: u32) -> Result<(), String> {
        let me = self.r as i64;
        if peer == PROC_NULL {
            *self.dropped += 1;
            return Ok(());
        }
        if recv || peer == me {
            let src = if recv { peer } else { -1 };
            let from = if src < 0 {
                ANY_SOURCE
            } else {
                self.rank_arg(src, "source")?
            };
            let l = self.add(Op::recv(bytes, from, wild_tag(tag), 0, 0), ctx)?;
            self.post((src, me, tag), l);
        } else {
            let to = self.rank_arg(peer, "destination")?;
            let l = self.add(Op::send(bytes, to, wild_tag(tag), 0, 0), ctx)?;
            self.post((me, peer, tag), l);
        }
        Ok(())
    }

    /// Waits for the oldest outstanding request with key `k`. A persistent receive stored
    /// without its source, and a SimGrid wait on a non-blocking collective (whose key holds
    /// internal values), fall back to the oldest candidate; an unknown request completes at once.
    fn complete(&mut self, k: Key) {
        if let Some(q) = self.take(k) {
            self.wait_for(&[q]);
        }
    }

    /// [`RankConv::complete`] for several requests, completed together.
    fn complete_all(&mut self, keys: Vec<Key>) {
        let reqs: Vec<Req> = keys.into_iter().filter_map(|k| self.take(k)).collect();
        self.wait_for(&reqs);
    }

    /// Removes and returns the request a completion of key `k` completes (see
    /// [`RankConv::complete`]).
    fn take(&mut self, k: Key) -> Option<Req> {
        let (src, dst, tag) = k;
        if src == UNMODELLED_SOURCE {
            return None;
        }
        let pop = |store: &mut MixHashMap<Key, VecDeque<Req>>, key: Key| store.get_mut(&key)?.pop_front();
        let store = &mut self.store;
        let found = pop(store, k).or_else(|| pop(store, (-1, dst, tag))).or_else(|| {
            // The oldest non-blocking collective still outstanding.
            let oldest = store
                .iter()
                .filter(|(key, q)| key.0 == ICOLL_SOURCE && !q.is_empty())
                .map(|(key, _)| *key)
                .min_by_key(|key| key.2)?;
            pop(store, oldest)
        });
        if found.is_some() {
            self.outstanding -= 1;
            self.prune_store();
        }
        found
    }

    /// Drops the keys left without requests once they outnumber the outstanding
    /// requests (keeping them saves an allocation per request on keys that come back;
    /// dropping them bounds the scans of the store when tags never repeat).
    fn prune_store(&mut self) {
        if self.store.len() > 2 * self.outstanding + 64 {
            self.store.retain(|_, q| !q.is_empty());
        }
    }

    /// Expands a collective after the frontier; returns its last operation and the flops it
    /// computes afterwards.
    fn collective(&mut self, ci: usize, members: Option<&[u32]>, a: Action) -> Result<(Option<u32>, f64), String> {
        // The world communicator is not listed: rank i is world rank i.
        let (n, me) = match members {
            None => (self.p, self.r),
            Some(m) => {
                // The world's copy (index 0) is MPI_COMM_SELF: one member, this rank.
                let r = self.r;
                let me = if ci == 0 {
                    m.iter().position(|&x| x == r).map(|i| i as u32)
                } else {
                    self.comms.comm(ci).rank_of(r)
                }
                .ok_or_else(|| format!("rank {r} calls a collective on a communicator it is not in"))?;
                (m.len() as u32, me)
            }
        };
        let root_of = |root: i64| -> Result<u32, String> {
            if root < 0 || root >= n as i64 {
                return Err(format!("root {root} is out of range: the communicator has {n} ranks"));
            }
            Ok(root as u32)
        };
        let mut comp = 0.0;
        let spec = |coll: Collective, bytes: u64| CollSpec::new(coll, n, me, bytes);
        let s = match a {
            Action::Barrier => spec(Collective::Barrier, 0),
            Action::Bcast { bytes, root, elem } => CollSpec {
                root: root_of(root)?,
                elem,
                ..spec(Collective::Bcast, bytes)
            },
            Action::Reduce {
                bytes,
                comp: c,
                root,
                elem,
            } => {
                comp = c;
                CollSpec {
                    root: root_of(root)?,
                    elem,
                    ..spec(Collective::Reduce, bytes)
                }
            }
            Action::Allreduce { bytes, comp: c, elem } => {
                comp = c;
                CollSpec {
                    elem,
                    ..spec(Collective::Allreduce, bytes)
                }
            }
            Action::Scan {
                exclusive,
                bytes,
                comp: c,
            } => {
                comp = c;
                spec(
                    if exclusive {
                        Collective::Exscan
                    } else {
                        Collective::Scan
                    },
                    bytes,
                )
            }
            Action::Alltoall { sbytes } => spec(Collective::Alltoall, sbytes),
            Action::Alltoallv { send, recv } => CollSpec {
                send_counts: send,
                recv_counts: recv,
                ..spec(Collective::Alltoallv, 0)
            },
            Action::Gather {
                all,
                sbytes,
                root,
                elem,
            } => CollSpec {
                root: if all { 0 } else { root_of(root)? },
                elem,
                ..spec(if all { Collective::Allgather } else { Collective::Gather }, sbytes)
            },
            Action::Gatherv {
                all,
                sbytes,
                mut recv,
                root,
            } => {
                // Non-roots know only their own contribution.
                recv[me as usize] = sbytes;
                CollSpec {
                    root: if all { 0 } else { root_of(root)? },
                    counts: recv,
                    ..spec(
                        if all {
                            Collective::Allgatherv
                        } else {
                            Collective::Gatherv
                        },
                        0,
                    )
                }
            }
            Action::Scatter { rbytes, root } => CollSpec {
                root: root_of(root)?,
                ..spec(Collective::Scatter, rbytes)
            },
            Action::Scatterv { mut send, rbytes, root } => {
                send[me as usize] = rbytes;
                CollSpec {
                    root: root_of(root)?,
                    counts: send,
                    ..spec(Collective::Scatterv, 0)
                }
            }
            Action::ReduceScatter { recv, comp: c } => {
                comp = c;
                CollSpec {
                    counts: recv,
                    ..spec(Collective::ReduceScatter, 0)
                }
            }
            other => unreachable!("not a collective: {other:?}"),
        };
        // Selectors and algorithms add these sizes up: the totals must fit in 64 bits.
        let sum = |v: &[u64]| v.iter().try_fold(0u64, |a, &b| a.checked_add(b));
        if s.bytes.checked_mul(n as u64).is_none()
            || sum(&s.counts).is_none()
            || sum(&s.send_counts).is_none()
            || sum(&s.recv_counts).is_none()
        {
            return Err(format!("the {} moves more than 2^64 bytes in all", s.coll));
        }
        let most = [s.bytes]
            .into_iter()
            .chain(s.counts.iter().copied())
            .chain(s.send_counts.iter().copied())
            .chain(s.recv_counts.iter().copied())
            .max()
            .unwrap_or(0);
        if most > MAX_COLL_BYTES {
            return Err(format!(
                "the {} has a buffer of {most} bytes, more than the {MAX_COLL_BYTES} (1 TiB) a rank may have",
                s.coll
            ));
        }
        let alg = (self.opts.choose)(&s);
        // As many entries as the frontier had (implied ones included): the join costs
        // a zero-length compute, which waits for the CPU.
        let entry = match self.after.len() + self.hidden {
            0 => None,
            1 => Some(self.after[0]),
            _ => {
                let j = self.b.push(Op::calc(0, 0)).map_err(build)?;
                for &a in &self.after {
                    self.b.requires(j, a);
                }
                Some(j)
            }
        };
        let key = TemplateKey {
            comm: ci,
            alg: alg as *const Algorithm as usize,
            spec: s,
        };
        if self.templates.len() >= MAX_TEMPLATES && !self.templates.contains_key(&key) {
            self.templates.clear();
        }
        let t = match self.templates.entry(key) {
            Entry::Occupied(o) => o.into_mut(),
            Entry::Vacant(v) => {
                let t = Template::record_choosing(alg, &v.key().spec, members, self.opts.choose)?;
                v.insert(t)
            }
        };
        let end = t
            .instantiate(self.b, CommTable::coll_context(ci), entry)
            .map_err(build)?;
        Ok((end, comp))
    }
}

fn wild_tag(t: i64) -> u32 {
    if t < 0 || t >= ANY_TAG as i64 {
        ANY_TAG
    } else {
        t as u32
    }
}
