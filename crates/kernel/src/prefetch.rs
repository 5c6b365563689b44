//! A cache prefetch hint: the engine knows which operation the next event touches
//! before it gets there, and simulation of millions of ranks is memory-latency bound.

/// Asks the CPU to start loading the cache line holding `r`. Has no effect on results.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        // SSE is part of the x86-64 baseline; the intrinsic is a pure hint.
        #[allow(unused_unsafe)]
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(r as *const T as *const i8);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = r;
    }
}
