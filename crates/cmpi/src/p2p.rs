//! Point-to-point calls. Ready sends are simulated as standard sends (the protocol's
//! thresholds decide eager or rendezvous, as for any send); synchronous sends complete
//! only once their receive is posted, whatever their size; buffered sends return at
//! once.

use crate::client::{check_rank, check_tag, entry, Client, Failure, Give, Pending, Status, Typed};
use simpi_wire::{abi, Call};
use std::ffi::{c_int, c_void};

/// MPI_Send, or MPI_Ssend if `sync`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn send(
    c: &mut Client,
    buf: *const c_void,
    count: c_int,
    dt: usize,
    dest: c_int,
    tag: c_int,
    comm: usize,
    sync: bool,
) -> Result<(), Failure> {
    match send_args(c, buf, count, dt, dest, tag, comm, true)? {
        // A large buffer the simulator reads itself: the rank waits until it did,
        // since the program may change the buffer once MPI_Send returns.
        Some((
            comm,
            to,
            Give {
                data,
                at: from @ Some(_),
            },
        )) => {
            c.call(Call::Send {
                comm,
                to,
                tag,
                sync,
                data,
                from,
            });
        }
        Some((comm, to, Give { data, at: None })) => c.call_ahead(Call::Send {
            comm,
            to,
            tag,
            sync,
            data,
            from: None,
        }),
        None => {}
    }
    Ok(())
}

/// A send's checked arguments: the communicator's index, the destination and the
/// message (packed, or, if `may_stay`, where it lies: see [`Client::region`]), or
/// `None` for MPI_PROC_NULL.
#[allow(clippy::too_many_arguments)]
unsafe fn send_args(
    c: &Client,
    buf: *const c_void,
    count: c_int,
    dt: usize,
    dest: c_int,
    tag: c_int,
    comm: usize,
    may_stay: bool,
) -> Result<Option<(u32, u32, Give)>, Failure> {
    let cm = c.comm(comm)?;
    check_tag(tag, false)?;
    let t = c.typed(count.into(), dt)?;
    let Some(to) = check_rank(&cm, dest, false)? else {
        return Ok(None);
    };
    Ok(Some((cm.index, to as u32, c.give(&t, buf, may_stay)?)))
}

/// A receive's checked arguments: the communicator's index, the source (`None` for
/// MPI_PROC_NULL) and what the buffer holds.
fn recv_args(
    c: &Client,
    count: c_int,
    dt: usize,
    source: c_int,
    tag: c_int,
    comm: usize,
) -> Result<(u32, Option<i32>, Typed), Failure> {
    let cm = c.comm(comm)?;
    check_tag(tag, true)?;
    Ok((cm.index, check_rank(&cm, source, true)?, c.typed(count.into(), dt)?))
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn recv(
    c: &mut Client,
    buf: *mut c_void,
    count: c_int,
    dt: usize,
    source: c_int,
    tag: c_int,
    comm: usize,
    status: *mut Status,
) -> Result<(), Failure> {
    let (comm, from, into) = recv_args(c, count, dt, source, tag, comm)?;
    let Some(from) = from else {
        Status::new(abi::PROC_NULL, abi::ANY_TAG, 0).store(status);
        return Ok(());
    };
    let done = c.call(Call::Recv {
        comm,
        from,
        tag,
        capacity: into.bytes(),
        into: c.region(&into, buf),
    });
    let m = done
        .into_iter()
        .next()
        .ok_or((abi::err::INTERN, "no message in the reply".to_string()))?;
    delivered(
        &Pending::Recv {
            buf: buf as usize,
            into,
        },
        m,
    )?
    .store(status);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn isend(
    c: &mut Client,
    buf: *const c_void,
    count: c_int,
    dt: usize,
    dest: c_int,
    tag: c_int,
    comm: usize,
    request: *mut usize,
) -> Result<(), Failure> {
    isend_from(c, (buf, count, dt), (dest, tag, comm), true, false, request)
}

/// MPI_Isend (MPI_Issend if `sync`); the buffer is packed at once unless `may_stay`
/// (the program keeps it unchanged until the request completes, so the simulator may
/// read it later).
pub(crate) unsafe fn isend_from(
    c: &mut Client,
    (buf, count, dt): (*const c_void, c_int, usize),
    (dest, tag, comm): (c_int, c_int, usize),
    may_stay: bool,
    sync: bool,
    request: *mut usize,
) -> Result<(), Failure> {
    let Some((comm, to, Give { data, at: from })) = send_args(c, buf, count, dt, dest, tag, comm, may_stay)? else {
        *request = c.new_request(Pending::null()) as usize;
        return Ok(());
    };
    let q = c.new_request(Pending::Send);
    c.call_ahead(Call::Isend {
        comm,
        to,
        tag,
        sync,
        request: q,
        data,
        from,
    });
    *request = q as usize;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn irecv(
    c: &mut Client,
    buf: *mut c_void,
    count: c_int,
    dt: usize,
    source: c_int,
    tag: c_int,
    comm: usize,
    request: *mut usize,
) -> Result<(), Failure> {
    let (comm, from, into) = recv_args(c, count, dt, source, tag, comm)?;
    let Some(from) = from else {
        *request = c.new_request(Pending::null()) as usize;
        return Ok(());
    };
    let capacity = into.bytes();
    let region = c.region(&into, buf);
    let q = c.new_request(Pending::Recv {
        buf: buf as usize,
        into,
    });
    c.call_ahead(Call::Irecv {
        comm,
        from,
        tag,
        capacity,
        request: q,
        into: region,
    });
    *request = q as usize;
    Ok(())
}

/// A wait for a generalized request the program has not completed: only the main
/// thread calls MPI, so nothing could complete it.
fn never_completed() -> Failure {
    (
        abi::err::REQUEST,
        "a wait for a generalized request that the program has not completed (with MPI called \
         from one thread, nothing can complete it: it would never return)"
            .to_string(),
    )
}

/// Waits for `requests` (MPI_REQUEST_NULL entries complete at once), fills their
/// statuses (`statuses` null: ignored) and sets each to MPI_REQUEST_NULL.
pub(crate) unsafe fn wait_all(c: &mut Client, requests: &mut [usize], statuses: *mut Status) -> Result<(), Failure> {
    let kinds = requests.iter().map(|&q| c.lookup(q)).collect::<Result<Vec<_>, _>>()?;
    let mut in_flight: Vec<u64> = Vec::with_capacity(kinds.len());
    for (q, k) in kinds.iter().flatten() {
        match k {
            Pending::Send | Pending::Recv { .. } | Pending::Coll(_) => in_flight.push(*q),
            Pending::Compound(g) => in_flight.extend(g.in_flight(c)),
            Pending::Greq(g) if !g.is_done() => return Err(never_completed()),
            Pending::Done(_) | Pending::Greq(_) => {}
        }
    }
    let mut done = if in_flight.is_empty() {
        Vec::new().into_iter()
    } else {
        c.call(Call::Wait { requests: in_flight }).into_iter()
    };
    for (i, (q, k)) in requests.iter_mut().zip(kinds).enumerate() {
        let status = match k {
            None => Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0),
            Some((_, Pending::Done(st))) => st,
            Some((_, Pending::Compound(g))) => g.finish(c, &mut done)?,
            Some((_, Pending::Greq(g))) => {
                // Its query function fills the status once the call is over.
                g.finish(if statuses.is_null() { statuses } else { statuses.add(i) });
                Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0)
            }
            Some((_, kind)) => {
                let m = done
                    .next()
                    .ok_or((abi::err::INTERN, "a completion is missing".to_string()))?;
                delivered(&kind, m)?
            }
        };
        c.retire(q);
        if !statuses.is_null() {
            status.store(statuses.add(i));
        }
    }
    Ok(())
}

/// Hands completion `m` of a request of kind `kind` over (a receive's data to its
/// buffer, a collective's result to its buffers); returns the status.
pub(crate) unsafe fn delivered(kind: &Pending, m: simpi_wire::Completion) -> Result<Status, Failure> {
    Ok(match kind {
        Pending::Recv { .. } if m.source == simpi_wire::CANCELLED => Status::of_cancelled(),
        // The simulator wrote a large message into the buffer itself.
        Pending::Recv { .. } if m.placed.is_some() => Status::new(m.source, m.tag, m.placed.unwrap_or(0)),
        Pending::Recv { buf, into } => {
            into.write(*buf as *mut u8, &m.data)?;
            Status::new(m.source, m.tag, m.data.len() as u64)
        }
        Pending::Coll(deliver) => {
            if m.placed.is_none() {
                deliver.give(m.data)?;
            }
            Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0)
        }
        Pending::Done(st) => *st,
        Pending::Send => Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0),
        // Its parts have the completions (`Compound::finish`).
        Pending::Compound(_) => return Err((abi::err::INTERN, "a compound request completed as one".to_string())),
        Pending::Greq(_) => {
            return Err((
                abi::err::INTERN,
                "a generalized request completed by the simulator".to_string(),
            ))
        }
    })
}

macro_rules! sends {
    ($($name:ident $sync:literal)*) => {$(
        /// # Safety
        /// As the MPI standard's: `buf` holds `count` elements of `datatype`.
        #[no_mangle]
        pub unsafe extern "C" fn $name(buf: *const c_void, count: c_int, datatype: usize, dest: c_int, tag: c_int, comm: usize) -> c_int {
            entry(stringify!($name), |c| send(c, buf, count, datatype, dest, tag, comm, $sync))
        }
    )*};
}
sends!(MPI_Send false MPI_Ssend true MPI_Rsend false);

macro_rules! isends {
    ($($name:ident $sync:literal)*) => {$(
        /// # Safety
        /// As the MPI standard's: `buf` holds `count` elements of `datatype` until the
        /// request completes; `request` is writable.
        #[no_mangle]
        pub unsafe extern "C" fn $name(buf: *const c_void, count: c_int, datatype: usize, dest: c_int, tag: c_int, comm: usize, request: *mut usize) -> c_int {
            entry(stringify!($name), |c| isend_from(c, (buf, count, datatype), (dest, tag, comm), true, $sync, request))
        }
    )*};
}
isends!(MPI_Isend false MPI_Issend true MPI_Irsend false);

/// A buffered send: it returns at once, whether or not the message was received, as
/// if copied into the attached buffer (the copy's time is not simulated). The message
/// goes on in the simulation; nobody waits for it.
unsafe fn bsend(
    c: &mut Client,
    (buf, count, datatype): (*const c_void, c_int, usize),
    (dest, tag, comm): (c_int, c_int, usize),
) -> Result<(), Failure> {
    // The program may change the buffer once the call returns: packed now.
    let mut q = 0usize;
    isend_from(c, (buf, count, datatype), (dest, tag, comm), false, false, &mut q)?;
    c.requests.remove(&(q as u64));
    Ok(())
}

/// # Safety
/// As the MPI standard's: `buf` holds `count` elements of `datatype`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Bsend(
    buf: *const c_void,
    count: c_int,
    datatype: usize,
    dest: c_int,
    tag: c_int,
    comm: usize,
) -> c_int {
    entry("MPI_Bsend", |c| bsend(c, (buf, count, datatype), (dest, tag, comm)))
}

/// # Safety
/// As the MPI standard's; `request` is writable (it is complete at once).
#[no_mangle]
pub unsafe extern "C" fn MPI_Ibsend(
    buf: *const c_void,
    count: c_int,
    datatype: usize,
    dest: c_int,
    tag: c_int,
    comm: usize,
    request: *mut usize,
) -> c_int {
    entry("MPI_Ibsend", |c| {
        bsend(c, (buf, count, datatype), (dest, tag, comm))?;
        *request = c.new_request(Pending::Done(Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0))) as usize;
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's: `buf` holds `count` elements of `datatype`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Recv(
    buf: *mut c_void,
    count: c_int,
    datatype: usize,
    source: c_int,
    tag: c_int,
    comm: usize,
    status: *mut Status,
) -> c_int {
    entry("MPI_Recv", |c| recv(c, buf, count, datatype, source, tag, comm, status))
}

/// # Safety
/// As the MPI standard's: `buf` holds `count` elements of `datatype` until the
/// request completes; `request` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Irecv(
    buf: *mut c_void,
    count: c_int,
    datatype: usize,
    source: c_int,
    tag: c_int,
    comm: usize,
    request: *mut usize,
) -> c_int {
    entry("MPI_Irecv", |c| {
        irecv(c, buf, count, datatype, source, tag, comm, request)
    })
}

/// # Safety
/// `request` points to a request; `status` is writable or MPI_STATUS_IGNORE.
#[no_mangle]
pub unsafe extern "C" fn MPI_Wait(request: *mut usize, status: *mut Status) -> c_int {
    entry("MPI_Wait", |c| {
        wait_all(c, std::slice::from_raw_parts_mut(request, 1), status)
    })
}

/// # Safety
/// `requests` holds `count` requests; `statuses` holds `count` or is
/// MPI_STATUSES_IGNORE.
#[no_mangle]
pub unsafe extern "C" fn MPI_Waitall(count: c_int, requests: *mut usize, statuses: *mut Status) -> c_int {
    entry("MPI_Waitall", |c| {
        if count < 0 {
            return Err((abi::err::COUNT, format!("count {count} is negative")));
        }
        if count == 0 {
            return Ok(());
        }
        wait_all(c, std::slice::from_raw_parts_mut(requests, count as usize), statuses)
    })
}

/// Starts the halves of a send-receive: (buffer, count, datatype, partner, tag) of
/// each; gives the receive's request, then the send's.
///
/// # Safety
/// The buffers hold their elements until the requests complete.
unsafe fn start_sendrecv(
    c: &mut Client,
    (sbuf, scount, stype, dest, stag): (*const c_void, c_int, usize, c_int, c_int),
    (rbuf, rcount, rtype, source, rtag): (*mut c_void, c_int, usize, c_int, c_int),
    comm: usize,
) -> Result<[usize; 2], Failure> {
    let mut q = [0usize; 2];
    irecv(c, rbuf, rcount, rtype, source, rtag, comm, &mut q[0])?;
    isend(c, sbuf, scount, stype, dest, stag, comm, &mut q[1])?;
    Ok(q)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Sendrecv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    dest: c_int,
    sendtag: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    source: c_int,
    recvtag: c_int,
    comm: usize,
    status: *mut Status,
) -> c_int {
    entry("MPI_Sendrecv", |c| {
        let send = (sendbuf, sendcount, sendtype, dest, sendtag);
        let mut q = start_sendrecv(c, send, (recvbuf, recvcount, recvtype, source, recvtag), comm)?;
        let mut st = [Status::default(); 2];
        wait_all(c, &mut q, st.as_mut_ptr())?;
        st[0].store(status);
        Ok(())
    })
}

/// # Safety
/// `request` points to a request; `flag` is writable; `status` is writable or
/// MPI_STATUS_IGNORE.
#[no_mangle]
pub unsafe extern "C" fn MPI_Test(request: *mut usize, flag: *mut c_int, status: *mut Status) -> c_int {
    entry("MPI_Test", |c| {
        let Some((q, kind)) = c.lookup(*request)? else {
            *flag = 1;
            Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0).store(status);
            return Ok(());
        };
        let st = match kind {
            Pending::Done(st) => st,
            Pending::Greq(g) if !g.is_done() => {
                *flag = 0;
                return Ok(());
            }
            Pending::Greq(g) => {
                g.finish(status);
                Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0)
            }
            Pending::Compound(g) => match g.test(c)? {
                Some(st) => st,
                None => {
                    *flag = 0;
                    return Ok(());
                }
            },
            _ => {
                let Some(m) = c.call(Call::Test { request: q }).into_iter().next() else {
                    *flag = 0;
                    return Ok(());
                };
                delivered(&kind, m)?
            }
        };
        c.retire(&mut *request);
        *flag = 1;
        st.store(status);
        Ok(())
    })
}

/// One probe: the status of a matching message, if one was sent and not received.
pub(crate) fn iprobe(c: &mut Client, source: c_int, tag: c_int, comm: usize) -> Result<Option<Status>, Failure> {
    let cm = c.comm(comm)?;
    check_tag(tag, true)?;
    let Some(from) = check_rank(&cm, source, true)? else {
        // MPI_PROC_NULL: found at once, empty.
        return Ok(Some(Status::new(abi::PROC_NULL, abi::ANY_TAG, 0)));
    };
    let found = c.call(Call::Iprobe {
        comm: cm.index,
        from,
        tag,
    });
    Ok(found.into_iter().next().map(|m| {
        let bytes = m
            .data
            .get(..8)
            .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
        Status::new(m.source, m.tag, bytes)
    }))
}

/// # Safety
/// `flag` is writable; `status` is writable or MPI_STATUS_IGNORE.
#[no_mangle]
pub unsafe extern "C" fn MPI_Iprobe(
    source: c_int,
    tag: c_int,
    comm: usize,
    flag: *mut c_int,
    status: *mut Status,
) -> c_int {
    entry("MPI_Iprobe", |c| {
        let found = iprobe(c, source, tag, comm)?;
        *flag = c_int::from(found.is_some());
        if let Some(st) = found {
            st.store(status);
        }
        Ok(())
    })
}

/// # Safety
/// `status` is writable or MPI_STATUS_IGNORE.
#[no_mangle]
pub unsafe extern "C" fn MPI_Probe(source: c_int, tag: c_int, comm: usize, status: *mut Status) -> c_int {
    entry("MPI_Probe", |c| {
        // Probes until one finds the message, each costing a probe's time (as SMPI's
        // MPI_Probe does); the simulator ends a probe that can never succeed.
        loop {
            if let Some(st) = iprobe(c, source, tag, comm)? {
                st.store(status);
                return Ok(());
            }
        }
    })
}

/// # Safety
/// As the MPI standard's: `buf` holds `count` elements of `datatype`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Sendrecv_replace(
    buf: *mut c_void,
    count: c_int,
    datatype: usize,
    dest: c_int,
    sendtag: c_int,
    source: c_int,
    recvtag: c_int,
    comm: usize,
    status: *mut Status,
) -> c_int {
    entry("MPI_Sendrecv_replace", |c| {
        // The send's data is taken before the receive can fill the buffer: packed at
        // once, or (a large buffer) read by the simulator when it takes the calls
        // that come with the receive, before it answers any.
        let mut q = [0usize; 1];
        isend(c, buf, count, datatype, dest, sendtag, comm, &mut q[0])?;
        recv(c, buf, count, datatype, source, recvtag, comm, status)?;
        wait_all(c, &mut q, std::ptr::null_mut())
    })
}

/// # Safety
/// As the MPI standard's; `request` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Isendrecv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: usize,
    dest: c_int,
    sendtag: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: usize,
    source: c_int,
    recvtag: c_int,
    comm: usize,
    request: *mut usize,
) -> c_int {
    entry("MPI_Isendrecv", |c| {
        let send = (sendbuf, sendcount, sendtype, dest, sendtag);
        let q = start_sendrecv(c, send, (recvbuf, recvcount, recvtype, source, recvtag), comm)?;
        // Its status is the receive's.
        *request = crate::compound::start(c, vec![q[0] as u64, q[1] as u64], Some(0)) as usize;
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's; `request` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Isendrecv_replace(
    buf: *mut c_void,
    count: c_int,
    datatype: usize,
    dest: c_int,
    sendtag: c_int,
    source: c_int,
    recvtag: c_int,
    comm: usize,
    request: *mut usize,
) -> c_int {
    entry("MPI_Isendrecv_replace", |c| {
        // As for MPI_Sendrecv_replace: the send's data is taken before the receive
        // can fill the buffer.
        let mut q = [0usize; 2];
        isend(c, buf, count, datatype, dest, sendtag, comm, &mut q[1])?;
        irecv(c, buf, count, datatype, source, recvtag, comm, &mut q[0])?;
        *request = crate::compound::start(c, vec![q[0] as u64, q[1] as u64], Some(0)) as usize;
        Ok(())
    })
}

/// The buffer MPI_Buffer_attach gave (sends are never buffered in it: a buffered
/// send is simulated as a standard one).
static ATTACHED: crate::rank_local::RankLocal<std::sync::Mutex<(usize, c_int)>> =
    crate::rank_local::RankLocal::new(|| std::sync::Mutex::new((0, 0)));

/// # Safety
/// `buf` holds `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn MPI_Buffer_attach(buf: *mut c_void, size: c_int) -> c_int {
    *ATTACHED.get().lock().unwrap_or_else(|p| p.into_inner()) = (buf as usize, size);
    abi::err::SUCCESS
}

/// # Safety
/// `buf` (a pointer to a pointer) and `size` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Buffer_detach(buf: *mut c_void, size: *mut c_int) -> c_int {
    let mut a = ATTACHED.get().lock().unwrap_or_else(|p| p.into_inner());
    *(buf as *mut usize) = a.0;
    *size = a.1;
    *a = (0, 0);
    abi::err::SUCCESS
}
