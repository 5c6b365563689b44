//! The C library's clocks read simulated time: `gettimeofday` and `clock_gettime`
//! (real-time and monotonic clocks) of a rank return, between MPI_Init and
//! MPI_Finalize, the time MPI_Wtime gives, so programs that time themselves with them
//! report the simulated run. The library's definitions take precedence over the C
//! library's for the program (it links them first). Other clocks (CPU time) and reads
//! outside MPI, or while an MPI call is under way, are the machine's.

use crate::client::virtual_now;
use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

/// The machine's clock `clock`, read with the system call (not through this file's
/// own `clock_gettime`).
unsafe fn machine(clock: libc::clockid_t, ts: *mut libc::timespec) -> c_int {
    libc::syscall(libc::SYS_clock_gettime, clock, ts) as c_int
}

/// The wall-clock time (seconds since 1970) when the simulated clock read 0: the
/// machine's at the first virtual read, less the simulated time then.
fn epoch(now: f64) -> f64 {
    static EPOCH: OnceLock<f64> = OnceLock::new();
    *EPOCH.get_or_init(|| {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is writable.
        unsafe { machine(libc::CLOCK_REALTIME, &mut ts) };
        (ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9 - now).floor()
    })
}

/// Whether `clock` is one that measures elapsed time (not a CPU-time clock).
fn elapsed_clock(clock: libc::clockid_t) -> Option<bool> {
    match clock {
        libc::CLOCK_REALTIME | libc::CLOCK_REALTIME_COARSE => Some(true),
        libc::CLOCK_MONOTONIC | libc::CLOCK_MONOTONIC_RAW | libc::CLOCK_MONOTONIC_COARSE | libc::CLOCK_BOOTTIME => {
            Some(false)
        }
        _ => None,
    }
}

fn split(t: f64) -> (i64, i64) {
    let secs = t.floor();
    (secs as i64, ((t - secs) * 1e9).round().min(999_999_999.0) as i64)
}

/// # Safety
/// `ts` is writable.
#[no_mangle]
pub unsafe extern "C" fn clock_gettime(clock: libc::clockid_t, ts: *mut libc::timespec) -> c_int {
    if let (Some(real), false) = (elapsed_clock(clock), ts.is_null()) {
        if let Some(now) = virtual_now() {
            let t = if real { epoch(now) + now } else { now };
            let (s, ns) = split(t);
            (*ts).tv_sec = s;
            (*ts).tv_nsec = ns;
            return 0;
        }
    }
    machine(clock, ts)
}

/// # Safety
/// `tv` is writable or null.
#[no_mangle]
pub unsafe extern "C" fn gettimeofday(tv: *mut libc::timeval, _tz: *mut c_void) -> c_int {
    if tv.is_null() {
        return 0;
    }
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    let rc = clock_gettime(libc::CLOCK_REALTIME, &mut ts);
    (*tv).tv_sec = ts.tv_sec;
    (*tv).tv_usec = ts.tv_nsec / 1000;
    rc
}
