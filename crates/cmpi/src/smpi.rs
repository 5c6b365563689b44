//! SMPI's source annotations (`smpi/smpi.h`), so programs written for SimGrid's SMPI
//! run unchanged: declared delays and flops, sampled loops, and shared memory.
//!
//! * `smpi_execute(s)` and `smpi_execute_flops(f)` add `s` seconds (or `f` flops at
//!   the rank's simulated host speed) of simulated computation before the next call.
//! * A sampled loop (`SMPI_SAMPLE_LOCAL`, `SMPI_SAMPLE_GLOBAL`) runs its iterations,
//!   measuring each one's CPU time, until it has enough samples: as many as the
//!   annotation's count, or (with at least two) until their mean's relative standard
//!   error is below its threshold. The iterations left are not run; each counts as the
//!   samples' mean, scaled like any measured computation (nothing with
//!   `--compute none`). Later runs of the loop reuse the samples: once enough, no
//!   iteration runs. `LOCAL` keeps each rank's samples apart; `GLOBAL` pools every
//!   rank's, through `simpi run`.
//! * `SMPI_SHARED_MALLOC` gives every rank allocating at one call site the same
//!   memory (a file `simpi run` holds, mapped by each): memory-heavy programs whose
//!   results do not depend on those buffers fold them. `SMPI_PARTIAL_SHARED_MALLOC`
//!   shares only the blocks it names; the rest is the rank's own.

use crate::client::{cpu_ns, entry, Client, Failure};
use simpi_wire::{abi, Call, SharedMemory};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Mutex;

/// One sampled loop's state in this rank.
#[derive(Default)]
struct Loop {
    /// This rank's samples (local loops): count, sum and sum of squares of their
    /// nanoseconds.
    count: u64,
    sum: f64,
    squares: f64,
    /// Iterations run in the current execution of the loop.
    ran: u64,
    /// When the iteration running started (CPU nanoseconds), if one is.
    started: Option<u64>,
}

/// Sampled loops by call site, and shared allocations by address (their length and
/// the mapping to undo).
struct State {
    loops: HashMap<String, Loop>,
    shared: HashMap<usize, (usize, usize)>,
}

static STATE: crate::rank_local::RankLocal<Mutex<Option<State>>> =
    crate::rank_local::RankLocal::new(|| Mutex::new(None));

fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
    let mut g = STATE.get().lock().unwrap_or_else(|p| p.into_inner());
    let s = g.get_or_insert_with(|| State {
        loops: HashMap::new(),
        shared: HashMap::new(),
    });
    f(s)
}

/// Whether samples (count, sum, sum of squares) are enough: `max` of them, or at
/// least two whose mean's relative standard error is below `threshold`.
pub fn enough((count, sum, squares): (u64, f64, f64), max: c_int, threshold: f64) -> bool {
    if max > 0 && count >= max as u64 {
        return true;
    }
    if count < 2 || threshold <= 0.0 {
        return false;
    }
    let n = count as f64;
    let mean = sum / n;
    let var = ((squares - n * mean * mean) / (n - 1.0)).max(0.0);
    mean > 0.0 && (var / n).sqrt() / mean < threshold
}

/// `seconds` as picoseconds, or an error.
fn seconds_ps(seconds: f64) -> Result<u64, Failure> {
    let ps = seconds * 1e12;
    if !(ps.is_finite() && ps >= 0.0 && ps < u64::MAX as f64) {
        return Err((abi::err::ARG, format!("a delay of {seconds} s")));
    }
    Ok(ps.round() as u64)
}

#[no_mangle]
pub extern "C" fn smpi_execute(seconds: f64) {
    entry("smpi_execute", |c| {
        c.inject_ps(seconds_ps(seconds)?);
        Ok(())
    });
}

#[no_mangle]
pub extern "C" fn smpi_execute_benched(seconds: f64) {
    smpi_execute(seconds)
}

#[no_mangle]
pub extern "C" fn smpi_execute_flops(flops: f64) {
    entry("smpi_execute_flops", |c| {
        c.inject_ps(seconds_ps(flops / c.host_flops)?);
        Ok(())
    });
}

#[no_mangle]
pub extern "C" fn smpi_execute_flops_benched(flops: f64) {
    smpi_execute_flops(flops)
}

/// Measurement between these is always on in simpi: nothing to do.
#[no_mangle]
pub extern "C" fn smpi_bench_begin() {}

/// See [`smpi_bench_begin`].
#[no_mangle]
pub extern "C" fn smpi_bench_end() {}

/// The samples of loop `key` once `sample` (if any) is added: this rank's (local) or
/// every rank's (global, through `simpi run`).
fn samples(c: &mut Client, key: &str, global: bool, sample: Option<u64>) -> Result<(u64, f64, f64), Failure> {
    if !global {
        return Ok(with_state(|s| {
            let l = s.loops.entry(key.to_string()).or_default();
            if let Some(ns) = sample {
                let x = ns as f64;
                l.count += 1;
                l.sum += x;
                l.squares += x * x;
            }
            (l.count, l.sum, l.squares)
        }));
    }
    let reply = c.call(Call::Sample {
        key: key.to_string(),
        sample_ns: sample,
    });
    let d = reply.into_iter().next().map(|m| m.data).unwrap_or_default();
    if d.len() != 24 {
        return Err((abi::err::INTERN, "a malformed reply to a sample".into()));
    }
    let word = |i: usize| u64::from_le_bytes(d[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]));
    Ok((word(0), f64::from_bits(word(1)), f64::from_bits(word(2))))
}

/// The loop test of a sampled loop (see `smpi/smpi.h`): whether to run one more
/// iteration. `total` is the loop's iteration count, `more` its own condition.
///
/// # Safety
/// `file` and `tag` are C strings.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn simpi_sample_next(
    global: c_int,
    file: *const c_char,
    line: c_int,
    tag: *const c_char,
    max: c_int,
    threshold: f64,
    total: i64,
    more: c_int,
) -> c_int {
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    let key = format!("{}:{line}:{}", text(file), text(tag));
    let mut go = 0;
    entry("SMPI_SAMPLE", |c| {
        let now = cpu_ns();
        let ended = with_state(|s| {
            let l = s.loops.entry(key.clone()).or_default();
            l.started.take().map(|t0| {
                l.ran += 1;
                now.saturating_sub(t0)
            })
        });
        // A local loop adds its sample here; a global one when it asks.
        let stats = samples(c, &key, global != 0, ended)?;
        let ran = with_state(|s| s.loops.get(&key).map(|l| l.ran).unwrap_or(0));
        if more == 0 {
            with_state(|s| s.loops.entry(key.clone()).or_default().ran = 0);
            return Ok(());
        }
        if enough(stats, max, threshold) {
            // The iterations left count as the mean, scaled like measured compute.
            let left = (total.max(0) as u64).saturating_sub(ran);
            let mean_ns = if stats.0 > 0 { stats.1 / stats.0 as f64 } else { 0.0 };
            let ps = left as f64 * mean_ns * c.compute_scale();
            if ps.is_finite() && ps > 0.0 {
                c.inject_ps(ps.min(u64::MAX as f64) as u64);
            }
            with_state(|s| s.loops.entry(key.clone()).or_default().ran = 0);
            return Ok(());
        }
        with_state(|s| s.loops.entry(key.clone()).or_default().started = Some(cpu_ns()));
        go = 1;
        Ok(())
    });
    go
}

/// Maps `len` bytes of the file `m` names at `at` (or anywhere if null).
unsafe fn map_file(m: &SharedMemory, len: usize, at: *mut c_void) -> Result<*mut c_void, Failure> {
    let path = format!("/proc/{}/fd/{}\0", m.pid, m.fd);
    let fd = libc::open(path.as_ptr() as *const c_char, libc::O_RDWR | libc::O_CLOEXEC);
    if fd < 0 {
        return Err((
            abi::err::NO_MEM,
            format!("cannot open shared memory: {}", std::io::Error::last_os_error()),
        ));
    }
    let flags = libc::MAP_SHARED | if at.is_null() { 0 } else { libc::MAP_FIXED };
    let p = libc::mmap(at, len, libc::PROT_READ | libc::PROT_WRITE, flags, fd, 0);
    libc::close(fd);
    if p == libc::MAP_FAILED {
        return Err((
            abi::err::NO_MEM,
            format!("cannot map shared memory: {}", std::io::Error::last_os_error()),
        ));
    }
    Ok(p)
}

fn shared_file(c: &mut Client, key: String, size: u64) -> Result<SharedMemory, Failure> {
    let reply = c.call(Call::SharedMalloc { key, size });
    let d = reply.into_iter().next().map(|m| m.data).unwrap_or_default();
    SharedMemory::decode(&d).map_err(|e| (abi::err::INTERN, e.to_string()))
}

/// # Safety
/// `file` is a C string.
#[no_mangle]
pub unsafe extern "C" fn smpi_shared_malloc(size: usize, file: *const c_char, line: c_int) -> *mut c_void {
    let site = if file.is_null() {
        String::new()
    } else {
        CStr::from_ptr(file).to_string_lossy().into_owned()
    };
    let mut out = std::ptr::null_mut();
    entry("SMPI_SHARED_MALLOC", |c| {
        let len = size.max(1);
        let m = shared_file(c, format!("{site}:{line}"), len as u64)?;
        let p = map_file(&m, len, std::ptr::null_mut())?;
        with_state(|s| s.shared.insert(p as usize, (p as usize, len)));
        out = p;
        Ok(())
    });
    out
}

/// # Safety
/// `offsets` holds `2 * blocks` sizes: the start and end of each shared block.
#[no_mangle]
pub unsafe extern "C" fn smpi_shared_malloc_partial(size: usize, offsets: *const usize, blocks: c_int) -> *mut c_void {
    let mut out = std::ptr::null_mut();
    entry("SMPI_PARTIAL_SHARED_MALLOC", |c| {
        let page = libc::sysconf(libc::_SC_PAGESIZE).max(4096) as usize;
        let len = size.max(1).next_multiple_of(page);
        let base = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if base == libc::MAP_FAILED {
            return Err((abi::err::NO_MEM, format!("cannot allocate {size} bytes")));
        }
        let n = blocks.max(0) as usize;
        if n > 0 && offsets.is_null() {
            return Err((abi::err::ARG, "no block offsets".into()));
        }
        let widest = (0..n)
            .map(|i| (*offsets.add(2 * i + 1)).saturating_sub(*offsets.add(2 * i)))
            .max()
            .unwrap_or(0);
        if widest > 0 {
            // One file for every rank's shared blocks: their contents mean nothing.
            let m = shared_file(c, String::new(), widest.next_multiple_of(page) as u64)?;
            for i in 0..n {
                let (a, b) = (*offsets.add(2 * i), (*offsets.add(2 * i + 1)).min(size));
                if a > b {
                    return Err((abi::err::ARG, format!("shared block {i} ends before it starts")));
                }
                // Whole pages inside the block are shared; its edges stay private.
                let (from, to) = (a.next_multiple_of(page), b - b % page);
                if to > from {
                    map_file(&m, to - from, (base as *mut u8).add(from) as *mut c_void)?;
                }
            }
        }
        with_state(|s| s.shared.insert(base as usize, (base as usize, len)));
        out = base;
        Ok(())
    });
    out
}

/// # Safety
/// `data` came from one of the shared allocations above.
#[no_mangle]
pub unsafe extern "C" fn smpi_shared_free(data: *mut c_void) {
    if let Some((at, len)) = with_state(|s| s.shared.remove(&(data as usize))) {
        libc::munmap(at as *mut c_void, len);
    }
}

#[cfg(test)]
mod tests {
    use super::enough;

    #[test]
    fn samples_are_enough_at_the_count_or_below_the_relative_standard_error() {
        // Three samples of 10, 12, 14: mean 12, s = 2, standard error 2/sqrt(3) =
        // 1.155, relative 0.0962.
        let s = (3, 36.0, 100.0 + 144.0 + 196.0);
        assert!(enough(s, 0, 0.1));
        assert!(!enough(s, 0, 0.09));
        assert!(enough(s, 3, 0.0));
        assert!(!enough(s, 4, 0.0));
        // One sample is never enough by error alone.
        assert!(!enough((1, 5.0, 25.0), 0, 0.5));
    }
}
