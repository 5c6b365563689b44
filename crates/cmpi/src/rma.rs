//! One-sided data movement and synchronization: each call goes to `simpi run`, which
//! reads or writes the target's window memory and times the transfer. The target's
//! datatype is the origin's to interpret (MPI defines it so): the library sends the
//! target's pieces as byte offsets.

use crate::client::{entry, Client, Failure, Pending, Typed};
use crate::win::Win;
use simpi_wire::{abi, Access, AccessKind, Call, Sync, WinCall};
use std::ffi::{c_int, c_void};

/// MPI_LOCK_SHARED and MPI_LOCK_EXCLUSIVE.
const LOCK_SHARED: c_int = 21;
const LOCK_EXCLUSIVE: c_int = 22;

/// Most pieces one access names at the target (a datatype of more is refused rather
/// than sent piece by piece).
const MAX_PIECES: u64 = 1 << 24;

/// The target's side of an access: rank, displacement, count and datatype.
#[derive(Clone, Copy)]
struct Target {
    rank: c_int,
    disp: isize,
    count: c_int,
    datatype: usize,
}

impl Target {
    fn new(rank: c_int, disp: isize, count: c_int, datatype: usize) -> Target {
        Target {
            rank,
            disp,
            count,
            datatype,
        }
    }
}

/// A buffer argument: address, count, datatype.
type Buf = (*const c_void, c_int, usize);

/// The pieces of `t` at the target, in bytes from the displaced address, in order.
fn pieces(t: &Typed) -> Result<Vec<(i64, u64)>, Failure> {
    // Contiguous elements are one piece: no walk over every element.
    if t.ty.is_contiguous() {
        return Ok(vec![(0, t.bytes())]);
    }
    let per = t.ty.blocks.len() as u64;
    if per.saturating_mul(t.count) > MAX_PIECES {
        return Err((
            abi::err::TYPE,
            format!("an access of more than {MAX_PIECES} separate pieces at the target"),
        ));
    }
    let mut out: Vec<(i64, u64)> = Vec::with_capacity((per * t.count) as usize);
    for k in 0..t.count as i64 {
        let at = k
            .checked_mul(t.ty.extent)
            .ok_or((abi::err::COUNT, "the access overflows".to_string()))?;
        for &(o, l) in &t.ty.blocks {
            let start = at + o;
            match out.last_mut() {
                Some(last) if last.0 + last.1 as i64 == start => last.1 += l,
                _ => out.push((start, l)),
            }
        }
    }
    Ok(out)
}

/// Checks that operation `op` may accumulate: a predefined one, MPI_REPLACE or
/// MPI_NO_OP.
fn check_op(op: usize) -> Result<u64, Failure> {
    let op = op as u64;
    if abi::op_name(op).is_none() {
        return Err((
            abi::err::OP,
            format!("operation {op:#x}: one-sided accumulates take predefined operations only"),
        ));
    }
    Ok(op)
}

/// One access of `kind` on `win`: `origin` is the data sent, `result` where fetched
/// data goes, `compare` the compared value of a compare-and-swap.
#[allow(clippy::too_many_arguments)]
unsafe fn access(
    c: &mut Client,
    win: usize,
    kind: AccessKind,
    origin: Option<Buf>,
    result: Option<(*mut c_void, c_int, usize)>,
    compare: Option<Buf>,
    t: Target,
    op: u64,
    request: Option<*mut usize>,
) -> Result<(), Failure> {
    let w: &Win = c.win(win)?;
    let index = w.comm.index;
    let size = w.comm.size;
    if t.rank == abi::PROC_NULL {
        if let Some(q) = request {
            *q = c.new_request(Pending::null()) as usize;
        }
        return Ok(());
    }
    if t.rank < 0 || t.rank as u32 >= size {
        return Err((
            abi::err::RANK,
            format!("target {} is not in the window ({size} ranks)", t.rank),
        ));
    }
    let target = c.typed(t.count.into(), t.datatype)?;
    if target.bytes() == 0 {
        // Nothing moves (a count of 0, or a type without data).
        if let Some(q) = request {
            *q = c.new_request(Pending::null()) as usize;
        }
        return Ok(());
    }
    let blocks = pieces(&target)?;
    // The element type the accumulate's arithmetic is done in.
    let datatype = match kind {
        AccessKind::Put | AccessKind::Get => abi::BYTE,
        _ => target.ty.base.ok_or((
            abi::err::TYPE,
            "an accumulate's target datatype must be made of one predefined type".to_string(),
        ))?,
    };
    let mut data = Vec::new();
    if let Some((buf, count, dt)) = origin {
        data = c.typed(count.into(), dt)?.read(buf as *const u8)?;
    }
    if let Some((buf, count, dt)) = compare {
        data.extend(c.typed(count.into(), dt)?.read(buf as *const u8)?);
    }
    let q = request.map(|_| c.new_request(Pending::Send));
    let reply = c.call(Call::Win(WinCall::Access(Access {
        win: index,
        target: t.rank as u32,
        kind,
        op,
        datatype,
        disp: t.disp as i64,
        blocks,
        data,
        request: q,
    })));
    if let Some((buf, count, dt)) = result {
        let got = reply.into_iter().next().map(|m| m.data).unwrap_or_default();
        c.typed(count.into(), dt)?.write(buf as *mut u8, &got)?;
    }
    if let (Some(out), Some(q)) = (request, q) {
        *out = q as usize;
    }
    Ok(())
}

/// A put or an accumulate (`op`) of `origin` to `t`, blocking or request-based.
unsafe fn put_like(
    name: &str,
    kind: AccessKind,
    origin: Buf,
    t: Target,
    op: Option<usize>,
    win: usize,
    request: Option<*mut usize>,
) -> c_int {
    entry(name, |c| {
        let op = op.map(check_op).transpose()?.unwrap_or(0);
        access(c, win, kind, Some(origin), None, None, t, op, request)
    })
}

/// A get of `t` into `origin`, blocking or request-based.
unsafe fn get_like(
    name: &str,
    origin: (*mut c_void, c_int, usize),
    t: Target,
    win: usize,
    request: Option<*mut usize>,
) -> c_int {
    entry(name, |c| {
        access(c, win, AccessKind::Get, None, Some(origin), None, t, 0, request)
    })
}

/// A get-accumulate: `origin` combined into `t` with `op`, the old data into `result`.
unsafe fn get_accumulate(
    name: &str,
    origin: Buf,
    result: (*mut c_void, c_int, usize),
    t: Target,
    op: usize,
    win: usize,
    request: Option<*mut usize>,
) -> c_int {
    entry(name, |c| {
        let op = check_op(op)?;
        // MPI_NO_OP ignores the origin's buffer.
        let origin = (op != abi::OP_NO_OP).then_some(origin);
        access(
            c,
            win,
            AccessKind::GetAccumulate,
            origin,
            Some(result),
            None,
            t,
            op,
            request,
        )
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Put(
    origin: *const c_void,
    ocount: c_int,
    odt: usize,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tdt: usize,
    win: usize,
) -> c_int {
    let t = Target::new(rank, disp, tcount, tdt);
    put_like("MPI_Put", AccessKind::Put, (origin, ocount, odt), t, None, win, None)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Rput(
    origin: *const c_void,
    ocount: c_int,
    odt: usize,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tdt: usize,
    win: usize,
    request: *mut usize,
) -> c_int {
    let t = Target::new(rank, disp, tcount, tdt);
    put_like(
        "MPI_Rput",
        AccessKind::Put,
        (origin, ocount, odt),
        t,
        None,
        win,
        Some(request),
    )
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Get(
    origin: *mut c_void,
    ocount: c_int,
    odt: usize,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tdt: usize,
    win: usize,
) -> c_int {
    get_like(
        "MPI_Get",
        (origin, ocount, odt),
        Target::new(rank, disp, tcount, tdt),
        win,
        None,
    )
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Rget(
    origin: *mut c_void,
    ocount: c_int,
    odt: usize,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tdt: usize,
    win: usize,
    request: *mut usize,
) -> c_int {
    let t = Target::new(rank, disp, tcount, tdt);
    get_like("MPI_Rget", (origin, ocount, odt), t, win, Some(request))
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Accumulate(
    origin: *const c_void,
    ocount: c_int,
    odt: usize,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tdt: usize,
    op: usize,
    win: usize,
) -> c_int {
    let t = Target::new(rank, disp, tcount, tdt);
    put_like(
        "MPI_Accumulate",
        AccessKind::Accumulate,
        (origin, ocount, odt),
        t,
        Some(op),
        win,
        None,
    )
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Raccumulate(
    origin: *const c_void,
    ocount: c_int,
    odt: usize,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tdt: usize,
    op: usize,
    win: usize,
    request: *mut usize,
) -> c_int {
    let t = Target::new(rank, disp, tcount, tdt);
    let o = (origin, ocount, odt);
    put_like(
        "MPI_Raccumulate",
        AccessKind::Accumulate,
        o,
        t,
        Some(op),
        win,
        Some(request),
    )
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Get_accumulate(
    origin: *const c_void,
    ocount: c_int,
    odt: usize,
    result: *mut c_void,
    rcount: c_int,
    rdt: usize,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tdt: usize,
    op: usize,
    win: usize,
) -> c_int {
    let t = Target::new(rank, disp, tcount, tdt);
    let (o, r) = ((origin, ocount, odt), (result, rcount, rdt));
    get_accumulate("MPI_Get_accumulate", o, r, t, op, win, None)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Rget_accumulate(
    origin: *const c_void,
    ocount: c_int,
    odt: usize,
    result: *mut c_void,
    rcount: c_int,
    rdt: usize,
    rank: c_int,
    disp: isize,
    tcount: c_int,
    tdt: usize,
    op: usize,
    win: usize,
    request: *mut usize,
) -> c_int {
    let t = Target::new(rank, disp, tcount, tdt);
    let (o, r) = ((origin, ocount, odt), (result, rcount, rdt));
    get_accumulate("MPI_Rget_accumulate", o, r, t, op, win, Some(request))
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Fetch_and_op(
    origin: *const c_void,
    result: *mut c_void,
    dt: usize,
    rank: c_int,
    disp: isize,
    op: usize,
    win: usize,
) -> c_int {
    let t = Target::new(rank, disp, 1, dt);
    get_accumulate("MPI_Fetch_and_op", (origin, 1, dt), (result, 1, dt), t, op, win, None)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Compare_and_swap(
    origin: *const c_void,
    compare: *const c_void,
    result: *mut c_void,
    dt: usize,
    rank: c_int,
    disp: isize,
    win: usize,
) -> c_int {
    let t = Target::new(rank, disp, 1, dt);
    entry("MPI_Compare_and_swap", |c| {
        let (o, r, k) = ((origin, 1, dt), (result, 1, dt), (compare, 1, dt));
        access(
            c,
            win,
            AccessKind::CompareAndSwap,
            Some(o),
            Some(r),
            Some(k),
            t,
            0,
            None,
        )
    })
}

/// Synchronization `sync` on `win`; returns the reply's completions.
fn sync(c: &mut Client, win: usize, sync: Sync) -> Result<usize, Failure> {
    let index = c.win(win)?.comm.index;
    Ok(c.call(Call::Win(WinCall::Sync { win: index, sync })).len())
}

/// A target rank of a lock or flush on `win`: `None` for MPI_PROC_NULL.
fn target_of(c: &Client, win: usize, rank: c_int) -> Result<Option<u32>, Failure> {
    let size = c.win(win)?.comm.size;
    match rank {
        abi::PROC_NULL => Ok(None),
        r if r >= 0 && (r as u32) < size => Ok(Some(r as u32)),
        r => Err((abi::err::RANK, format!("rank {r} is not in the window ({size} ranks)"))),
    }
}

/// The window ranks of group `group`'s members (all must be in the window).
fn window_ranks(c: &Client, win: usize, group: usize) -> Result<Vec<u32>, Failure> {
    let members = c.group(group)?;
    let w = c.win(win)?;
    members
        .iter()
        .map(|&m| Client::win_rank_of(w, m).ok_or((abi::err::GROUP, format!("world rank {m} is not in the window"))))
        .collect()
}

#[no_mangle]
pub extern "C" fn MPI_Win_fence(_assert: c_int, win: usize) -> c_int {
    entry("MPI_Win_fence", |c| sync(c, win, Sync::Fence).map(drop))
}

#[no_mangle]
pub extern "C" fn MPI_Win_lock(lock_type: c_int, rank: c_int, _assert: c_int, win: usize) -> c_int {
    entry("MPI_Win_lock", |c| {
        c.win(win)?;
        let exclusive = match lock_type {
            LOCK_EXCLUSIVE => true,
            LOCK_SHARED => false,
            k => return Err((abi::err::LOCKTYPE, format!("lock type {k}"))),
        };
        match target_of(c, win, rank)? {
            Some(target) => sync(c, win, Sync::Lock { target, exclusive }).map(drop),
            None => c.win(win).map(drop),
        }
    })
}

#[no_mangle]
pub extern "C" fn MPI_Win_unlock(rank: c_int, win: usize) -> c_int {
    entry("MPI_Win_unlock", |c| match target_of(c, win, rank)? {
        Some(target) => sync(c, win, Sync::Unlock { target }).map(drop),
        None => Ok(()),
    })
}

#[no_mangle]
pub extern "C" fn MPI_Win_lock_all(_assert: c_int, win: usize) -> c_int {
    entry("MPI_Win_lock_all", |c| sync(c, win, Sync::LockAll).map(drop))
}

#[no_mangle]
pub extern "C" fn MPI_Win_unlock_all(win: usize) -> c_int {
    entry("MPI_Win_unlock_all", |c| sync(c, win, Sync::UnlockAll).map(drop))
}

fn flush(name: &str, rank: Option<c_int>, win: usize) -> c_int {
    entry(name, |c| {
        let target = match rank {
            None => None,
            Some(r) => match target_of(c, win, r)? {
                Some(t) => Some(t),
                None => return Ok(()),
            },
        };
        sync(c, win, Sync::Flush { target }).map(drop)
    })
}

#[no_mangle]
pub extern "C" fn MPI_Win_flush(rank: c_int, win: usize) -> c_int {
    flush("MPI_Win_flush", Some(rank), win)
}

#[no_mangle]
pub extern "C" fn MPI_Win_flush_local(rank: c_int, win: usize) -> c_int {
    flush("MPI_Win_flush_local", Some(rank), win)
}

#[no_mangle]
pub extern "C" fn MPI_Win_flush_all(win: usize) -> c_int {
    flush("MPI_Win_flush_all", None, win)
}

#[no_mangle]
pub extern "C" fn MPI_Win_flush_local_all(win: usize) -> c_int {
    flush("MPI_Win_flush_local_all", None, win)
}

#[no_mangle]
pub extern "C" fn MPI_Win_sync(win: usize) -> c_int {
    // Memory is one copy (MPI_WIN_UNIFIED): nothing to reconcile.
    entry("MPI_Win_sync", |c| c.win(win).map(drop))
}

#[no_mangle]
pub extern "C" fn MPI_Win_post(group: usize, _assert: c_int, win: usize) -> c_int {
    entry("MPI_Win_post", |c| {
        let group = window_ranks(c, win, group)?;
        sync(c, win, Sync::Post { group }).map(drop)
    })
}

#[no_mangle]
pub extern "C" fn MPI_Win_start(group: usize, _assert: c_int, win: usize) -> c_int {
    entry("MPI_Win_start", |c| {
        let group = window_ranks(c, win, group)?;
        sync(c, win, Sync::Start { group }).map(drop)
    })
}

#[no_mangle]
pub extern "C" fn MPI_Win_complete(win: usize) -> c_int {
    entry("MPI_Win_complete", |c| sync(c, win, Sync::Complete).map(drop))
}

#[no_mangle]
pub extern "C" fn MPI_Win_wait(win: usize) -> c_int {
    entry("MPI_Win_wait", |c| sync(c, win, Sync::Wait).map(drop))
}

/// # Safety
/// `flag` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_test(win: usize, flag: *mut c_int) -> c_int {
    entry("MPI_Win_test", |c| {
        *flag = c_int::from(sync(c, win, Sync::Test)? > 0);
        Ok(())
    })
}
