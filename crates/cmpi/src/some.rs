//! The calls that complete some of several requests: MPI_Waitany, MPI_Waitsome,
//! MPI_Testany, MPI_Testall and MPI_Testsome; and MPI_Request_free.
//!
//! Null requests are inactive; requests on MPI_PROC_NULL are complete without the
//! simulator. The others go to the simulator in one call, which answers for each
//! whether this call completed it.

use crate::client::{entry, Client, Failure, Pending, Status};
use crate::p2p::delivered;
use simpi_wire::{abi, Call, Completing, PENDING};
use std::ffi::c_int;

/// What each request stands for (`None`: MPI_REQUEST_NULL or an inactive persistent
/// request).
fn kinds(c: &Client, requests: &[usize]) -> Result<Vec<Option<(u64, Pending)>>, Failure> {
    requests.iter().map(|&q| c.lookup(q)).collect()
}

/// The status of a request complete before the call.
fn done_status(k: &Option<(u64, Pending)>) -> Status {
    match k {
        Some((_, Pending::Done(st))) => *st,
        _ => Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0),
    }
}

/// Which requests completed (by position) and their statuses; completed requests are
/// freed and set to MPI_REQUEST_NULL.
unsafe fn complete(c: &mut Client, requests: &mut [usize], how: Completing) -> Result<Vec<(usize, Status)>, Failure> {
    let kinds = kinds(c, requests)?;
    if kinds
        .iter()
        .flatten()
        .any(|(_, k)| matches!(k, Pending::Compound(_) | Pending::Greq(_)))
    {
        return Err((
            abi::err::UNSUPPORTED_OPERATION,
            "the request of MPI_Isendrecv, of a neighborhood collective or a generalized one among \
             several: only MPI_Wait, MPI_Waitall and MPI_Test take it (not simulated yet)"
                .to_string(),
        ));
    }
    // Requests on MPI_PROC_NULL are done without asking anyone.
    let local: Vec<usize> = (0..requests.len())
        .filter(|&i| matches!(kinds[i], Some((_, Pending::Done(_)))))
        .collect();
    let remote: Vec<usize> = (0..requests.len())
        .filter(|&i| matches!(&kinds[i], Some((_, k)) if !matches!(k, Pending::Done(_))))
        .collect();
    let one = matches!(how, Completing::WaitAny | Completing::TestAny);
    let mut done = Vec::new();
    if !local.is_empty() && (one || remote.is_empty()) {
        // One done request is enough for the "any" calls; Testall and the "some"
        // calls with nothing in flight need no simulator either.
        let take = if one { &local[..1] } else { &local[..] };
        for &i in take {
            done.push((i, done_status(&kinds[i])));
        }
    } else if !remote.is_empty() {
        let ids: Vec<u64> = remote.iter().filter_map(|&i| kinds[i].as_ref().map(|k| k.0)).collect();
        let answers = c.call(Call::Completing { requests: ids, how });
        if answers.len() != remote.len() {
            return Err((abi::err::INTERN, "the reply does not answer every request".into()));
        }
        for (&i, m) in remote.iter().zip(answers) {
            if m.source == PENDING {
                continue;
            }
            let Some((_, kind)) = &kinds[i] else { continue };
            let st = delivered(kind, m)?;
            done.push((i, st));
        }
        // Testall completes all or none: the local ones too, once all remote are.
        if how == Completing::TestAll && done.len() == remote.len() {
            done.extend(local.iter().map(|&i| (i, done_status(&kinds[i]))));
            done.sort_by_key(|d| d.0);
        }
    }
    for &(i, _) in &done {
        c.retire(&mut requests[i]);
    }
    Ok(done)
}

/// The `count` requests at `requests`, or MPI_ERR_COUNT.
unsafe fn slice<'a>(count: c_int, requests: *mut usize) -> Result<&'a mut [usize], Failure> {
    if count < 0 {
        return Err((abi::err::COUNT, format!("count {count} is negative")));
    }
    if count == 0 {
        return Ok(&mut []);
    }
    Ok(std::slice::from_raw_parts_mut(requests, count as usize))
}

/// An empty status (no active request).
fn empty() -> Status {
    Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Waitany(
    count: c_int,
    requests: *mut usize,
    index: *mut c_int,
    status: *mut Status,
) -> c_int {
    entry("MPI_Waitany", |c| {
        let qs = slice(count, requests)?;
        match complete(c, qs, Completing::WaitAny)?.first() {
            Some(&(i, st)) => {
                *index = i as c_int;
                st.store(status);
            }
            None => {
                *index = abi::UNDEFINED;
                empty().store(status);
            }
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Testany(
    count: c_int,
    requests: *mut usize,
    index: *mut c_int,
    flag: *mut c_int,
    status: *mut Status,
) -> c_int {
    entry("MPI_Testany", |c| {
        let qs = slice(count, requests)?;
        let active = kinds(c, qs)?.iter().any(Option::is_some);
        match complete(c, qs, Completing::TestAny)?.first() {
            Some(&(i, st)) => {
                *index = i as c_int;
                *flag = 1;
                st.store(status);
            }
            None => {
                *index = abi::UNDEFINED;
                // No active request: the call is complete, with an empty status.
                *flag = c_int::from(!active);
                if !active {
                    empty().store(status);
                }
            }
        }
        Ok(())
    })
}

/// Waitsome and Testsome: the indices and statuses of what completed.
unsafe fn some(
    c: &mut Client,
    (count, requests): (c_int, *mut usize),
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut Status,
    how: Completing,
) -> Result<(), Failure> {
    let qs = slice(count, requests)?;
    if kinds(c, qs)?.iter().all(Option::is_none) {
        *outcount = abi::UNDEFINED;
        return Ok(());
    }
    let done = complete(c, qs, how)?;
    *outcount = done.len() as c_int;
    for (k, &(i, st)) in done.iter().enumerate() {
        *indices.add(k) = i as c_int;
        if !statuses.is_null() {
            st.store(statuses.add(k));
        }
    }
    Ok(())
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Waitsome(
    count: c_int,
    requests: *mut usize,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut Status,
) -> c_int {
    entry("MPI_Waitsome", |c| {
        some(c, (count, requests), outcount, indices, statuses, Completing::WaitSome)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Testsome(
    count: c_int,
    requests: *mut usize,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut Status,
) -> c_int {
    entry("MPI_Testsome", |c| {
        some(c, (count, requests), outcount, indices, statuses, Completing::TestSome)
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Testall(
    count: c_int,
    requests: *mut usize,
    flag: *mut c_int,
    statuses: *mut Status,
) -> c_int {
    entry("MPI_Testall", |c| {
        let qs = slice(count, requests)?;
        let before: Vec<bool> = kinds(c, qs)?.iter().map(Option::is_some).collect();
        let active = before.iter().filter(|&&a| a).count();
        let done = complete(c, qs, Completing::TestAll)?;
        *flag = c_int::from(done.len() == active);
        if *flag == 1 && !statuses.is_null() {
            let mut at = done.iter();
            for (i, &was) in before.iter().enumerate() {
                let st = if was {
                    at.next().map_or_else(empty, |d| d.1)
                } else {
                    empty()
                };
                st.store(statuses.add(i));
            }
        }
        Ok(())
    })
}

/// # Safety
/// `request` points to a request.
#[no_mangle]
pub unsafe extern "C" fn MPI_Request_free(request: *mut usize) -> c_int {
    entry("MPI_Request_free", |c| {
        let q = *request as u64;
        if let Some(p) = c.persistent.remove(&q) {
            if let Some(i) = p.active {
                c.requests.remove(&i);
            }
        } else {
            match c.requests.remove(&q) {
                None => return Err((abi::err::REQUEST, format!("request {q:#x} is not one of this rank's"))),
                Some(Pending::Compound(g)) => g.free(c),
                Some(Pending::Greq(g)) => g.release(),
                Some(_) => {}
            }
        }
        // The operation goes on in the simulation; nobody waits for it.
        *request = abi::REQUEST_NULL as usize;
        Ok(())
    })
}

/// # Safety
/// `request` is a request; `flag` is writable; `status` is writable or
/// MPI_STATUS_IGNORE.
#[no_mangle]
pub unsafe extern "C" fn MPI_Request_get_status(request: usize, flag: *mut c_int, status: *mut Status) -> c_int {
    entry("MPI_Request_get_status", |c| {
        let st = peek(c, request)?;
        *flag = c_int::from(st.is_some());
        if let Some(st) = st {
            st.store(status);
        }
        Ok(())
    })
}

/// A test that does not free: the status of request `q` if it is complete (an empty
/// one for a null or inactive request). A completed request keeps its handle, marked
/// done with its status, for the wait or test that frees it.
unsafe fn peek(c: &mut Client, q: usize) -> Result<Option<Status>, Failure> {
    let kinds = kinds(c, &[q])?;
    Ok(match &kinds[0] {
        None => Some(empty()),
        Some((_, Pending::Done(st))) => Some(*st),
        Some((_, Pending::Compound(_) | Pending::Greq(_))) => {
            return Err((
                abi::err::UNSUPPORTED_OPERATION,
                "the status of MPI_Isendrecv's or a neighborhood collective's request before it \
                 completes (not simulated yet)"
                    .to_string(),
            ))
        }
        Some((inner, kind)) => {
            let inner = *inner;
            let kind = kind.clone();
            match c.call(Call::Test { request: inner }).into_iter().next() {
                None => None,
                Some(m) => {
                    let st = delivered(&kind, m)?;
                    c.requests.insert(inner, Pending::Done(st));
                    Some(st)
                }
            }
        }
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Request_get_status_all(
    count: c_int,
    requests: *mut usize,
    flag: *mut c_int,
    statuses: *mut Status,
) -> c_int {
    entry("MPI_Request_get_status_all", |c| {
        let qs = slice(count, requests)?;
        let mut found = Vec::with_capacity(qs.len());
        for &q in qs.iter() {
            found.push(peek(c, q)?);
        }
        let all = found.iter().all(Option::is_some);
        *flag = c_int::from(all);
        if all && !statuses.is_null() {
            for (i, st) in found.into_iter().flatten().enumerate() {
                st.store(statuses.add(i));
            }
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Request_get_status_any(
    count: c_int,
    requests: *mut usize,
    index: *mut c_int,
    flag: *mut c_int,
    status: *mut Status,
) -> c_int {
    entry("MPI_Request_get_status_any", |c| {
        let qs = slice(count, requests)?;
        *flag = 0;
        *index = abi::UNDEFINED;
        if qs.iter().all(|&q| matches!(c.lookup(q), Ok(None))) {
            *flag = 1;
            empty().store(status);
            return Ok(());
        }
        for (i, &q) in qs.iter().enumerate() {
            if c.lookup(q)?.is_none() {
                continue;
            }
            if let Some(st) = peek(c, q)? {
                *flag = 1;
                *index = i as c_int;
                st.store(status);
                break;
            }
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Request_get_status_some(
    count: c_int,
    requests: *mut usize,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut Status,
) -> c_int {
    entry("MPI_Request_get_status_some", |c| {
        let qs = slice(count, requests)?;
        if qs.iter().all(|&q| matches!(c.lookup(q), Ok(None))) {
            *outcount = abi::UNDEFINED;
            return Ok(());
        }
        let mut k = 0usize;
        for (i, &q) in qs.iter().enumerate() {
            if c.lookup(q)?.is_none() {
                continue;
            }
            if let Some(st) = peek(c, q)? {
                *indices.add(k) = i as c_int;
                if !statuses.is_null() {
                    st.store(statuses.add(k));
                }
                k += 1;
            }
        }
        *outcount = k as c_int;
        Ok(())
    })
}
