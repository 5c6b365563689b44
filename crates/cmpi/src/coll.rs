//! Collective calls on intra-communicators: each rank sends its contribution (packed
//! with its datatype); the simulator times the chosen algorithm and answers with the
//! rank's result, which the rank spreads out with its receive datatype.

use crate::client::{entry, Client, Comm, Failure, Typed};
use crate::op::fold;
use simpi_wire::{abi, Call, CollKind, Collective};
use std::ffi::{c_int, c_void};

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

/// Makes the call on `cm` and returns the rank's result.
fn collective(c: &mut Client, cm: &Comm, a: Args, data: Vec<u8>) -> Result<Vec<u8>, Failure> {
    if a.root < 0 || a.root as u32 >= cm.size {
        return Err((
            abi::err::ROOT,
            format!("root {} is not in {} (size {})", a.root, cm.name(), cm.size),
        ));
    }
    let done = c.call(Call::Collective(Collective {
        kind: a.kind,
        comm: cm.index,
        root: a.root as u32,
        op: a.op as u64,
        datatype: a.datatype,
        count: a.count,
        send_counts: a.counts.0,
        recv_counts: a.counts.1,
        data,
    }));
    Ok(done.into_iter().next().map(|m| m.data).unwrap_or_default())
}

/// A reduction's arguments: the predefined datatype it computes on and the number of
/// its elements in `t` (a derived datatype must be made of one predefined type); for
/// the program's own operation, the bytes (the rank combines what comes back).
fn reduction(c: &Client, kind: CollKind, op: usize, t: &Typed) -> Result<Args, Failure> {
    if c.ops.contains_key(&(op as u64)) {
        let mut a = Args::new(kind, 0, t.bytes());
        a.op = abi::OP_USER as usize;
        return Ok(a);
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
    Ok(a)
}

/// The result of a reduction the simulator answered: for the program's own operation,
/// the contributions it answered with, combined here.
unsafe fn reduced(c: &Client, op: usize, t: &Typed, dt: usize, out: Vec<u8>) -> Result<Vec<u8>, Failure> {
    match c.ops.get(&(op as u64)) {
        Some(&u) => fold(u, t, dt, &out),
        None => Ok(out),
    }
}

/// A reduction's contribution: the send buffer's, or the receive buffer's in place.
unsafe fn contribution(sendbuf: *const c_void, recvbuf: *mut c_void, t: &Typed) -> Result<Vec<u8>, Failure> {
    let from = if in_place(sendbuf) {
        recvbuf
    } else {
        sendbuf as *mut c_void
    };
    t.read(from as *const u8)
}

#[no_mangle]
pub extern "C" fn MPI_Barrier(comm: usize) -> c_int {
    entry("MPI_Barrier", |c| {
        let cm = c.comm(comm)?;
        collective(c, &cm, Args::new(CollKind::Barrier, 0, 0), Vec::new()).map(drop)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Bcast(buf: *mut c_void, count: c_int, datatype: usize, root: c_int, comm: usize) -> c_int {
    entry("MPI_Bcast", |c| {
        let cm = c.comm(comm)?;
        let t = c.typed(count.into(), datatype)?;
        let me = root == cm.rank as c_int;
        let data = if me { t.read(buf as *const u8)? } else { Vec::new() };
        let out = collective(c, &cm, Args::new(CollKind::Bcast, root, t.bytes()), data)?;
        if !me {
            t.write(buf as *mut u8, &out)?;
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    datatype: usize,
    op: usize,
    root: c_int,
    comm: usize,
) -> c_int {
    entry("MPI_Reduce", |c| {
        let cm = c.comm(comm)?;
        let t = c.typed(count.into(), datatype)?;
        let me = root == cm.rank as c_int;
        // Only the root's receive buffer matters (in place: only the root's).
        let data = contribution(sendbuf, if me { recvbuf } else { sendbuf as *mut c_void }, &t)?;
        let mut a = reduction(c, CollKind::Reduce, op, &t)?;
        a.root = root;
        let out = collective(c, &cm, a, data)?;
        let out = reduced(c, op, &t, datatype, out)?;
        if me {
            t.write(recvbuf as *mut u8, &out)?;
        }
        Ok(())
    })
}

macro_rules! reductions {
    ($($name:ident $kind:expr;)*) => {$(
        /// # Safety
        /// As the MPI standard's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: usize, op: usize, comm: usize) -> c_int {
            entry(stringify!($name), |c| {
                let cm = c.comm(comm)?;
                let t = c.typed(count.into(), datatype)?;
                let data = contribution(sendbuf, recvbuf, &t)?;
                let a = reduction(c, $kind, op, &t)?;
                let out = collective(c, &cm, a, data)?;
                let out = reduced(c, op, &t, datatype, out)?;
                // Exscan leaves rank 0's buffer as it was (its result is undefined).
                if !out.is_empty() {
                    t.write(recvbuf as *mut u8, &out)?;
                }
                Ok(())
            })
        }
    )*};
}
reductions! {
    MPI_Allreduce CollKind::Allreduce;
    MPI_Scan CollKind::Scan;
    MPI_Exscan CollKind::Exscan;
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce_scatter_block(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: usize,
    op: usize,
    comm: usize,
) -> c_int {
    entry("MPI_Reduce_scatter_block", |c| {
        let cm = c.comm(comm)?;
        let block = c.typed(recvcount.into(), datatype)?;
        let all = c.typed(i64::from(recvcount) * i64::from(cm.size), datatype)?;
        let data = contribution(sendbuf, recvbuf, &all)?;
        let a = reduction(c, CollKind::ReduceScatterBlock, op, &block)?;
        let out = collective(c, &cm, a, data)?;
        let out = match c.ops.get(&(op as u64)) {
            // The whole vector came back combined: this rank's block of it.
            Some(_) => {
                let v = reduced(c, op, &all, datatype, out)?;
                let b = block.bytes() as usize;
                v.get(cm.rank as usize * b..(cm.rank as usize + 1) * b)
                    .ok_or((abi::err::INTERN, "a short reduction".to_string()))?
                    .to_vec()
            }
            None => out,
        };
        block.write(recvbuf as *mut u8, &out)
    })
}

/// # Safety
/// As the MPI standard's: `recvcounts` holds one count per rank.
#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce_scatter(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: usize,
    op: usize,
    comm: usize,
) -> c_int {
    entry("MPI_Reduce_scatter", |c| {
        let cm = c.comm(comm)?;
        let counts = counts_of(recvcounts, cm.size)?;
        let total: u64 = counts.iter().sum();
        let all = c.typed(total as i64, datatype)?;
        let data = contribution(sendbuf, recvbuf, &all)?;
        let mut a = reduction(c, CollKind::ReduceScatter, op, &all)?;
        // Each rank's share in bytes of the packed vector.
        a.counts.1 = counts.iter().map(|&k| k * all.ty.size).collect();
        let out = collective(c, &cm, a, data)?;
        let mine = all.with_count(counts[cm.rank as usize]);
        let out = match c.ops.get(&(op as u64)) {
            Some(_) => {
                let v = reduced(c, op, &all, datatype, out)?;
                let from = counts[..cm.rank as usize].iter().sum::<u64>() * all.ty.size;
                v.get(from as usize..(from + mine.bytes()) as usize)
                    .ok_or((abi::err::INTERN, "a short reduction".to_string()))?
                    .to_vec()
            }
            None => out,
        };
        mine.write(recvbuf as *mut u8, &out)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Gather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    root: c_int,
    comm: usize,
) -> c_int {
    entry("MPI_Gather", |c| {
        let cm = c.comm(comm)?;
        let me = cm.rank as c_int == root;
        let place = me && in_place(sendbuf);
        let recv = if me {
            Some(c.typed(recvcount.into(), recvtype)?)
        } else {
            None
        };
        let data = match &recv {
            Some(r) if place => r.read(r.block_at(recvbuf as *const u8, cm.rank.into()))?,
            _ => c.typed(sendcount.into(), sendtype)?.read(sendbuf as *const u8)?,
        };
        let out = collective(c, &cm, Args::new(CollKind::Gather, root, data.len() as u64), data)?;
        if let Some(r) = recv {
            r.with_count(r.count * u64::from(cm.size))
                .write(recvbuf as *mut u8, &out)?;
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    comm: usize,
) -> c_int {
    entry("MPI_Allgather", |c| {
        let cm = c.comm(comm)?;
        let r = c.typed(recvcount.into(), recvtype)?;
        let data = if in_place(sendbuf) {
            r.read(r.block_at(recvbuf as *const u8, cm.rank.into()))?
        } else {
            c.typed(sendcount.into(), sendtype)?.read(sendbuf as *const u8)?
        };
        let out = collective(c, &cm, Args::new(CollKind::Allgather, 0, data.len() as u64), data)?;
        r.with_count(r.count * u64::from(cm.size))
            .write(recvbuf as *mut u8, &out)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Scatter(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    root: c_int,
    comm: usize,
) -> c_int {
    entry("MPI_Scatter", |c| {
        let cm = c.comm(comm)?;
        let me = cm.rank as c_int == root;
        let place = me && in_place(recvbuf);
        let (data, block) = if me {
            let s = c.typed(sendcount.into(), sendtype)?;
            let all = s.with_count(s.count * u64::from(cm.size));
            (all.read(sendbuf as *const u8)?, s.bytes())
        } else {
            (Vec::new(), c.typed(recvcount.into(), recvtype)?.bytes())
        };
        let out = collective(c, &cm, Args::new(CollKind::Scatter, root, block), data)?;
        if !place {
            c.typed(recvcount.into(), recvtype)?.write(recvbuf as *mut u8, &out)?;
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    comm: usize,
) -> c_int {
    entry("MPI_Alltoall", |c| {
        let cm = c.comm(comm)?;
        let n = u64::from(cm.size);
        let r = c.typed(recvcount.into(), recvtype)?;
        let (from, s) = if in_place(sendbuf) {
            (recvbuf as *const u8, r.clone())
        } else {
            (sendbuf as *const u8, c.typed(sendcount.into(), sendtype)?)
        };
        let data = s.with_count(s.count * n).read(from)?;
        let out = collective(c, &cm, Args::new(CollKind::Alltoall, 0, s.bytes()), data)?;
        r.with_count(r.count * n).write(recvbuf as *mut u8, &out)
    })
}

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

/// The blocks of a v-variant buffer: rank `i`'s `counts[i]` elements of `t` start
/// `displs[i]` extents from `buf`.
struct Blocks {
    t: Typed,
    counts: Vec<u64>,
    displs: Vec<i64>,
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
        let displs = (0..n as usize).map(|i| i64::from(*displs.add(i))).collect();
        Ok(Blocks {
            t: c.typed(0, dt)?,
            counts,
            displs,
        })
    }

    fn at(&self, buf: *const u8, i: usize) -> (*const u8, Typed) {
        let p = buf.wrapping_offset((self.displs[i] * self.t.ty.extent) as isize);
        (p, self.t.with_count(self.counts[i]))
    }

    /// Each block's bytes.
    fn bytes(&self) -> Vec<u64> {
        self.counts.iter().map(|&k| k * self.t.ty.size).collect()
    }

    /// The blocks at `buf`, packed one after the other.
    unsafe fn read(&self, buf: *const u8) -> Result<Vec<u8>, Failure> {
        let mut data = Vec::new();
        for i in 0..self.counts.len() {
            let (p, t) = self.at(buf, i);
            data.extend(t.read(p)?);
        }
        Ok(data)
    }

    /// Spreads `data`, the blocks one after the other, over `buf`.
    unsafe fn write(&self, buf: *mut u8, data: &[u8]) -> Result<(), Failure> {
        let mut rest = data;
        for i in 0..self.counts.len() {
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

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Alltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: usize,
    comm: usize,
) -> c_int {
    entry("MPI_Alltoallv", |c| {
        let cm = c.comm(comm)?;
        let recv = Blocks::new(c, recvcounts, rdispls, recvtype, cm.size)?;
        // In place: each block goes out from where its answer will land.
        let (data, sent) = if in_place(sendbuf) {
            (recv.read(recvbuf as *const u8)?, recv.bytes())
        } else {
            let send = Blocks::new(c, sendcounts, sdispls, sendtype, cm.size)?;
            (send.read(sendbuf as *const u8)?, send.bytes())
        };
        let mut a = Args::new(CollKind::Alltoallv, 0, 0);
        a.counts = (sent, recv.bytes());
        let out = collective(c, &cm, a, data)?;
        recv.write(recvbuf as *mut u8, &out)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Gatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: usize,
    root: c_int,
    comm: usize,
) -> c_int {
    entry("MPI_Gatherv", |c| {
        let cm = c.comm(comm)?;
        let me = cm.rank as c_int == root;
        let recv = if me {
            Some(Blocks::new(c, recvcounts, displs, recvtype, cm.size)?)
        } else {
            None
        };
        let data = match &recv {
            Some(b) if in_place(sendbuf) => {
                let (p, t) = b.at(recvbuf as *const u8, cm.rank as usize);
                t.read(p)?
            }
            _ => c.typed(sendcount.into(), sendtype)?.read(sendbuf as *const u8)?,
        };
        let mut a = Args::new(CollKind::Gatherv, root, 0);
        // The root knows every block; the others their own.
        a.counts.1 = match &recv {
            Some(b) => b.bytes(),
            None => own_block(&cm, data.len() as u64),
        };
        let out = collective(c, &cm, a, data)?;
        if let Some(b) = recv {
            b.write(recvbuf as *mut u8, &out)?;
        }
        Ok(())
    })
}

/// Per-rank bytes where only this rank's block is known.
fn own_block(cm: &Comm, bytes: u64) -> Vec<u64> {
    let mut v = vec![0; cm.size as usize];
    v[cm.rank as usize] = bytes;
    v
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Scatterv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    root: c_int,
    comm: usize,
) -> c_int {
    entry("MPI_Scatterv", |c| {
        let cm = c.comm(comm)?;
        let me = cm.rank as c_int == root;
        let place = me && in_place(recvbuf);
        let recv = c.typed(recvcount.into(), recvtype)?;
        let mut a = Args::new(CollKind::Scatterv, root, 0);
        let data = if me {
            let send = Blocks::new(c, sendcounts, displs, sendtype, cm.size)?;
            a.counts.0 = send.bytes();
            send.read(sendbuf as *const u8)?
        } else {
            a.counts.0 = own_block(&cm, recv.bytes());
            Vec::new()
        };
        let out = collective(c, &cm, a, data)?;
        if !place {
            recv.write(recvbuf as *mut u8, &out)?;
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Allgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: usize,
    comm: usize,
) -> c_int {
    entry("MPI_Allgatherv", |c| {
        let cm = c.comm(comm)?;
        let recv = Blocks::new(c, recvcounts, displs, recvtype, cm.size)?;
        let data = if in_place(sendbuf) {
            let (p, t) = recv.at(recvbuf as *const u8, cm.rank as usize);
            t.read(p)?
        } else {
            c.typed(sendcount.into(), sendtype)?.read(sendbuf as *const u8)?
        };
        let mut a = Args::new(CollKind::Allgatherv, 0, 0);
        a.counts.1 = recv.bytes();
        let out = collective(c, &cm, a, data)?;
        recv.write(recvbuf as *mut u8, &out)
    })
}
