//! Generalized requests (MPI_Grequest_start, MPI_Grequest_complete): requests the
//! program completes itself. Only this rank knows them; they take no simulated time.
//! A wait or test of a completed one calls the program's query function for its
//! status and then its free function, after the call released the library's lock
//! (both may call MPI). Only the main thread calls MPI here, so a wait for one that
//! was never completed could never return: it is an error, not a hang.

use crate::client::{defer, entry, Client, Failure, Pending, Status};
use simpi_wire::abi;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// MPI_Grequest_query_function.
type QueryFn = unsafe extern "C" fn(*mut c_void, *mut Status) -> c_int;
/// MPI_Grequest_free_function.
type FreeFn = unsafe extern "C" fn(*mut c_void) -> c_int;

/// A generalized request: the program's functions and whether it completed it.
#[derive(Debug)]
pub struct Greq {
    query: Option<QueryFn>,
    free: Option<FreeFn>,
    extra: usize,
    done: AtomicBool,
}

impl Greq {
    /// Whether the program called MPI_Grequest_complete on it.
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }

    /// The request ends (a wait or test found it complete): once the current call
    /// released the lock, the query function writes its status at `status` (a
    /// scratch one if null), then the free function runs.
    pub fn finish(self: &Arc<Self>, status: *mut Status) {
        let g = Arc::clone(self);
        let status = status as usize;
        defer(move || {
            let mut scratch = Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0);
            let at = if status == 0 {
                &mut scratch as *mut Status
            } else {
                status as *mut Status
            };
            // SAFETY: the program gave these functions for this request, with this
            // state; `at` is the caller's status or the scratch one.
            let queried = g
                .query
                .map_or(abi::err::SUCCESS, |q| unsafe { q(g.extra as *mut c_void, at) });
            let freed = g.release_now();
            if queried != abi::err::SUCCESS {
                queried
            } else {
                freed
            }
        });
    }

    /// The request is freed without a wait (MPI_Request_free): only the free
    /// function runs, once the current call released the lock.
    pub fn release(self: &Arc<Self>) {
        let g = Arc::clone(self);
        defer(move || g.release_now());
    }

    fn release_now(&self) -> c_int {
        // SAFETY: the program gave this function for this request, with this state.
        self.free
            .map_or(abi::err::SUCCESS, |f| unsafe { f(self.extra as *mut c_void) })
    }
}

/// The generalized request behind `q`, or an error if `q` is another kind.
fn greq(c: &Client, q: usize) -> Result<Arc<Greq>, Failure> {
    match c.requests.get(&(q as u64)) {
        Some(Pending::Greq(g)) => Ok(Arc::clone(g)),
        _ => Err((
            abi::err::REQUEST,
            format!("request {q:#x} is not a generalized request"),
        )),
    }
}

/// # Safety
/// The functions are null or have the standard's signatures; `request` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Grequest_start(
    query: Option<QueryFn>,
    free: Option<FreeFn>,
    _cancel: *const c_void,
    extra: *mut c_void,
    request: *mut usize,
) -> c_int {
    entry("MPI_Grequest_start", |c| {
        if request.is_null() {
            return Err((abi::err::ARG, "a null request pointer".into()));
        }
        let g = Greq {
            query,
            free,
            extra: extra as usize,
            done: AtomicBool::new(false),
        };
        *request = c.new_request(Pending::Greq(Arc::new(g))) as usize;
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Grequest_complete(request: usize) -> c_int {
    entry("MPI_Grequest_complete", |c| {
        greq(c, request)?.done.store(true, Ordering::Relaxed);
        Ok(())
    })
}
