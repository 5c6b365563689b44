//! The C library's allocator, tuned for message buffers on both sides of the mailbox.

/// Makes the C library's allocator reuse freed blocks of up to 16 MiB instead of
/// mapping each anew and giving it back at once. A collective of 1 MiB buffers
/// allocates several per call on each side; fresh mappings cost a page fault per
/// 4 KiB, which made up a third of the 16-rank `osu_allreduce -m 1048576` run
/// (19.1 s against 12.9 s; docs/performance.md). The price: up to 64 MiB of freed
/// memory may stay with a process, and a few KiB more per process from the start
/// (which is why a rank calls this only once it moves a large message).
pub fn reuse_large_blocks() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only changes allocator settings, under the allocator's lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 16 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}
