//! Ranks as processes of their own (the default): started from the program with a
//! mailbox each, talked to one message at a time, and all killed if the run ends early.

use super::ranks::Ranks;
use simpi_wire::{Mailbox, Reply, Request, ENV_MAILBOX, ENV_RANK};
use std::ffi::OsString;
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command};

/// The running ranks' processes.
pub struct Processes {
    children: Vec<Child>,
    mailboxes: Vec<Mailbox>,
    /// Where replies are encoded (kept: see [`simpi_wire::Writer::reusing`]).
    scratch: Vec<u8>,
}

impl Processes {
    /// Starts `n` processes of `program args`, rank `r` with `SIMPI_RUN_RANK=r` and
    /// its mailbox in `SIMPI_RUN_MAILBOX`; their output is this process's.
    pub fn start(program: &OsString, args: &[OsString], n: u32) -> Result<Processes, String> {
        let mut ranks = Processes {
            children: Vec::with_capacity(n as usize),
            mailboxes: Vec::with_capacity(n as usize),
            scratch: Vec::new(),
        };
        for r in 0..n {
            let (mailbox, shared) =
                Mailbox::create().map_err(|e| format!("cannot make a mailbox for rank {r}: {e}"))?;
            let mfd = shared.as_raw_fd();
            let mut cmd = Command::new(program);
            cmd.args(args)
                .env(ENV_MAILBOX, mfd.to_string())
                .env(ENV_RANK, r.to_string());
            // The child inherits its mailbox: it loses close-on-exec here, and is
            // closed here right after the spawn (ranks start one at a time).
            // Without a pre-exec hook the spawn is a vfork-like posix_spawn, whose
            // cost does not grow with this process's mappings (a fork copies them:
            // starting N ranks cost N^2).
            // SAFETY: `mfd` is a descriptor this process owns.
            if unsafe { libc::fcntl(mfd, libc::F_SETFD, 0) } == -1 {
                let e = std::io::Error::last_os_error();
                ranks.kill_all();
                return Err(format!("cannot pass rank {r} its mailbox: {e}"));
            }
            match cmd.spawn() {
                Ok(c) => ranks.children.push(c),
                Err(e) => {
                    ranks.kill_all();
                    return Err(format!("cannot start {}: {e}", program.to_string_lossy()));
                }
            }
            drop(shared);
            ranks.mailboxes.push(mailbox);
        }
        Ok(ranks)
    }

    /// How rank `r`'s process ended (waiting up to 2 s for it to end).
    fn how_it_ended(&mut self, r: u32) -> String {
        let child = &mut self.children[r as usize];
        for _ in 0..200 {
            if let Ok(Some(s)) = child.try_wait() {
                return how(s);
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        "still running".into()
    }
}

impl Ranks for Processes {
    fn pids(&self) -> Vec<i32> {
        self.children.iter().map(|c| c.id() as i32).collect()
    }

    fn receive(&mut self, r: u32) -> Result<Request, String> {
        let child = &mut self.children[r as usize];
        let alive = || match child.try_wait() {
            Ok(None) => Ok(()),
            _ => Err(std::io::Error::other("ended")),
        };
        match self.mailboxes[r as usize].receive_with(alive, Request::decode) {
            Ok(request) => request.map_err(|e| format!("rank {r}: {e}")),
            Err(_) => Err(format!(
                "rank {r} ended without calling MPI_Finalize ({})",
                self.how_it_ended(r)
            )),
        }
    }

    fn answer(&mut self, r: u32, reply: &Reply) -> Result<(), String> {
        reply.encode_into(&mut self.scratch);
        let sent = self.mailboxes[r as usize].send(&self.scratch);
        simpi_wire::keep_small(&mut self.scratch);
        sent.map_err(|_| {
            format!(
                "rank {r} ended while waiting for an MPI call to return ({})",
                self.how_it_ended(r)
            )
        })
    }

    fn wait_all(&mut self) -> Vec<(u32, String)> {
        let mut failed = Vec::new();
        for (r, c) in self.children.iter_mut().enumerate() {
            match c.wait() {
                Ok(s) if s.success() => {}
                Ok(s) => failed.push((r as u32, how(s))),
                Err(e) => failed.push((r as u32, e.to_string())),
            }
        }
        failed
    }

    fn kill_all(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
        }
        for c in &mut self.children {
            let _ = c.wait();
        }
    }
}

/// How a process ended, as the session's messages say it.
fn how(s: std::process::ExitStatus) -> String {
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (_, Some(sig)) => format!("killed by signal {sig}"),
        _ => s.to_string(),
    }
}
