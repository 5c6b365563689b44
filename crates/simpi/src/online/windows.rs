//! One-sided communication on-line: windows, the data movements into and out of the
//! ranks' memory, and the synchronizations, timed through the driver.
//!
//! * **Data** moves when the simulator takes the call, in simulated-time order: a
//!   put writes the target's memory then, a get reads it then (its data comes back
//!   with the reply). A program that follows MPI's rules cannot tell: a target may
//!   look at its window only after a synchronization that orders it after the access.
//!   The memory of a window made by `MPI_Win_create`, `MPI_Win_allocate` or attached
//!   to a dynamic one is in the rank's process (read and written with
//!   `process_vm_readv` and `process_vm_writev`: the ranks are this process's
//!   children); a shared window's is a memory file this process holds and each
//!   member maps. Accumulates are atomic: one process applies them all, in order.
//! * **Time**: a put is one message from origin to target, a get a request and an
//!   answer; the target's side is served by its NIC, without its program or CPU
//!   (the driver's `Put` and `Get`). Synchronizations are messages on the window's
//!   own communicator: a fence and `MPI_Win_free` wait for the rank's transfers and
//!   are a barrier; `MPI_Win_post` sends each origin a notice that `MPI_Win_start`
//!   receives, `MPI_Win_complete` sends each target one that `MPI_Win_wait` receives;
//!   a lock free at the call is taken at once, a held one is granted by a message from
//!   the rank whose unlock frees it. Unlocks and flushes wait for the transfers they
//!   complete.

use super::{completion, engine_error, remote, Awaiting, Req, Session};
use crate::Error;
use simpi_mpi::driver::{Call as DCall, Driver, Handle, Posted};
use simpi_mpi::engine::Rules;
use simpi_mpi::live::Live;
use simpi_wire::{abi, Access, AccessKind, CollKind, Collective, Flavor, SharedMemory, Sync, WinCall};
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::FileExt;

/// Tags of the synchronization messages on a window's communicator.
const POST_TAG: u32 = 1;
const COMPLETE_TAG: u32 = 2;
const GRANT_TAG: u32 = 3;

/// Bytes of a get's request: the address and size it names.
const ASK_BYTES: u64 = 16;

/// Tags of one origin's transfers in flight are its transfer count modulo this.
const TAG_SPAN: u32 = 1 << 30;

/// The windows of a run, by the index of their communicator.
#[derive(Default)]
pub struct Windows {
    wins: HashMap<u32, Window>,
}

/// Where a member's window memory is.
#[derive(Clone, Debug)]
enum Memory {
    /// In the rank's process: `base` and `size` bytes (dynamic windows: the regions
    /// attached, with displacements as addresses).
    Process {
        pid: i32,
        base: u64,
        size: u64,
        regions: Vec<(u64, u64)>,
    },
    /// At `offset` of the window's shared memory file, `size` bytes.
    File { offset: u64, size: u64 },
}

/// One member's memory and displacement unit.
#[derive(Clone, Debug)]
struct Part {
    memory: Memory,
    disp_unit: u32,
}

/// Who holds a member's lock, and who waits for it (first come, first served).
#[derive(Default, Debug)]
struct Lock {
    exclusive: Option<u32>,
    shared: Vec<u32>,
    waiting: VecDeque<(u32, bool)>,
}

impl Lock {
    fn free_for(&self, exclusive: bool) -> bool {
        self.exclusive.is_none() && (!exclusive || self.shared.is_empty())
    }

    fn take(&mut self, r: u32, exclusive: bool) {
        if exclusive {
            self.exclusive = Some(r);
        } else {
            self.shared.push(r);
        }
    }

    /// Releases world rank `r`'s hold; whether it held the lock.
    fn release(&mut self, r: u32) -> bool {
        if self.exclusive == Some(r) {
            self.exclusive = None;
            return true;
        }
        match self.shared.iter().position(|&s| s == r) {
            Some(i) => {
                self.shared.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// The waiting ranks the lock goes to now, in order.
    fn grant(&mut self) -> Vec<u32> {
        let mut to = Vec::new();
        while let Some(&(w, exclusive)) = self.waiting.front() {
            if !self.free_for(exclusive) {
                break;
            }
            self.waiting.pop_front();
            self.take(w, exclusive);
            to.push(w);
        }
        to
    }
}

/// A member's exposure epoch (MPI_Win_post to MPI_Win_wait).
#[derive(Debug)]
struct Exposure {
    /// The origins, as world ranks.
    origins: Vec<u32>,
    /// The receives of their completion notices, once MPI_Win_test posted them.
    notices: Option<Vec<Handle>>,
}

/// A window.
struct Window {
    flavor: Flavor,
    /// World ranks, in window rank order.
    members: Vec<u32>,
    parts: Vec<Option<Part>>,
    /// The memory file of a shared window, once a member asked for it.
    file: Option<File>,
    locks: Vec<Lock>,
    /// Per member: its transfers not yet waited for (target's window rank, handle).
    pending: Vec<Vec<(u32, Handle)>>,
    /// Per member: its transfers so far (their tags).
    transfers: Vec<u32>,
    exposure: Vec<Option<Exposure>>,
    /// Per member: the targets of its access epoch (MPI_Win_start), as world ranks.
    access: Vec<Option<Vec<u32>>>,
    freed: u32,
}

impl Window {
    fn new(flavor: Flavor, members: Vec<u32>) -> Window {
        let n = members.len();
        Window {
            flavor,
            members,
            parts: vec![None; n],
            file: None,
            locks: (0..n).map(|_| Lock::default()).collect(),
            pending: vec![Vec::new(); n],
            transfers: vec![0; n],
            exposure: (0..n).map(|_| None).collect(),
            access: vec![None; n],
            freed: 0,
        }
    }

    fn rank_of(&self, world: u32) -> Option<usize> {
        self.members.iter().position(|&m| m == world)
    }

    /// Where `len` bytes at byte `at` (from the displaced address) of member `t`'s
    /// memory are: an address in its process or an offset in the file.
    fn locate(&self, t: usize, disp: i64, (at, len): (i64, u64)) -> Result<(Option<i32>, u64), String> {
        let part = self.parts[t]
            .as_ref()
            .ok_or_else(|| format!("rank {t} of the window has not made it yet"))?;
        let start = disp as i128 * part.disp_unit as i128 + at as i128;
        let end = start + len as i128;
        let inside = |size: u64| start >= 0 && end <= size as i128;
        match &part.memory {
            Memory::Process { pid, regions, .. } if self.flavor == Flavor::Dynamic => {
                // Displacements are addresses; an access may span adjacent regions.
                let mut at = start;
                while at < end {
                    match regions
                        .iter()
                        .find(|&&(b, s)| at >= b as i128 && at < b as i128 + s as i128)
                    {
                        Some(&(b, s)) => at = b as i128 + s as i128,
                        None => break,
                    }
                }
                if at < end || start < 0 {
                    return Err(format!(
                        "bytes {start:#x}..{end:#x} of rank {t} are in no region attached to its dynamic window"
                    ));
                }
                Ok((Some(*pid), start as u64))
            }
            Memory::Process { pid, base, size, .. } => {
                if !inside(*size) {
                    return Err(format!(
                        "bytes {start}..{end} lie outside rank {t}'s window of {size} bytes"
                    ));
                }
                Ok((Some(*pid), base + start as u64))
            }
            Memory::File { offset, size } => {
                if !inside(*size) {
                    return Err(format!(
                        "bytes {start}..{end} lie outside rank {t}'s window of {size} bytes"
                    ));
                }
                Ok((None, offset + start as u64))
            }
        }
    }

    /// The bytes of access `a` at member `t`, gathered in block order.
    fn read(&self, t: usize, a: &Access) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(a.target_bytes().min(1 << 30) as usize);
        for &b in &a.blocks {
            if b.1 == 0 {
                continue;
            }
            // Located first: only bytes inside the window are allocated for.
            let place = self.locate(t, a.disp, b)?;
            let at = out.len();
            out.resize(at + b.1 as usize, 0);
            match place {
                (Some(pid), addr) => remote::read(pid, addr, &mut out[at..])?,
                (None, off) => self
                    .file()?
                    .read_exact_at(&mut out[at..], off)
                    .map_err(|e| e.to_string())?,
            }
        }
        Ok(out)
    }

    /// Writes `data` over the blocks of access `a` at member `t`.
    fn write(&self, t: usize, a: &Access, data: &[u8]) -> Result<(), String> {
        let mut from = 0usize;
        for &b in &a.blocks {
            if b.1 == 0 {
                continue;
            }
            let piece = &data[from..from + b.1 as usize];
            from += b.1 as usize;
            match self.locate(t, a.disp, b)? {
                (Some(pid), addr) => remote::write(pid, addr, piece)?,
                (None, off) => self.file()?.write_all_at(piece, off).map_err(|e| e.to_string())?,
            }
        }
        Ok(())
    }

    fn file(&self) -> Result<&File, String> {
        self.file
            .as_ref()
            .ok_or_else(|| "the shared window's memory was never made".to_string())
    }

    /// The shared memory file, made once every member gave its size.
    fn shared_memory(&mut self) -> Result<SharedMemory, String> {
        let mut parts = Vec::with_capacity(self.parts.len());
        let mut offset = 0u64;
        for (i, p) in self.parts.iter().enumerate() {
            let p = p
                .as_ref()
                .ok_or_else(|| format!("rank {i} has not made the window yet"))?;
            let Memory::File { size, .. } = p.memory else {
                return Err("MPI_Win_shared_query on a window that is not shared".into());
            };
            parts.push((offset, size, p.disp_unit));
            offset = offset.checked_add(size).ok_or("the shared window's size overflows")?;
        }
        if self.file.is_none() {
            let name = c"simpi-window";
            // SAFETY: a valid name; the descriptor returned is owned by the File.
            let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return Err(format!(
                    "cannot make a shared window's memory: {}",
                    std::io::Error::last_os_error()
                ));
            }
            // SAFETY: `fd` was just opened and nothing else owns it.
            let f = unsafe { File::from_raw_fd(fd) };
            f.set_len(offset)
                .map_err(|e| format!("cannot size a shared window of {offset} bytes: {e}"))?;
            for (p, &(o, _, _)) in self.parts.iter_mut().zip(&parts) {
                if let Some(Part {
                    memory: Memory::File { offset, .. },
                    ..
                }) = p
                {
                    *offset = o;
                }
            }
            self.file = Some(f);
        }
        Ok(SharedMemory {
            pid: std::process::id(),
            fd: self.file()?.as_raw_fd() as u32,
            parts,
        })
    }
}

impl Session<'_> {
    /// Posts rank `r`'s call on a window; returns what its reply will hold.
    pub(super) fn post_win<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        call: WinCall,
    ) -> Result<Awaiting, Error> {
        let input = |e: String| Error::Input(format!("rank {r}: {e}"));
        match call {
            WinCall::Create {
                win,
                base,
                size,
                disp_unit,
                flavor,
            } => {
                let at = self.comms.place(win, r).map_err(Error::Input)?;
                let mut members = Vec::with_capacity(at.size as usize);
                for i in 0..at.size {
                    members.push(self.comms.world_rank(win, r, i).map_err(Error::Input)?);
                }
                let w = self
                    .windows
                    .wins
                    .entry(win)
                    .or_insert_with(|| Window::new(flavor, members));
                if w.flavor != flavor {
                    return Err(input(format!(
                        "window {win} made as {flavor:?} here and as {:?} by another rank",
                        w.flavor
                    )));
                }
                let memory = match flavor {
                    Flavor::Shared => Memory::File { offset: 0, size },
                    _ => Memory::Process {
                        pid: self.pids[r as usize],
                        base,
                        size,
                        regions: Vec::new(),
                    },
                };
                if disp_unit == 0 {
                    return Err(input("a window's displacement unit must be positive".into()));
                }
                w.parts[at.me as usize] = Some(Part { memory, disp_unit });
                self.win_barrier(d, r, win)
            }
            WinCall::Shared { win } => {
                let m = self.window(win)?.shared_memory().map_err(input)?;
                d.post(r, DCall::Compute(0)).map_err(engine_error)?;
                Ok(Awaiting::Data(m.encode()))
            }
            WinCall::Attach { win, base, size } => {
                let me = self.member(win, r)?;
                let w = self.window(win)?;
                if let Some(Part {
                    memory: Memory::Process { regions, .. },
                    ..
                }) = &mut w.parts[me]
                {
                    regions.push((base, size));
                }
                d.post(r, DCall::Compute(0)).map_err(engine_error)?;
                Ok(Awaiting::Nothing)
            }
            WinCall::Detach { win, base } => {
                let me = self.member(win, r)?;
                let w = self.window(win)?;
                if let Some(Part {
                    memory: Memory::Process { regions, .. },
                    ..
                }) = &mut w.parts[me]
                {
                    match regions.iter().position(|&(b, _)| b == base) {
                        Some(i) => {
                            regions.remove(i);
                        }
                        None => return Err(input(format!("MPI_Win_detach of {base:#x}, which is not attached"))),
                    }
                }
                d.post(r, DCall::Compute(0)).map_err(engine_error)?;
                Ok(Awaiting::Nothing)
            }
            WinCall::Access(a) => self.access(d, r, a),
            WinCall::Sync { win, sync } => self.sync(d, r, win, sync),
        }
    }

    fn window(&mut self, win: u32) -> Result<&mut Window, Error> {
        self.windows
            .wins
            .get_mut(&win)
            .ok_or_else(|| Error::Input(format!("window {win} does not exist (or was freed)")))
    }

    /// World rank `r`'s rank in window `win`.
    fn member(&mut self, win: u32, r: u32) -> Result<usize, Error> {
        self.window(win)?
            .rank_of(r)
            .ok_or_else(|| Error::Input(format!("rank {r} uses window {win}, which it is not a member of")))
    }

    /// A barrier on the window's communicator, after rank `r`'s transfers on it.
    fn win_barrier<R: Rules<Live<Posted>>>(&mut self, d: &mut Driver<R>, r: u32, win: u32) -> Result<Awaiting, Error> {
        let barrier = Collective {
            kind: CollKind::Barrier,
            comm: win,
            root: 0,
            op: 0,
            datatype: abi::BYTE,
            count: 0,
            send_counts: Vec::new(),
            recv_counts: Vec::new(),
            data: Vec::new(),
            send_at: None,
            recv_at: None,
            persistent: None,
        };
        let (key, me) = self.post_collective(d, r, barrier, None)?;
        Ok(Awaiting::Coll(key, me, None))
    }

    /// Rank `r`'s data movement `a`: the data moves now, the transfer is timed.
    fn access<R: Rules<Live<Posted>>>(&mut self, d: &mut Driver<R>, r: u32, a: Access) -> Result<Awaiting, Error> {
        let input = |e: String| Error::Input(format!("rank {r}: {:?} on window {}: {e}", a.kind, a.win));
        let me = self.member(a.win, r)?;
        let w = self.window(a.win)?;
        let t = a.target as usize;
        let Some(&target) = w.members.get(t) else {
            return Err(input(format!(
                "target {t} is not in the window ({} ranks)",
                w.members.len()
            )));
        };
        let n = a.target_bytes();
        let expect = match a.kind {
            AccessKind::Get => 0,
            AccessKind::GetAccumulate if a.op == abi::OP_NO_OP => a.data.len() as u64,
            AccessKind::CompareAndSwap => 2 * n,
            _ => n,
        };
        if a.data.len() as u64 != expect {
            return Err(input(format!(
                "the origin gives {} bytes for {n} bytes at the target",
                a.data.len()
            )));
        }
        let combine = |cur: &mut Vec<u8>| simpi_wire::reduce::combine(a.op, a.datatype, cur, &a.data).map_err(input);
        let fetched = match a.kind {
            AccessKind::Put => {
                w.write(t, &a, &a.data).map_err(input)?;
                Vec::new()
            }
            AccessKind::Get => w.read(t, &a).map_err(input)?,
            AccessKind::Accumulate => {
                let mut cur = w.read(t, &a).map_err(input)?;
                combine(&mut cur)?;
                w.write(t, &a, &cur).map_err(input)?;
                Vec::new()
            }
            AccessKind::GetAccumulate => {
                let old = w.read(t, &a).map_err(input)?;
                if a.op != abi::OP_NO_OP {
                    let mut cur = old.clone();
                    combine(&mut cur)?;
                    w.write(t, &a, &cur).map_err(input)?;
                }
                old
            }
            AccessKind::CompareAndSwap => {
                let old = w.read(t, &a).map_err(input)?;
                let (new, compared) = a.data.split_at(n as usize);
                if old == compared {
                    w.write(t, &a, new).map_err(input)?;
                }
                old
            }
        };
        let tag = w.transfers[me] % TAG_SPAN;
        w.transfers[me] = w.transfers[me].wrapping_add(1);
        let h = self.handle();
        let call = match a.kind {
            AccessKind::Put | AccessKind::Accumulate => DCall::Put {
                target,
                tag,
                bytes: n,
                comm: a.win,
                handle: h,
            },
            _ => DCall::Get {
                target,
                tag,
                ask: ASK_BYTES + a.data.len() as u64,
                answer: n,
                comm: a.win,
                handle: h,
            },
        };
        d.post(r, call).map_err(engine_error)?;
        self.window(a.win)?.pending[me].push((a.target, h));
        if let Some(q) = a.request {
            self.requests[r as usize].insert(q, (h, Req::Send));
        }
        Ok(Awaiting::Data(fetched))
    }

    /// Rank `r` waits for its transfers on `win` to the window rank `to` (all if
    /// `None`).
    fn flush<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        win: u32,
        to: Option<u32>,
    ) -> Result<(), Error> {
        self.flush_where(d, r, win, |t| to.is_none_or(|x| x == t))
    }

    /// Rank `r` waits for its transfers on `win` to the window ranks `to` selects.
    fn flush_where<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        win: u32,
        to: impl Fn(u32) -> bool,
    ) -> Result<(), Error> {
        let me = self.member(win, r)?;
        let pending = &mut self.window(win)?.pending[me];
        let mut waited = Vec::new();
        pending.retain(|&(t, h)| {
            let now = to(t);
            if now {
                waited.push(h);
            }
            !now
        });
        d.post(r, DCall::Wait(waited)).map_err(engine_error)
    }

    /// A message of the window's synchronization from `r` to world rank `to`.
    fn notice<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        win: u32,
        to: u32,
        tag: u32,
    ) -> Result<(), Error> {
        let handle = self.handle();
        d.post(
            r,
            DCall::Send {
                to,
                tag,
                bytes: 0,
                handle,
                comm: win,
                sync: false,
            },
        )
        .map_err(engine_error)
    }

    /// Rank `r` waits for a synchronization message from world rank `from` (or any).
    fn await_notice<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        win: u32,
        from: u32,
        tag: u32,
    ) -> Result<(), Error> {
        let handle = self.handle();
        d.post(
            r,
            DCall::Recv {
                from,
                tag,
                bytes: 0,
                handle,
                comm: win,
            },
        )
        .map_err(engine_error)
    }

    /// The world ranks of window ranks `group`.
    fn world_ranks(&mut self, win: u32, group: &[u32]) -> Result<Vec<u32>, Error> {
        let w = self.window(win)?;
        group
            .iter()
            .map(|&g| {
                w.members
                    .get(g as usize)
                    .copied()
                    .ok_or_else(|| Error::Input(format!("rank {g} is not in window {win}")))
            })
            .collect()
    }

    /// Rank `r` releases its lock on window rank `t` and hands it to the ranks
    /// waiting that may have it now.
    fn unlock_one<R: Rules<Live<Posted>>>(&mut self, d: &mut Driver<R>, r: u32, win: u32, t: u32) -> Result<(), Error> {
        let lock = self
            .window(win)?
            .locks
            .get_mut(t as usize)
            .ok_or_else(|| Error::Input(format!("rank {r}: rank {t} is not in window {win}")))?;
        if !lock.release(r) {
            return Err(Error::Input(format!(
                "rank {r} unlocks rank {t} of window {win}, which it has not locked (MPI_ERR_RMA_SYNC)"
            )));
        }
        for waiter in lock.grant() {
            self.notice(d, r, win, waiter, GRANT_TAG)?;
        }
        Ok(())
    }

    /// Rank `r` asks for the lock of window rank `t`; whether it has it now (else a
    /// grant will come).
    fn lock_one(&mut self, r: u32, win: u32, t: u32, exclusive: bool) -> Result<bool, Error> {
        let lock = self
            .window(win)?
            .locks
            .get_mut(t as usize)
            .ok_or_else(|| Error::Input(format!("rank {r}: rank {t} is not in window {win}")))?;
        if lock.exclusive == Some(r) || lock.shared.contains(&r) {
            return Err(Error::Input(format!(
                "rank {r} locks rank {t} of window {win} a second time (MPI_ERR_RMA_SYNC)"
            )));
        }
        if lock.waiting.is_empty() && lock.free_for(exclusive) {
            lock.take(r, exclusive);
            Ok(true)
        } else {
            lock.waiting.push_back((r, exclusive));
            Ok(false)
        }
    }

    /// Rank `r`'s synchronization `sync` on window `win`.
    fn sync<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        win: u32,
        sync: Sync,
    ) -> Result<Awaiting, Error> {
        let me = self.member(win, r)?;
        let sync_error = |what: &str| Error::Input(format!("rank {r}: {what} on window {win} (MPI_ERR_RMA_SYNC)"));
        match sync {
            Sync::Fence => {
                self.flush(d, r, win, None)?;
                self.win_barrier(d, r, win)
            }
            Sync::Free => {
                self.flush(d, r, win, None)?;
                let w = self.window(win)?;
                w.freed += 1;
                if w.freed as usize == w.members.len() {
                    self.windows.wins.remove(&win);
                }
                self.win_barrier(d, r, win)
            }
            Sync::Lock { target, exclusive } => {
                if self.lock_one(r, win, target, exclusive)? {
                    d.post(r, DCall::Compute(0)).map_err(engine_error)?;
                } else {
                    self.await_notice(d, r, win, simpi_mpi::ANY_SOURCE, GRANT_TAG)?;
                }
                Ok(Awaiting::Nothing)
            }
            Sync::LockAll => {
                let n = self.window(win)?.members.len() as u32;
                let mut waits = 0;
                for t in 0..n {
                    if !self.lock_one(r, win, t, false)? {
                        waits += 1;
                    }
                }
                d.post(r, DCall::Compute(0)).map_err(engine_error)?;
                for _ in 0..waits {
                    self.await_notice(d, r, win, simpi_mpi::ANY_SOURCE, GRANT_TAG)?;
                }
                Ok(Awaiting::Nothing)
            }
            Sync::Unlock { target } => {
                self.flush(d, r, win, Some(target))?;
                self.unlock_one(d, r, win, target)?;
                Ok(Awaiting::Nothing)
            }
            Sync::UnlockAll => {
                self.flush(d, r, win, None)?;
                let n = self.window(win)?.members.len() as u32;
                for t in 0..n {
                    self.unlock_one(d, r, win, t)?;
                }
                Ok(Awaiting::Nothing)
            }
            Sync::Flush { target } => {
                self.flush(d, r, win, target)?;
                Ok(Awaiting::Nothing)
            }
            Sync::Post { group } => {
                let origins = self.world_ranks(win, &group)?;
                let w = self.window(win)?;
                if w.exposure[me].is_some() {
                    return Err(sync_error("MPI_Win_post during an exposure epoch"));
                }
                w.exposure[me] = Some(Exposure {
                    origins: origins.clone(),
                    notices: None,
                });
                d.post(r, DCall::Compute(0)).map_err(engine_error)?;
                for o in origins {
                    self.notice(d, r, win, o, POST_TAG)?;
                }
                Ok(Awaiting::Nothing)
            }
            Sync::Start { group } => {
                let targets = self.world_ranks(win, &group)?;
                let w = self.window(win)?;
                if w.access[me].is_some() {
                    return Err(sync_error("MPI_Win_start during an access epoch"));
                }
                w.access[me] = Some(targets.clone());
                d.post(r, DCall::Compute(0)).map_err(engine_error)?;
                for t in targets {
                    self.await_notice(d, r, win, t, POST_TAG)?;
                }
                Ok(Awaiting::Nothing)
            }
            Sync::Complete => {
                let targets = self.window(win)?.access[me]
                    .take()
                    .ok_or_else(|| sync_error("MPI_Win_complete without MPI_Win_start"))?;
                let w = self.window(win)?;
                let ranks: Vec<u32> = targets.iter().filter_map(|&t| w.rank_of(t).map(|x| x as u32)).collect();
                self.flush_where(d, r, win, |t| ranks.contains(&t))?;
                for t in targets {
                    self.notice(d, r, win, t, COMPLETE_TAG)?;
                }
                Ok(Awaiting::Nothing)
            }
            Sync::Wait => {
                let e = self.window(win)?.exposure[me]
                    .take()
                    .ok_or_else(|| sync_error("MPI_Win_wait without MPI_Win_post"))?;
                match e.notices {
                    Some(handles) => d.post(r, DCall::Wait(handles)).map_err(engine_error)?,
                    None => {
                        d.post(r, DCall::Compute(0)).map_err(engine_error)?;
                        for o in e.origins {
                            self.await_notice(d, r, win, o, COMPLETE_TAG)?;
                        }
                    }
                }
                Ok(Awaiting::Nothing)
            }
            Sync::Test => {
                let origins = match &self.window(win)?.exposure[me] {
                    None => return Err(sync_error("MPI_Win_test without MPI_Win_post")),
                    Some(e) if e.notices.is_some() => None,
                    Some(e) => Some(e.origins.clone()),
                };
                if let Some(origins) = origins {
                    let mut handles = Vec::with_capacity(origins.len());
                    for o in origins {
                        let handle = self.handle();
                        d.post(
                            r,
                            DCall::Irecv {
                                from: o,
                                tag: COMPLETE_TAG,
                                bytes: 0,
                                handle,
                                comm: win,
                            },
                        )
                        .map_err(engine_error)?;
                        handles.push(handle);
                    }
                    if let Some(e) = &mut self.window(win)?.exposure[me] {
                        e.notices = Some(handles);
                    }
                }
                let first = self.window(win)?.exposure[me]
                    .as_ref()
                    .and_then(|e| e.notices.as_ref())
                    .and_then(|h| h.first().copied());
                let call = match first {
                    Some(handle) => DCall::Test {
                        handle,
                        cost_ps: self.opts.test_cost_ps,
                    },
                    None => DCall::Compute(self.opts.test_cost_ps),
                };
                d.post(r, call).map_err(engine_error)?;
                Ok(Awaiting::WinTest(win))
            }
        }
    }

    /// MPI_Win_test's answer for rank `r` on `win`: one completion if every origin's
    /// completion notice has arrived (the exposure epoch then ends), none if not.
    pub(super) fn win_tested<R: Rules<Live<Posted>>>(
        &mut self,
        d: &mut Driver<R>,
        r: u32,
        win: u32,
    ) -> Result<Vec<simpi_wire::Completion>, String> {
        let w = self.windows.wins.get_mut(&win).ok_or("the window was freed")?;
        let me = w.rank_of(r).ok_or("not a member of the window")?;
        let handles = w.exposure[me]
            .as_ref()
            .and_then(|e| e.notices.clone())
            .unwrap_or_default();
        // A test's own request (the first) counts as done if the test found it so.
        let done = handles
            .iter()
            .enumerate()
            .all(|(i, &h)| if i == 0 { d.take_tested(r, h) } else { d.is_done(r, h) });
        if !done {
            return Ok(Vec::new());
        }
        for &h in &handles {
            d.forget(r, h);
        }
        w.exposure[me] = None;
        Ok(vec![completion(-1, 0, Vec::new())])
    }
}
