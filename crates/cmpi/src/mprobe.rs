//! Matched probes (`MPI_Mprobe`, `MPI_Improbe`) and the receives of what they matched
//! (`MPI_Mrecv`, `MPI_Imrecv`). A matched message must leave the matching queues at
//! once: a later receive of the same source and tag takes the message after it (MPICH's
//! `mprobe` test 12). So the probe finds the first message its source and tag select,
//! then receives it at once, as bytes, with that message's exact source and tag (the
//! same message: any earlier one from that source would have been the probe's); the
//! handle keeps the bytes until the matched receive unpacks them into the program's
//! buffer. The transfer's simulated time is thus spent in the probe, not the receive.

use crate::client::{entry, Client, Failure, Status};
use crate::rank_local::RankLocal;
use simpi_wire::abi;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

/// MPI_MESSAGE_NULL and MPI_MESSAGE_NO_PROC.
const MESSAGE_NULL: usize = 0x128;
const MESSAGE_NO_PROC: usize = 0x129;
/// The first handle of a matched message.
const FIRST_MESSAGE: usize = 0x5000_0000;

/// What a probe matched: the message's source, tag and bytes.
type Message = (c_int, c_int, Vec<u8>);

/// Matched messages not yet received by the program.
struct Matched {
    next: usize,
    open: HashMap<usize, Message>,
}

static MATCHED: RankLocal<Mutex<Option<Matched>>> = RankLocal::new(|| Mutex::new(None));

/// Takes the message `st` found on `comm` off the matching queues and gives a handle
/// for it.
fn matched(c: &mut Client, comm: usize, st: &Status) -> Result<usize, Failure> {
    if st.source == abi::PROC_NULL {
        return Ok(MESSAGE_NO_PROC);
    }
    let n = c_int::try_from(st.bytes()).map_err(|_| {
        (
            abi::err::COUNT,
            format!("a matched message of {} bytes (more than 2^31-1)", st.bytes()),
        )
    })?;
    let mut data = vec![0u8; n as usize];
    let mut got = Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0);
    // SAFETY: `data` holds `n` bytes and `got` is a status.
    unsafe {
        crate::p2p::recv(
            c,
            data.as_mut_ptr().cast(),
            n,
            abi::BYTE as usize,
            st.source,
            st.tag,
            comm,
            &mut got,
        )?
    };
    data.truncate(got.bytes() as usize);
    let mut g = MATCHED.get().lock().unwrap_or_else(|p| p.into_inner());
    let m = g.get_or_insert_with(|| Matched {
        next: FIRST_MESSAGE,
        open: HashMap::new(),
    });
    let h = m.next;
    m.next += 1;
    m.open.insert(h, (st.source, st.tag, data));
    Ok(h)
}

/// What message handle `*message` matched (`None`: MPI_MESSAGE_NO_PROC); the handle
/// becomes MPI_MESSAGE_NULL.
unsafe fn take(message: *mut usize) -> Result<Option<Message>, Failure> {
    let h = *message;
    if h == MESSAGE_NO_PROC {
        *message = MESSAGE_NULL;
        return Ok(None);
    }
    let mut g = MATCHED.get().lock().unwrap_or_else(|p| p.into_inner());
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
            *message = matched(c, comm, &st)?;
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
            *message = matched(c, comm, &st)?;
            st.store(status);
        }
        Ok(())
    })
}

/// Unpacks matched message `m` (`None`: MPI_MESSAGE_NO_PROC) into `count` elements of
/// `datatype` at `buf`; its status. More bytes than the elements hold is
/// MPI_ERR_TRUNCATE.
unsafe fn unpack(
    c: &Client,
    m: Option<Message>,
    buf: *mut c_void,
    count: c_int,
    datatype: usize,
) -> Result<Status, Failure> {
    let into = c.typed(count.into(), datatype)?;
    let Some((source, tag, data)) = m else {
        return Ok(Status::new(abi::PROC_NULL, abi::ANY_TAG, 0));
    };
    if data.len() as u64 > into.bytes() {
        return Err((
            abi::err::TRUNCATE,
            format!(
                "a message of {} bytes arrived in a buffer of {}",
                data.len(),
                into.bytes()
            ),
        ));
    }
    into.write(buf.cast(), &data)?;
    Ok(Status::new(source, tag, data.len() as u64))
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
    entry("MPI_Mrecv", |c: &mut Client| {
        let m = take(message)?;
        unpack(c, m, buf, count, datatype)?.store(status);
        Ok(())
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
    // The data is here already: the request is complete when made.
    entry("MPI_Imrecv", |c: &mut Client| {
        let m = take(message)?;
        let st = unpack(c, m, buf, count, datatype)?;
        *request = c.new_request(crate::client::Pending::Done(st)) as usize;
        Ok(())
    })
}
