//! Persistent requests: MPI_Send_init and its modes, MPI_Recv_init, MPI_Start and
//! MPI_Startall. A persistent request keeps its handle; each start makes an ordinary
//! request behind it, which the waits and tests complete (see `Client::lookup`).

use crate::client::{check_rank, check_tag, entry, Client, Failure, Start, Starter};
use crate::coll::nonblocking;
use crate::p2p::{irecv, isend_from};
use simpi_wire::abi;
use std::ffi::{c_int, c_void};

/// Checks the arguments now (as MPI does at init) and makes the request.
unsafe fn init(c: &mut Client, start: Start, request: *mut usize) -> Result<(), Failure> {
    c.typed(start.count.into(), start.datatype)?;
    let cm = c.comm(start.comm)?;
    check_tag(start.tag, start.recv)?;
    check_rank(&cm, start.peer, start.recv)?;
    *request = c.new_persistent(Starter::P2p(start)) as usize;
    Ok(())
}

macro_rules! send_inits {
    ($($name:ident $sync:literal)*) => {$(
        /// # Safety
        /// As the MPI standard's: `buf` holds `count` elements of `datatype` whenever
        /// the request is started; `request` is writable.
        #[no_mangle]
        pub unsafe extern "C" fn $name(buf: *const c_void, count: c_int, datatype: usize, dest: c_int, tag: c_int, comm: usize, request: *mut usize) -> c_int {
            entry(stringify!($name), |c| {
                let layout = c.layout(datatype)?;
                let start = Start { _layout: layout, recv: false, sync: $sync, buf: buf as usize, count, datatype, peer: dest, tag, comm };
                init(c, start, request)
            })
        }
    )*};
}
send_inits!(MPI_Send_init false MPI_Ssend_init true MPI_Rsend_init false MPI_Bsend_init false);

/// # Safety
/// As the MPI standard's: `buf` holds `count` elements of `datatype` whenever the
/// request is started; `request` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Recv_init(
    buf: *mut c_void,
    count: c_int,
    datatype: usize,
    source: c_int,
    tag: c_int,
    comm: usize,
    request: *mut usize,
) -> c_int {
    entry("MPI_Recv_init", |c| {
        let start = Start {
            _layout: c.layout(datatype)?,
            recv: true,
            sync: false,
            buf: buf as usize,
            count,
            datatype,
            peer: source,
            tag,
            comm,
        };
        init(c, start, request)
    })
}

/// Starts persistent request `q`.
unsafe fn start(c: &mut Client, q: usize) -> Result<(), Failure> {
    let s = match c.persistent.get(&(q as u64)) {
        Some(p) if p.active.is_some() => {
            return Err((abi::err::REQUEST, format!("request {q:#x} is already active")));
        }
        Some(p) => p.start.clone(),
        None => return Err((abi::err::REQUEST, format!("request {q:#x} is not a persistent request"))),
    };
    let mut inner = 0usize;
    let s = match s {
        Starter::P2p(s) => s,
        Starter::Coll(make) => {
            let p = make.prepare(c)?;
            nonblocking(c, p, &mut inner)?;
            if let Some(p) = c.persistent.get_mut(&(q as u64)) {
                p.active = Some(inner as u64);
            }
            return Ok(());
        }
        Starter::Neighbor(go) => {
            let inner = go.start(c)?;
            if let Some(p) = c.persistent.get_mut(&(q as u64)) {
                p.active = Some(inner);
            }
            return Ok(());
        }
    };
    if s.recv {
        irecv(
            c,
            s.buf as *mut c_void,
            s.count,
            s.datatype,
            s.peer,
            s.tag,
            s.comm,
            &mut inner,
        )?;
    } else {
        isend_from(
            c,
            (s.buf as *const c_void, s.count, s.datatype),
            (s.peer, s.tag, s.comm),
            true,
            s.sync,
            &mut inner,
        )?;
    }
    if let Some(p) = c.persistent.get_mut(&(q as u64)) {
        p.active = Some(inner as u64);
    }
    Ok(())
}

/// # Safety
/// `request` points to a persistent request.
#[no_mangle]
pub unsafe extern "C" fn MPI_Start(request: *mut usize) -> c_int {
    entry("MPI_Start", |c| start(c, *request))
}

/// # Safety
/// `requests` holds `count` persistent requests.
#[no_mangle]
pub unsafe extern "C" fn MPI_Startall(count: c_int, requests: *mut usize) -> c_int {
    entry("MPI_Startall", |c| {
        if count < 0 {
            return Err((abi::err::COUNT, format!("count {count} is negative")));
        }
        for i in 0..count as usize {
            start(c, *requests.add(i))?;
        }
        Ok(())
    })
}
