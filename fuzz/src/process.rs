//! The set-up of a fuzz target's process ([`init`], from the target's `init:` block).
//!
//! Stack overflows become findings. A fuzz target's `main` is libFuzzer's, so Rust's
//! runtime never installs its stack-overflow handler, and libFuzzer's own SIGSEGV handler
//! runs on the exhausted stack: the process dies without saving the input. The thread
//! gets an alternate signal stack and a SIGSEGV handler on it that aborts; libFuzzer
//! keeps that handler (and its alternate stack) upstream of its own, and saves the input
//! when the abort reaches its SIGABRT handler.
//!
//! The scratch directories go when the process exits normally; those a crash left are
//! removed when the next process starts.
//!
//! Large buffers come from mmap. The GOAL and TIT readers zero a 1 MiB buffer per file;
//! with glibc's adaptive threshold that is a 1 MiB memset at every input (40 % of the
//! GOAL target's time), while fresh mapped pages are zero already.

use std::sync::Once;

/// Allocations from this many bytes are mapped (glibc's initial threshold, made fixed).
const MMAP_THRESHOLD: libc::c_int = 128 << 10;

/// Bytes of the alternate signal stack.
const ALT_STACK: usize = 1 << 16;

extern "C" fn on_segv(_sig: libc::c_int, _info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    const MSG: &[u8] = b"\n==simpi-fuzz: SIGSEGV (most likely a stack overflow: unbounded recursion)\n";
    // SAFETY: write(2) and abort(3) are async-signal-safe; MSG is a valid buffer.
    unsafe {
        libc::write(2, MSG.as_ptr().cast(), MSG.len());
        libc::abort();
    }
}

extern "C" fn remove_scratch() {
    super::scratch::remove_all();
}

/// Sets the process up (once).
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The stack lives as long as the process.
        let stack: &'static mut [u8] = Box::leak(vec![0u8; ALT_STACK].into_boxed_slice());
        let ss = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: ALT_STACK,
        };
        // SAFETY: `ss` describes a live, writable buffer; the sigaction struct is
        // zeroed and then filled with a handler of the SA_SIGINFO signature; mallopt
        // only sets a parameter; the exit hook is a plain function.
        unsafe {
            libc::sigaltstack(&ss, std::ptr::null_mut());
            let mut sa: libc::sigaction = std::mem::zeroed();
            let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = on_segv;
            sa.sa_sigaction = handler as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGSEGV, &sa, std::ptr::null_mut());
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
            libc::atexit(remove_scratch);
        }
        super::scratch::remove_stale();
    });
}
