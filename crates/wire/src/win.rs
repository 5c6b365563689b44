//! One-sided communication between a rank and `simpi run`: the calls on a window.
//!
//! A window is a communicator the library made for it (a duplicate of the one the
//! program named), so its index names the window too. The simulator moves the data
//! itself: into and out of the target's memory, in the simulated order of the calls.

use crate::codec::{Reader, Writer};
use crate::WireError;

/// How a window's memory came to be (MPI_WIN_FLAVOR_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// MPI_Win_create: the program's memory.
    Create,
    /// MPI_Win_allocate: memory the library allocated in the rank.
    Allocate,
    /// MPI_Win_create_dynamic: regions the program attaches.
    Dynamic,
    /// MPI_Win_allocate_shared: one memory file all members map.
    Shared,
}

const FLAVORS: [Flavor; 4] = [Flavor::Create, Flavor::Allocate, Flavor::Dynamic, Flavor::Shared];

/// What a data movement does at the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// MPI_Put: writes the data.
    Put,
    /// MPI_Get: reads `fetch` bytes.
    Get,
    /// MPI_Accumulate: combines the data into the target's with the operation.
    Accumulate,
    /// MPI_Get_accumulate, MPI_Fetch_and_op: reads the target's data, then combines.
    GetAccumulate,
    /// MPI_Compare_and_swap: the data is the new value then the compared one; the
    /// target takes the new value if its own equals the compared one; reads the old.
    CompareAndSwap,
}

const KINDS: [AccessKind; 5] = [
    AccessKind::Put,
    AccessKind::Get,
    AccessKind::Accumulate,
    AccessKind::GetAccumulate,
    AccessKind::CompareAndSwap,
];

/// One data movement to or from a target's window memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The window.
    pub win: u32,
    /// The target's rank in the window.
    pub target: u32,
    /// What it does.
    pub kind: AccessKind,
    /// The operation (an ABI handle; accumulates only).
    pub op: u64,
    /// The predefined datatype the target's elements are made of (an ABI handle).
    pub datatype: u64,
    /// The displacement, in the target's displacement units.
    pub disp: i64,
    /// The target's pieces, in bytes from the displaced address: (offset, length).
    pub blocks: Vec<(i64, u64)>,
    /// The origin's data, packed (puts and accumulates; for a compare-and-swap the
    /// new value then the compared one).
    pub data: Vec<u8>,
    /// The request of MPI_Rput and the like: it completes when the movement does.
    pub request: Option<u64>,
}

impl Access {
    /// Bytes at the target.
    pub fn target_bytes(&self) -> u64 {
        self.blocks.iter().fold(0u64, |a, &(_, l)| a.saturating_add(l))
    }
}

/// A synchronization call on a window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sync {
    /// MPI_Win_fence (collective).
    Fence,
    /// MPI_Win_lock of the target's window (a rank in the window).
    Lock {
        /// The target.
        target: u32,
        /// MPI_LOCK_EXCLUSIVE (else shared).
        exclusive: bool,
    },
    /// MPI_Win_unlock.
    Unlock {
        /// The target.
        target: u32,
    },
    /// MPI_Win_lock_all (shared locks of every member).
    LockAll,
    /// MPI_Win_unlock_all.
    UnlockAll,
    /// MPI_Win_flush and MPI_Win_flush_local (`Some`: one target), MPI_Win_flush_all
    /// and MPI_Win_flush_local_all (`None`).
    Flush {
        /// The target, or every one.
        target: Option<u32>,
    },
    /// MPI_Win_post: ranks of the window that may access this rank's memory.
    Post {
        /// The origins.
        group: Vec<u32>,
    },
    /// MPI_Win_start: ranks of the window whose memory this rank will access.
    Start {
        /// The targets.
        group: Vec<u32>,
    },
    /// MPI_Win_complete.
    Complete,
    /// MPI_Win_wait.
    Wait,
    /// MPI_Win_test: the reply has one completion if the exposure epoch ended, none
    /// if not.
    Test,
    /// MPI_Win_free (collective).
    Free,
}

/// A call on a window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WinCall {
    /// Collective, once the window's communicator `win` is made: the rank's memory
    /// (for a shared window, the size it asks for; its memory comes with
    /// [`WinCall::Shared`]).
    Create {
        /// The window.
        win: u32,
        /// The memory's address in the rank (0 for a dynamic or shared window).
        base: u64,
        /// Its size in bytes.
        size: u64,
        /// The displacement unit in bytes.
        disp_unit: u32,
        /// How it came to be.
        flavor: Flavor,
    },
    /// A shared window's memory: the reply's data is [`SharedMemory`].
    Shared {
        /// The window.
        win: u32,
    },
    /// MPI_Win_attach: a region of a dynamic window.
    Attach {
        /// The window.
        win: u32,
        /// The region's address.
        base: u64,
        /// Its size in bytes.
        size: u64,
    },
    /// MPI_Win_detach.
    Detach {
        /// The window.
        win: u32,
        /// The region's address.
        base: u64,
    },
    /// A data movement: the reply's one completion holds the data fetched (empty if
    /// none).
    Access(Access),
    /// A synchronization.
    Sync {
        /// The window.
        win: u32,
        /// Which.
        sync: Sync,
    },
}

/// Where the members of a shared window find its memory: a file `simpi run` holds
/// open, mapped by each at its own address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedMemory {
    /// The process holding the file (`simpi run`).
    pub pid: u32,
    /// Its descriptor there (`/proc/PID/fd/FD`).
    pub fd: u32,
    /// Per member, in window rank order: (offset in the file, size, displacement
    /// unit).
    pub parts: Vec<(u64, u64, u32)>,
}

impl SharedMemory {
    /// Its bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32(self.pid);
        w.u32(self.fd);
        w.u64(self.parts.len() as u64);
        for &(o, s, d) in &self.parts {
            w.u64(o);
            w.u64(s);
            w.u32(d);
        }
        w.into_bytes()
    }

    /// The description in `data`.
    pub fn decode(data: &[u8]) -> Result<SharedMemory, WireError> {
        let mut r = Reader::new(data);
        let (pid, fd) = (r.u32()?, r.u32()?);
        let n = r.len_of(20)?;
        let mut parts = Vec::with_capacity(n);
        for _ in 0..n {
            parts.push((r.u64()?, r.u64()?, r.u32()?));
        }
        r.end()?;
        Ok(SharedMemory { pid, fd, parts })
    }
}

pub(crate) fn encode(w: &mut Writer, c: &WinCall) {
    match c {
        WinCall::Create {
            win,
            base,
            size,
            disp_unit,
            flavor,
        } => {
            w.u8(0);
            w.u32(*win);
            w.u64(*base);
            w.u64(*size);
            w.u32(*disp_unit);
            w.u8(FLAVORS.iter().position(|f| f == flavor).unwrap_or(0) as u8);
        }
        WinCall::Shared { win } => {
            w.u8(1);
            w.u32(*win);
        }
        WinCall::Attach { win, base, size } => {
            w.u8(2);
            w.u32(*win);
            w.u64(*base);
            w.u64(*size);
        }
        WinCall::Detach { win, base } => {
            w.u8(3);
            w.u32(*win);
            w.u64(*base);
        }
        WinCall::Access(a) => {
            w.u8(4);
            w.u32(a.win);
            w.u32(a.target);
            w.u8(KINDS.iter().position(|k| *k == a.kind).unwrap_or(0) as u8);
            w.u64(a.op);
            w.u64(a.datatype);
            w.u64(a.disp as u64);
            let flat: Vec<u64> = a.blocks.iter().flat_map(|&(o, l)| [o as u64, l]).collect();
            w.u64s(&flat);
            w.bytes(&a.data);
            match a.request {
                None => w.u8(0),
                Some(q) => {
                    w.u8(1);
                    w.u64(q);
                }
            }
        }
        WinCall::Sync { win, sync } => {
            w.u8(5);
            w.u32(*win);
            encode_sync(w, sync);
        }
    }
}

fn encode_sync(w: &mut Writer, s: &Sync) {
    match s {
        Sync::Fence => w.u8(0),
        Sync::Lock { target, exclusive } => {
            w.u8(1);
            w.u32(*target);
            w.u8(*exclusive as u8);
        }
        Sync::Unlock { target } => {
            w.u8(2);
            w.u32(*target);
        }
        Sync::LockAll => w.u8(3),
        Sync::UnlockAll => w.u8(4),
        Sync::Flush { target } => {
            w.u8(5);
            match target {
                None => w.u8(0),
                Some(t) => {
                    w.u8(1);
                    w.u32(*t);
                }
            }
        }
        Sync::Post { group } => {
            w.u8(6);
            w.u32s(group);
        }
        Sync::Start { group } => {
            w.u8(7);
            w.u32s(group);
        }
        Sync::Complete => w.u8(8),
        Sync::Wait => w.u8(9),
        Sync::Test => w.u8(10),
        Sync::Free => w.u8(11),
    }
}

pub(crate) fn decode(r: &mut Reader<'_>) -> Result<WinCall, WireError> {
    Ok(match r.u8()? {
        0 => WinCall::Create {
            win: r.u32()?,
            base: r.u64()?,
            size: r.u64()?,
            disp_unit: r.u32()?,
            flavor: {
                let f = r.u8()?;
                *FLAVORS
                    .get(f as usize)
                    .ok_or_else(|| WireError(format!("unknown window flavor {f}")))?
            },
        },
        1 => WinCall::Shared { win: r.u32()? },
        2 => WinCall::Attach {
            win: r.u32()?,
            base: r.u64()?,
            size: r.u64()?,
        },
        3 => WinCall::Detach {
            win: r.u32()?,
            base: r.u64()?,
        },
        4 => {
            let (win, target) = (r.u32()?, r.u32()?);
            let k = r.u8()?;
            let kind = *KINDS
                .get(k as usize)
                .ok_or_else(|| WireError(format!("unknown one-sided access {k}")))?;
            let (op, datatype, disp) = (r.u64()?, r.u64()?, r.u64()? as i64);
            let flat = r.u64s()?;
            if flat.len() % 2 != 0 {
                return Err(WireError("an odd number of block bounds".into()));
            }
            let blocks = flat.chunks_exact(2).map(|p| (p[0] as i64, p[1])).collect();
            let data = r.bytes()?;
            let request = match r.u8()? {
                0 => None,
                _ => Some(r.u64()?),
            };
            WinCall::Access(Access {
                win,
                target,
                kind,
                op,
                datatype,
                disp,
                blocks,
                data,
                request,
            })
        }
        5 => WinCall::Sync {
            win: r.u32()?,
            sync: decode_sync(r)?,
        },
        k => return Err(WireError(format!("unknown window call {k}"))),
    })
}

fn decode_sync(r: &mut Reader<'_>) -> Result<Sync, WireError> {
    Ok(match r.u8()? {
        0 => Sync::Fence,
        1 => Sync::Lock {
            target: r.u32()?,
            exclusive: r.u8()? != 0,
        },
        2 => Sync::Unlock { target: r.u32()? },
        3 => Sync::LockAll,
        4 => Sync::UnlockAll,
        5 => Sync::Flush {
            target: match r.u8()? {
                0 => None,
                _ => Some(r.u32()?),
            },
        },
        6 => Sync::Post { group: r.u32s()? },
        7 => Sync::Start { group: r.u32s()? },
        8 => Sync::Complete,
        9 => Sync::Wait,
        10 => Sync::Test,
        11 => Sync::Free,
        k => return Err(WireError(format!("unknown window synchronization {k}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Call, Request, Timed};

    #[test]
    fn every_window_call_decodes_to_itself() {
        let mut calls = Vec::new();
        for flavor in FLAVORS {
            calls.push(WinCall::Create {
                win: 4,
                base: 0x7fff_0000,
                size: 80,
                disp_unit: 8,
                flavor,
            });
        }
        calls.push(WinCall::Shared { win: 5 });
        calls.push(WinCall::Attach {
            win: 5,
            base: 64,
            size: 32,
        });
        calls.push(WinCall::Detach { win: 5, base: 64 });
        for kind in KINDS {
            for request in [None, Some(9)] {
                calls.push(WinCall::Access(Access {
                    win: 6,
                    target: 1,
                    kind,
                    op: 0x21,
                    datatype: 0x214,
                    disp: -3,
                    blocks: vec![(0, 8), (-16, 8)],
                    data: vec![1; 16],
                    request,
                }));
            }
        }
        for sync in [
            Sync::Fence,
            Sync::Lock {
                target: 2,
                exclusive: true,
            },
            Sync::Unlock { target: 2 },
            Sync::LockAll,
            Sync::UnlockAll,
            Sync::Flush { target: None },
            Sync::Flush { target: Some(3) },
            Sync::Post { group: vec![0, 2] },
            Sync::Start { group: vec![1] },
            Sync::Complete,
            Sync::Wait,
            Sync::Test,
            Sync::Free,
        ] {
            calls.push(WinCall::Sync { win: 7, sync });
        }
        for c in calls {
            let q = Request::Calls {
                ahead: Vec::new(),
                last: Timed {
                    compute_ns: 1,
                    clock_ps: 2,
                    call: Call::Win(c),
                },
            };
            assert_eq!(Request::decode(&q.encode()), Ok(q));
        }
        let m = SharedMemory {
            pid: 77,
            fd: 9,
            parts: vec![(0, 40, 4), (40, 0, 1)],
        };
        assert_eq!(SharedMemory::decode(&m.encode()), Ok(m.clone()));
        let mut cut = m.encode();
        cut.pop();
        assert!(SharedMemory::decode(&cut).is_err());
    }
}
