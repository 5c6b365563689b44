//! Ranks as coroutines of the simulator's own process (`simpi run --in-process`): the
//! C interface through which `simpi run` starts and runs them in simpi's MPI library.
//!
//! The library holds the coroutines; `simpi run` loads a copy of the program per rank,
//! hands the library each copy's `main`, and then runs rank `r` with
//! [`RESUME`]`(r, reply)`: the rank runs on its own stack, in this thread, until its
//! next request to the simulator (the same bytes a mailbox would carry) or its end.
//! No process switch and no system call lies between a call and its reply.

use std::ffi::{c_char, c_int, c_void};

/// The interface's version: `simpi run` refuses a library of another.
pub const VERSION: u32 = 1;

/// The library's function giving [`VERSION`]: `extern "C" fn() -> u32`.
pub const VERSION_FN: &std::ffi::CStr = c"simpi_in_process_version";
/// The library's [`MakeFn`].
pub const MAKE: &std::ffi::CStr = c"simpi_in_process_make";
/// The library's [`ResumeFn`].
pub const RESUME: &std::ffi::CStr = c"simpi_in_process_resume";
/// The library's [`EndFn`].
pub const END: &std::ffi::CStr = c"simpi_in_process_end";

/// A program's `main(argc, argv, envp)`.
pub type MainFn = unsafe extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) -> c_int;

/// Makes `n` ranks: rank `r` runs `mains[r]` (its copy of the program, loaded as
/// `handles[r]`, where the library looks up the program's own symbols) with its own
/// copy of `argv` (`argc` strings), on a stack of `stack_bytes`; none runs yet. 0, or
/// -1 if ranks are made and not yet ended ([`EndFn`]) or a stack cannot be had.
///
/// # Safety
/// `mains` and `handles` hold `n` entries each, `argv` holds `argc` strings.
pub type MakeFn = unsafe extern "C" fn(
    n: u32,
    mains: *const MainFn,
    handles: *const *mut c_void,
    argc: c_int,
    argv: *const *const c_char,
    stack_bytes: usize,
) -> c_int;

/// Runs rank `r` until it makes its next request or ends, and says which in `out`.
/// `reply` (`len` bytes) answers the rank's last request; at the rank's first resume
/// it is ignored. A rank that ended is never resumed.
///
/// # Safety
/// `reply` holds `len` bytes; `out` is writable.
pub type ResumeFn = unsafe extern "C" fn(r: u32, reply: *const u8, len: usize, out: *mut Yielded);

/// Ends the ranks made last: those that have not ended are dropped where they
/// stopped, without running anything more of theirs, and the library forgets them
/// (the program's copies may then be unloaded).
pub type EndFn = unsafe extern "C" fn();

/// What a rank did when its resume returned.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Yielded {
    /// One of the `YIELD_*` kinds.
    pub kind: u32,
    /// The exit status, for [`YIELD_RETURNED`] and [`YIELD_EXITED`].
    pub code: c_int,
    /// A request's bytes ([`YIELD_REQUEST`]), or the failure's message in UTF-8
    /// ([`YIELD_FAILED`]): valid until the rank is resumed again.
    pub data: *const u8,
    /// Bytes at `data`.
    pub len: usize,
}

impl Yielded {
    /// Nothing yet (what `out` holds before a resume).
    pub const fn none() -> Yielded {
        Yielded {
            kind: YIELD_FAILED,
            code: 0,
            data: std::ptr::null(),
            len: 0,
        }
    }

    /// The bytes at `data`.
    ///
    /// # Safety
    /// The rank was not resumed since this was filled in.
    pub unsafe fn bytes(&self) -> &[u8] {
        if self.data.is_null() {
            &[]
        } else {
            std::slice::from_raw_parts(self.data, self.len)
        }
    }
}

/// The rank made a request ([`crate::Request`]'s encoding).
pub const YIELD_REQUEST: u32 = 0;
/// The rank's `main` returned `code`.
pub const YIELD_RETURNED: u32 = 1;
/// The rank called `exit(code)`.
pub const YIELD_EXITED: u32 = 2;
/// The rank cannot go on: the library's message says why (the library would have
/// ended a process of its own with it).
pub const YIELD_FAILED: u32 = 3;
