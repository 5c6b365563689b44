//! A shared-memory mailbox between one rank and the simulator: requests and replies
//! strictly alternate, so one buffer carries both. A sender writes the body and bumps
//! its sequence number and wakes the receiver if it sleeps on that number (a futex).
//! By default a receiver sleeps at once: with more processes than cores (the common
//! case, ranks plus the simulator) polling takes the CPU from the process that would
//! answer, and measured 2 to 20 times slower per round trip (docs/performance.md).
//! A body larger than the buffer goes in a memory file of the sender's instead: the
//! buffer then names the file (the sender's process id and descriptor) and the
//! receiver reads it through `/proc`. The sender keeps the file until the other side's
//! next message, which proves it was read. No descriptor stays open per rank (a run
//! of 30,000 ranks would pass the usual limit of open files).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Bytes of body the mailbox holds; longer bodies take a memory file.
const CAPACITY: usize = 4 << 20;
/// The length value that says "the data names a memory file holding the body".
const IN_FILE: u64 = u64::MAX;

/// Which side of the mailbox this is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    /// The rank's process: writes requests, reads replies.
    Rank = 0,
    /// The simulator: reads requests, writes replies.
    Simulator = 1,
}

#[repr(C)]
struct Header {
    /// Messages sent by each side (indexed by [`Side`]).
    sent: [AtomicU32; 2],
    /// Each side is asleep (or about to be) waiting for the other's next message.
    asleep: [AtomicU32; 2],
    /// The current body's length, or [`IN_FILE`].
    len: AtomicU64,
    /// The process id of the simulator, which made the mailbox.
    creator: AtomicU32,
}

const MAP_LEN: usize = std::mem::size_of::<Header>() + CAPACITY;

/// One side's view of a mailbox.
pub struct Mailbox {
    base: *mut u8,
    side: Side,
    /// Messages of the other side read so far.
    seen: u32,
    /// The memory file of the last large body sent, until the other side answers.
    big: Option<File>,
}

// SAFETY: the mapping is owned by this value and only used through `&mut self`.
unsafe impl Send for Mailbox {}

fn futex(word: &AtomicU32, op: i32, val: u32, timeout: Option<&libc::timespec>) {
    let t = timeout.map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a live 4-byte aligned atomic in shared memory; FUTEX_WAIT and
    // FUTEX_WAKE read it and nothing else.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), op, val, t, std::ptr::null::<u32>(), 0);
    }
}

impl Mailbox {
    /// A new mailbox (the simulator's side) and the descriptor the rank maps.
    pub fn create() -> std::io::Result<(Mailbox, OwnedFd)> {
        // SAFETY: a name and flags; the result is checked.
        let fd = unsafe { libc::memfd_create(c"simpi-mailbox".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` was just created and is owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: resizing the file just created.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), MAP_LEN as libc::off_t) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mb = Mailbox::map(fd.as_raw_fd(), Side::Simulator)?;
        mb.header().creator.store(std::process::id(), Ordering::SeqCst);
        Ok((mb, fd))
    }

    /// The rank's side of the mailbox in descriptor `fd`.
    pub fn open(fd: RawFd) -> std::io::Result<Mailbox> {
        Mailbox::map(fd, Side::Rank)
    }

    fn map(fd: RawFd, side: Side) -> std::io::Result<Mailbox> {
        // SAFETY: mapping MAP_LEN bytes of a file at least that long; checked below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                MAP_LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Mailbox {
            base: p.cast(),
            side,
            seen: 0,
            big: None,
        })
    }

    /// The process id of the simulator that made the mailbox.
    pub fn creator(&self) -> u32 {
        self.header().creator.load(Ordering::SeqCst)
    }

    fn header(&self) -> &Header {
        // SAFETY: the mapping starts with a Header (zero-filled is a valid one) and
        // lives as long as `self`.
        unsafe { &*(self.base as *const Header) }
    }

    fn data(&self) -> *mut u8 {
        // SAFETY: the data follows the header inside the mapping.
        unsafe { self.base.add(std::mem::size_of::<Header>()) }
    }

    fn other(&self) -> usize {
        1 - self.side as usize
    }

    /// Sends `body` to the other side.
    pub fn send(&mut self, body: &[u8]) -> std::io::Result<()> {
        if body.len() <= CAPACITY {
            // SAFETY: `body` fits the data area; the other side reads it only after
            // the sequence number below says it is complete.
            unsafe { std::ptr::copy_nonoverlapping(body.as_ptr(), self.data(), body.len()) };
            self.header().len.store(body.len() as u64, Ordering::Relaxed);
        } else {
            // SAFETY: a name and flags; the result is checked.
            let fd = unsafe { libc::memfd_create(c"simpi-body".as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: `fd` was just created and is owned here.
            let mut f = unsafe { File::from_raw_fd(fd) };
            f.write_all(body)?;
            let mut name = [0u8; 16];
            name[..4].copy_from_slice(&std::process::id().to_le_bytes());
            name[4..8].copy_from_slice(&(fd as u32).to_le_bytes());
            name[8..].copy_from_slice(&(body.len() as u64).to_le_bytes());
            // SAFETY: 16 bytes fit the data area.
            unsafe { std::ptr::copy_nonoverlapping(name.as_ptr(), self.data(), name.len()) };
            self.header().len.store(IN_FILE, Ordering::Relaxed);
            self.big = Some(f);
        }
        let h = self.header();
        let me = self.side as usize;
        h.sent[me].fetch_add(1, Ordering::SeqCst);
        if h.asleep[self.other()].load(Ordering::SeqCst) != 0 {
            futex(&h.sent[me], libc::FUTEX_WAKE, 1, None);
        }
        Ok(())
    }

    /// Waits for the other side's next message and returns it. Every `check` (about
    /// every 100 ms while the simulator sleeps; a rank only on a wake-up without a
    /// message) asks whether the other side can still answer; an `Err` from it ends
    /// the wait with that error. A rank sleeps without a timeout: arming a timer costs
    /// about a tenth of a call, and the kernel ends a rank whose simulator died (the
    /// library sets `PR_SET_PDEATHSIG`).
    pub fn receive(&mut self, check: impl FnMut() -> std::io::Result<()>) -> std::io::Result<Vec<u8>> {
        self.receive_with(check, |body| body.to_vec())
    }

    /// [`Mailbox::receive`], giving the body to `read` where it lies instead of
    /// copying it out (a 1 MiB body copied into a fresh vector costs more than the
    /// copy: a page fault per 4 KiB).
    pub fn receive_with<T>(
        &mut self,
        mut check: impl FnMut() -> std::io::Result<()>,
        read: impl FnOnce(&[u8]) -> T,
    ) -> std::io::Result<T> {
        let other = self.other();
        let me = self.side as usize;
        // Read the clock only if yielding is asked for: on some virtual machines a
        // read is a system call.
        let mut start: Option<Instant> = None;
        let mut polls = 0u32;
        loop {
            let h = self.header();
            let now = h.sent[other].load(Ordering::SeqCst);
            if now != self.seen {
                break;
            }
            polls += 1;
            if polls < tuning().0 {
                std::hint::spin_loop();
                continue;
            }
            if !tuning().1.is_zero() && start.get_or_insert_with(Instant::now).elapsed() < tuning().1 {
                // SAFETY: no preconditions.
                unsafe { libc::sched_yield() };
                continue;
            }
            h.asleep[me].store(1, Ordering::SeqCst);
            if h.sent[other].load(Ordering::SeqCst) == self.seen {
                // A rank never wakes by itself: thousands of ranks waking ten times
                // a second would take the machine, and a timer costs (the kernel
                // ends a rank whose simulator died, see the library's connect).
                let t = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 100_000_000,
                };
                let timeout = (self.side == Side::Simulator).then_some(&t);
                futex(&h.sent[other], libc::FUTEX_WAIT, self.seen, timeout);
            }
            h.asleep[me].store(0, Ordering::SeqCst);
            if h.sent[other].load(Ordering::SeqCst) == self.seen {
                check()?;
            }
        }
        self.seen = self.seen.wrapping_add(1);
        // The other side answered: it read the large body this side sent, if any.
        self.big = None;
        let len = self.header().len.load(Ordering::SeqCst);
        if len == IN_FILE {
            let mut name = [0u8; 16];
            // SAFETY: the sender wrote these 16 bytes before moving its sequence number.
            unsafe { std::ptr::copy_nonoverlapping(self.data(), name.as_mut_ptr(), name.len()) };
            let word = |i: usize| u32::from_le_bytes([name[i], name[i + 1], name[i + 2], name[i + 3]]);
            let n = u64::from_le_bytes(name[8..].try_into().unwrap_or([0; 8]));
            if n > 1 << 34 {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "a body past 16 GiB",
                ));
            }
            let mut f = File::open(format!("/proc/{}/fd/{}", word(0), word(4)))?;
            let mut body = vec![0u8; n as usize];
            f.read_exact(&mut body)?;
            return Ok(read(&body));
        }
        if len > CAPACITY as u64 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a body of {len} bytes in a mailbox of {CAPACITY}"),
            ));
        }
        // SAFETY: `len` bytes of the data area, complete since the sequence number
        // moved; the other side writes again only after this side answers, which it
        // cannot do while `read` runs.
        let body = unsafe { std::slice::from_raw_parts(self.data() as *const u8, len as usize) };
        Ok(read(body))
    }
}

/// Polls before yielding (default 0), and how long to yield before sleeping (default
/// none), from `SIMPI_RUN_POLLS` and `SIMPI_RUN_YIELD_US`: for machines with
/// a core to spare for every rank and the simulator.
fn tuning() -> (u32, Duration) {
    static T: std::sync::OnceLock<(u32, Duration)> = std::sync::OnceLock::new();
    *T.get_or_init(|| {
        let polls = std::env::var("SIMPI_RUN_POLLS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let y = std::env::var("SIMPI_RUN_YIELD_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(Duration::ZERO, Duration::from_micros);
        (polls, y)
    })
}

impl Drop for Mailbox {
    fn drop(&mut self) {
        // SAFETY: unmapping this value's own mapping.
        unsafe { libc::munmap(self.base.cast(), MAP_LEN) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_small_and_large_cross_both_ways_in_order() {
        let (mut sim, fd) = Mailbox::create().unwrap();
        let mut rank = Mailbox::open(fd.as_raw_fd()).unwrap();
        let t = std::thread::spawn(move || {
            for i in 0..100u32 {
                let q = rank.receive(|| Ok(())).unwrap();
                assert_eq!(q, i.to_le_bytes());
                rank.send(&(i * 2).to_le_bytes()).unwrap();
            }
            let big = rank.receive(|| Ok(())).unwrap();
            assert_eq!(big.len(), CAPACITY + 3);
            assert!(big.iter().all(|&b| b == 7));
            rank.send(&vec![9u8; 2 * CAPACITY]).unwrap();
            assert_eq!(rank.receive(|| Ok(())).unwrap(), b"done");
        });
        for i in 0..100u32 {
            sim.send(&i.to_le_bytes()).unwrap();
            let r = sim.receive(|| Ok(())).unwrap();
            assert_eq!(r, (i * 2).to_le_bytes());
        }
        sim.send(&vec![7u8; CAPACITY + 3]).unwrap();
        let back = sim.receive(|| Ok(())).unwrap();
        assert_eq!(back.len(), 2 * CAPACITY);
        assert!(back.iter().all(|&b| b == 9));
        sim.send(b"done").unwrap();
        t.join().unwrap();
    }

    #[test]
    fn a_wait_ends_with_the_check_s_error() {
        let (mut sim, _fd) = Mailbox::create().unwrap();
        let e = sim.receive(|| Err(std::io::Error::other("gone"))).unwrap_err();
        assert_eq!(e.to_string(), "gone");
    }
}
