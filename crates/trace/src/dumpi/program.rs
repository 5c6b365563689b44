//! A DUMPI trace as a rank program: each step reads a rank's records up to its next
//! MPI call that simpi models and makes it through [`RankCalls`].
//!
//! * Point-to-point calls (MPI_Send and its modes, MPI_Isend..., MPI_Recv, MPI_Irecv,
//!   MPI_Sendrecv(_replace), persistent requests and MPI_Start(all)) take their sizes
//!   from the count and the datatype's size in the file. A blocking receive that
//!   recorded its status takes the sender, tag and size from it, as `simpi trace` does.
//!   Partners are ranks of the call's communicator; a negative destination (and a
//!   source below -1) is MPI_PROC_NULL: nothing moves.
//! * Requests are named by the rank's handles. MPI_Wait(all) completes what it names;
//!   MPI_Waitany and MPI_Waitsome complete the ones the call returned; a test that
//!   returned completions waits for them and then costs a test (the default
//!   `dumpi.conf` records only such tests); a test that did not costs SMPI's test.
//!   MPI_Iprobe costs a test.
//! * Collectives are expanded by the chosen algorithm on their communicator; reductions
//!   compute nothing (as `simpi trace` writes them).
//! * Computation is the wall-clock time outside modelled calls (CPU time if the wall
//!   clock was not recorded): from one call's exit to the next's entry, taken at
//!   [`REFERENCE_FLOPS`] flop/s and run at the host's speed; gaps under [`MIN_COMPUTE`]
//!   add up. Calls that change nothing simpi models (MPI_Comm_rank, MPI_Wtime, datatype
//!   and group calls...) stay computation, as they do in `simpi trace`'s traces.
//! * Everything else (one-sided, MPI-IO, intercommunicators, cancellation...) is
//!   refused by name, with the file and the record's byte offset.

use super::comms::{Tracker, SELF};
use super::record::{BinReader, Record, Span};
use crate::otf2::{MIN_COMPUTE, REFERENCE_FLOPS};
use crate::tit::TitOptions;
use crate::trace_program::{msg, seconds_to_ps};
use simpi_kernel::MixHashMap;
use simpi_mpi::calls::{CollComm, RankCalls, Req};
use simpi_mpi::coll::{CollSpec, Collective};
use simpi_mpi::comm::CommTable;
use simpi_mpi::live::{Program, Step};
use simpi_mpi::sink::OpSink;
use simpi_mpi::{CallRecord, Error, ANY_SOURCE, ANY_TAG};
use std::path::PathBuf;
use std::sync::Arc;

/// What the replay does with a call.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Modelled: its time is MPI time.
    Call,
    /// Changes nothing simpi models: its time stays computation.
    Local,
    /// Not supported: the trace is refused.
    Refused,
}

/// The role of the call `name`.
pub(crate) fn role(name: &str) -> Role {
    const CALLS: &[&str] = &[
        "MPI_Init",
        "MPI_Init_thread",
        "MPI_Finalize",
        "MPI_Send",
        "MPI_Bsend",
        "MPI_Ssend",
        "MPI_Rsend",
        "MPI_Isend",
        "MPI_Ibsend",
        "MPI_Issend",
        "MPI_Irsend",
        "MPI_Recv",
        "MPI_Irecv",
        "MPI_Sendrecv",
        "MPI_Sendrecv_replace",
        "MPI_Send_init",
        "MPI_Bsend_init",
        "MPI_Ssend_init",
        "MPI_Rsend_init",
        "MPI_Recv_init",
        "MPI_Start",
        "MPI_Startall",
        "MPI_Request_free",
        "MPI_Wait",
        "MPI_Waitall",
        "MPI_Waitany",
        "MPI_Waitsome",
        "MPI_Test",
        "MPI_Testany",
        "MPI_Testall",
        "MPI_Testsome",
        "MPI_Iprobe",
        "MPI_Probe",
        "MPI_Barrier",
        "MPI_Bcast",
        "MPI_Gather",
        "MPI_Gatherv",
        "MPI_Scatter",
        "MPI_Scatterv",
        "MPI_Allgather",
        "MPI_Allgatherv",
        "MPI_Alltoall",
        "MPI_Alltoallv",
        "MPI_Reduce",
        "MPI_Allreduce",
        "MPI_Reduce_scatter",
        "MPI_Scan",
        "MPI_Exscan",
        "MPI_Comm_dup",
        "MPI_Comm_split",
        "MPI_Comm_create",
    ];
    const LOCAL: &[&str] = &[
        "function entry",
        "function exit",
        "MPI_Get_count",
        "MPI_Get_elements",
        "MPI_Buffer_attach",
        "MPI_Buffer_detach",
        "MPI_Address",
        "MPI_Get_address",
        "MPI_Pack",
        "MPI_Unpack",
        "MPI_Pack_size",
        "MPI_Pack_external",
        "MPI_Pack_external_size",
        "MPI_Unpack_external",
        "MPI_Op_create",
        "MPI_Op_free",
        "MPI_Comm_size",
        "MPI_Comm_rank",
        "MPI_Comm_compare",
        "MPI_Comm_test_inter",
        "MPI_Comm_group",
        "MPI_Comm_free",
        "MPI_Comm_get_name",
        "MPI_Comm_set_name",
        "MPI_Topo_test",
        "MPI_Dims_create",
        "MPI_Cartdim_get",
        "MPI_Cart_get",
        "MPI_Cart_rank",
        "MPI_Cart_coords",
        "MPI_Cart_shift",
        "MPI_Graphdims_get",
        "MPI_Graph_get",
        "MPI_Graph_neighbors_count",
        "MPI_Graph_neighbors",
        "MPI_Get_processor_name",
        "MPI_Get_version",
        "MPI_Error_string",
        "MPI_Error_class",
        "MPI_Wtime",
        "MPI_Wtick",
        "MPI_Initialized",
        "MPI_Finalized",
        "MPI_Is_thread_main",
        "MPI_Query_thread",
        "MPI_Alloc_mem",
        "MPI_Free_mem",
        "MPI_Test_cancelled",
        "MPI_Status_set_cancelled",
        "MPI_Status_set_elements",
        "MPI_Request_get_status",
        "MPI_Pcontrol",
    ];
    const LOCAL_PREFIXES: &[&str] = &[
        "MPI_Type_",
        "MPI_Group_",
        "MPI_Keyval_",
        "MPI_Attr_",
        "MPI_Errhandler_",
        "MPI_Info_",
        "MPI_Add_error_",
    ];
    let attr = |n: &str| {
        ["MPI_Comm_", "MPI_Win_", "MPI_File_"].iter().any(|p| n.starts_with(p))
            && ["_attr", "_keyval", "_errhandler"].iter().any(|s| n.ends_with(s))
            && !n.starts_with("MPI_File_call")
            && !n.starts_with("MPI_Win_call")
    };
    if CALLS.contains(&name) {
        Role::Call
    } else if LOCAL.contains(&name) || LOCAL_PREFIXES.iter().any(|p| name.starts_with(p)) || attr(name) {
        Role::Local
    } else {
        Role::Refused
    }
}

/// A persistent request's call, started by MPI_Start.
#[derive(Copy, Clone, Debug)]
struct Persistent {
    send: bool,
    /// World rank of the partner (none: MPI_PROC_NULL).
    peer: Option<u32>,
    tag: u32,
    bytes: u64,
    ctx: u32,
}

/// One rank's replay state.
struct RankState<R> {
    reader: Option<BinReader>,
    tracker: Tracker,
    /// Outstanding requests by handle.
    reqs: MixHashMap<i64, Req<R>>,
    /// Persistent requests by handle.
    persistent: MixHashMap<i64, Persistent>,
    /// Up to when computation is accounted (ns); none before the first call ends.
    mark: Option<u64>,
    /// Computation not made yet, in ns (shorter than [`MIN_COMPUTE`]).
    carry: u64,
    /// A call read but not made yet (a computation went before it).
    pending: Option<Record>,
    /// Records read.
    pos: u64,
    ended: bool,
}

/// A whole DUMPI trace as a [`Program`].
pub struct DumpiProgram<'o, R> {
    files: Vec<PathBuf>,
    shown: Vec<String>,
    ranks: Vec<RankState<R>>,
    comms: Arc<CommTable>,
    opts: &'o TitOptions<'o>,
    calls: Vec<CallRecord>,
    compute_name: Arc<str>,
    /// Completions of requests the rank never posted (ignored).
    unknown: u64,
    /// Synchronous sends taken as standard ones (a whole schedule).
    sync_as_standard: u64,
    /// Requests posted under a handle whose earlier request was still outstanding.
    reused_requests: u64,
}

/// A communicator as a rank sees it: its index, its members (none: the world).
type View = (usize, Option<Arc<[u32]>>);

impl<'o, R: Copy + PartialEq + std::fmt::Debug> DumpiProgram<'o, R> {
    /// The program of the rank files `files` (rank order) with communicators `comms`.
    pub(crate) fn new(files: Vec<PathBuf>, comms: Arc<CommTable>, opts: &'o TitOptions<'o>) -> Self {
        let p = files.len() as u32;
        DumpiProgram {
            shown: files.iter().map(|f| f.display().to_string()).collect(),
            ranks: (0..p)
                .map(|r| RankState {
                    reader: None,
                    tracker: Tracker::new(p, r),
                    reqs: MixHashMap::default(),
                    persistent: MixHashMap::default(),
                    mark: None,
                    carry: 0,
                    pending: None,
                    pos: 0,
                    ended: false,
                })
                .collect(),
            files,
            comms,
            opts,
            calls: Vec::new(),
            compute_name: Arc::from("compute"),
            unknown: 0,
            sync_as_standard: 0,
            reused_requests: 0,
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

    /// Things the user should know, once the trace has run.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.unknown > 0 {
            w.push(format!(
                "{} completion(s) named requests the trace never posted and were ignored",
                self.unknown
            ));
        }
        if self.sync_as_standard > 0 {
            w.push(crate::trace_program::sync_as_standard_warning(self.sync_as_standard));
        }
        if self.reused_requests > 0 {
            w.push(crate::trace_program::reused_requests_warning(self.reused_requests));
        }
        w
    }

    /// The calls recorded (empty unless [`TitOptions::calls`]).
    pub fn take_calls(&mut self) -> Vec<CallRecord> {
        std::mem::take(&mut self.calls)
    }

    /// Drops rank `r`'s state (a schedule being built has passed it).
    pub(crate) fn done_with(&mut self, r: usize) {
        let st = &mut self.ranks[r];
        st.reader = None;
        st.reqs = MixHashMap::default();
        st.persistent = MixHashMap::default();
        st.ended = true;
    }

    /// An input error of rank `r`: `msg` already names the file and where.
    fn located(&self, r: usize, msg: String) -> Error {
        let file = &self.shown[r];
        let msg = msg
            .strip_prefix(file.as_str())
            .and_then(|m| m.strip_prefix(": "))
            .map(str::to_string)
            .unwrap_or(msg);
        Error::Input {
            file: file.clone(),
            line: 0,
            msg,
        }
    }

    /// `m` at record `rec` of rank `r`.
    fn at(&self, r: usize, rec: &Record, m: String) -> Error {
        Error::Input {
            file: self.shown[r].clone(),
            line: 0,
            msg: format!(
                "record {} (byte {}, {}): {m}",
                self.ranks[r].pos,
                rec.offset,
                rec.name()
            ),
        }
    }

    /// The next record of rank `r`.
    fn next_record(&mut self, r: usize) -> Result<Option<Record>, Error> {
        if self.ranks[r].reader.is_none() {
            let rd = BinReader::open(&self.files[r]).map_err(|m| self.located(r, m))?;
            self.ranks[r].reader = Some(rd);
        }
        let rd = self.ranks[r].reader.as_mut().expect("opened");
        match rd.next_record() {
            Ok(rec) => {
                self.ranks[r].pos = rd.records();
                Ok(rec)
            }
            Err(m) => Err(self.located(r, m)),
        }
    }

    /// Makes the computation since the mark up to `t` (ns), once it adds up to
    /// [`MIN_COMPUTE`]; returns whether it made one.
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
        let min = (MIN_COMPUTE * 1e9).ceil() as u64;
        if st.carry == 0 || st.carry < min {
            return Ok(false);
        }
        let seconds = st.carry as f64 * 1e-9;
        st.carry = 0;
        let ps = seconds_to_ps(seconds * REFERENCE_FLOPS / (self.opts.speed)(r as u32))?;
        calls.compute(s, ps).map_err(msg)?;
        Ok(true)
    }

    /// Communicator handle `h` as rank `r` sees it.
    fn view(&self, r: usize, h: i64) -> Result<View, String> {
        let id = self.ranks[r].tracker.id(h)?;
        if id == SELF {
            return Ok((0, Some(Arc::from([r as u32]))));
        }
        let (index, comm) = self
            .comms
            .get(id)
            .ok_or_else(|| format!("communicator {h} is not one this rank is a member of"))?;
        let members = (index != 0).then(|| Arc::from(&comm.members[..]));
        Ok((index, members))
    }

    /// World rank of rank `p` of communicator `v`.
    fn world(&self, v: &View, p: i64) -> Result<u32, String> {
        let n = v.1.as_ref().map_or(self.ranks.len(), |m| m.len());
        if p < 0 || p as usize >= n {
            return Err(format!("rank {p} is out of range: the communicator has {n} ranks"));
        }
        Ok(v.1.as_ref().map_or(p as u32, |m| m[p as usize]))
    }

    /// Bytes of `count` elements of datatype `dt` on rank `r`.
    fn bytes(&self, r: usize, count: i64, dt: i64) -> Result<u64, String> {
        if count < 0 {
            return Err(format!("negative count {count}"));
        }
        if count == 0 {
            return Ok(0);
        }
        let size = self.ranks[r]
            .reader
            .as_ref()
            .and_then(|rd| rd.type_size(dt))
            .ok_or_else(|| format!("datatype {dt} has no recorded size"))?;
        Ok(count as u64 * size)
    }

    /// A tag (`-1`: any).
    fn tag(t: i64) -> Result<u32, String> {
        match t {
            -1 => Ok(ANY_TAG),
            t if t < 0 => Err(format!("invalid tag {t}")),
            t => Ok(t as u32),
        }
    }

    /// A point-to-point call's partner: its world rank (`ANY_SOURCE` for a receive
    /// from any), none for MPI_PROC_NULL; and the context.
    fn partner(&self, r: usize, peer: i64, comm: i64, recv: bool) -> Result<(Option<u32>, u32), String> {
        let v = self.view(r, comm)?;
        let ctx = CommTable::p2p_context(v.0);
        if recv && peer == -1 {
            return Ok((Some(ANY_SOURCE), ctx));
        }
        if peer < 0 {
            return Ok((None, ctx));
        }
        Ok((Some(self.world(&v, peer)?), ctx))
    }

    /// Completes the requests named `handles` (unknown ones are ignored).
    fn complete(&mut self, r: usize, handles: &[i64], calls: &mut RankCalls<R>, s: &mut impl OpSink<Ref = R>) {
        let mut done = Vec::with_capacity(handles.len());
        for h in handles {
            match self.ranks[r].reqs.remove(h) {
                Some(q) => {
                    if let Some(t) = q.target {
                        s.forget_target(t);
                    }
                    done.push(q);
                }
                None if *h > 1 && !self.ranks[r].persistent.contains_key(h) => self.unknown += 1,
                None => {}
            }
        }
        if !done.is_empty() {
            calls.wait(&done);
        }
    }

    /// Makes the call of `rec`.
    fn make<S: OpSink<Ref = R>>(
        &mut self,
        r: usize,
        rec: &Record,
        calls: &mut RankCalls<R>,
        s: &mut S,
    ) -> Result<(), String> {
        let i = |k: usize| rec.int(k);
        let test_cost = seconds_to_ps(self.opts.test_cost)?;
        match rec.name() {
            "MPI_Send" | "MPI_Bsend" | "MPI_Ssend" | "MPI_Rsend" => {
                let bytes = self.bytes(r, i(0)?, i(1)?)?;
                let tag = Self::tag(i(3)?)?;
                if let (Some(to), ctx) = self.partner(r, i(2)?, i(4)?, false)? {
                    let sync = rec.name() == "MPI_Ssend";
                    let (_, standard) = calls.send_traced(s, (to, tag, bytes, ctx), sync).map_err(msg)?;
                    self.sync_as_standard += u64::from(standard);
                }
            }
            "MPI_Isend" | "MPI_Ibsend" | "MPI_Issend" | "MPI_Irsend" | "MPI_Irecv" => {
                let recv = rec.name() == "MPI_Irecv";
                let bytes = self.bytes(r, i(0)?, i(1)?)?;
                let tag = Self::tag(i(3)?)?;
                if let (Some(peer), ctx) = self.partner(r, i(2)?, i(4)?, recv)? {
                    let q = if recv {
                        calls.irecv(s, peer, tag, bytes, ctx).map_err(msg)?
                    } else {
                        let sync = rec.name() == "MPI_Issend";
                        let (q, standard) = calls.isend_traced(s, (peer, tag, bytes, ctx), sync).map_err(msg)?;
                        self.sync_as_standard += u64::from(standard);
                        q
                    };
                    if self.ranks[r].reqs.insert(i(5)?, q).is_some() {
                        self.reused_requests += 1;
                    }
                }
            }
            "MPI_Recv" => {
                let mut bytes = self.bytes(r, i(0)?, i(1)?)?;
                let mut tag = Self::tag(i(3)?)?;
                let (mut from, ctx) = self.partner(r, i(2)?, i(4)?, true)?;
                // What the receive got, if its status was recorded.
                if let (Some(st), Some(_)) = (rec.statuses().first(), from) {
                    if st.source >= 0 {
                        let v = self.view(r, i(4)?)?;
                        from = Some(self.world(&v, st.source as i64)?);
                        if st.tag >= 0 {
                            tag = st.tag as u32;
                        }
                        if st.bytes >= 0 {
                            bytes = st.bytes as u64;
                        }
                    }
                }
                if let Some(from) = from {
                    calls.recv(s, from, tag, bytes, ctx).map_err(msg)?;
                }
            }
            "MPI_Sendrecv" | "MPI_Sendrecv_replace" => {
                // (count, type, dest, tag) for the send and the receive, and the communicator.
                let (sc, st, dest, stag, rc, rt, src, rtag, comm) = if rec.name() == "MPI_Sendrecv" {
                    (i(0)?, i(1)?, i(2)?, i(3)?, i(4)?, i(5)?, i(6)?, i(7)?, i(8)?)
                } else {
                    (i(0)?, i(1)?, i(2)?, i(3)?, i(0)?, i(1)?, i(4)?, i(5)?, i(6)?)
                };
                let (to, ctx) = self.partner(r, dest, comm, false)?;
                let (from, _) = self.partner(r, src, comm, true)?;
                let send = match to {
                    Some(to) => Some((to, Self::tag(stag)?, self.bytes(r, sc, st)?)),
                    None => None,
                };
                let recv = match from {
                    Some(from) => Some((from, Self::tag(rtag)?, self.bytes(r, rc, rt)?)),
                    None => None,
                };
                let me = r as u32;
                // With itself on both sides it is a copy: nothing moves.
                if !(to == Some(me) && from == Some(me)) {
                    calls.sendrecv(s, send, recv, ctx).map_err(msg)?;
                }
            }
            "MPI_Send_init" | "MPI_Bsend_init" | "MPI_Ssend_init" | "MPI_Rsend_init" | "MPI_Recv_init" => {
                let send = rec.name() != "MPI_Recv_init";
                let bytes = self.bytes(r, i(0)?, i(1)?)?;
                let tag = Self::tag(i(3)?)?;
                let (peer, ctx) = self.partner(r, i(2)?, i(4)?, !send)?;
                let p = Persistent {
                    send,
                    peer,
                    tag,
                    bytes,
                    ctx,
                };
                self.ranks[r].persistent.insert(i(5)?, p);
            }
            "MPI_Start" | "MPI_Startall" => {
                let handles: Vec<i64> = if rec.name() == "MPI_Start" {
                    vec![i(0)?]
                } else {
                    rec.ints(1).iter().map(|&h| h as i64).collect()
                };
                for h in handles {
                    let p = *self.ranks[r]
                        .persistent
                        .get(&h)
                        .ok_or_else(|| format!("starts request {h}, which no MPI_*_init made"))?;
                    let Some(peer) = p.peer else { continue };
                    let q = if p.send {
                        calls.isend(s, peer, p.tag, p.bytes, p.ctx)
                    } else {
                        calls.irecv(s, peer, p.tag, p.bytes, p.ctx)
                    }
                    .map_err(msg)?;
                    if self.ranks[r].reqs.insert(h, q).is_some() {
                        self.reused_requests += 1;
                    }
                }
            }
            "MPI_Request_free" => {
                self.ranks[r].persistent.remove(&i(0)?);
            }
            "MPI_Wait" => self.complete(r, &[i(0)?], calls, s),
            "MPI_Waitall" => {
                let hs: Vec<i64> = rec.ints(1).iter().map(|&h| h as i64).collect();
                self.complete(r, &hs, calls, s);
            }
            "MPI_Waitany" | "MPI_Testany" => {
                let reqs = rec.ints(1);
                let flag = rec.name() == "MPI_Waitany" || i(3)? != 0;
                let k = i(2)?;
                if flag && k >= 0 && (k as usize) < reqs.len() {
                    self.complete(r, &[reqs[k as usize] as i64], calls, s);
                }
                if rec.name() == "MPI_Testany" {
                    calls.compute(s, test_cost).map_err(msg)?;
                }
            }
            "MPI_Waitsome" | "MPI_Testsome" => {
                let reqs = rec.ints(1);
                let mut hs = Vec::new();
                for &k in rec.ints(3) {
                    let h = usize::try_from(k)
                        .ok()
                        .and_then(|k| reqs.get(k))
                        .ok_or_else(|| format!("index {k} is not one of the {} requests", reqs.len()))?;
                    hs.push(*h as i64);
                }
                self.complete(r, &hs, calls, s);
                if rec.name() == "MPI_Testsome" {
                    calls.compute(s, test_cost).map_err(msg)?;
                }
            }
            "MPI_Testall" => {
                if i(2)? != 0 {
                    let hs: Vec<i64> = rec.ints(1).iter().map(|&h| h as i64).collect();
                    self.complete(r, &hs, calls, s);
                }
                calls.compute(s, test_cost).map_err(msg)?;
            }
            "MPI_Test" => {
                let h = i(0)?;
                if i(1)? != 0 {
                    self.complete(r, &[h], calls, s);
                    calls.compute(s, test_cost).map_err(msg)?;
                } else if let Some(q) = self.ranks[r].reqs.get_mut(&h) {
                    calls.test(s, q, test_cost).map_err(msg)?;
                } else {
                    calls.compute(s, test_cost).map_err(msg)?;
                }
            }
            "MPI_Iprobe" => calls.compute(s, test_cost).map_err(msg)?,
            "MPI_Comm_dup" | "MPI_Comm_split" | "MPI_Comm_create" => {
                self.ranks[r].tracker.follow(rec)?;
            }
            "MPI_Init" | "MPI_Init_thread" | "MPI_Finalize" | "MPI_Probe" => {}
            _ => self.collective(r, rec, calls, s)?,
        }
        Ok(())
    }

    /// A blocking collective.
    fn collective<S: OpSink<Ref = R>>(
        &mut self,
        r: usize,
        rec: &Record,
        calls: &mut RankCalls<R>,
        s: &mut S,
    ) -> Result<(), String> {
        let i = |k: usize| rec.int(k);
        let name = rec.name();
        // Index of the communicator field.
        let comm_at = match name {
            "MPI_Barrier" => 0,
            "MPI_Bcast" | "MPI_Allreduce" | "MPI_Scan" | "MPI_Exscan" => 3,
            "MPI_Reduce" | "MPI_Allgather" | "MPI_Alltoall" | "MPI_Gather" | "MPI_Scatter" | "MPI_Reduce_scatter" => 4,
            "MPI_Gatherv" | "MPI_Allgatherv" => 5,
            "MPI_Scatterv" => 6,
            "MPI_Alltoallv" => 7,
            other => return Err(format!("{other} is not supported by simpi")),
        };
        let comm_at = if name == "MPI_Allgatherv" { 6 } else { comm_at };
        let v = self.view(r, i(comm_at)?)?;
        let me = r as u32;
        let (n, pos) = match &v.1 {
            Some(m) => (
                m.len() as u32,
                m.iter()
                    .position(|&w| w == me)
                    .ok_or_else(|| format!("rank {me} calls {name} on a communicator it is not in"))?
                    as u32,
            ),
            None => (self.ranks.len() as u32, me),
        };
        let root_of = |k: usize| -> Result<u32, String> {
            let root = rec.int(k)?;
            if root < 0 || root >= n as i64 {
                return Err(format!("root {root} is out of range: the communicator has {n} ranks"));
            }
            Ok(root as u32)
        };
        let sized = |counts: &[i32], dt: i64| -> Result<Vec<u64>, String> {
            if counts.len() != n as usize {
                return Err(format!("{} counts for a communicator of {n} ranks", counts.len()));
            }
            counts.iter().map(|&c| self.bytes(r, c as i64, dt)).collect()
        };
        let elem = |dt: i64| self.bytes(r, 1, dt).unwrap_or(1).max(1);
        let spec = |coll, bytes| CollSpec::new(coll, n, pos, bytes);
        let sp = match name {
            "MPI_Barrier" => spec(Collective::Barrier, 0),
            "MPI_Bcast" => CollSpec {
                root: root_of(2)?,
                elem: elem(i(1)?),
                ..spec(Collective::Bcast, self.bytes(r, i(0)?, i(1)?)?)
            },
            "MPI_Reduce" => CollSpec {
                root: root_of(3)?,
                elem: elem(i(1)?),
                ..spec(Collective::Reduce, self.bytes(r, i(0)?, i(1)?)?)
            },
            "MPI_Allreduce" | "MPI_Scan" | "MPI_Exscan" => {
                let coll = match name {
                    "MPI_Allreduce" => Collective::Allreduce,
                    "MPI_Scan" => Collective::Scan,
                    _ => Collective::Exscan,
                };
                CollSpec {
                    elem: elem(i(1)?),
                    ..spec(coll, self.bytes(r, i(0)?, i(1)?)?)
                }
            }
            // One rank's block: what each receives (the send side may be MPI_IN_PLACE).
            "MPI_Allgather" | "MPI_Alltoall" => {
                let coll = if name == "MPI_Allgather" {
                    Collective::Allgather
                } else {
                    Collective::Alltoall
                };
                CollSpec {
                    elem: elem(i(3)?),
                    ..spec(coll, self.bytes(r, i(2)?, i(3)?)?)
                }
            }
            "MPI_Gather" | "MPI_Scatter" => {
                let root = root_of(3)?;
                // Non-roots: their own block; the root: its block of the others'.
                let bytes = if rec.has(5) && rec.has(6) {
                    self.bytes(r, i(5)?, i(6)?)?
                } else {
                    self.bytes(r, i(1)?, i(2)?)?
                };
                let coll = if name == "MPI_Gather" {
                    Collective::Gather
                } else {
                    Collective::Scatter
                };
                CollSpec {
                    root,
                    ..spec(coll, bytes)
                }
            }
            "MPI_Gatherv" => {
                let root = root_of(4)?;
                let own = self.bytes(r, i(2)?, i(3)?)?;
                let mut counts = if rec.has(6) {
                    sized(rec.ints(6), i(8)?)?
                } else {
                    vec![0; n as usize]
                };
                // Non-roots know only their own contribution.
                if !rec.has(6) {
                    counts[pos as usize] = own;
                }
                CollSpec {
                    root,
                    counts,
                    ..spec(Collective::Gatherv, 0)
                }
            }
            "MPI_Scatterv" => {
                let root = root_of(5)?;
                let own = self.bytes(r, i(3)?, i(4)?)?;
                let mut counts = if rec.has(7) {
                    sized(rec.ints(7), i(2)?)?
                } else {
                    vec![0; n as usize]
                };
                if !rec.has(7) {
                    counts[pos as usize] = own;
                }
                CollSpec {
                    root,
                    counts,
                    ..spec(Collective::Scatterv, 0)
                }
            }
            "MPI_Allgatherv" => CollSpec {
                counts: sized(rec.ints(3), i(5)?)?,
                ..spec(Collective::Allgatherv, 0)
            },
            "MPI_Alltoallv" => CollSpec {
                send_counts: sized(rec.ints(1), i(3)?)?,
                recv_counts: sized(rec.ints(4), i(6)?)?,
                ..spec(Collective::Alltoallv, 0)
            },
            _ => CollSpec {
                counts: sized(rec.ints(1), i(2)?)?,
                ..spec(Collective::ReduceScatter, 0)
            },
        };
        // The world's members are not listed to the expansion: rank i is world rank i.
        let members = v.1.clone();
        let comm = CollComm {
            index: v.0,
            members: members.as_deref(),
            context: CommTable::coll_context(v.0),
        };
        let opts = self.opts;
        let choose = |sp: &CollSpec| (opts.choose)(sp);
        let alg = choose(&sp);
        calls.collective(s, comm, sp, alg, &choose).map_err(msg)
    }

    /// Reads rank `r`'s records up to its next modelled call and makes it.
    fn advance<S: OpSink<Ref = R>>(&mut self, r: usize, calls: &mut RankCalls<R>, s: &mut S) -> Result<Step, Error> {
        loop {
            let rec = match self.ranks[r].pending.take() {
                Some(rec) => rec,
                None => {
                    let Some(rec) = self.next_record(r)? else {
                        self.ranks[r].ended = true;
                        return Ok(Step::Ended);
                    };
                    s.at_line(self.ranks[r].pos.min(u32::MAX as u64) as u32);
                    // Communicator bookkeeping of local calls (creations are made below).
                    if matches!(
                        rec.name(),
                        "MPI_Comm_free" | "MPI_Comm_group" | "MPI_Group_incl" | "MPI_Group_excl" | "MPI_Group_free"
                    ) {
                        self.ranks[r].tracker.follow(&rec).map_err(|m| self.at(r, &rec, m))?;
                    }
                    match role(rec.name()) {
                        Role::Local => continue,
                        Role::Refused => {
                            let m = format!("{} is not supported by simpi", rec.name());
                            return Err(self.at(r, &rec, m));
                        }
                        Role::Call => {}
                    }
                    let span = rec.span().unwrap_or_default();
                    let before = s.created();
                    let made = self
                        .compute_until(r, span.start, calls, s)
                        .map_err(|m| self.at(r, &rec, m))?;
                    if made {
                        self.record(r, Arc::clone(&self.compute_name), before, s.created());
                        self.ranks[r].pending = Some(rec);
                        return Ok(Step::Called);
                    }
                    rec
                }
            };
            let span: Span = rec.span().unwrap_or_default();
            let before = s.created();
            self.make(r, &rec, calls, s).map_err(|m| self.at(r, &rec, m))?;
            let st = &mut self.ranks[r];
            if rec.span().is_some() {
                st.mark = Some(span.stop.max(span.start));
            }
            self.record(r, Arc::from(rec.name()), before, s.created());
            return Ok(Step::Called);
        }
    }

    /// Reads what the ranks have not reached and reports the first error, in rank order
    /// (a run that stopped early, because it deadlocked, would otherwise hide it).
    pub fn check_unread(&mut self) -> Result<(), Error> {
        for r in 0..self.ranks.len() {
            if self.ranks[r].ended {
                continue;
            }
            while let Some(rec) = self.next_record(r)? {
                if role(rec.name()) == Role::Refused {
                    let m = format!("{} is not supported by simpi", rec.name());
                    return Err(self.at(r, &rec, m));
                }
            }
            self.ranks[r].ended = true;
        }
        Ok(())
    }

    fn record(&mut self, r: usize, name: Arc<str>, first: u64, end: u64) {
        if self.opts.calls && end > first {
            self.calls.push(CallRecord {
                rank: r as u32,
                name,
                first,
                end,
            });
        }
    }
}

impl<R: Copy + PartialEq + std::fmt::Debug> Program<R> for DumpiProgram<'_, R> {
    fn step<S: OpSink<Ref = R>>(&mut self, rank: u32, calls: &mut RankCalls<R>, sink: &mut S) -> Result<Step, Error> {
        let r = rank as usize;
        if self.ranks[r].ended {
            return Ok(Step::Ended);
        }
        self.advance(r, calls, sink)
    }

    fn line(&self, rank: u32) -> u32 {
        self.ranks[rank as usize].pos.min(u32::MAX as u64) as u32
    }

    fn file(&self, rank: u32) -> Option<String> {
        Some(self.shown[rank as usize].clone())
    }
}
