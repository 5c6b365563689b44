//! Ranks as coroutines of this process (`simpi run --in-process`): the program is
//! loaded into this process, a copy per rank (each rank its own globals, as a
//! process of its own would have; one copy for all with shared globals), and simpi's
//! MPI library runs each rank on a stack of its own when the session takes its next
//! request (`simpi_wire::in_process`). A call costs a switch of stacks, not two
//! switches of processes.
//!
//! What the ranks share, as SMPI's ranks do: the C library's state (`rand`'s seed,
//! `strtok`'s position; `getopt`'s is kept per rank by the library), the process's
//! signals and limits, and one core: ranks run one at a time. A rank that crashes
//! ends the run (a process of its own would end alone).

use super::crash;
use super::loadable::{self, Image};
use super::ranks::Ranks;
use simpi_wire::in_process::{
    EndFn, MainFn, MakeFn, ResumeFn, Yielded, END, MAKE, RESUME, VERSION, VERSION_FN, YIELD_EXITED, YIELD_FAILED,
    YIELD_REQUEST, YIELD_RETURNED,
};
use simpi_wire::{Reply, Request};
use std::ffi::{c_char, c_void, CStr, CString, OsString};
use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// How the program's copies are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InProcess {
    /// One copy of the program for all ranks: their globals are shared (as SMPI's
    /// `smpi/privatization:no`), and nothing is copied per rank.
    pub shared_globals: bool,
    /// Each rank's stack, in bytes.
    pub stack_bytes: usize,
}

impl InProcess {
    /// A stack as large as a process's main thread has by default (8 MiB): its
    /// pages are only taken as the rank uses them.
    pub const DEFAULT_STACK: usize = 8 << 20;
}

/// The ranks, running in this process.
pub struct Coroutines {
    resume: ResumeFn,
    end: EndFn,
    /// The program's copies, unloaded when the run ends.
    copies: Vec<*mut c_void>,
    /// Their files, kept open while they are loaded: a copy's name is its file's
    /// descriptor, and `dlopen` takes a name it knows for the copy it loaded.
    _files: Vec<std::fs::File>,
    /// Each rank's reply, encoded, waiting for it to be taken on.
    replies: Vec<Vec<u8>>,
    /// Each rank was answered and has not gone on since.
    answered: Vec<bool>,
    /// Each rank ended, and its exit status.
    ended: Vec<Option<i32>>,
}

impl Coroutines {
    /// Loads `program` (a copy per rank unless `how` shares the globals) and makes
    /// `n` ranks of `program args`; none runs before its first request is taken.
    pub fn start(program: &OsString, args: &[OsString], n: u32, how: InProcess) -> Result<Coroutines, String> {
        let path = find(program)?;
        let image = loadable::prepare(&path)?;
        let count = if how.shared_globals { 1 } else { n };
        let mut loaded = Vec::with_capacity(count as usize);
        for r in 0..count {
            match load(&path, &image, r, n) {
                Ok(copy) => loaded.push(copy),
                Err(e) => {
                    unload(&loaded.iter().map(|l| l.0).collect::<Vec<_>>());
                    return Err(e);
                }
            }
        }
        let copies: Vec<*mut c_void> = loaded.iter().map(|l| l.0).collect();
        let mains_of: Vec<MainFn> = loaded.iter().map(|l| l.1).collect();
        let files: Vec<std::fs::File> = loaded.into_iter().map(|l| l.2).collect();
        let first = copies[0];
        // SAFETY: the names are NUL-terminated; each symbol, if there, is the
        // library's function of the type `simpi_wire::in_process` gives it.
        let (version, make, resume, end) = unsafe {
            let find = |name: &CStr| libc::dlsym(first, name.as_ptr());
            let (v, m, r, e) = (find(VERSION_FN), find(MAKE), find(RESUME), find(END));
            if v.is_null() || m.is_null() || r.is_null() || e.is_null() {
                unload(&copies);
                return Err(format!(
                    "{} does not use simpi's MPI library with ranks in one process (rebuild it with simpicc, or run it without --in-process)",
                    path.display()
                ));
            }
            let v: extern "C" fn() -> u32 = std::mem::transmute(v);
            (
                v(),
                std::mem::transmute::<*mut c_void, MakeFn>(m),
                std::mem::transmute::<*mut c_void, ResumeFn>(r),
                std::mem::transmute::<*mut c_void, EndFn>(e),
            )
        };
        if version != VERSION {
            unload(&copies);
            return Err(format!(
                "{} uses another version of simpi's MPI library ({version}, not {VERSION}): rebuild it",
                path.display()
            ));
        }
        let mains: Vec<MainFn> = (0..n).map(|r| mains_of[(r % count) as usize]).collect();
        let handles: Vec<*mut c_void> = (0..n).map(|r| copies[(r % count) as usize]).collect();
        let argv: Vec<CString> = match std::iter::once(program)
            .chain(args)
            .map(|a| CString::new(a.as_bytes()).map_err(|_| format!("an argument holds a NUL byte: {a:?}")))
            .collect::<Result<_, _>>()
        {
            Ok(v) => v,
            Err(e) => {
                unload(&copies);
                return Err(e);
            }
        };
        let argv_ptrs: Vec<*const c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        // SAFETY: `mains` and `handles` hold `n` entries, `argv_ptrs` the strings.
        let made = unsafe {
            make(
                n,
                mains.as_ptr(),
                handles.as_ptr(),
                argv_ptrs.len() as i32,
                argv_ptrs.as_ptr(),
                how.stack_bytes,
            )
        };
        if made != 0 {
            unload(&copies);
            return Err(format!("cannot make {n} ranks of {} in this process", path.display()));
        }
        crash::watch();
        Ok(Coroutines {
            resume,
            end,
            copies,
            _files: files,
            replies: vec![Vec::new(); n as usize],
            answered: vec![false; n as usize],
            ended: vec![None; n as usize],
        })
    }

    /// Runs rank `r` with its reply until it stops; what it did.
    fn run(&mut self, r: u32) -> Stopped {
        let i = r as usize;
        if let Some(code) = self.ended[i] {
            return Stopped::Ended(code);
        }
        let reply = std::mem::take(&mut self.replies[i]);
        self.answered[i] = false;
        let mut out = Yielded::none();
        crash::running(Some(r));
        // SAFETY: `reply` lives across the call; `out` is writable.
        unsafe { (self.resume)(r, reply.as_ptr(), reply.len(), &mut out) };
        crash::running(None);
        // The buffer is kept for the next reply.
        self.replies[i] = reply;
        self.replies[i].clear();
        // SAFETY: the rank is not resumed before `out`'s bytes are read.
        let stopped = match out.kind {
            YIELD_REQUEST => Stopped::Request(Box::new(
                unsafe { Request::decode(out.bytes()) }.map_err(|e| format!("rank {r}: {e}")),
            )),
            YIELD_RETURNED | YIELD_EXITED => Stopped::Ended(out.code),
            YIELD_FAILED => {
                let message = String::from_utf8_lossy(unsafe { out.bytes() }).into_owned();
                // What the rank's own process would have printed before it ended.
                eprintln!("simpi: {message}");
                Stopped::Ended(1)
            }
            other => {
                eprintln!("simpi: rank {r} stopped in a way simpi's MPI library does not say ({other})");
                Stopped::Ended(1)
            }
        };
        if let Stopped::Ended(code) = stopped {
            self.ended[i] = Some(code);
        }
        stopped
    }
}

impl Drop for Coroutines {
    fn drop(&mut self) {
        // What the ranks printed is in the C library's buffers, which a process of
        // their own would have written out at its end: before simpi's summary.
        // SAFETY: flushes every open stream.
        unsafe { libc::fflush(std::ptr::null_mut()) };
        // SAFETY: no rank runs (this thread is here); the library drops the ranks
        // that did not end, and then nothing runs the copies' code.
        unsafe { (self.end)() };
        unload(&self.copies);
        crash::unwatch();
    }
}

/// Unloads the program's copies.
fn unload(copies: &[*mut c_void]) {
    for &h in copies {
        // SAFETY: each handle came from dlopen and is closed once.
        unsafe { libc::dlclose(h) };
    }
}

/// What a rank did when it stopped running.
enum Stopped {
    /// Its request (or why it cannot be read).
    Request(Box<Result<Request, String>>),
    /// It ended, with this exit status.
    Ended(i32),
}

impl Ranks for Coroutines {
    fn pids(&self) -> Vec<i32> {
        // The ranks' memory is this process's.
        vec![std::process::id() as i32; self.replies.len()]
    }

    fn receive(&mut self, r: u32) -> Result<Request, String> {
        match self.run(r) {
            Stopped::Request(request) => *request,
            Stopped::Ended(code) => Err(format!(
                "rank {r} ended without calling MPI_Finalize (exit status {code})"
            )),
        }
    }

    fn answer(&mut self, r: u32, reply: &Reply) -> Result<(), String> {
        let i = r as usize;
        if let Some(code) = self.ended[i] {
            return Err(format!(
                "rank {r} ended while waiting for an MPI call to return (exit status {code})"
            ));
        }
        reply.encode_into(&mut self.replies[i]);
        self.answered[i] = true;
        Ok(())
    }

    fn wait_all(&mut self) -> Vec<(u32, String)> {
        let mut failed = Vec::new();
        for r in 0..self.replies.len() as u32 {
            if !self.answered[r as usize] && self.ended[r as usize].is_none() {
                continue;
            }
            match self.run(r) {
                Stopped::Ended(0) => {}
                Stopped::Ended(code) => failed.push((r, format!("exit status {code}"))),
                Stopped::Request(_) => failed.push((r, "an MPI call after MPI_Finalize".into())),
            }
        }
        failed
    }

    fn kill_all(&mut self) {
        // Ranks that are not resumed never run again; their stacks go with the process.
    }
}

/// The program's file: `program` itself if it names a path, else the first of that
/// name on `PATH` (as a process would be started).
fn find(program: &OsString) -> Result<PathBuf, String> {
    let p = Path::new(program);
    if p.as_os_str().as_bytes().contains(&b'/') {
        return Ok(p.to_path_buf());
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(p))
        .find(|c| c.is_file())
        .ok_or_else(|| format!("cannot find {} (not a path, and not on PATH)", p.display()))
}

/// Loads copy `r` of `image` (of the `n` ranks): its handle, `main`, and its file
/// (to keep open while it is loaded).
fn load(path: &Path, image: &Image, r: u32, n: u32) -> Result<(*mut c_void, MainFn, std::fs::File), String> {
    let name = CString::new(format!("simpi-rank-{r}")).expect("no NUL in the name");
    // SAFETY: creates a memory file; the name is NUL-terminated.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(format!(
            "cannot make a copy of {} for rank {r}: {}",
            path.display(),
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: `fd` was just made and is owned here.
    let mut file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    file.write_all(&image.bytes)
        .map_err(|e| format!("cannot make a copy of {} for rank {r}: {e}", path.display()))?;
    let at = CString::new(format!("/proc/self/fd/{fd}")).expect("no NUL in the path");
    // The program's own definitions come first for it (DEEPBIND): simpi's MPI
    // library's `exit` and clocks, as in a process of its own, rather than those of
    // the C library this process loaded first.
    // SAFETY: loads a library by a NUL-terminated path.
    let handle = unsafe { libc::dlopen(at.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND) };
    if handle.is_null() {
        // SAFETY: dlerror gives the last error's text, or null.
        let why = unsafe {
            let e = libc::dlerror();
            if e.is_null() {
                "unknown".to_string()
            } else {
                CStr::from_ptr(e).to_string_lossy().into_owned()
            }
        };
        let limit = std::fs::read_to_string("/proc/sys/vm/max_map_count").unwrap_or_default();
        return Err(format!(
            "cannot load copy {r} of {} for {n} ranks: {why} (each copy takes memory mappings; the kernel allows {} in a process: use fewer ranks, --shared-globals, or run without --in-process)",
            path.display(),
            limit.trim()
        ));
    }
    // SAFETY: looks up a symbol of the loaded copy.
    let exported = unsafe { libc::dlsym(handle, c"main".as_ptr()) };
    let main = if !exported.is_null() {
        exported
    } else {
        let offset = image.main.ok_or_else(|| {
            format!(
                "{} has no `main` to start its ranks from (is it stripped?)",
                path.display()
            )
        })?;
        (base(handle)? + offset) as *mut c_void
    };
    // SAFETY: `main` is the program's main function.
    Ok((
        handle,
        unsafe { std::mem::transmute::<*mut c_void, MainFn>(main) },
        file,
    ))
}

/// Where a loaded copy's addresses start (its link map's `l_addr`).
fn base(handle: *mut c_void) -> Result<u64, String> {
    let mut map: *const usize = std::ptr::null();
    // SAFETY: RTLD_DI_LINKMAP writes a pointer to the copy's `struct link_map`, whose
    // first field is the load address.
    unsafe {
        if libc::dlinfo(handle, libc::RTLD_DI_LINKMAP, &mut map as *mut _ as *mut c_void) != 0 || map.is_null() {
            return Err("cannot find where the program was loaded".into());
        }
        Ok(*map as u64)
    }
}
