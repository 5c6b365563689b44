//! Collective calls on intra-communicators, blocking and non-blocking: each rank
//! sends its contribution (packed with its datatype); the simulator times the chosen
//! algorithm and answers with the rank's result, which the rank spreads out with its
//! receive datatype (at once, or when the request completes).
//!
//! Every collective is one "prepare" function here, which checks the arguments and
//! says what to send and what to do with the answer; `both!` makes the blocking and
//! the non-blocking entry point of each.

use crate::client::{entry, Client, Comm, Deliver, Failure, Give, Pending, Typed};
use crate::op::{fold, UserOp};
use simpi_wire::{abi, Call, CollKind, Collective, Region};
use std::ffi::{c_int, c_void};
use std::sync::Arc;

fn in_place(p: *const c_void) -> bool {
    p as usize == abi::IN_PLACE
}

/// What a collective call sends besides its data.
struct Args {
    kind: CollKind,
    root: c_int,
    /// The reduction's operation (0 otherwise).
    op: usize,
    /// The predefined datatype a reduction computes on (MPI_BYTE otherwise).
    datatype: u64,
    /// Elements (reductions) or bytes (the others) of the call's unit.
    count: u64,
    /// Bytes per rank of the v-variants (sent, received).
    counts: (Vec<u64>, Vec<u64>),
}

impl Args {
    fn new(kind: CollKind, root: c_int, count: u64) -> Args {
        Args {
            kind,
            root,
            op: 0,
            datatype: abi::BYTE,
            count,
            counts: (Vec::new(), Vec::new()),
        }
    }
}

/// A checked collective call: where, what, and what to do with the rank's result.
pub(crate) struct Prepared {
    cm: Comm,
    args: Args,
    data: Give,
    /// Where the simulator may write the result itself (see [`place`]).
    recv_at: Option<Region>,
    /// A persistent collective's start: its request's and the start's numbers.
    persistent: Option<(u64, u64)>,
    finish: Deliver,
}

impl Prepared {
    /// The result may be written at `at` directly (when it has exactly `at.len`
    /// bytes: what `finish` would write there).
    fn landing(mut self, at: Option<Region>) -> Prepared {
        self.recv_at = at;
        self
    }
}

/// `t`'s elements at `buf` as a contribution: left in place for the simulator, which
/// reads it as it takes the call (the rank waits for it, or, non-blocking, must not
/// change the buffer before it completes), or packed. Results are written in place
/// while the rank waits for them ([`Client::region`]).
///
/// # Safety
/// `buf` holds the elements.
unsafe fn give(c: &Client, t: &Typed, buf: *const c_void) -> Result<Give, Failure> {
    c.give(t, buf, true)
}

fn prepared(
    cm: Comm,
    args: Args,
    data: impl Into<Give>,
    finish: impl Fn(Vec<u8>) -> Result<(), Failure> + 'static,
) -> Result<Prepared, Failure> {
    let inter_root = cm.remote.is_some() && (args.root == abi::ROOT || args.root == abi::PROC_NULL);
    if !inter_root && (args.root < 0 || args.root as u32 >= cm.peers()) {
        return Err((
            abi::err::ROOT,
            format!("root {} is not in {} (size {})", args.root, cm.name(), cm.peers()),
        ));
    }
    Ok(Prepared {
        cm,
        args,
        data: data.into(),
        recv_at: None,
        persistent: None,
        finish: Deliver::new(finish),
    })
}

fn call_of(p: &mut Prepared) -> Collective {
    let a = &mut p.args;
    Collective {
        kind: a.kind,
        comm: p.cm.index,
        root: a.root as u32,
        op: a.op as u64,
        datatype: a.datatype,
        count: a.count,
        send_counts: std::mem::take(&mut a.counts.0),
        recv_counts: std::mem::take(&mut a.counts.1),
        data: std::mem::take(&mut p.data.data),
        send_at: p.data.at,
        recv_at: p.recv_at,
        persistent: p.persistent,
    }
}

/// Makes the call and waits for the rank's result.
pub(crate) fn blocking(c: &mut Client, mut p: Prepared) -> Result<(), Failure> {
    let coll = call_of(&mut p);
    match c.call(Call::Collective(coll)).into_iter().next() {
        Some(m) if m.placed.is_some() => Ok(()),
        m => p.finish.give(m.map(|m| m.data).unwrap_or_default()),
    }
}

/// Starts the call; its request delivers the result when it completes.
pub(crate) unsafe fn nonblocking(c: &mut Client, mut p: Prepared, request: *mut usize) -> Result<(), Failure> {
    let coll = call_of(&mut p);
    let q = c.new_request(Pending::Coll(Arc::new(p.finish)));
    c.call_ahead(Call::ICollective { request: q, coll });
    *request = q as usize;
    Ok(())
}

/// How a persistent collective request makes its call at each MPI_Start (reading
/// the buffers then), with its number among the rank's persistent collectives on its
/// communicator and the number of starts so far: the calls match by these.
pub struct CollStarter {
    prepare: Box<Prepare>,
    id: u64,
    starts: std::sync::atomic::AtomicU64,
}

/// A collective's prepare function with its arguments bound.
type Prepare = dyn Fn(&mut Client) -> Result<Prepared, Failure>;

// SAFETY: as for `Deliver`: the rank's one thread calls MPI; the buffers are the
// program's, named by the call that made the request.
unsafe impl Send for CollStarter {}
// SAFETY: as for Send.
unsafe impl Sync for CollStarter {}

impl CollStarter {
    /// The starter of a persistent collective on the communicator of index `comm`
    /// that `prepare` prepares.
    fn new(c: &mut Client, comm: u32, prepare: Box<Prepare>) -> CollStarter {
        let next = c.persistent_colls.entry(comm).or_insert(0);
        let id = *next;
        *next += 1;
        CollStarter {
            prepare,
            id,
            starts: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Prepares the call as it is now: the next start.
    pub fn prepare(&self, c: &mut Client) -> Result<Prepared, Failure> {
        let mut p = (self.prepare)(c)?;
        let start = self.starts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        p.persistent = Some((self.id, start));
        Ok(p)
    }
}

impl std::fmt::Debug for CollStarter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CollStarter")
    }
}

/// Makes the blocking entry point `$b`, the non-blocking one `$nb` (the same
/// arguments and a request) and the persistent one `$init` (and an info) of
/// collective `$prep`.
macro_rules! both {
    ($b:ident $nb:ident $init:ident $prep:ident ($($arg:ident: $ty:ty),*)) => {
        both!($b $nb $prep ($($arg: $ty),*));

        /// # Safety
        /// As the MPI standard's; `request` is writable.
        #[no_mangle]
        pub unsafe extern "C" fn $init($($arg: $ty,)* _info: usize, request: *mut usize) -> c_int {
            entry(stringify!($init), |c| {
                // The arguments are checked now; each start reads the buffers.
                let index = $prep(c, $($arg),*)?.cm.index;
                let start = CollStarter::new(c, index, Box::new(move |c: &mut Client| unsafe { $prep(c, $($arg),*) }));
                *request = c.new_persistent(crate::client::Starter::Coll(Arc::new(start))) as usize;
                Ok(())
            })
        }
    };
    ($b:ident $nb:ident $prep:ident ($($arg:ident: $ty:ty),*)) => {
        /// # Safety
        /// As the MPI standard's.
        #[no_mangle]
        pub unsafe extern "C" fn $b($($arg: $ty),*) -> c_int {
            entry(stringify!($b), |c| {
                let p = $prep(c, $($arg),*)?;
                blocking(c, p)
            })
        }

        /// # Safety
        /// As the MPI standard's; `request` is writable.
        #[no_mangle]
        pub unsafe extern "C" fn $nb($($arg: $ty,)* request: *mut usize) -> c_int {
            entry(stringify!($nb), |c| {
                let p = $prep(c, $($arg),*)?;
                nonblocking(c, p, request)
            })
        }
    };
}

/// A reduction's arguments: the predefined datatype it computes on and the number of
/// its elements in `t` (a derived datatype must be made of one predefined type); for
/// the program's own operation, the bytes (the rank combines what comes back), and
/// the operation.
fn reduction(c: &Client, kind: CollKind, op: usize, t: &Typed) -> Result<(Args, Option<UserOp>), Failure> {
    if let Some(&u) = c.ops.get(&(op as u64)) {
        let mut a = Args::new(kind, 0, t.bytes());
        a.op = abi::OP_USER as usize;
        return Ok((a, Some(u)));
    }
    if abi::op_name(op as u64).is_none() {
        return Err((abi::err::OP, format!("operation {op:#x} does not exist")));
    }
    let base = t.ty.base.ok_or((
        abi::err::TYPE,
        "a predefined reduction on a datatype mixing several predefined types".to_string(),
    ))?;
    let mut a = Args::new(kind, 0, t.count * t.ty.elements);
    a.op = op;
    a.datatype = base;
    Ok((a, None))
}

/// The result of a reduction the simulator answered: for the program's own operation,
/// the contributions it answered with, combined here.
fn reduced(user: Option<UserOp>, t: &Typed, dt: usize, out: Vec<u8>) -> Result<Vec<u8>, Failure> {
    match user {
        // SAFETY: the program gave this function for this reduction.
        Some(u) => unsafe { fold(u, t, dt, &out) },
        None => Ok(out),
    }
}

/// A reduction's contribution: the send buffer's, or the receive buffer's in place.
unsafe fn contribution(c: &Client, sendbuf: *const c_void, recvbuf: *mut c_void, t: &Typed) -> Result<Give, Failure> {
    let from = if in_place(sendbuf) {
        recvbuf as *const c_void
    } else {
        sendbuf
    };
    give(c, t, from)
}

/// A rank's part in a rooted collective.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The root.
    Root,
    /// A rank that gives data to the root or gets data from it.
    Other,
    /// On an intercommunicator, a rank of the root's group other than the root
    /// (MPI_PROC_NULL): it takes no part in the data.
    Idle,
}

fn role(cm: &Comm, root: c_int) -> Role {
    match (cm.remote.is_some(), root) {
        (true, abi::ROOT) => Role::Root,
        (true, abi::PROC_NULL) => Role::Idle,
        (true, _) => Role::Other,
        (false, r) if r == cm.rank as c_int => Role::Root,
        (false, _) => Role::Other,
    }
}

/// Bytes `from..from + len` of `v`, or an internal error.
fn slice(v: &[u8], from: u64, len: u64) -> Result<Vec<u8>, Failure> {
    v.get(from as usize..(from + len) as usize)
        .map(<[u8]>::to_vec)
        .ok_or((abi::err::INTERN, "a short reduction".to_string()))
}

unsafe fn barrier(c: &mut Client, comm: usize) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    prepared(cm, Args::new(CollKind::Barrier, 0, 0), Vec::new(), |_| Ok(()))
}

#[no_mangle]
pub extern "C" fn MPI_Barrier(comm: usize) -> c_int {
    entry("MPI_Barrier", |c| {
        // SAFETY: no buffer.
        let p = unsafe { barrier(c, comm) }?;
        blocking(c, p)
    })
}

/// # Safety
/// `request` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Barrier_init(comm: usize, _info: usize, request: *mut usize) -> c_int {
    entry("MPI_Barrier_init", |c| {
        let index = c.comm(comm)?.index;
        let start = CollStarter::new(c, index, Box::new(move |c: &mut Client| unsafe { barrier(c, comm) }));
        *request = c.new_persistent(crate::client::Starter::Coll(Arc::new(start))) as usize;
        Ok(())
    })
}

/// # Safety
/// `request` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Ibarrier(comm: usize, request: *mut usize) -> c_int {
    entry("MPI_Ibarrier", |c| {
        let p = barrier(c, comm)?;
        nonblocking(c, p, request)
    })
}

pub(crate) unsafe fn bcast(
    c: &mut Client,
    buf: *mut c_void,
    count: c_int,
    datatype: usize,
    root: c_int,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let t = c.typed(count.into(), datatype)?;
    let part = role(&cm, root);
    let data = if part == Role::Root {
        give(c, &t, buf)?
    } else {
        Vec::new().into()
    };
    let landing = (part == Role::Other).then(|| c.region(&t, buf)).flatten();
    let a = Args::new(CollKind::Bcast, root, t.bytes());
    Ok(prepared(cm, a, data, move |out| match part {
        Role::Other => t.write(buf as *mut u8, &out),
        _ => Ok(()),
    })?
    .landing(landing))
}
both!(MPI_Bcast MPI_Ibcast MPI_Bcast_init bcast (buf: *mut c_void, count: c_int, datatype: usize, root: c_int, comm: usize));

#[allow(clippy::too_many_arguments)]
unsafe fn reduce(
    c: &mut Client,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: usize,
    op: usize,
    root: c_int,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let t = c.typed(count.into(), datatype)?;
    let part = role(&cm, root);
    let me = part == Role::Root;
    // Only the root's receive buffer matters (in place: only the root's); on an
    // intercommunicator only the other group contributes.
    let data = match part {
        Role::Root if cm.remote.is_some() => Vec::new().into(),
        Role::Idle => Vec::new().into(),
        _ => contribution(c, sendbuf, if me { recvbuf } else { sendbuf as *mut c_void }, &t)?,
    };
    let (mut a, user) = reduction(c, CollKind::Reduce, op, &t)?;
    a.root = root;
    let landing = (me && user.is_none()).then(|| c.region(&t, recvbuf)).flatten();
    Ok(prepared(cm, a, data, move |out| {
        if me {
            t.write(recvbuf as *mut u8, &reduced(user, &t, datatype, out)?)?;
        }
        Ok(())
    })?
    .landing(landing))
}
both!(MPI_Reduce MPI_Ireduce MPI_Reduce_init reduce (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: usize, op: usize, root: c_int, comm: usize));

/// Allreduce, Scan and Exscan: every rank writes its result (Exscan's rank 0 gets
/// none and keeps its buffer).
unsafe fn everyone(
    c: &mut Client,
    kind: CollKind,
    (sendbuf, recvbuf): (*const c_void, *mut c_void),
    count: c_int,
    datatype: usize,
    op: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let t = c.typed(count.into(), datatype)?;
    let data = contribution(c, sendbuf, recvbuf, &t)?;
    let (a, user) = reduction(c, kind, op, &t)?;
    let landing = user.is_none().then(|| c.region(&t, recvbuf)).flatten();
    Ok(prepared(cm, a, data, move |out| {
        let out = reduced(user, &t, datatype, out)?;
        if !out.is_empty() {
            t.write(recvbuf as *mut u8, &out)?;
        }
        Ok(())
    })?
    .landing(landing))
}

unsafe fn allreduce(
    c: &mut Client,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: usize,
    op: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    everyone(c, CollKind::Allreduce, (sendbuf, recvbuf), count, datatype, op, comm)
}
unsafe fn scan(
    c: &mut Client,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: usize,
    op: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    everyone(c, CollKind::Scan, (sendbuf, recvbuf), count, datatype, op, comm)
}
unsafe fn exscan(
    c: &mut Client,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: usize,
    op: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    everyone(c, CollKind::Exscan, (sendbuf, recvbuf), count, datatype, op, comm)
}
both!(MPI_Allreduce MPI_Iallreduce MPI_Allreduce_init allreduce (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: usize, op: usize, comm: usize));
both!(MPI_Scan MPI_Iscan MPI_Scan_init scan (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: usize, op: usize, comm: usize));
both!(MPI_Exscan MPI_Iexscan MPI_Exscan_init exscan (sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: usize, op: usize, comm: usize));

unsafe fn reduce_scatter_block(
    c: &mut Client,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: usize,
    op: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let block = c.typed(recvcount.into(), datatype)?;
    let all = c.typed(i64::from(recvcount) * i64::from(cm.peers()), datatype)?;
    let data = contribution(c, sendbuf, recvbuf, &all)?;
    let (a, user) = reduction(c, CollKind::ReduceScatterBlock, op, &block)?;
    let me = u64::from(cm.rank);
    prepared(cm, a, data, move |out| {
        let out = match user {
            // The whole vector came back to combine: this rank's block of it.
            Some(_) => slice(&reduced(user, &all, datatype, out)?, me * block.bytes(), block.bytes())?,
            None => out,
        };
        block.write(recvbuf as *mut u8, &out)
    })
}
both!(MPI_Reduce_scatter_block MPI_Ireduce_scatter_block MPI_Reduce_scatter_block_init reduce_scatter_block (sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: usize, op: usize, comm: usize));

unsafe fn reduce_scatter(
    c: &mut Client,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: usize,
    op: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let counts = counts_of(recvcounts, cm.size)?;
    let total: u64 = counts.iter().sum();
    let all = c.typed(total as i64, datatype)?;
    let data = contribution(c, sendbuf, recvbuf, &all)?;
    let (mut a, user) = reduction(c, CollKind::ReduceScatter, op, &all)?;
    // Each rank's share in bytes of the packed vector.
    a.counts.1 = counts.iter().map(|&k| k * all.ty.size).collect();
    let mine = all.with_count(counts[cm.rank as usize]);
    let from = counts[..cm.rank as usize].iter().sum::<u64>() * all.ty.size;
    prepared(cm, a, data, move |out| {
        let out = match user {
            Some(_) => slice(&reduced(user, &all, datatype, out)?, from, mine.bytes())?,
            None => out,
        };
        mine.write(recvbuf as *mut u8, &out)
    })
}
both!(MPI_Reduce_scatter MPI_Ireduce_scatter MPI_Reduce_scatter_init reduce_scatter (sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: usize, op: usize, comm: usize));

#[allow(clippy::too_many_arguments)]
unsafe fn gather(
    c: &mut Client,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    root: c_int,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let part = role(&cm, root);
    let inter = cm.remote.is_some();
    let me = part == Role::Root;
    let in_place_root = me && in_place(sendbuf);
    let recv = if me {
        Some(c.typed(recvcount.into(), recvtype)?)
    } else {
        None
    };
    let data = match &recv {
        Some(r) if in_place_root => give(c, r, r.block_at(recvbuf as *const u8, cm.rank.into()) as *const c_void)?,
        // On an intercommunicator the root's group gives nothing.
        _ if inter && part != Role::Other => Vec::new().into(),
        _ => give(c, &c.typed(sendcount.into(), sendtype)?, sendbuf)?,
    };
    let n = u64::from(cm.peers());
    let unit = match &recv {
        Some(r) if inter => r.bytes(),
        _ => data.len(),
    };
    let all = recv.as_ref().map(|r| r.with_count(r.count * n));
    let landing = all.as_ref().and_then(|all| c.region(all, recvbuf));
    let a = Args::new(CollKind::Gather, root, unit);
    Ok(prepared(cm, a, data, move |out| match &all {
        Some(all) => all.write(recvbuf as *mut u8, &out),
        None => Ok(()),
    })?
    .landing(landing))
}
both!(MPI_Gather MPI_Igather MPI_Gather_init gather (sendbuf: *const c_void, sendcount: c_int, sendtype: usize, recvbuf: *mut c_void, recvcount: c_int, recvtype: usize, root: c_int, comm: usize));

#[allow(clippy::too_many_arguments)]
unsafe fn allgather(
    c: &mut Client,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let r = c.typed(recvcount.into(), recvtype)?;
    let data = if in_place(sendbuf) {
        give(c, &r, r.block_at(recvbuf as *const u8, cm.rank.into()) as *const c_void)?
    } else {
        give(c, &c.typed(sendcount.into(), sendtype)?, sendbuf)?
    };
    let all = r.with_count(r.count * u64::from(cm.peers()));
    // On an intercommunicator the two groups' blocks may differ: both groups time
    // the larger.
    let unit = match cm.remote {
        Some(_) => data.len().max(r.bytes()),
        None => data.len(),
    };
    let landing = c.region(&all, recvbuf);
    let a = Args::new(CollKind::Allgather, 0, unit);
    Ok(prepared(cm, a, data, move |out| all.write(recvbuf as *mut u8, &out))?.landing(landing))
}
both!(MPI_Allgather MPI_Iallgather MPI_Allgather_init allgather (sendbuf: *const c_void, sendcount: c_int, sendtype: usize, recvbuf: *mut c_void, recvcount: c_int, recvtype: usize, comm: usize));

#[allow(clippy::too_many_arguments)]
unsafe fn scatter(
    c: &mut Client,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    root: c_int,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let part = role(&cm, root);
    let me = part == Role::Root;
    // The root keeps its block in place; on an intercommunicator the root's group
    // gets nothing.
    let quiet = (me && in_place(recvbuf)) || (cm.remote.is_some() && part != Role::Other);
    let recv = c.typed(recvcount.into(), recvtype);
    let (data, block) = match part {
        Role::Root => {
            let s = c.typed(sendcount.into(), sendtype)?;
            let all = s.with_count(s.count * u64::from(cm.peers()));
            (give(c, &all, sendbuf)?, s.bytes())
        }
        Role::Idle => (Vec::new().into(), 0),
        Role::Other => (Vec::new().into(), recv.clone()?.bytes()),
    };
    let landing = match &recv {
        Ok(r) if !quiet => c.region(r, recvbuf),
        _ => None,
    };
    let a = Args::new(CollKind::Scatter, root, block);
    Ok(prepared(cm, a, data, move |out| {
        if quiet {
            Ok(())
        } else {
            recv.clone()?.write(recvbuf as *mut u8, &out)
        }
    })?
    .landing(landing))
}
both!(MPI_Scatter MPI_Iscatter MPI_Scatter_init scatter (sendbuf: *const c_void, sendcount: c_int, sendtype: usize, recvbuf: *mut c_void, recvcount: c_int, recvtype: usize, root: c_int, comm: usize));

#[allow(clippy::too_many_arguments)]
unsafe fn alltoall(
    c: &mut Client,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let n = u64::from(cm.peers());
    let r = c.typed(recvcount.into(), recvtype)?;
    let (from, s) = if in_place(sendbuf) {
        (recvbuf as *const u8, r.clone())
    } else {
        (sendbuf as *const u8, c.typed(sendcount.into(), sendtype)?)
    };
    let data = give(c, &s.with_count(s.count * n), from as *const c_void)?;
    let all = r.with_count(r.count * n);
    let unit = match cm.remote {
        Some(_) => s.bytes().max(r.bytes()),
        None => s.bytes(),
    };
    let landing = c.region(&all, recvbuf);
    let a = Args::new(CollKind::Alltoall, 0, unit);
    Ok(prepared(cm, a, data, move |out| all.write(recvbuf as *mut u8, &out))?.landing(landing))
}
both!(MPI_Alltoall MPI_Ialltoall MPI_Alltoall_init alltoall (sendbuf: *const c_void, sendcount: c_int, sendtype: usize, recvbuf: *mut c_void, recvcount: c_int, recvtype: usize, comm: usize));

/// The `n` counts at `counts`, each checked.
unsafe fn counts_of(counts: *const c_int, n: u32) -> Result<Vec<u64>, Failure> {
    if counts.is_null() && n > 0 {
        return Err((abi::err::ARG, "a null array of counts".into()));
    }
    (0..n as usize)
        .map(|i| match *counts.add(i) {
            k if k >= 0 => Ok(k as u64),
            k => Err((abi::err::COUNT, format!("count {k} for rank {i} is negative"))),
        })
        .collect()
}

/// The blocks of a v-variant buffer: rank `i`'s elements, at a byte offset from the
/// buffer (`displs[i]` extents of the datatype; for MPI_Alltoallw, bytes, with a
/// datatype per rank).
struct Blocks {
    blocks: Vec<(i64, Typed)>,
}

impl Blocks {
    unsafe fn new(
        c: &Client,
        counts: *const c_int,
        displs: *const c_int,
        dt: usize,
        n: u32,
    ) -> Result<Blocks, Failure> {
        let counts = counts_of(counts, n)?;
        if displs.is_null() && n > 0 {
            return Err((abi::err::ARG, "a null array of displacements".into()));
        }
        let t = c.typed(0, dt)?;
        let blocks = (0..n as usize)
            .map(|i| (i64::from(*displs.add(i)) * t.ty.extent, t.with_count(counts[i])))
            .collect();
        Ok(Blocks { blocks })
    }

    /// MPI_Alltoallw's blocks: byte displacements and a datatype per rank.
    unsafe fn typed(
        c: &Client,
        counts: *const c_int,
        displs: *const c_int,
        types: *const usize,
        n: u32,
    ) -> Result<Blocks, Failure> {
        let counts = counts_of(counts, n)?;
        if (displs.is_null() || types.is_null()) && n > 0 {
            return Err((abi::err::ARG, "a null array of displacements or datatypes".into()));
        }
        let mut blocks = Vec::with_capacity(n as usize);
        for (i, &k) in counts.iter().enumerate() {
            let t = c.typed(k as i64, *types.add(i))?;
            blocks.push((i64::from(*displs.add(i)), t));
        }
        Ok(Blocks { blocks })
    }

    fn at(&self, buf: *const u8, i: usize) -> (*const u8, Typed) {
        let (off, t) = &self.blocks[i];
        (buf.wrapping_offset(*off as isize), t.clone())
    }

    /// Each block's bytes.
    fn bytes(&self) -> Vec<u64> {
        self.blocks.iter().map(|(_, t)| t.bytes()).collect()
    }

    /// The blocks at `buf`, packed one after the other.
    unsafe fn read(&self, buf: *const u8) -> Result<Vec<u8>, Failure> {
        let mut data = Vec::new();
        for i in 0..self.blocks.len() {
            let (p, t) = self.at(buf, i);
            data.extend(t.read(p)?);
        }
        Ok(data)
    }

    /// Spreads `data`, the blocks one after the other, over `buf`.
    unsafe fn write(&self, buf: *mut u8, data: &[u8]) -> Result<(), Failure> {
        let mut rest = data;
        for i in 0..self.blocks.len() {
            let (p, t) = self.at(buf, i);
            let len = (t.bytes() as usize).min(rest.len());
            t.write(p as *mut u8, &rest[..len])?;
            rest = &rest[len..];
        }
        if !rest.is_empty() {
            return Err((abi::err::TRUNCATE, "more data than the receive counts hold".into()));
        }
        Ok(())
    }
}

/// Per-rank bytes where only this rank's block is known.
fn own_block(cm: &Comm, bytes: u64) -> Vec<u64> {
    let mut v = vec![0; cm.size as usize];
    v[cm.rank as usize] = bytes;
    v
}

#[allow(clippy::too_many_arguments)]
unsafe fn alltoallv(
    c: &mut Client,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let recv = Blocks::new(c, recvcounts, rdispls, recvtype, cm.peers())?;
    // In place: each block goes out from where its answer will land.
    let (data, sent) = if in_place(sendbuf) {
        (recv.read(recvbuf as *const u8)?, recv.bytes())
    } else {
        let send = Blocks::new(c, sendcounts, sdispls, sendtype, cm.peers())?;
        (send.read(sendbuf as *const u8)?, send.bytes())
    };
    let mut a = Args::new(CollKind::Alltoallv, 0, 0);
    a.counts = (sent, recv.bytes());
    prepared(cm, a, data, move |out| recv.write(recvbuf as *mut u8, &out))
}
both!(MPI_Alltoallv MPI_Ialltoallv MPI_Alltoallv_init alltoallv (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: usize, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: usize, comm: usize));

#[allow(clippy::too_many_arguments)]
unsafe fn alltoallw(
    c: &mut Client,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const usize,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let recv = Blocks::typed(c, recvcounts, rdispls, recvtypes, cm.peers())?;
    let (data, sent) = if in_place(sendbuf) {
        (recv.read(recvbuf as *const u8)?, recv.bytes())
    } else {
        let send = Blocks::typed(c, sendcounts, sdispls, sendtypes, cm.peers())?;
        (send.read(sendbuf as *const u8)?, send.bytes())
    };
    // Timed and moved as MPI_Alltoallv of the packed blocks.
    let mut a = Args::new(CollKind::Alltoallv, 0, 0);
    a.counts = (sent, recv.bytes());
    prepared(cm, a, data, move |out| recv.write(recvbuf as *mut u8, &out))
}
both!(MPI_Alltoallw MPI_Ialltoallw MPI_Alltoallw_init alltoallw (sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const usize, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const usize, comm: usize));

#[allow(clippy::too_many_arguments)]
unsafe fn gatherv(
    c: &mut Client,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: usize,
    root: c_int,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let part = role(&cm, root);
    let inter = cm.remote.is_some();
    let recv = if part == Role::Root {
        Some(Blocks::new(c, recvcounts, displs, recvtype, cm.peers())?)
    } else {
        None
    };
    let data = match &recv {
        Some(b) if !inter && in_place(sendbuf) => {
            let (p, t) = b.at(recvbuf as *const u8, cm.rank as usize);
            t.read(p)?
        }
        // On an intercommunicator the root's group gives nothing.
        _ if inter && part != Role::Other => Vec::new(),
        _ => c.typed(sendcount.into(), sendtype)?.read(sendbuf as *const u8)?,
    };
    let mut a = Args::new(CollKind::Gatherv, root, 0);
    // The root knows every block; the others their own.
    a.counts.1 = match (&recv, inter) {
        (Some(b), _) => b.bytes(),
        (None, true) => vec![data.len() as u64],
        (None, false) => own_block(&cm, data.len() as u64),
    };
    prepared(cm, a, data, move |out| match &recv {
        Some(b) => b.write(recvbuf as *mut u8, &out),
        None => Ok(()),
    })
}
both!(MPI_Gatherv MPI_Igatherv MPI_Gatherv_init gatherv (sendbuf: *const c_void, sendcount: c_int, sendtype: usize, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: usize, root: c_int, comm: usize));

#[allow(clippy::too_many_arguments)]
unsafe fn scatterv(
    c: &mut Client,
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    root: c_int,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let part = role(&cm, root);
    let inter = cm.remote.is_some();
    let me = part == Role::Root;
    // The root in place, or any rank of an intercommunicator's root group, gets
    // nothing.
    let place = (me && in_place(recvbuf)) || (inter && part != Role::Other);
    // At the root in place, the receive arguments are not read.
    let recv = if place {
        None
    } else {
        Some(c.typed(recvcount.into(), recvtype)?)
    };
    let mut a = Args::new(CollKind::Scatterv, root, 0);
    let data = if me {
        let send = Blocks::new(c, sendcounts, displs, sendtype, cm.peers())?;
        a.counts.0 = send.bytes();
        send.read(sendbuf as *const u8)?
    } else {
        let mine = recv.as_ref().map_or(0, Typed::bytes);
        a.counts.0 = if inter { vec![mine] } else { own_block(&cm, mine) };
        Vec::new()
    };
    prepared(cm, a, data, move |out| match &recv {
        Some(t) => t.write(recvbuf as *mut u8, &out),
        None => Ok(()),
    })
}
both!(MPI_Scatterv MPI_Iscatterv MPI_Scatterv_init scatterv (sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: usize, recvbuf: *mut c_void, recvcount: c_int, recvtype: usize, root: c_int, comm: usize));

#[allow(clippy::too_many_arguments)]
unsafe fn allgatherv(
    c: &mut Client,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: usize,
    comm: usize,
) -> Result<Prepared, Failure> {
    let cm = c.comm(comm)?;
    let recv = Blocks::new(c, recvcounts, displs, recvtype, cm.peers())?;
    let data = if in_place(sendbuf) {
        let (p, t) = recv.at(recvbuf as *const u8, cm.rank as usize);
        t.read(p)?
    } else {
        c.typed(sendcount.into(), sendtype)?.read(sendbuf as *const u8)?
    };
    let mut a = Args::new(CollKind::Allgatherv, 0, 0);
    a.counts.1 = recv.bytes();
    prepared(cm, a, data, move |out| recv.write(recvbuf as *mut u8, &out))
}
both!(MPI_Allgatherv MPI_Iallgatherv MPI_Allgatherv_init allgatherv (sendbuf: *const c_void, sendcount: c_int, sendtype: usize, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: usize, comm: usize));
