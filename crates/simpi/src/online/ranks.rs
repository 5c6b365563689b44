//! Where the ranks of a `simpi run` live, as the session sees them: it answers a rank
//! and takes its next request, one message at a time. Members: [`Processes`] (a
//! process per rank, the default) and [`Coroutines`] (ranks as coroutines of this
//! process, `--in-process`).
//!
//! [`Processes`]: super::processes::Processes
//! [`Coroutines`]: super::coroutines::Coroutines

use simpi_wire::{Reply, Request};

/// The running ranks.
pub trait Ranks {
    /// The process id whose memory holds each rank's (read and written by
    /// `remote`).
    fn pids(&self) -> Vec<i32>;

    /// Rank `r`'s next request; an error names the rank and how it ended if it
    /// ended.
    fn receive(&mut self, r: u32) -> Result<Request, String>;

    /// Gives rank `r` its reply: the rank goes on with it (at once, or when its next
    /// request is taken).
    fn answer(&mut self, r: u32, reply: &Reply) -> Result<(), String>;

    /// Lets every rank end after its MPI_Finalize; the ranks that failed, with how.
    fn wait_all(&mut self) -> Vec<(u32, String)>;

    /// Ends every rank still running.
    fn kill_all(&mut self);
}

/// Restricts this process (and the processes it starts) to the first core it may run
/// on. Best effort: if the affinity cannot be read or set, nothing changes.
pub fn keep_to_one_core() {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the calls read and write only it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return;
        }
        let Some(first) = (0..libc::CPU_SETSIZE as usize).find(|&c| libc::CPU_ISSET(c, &set)) else {
            return;
        };
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(first, &mut one);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one);
    }
}
