//! The reader's side of the decoder process (`child.rs`): forks it on a socket pair,
//! asks it for definitions and events, and turns its death or silence into errors that
//! name the file it was reading. The OTF2 library crashes on some malformed files and
//! loops on others; in a child process that costs an error message, not the program.

// Without the OTF2 library the decoder's side is not built, nor what only it uses.
#![cfg_attr(otf2_missing, allow(dead_code))]

#[cfg(not(otf2_missing))]
use super::child::serve;
use super::wire::{Def, Ev, In, Msg, Stage, REQ_READ, REQ_SELECT};
use super::Otf2Error;
use std::collections::VecDeque;
use std::ffi::{c_int, c_void, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the reader waits for the decoder to say anything before calling it stuck.
pub const STALL: Duration = Duration::from_secs(20);

/// The longest frame the reader accepts. The decoder sends a frame once it holds 1 MiB
/// (plus one record of at most 64 KiB of text), so a longer one is garbage.
const MAX_FRAME: u32 = 16 << 20;

/// The files of an archive: `<dir>/<name>.otf2` (anchor), `<name>.def` (global
/// definitions), `<name>/<location>.def` and `.evt`.
#[derive(Clone, Debug)]
pub struct Paths {
    /// The anchor file, as given.
    pub anchor: PathBuf,
    dir: PathBuf,
    name: String,
}

impl Paths {
    /// The files of the archive whose anchor is `anchor`.
    pub fn new(anchor: &Path) -> Paths {
        let dir = anchor.parent().map(Path::to_path_buf).unwrap_or_default();
        let name = anchor
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Paths {
            anchor: anchor.to_path_buf(),
            dir,
            name,
        }
    }

    /// The global definitions file.
    pub fn global_defs(&self) -> String {
        self.dir.join(format!("{}.def", self.name)).display().to_string()
    }

    /// A location's event file.
    pub fn events(&self, location: u64) -> String {
        self.dir
            .join(&self.name)
            .join(format!("{location}.evt"))
            .display()
            .to_string()
    }

    /// A location's local definitions file.
    pub fn local_defs(&self, location: u64) -> String {
        self.dir
            .join(&self.name)
            .join(format!("{location}.def"))
            .display()
            .to_string()
    }

    fn of(&self, stage: Stage, location: u64) -> String {
        match stage {
            Stage::Anchor => self.anchor.display().to_string(),
            Stage::GlobalDefs => self.global_defs(),
            Stage::LocalDefs => self.local_defs(location),
            Stage::Events => self.events(location),
        }
    }
}

/// A running decoder process.
pub struct Decoder {
    pid: libc::pid_t,
    fd: c_int,
    stall: Duration,
    paths: Paths,
    /// Messages received but not yet taken.
    queue: VecDeque<Msg>,
    /// The selected locations (index: rank).
    locations: Vec<u64>,
    /// Set once the process is gone or unusable: every later request fails with it.
    broken: Option<Otf2Error>,
    /// Instead of a process: the bytes one would send, and how many were read. Its
    /// requests go nowhere (see [`Decoder::scripted`]).
    script: Option<(Vec<u8>, usize)>,
    /// Where every byte received is copied too (see [`Decoder::tap`]).
    tap: Option<Arc<Mutex<Vec<u8>>>>,
}

fn sys_err(what: &str) -> String {
    format!("cannot {what}: {}", std::io::Error::last_os_error())
}

/// Closes every descriptor of the child but its socket and the standard ones, which go
/// to /dev/null: descriptors of other children would keep their sockets open.
fn close_others(keep: c_int) {
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            libc::dup2(null, 1);
            libc::dup2(null, 2);
            libc::dup2(null, 0);
        }
        let ranges = [(3u32, keep as u32 - 1), (keep as u32 + 1, u32::MAX)];
        for (lo, hi) in ranges {
            if lo > hi {
                continue;
            }
            if libc::syscall(libc::SYS_close_range, lo, hi, 0) != 0 {
                for fd in lo..hi.min(65536) {
                    libc::close(fd as c_int);
                }
            }
        }
    }
}

impl Decoder {
    /// Starts a decoder on the archive of `paths`; `stall` is how long it may stay silent.
    pub fn spawn(paths: Paths, stall: Duration) -> Result<Decoder, Otf2Error> {
        let file = paths.anchor.display().to_string();
        let anchor = CString::new(paths.anchor.as_os_str().as_bytes()).map_err(|_| Otf2Error {
            file: file.clone(),
            event: 0,
            msg: "the path contains a NUL byte".into(),
        })?;
        let fail = |msg: String| Otf2Error {
            file: file.clone(),
            event: 0,
            msg,
        };
        #[cfg(otf2_missing)]
        {
            let _ = (anchor, stall);
            Err(fail(
                "this simpi was built without the OTF2 library: run scripts/setup (Debian: \
                 libotf2-trace-dev), then build again"
                    .into(),
            ))
        }
        #[cfg(not(otf2_missing))]
        {
            let mut fds = [0 as c_int; 2];
            if unsafe {
                libc::socketpair(
                    libc::AF_UNIX,
                    libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
                    0,
                    fds.as_mut_ptr(),
                )
            } != 0
            {
                return Err(fail(sys_err("create a socket pair for the OTF2 decoder")));
            }
            let pid = unsafe { libc::fork() };
            if pid < 0 {
                let e = fail(sys_err("start the OTF2 decoder process"));
                unsafe {
                    libc::close(fds[0]);
                    libc::close(fds[1]);
                }
                return Err(e);
            }
            if pid == 0 {
                close_others(fds[1]);
                serve(&anchor, fds[1], fds[1]);
            }
            unsafe { libc::close(fds[1]) };
            Ok(Decoder {
                pid,
                fd: fds[0],
                stall,
                paths,
                queue: VecDeque::new(),
                locations: Vec::new(),
                broken: None,
                script: None,
                tap: None,
            })
        }
    }

    /// A decoder without a process that "sends" `stream`, the bytes a decoder process
    /// sent in some run (see [`Decoder::tap`]), whatever it is asked: the coverage-guided
    /// fuzz target of the reader's own code, which a process per input would hide from
    /// the fuzzer. Its end is the end of a process that died.
    pub fn scripted(paths: Paths, stream: Vec<u8>) -> Decoder {
        Decoder {
            pid: 0,
            fd: -1,
            stall: STALL,
            paths,
            queue: VecDeque::new(),
            locations: Vec::new(),
            broken: None,
            script: Some((stream, 0)),
            tap: None,
        }
    }

    /// Copies every byte received from now on into `into`, to make a script of a real
    /// run.
    pub fn tap(&mut self, into: Arc<Mutex<Vec<u8>>>) {
        self.tap = Some(into);
    }

    /// The archive's files.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The global definitions, and the number of locations the library counted.
    pub fn definitions(&mut self) -> Result<(Vec<Def>, u64), Otf2Error> {
        let what = self.paths.global_defs();
        let mut defs = Vec::new();
        loop {
            match self.next(&what)? {
                Msg::Def(d) => defs.push(d),
                Msg::DefsEnd(n) => return Ok((defs, n)),
                other => return Err(self.unexpected(&what, &other)),
            }
        }
    }

    /// Opens the event readers of `locations` (rank `r` reads `locations[r]`).
    pub fn select(&mut self, locations: &[u64]) -> Result<(), Otf2Error> {
        let mut req = vec![REQ_SELECT];
        req.extend_from_slice(&(locations.len() as u64).to_le_bytes());
        for l in locations {
            req.extend_from_slice(&l.to_le_bytes());
        }
        let what = self.paths.events(locations.first().copied().unwrap_or(0));
        self.send(&req, &what)?;
        self.locations = locations.to_vec();
        match self.next(&what)? {
            Msg::Ready => Ok(()),
            other => Err(self.unexpected(&what, &other)),
        }
    }

    /// Reads up to `max` events of rank `rank` into `out`; returns how many were read
    /// (fewer than `max`: the location has no more).
    pub fn read(&mut self, rank: usize, max: u32, out: &mut Vec<Ev>) -> Result<u64, Otf2Error> {
        // A rank not selected (a failed `select`) is named by location 0's file; the
        // request then fails with the decoder's stored error, or as an unknown rank.
        let what = self.paths.events(self.locations.get(rank).copied().unwrap_or(0));
        let mut req = vec![REQ_READ];
        req.extend_from_slice(&(rank as u32).to_le_bytes());
        req.extend_from_slice(&max.to_le_bytes());
        self.send(&req, &what)?;
        loop {
            match self.next(&what)? {
                Msg::Event(e) => out.push(e),
                Msg::BatchEnd(n) => return Ok(n),
                other => return Err(self.unexpected(&what, &other)),
            }
        }
    }

    fn unexpected(&mut self, what: &str, m: &Msg) -> Otf2Error {
        let e = Otf2Error {
            file: what.to_string(),
            event: 0,
            msg: format!("the OTF2 decoder process sent {m:?} out of turn"),
        };
        self.broken = Some(e.clone());
        e
    }

    fn send(&mut self, data: &[u8], what: &str) -> Result<(), Otf2Error> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        if self.script.is_some() {
            return Ok(());
        }
        let mut at = 0;
        while at < data.len() {
            let n = unsafe {
                libc::send(
                    self.fd,
                    data[at..].as_ptr() as *const c_void,
                    data.len() - at,
                    libc::MSG_NOSIGNAL,
                )
            };
            if n < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(self.died(what));
            }
            at += n as usize;
        }
        Ok(())
    }

    /// The next message (reading frames until one holds any: an empty frame only says
    /// the process is alive); a failure the process reports, its death and its silence
    /// are errors naming the file.
    fn next(&mut self, what: &str) -> Result<Msg, Otf2Error> {
        loop {
            if let Some(m) = self.queue.pop_front() {
                return Ok(m);
            }
            if let Some(e) = &self.broken {
                return Err(e.clone());
            }
            let mut len = [0u8; 4];
            self.recv(&mut len, what)?;
            let len = u32::from_le_bytes(len);
            let left = self.script.as_ref().map_or(u32::MAX as usize, |(s, at)| s.len() - at);
            if len > MAX_FRAME || len as usize > left {
                let e = Otf2Error {
                    file: what.to_string(),
                    event: 0,
                    msg: format!("the OTF2 decoder process sent a frame of {len} bytes"),
                };
                self.broken = Some(e.clone());
                return Err(e);
            }
            let mut frame = vec![0u8; len as usize];
            self.recv(&mut frame, what)?;
            let mut input = In::new(&frame);
            loop {
                match input.next_msg() {
                    Ok(Some(Msg::Failed {
                        stage,
                        location,
                        position,
                        message,
                    })) => {
                        let e = Otf2Error {
                            file: self.paths.of(stage, location),
                            event: position,
                            msg: format!("the OTF2 library cannot read it: {message}"),
                        };
                        self.broken = Some(e.clone());
                        return Err(e);
                    }
                    Ok(Some(m)) => self.queue.push_back(m),
                    Ok(None) => break,
                    Err(msg) => {
                        let e = Otf2Error {
                            file: what.to_string(),
                            event: 0,
                            msg,
                        };
                        self.broken = Some(e.clone());
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Fills `buf` with what the decoder sends next, and copies it to the tap if any.
    fn recv(&mut self, buf: &mut [u8], what: &str) -> Result<(), Otf2Error> {
        self.fill(buf, what)?;
        if let Some(tap) = &self.tap {
            tap.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(buf);
        }
        Ok(())
    }

    /// Fills `buf` from the script, or from the socket, waiting at most the stall time
    /// for each piece.
    fn fill(&mut self, buf: &mut [u8], what: &str) -> Result<(), Otf2Error> {
        if let Some((stream, at)) = &mut self.script {
            let Some(next) = stream.get(*at..*at + buf.len()) else {
                return Err(self.died(what));
            };
            buf.copy_from_slice(next);
            *at += buf.len();
            return Ok(());
        }
        let mut at = 0;
        let mut since = Instant::now();
        while at < buf.len() {
            let left = self.stall.saturating_sub(since.elapsed());
            let mut pfd = libc::pollfd {
                fd: self.fd,
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = left.as_millis().min(i32::MAX as u128) as c_int;
            let r = unsafe { libc::poll(&mut pfd, 1, ms) };
            if r < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(self.died(what));
            }
            if r == 0 {
                return Err(self.stuck(what));
            }
            let n = unsafe { libc::recv(self.fd, buf[at..].as_mut_ptr() as *mut c_void, buf.len() - at, 0) };
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            if n <= 0 {
                return Err(self.died(what));
            }
            at += n as usize;
            since = Instant::now();
        }
        Ok(())
    }

    /// The error of a decoder that went silent: it is killed.
    fn stuck(&mut self, what: &str) -> Otf2Error {
        self.kill();
        let e = Otf2Error {
            file: what.to_string(),
            event: 0,
            msg: format!(
                "the OTF2 library made no progress for {} s reading it (a malformed file can make it loop)",
                self.stall.as_secs_f64()
            ),
        };
        self.broken = Some(e.clone());
        e
    }

    /// The error of a decoder that ended without saying why.
    fn died(&mut self, what: &str) -> Otf2Error {
        let status = self.reap();
        let how = match status {
            Some(s) if libc::WIFSIGNALED(s) => {
                let sig = libc::WTERMSIG(s);
                let name = unsafe { libc::strsignal(sig) };
                let name = if name.is_null() {
                    String::new()
                } else {
                    format!(", {}", unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy())
                };
                format!("the OTF2 library crashed reading it (signal {sig}{name}): the file is probably malformed")
            }
            Some(s) if libc::WIFEXITED(s) => format!(
                "the OTF2 decoder process ended early reading it (exit status {})",
                libc::WEXITSTATUS(s)
            ),
            _ => "the OTF2 decoder process went away reading it".to_string(),
        };
        let e = Otf2Error {
            file: what.to_string(),
            event: 0,
            msg: how,
        };
        self.broken = Some(e.clone());
        e
    }

    fn kill(&mut self) {
        if self.pid > 0 {
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
            self.reap();
        }
    }

    /// Waits for the process to end (once); its wait status.
    fn reap(&mut self) -> Option<c_int> {
        if self.pid <= 0 {
            return None;
        }
        let mut status = 0;
        let r = loop {
            let r = unsafe { libc::waitpid(self.pid, &mut status, 0) };
            if r < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break r;
        };
        self.pid = 0;
        (r > 0).then_some(status)
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        if self.fd >= 0 {
            unsafe { libc::close(self.fd) };
        }
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/otf2/handwritten/traces.otf2")
    }

    #[test]
    fn a_decoder_that_crashes_is_an_error_naming_the_file() {
        let mut d = Decoder::spawn(Paths::new(&anchor()), STALL).unwrap();
        let (defs, locations) = d.definitions().unwrap();
        assert_eq!(locations, 3);
        assert!(!defs.is_empty());
        // As the library's failed assertions end it (a segmentation fault sent from
        // outside is not one: the Rust runtime's handler returns from that).
        unsafe { libc::kill(d.pid, libc::SIGABRT) };
        let e = d.select(&[0, 1, 2]).unwrap_err();
        assert!(e.file.ends_with("traces/0.evt"), "{e}");
        assert!(e.msg.contains("crashed") && e.msg.contains("signal 6"), "{e}");
        // It stays broken.
        let mut out = Vec::new();
        assert_eq!(d.read(0, 10, &mut out).unwrap_err(), e);
    }

    #[test]
    fn reading_after_a_select_that_found_the_decoder_dead_is_an_error_not_a_panic() {
        // The decoder is surely gone before the select is sent, so the select fails
        // before it records the ranks' locations; reading a rank must still answer
        // with the decoder's error (CI once met this order).
        let mut d = Decoder::spawn(Paths::new(&anchor()), STALL).unwrap();
        d.definitions().unwrap();
        unsafe { libc::kill(d.pid, libc::SIGKILL) };
        std::thread::sleep(Duration::from_millis(200));
        let e = d.select(&[0, 1, 2]).unwrap_err();
        let mut out = Vec::new();
        assert_eq!(d.read(2, 10, &mut out).unwrap_err(), e);
    }

    #[test]
    fn a_silent_decoder_is_stopped_and_an_error() {
        let mut d = Decoder::spawn(Paths::new(&anchor()), Duration::from_millis(300)).unwrap();
        d.definitions().unwrap();
        unsafe { libc::kill(d.pid, libc::SIGSTOP) };
        let e = d.select(&[0, 1, 2]).unwrap_err();
        assert!(e.msg.contains("no progress for 0.3 s"), "{e}");
        assert_eq!(d.pid, 0, "the stopped process was killed and reaped");
    }

    #[test]
    fn events_come_in_chunks_with_their_positions() {
        let mut d = Decoder::spawn(Paths::new(&anchor()), STALL).unwrap();
        d.definitions().unwrap();
        d.select(&[0, 1, 2]).unwrap();
        let mut out = Vec::new();
        // Rank 2: Init, a buffer flush, Bcast (with its two collective events),
        // Finalize: 9 events.
        assert_eq!(d.read(2, 4, &mut out).unwrap(), 4);
        assert_eq!(d.read(2, 5, &mut out).unwrap(), 5);
        // Past the end: none.
        assert_eq!(d.read(2, 4, &mut out).unwrap(), 0);
        let pos: Vec<u64> = out.iter().map(|e| e.pos).collect();
        assert_eq!(pos, (1..=9).collect::<Vec<u64>>());
        assert_eq!(out[0].time, 50000);
    }
}
