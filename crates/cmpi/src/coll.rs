//! Collective calls on MPI_COMM_WORLD and its duplicates: each rank sends its
//! contribution; the simulator times the chosen algorithm and answers with the rank's
//! result.

use crate::client::{bytes_of, entry, read_buf, write_buf, Client, Failure};
use simpi_wire::{abi, Call, CollKind, Collective};
use std::ffi::{c_int, c_void};

fn in_place(p: *const c_void) -> bool {
    p as usize == abi::IN_PLACE
}

/// Makes the call and returns the rank's result.
#[allow(clippy::too_many_arguments)]
fn collective(
    c: &mut Client,
    comm: usize,
    kind: CollKind,
    root: c_int,
    op: usize,
    datatype: u64,
    count: u64,
    data: Vec<u8>,
) -> Result<Vec<u8>, Failure> {
    collective_v(c, comm, kind, root, op, datatype, count, (Vec::new(), Vec::new()), data)
}

/// [`collective`] with the per-rank byte counts (sent, received) of a v-variant.
#[allow(clippy::too_many_arguments)]
fn collective_v(
    c: &mut Client,
    comm: usize,
    kind: CollKind,
    root: c_int,
    op: usize,
    datatype: u64,
    count: u64,
    (send_counts, recv_counts): (Vec<u64>, Vec<u64>),
    data: Vec<u8>,
) -> Result<Vec<u8>, Failure> {
    let cm = c.comm(comm)?;
    if root < 0 || root as u32 >= cm.size {
        return Err((
            abi::err::ROOT,
            format!("root {root} is not in the communicator (size {})", cm.size),
        ));
    }
    let reduction = matches!(
        kind,
        CollKind::Reduce | CollKind::Allreduce | CollKind::Scan | CollKind::Exscan | CollKind::ReduceScatterBlock
    );
    if reduction && abi::op_name(op as u64).is_none() {
        return Err((
            abi::err::OP,
            format!("operation {op:#x}: simpi computes the predefined operations only so far"),
        ));
    }
    let done = c.call(Call::Collective(Collective {
        kind,
        comm: cm.index,
        root: root as u32,
        op: if reduction { op as u64 } else { 0 },
        datatype,
        count,
        send_counts,
        recv_counts,
        data,
    }));
    Ok(done.into_iter().next().map(|m| m.data).unwrap_or_default())
}

/// The arguments of a reduction: its contribution and vector length in bytes.
unsafe fn contribution(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    dt: usize,
) -> Result<(Vec<u8>, u64), Failure> {
    let len = bytes_of(count.into(), dt)?;
    let from = if in_place(sendbuf) {
        recvbuf as *const u8
    } else {
        sendbuf as *const u8
    };
    Ok((read_buf(from, len)?, len))
}

#[no_mangle]
pub extern "C" fn MPI_Barrier(comm: usize) -> c_int {
    entry("MPI_Barrier", |c| {
        collective(c, comm, CollKind::Barrier, 0, 0, abi::BYTE, 0, Vec::new()).map(drop)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Bcast(buf: *mut c_void, count: c_int, datatype: usize, root: c_int, comm: usize) -> c_int {
    entry("MPI_Bcast", |c| {
        let cm = c.comm(comm)?;
        let len = bytes_of(count.into(), datatype)?;
        let data = if root == cm.rank as c_int {
            read_buf(buf as *const u8, len)?
        } else {
            Vec::new()
        };
        let out = collective(c, comm, CollKind::Bcast, root, 0, abi::BYTE, len, data)?;
        if root != cm.rank as c_int {
            write_buf(buf as *mut u8, len, &out)?;
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
        let (data, len) = contribution(sendbuf, recvbuf, count, datatype)?;
        let out = collective(c, comm, CollKind::Reduce, root, op, datatype as u64, count as u64, data)?;
        if root == cm.rank as c_int {
            write_buf(recvbuf as *mut u8, len, &out)?;
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
                let (data, len) = contribution(sendbuf, recvbuf, count, datatype)?;
                let out = collective(c, comm, $kind, 0, op, datatype as u64, count as u64, data)?;
                // Exscan leaves rank 0's buffer as it was (its result is undefined).
                if !out.is_empty() || len == 0 {
                    write_buf(recvbuf as *mut u8, len, &out)?;
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
        let block = bytes_of(recvcount.into(), datatype)?;
        let all = block
            .checked_mul(cm.size.into())
            .ok_or((abi::err::COUNT, "the vector overflows".to_string()))?;
        let from = if in_place(sendbuf) {
            recvbuf as *const u8
        } else {
            sendbuf as *const u8
        };
        let data = read_buf(from, all)?;
        let out = collective(
            c,
            comm,
            CollKind::ReduceScatterBlock,
            0,
            op,
            datatype as u64,
            recvcount as u64,
            data,
        )?;
        write_buf(recvbuf as *mut u8, block, &out)
    })
}

/// The bytes of one rank's block: the send side's, or the receive side's where the
/// send buffer is MPI_IN_PLACE.
fn block_of(send_in_place: bool, scount: c_int, stype: usize, rcount: c_int, rtype: usize) -> Result<u64, Failure> {
    if send_in_place {
        bytes_of(rcount.into(), rtype)
    } else {
        bytes_of(scount.into(), stype)
    }
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
        let block = block_of(place, sendcount, sendtype, recvcount, recvtype)?;
        let data = if place {
            read_buf((recvbuf as *const u8).add((block * cm.rank as u64) as usize), block)?
        } else {
            read_buf(sendbuf as *const u8, block)?
        };
        let out = collective(c, comm, CollKind::Gather, root, 0, abi::BYTE, block, data)?;
        if me {
            write_buf(recvbuf as *mut u8, block * cm.size as u64, &out)?;
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
        let place = in_place(sendbuf);
        let block = block_of(place, sendcount, sendtype, recvcount, recvtype)?;
        let data = if place {
            read_buf((recvbuf as *const u8).add((block * cm.rank as u64) as usize), block)?
        } else {
            read_buf(sendbuf as *const u8, block)?
        };
        let out = collective(c, comm, CollKind::Allgather, 0, 0, abi::BYTE, block, data)?;
        write_buf(recvbuf as *mut u8, block * cm.size as u64, &out)
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
        // The block is the receive side's, or the root's send side's when it keeps
        // its own block in place.
        let block = if place {
            bytes_of(sendcount.into(), sendtype)?
        } else {
            bytes_of(recvcount.into(), recvtype)?
        };
        let data = if me {
            read_buf(sendbuf as *const u8, block * cm.size as u64)?
        } else {
            Vec::new()
        };
        let out = collective(c, comm, CollKind::Scatter, root, 0, abi::BYTE, block, data)?;
        if !place {
            write_buf(recvbuf as *mut u8, block, &out)?;
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
        let place = in_place(sendbuf);
        let block = block_of(place, sendcount, sendtype, recvcount, recvtype)?;
        let from = if place {
            recvbuf as *const u8
        } else {
            sendbuf as *const u8
        };
        let data = read_buf(from, block * cm.size as u64)?;
        let out = collective(c, comm, CollKind::Alltoall, 0, 0, abi::BYTE, block, data)?;
        write_buf(recvbuf as *mut u8, block * cm.size as u64, &out)
    })
}

/// The `(offset, length)` in bytes of each rank's block of a v-variant buffer:
/// `counts[i]` elements at `displs[i]` elements, of `size` bytes each.
unsafe fn blocks(counts: *const c_int, displs: *const c_int, n: u32, size: u64) -> Result<Vec<(u64, u64)>, Failure> {
    let mut v = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        let (k, d) = (*counts.add(i), *displs.add(i));
        if k < 0 || d < 0 {
            return Err((
                abi::err::COUNT,
                format!("count {k} or displacement {d} for rank {i} is negative"),
            ));
        }
        v.push((d as u64 * size, k as u64 * size));
    }
    Ok(v)
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
        let n = cm.size;
        let rsize = bytes_of(1, recvtype)?;
        let recv = blocks(recvcounts, rdispls, n, rsize)?;
        // In place: each block goes out from where its answer will land.
        let (from, send) = if in_place(sendbuf) {
            (recvbuf as *const u8, recv.clone())
        } else {
            (
                sendbuf as *const u8,
                blocks(sendcounts, sdispls, n, bytes_of(1, sendtype)?)?,
            )
        };
        let mut data = Vec::new();
        for &(off, len) in &send {
            data.extend(read_buf(from.add(off as usize), len)?);
        }
        let counts = (send.iter().map(|b| b.1).collect(), recv.iter().map(|b| b.1).collect());
        let out = collective_v(c, comm, CollKind::Alltoallv, 0, 0, abi::BYTE, 0, counts, data)?;
        let mut at = 0usize;
        for &(off, len) in &recv {
            let block = out.get(at..at + len as usize).ok_or((
                abi::err::TRUNCATE,
                "the blocks received do not match the receive counts".to_string(),
            ))?;
            write_buf((recvbuf as *mut u8).add(off as usize), len, block)?;
            at += len as usize;
        }
        Ok(())
    })
}
