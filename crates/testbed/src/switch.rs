//! The emulated switch: reads Ethernet frames from every node's TAP device, holds each for
//! as long as the [`Fabric`] says its links take, and writes it to the destination's TAP.
//! It runs at the highest normal priority so that busy MPI ranks on few cores do not
//! delay frames (a real-time thread, `SIMPI_SWITCH_FIFO=1`, is throttled by the kernel for
//! 50 ms of every second once it uses 95% of a CPU, which heavy traffic makes it do).

use super::fabric::{Fabric, Shape};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Polling budget: at most `SPIN_BUDGET_NS` of polling per `SPIN_WINDOW_NS`.
const SPIN_WINDOW_NS: u64 = 100_000_000;
const SPIN_BUDGET_NS: u64 = 40_000_000;

/// The MAC address of node `i`: locally administered, `02:73:69:00:hi:lo`.
pub fn mac_of(i: usize) -> [u8; 6] {
    [0x02, 0x73, 0x69, 0x00, (i >> 8) as u8, i as u8]
}

/// The node owning `mac`, if it is one of ours.
pub fn node_of(mac: &[u8], nodes: usize) -> Option<usize> {
    if mac.len() < 6 || mac[..4] != [0x02, 0x73, 0x69, 0x00] {
        return None;
    }
    let i = ((mac[4] as usize) << 8) | mac[5] as usize;
    (i < nodes).then_some(i)
}

/// What the switch did.
#[derive(Debug, Default, Clone, Copy)]
pub struct SwitchStats {
    /// Frames read from the nodes.
    pub received: u64,
    /// Frames written to the nodes.
    pub delivered: u64,
    /// Frames dropped at full queues.
    pub dropped: u64,
    /// Whether the thread got its raised priority.
    pub realtime: bool,
    /// Sum of how late frames were written after their due time (ns).
    pub lateness_sum_ns: u64,
    /// Largest lateness (ns).
    pub lateness_max_ns: u64,
}

fn now_ns(origin: &libc::timespec) -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into t.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    ((t.tv_sec - origin.tv_sec) * 1_000_000_000 + (t.tv_nsec - origin.tv_nsec)) as u64
}

/// Runs the switch until `stop` is set. `taps[i]` is node `i`'s device. Deliveries due
/// within `spin_ns` are awaited by polling rather than sleeping: waking from a timer takes
/// tens of microseconds on an idle (virtual) CPU.
/// While `bypass` is set, frames go straight through (to measure the hosts' own overhead).
pub fn run(
    taps: Vec<OwnedFd>,
    shape: Shape,
    spin_ns: u64,
    stop: Arc<AtomicBool>,
    bypass: Arc<AtomicBool>,
) -> Result<SwitchStats, String> {
    let n = taps.len();
    let mut stats = SwitchStats::default();
    // SAFETY: plain syscalls on this thread; failures are reported, not fatal.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0);
        if std::env::var_os("SIMPI_SWITCH_FIFO").is_some() {
            let p = libc::sched_param { sched_priority: 50 };
            stats.realtime = libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0;
        } else {
            // The highest normal priority: woken first, never throttled.
            stats.realtime = libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, -20) == 0;
        }
    }
    let os = |what: &str| format!("{what}: {}", std::io::Error::last_os_error());
    // SAFETY: epoll and timerfd descriptors are created, used and closed here.
    let epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if epfd < 0 {
        return Err(os("epoll_create1"));
    }
    let tfd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
    if tfd < 0 {
        return Err(os("timerfd_create"));
    }
    let add = |fd: i32, key: u64| -> Result<(), String> {
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: key,
        };
        if unsafe { libc::epoll_ctl(epfd, libc::EPOLL_CTL_ADD, fd, &mut ev) } != 0 {
            return Err(os("epoll_ctl"));
        }
        Ok(())
    };
    for (i, t) in taps.iter().enumerate() {
        add(t.as_raw_fd(), i as u64)?;
    }
    add(tfd, u64::MAX)?;
    let mut origin = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut origin) };
    let mut fabric = Fabric::new(shape);
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; n + 1];
    let mut buf = vec![0u8; 65_600];
    let mut armed_for: Option<u64> = None;
    // Polling is rationed: a real-time thread that never sleeps is throttled by the kernel
    // (sched_rt_runtime_us: 50 ms of every second), which would stall every frame.
    let mut window_start = 0u64;
    let mut spun = 0u64;
    let mut spinning_since: Option<u64> = None;
    while !stop.load(Ordering::Relaxed) {
        // Deliver what is due.
        let now = now_ns(&origin);
        for (dst, frame, due) in fabric.advance(now) {
            let late = now_ns(&origin).saturating_sub(due);
            stats.lateness_sum_ns += late;
            stats.lateness_max_ns = stats.lateness_max_ns.max(late);
            // SAFETY: writing a frame we own to a TAP descriptor.
            let w = unsafe { libc::write(taps[dst].as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
            if w == frame.len() as isize {
                stats.delivered += 1;
            }
        }
        // Wake up for the next delivery: poll when it is close, else sleep on the timer.
        let next = fabric.next_time();
        let t = now_ns(&origin);
        if let Some(since) = spinning_since.take() {
            spun += t - since;
        }
        if t - window_start > SPIN_WINDOW_NS {
            window_start = t;
            spun = 0;
        }
        let close = spun < SPIN_BUDGET_NS && next.is_some_and(|d| d <= t + spin_ns);
        if close {
            spinning_since = Some(t);
        }
        let next = if close {
            None
        } else {
            next.map(|d| d.saturating_sub(spin_ns).max(t.min(d)))
        };
        if next != armed_for {
            let at = next.unwrap_or(0);
            let abs = |ns: u64| libc::timespec {
                tv_sec: origin.tv_sec + (origin.tv_nsec as u64 + ns) as i64 / 1_000_000_000,
                tv_nsec: ((origin.tv_nsec as u64 + ns) % 1_000_000_000) as i64,
            };
            let spec = libc::itimerspec {
                it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
                it_value: if next.is_some() {
                    abs(at.max(1))
                } else {
                    libc::timespec { tv_sec: 0, tv_nsec: 0 }
                },
            };
            unsafe { libc::timerfd_settime(tfd, libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut()) };
            armed_for = next;
        }
        let timeout = if close { 0 } else { 100 };
        let k = unsafe { libc::epoll_wait(epfd, events.as_mut_ptr(), events.len() as i32, timeout) };
        if k < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(os("epoll_wait"));
        }
        for ev in &events[..k as usize] {
            let key = ev.u64;
            if key == u64::MAX {
                let mut expirations = 0u64;
                unsafe { libc::read(tfd, (&mut expirations as *mut u64).cast(), 8) };
                armed_for = None;
                continue;
            }
            let src = key as usize;
            loop {
                // SAFETY: reading into our buffer from a TAP descriptor.
                let r = unsafe { libc::read(taps[src].as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
                if r <= 0 {
                    break;
                }
                let frame = &buf[..r as usize];
                stats.received += 1;
                let t = now_ns(&origin);
                let dst = node_of(&frame[..6.min(frame.len())], n);
                if bypass.load(Ordering::Relaxed) {
                    for d in (0..n).filter(|&d| d != src && dst.is_none_or(|x| x == d)) {
                        // SAFETY: as above.
                        unsafe { libc::write(taps[d].as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
                    }
                    continue;
                }
                match dst {
                    Some(dst) if dst != src => fabric.inject(t, src, dst, frame.to_vec()),
                    Some(_) => {}
                    None => {
                        // Broadcast, multicast or unknown: every other node gets a copy.
                        for dst in (0..n).filter(|&d| d != src) {
                            fabric.inject(t, src, dst, frame.to_vec());
                        }
                    }
                }
            }
        }
    }
    unsafe {
        libc::close(tfd);
        libc::close(epfd);
    }
    stats.dropped = fabric.dropped;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macs_name_their_nodes() {
        assert_eq!(node_of(&mac_of(0), 8), Some(0));
        assert_eq!(node_of(&mac_of(300), 301), Some(300));
        assert_eq!(node_of(&mac_of(8), 8), None);
        assert_eq!(node_of(&[0xff; 6], 8), None);
    }
}
