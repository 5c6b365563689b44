//! MPI 4.0's large-count forms (`MPI_Send_c`, `MPI_Get_count_c`, ...): the same calls
//! with MPI_Count counts. A count that fits an int takes the int form's path; a
//! larger one is refused with MPI_ERR_COUNT (not simulated yet), never truncated.

use crate::client::{entry, Status};
use crate::coll::{MPI_Allreduce, MPI_Alltoallv, MPI_Bcast, MPI_Reduce};
use crate::datatype::{
    whole_elements, MPI_Get_elements_x, MPI_Status_set_elements_x, MPI_Type_contiguous, MPI_Type_get_extent_x,
    MPI_Type_get_true_extent_x, MPI_Type_size_x,
};
use crate::p2p::{MPI_Irecv, MPI_Isend, MPI_Recv, MPI_Rsend, MPI_Send, MPI_Ssend};
use simpi_wire::abi;
use std::ffi::{c_int, c_void};

/// MPI_Count, as `mpi.h` defines it.
type Count = i64;

/// Calls `f` with `count` as an int, or refuses it (through the error handler, as
/// call `name`) if it does not fit one.
fn narrow(name: &str, count: Count, f: impl FnOnce(c_int) -> c_int) -> c_int {
    match c_int::try_from(count) {
        Ok(n) => f(n),
        Err(_) => entry(name, |_| {
            Err((
                abi::err::COUNT,
                format!("a count of {count} elements (beyond 2^31 - 1: not simulated yet)"),
            ))
        }),
    }
}

macro_rules! sends_c {
    ($($name:ident $int:ident)*) => {$(
        /// # Safety
        /// As the MPI standard's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(buf: *const c_void, count: Count, datatype: usize, dest: c_int, tag: c_int, comm: usize) -> c_int {
            narrow(stringify!($name), count, |n| $int(buf, n, datatype, dest, tag, comm))
        }
    )*};
}
sends_c!(MPI_Send_c MPI_Send MPI_Ssend_c MPI_Ssend MPI_Rsend_c MPI_Rsend);

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Isend_c(
    buf: *const c_void,
    count: Count,
    datatype: usize,
    dest: c_int,
    tag: c_int,
    comm: usize,
    request: *mut usize,
) -> c_int {
    narrow("MPI_Isend_c", count, |n| {
        MPI_Isend(buf, n, datatype, dest, tag, comm, request)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Recv_c(
    buf: *mut c_void,
    count: Count,
    datatype: usize,
    source: c_int,
    tag: c_int,
    comm: usize,
    status: *mut Status,
) -> c_int {
    narrow("MPI_Recv_c", count, |n| {
        MPI_Recv(buf, n, datatype, source, tag, comm, status)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Irecv_c(
    buf: *mut c_void,
    count: Count,
    datatype: usize,
    source: c_int,
    tag: c_int,
    comm: usize,
    request: *mut usize,
) -> c_int {
    narrow("MPI_Irecv_c", count, |n| {
        MPI_Irecv(buf, n, datatype, source, tag, comm, request)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Bcast_c(
    buf: *mut c_void,
    count: Count,
    datatype: usize,
    root: c_int,
    comm: usize,
) -> c_int {
    narrow("MPI_Bcast_c", count, |n| MPI_Bcast(buf, n, datatype, root, comm))
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Allreduce_c(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: Count,
    datatype: usize,
    op: usize,
    comm: usize,
) -> c_int {
    narrow("MPI_Allreduce_c", count, |n| {
        MPI_Allreduce(sendbuf, recvbuf, n, datatype, op, comm)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce_c(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: Count,
    datatype: usize,
    op: usize,
    root: c_int,
    comm: usize,
) -> c_int {
    narrow("MPI_Reduce_c", count, |n| {
        MPI_Reduce(sendbuf, recvbuf, n, datatype, op, root, comm)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_contiguous_c(count: Count, old: usize, out: *mut usize) -> c_int {
    narrow("MPI_Type_contiguous_c", count, |n| MPI_Type_contiguous(n, old, out))
}

/// # Safety
/// `status` points to a status a receive filled; `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_count_c(status: *const Status, datatype: usize, count: *mut Count) -> c_int {
    entry("MPI_Get_count_c", |c| {
        let n = whole_elements(c.layout_ref(datatype)?.size, (*status).bytes());
        *count = n
            .and_then(|n| Count::try_from(n).ok())
            .unwrap_or(Count::from(abi::UNDEFINED));
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_size_c(datatype: usize, size: *mut Count) -> c_int {
    MPI_Type_size_x(datatype, size)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_get_extent_c(datatype: usize, lb: *mut Count, extent: *mut Count) -> c_int {
    MPI_Type_get_extent_x(datatype, lb, extent)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_get_true_extent_c(datatype: usize, lb: *mut Count, extent: *mut Count) -> c_int {
    MPI_Type_get_true_extent_x(datatype, lb, extent)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_elements_c(status: *const Status, datatype: usize, count: *mut Count) -> c_int {
    MPI_Get_elements_x(status, datatype, count)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Status_set_elements_c(status: *mut Status, datatype: usize, count: Count) -> c_int {
    MPI_Status_set_elements_x(status, datatype, count)
}

/// `n` counts or displacements as ints, or `None` if one does not fit.
///
/// # Safety
/// `v` holds `n` values (or is null with `n` 0).
unsafe fn narrow_all<T: Copy + TryInto<c_int>>(v: *const T, n: usize) -> Option<Vec<c_int>> {
    (0..n).map(|i| (*v.add(i)).try_into().ok()).collect()
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Alltoallv_c(
    sendbuf: *const c_void,
    sendcounts: *const Count,
    sdispls: *const isize,
    sendtype: usize,
    recvbuf: *mut c_void,
    recvcounts: *const Count,
    rdispls: *const isize,
    recvtype: usize,
    comm: usize,
) -> c_int {
    const NAME: &str = "MPI_Alltoallv_c";
    let mut peers = 0usize;
    let rc = entry(NAME, |c| {
        peers = c.comm(comm)?.peers() as usize;
        if peers > 0
            && [
                sendcounts.is_null(),
                recvcounts.is_null(),
                sdispls.is_null(),
                rdispls.is_null(),
            ]
            .contains(&true)
        {
            return Err((abi::err::ARG, "a null array of counts or displacements".into()));
        }
        Ok(())
    });
    if rc != abi::err::SUCCESS {
        return rc;
    }
    let arrays = (
        narrow_all(sendcounts, peers),
        narrow_all(sdispls, peers),
        narrow_all(recvcounts, peers),
        narrow_all(rdispls, peers),
    );
    let (Some(sc), Some(sd), Some(rc), Some(rd)) = arrays else {
        return entry(NAME, |_| {
            Err((
                abi::err::COUNT,
                "a count or displacement beyond 2^31 - 1 (not simulated yet)".to_string(),
            ))
        });
    };
    MPI_Alltoallv(
        sendbuf,
        sc.as_ptr(),
        sd.as_ptr(),
        sendtype,
        recvbuf,
        rc.as_ptr(),
        rd.as_ptr(),
        recvtype,
        comm,
    )
}
