//! Matched probes (`MPI_Mprobe`, `MPI_Improbe`) and the receives of what they matched
//! (`MPI_Mrecv`, `MPI_Imrecv`). A probe finds the first message, in sending order, that
//! its source and tag select; the message handle keeps that message's communicator,
//! source and tag, and the matched receive takes the first message of that source and
//! tag: the same one, since any earlier one would have been the probe's.

use crate::client::{entry, Client, Failure, Status};
use simpi_wire::abi;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

/// MPI_MESSAGE_NULL and MPI_MESSAGE_NO_PROC.
const MESSAGE_NULL: usize = 0x128;
const MESSAGE_NO_PROC: usize = 0x129;
/// The first handle of a matched message.
const FIRST_MESSAGE: usize = 0x5000_0000;

/// Matched messages not yet received: (communicator, source, tag).
struct Matched {
    next: usize,
    open: HashMap<usize, (usize, c_int, c_int)>,
}

static MATCHED: Mutex<Option<Matched>> = Mutex::new(None);

/// A handle for the message `st` found on `comm`.
fn matched(comm: usize, st: &Status) -> usize {
    if st.source == abi::PROC_NULL {
        return MESSAGE_NO_PROC;
    }
    let mut g = MATCHED.lock().unwrap_or_else(|p| p.into_inner());
    let m = g.get_or_insert_with(|| Matched {
        next: FIRST_MESSAGE,
        open: HashMap::new(),
    });
    let h = m.next;
    m.next += 1;
    m.open.insert(h, (comm, st.source, st.tag));
    h
}

/// What message handle `*message` matched (`None`: MPI_MESSAGE_NO_PROC); the handle
/// becomes MPI_MESSAGE_NULL.
unsafe fn take(message: *mut usize) -> Result<Option<(usize, c_int, c_int)>, Failure> {
    let h = *message;
    if h == MESSAGE_NO_PROC {
        *message = MESSAGE_NULL;
        return Ok(None);
    }
    let mut g = MATCHED.lock().unwrap_or_else(|p| p.into_inner());
    let found = g.as_mut().and_then(|m| m.open.remove(&h));
    match found {
        Some(m) => {
            *message = MESSAGE_NULL;
            Ok(Some(m))
        }
        None => Err((
            abi::err::REQUEST,
            format!("message {h:#x} was not matched by a probe (or was received)"),
        )),
    }
}

/// # Safety
/// `message` is writable; `status` is writable or MPI_STATUS_IGNORE.
#[no_mangle]
pub unsafe extern "C" fn MPI_Mprobe(
    source: c_int,
    tag: c_int,
    comm: usize,
    message: *mut usize,
    status: *mut Status,
) -> c_int {
    entry("MPI_Mprobe", |c| loop {
        if let Some(st) = crate::p2p::iprobe(c, source, tag, comm)? {
            *message = matched(comm, &st);
            st.store(status);
            return Ok(());
        }
    })
}

/// # Safety
/// `flag` and `message` are writable; `status` is writable or MPI_STATUS_IGNORE.
#[no_mangle]
pub unsafe extern "C" fn MPI_Improbe(
    source: c_int,
    tag: c_int,
    comm: usize,
    flag: *mut c_int,
    message: *mut usize,
    status: *mut Status,
) -> c_int {
    entry("MPI_Improbe", |c| {
        let found = crate::p2p::iprobe(c, source, tag, comm)?;
        *flag = c_int::from(found.is_some());
        if let Some(st) = found {
            *message = matched(comm, &st);
            st.store(status);
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's: `buf` holds `count` elements of `datatype`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Mrecv(
    buf: *mut c_void,
    count: c_int,
    datatype: usize,
    message: *mut usize,
    status: *mut Status,
) -> c_int {
    entry("MPI_Mrecv", |c: &mut Client| match take(message)? {
        Some((comm, source, tag)) => crate::p2p::recv(c, buf, count, datatype, source, tag, comm, status),
        None => crate::p2p::recv(
            c,
            buf,
            count,
            datatype,
            abi::PROC_NULL,
            0,
            abi::COMM_WORLD as usize,
            status,
        ),
    })
}

/// # Safety
/// As the MPI standard's: `buf` holds `count` elements of `datatype`; `request` is
/// writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Imrecv(
    buf: *mut c_void,
    count: c_int,
    datatype: usize,
    message: *mut usize,
    request: *mut usize,
) -> c_int {
    entry("MPI_Imrecv", |c: &mut Client| match take(message)? {
        Some((comm, source, tag)) => crate::p2p::irecv(c, buf, count, datatype, source, tag, comm, request),
        None => crate::p2p::irecv(
            c,
            buf,
            count,
            datatype,
            abi::PROC_NULL,
            0,
            abi::COMM_WORLD as usize,
            request,
        ),
    })
}
