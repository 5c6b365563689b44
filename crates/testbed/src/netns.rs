//! Network namespaces and the TAP devices that join them to the emulated switch.
//!
//! Everything the testbed creates lives inside namespaces named `simpi-<pid>-n<i>`:
//! deleting them (after killing what runs in them) removes every device, so teardown
//! cannot miss anything, and `simpi testbed --cleanup` can find what a killed run left.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;

/// Prefix of every namespace the testbed creates.
pub const PREFIX: &str = "simpi-";

/// Runs `ip` with `args`; the error names the command and what it printed.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run ip ({e}): install iproute2"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Runs `args` inside namespace `ns`.
pub fn in_ns(ns: &str, args: &[&str]) -> Result<(), String> {
    let mut all = vec!["netns", "exec", ns];
    all.extend_from_slice(args);
    ip(&all)
}

/// Names of the existing namespaces that start with [`PREFIX`].
pub fn ours() -> Vec<String> {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with(PREFIX))
        .map(String::from)
        .collect()
}

/// Kills every process inside `ns`, then deletes it.
pub fn delete(ns: &str) -> Result<(), String> {
    for _ in 0..50 {
        let out = Command::new("ip").args(["netns", "pids", ns]).output();
        let pids: Vec<i32> = match out {
            Ok(o) => String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect(),
            Err(_) => Vec::new(),
        };
        if pids.is_empty() {
            break;
        }
        for p in pids {
            // SAFETY: kill(2) on a pid; no memory is involved.
            unsafe {
                libc::kill(p, libc::SIGKILL);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    ip(&["netns", "delete", ns])
}

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TAP: libc::c_short = 0x0002;
const IFF_NO_PI: libc::c_short = 0x1000;

#[repr(C)]
struct IfReq {
    name: [u8; 16],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Creates the TAP device `dev` inside namespace `ns` and returns its file descriptor
/// (non-blocking). The device lives as long as the descriptor: when the testbed ends, or
/// dies, it disappears with it.
pub fn open_tap(ns: &str, dev: &str) -> Result<OwnedFd, String> {
    let ns = ns.to_string();
    let dev = dev.to_string();
    // setns(2) changes the calling thread's namespace only: do it on a thread of its own.
    std::thread::spawn(move || -> Result<OwnedFd, String> {
        let target = File::open(format!("/var/run/netns/{ns}")).map_err(|e| format!("namespace {ns}: {e}"))?;
        // SAFETY: setns on a valid namespace descriptor affects only this thread.
        if unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(format!(
                "cannot enter namespace {ns}: {}",
                std::io::Error::last_os_error()
            ));
        }
        let path = c"/dev/net/tun";
        // SAFETY: open(2) with a valid C string.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(format!("cannot open /dev/net/tun: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: fd was just opened and is owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut req = IfReq {
            name: [0; 16],
            flags: IFF_TAP | IFF_NO_PI,
            _pad: [0; 22],
        };
        req.name[..dev.len().min(15)].copy_from_slice(&dev.as_bytes()[..dev.len().min(15)]);
        // SAFETY: TUNSETIFF reads and writes an ifreq-sized struct we own.
        if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF, &mut req) } != 0 {
            return Err(format!(
                "cannot create TAP {dev} in {ns}: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(fd)
    })
    .join()
    .map_err(|_| "the TAP thread panicked".to_string())?
}

/// Runs `f` on a thread inside namespace `ns` (for measurements with sockets there).
pub fn on_thread_in<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> std::thread::JoinHandle<Result<T, String>> {
    let ns = ns.to_string();
    std::thread::spawn(move || {
        let target = File::open(format!("/var/run/netns/{ns}")).map_err(|e| format!("namespace {ns}: {e}"))?;
        // SAFETY: as in open_tap.
        if unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(format!(
                "cannot enter namespace {ns}: {}",
                std::io::Error::last_os_error()
            ));
        }
        f()
    })
}
