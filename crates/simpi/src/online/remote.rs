//! A rank's memory, read and written by the simulator itself (`process_vm_readv`,
//! `process_vm_writev`: the ranks are this process's children, which the kernel lets
//! it reach; ranks that are coroutines of this process are copied from and to
//! directly). One-sided communication moves its data this way, and collectives and
//! messages on large contiguous buffers skip the copies through the mailbox.

/// Whether `pid` is this process: its ranks' memory is this process's own.
fn here(pid: i32) -> bool {
    // SAFETY: no preconditions.
    pid == unsafe { libc::getpid() }
}

/// The smallest contiguous buffer (a collective's, a message's) that a rank leaves
/// in place for the simulator: below about 32 KiB, packing into the mailbox costs
/// less than the system call's page walks (docs/performance.md).
pub const MIN_BYTES: u64 = 64 << 10;

/// Whether this process can read the memory of process `pid` (a container's
/// security policy may forbid it): tries one byte at the start of its first mapping
/// that can be read.
pub fn reachable(pid: i32) -> bool {
    let Ok(maps) = std::fs::read_to_string(format!("/proc/{pid}/maps")) else {
        return false;
    };
    let start = maps.lines().find_map(|l| {
        let mut f = l.split_whitespace();
        let range = f.next()?;
        let perms = f.next()?;
        perms
            .starts_with('r')
            .then(|| u64::from_str_radix(range.split('-').next()?, 16).ok())
            .flatten()
    });
    start.is_some_and(|addr| read(pid, addr, &mut [0u8]).is_ok())
}

/// Reads `buf.len()` bytes at `addr` of process `pid`.
pub fn read(pid: i32, addr: u64, buf: &mut [u8]) -> Result<(), String> {
    // SAFETY: `buf` is this process's, writable for its length.
    unsafe { read_raw(pid, addr, buf.as_mut_ptr(), buf.len()) }
}

/// `len` bytes at `addr` of process `pid`, in a new vector (not zeroed first).
pub fn read_vec(pid: i32, addr: u64, len: usize) -> Result<Vec<u8>, String> {
    let mut v: Vec<u8> = Vec::new();
    // A program's erroneous count can name more than this machine holds: an error,
    // not an abort.
    v.try_reserve_exact(len)
        .map_err(|_| format!("cannot hold the {len} bytes at {addr:#x}"))?;
    // SAFETY: the spare capacity holds `len` bytes; once all are written they are
    // the vector's.
    unsafe {
        read_raw(pid, addr, v.as_mut_ptr(), len)?;
        v.set_len(len);
    }
    Ok(v)
}

/// Reads `len` bytes at `addr` of process `pid` into `to`.
///
/// # Safety
/// `to` is writable for `len` bytes.
unsafe fn read_raw(pid: i32, addr: u64, to: *mut u8, len: usize) -> Result<(), String> {
    if here(pid) && len > 0 {
        // A rank's buffer, named by the rank's library: `to` is the simulator's own.
        std::ptr::copy_nonoverlapping(addr as usize as *const u8, to, len);
        return Ok(());
    }
    let mut done = 0usize;
    while done < len {
        let local = libc::iovec {
            iov_base: to.add(done) as *mut libc::c_void,
            iov_len: len - done,
        };
        let remote = libc::iovec {
            iov_base: addr.wrapping_add(done as u64) as *mut libc::c_void,
            iov_len: len - done,
        };
        // The kernel writes `local` and checks `remote`.
        let n = libc::process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if n <= 0 {
            return Err(format!(
                "cannot read {len} bytes at {addr:#x}: {}",
                std::io::Error::last_os_error()
            ));
        }
        done += n as usize;
    }
    Ok(())
}

/// Writes `data` at `addr` of process `pid`.
pub fn write(pid: i32, addr: u64, data: &[u8]) -> Result<(), String> {
    if here(pid) && !data.is_empty() {
        // SAFETY: a rank's buffer, named by the rank's library, that the rank does
        // not use until this reply; `data` is the simulator's own.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), addr as usize as *mut u8, data.len()) };
        return Ok(());
    }
    let mut done = 0usize;
    while done < data.len() {
        let local = libc::iovec {
            iov_base: data[done..].as_ptr() as *mut libc::c_void,
            iov_len: data.len() - done,
        };
        let remote = libc::iovec {
            iov_base: addr.wrapping_add(done as u64) as *mut libc::c_void,
            iov_len: data.len() - done,
        };
        // SAFETY: `local` is this process's buffer, only read; the kernel checks
        // `remote`.
        let n = unsafe { libc::process_vm_writev(pid, &local, 1, &remote, 1, 0) };
        if n <= 0 {
            return Err(format!(
                "cannot write {} bytes at {addr:#x}: {}",
                data.len(),
                std::io::Error::last_os_error()
            ));
        }
        done += n as usize;
    }
    Ok(())
}
