//! Ranks that are coroutines of this process (`--in-process`): a rank that crashes
//! takes the process with it, so it is named first, as the session names a rank
//! whose own process died.

use std::sync::atomic::{AtomicU32, Ordering};

/// The rank running now (`u32::MAX`: none).
static RANK: AtomicU32 = AtomicU32::new(u32::MAX);
/// The actions `watch` replaced, restored by `unwatch`.
static BEFORE: std::sync::Mutex<Vec<(libc::c_int, libc::sigaction)>> = std::sync::Mutex::new(Vec::new());

const SIGNALS: [libc::c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL, libc::SIGABRT];

/// Rank `r` runs from now on (`None`: no rank).
pub fn running(r: Option<u32>) {
    RANK.store(r.unwrap_or(u32::MAX), Ordering::Relaxed);
}

/// Reports a crash of a rank from now on, on a stack of its own (the rank's may be
/// what overflowed).
pub fn watch() {
    const ALT: usize = 64 << 10;
    // SAFETY: the alternate stack is allocated once and kept for the process's
    // life; the handler only reads an atomic and writes to standard error.
    unsafe {
        let mut old: libc::stack_t = std::mem::zeroed();
        libc::sigaltstack(std::ptr::null(), &mut old);
        if old.ss_sp.is_null() {
            let stack = libc::stack_t {
                ss_sp: Box::leak(vec![0u8; ALT].into_boxed_slice()).as_mut_ptr().cast(),
                ss_flags: 0,
                ss_size: ALT,
            };
            libc::sigaltstack(&stack, std::ptr::null_mut());
        }
        let mut before = BEFORE.lock().unwrap_or_else(|p| p.into_inner());
        for sig in SIGNALS {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = crashed as *const () as usize;
            act.sa_flags = libc::SA_ONSTACK | libc::SA_RESETHAND;
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, &act, &mut old) == 0 {
                before.push((sig, old));
            }
        }
    }
}

/// Crashes are handled as before `watch` again.
pub fn unwatch() {
    for (sig, old) in BEFORE.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
        // SAFETY: restores an action `sigaction` gave.
        unsafe { libc::sigaction(sig, &old, std::ptr::null_mut()) };
    }
}

extern "C" fn crashed(sig: libc::c_int) {
    let r = RANK.load(Ordering::Relaxed);
    if r != u32::MAX {
        // Formatted without allocating: this runs in a signal handler.
        let mut line = [0u8; 160];
        let mut n = 0;
        let mut put = |bytes: &[u8]| {
            let k = bytes.len().min(line.len() - n);
            line[n..n + k].copy_from_slice(&bytes[..k]);
            n += k;
        };
        let digits = |mut v: u32, buf: &mut [u8; 10]| {
            let mut i = buf.len();
            loop {
                i -= 1;
                buf[i] = b'0' + (v % 10) as u8;
                v /= 10;
                if v == 0 {
                    return i;
                }
            }
        };
        let (mut a, mut b) = ([0u8; 10], [0u8; 10]);
        let ra = digits(r, &mut a);
        let sb = digits(sig as u32, &mut b);
        put(b"simpi: rank ");
        put(&a[ra..]);
        put(b" ended without calling MPI_Finalize (killed by signal ");
        put(&b[sb..]);
        put(b", in simpi's process: --in-process)\n");
        // SAFETY: writes the bytes formatted above.
        unsafe { libc::write(2, line.as_ptr().cast(), n) };
        // SAFETY: no preconditions; the run cannot go on.
        unsafe { libc::_exit(1) };
    }
    // Not a rank's: the default action (SA_RESETHAND restored it).
    // SAFETY: re-raises the signal.
    unsafe { libc::raise(sig) };
}
