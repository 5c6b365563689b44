//! Start, end, the rank's identity, time, error handlers and datatype sizes: calls
//! answered without the simulator (except MPI_Finalize's last call).

use crate::client::{entry, finalize, init, state};
use simpi_wire::abi;
use std::ffi::{c_char, c_int};

/// The library's version string.
const VERSION: &str = concat!(
    "simpi ",
    env!("CARGO_PKG_VERSION"),
    " (simulated MPI, MPI 5.0 ABI handles)"
);

/// The thread level MPI_Init_thread provided (MPI_THREAD_SINGLE unless asked more).
static PROVIDED: crate::rank_local::RankLocal<std::sync::atomic::AtomicI32> =
    crate::rank_local::RankLocal::new(|| std::sync::atomic::AtomicI32::new(0));

/// # Safety
/// As MPI_Init: `argc` and `argv` are null or the program's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Init(_argc: *mut c_int, _argv: *mut *mut *mut c_char) -> c_int {
    init("MPI_Init")
}

/// # Safety
/// As MPI_Init_thread: `provided` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Init_thread(
    _argc: *mut c_int,
    _argv: *mut *mut *mut c_char,
    required: c_int,
    provided: *mut c_int,
) -> c_int {
    let code = init("MPI_Init_thread");
    if !provided.is_null() {
        // Up to MPI_THREAD_FUNNELED (1): only the main thread calls MPI, which a
        // process per rank handles (MPI_THREAD_SINGLE is 0).
        let level = required.clamp(0, 1);
        PROVIDED.get().store(level, std::sync::atomic::Ordering::Relaxed);
        *provided = level;
    }
    code
}

#[no_mangle]
pub extern "C" fn MPI_Finalize() -> c_int {
    finalize()
}

/// # Safety
/// `flag` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Initialized(flag: *mut c_int) -> c_int {
    *flag = state().0 as c_int;
    abi::err::SUCCESS
}

/// # Safety
/// `flag` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Finalized(flag: *mut c_int) -> c_int {
    *flag = state().1 as c_int;
    abi::err::SUCCESS
}

/// # Safety
/// `provided` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Query_thread(provided: *mut c_int) -> c_int {
    *provided = PROVIDED.get().load(std::sync::atomic::Ordering::Relaxed);
    abi::err::SUCCESS
}

/// # Safety
/// `flag` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Is_thread_main(flag: *mut c_int) -> c_int {
    *flag = 1;
    abi::err::SUCCESS
}

#[no_mangle]
pub extern "C" fn MPI_Abort(_comm: usize, code: c_int) -> c_int {
    entry("MPI_Abort", |c| {
        let text = format!("rank {} called MPI_Abort({code})", c.rank);
        c.abort(code, &text)
    })
}

#[no_mangle]
pub extern "C" fn MPI_Wtime() -> f64 {
    let mut t = 0.0;
    entry("MPI_Wtime", |c| {
        t = c.wtime();
        Ok(())
    });
    t
}

#[no_mangle]
pub extern "C" fn MPI_Wtick() -> f64 {
    // The simulated clock counts picoseconds.
    1e-12
}

/// Copies `s` and a terminating NUL into `buf` of `cap` bytes; the length to `len`.
pub(crate) unsafe fn put_str(s: &str, buf: *mut c_char, cap: usize, len: *mut c_int) {
    let n = s.len().min(cap.saturating_sub(1));
    std::ptr::copy_nonoverlapping(s.as_ptr() as *const c_char, buf, n);
    *buf.add(n) = 0;
    if !len.is_null() {
        *len = n as c_int;
    }
}

/// # Safety
/// `name` holds MPI_MAX_PROCESSOR_NAME (256) bytes; `len` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_processor_name(name: *mut c_char, len: *mut c_int) -> c_int {
    entry("MPI_Get_processor_name", |c| {
        put_str(&format!("simpi-host-{}", c.rank), name, 256, len);
        Ok(())
    })
}

/// # Safety
/// `version` and `subversion` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_version(version: *mut c_int, subversion: *mut c_int) -> c_int {
    *version = 5;
    *subversion = 0;
    abi::err::SUCCESS
}

/// # Safety
/// `buf` holds MPI_MAX_LIBRARY_VERSION_STRING (8192) bytes; `len` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_library_version(buf: *mut c_char, len: *mut c_int) -> c_int {
    put_str(VERSION, buf, 8192, len);
    abi::err::SUCCESS
}
