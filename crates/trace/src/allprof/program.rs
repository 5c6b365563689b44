//! A liballprof trace as a rank program: each step reads a rank's lines up to its next
//! call that communicates and makes it through [`RankCalls`]:
//!
//! * Point-to-point partners are ranks of the call's communicator, mapped to world
//!   ranks; source -1 is MPI_ANY_SOURCE and -2 MPI_PROC_NULL (Open MPI's values), a
//!   negative tag MPI_ANY_TAG; sizes are count × the datatype size the tracer printed.
//! * Requests are named by the address of the `MPI_Request` the call filled in: MPI_Wait
//!   completes the one at its address (none there: a null request, nothing to wait
//!   for), MPI_Waitall those of its array (8-byte handles, as Open MPI's; 4 bytes, as
//!   MPICH's, when only those addresses hold requests). MPI_Waitany and MPI_Waitsome
//!   wait for any one of their array's requests (the trace does not say which completed;
//!   the oldest is taken as done). MPI_Test tests the request at its address, the run
//!   deciding whether it is complete; MPI_Testall/any/some and MPI_Iprobe cost a test.
//! * Collectives are expanded by the chosen algorithm on their communicator, as a TIT
//!   trace's are; MPI_IN_PLACE (pointer 1, or MPICH's -1) takes the receive side's size.
//! * Computation is the time from the end of one call that communicates (or of
//!   MPI_Init) to the start of the next, local calls (MPI_Wtime, MPI_Comm_rank...)
//!   included, taken at [`REFERENCE_FLOPS`] flop/s as `simpi trace` writes it and run at
//!   the host's speed; spans under [`MIN_COMPUTE`] add up until they reach it.
//!   liballprof 1 stamps MPI_Finalize's start after its own clock synchronisation
//!   (the `# Finalize clockdiff` line before it): the span before such an MPI_Finalize
//!   is not computation.

use super::calls::{role, Role};
use super::files::Lines;
use super::handles::{Bound, Handles, UNDEFINED};
use super::line::{parse, Arg, CommArg, Line};
use crate::otf2::{MIN_COMPUTE, REFERENCE_FLOPS};
use crate::tit::{Action, TitError, TitOptions};
use crate::trace_program::{msg, seconds_to_ps};
use simpi_kernel::MixHashMap;
use simpi_mpi::calls::{CollComm, RankCalls, Req};
use simpi_mpi::comm::CommTable;
use simpi_mpi::live::{Program, Step};
use simpi_mpi::sink::OpSink;
use simpi_mpi::{CallRecord, Error, ANY_SOURCE, ANY_TAG};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// MPI_ANY_SOURCE and MPI_PROC_NULL as Open MPI writes them.
const ANY: i64 = -1;
const PROC_NULL: i64 = -2;

fn wild_tag(t: i64) -> u32 {
    if t < 0 || t >= ANY_TAG as i64 {
        ANY_TAG
    } else {
        t as u32
    }
}

/// True for the values MPI_IN_PLACE prints as.
fn in_place(p: u64) -> bool {
    p == 1 || p == u64::MAX
}

/// The values of a line's arguments, by position (the signature fixed their kinds).
struct Args<'a>(&'a [Arg]);

impl Args<'_> {
    fn int(&self, i: usize) -> i64 {
        match self.0[i] {
            Arg::Int(v) => v,
            _ => 0,
        }
    }
    fn ptr(&self, i: usize) -> u64 {
        match self.0[i] {
            Arg::Ptr(v) => v,
            _ => 0,
        }
    }
    fn size(&self, i: usize) -> u64 {
        match self.0[i] {
            Arg::Type(v) => v,
            _ => 0,
        }
    }
    fn comm(&self, i: usize) -> CommArg {
        match self.0[i] {
            Arg::Comm(c) => c,
            _ => CommArg {
                handle: 0,
                rank: 0,
                size: 1,
            },
        }
    }
    fn counts(&self, i: usize) -> &[i64] {
        match &self.0[i] {
            Arg::Counts(v) => v,
            _ => &[],
        }
    }
    /// `count` elements of the datatype at `dt`, in bytes.
    fn bytes(&self, count: usize, dt: usize) -> Result<u64, String> {
        let c = self.int(count);
        if c < 0 {
            return Err(format!("count {c} is negative"));
        }
        (c as u64)
            .checked_mul(self.size(dt))
            .ok_or_else(|| format!("{c} elements of {} bytes overflow", self.size(dt)))
    }
    /// The counts at `i` (one per rank of a communicator of `n`) in bytes of `dt`.
    fn byte_counts(&self, i: usize, dt: usize, n: u32) -> Result<Vec<u64>, String> {
        let c = self.counts(i);
        if c.len() != n as usize {
            return Err(format!(
                "argument {} lists {} counts; the communicator has {n} ranks",
                i + 1,
                c.len()
            ));
        }
        let size = self.size(dt);
        c.iter()
            .map(|&v| {
                if v < 0 {
                    return Err(format!("count {v} is negative"));
                }
                (v as u64)
                    .checked_mul(size)
                    .ok_or_else(|| format!("{v} elements of {size} bytes overflow"))
            })
            .collect()
    }
}

/// Where a line's communicator arguments (and a creation's new communicator) lead:
/// the same for the first pass and the replay.
pub(crate) fn track(
    h: &mut Handles,
    line: &Line<'_>,
    rank: u32,
    p: u32,
) -> Result<(Vec<Bound>, Option<simpi_mpi::comm::Creation>), String> {
    let mut bound = Vec::new();
    let mut first_comm = None;
    for a in &line.args {
        if let Arg::Comm(c) = a {
            bound.push(h.resolve(c, rank, p)?);
            first_comm.get_or_insert(*c);
        }
    }
    let creation = match line.name {
        "MPI_Comm_split" | "MPI_Comm_dup" => {
            let pc = first_comm.expect("a creation names its parent");
            let split = (line.name == "MPI_Comm_split").then(|| {
                let a = Args(&line.args);
                let color = a.int(1);
                (if color < 0 { UNDEFINED } else { color }, a.int(2))
            });
            Some(h.created(&bound[0], &pc, split)?)
        }
        "MPI_Comm_free" => {
            h.freed();
            None
        }
        _ => None,
    };
    Ok((bound, creation))
}

/// Parses `text` as its function's role wants; `None` role: refused.
pub(crate) fn read_line(text: &str) -> Result<(Line<'_>, Role), String> {
    let name = text.split(':').next().unwrap_or("");
    let r = role(name);
    let sig = match r {
        Some(Role::Modelled(s)) | Some(Role::LocalComm(s)) => Some(s),
        _ => None,
    };
    let line = parse(text, sig)?;
    let Some(r) = r else {
        return Err(format!(
            "{} is not a call simpi models (one-sided communication, MPI-IO, probes, persistent \
             requests and other communicator constructors are not read)",
            line.name
        ));
    };
    match r {
        Role::Init if line.end.is_none() => Err(format!("{} needs an end time", line.name)),
        Role::Finalize if line.start.is_none() => Err(format!("{} needs a start time", line.name)),
        Role::Modelled(_) | Role::Local | Role::LocalComm(_) if line.start.is_none() || line.end.is_none() => {
            Err(format!("{} needs a start and an end time, not '-'", line.name))
        }
        _ => {
            if let (Some(s), Some(e)) = (line.start, line.end) {
                if e < s {
                    return Err(format!("{} ends before it starts", line.name));
                }
            }
            Ok((line, r))
        }
    }
}

/// A communicator as a call sees it: its index in the table and its members as world
/// ranks (none: the world).
type View = (usize, Option<Arc<[u32]>>);

/// One rank's replay state.
struct RankState<R> {
    lines: Lines,
    handles: Handles,
    /// Outstanding requests by the address of their handle.
    reqs: MixHashMap<u64, Req<R>>,
    /// Up to when computation is accounted (ps of the tracer's clock); none before
    /// MPI_Init ends and after MPI_Finalize starts.
    mark: Option<u64>,
    /// Computation not made yet, in ps (shorter than [`MIN_COMPUTE`]).
    carry: u64,
    ended: bool,
}

/// Counts of things the user should know.
#[derive(Default)]
struct Counts {
    /// Operations with MPI_PROC_NULL dropped.
    dropped: u64,
    /// MPI_Waitany/MPI_Waitsome calls whose completed request was guessed.
    guessed: u64,
    /// Synchronous sends taken as standard ones (a whole schedule).
    sync_as_standard: u64,
}

/// A whole liballprof trace as a [`Program`].
pub struct AllprofProgram<'o, R> {
    ranks: Vec<RankState<R>>,
    comms: Arc<CommTable>,
    opts: &'o TitOptions<'o>,
    counts: Counts,
    calls: Vec<CallRecord>,
    names: HashMap<String, Arc<str>>,
}

impl<'o, R: Copy + PartialEq + std::fmt::Debug> AllprofProgram<'o, R> {
    /// The program of the rank files `files`, whose communicators are `comms`.
    pub(crate) fn new(files: Vec<PathBuf>, comms: Arc<CommTable>, opts: &'o TitOptions<'o>) -> Self {
        AllprofProgram {
            ranks: files
                .into_iter()
                .map(|f| RankState {
                    lines: Lines::new(f),
                    handles: Handles::default(),
                    reqs: MixHashMap::default(),
                    mark: None,
                    carry: 0,
                    ended: false,
                })
                .collect(),
            comms,
            opts,
            counts: Counts::default(),
            calls: Vec::new(),
            names: HashMap::new(),
        }
    }

    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// The communicators.
    pub fn comms(&self) -> &Arc<CommTable> {
        &self.comms
    }

    /// The calls recorded (empty unless [`TitOptions::calls`]).
    pub fn take_calls(&mut self) -> Vec<CallRecord> {
        std::mem::take(&mut self.calls)
    }

    /// Things the user should know, once the trace has run.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.counts.dropped > 0 {
            w.push(format!(
                "{} send(s) or receive(s) with MPI_PROC_NULL were dropped",
                self.counts.dropped
            ));
        }
        if self.counts.guessed > 0 {
            w.push(format!(
                "{} MPI_Waitany/MPI_Waitsome call(s) waited for any one request; the trace does \
                 not say which completed, the oldest was taken as done",
                self.counts.guessed
            ));
        }
        if self.counts.sync_as_standard > 0 {
            w.push(crate::trace_program::sync_as_standard_warning(
                self.counts.sync_as_standard,
            ));
        }
        w
    }

    /// Every line was checked by the first pass: nothing unread can be malformed.
    pub fn check_unread(&mut self) -> Result<(), Error> {
        Ok(())
    }

    /// Drops rank `r`'s state (a schedule being built has passed it).
    pub(crate) fn done_with(&mut self, r: usize) {
        let st = &mut self.ranks[r];
        st.reqs = MixHashMap::default();
        st.handles = Handles::default();
    }

    fn located(&self, r: usize, m: String) -> Error {
        let l = &self.ranks[r].lines;
        Error::Input {
            file: l.path().display().to_string(),
            line: l.line,
            msg: m,
        }
    }

    fn record(&mut self, r: usize, name: &str, first: u64, end: u64) {
        if self.opts.calls && end > first {
            let name = match self.names.get(name) {
                Some(n) => Arc::clone(n),
                None => {
                    let n: Arc<str> = Arc::from(name);
                    self.names.insert(name.to_string(), Arc::clone(&n));
                    n
                }
            };
            self.calls.push(CallRecord {
                rank: r as u32,
                name,
                first,
                end,
            });
        }
    }

    /// Accounts computation up to `t` (ps of the tracer's clock) and makes what reached
    /// [`MIN_COMPUTE`]; true if it made one.
    fn compute_until<S: OpSink<Ref = R>>(
        &mut self,
        r: usize,
        t: u64,
        calls: &mut RankCalls<R>,
        s: &mut S,
    ) -> Result<bool, String> {
        let st = &mut self.ranks[r];
        let Some(mark) = st.mark else { return Ok(false) };
        st.carry = st.carry.saturating_add(t.saturating_sub(mark));
        st.mark = Some(t.max(mark));
        let min = (MIN_COMPUTE * 1e12) as u64;
        if st.carry == 0 || st.carry < min {
            return Ok(false);
        }
        let seconds = st.carry as f64 * 1e-12;
        st.carry = 0;
        let ps = seconds_to_ps(seconds * REFERENCE_FLOPS / (self.opts.speed)(r as u32))?;
        calls.compute(s, ps).map_err(msg)?;
        Ok(true)
    }

    /// The communicator `b` (named by `c`) as (index, members: none for the world),
    /// checked against the rank and size the trace gives.
    fn view(&self, r: u32, b: &Bound, c: &CommArg) -> Result<View, String> {
        let p = self.ranks.len() as u32;
        let mismatch = |what: &str, rank: u32, size: u32| {
            format!(
                "communicator {} is rank {} of {} here, but it was taken for {what}, where this \
                 process is rank {rank} of {size}",
                c.handle, c.rank, c.size
            )
        };
        match b {
            Bound::World => {
                if (c.rank, c.size) != (r, p) {
                    return Err(mismatch("MPI_COMM_WORLD", r, p));
                }
                Ok((0, None))
            }
            Bound::Own => {
                if (c.rank, c.size) != (0, 1) {
                    return Err(mismatch("MPI_COMM_SELF", 0, 1));
                }
                Ok((0, Some(Arc::from([r]))))
            }
            Bound::Made(id) => {
                let (i, comm) = self
                    .comms
                    .get(id)
                    .ok_or_else(|| format!("communicator {} was not made on every rank", c.handle))?;
                let me = comm.rank_of(r);
                let n = comm.members.len() as u32;
                if me != Some(c.rank) || n != c.size {
                    return Err(mismatch(
                        &format!("the communicator made as {id}"),
                        me.unwrap_or(u32::MAX),
                        n,
                    ));
                }
                Ok((i, Some(Arc::from(&comm.members[..]))))
            }
        }
    }

    /// World rank of rank `peer` of a communicator (`members`, none: the world).
    fn world(&self, members: &Option<Arc<[u32]>>, peer: i64, what: &str) -> Result<u32, String> {
        let n = members.as_ref().map_or(self.ranks.len(), |m| m.len());
        if peer < 0 || peer >= n as i64 {
            return Err(format!("{what} {peer} is out of range: the communicator has {n} ranks"));
        }
        Ok(members.as_ref().map_or(peer as u32, |m| m[peer as usize]))
    }

    /// Makes the call of a parsed line.
    fn make<S: OpSink<Ref = R>>(
        &mut self,
        r: usize,
        line: &Line<'_>,
        bound: &[Bound],
        calls: &mut RankCalls<R>,
        s: &mut S,
    ) -> Result<(), String> {
        let rank = r as u32;
        let a = Args(&line.args);
        // The call's communicator: its last communicator argument.
        let comm = line.args.iter().enumerate().rev().find_map(|(i, x)| match x {
            Arg::Comm(c) => Some((i, *c)),
            _ => None,
        });
        let (ci, members) = match (comm, bound.last()) {
            (Some((_, c)), Some(b)) => self.view(rank, b, &c)?,
            _ => (0, None),
        };
        let p2p = CommTable::p2p_context(ci);
        let test_cost = seconds_to_ps(self.opts.test_cost)?;
        let name = line.name;
        match name {
            "MPI_Send" | "MPI_Ssend" | "MPI_Bsend" | "MPI_Rsend" | "MPI_Isend" | "MPI_Issend" | "MPI_Ibsend"
            | "MPI_Irsend" => {
                let bytes = a.bytes(1, 2)?;
                let (dest, tag) = (a.int(3), a.int(4));
                if dest == PROC_NULL {
                    self.counts.dropped += 1;
                    return Ok(());
                }
                let to = self.world(&members, dest, "destination")?;
                let sync = matches!(name, "MPI_Ssend" | "MPI_Issend");
                let send = (to, wild_tag(tag), bytes, p2p);
                let standard = if name.starts_with("MPI_I") {
                    let (q, standard) = calls.isend_traced(s, send, sync).map_err(msg)?;
                    self.post(r, a.ptr(6), q, s);
                    standard
                } else {
                    calls.send_traced(s, send, sync).map_err(msg)?.1
                };
                self.counts.sync_as_standard += u64::from(standard);
            }
            "MPI_Recv" | "MPI_Irecv" => {
                let bytes = a.bytes(1, 2)?;
                let (src, tag) = (a.int(3), a.int(4));
                if src == PROC_NULL {
                    self.counts.dropped += 1;
                    return Ok(());
                }
                let from = if src == ANY {
                    ANY_SOURCE
                } else {
                    self.world(&members, src, "source")?
                };
                if name == "MPI_Irecv" {
                    let q = calls.irecv(s, from, wild_tag(tag), bytes, p2p).map_err(msg)?;
                    self.post(r, a.ptr(6), q, s);
                } else {
                    calls.recv(s, from, wild_tag(tag), bytes, p2p).map_err(msg)?;
                }
            }
            "MPI_Sendrecv" | "MPI_Sendrecv_replace" => {
                let replace = name == "MPI_Sendrecv_replace";
                let sbytes = a.bytes(1, 2)?;
                let (dest, stag) = (a.int(3), a.int(4));
                let (rbytes, src, rtag) = if replace {
                    (sbytes, a.int(5), a.int(6))
                } else {
                    (a.bytes(6, 7)?, a.int(8), a.int(9))
                };
                let to = if dest == PROC_NULL {
                    None
                } else {
                    Some(self.world(&members, dest, "destination")?)
                };
                let from = match src {
                    PROC_NULL => None,
                    ANY => Some(ANY_SOURCE),
                    v => Some(self.world(&members, v, "source")?),
                };
                // With itself on both sides it is a copy: nothing moves.
                if to == Some(rank) && from == Some(rank) {
                    return Ok(());
                }
                let send = to.map(|to| (to, wild_tag(stag), sbytes));
                let recv = from.map(|from| (from, wild_tag(rtag), rbytes));
                calls.sendrecv(s, send, recv, p2p).map_err(msg)?;
            }
            "MPI_Wait" => {
                if let Some(q) = self.take(r, a.ptr(0), s) {
                    calls.wait(&[q]);
                }
            }
            "MPI_Waitall" => {
                let reqs = self.take_array(r, a.int(0), a.ptr(1), s);
                calls.wait(&reqs);
            }
            "MPI_Waitany" | "MPI_Waitsome" => {
                let reqs = self.peek_array(r, a.int(0), a.ptr(1));
                if let Some((oldest, _)) = reqs.iter().min_by_key(|(_, q)| q.order()) {
                    let oldest = *oldest;
                    let list: Vec<Req<R>> = reqs.iter().map(|(_, q)| *q).collect();
                    calls.wait_any(s, &list).map_err(msg)?;
                    self.take(r, oldest, s);
                    self.counts.guessed += 1;
                }
            }
            "MPI_Test" => {
                if let Some(q) = self.ranks[r].reqs.get_mut(&a.ptr(0)) {
                    calls.test(s, q, test_cost).map_err(msg)?;
                } else {
                    calls.compute(s, test_cost).map_err(msg)?;
                }
            }
            "MPI_Testall" | "MPI_Testany" | "MPI_Testsome" | "MPI_Iprobe" => {
                calls.compute(s, test_cost).map_err(msg)?;
            }
            "MPI_Request_free" => {
                self.take(r, a.ptr(0), s);
            }
            "MPI_Comm_split" | "MPI_Comm_dup" | "MPI_Comm_free" => {}
            _ => self.collective(r, line, &a, ci, members, calls, s)?,
        }
        Ok(())
    }

    /// Stores request `q` at `addr` (replacing one a test may have completed).
    fn post<S: OpSink<Ref = R>>(&mut self, r: usize, addr: u64, q: Req<R>, s: &mut S) {
        if let Some(old) = self.ranks[r].reqs.insert(addr, q) {
            if let Some(t) = old.target {
                s.forget_target(t);
            }
        }
    }

    /// Removes the request at `addr`.
    fn take<S: OpSink<Ref = R>>(&mut self, r: usize, addr: u64, s: &mut S) -> Option<Req<R>> {
        let q = self.ranks[r].reqs.remove(&addr)?;
        if let Some(t) = q.target {
            s.forget_target(t);
        }
        Some(q)
    }

    /// The addresses of an array of `n` requests at `base` that hold requests, in array
    /// order (a scan of the outstanding requests: `n` may be anything).
    fn array_addrs(&self, r: usize, n: i64, base: u64) -> Vec<u64> {
        let n = n.max(0) as u64;
        let reqs = &self.ranks[r].reqs;
        let at = |stride: u64| -> Vec<u64> {
            let mut v: Vec<u64> = reqs
                .keys()
                .copied()
                .filter(|&x| x >= base && (x - base).is_multiple_of(stride) && (x - base) / stride < n)
                .collect();
            v.sort_unstable();
            v
        };
        let eight = at(8);
        if eight.len() < n as usize && n > 1 {
            let four = at(4);
            if four.len() > eight.len() {
                return four;
            }
        }
        eight
    }

    fn take_array<S: OpSink<Ref = R>>(&mut self, r: usize, n: i64, base: u64, s: &mut S) -> Vec<Req<R>> {
        self.array_addrs(r, n, base)
            .into_iter()
            .filter_map(|x| self.take(r, x, s))
            .collect()
    }

    fn peek_array(&self, r: usize, n: i64, base: u64) -> Vec<(u64, Req<R>)> {
        let reqs = &self.ranks[r].reqs;
        self.array_addrs(r, n, base)
            .into_iter()
            .map(|x| (x, reqs[&x]))
            .collect()
    }

    /// A collective call.
    #[allow(clippy::too_many_arguments)]
    fn collective<S: OpSink<Ref = R>>(
        &mut self,
        r: usize,
        line: &Line<'_>,
        a: &Args<'_>,
        ci: usize,
        members: Option<Arc<[u32]>>,
        calls: &mut RankCalls<R>,
        s: &mut S,
    ) -> Result<(), String> {
        let n = members.as_ref().map_or(self.ranks.len() as u32, |m| m.len() as u32);
        let me = a.comm(line.args.len() - 1).rank as usize;
        let action = match line.name {
            "MPI_Barrier" => Action::Barrier,
            "MPI_Bcast" => Action::Bcast {
                bytes: a.bytes(1, 2)?,
                root: a.int(3),
                elem: a.size(2),
            },
            "MPI_Reduce" => Action::Reduce {
                bytes: a.bytes(2, 3)?,
                comp: 0.0,
                root: a.int(5),
                elem: a.size(3),
            },
            "MPI_Allreduce" => Action::Allreduce {
                bytes: a.bytes(2, 3)?,
                comp: 0.0,
                elem: a.size(3),
            },
            "MPI_Scan" | "MPI_Exscan" => Action::Scan {
                exclusive: line.name == "MPI_Exscan",
                bytes: a.bytes(2, 3)?,
                comp: 0.0,
            },
            "MPI_Alltoall" => Action::Alltoall {
                sbytes: if in_place(a.ptr(0)) {
                    a.bytes(4, 5)?
                } else {
                    a.bytes(1, 2)?
                },
            },
            "MPI_Allgather" | "MPI_Gather" => {
                let sbytes = if in_place(a.ptr(0)) {
                    a.bytes(4, 5)?
                } else {
                    a.bytes(1, 2)?
                };
                let all = line.name == "MPI_Allgather";
                Action::Gather {
                    all,
                    sbytes,
                    root: if all { 0 } else { a.int(6) },
                    elem: if in_place(a.ptr(0)) { a.size(5) } else { a.size(2) },
                }
            }
            "MPI_Scatter" => Action::Scatter {
                rbytes: if in_place(a.ptr(3)) {
                    a.bytes(1, 2)?
                } else {
                    a.bytes(4, 5)?
                },
                root: a.int(6),
            },
            "MPI_Alltoallv" => {
                let recv = a.byte_counts(5, 7, n)?;
                let send = if in_place(a.ptr(0)) {
                    recv.clone()
                } else {
                    a.byte_counts(1, 3, n)?
                };
                Action::Alltoallv {
                    send: send.into_boxed_slice(),
                    recv: recv.into_boxed_slice(),
                }
            }
            "MPI_Allgatherv" | "MPI_Gatherv" => {
                let all = line.name == "MPI_Allgatherv";
                let root = if all { 0 } else { a.int(7) };
                let is_root = all || root == me as i64;
                // Only the root's (and allgatherv's) receive counts mean anything.
                let recv = if is_root {
                    a.byte_counts(4, 6, n)?
                } else {
                    vec![0; n as usize]
                };
                let sbytes = if in_place(a.ptr(0)) && is_root {
                    recv.get(me).copied().unwrap_or(0)
                } else {
                    a.bytes(1, 2)?
                };
                Action::Gatherv(Box::new(crate::tit::actions::Gatherv {
                    all,
                    sbytes,
                    recv,
                    root,
                }))
            }
            "MPI_Scatterv" => {
                let root = a.int(7);
                let is_root = root == me as i64;
                let send = if is_root {
                    a.byte_counts(1, 3, n)?
                } else {
                    vec![0; n as usize]
                };
                let rbytes = if in_place(a.ptr(4)) && is_root {
                    send.get(me).copied().unwrap_or(0)
                } else {
                    a.bytes(5, 6)?
                };
                Action::Scatterv(Box::new(crate::tit::actions::Scatterv { send, rbytes, root }))
            }
            "MPI_Reduce_scatter" => Action::ReduceScatter {
                recv: a.byte_counts(2, 3, n)?,
                comp: 0.0,
            },
            other => return Err(format!("{other} is not a call simpi models")),
        };
        let (mut dropped, mut sync_as_standard) = (0, 0);
        let cx = crate::tit::program::Ctx {
            p: self.ranks.len() as u32,
            comms: &self.comms,
            opts: self.opts,
            dropped: &mut dropped,
            sync_as_standard: &mut sync_as_standard,
        };
        let (spec, _) = crate::tit::program::TitRank::<R>::coll_spec(&cx, r as u32, ci, members.as_deref(), action)?;
        let comm = CollComm {
            index: ci,
            members: members.as_deref(),
            context: CommTable::coll_context(ci),
        };
        let alg = (self.opts.choose)(&spec);
        calls.collective(s, comm, spec, alg, self.opts.choose).map_err(msg)
    }

    /// Reads rank `r`'s lines up to its next call that communicates and makes it.
    fn advance<S: OpSink<Ref = R>>(&mut self, r: usize, calls: &mut RankCalls<R>, s: &mut S) -> Result<Step, Error> {
        let p = self.ranks.len() as u32;
        loop {
            let st = &mut self.ranks[r];
            // The text borrows the rank's buffer: the line is parsed from a copy.
            let owned = match st.lines.next() {
                Ok(Some(t)) => t.to_string(),
                Ok(None) => {
                    st.ended = true;
                    return Ok(Step::Ended);
                }
                Err(e) => {
                    st.ended = true;
                    return Err(Error::Input {
                        file: e.file,
                        line: e.line,
                        msg: e.msg,
                    });
                }
            };
            let line_no = st.lines.line;
            let (line, role) = read_line(&owned).map_err(|m| self.located(r, m))?;
            let (bound, _) = track(&mut self.ranks[r].handles, &line, r as u32, p).map_err(|m| self.located(r, m))?;
            s.at_line(line_no);
            match role {
                Role::Init => {
                    self.ranks[r].mark = line.end;
                    return Ok(Step::Called);
                }
                Role::Local | Role::LocalComm(_) => {
                    if let (Role::LocalComm(_), Some(b), Some(Arg::Comm(c))) = (role, bound.first(), line.args.first())
                    {
                        self.view(r as u32, b, c).map_err(|m| self.located(r, m))?;
                    }
                }
                Role::Finalize => {
                    let before = s.created();
                    // liballprof 1 stamps MPI_Finalize after its own clock
                    // synchronisation: the span up to it is the tracer's, not the
                    // program's (the last computation's end is unknown; none is made).
                    let st = &mut self.ranks[r];
                    let t = if st.lines.finalize_sync {
                        st.carry = 0;
                        st.mark.unwrap_or(0)
                    } else {
                        line.start.unwrap_or(0)
                    };
                    self.compute_until(r, t, calls, s).map_err(|m| self.located(r, m))?;
                    self.record(r, "compute", before, s.created());
                    self.ranks[r].mark = None;
                    return Ok(Step::Called);
                }
                Role::Modelled(_) => {
                    let before = s.created();
                    let t = line.start.unwrap_or(0);
                    self.compute_until(r, t, calls, s).map_err(|m| self.located(r, m))?;
                    let mid = s.created();
                    self.record(r, "compute", before, mid);
                    self.make(r, &line, &bound, calls, s).map_err(|m| self.located(r, m))?;
                    let st = &mut self.ranks[r];
                    if st.mark.is_some() {
                        st.mark = line.end.max(st.mark);
                    }
                    self.record(r, line.name, mid, s.created());
                    return Ok(Step::Called);
                }
            }
        }
    }
}

impl<R: Copy + PartialEq + std::fmt::Debug> Program<R> for AllprofProgram<'_, R> {
    fn step<S: OpSink<Ref = R>>(&mut self, rank: u32, calls: &mut RankCalls<R>, sink: &mut S) -> Result<Step, Error> {
        let r = rank as usize;
        if self.ranks[r].ended {
            return Ok(Step::Ended);
        }
        self.advance(r, calls, sink)
    }

    fn line(&self, rank: u32) -> u32 {
        self.ranks[rank as usize].lines.line
    }

    fn file(&self, rank: u32) -> Option<String> {
        Some(self.ranks[rank as usize].lines.path().display().to_string())
    }
}

/// The communicators the ranks' creation calls make: a first pass over every file,
/// which also checks every line.
pub(crate) fn scan_comms(files: &[PathBuf]) -> Result<CommTable, TitError> {
    let p = files.len() as u32;
    let mut creations = Vec::with_capacity(files.len());
    for (r, f) in files.iter().enumerate() {
        let mut lines = Lines::new(f.clone());
        let mut handles = Handles::default();
        let mut found = Vec::new();
        while let Some(text) = lines.next()? {
            let text = text.to_string();
            let ln = lines.line;
            let at = |m: String| TitError {
                file: f.display().to_string(),
                line: ln,
                msg: m,
            };
            let (line, _) = read_line(&text).map_err(at)?;
            let (_, created) = track(&mut handles, &line, r as u32, p).map_err(at)?;
            if let Some(c) = created {
                found.push((c, ln));
            }
        }
        creations.push(found);
    }
    CommTable::build(p, &creations).map_err(|(r, line, msg)| TitError {
        file: files[r as usize].display().to_string(),
        line,
        msg,
    })
}
