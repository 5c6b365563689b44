//! Ranks as coroutines of `simpi run`'s own process (`simpi run --in-process`).
//!
//! `simpi run` loads a copy of the program per rank (so each rank has its own
//! globals) and gives this library each copy's `main` ([`simpi_in_process_make`]).
//! Each rank then runs on a stack of its own, in `simpi run`'s thread, when it is
//! resumed ([`simpi_in_process_resume`]), until its next request to the simulator:
//! [`exchange`] suspends it with the request's bytes, and the next resume brings the
//! reply. A hand-over is a switch of stacks, not of processes. The rank's end comes
//! back the same way: its `main` returning, its `exit` (this library's, which the
//! program's copy binds first), or a failure the library would have ended a process
//! with ([`end`]).
//!
//! Everything runs in one thread: [`rank_local`](crate::rank_local) keeps each
//! rank's state apart, switched with the rank. C library state that programs use
//! between MPI calls without expecting others to touch it, `getopt`'s, is kept per
//! rank too.

use crate::rank_local;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use simpi_wire::in_process::{MainFn, Yielded, VERSION, YIELD_EXITED, YIELD_FAILED, YIELD_REQUEST, YIELD_RETURNED};
use std::cell::UnsafeCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// Why a rank stopped running.
enum Stop {
    /// It asks the simulator (the request's bytes, valid while it is suspended).
    Request(*const u8, usize),
    /// It called `exit`.
    Exited(c_int),
    /// The library cannot go on with it.
    Failed(String),
}

/// What a resumed rank receives: the reply's bytes.
type Reply = (*const u8, usize);

type Rank = Coroutine<Reply, Stop, c_int, DefaultStack>;

/// `getopt`'s globals, which the C library keeps once per process.
#[derive(Clone, Copy)]
struct Getopt {
    optind: c_int,
    opterr: c_int,
    optopt: c_int,
    optarg: *mut c_char,
}

extern "C" {
    static mut optind: c_int;
    static mut opterr: c_int;
    static mut optopt: c_int;
    static mut optarg: *mut c_char;
    static mut environ: *mut *mut c_char;
}

impl Getopt {
    /// What a new process starts with.
    const FRESH: Getopt = Getopt {
        optind: 1,
        opterr: 1,
        optopt: b'?' as c_int,
        optarg: std::ptr::null_mut(),
    };

    /// Makes these the C library's.
    unsafe fn install(self) {
        optind = self.optind;
        opterr = self.opterr;
        optopt = self.optopt;
        optarg = self.optarg;
    }

    /// The C library's now.
    unsafe fn saved() -> Getopt {
        Getopt {
            optind,
            opterr,
            optopt,
            optarg,
        }
    }
}

/// One rank: its coroutine (`None` once it ended), what it keeps for the C library,
/// and the message of its failure (kept for the [`Yielded`] that points to it).
struct Slot {
    co: Option<Rank>,
    getopt: Getopt,
    failure: String,
}

/// The ranks of one run.
struct Run {
    /// Touched only by the thread that resumes the ranks, and never while one of them
    /// runs (a rank reaches its own yielder through `yielders`).
    slots: UnsafeCell<Vec<Slot>>,
    /// Each rank's yielder, set when its coroutine starts.
    yielders: Box<[AtomicPtr<Yielder<Reply, Stop>>]>,
    /// Each rank's copy of the program, as `dlopen` gave it.
    handles: Box<[usize]>,
    /// The thread that resumes the ranks.
    thread: libc::pthread_t,
}

// SAFETY: the slots are touched only by `thread` (checked in every entry point), the
// rest is atomic or read-only.
unsafe impl Sync for Run {}
// SAFETY: as for Sync.
unsafe impl Send for Run {}

/// The current run (null: none; the process is one rank, or between runs).
static RUN: AtomicPtr<Run> = AtomicPtr::new(std::ptr::null_mut());
/// A rank is running (its code, or this library's on its behalf).
static RUNNING: AtomicBool = AtomicBool::new(false);

fn this_thread() -> libc::pthread_t {
    // SAFETY: no preconditions (and no system call: it is read from the thread's
    // own block).
    unsafe { libc::pthread_self() }
}

fn run() -> Option<&'static Run> {
    // SAFETY: a run is freed only by `simpi_in_process_end`, which the resuming thread
    // calls when no rank runs and nothing of the run is borrowed.
    unsafe { RUN.load(Ordering::Acquire).as_ref() }
}

/// Whether the caller is a rank running as a coroutine (in its own thread: not a
/// thread the program started).
pub fn in_rank() -> bool {
    RUNNING.load(Ordering::Relaxed) && run().is_some_and(|r| r.thread == this_thread())
}

/// Where the program's own symbols are looked up (`dlsym`): the running rank's copy
/// of it, or every object of the process when it is one rank.
pub fn program() -> *mut c_void {
    match run() {
        Some(run) => run.handles[rank_local::current() as usize] as *mut c_void,
        None => libc::RTLD_DEFAULT,
    }
}

/// Whether this process runs its ranks as coroutines.
pub fn active() -> bool {
    run().is_some()
}

/// Hands `request` to the simulator and returns `decode` of its reply, which is only
/// valid inside `decode`.
pub fn exchange<R>(request: &[u8], decode: impl FnOnce(&[u8]) -> R) -> R {
    let y = yielder();
    // SAFETY: the yielder belongs to the running rank's coroutine, which is running.
    let (p, len) = unsafe { (*y).suspend(Stop::Request(request.as_ptr(), request.len())) };
    // SAFETY: the resume that brought the reply keeps its `len` bytes alive until
    // this rank suspends again.
    decode(unsafe { bytes(p, len) })
}

/// Ends the running rank: its coroutine never runs again.
pub fn end_exited(code: c_int) -> ! {
    end(Stop::Exited(code))
}

/// Ends the running rank with the failure `message`.
pub fn end_failed(message: String) -> ! {
    end(Stop::Failed(message))
}

fn end(stop: Stop) -> ! {
    let y = yielder();
    // SAFETY: as in `exchange`.
    unsafe { (*y).suspend(stop) };
    // An ended rank is never resumed: nothing can go on from here.
    std::process::abort()
}

fn yielder() -> *const Yielder<Reply, Stop> {
    let y = run()
        .and_then(|run| run.yielders.get(rank_local::current() as usize))
        .map_or(std::ptr::null_mut(), |p| p.load(Ordering::Relaxed));
    if y.is_null() || !in_rank() {
        // Only a running rank's code gets here (`in_rank` is checked by callers).
        std::process::abort();
    }
    y
}

unsafe fn bytes<'a>(p: *const u8, len: usize) -> &'a [u8] {
    if p.is_null() || len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, len)
    }
}

/// The interface's version ([`simpi_wire::in_process::VERSION`]).
#[no_mangle]
pub extern "C" fn simpi_in_process_version() -> u32 {
    VERSION
}

/// See [`simpi_wire::in_process::MakeFn`].
///
/// # Safety
/// As `MakeFn` says.
#[no_mangle]
pub unsafe extern "C" fn simpi_in_process_make(
    n: u32,
    mains: *const MainFn,
    handles: *const *mut c_void,
    argc: c_int,
    argv: *const *const c_char,
    stack_bytes: usize,
) -> c_int {
    let made = catch_unwind(AssertUnwindSafe(|| make(n, mains, handles, argc, argv, stack_bytes)));
    match made {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            eprintln!("simpi: {e}");
            -1
        }
        Err(_) => -1,
    }
}

unsafe fn make(
    n: u32,
    mains: *const MainFn,
    handles: *const *mut c_void,
    argc: c_int,
    argv: *const *const c_char,
    stack_bytes: usize,
) -> Result<(), String> {
    if n == 0 || mains.is_null() || handles.is_null() {
        return Err("no ranks to make".into());
    }
    if !RUN.load(Ordering::Acquire).is_null() {
        return Err("ranks are made already: the run before was not ended".into());
    }
    let args: Vec<CString> = (0..argc.max(0) as usize)
        .map(|i| CStr::from_ptr(*argv.add(i)).to_owned())
        .collect();
    let mut slots = Vec::with_capacity(n as usize);
    for r in 0..n {
        let main = *mains.add(r as usize);
        // Each rank gets its own argv (getopt permutes it in place), kept for ever
        // as a process's is.
        let strings: &'static mut [CString] = Vec::leak(args.clone());
        let pointers: &'static mut [*mut c_char] = Vec::leak(
            strings
                .iter_mut()
                .map(|s| s.as_ptr() as *mut c_char)
                .chain(std::iter::once(std::ptr::null_mut()))
                .collect(),
        );
        let argv = pointers.as_mut_ptr() as usize;
        let stack = DefaultStack::new(stack_bytes)
            .map_err(|e| format!("cannot have a stack of {stack_bytes} bytes for rank {r} of {n}: {e}"))?;
        let co = Coroutine::with_stack(stack, move |y: &Yielder<Reply, Stop>, _: Reply| {
            if let Some(run) = run() {
                run.yielders[r as usize].store(y as *const _ as *mut _, Ordering::Relaxed);
            }
            // SAFETY: `main` is the program's, given its own argv and the
            // process's environment.
            unsafe { main(argc, argv as *mut *mut c_char, environ) }
        });
        slots.push(Slot {
            co: Some(co),
            getopt: Getopt::FRESH,
            failure: String::new(),
        });
    }
    let run = Box::new(Run {
        slots: UnsafeCell::new(slots),
        yielders: (0..n).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect(),
        handles: (0..n as usize).map(|r| *handles.add(r) as usize).collect(),
        thread: this_thread(),
    });
    rank_local::begin(n);
    RUN.store(Box::into_raw(run), Ordering::Release);
    Ok(())
}

/// See [`simpi_wire::in_process::EndFn`].
#[no_mangle]
pub extern "C" fn simpi_in_process_end() {
    let Some(run) = run() else {
        return;
    };
    if run.thread != this_thread() || RUNNING.load(Ordering::Relaxed) {
        return;
    }
    let p = RUN.swap(std::ptr::null_mut(), Ordering::AcqRel);
    // SAFETY: `p` came from `Box::into_raw` in `make`; no rank runs, so nothing of
    // the run is borrowed.
    let mut run = unsafe { Box::from_raw(p) };
    for slot in run.slots.get_mut() {
        forget_rank(slot);
    }
    rank_local::begin(1);
}

/// See [`simpi_wire::in_process::ResumeFn`].
///
/// # Safety
/// As `ResumeFn` says.
#[no_mangle]
pub unsafe extern "C" fn simpi_in_process_resume(r: u32, reply: *const u8, len: usize, out: *mut Yielded) {
    let fail = |slot: Option<&mut Slot>, message: String| -> Yielded {
        match slot {
            Some(s) => {
                s.failure = message;
                Yielded {
                    kind: YIELD_FAILED,
                    code: 1,
                    data: s.failure.as_ptr(),
                    len: s.failure.len(),
                }
            }
            None => Yielded::none(),
        }
    };
    let Some(run) = run().filter(|run| run.thread == this_thread() && !RUNNING.load(Ordering::Relaxed)) else {
        *out = Yielded::none();
        return;
    };
    // SAFETY: no rank runs now (resumes do not nest: a rank's code never calls this),
    // so nothing else holds the slots.
    let slots = &mut *run.slots.get();
    let Some(slot) = slots.get_mut(r as usize) else {
        *out = Yielded::none();
        return;
    };
    let Some(co) = slot.co.as_mut() else {
        *out = fail(Some(slot), format!("rank {r} ended: it cannot be resumed"));
        return;
    };
    rank_local::switch_to(r);
    slot.getopt.install();
    RUNNING.store(true, Ordering::Relaxed);
    let result = catch_unwind(AssertUnwindSafe(|| co.resume((reply, len))));
    RUNNING.store(false, Ordering::Relaxed);
    slot.getopt = Getopt::saved();
    *out = match result {
        Ok(CoroutineResult::Yield(Stop::Request(data, len))) => Yielded {
            kind: YIELD_REQUEST,
            code: 0,
            data,
            len,
        },
        Ok(CoroutineResult::Yield(Stop::Exited(code))) => {
            forget_rank(slot);
            Yielded {
                kind: YIELD_EXITED,
                code,
                data: std::ptr::null(),
                len: 0,
            }
        }
        Ok(CoroutineResult::Yield(Stop::Failed(message))) => {
            forget_rank(slot);
            fail(Some(slot), message)
        }
        Ok(CoroutineResult::Return(code)) => {
            slot.co = None;
            Yielded {
                kind: YIELD_RETURNED,
                code,
                data: std::ptr::null(),
                len: 0,
            }
        }
        Err(_) => {
            forget_rank(slot);
            fail(Some(slot), format!("rank {r}: internal error (a bug in simpi)"))
        }
    };
}

/// Drops a rank that stopped in the middle of its code, without unwinding its stack
/// (through C frames): what is on it is abandoned, as a process's is at `exit`.
fn forget_rank(slot: &mut Slot) {
    if let Some(mut co) = slot.co.take() {
        if co.started() && !co.done() {
            // SAFETY: the coroutine is suspended and never resumed again; nothing on
            // its stack is used after this.
            unsafe { co.force_reset() };
        }
    }
}

/// `exit` for the program: a rank running as a coroutine ends (the process goes on
/// with the others); anywhere else, the C library's `exit`.
#[no_mangle]
pub extern "C" fn exit(code: c_int) -> ! {
    if in_rank() {
        end_exited(code);
    }
    // SAFETY: looks up the C library's `exit`, the next definition after this one.
    let next = unsafe { libc::dlsym(libc::RTLD_NEXT, c"exit".as_ptr()) };
    if next.is_null() {
        // SAFETY: no preconditions.
        unsafe { libc::_exit(code) }
    }
    // SAFETY: the C library's `exit` has this signature.
    let real: extern "C" fn(c_int) -> ! = unsafe { std::mem::transmute(next) };
    real(code)
}
