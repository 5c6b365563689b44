//! Windows of one-sided communication: making and freeing them, and what a rank asks
//! of its own (attributes, group, name, error handler, shared memory). Each window
//! has a communicator of its own, a duplicate of the one it was made on: its index
//! names the window to `simpi run`, which moves the data (see `rma.rs`).

use crate::client::{entry, Client, Comm, Failure};
use simpi_wire::{abi, Call, CollKind, Flavor, SharedMemory, Sync, WinCall};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};

/// The first window handle (apart from every other kind of handle).
const FIRST_WIN: u64 = 0x4000_0000;

/// MPI_WIN_BASE and the other predefined window attributes.
const WIN_BASE: c_int = 20001;
const WIN_DISP_UNIT: c_int = 20002;
const WIN_SIZE: c_int = 20003;
const WIN_CREATE_FLAVOR: c_int = 20004;
const WIN_MODEL: c_int = 20005;
/// MPI_WIN_UNIFIED: a rank's loads and stores and the others' accesses see one copy.
const UNIFIED: c_int = 31;

/// Memory the library holds for a window.
#[derive(Debug)]
enum Held {
    /// The program's own (MPI_Win_create, dynamic windows).
    None,
    /// Allocated for MPI_Win_allocate.
    Heap(std::alloc::Layout),
    /// A shared window's mapping, and where each member's part is in it.
    Mapped { len: usize, parts: Vec<(u64, u64, u32)> },
}

/// A window as this rank sees it.
#[derive(Debug)]
pub struct Win {
    /// Its communicator (a duplicate of the one it was made on).
    pub comm: Comm,
    /// That communicator's handle.
    comm_handle: u64,
    /// How its memory came to be.
    flavor: Flavor,
    /// This rank's memory.
    base: *mut u8,
    held: Held,
    /// The values the predefined attributes point to: size, displacement unit,
    /// flavor, memory model (boxed: their addresses are handed out).
    values: Box<(isize, c_int, c_int, c_int)>,
    name: String,
}

// SAFETY: the window's memory pointer is only used by the rank's thread holding the
// library's lock.
unsafe impl Send for Win {}

/// Windows by handle.
pub type Wins = HashMap<u64, Win>;

impl Client {
    /// Window `win`, or MPI_ERR_WIN; errors of the call go to its error handler.
    pub fn win(&self, win: usize) -> Result<&Win, Failure> {
        let w = self
            .wins
            .get(&(win as u64))
            .ok_or_else(|| (abi::err::WIN, format!("window {win:#x} does not exist (or was freed)")))?;
        self.last_comm.set(win as u64);
        Ok(w)
    }

    /// The window rank of world rank `w` in window `win`.
    pub fn win_rank_of(win: &Win, w: u32) -> Option<u32> {
        match &win.comm.members {
            None => Some(w),
            Some(m) => m.iter().position(|&x| x == w).map(|i| i as u32),
        }
    }
}

/// Makes a window of `flavor` on `comm` over `size` bytes at `base` (allocated here
/// for MPI_Win_allocate, mapped for a shared window); returns its handle and base.
unsafe fn make(
    c: &mut Client,
    comm: usize,
    (base, size, disp_unit): (*mut u8, isize, c_int),
    flavor: Flavor,
) -> Result<(u64, *mut u8), Failure> {
    let parent = c.comm(comm)?;
    if parent.remote.is_some() {
        return Err((abi::err::COMM, "a window on an intercommunicator".into()));
    }
    if size < 0 {
        return Err((abi::err::SIZE, format!("a window of {size} bytes")));
    }
    if disp_unit <= 0 {
        return Err((abi::err::DISP, format!("the displacement unit {disp_unit}")));
    }
    let comm_handle = crate::comm::make(c, comm, CollKind::Dup, Vec::new())?;
    let wc = c.comm(comm_handle as usize)?;
    let (mut base, held) = match flavor {
        Flavor::Allocate if size > 0 => {
            let layout = std::alloc::Layout::from_size_align(size as usize, 64)
                .map_err(|e| (abi::err::NO_MEM, e.to_string()))?;
            let p = std::alloc::alloc_zeroed(layout);
            if p.is_null() {
                return Err((abi::err::NO_MEM, format!("cannot allocate a window of {size} bytes")));
            }
            (p, Held::Heap(layout))
        }
        // A window of no bytes still has an address.
        Flavor::Allocate => (std::ptr::NonNull::<u64>::dangling().as_ptr() as *mut u8, Held::None),
        _ => (base, Held::None),
    };
    c.call(Call::Win(WinCall::Create {
        win: wc.index,
        base: base as u64,
        size: size as u64,
        disp_unit: disp_unit as u32,
        flavor,
    }));
    let mut held = held;
    if flavor == Flavor::Shared {
        let reply = c.call(Call::Win(WinCall::Shared { win: wc.index }));
        let data = reply.into_iter().next().map(|m| m.data).unwrap_or_default();
        let m = SharedMemory::decode(&data).map_err(|e| (abi::err::INTERN, e.to_string()))?;
        let len: u64 = m.parts.iter().map(|p| p.1).sum();
        let mut map = std::ptr::NonNull::<u64>::dangling().as_ptr() as *mut u8;
        if len > 0 {
            let path = format!("/proc/{}/fd/{}\0", m.pid, m.fd);
            let fd = libc::open(path.as_ptr() as *const c_char, libc::O_RDWR | libc::O_CLOEXEC);
            if fd < 0 {
                return Err((
                    abi::err::NO_MEM,
                    format!(
                        "cannot open the shared window's memory: {}",
                        std::io::Error::last_os_error()
                    ),
                ));
            }
            let p = libc::mmap(
                std::ptr::null_mut(),
                len as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            );
            libc::close(fd);
            if p == libc::MAP_FAILED {
                return Err((
                    abi::err::NO_MEM,
                    format!(
                        "cannot map the shared window's memory: {}",
                        std::io::Error::last_os_error()
                    ),
                ));
            }
            map = p as *mut u8;
        }
        let mine = m.parts.get(wc.rank as usize).map(|p| p.0).unwrap_or(0);
        base = map.wrapping_add(mine as usize);
        held = Held::Mapped {
            len: len as usize,
            parts: m.parts,
        };
    }
    let flavor_code = match flavor {
        Flavor::Allocate => 41,
        Flavor::Create => 42,
        Flavor::Dynamic => 43,
        Flavor::Shared => 44,
    };
    let h = FIRST_WIN + c.wins_made;
    c.wins_made += 1;
    c.wins.insert(
        h,
        Win {
            comm: wc,
            comm_handle,
            flavor,
            base,
            held,
            values: Box::new((size, disp_unit, flavor_code, UNIFIED)),
            name: String::new(),
        },
    );
    Ok((h, base))
}

/// # Safety
/// As the MPI standard's: `base` holds `size` bytes; `win` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_create(
    base: *mut c_void,
    size: isize,
    disp_unit: c_int,
    _info: usize,
    comm: usize,
    win: *mut usize,
) -> c_int {
    entry("MPI_Win_create", |c| {
        *win = make(c, comm, (base as *mut u8, size, disp_unit), Flavor::Create)?.0 as usize;
        Ok(())
    })
}

/// MPI_Win_allocate and MPI_Win_allocate_shared: memory made here (`flavor`).
unsafe fn allocate(
    name: &str,
    flavor: Flavor,
    (size, disp_unit): (isize, c_int),
    comm: usize,
    baseptr: *mut c_void,
    win: *mut usize,
) -> c_int {
    entry(name, |c| {
        let (h, base) = make(c, comm, (std::ptr::null_mut(), size, disp_unit), flavor)?;
        *(baseptr as *mut *mut u8) = base;
        *win = h as usize;
        Ok(())
    })
}

/// # Safety
/// `baseptr` points to a pointer; `win` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_allocate(
    size: isize,
    disp_unit: c_int,
    _info: usize,
    comm: usize,
    baseptr: *mut c_void,
    win: *mut usize,
) -> c_int {
    allocate(
        "MPI_Win_allocate",
        Flavor::Allocate,
        (size, disp_unit),
        comm,
        baseptr,
        win,
    )
}

/// # Safety
/// `baseptr` points to a pointer; `win` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_allocate_shared(
    size: isize,
    disp_unit: c_int,
    _info: usize,
    comm: usize,
    baseptr: *mut c_void,
    win: *mut usize,
) -> c_int {
    allocate(
        "MPI_Win_allocate_shared",
        Flavor::Shared,
        (size, disp_unit),
        comm,
        baseptr,
        win,
    )
}

/// # Safety
/// `win` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_create_dynamic(_info: usize, comm: usize, win: *mut usize) -> c_int {
    entry("MPI_Win_create_dynamic", |c| {
        *win = make(c, comm, (std::ptr::null_mut(), 0, 1), Flavor::Dynamic)?.0 as usize;
        Ok(())
    })
}

/// # Safety
/// `base` holds `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_attach(win: usize, base: *mut c_void, size: isize) -> c_int {
    entry("MPI_Win_attach", |c| {
        let w = c.win(win)?;
        if w.flavor != Flavor::Dynamic {
            return Err((
                abi::err::RMA_FLAVOR,
                "MPI_Win_attach on a window that is not dynamic".into(),
            ));
        }
        if size < 0 {
            return Err((abi::err::SIZE, format!("a region of {size} bytes")));
        }
        let index = w.comm.index;
        c.call(Call::Win(WinCall::Attach {
            win: index,
            base: base as u64,
            size: size as u64,
        }));
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_detach(win: usize, base: *const c_void) -> c_int {
    entry("MPI_Win_detach", |c| {
        let w = c.win(win)?;
        if w.flavor != Flavor::Dynamic {
            return Err((
                abi::err::RMA_FLAVOR,
                "MPI_Win_detach on a window that is not dynamic".into(),
            ));
        }
        let index = w.comm.index;
        c.call(Call::Win(WinCall::Detach {
            win: index,
            base: base as u64,
        }));
        Ok(())
    })
}

/// # Safety
/// `win` points to a window handle.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_free(win: *mut usize) -> c_int {
    entry("MPI_Win_free", |c| {
        let h = *win;
        let index = c.win(h)?.comm.index;
        c.call(Call::Win(WinCall::Sync {
            win: index,
            sync: Sync::Free,
        }));
        c.drop_attrs(h)?;
        if let Some(w) = c.wins.remove(&(h as u64)) {
            match w.held {
                Held::Heap(layout) => std::alloc::dealloc(w.base, layout),
                Held::Mapped { len, parts } if len > 0 => {
                    let mine = parts.get(w.comm.rank as usize).map(|p| p.0).unwrap_or(0);
                    libc::munmap(w.base.wrapping_sub(mine as usize) as *mut c_void, len);
                }
                _ => {}
            }
            c.comms.remove(&w.comm_handle);
        }
        *win = abi::WIN_NULL as usize;
        Ok(())
    })
}

/// # Safety
/// The out-arguments are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_shared_query(
    win: usize,
    rank: c_int,
    size: *mut isize,
    disp_unit: *mut c_int,
    baseptr: *mut c_void,
) -> c_int {
    entry("MPI_Win_shared_query", |c| {
        let w = c.win(win)?;
        let Held::Mapped { parts, .. } = &w.held else {
            // Not shared (MPI 4.1): a rank's own memory, nothing of the others'.
            if rank != abi::PROC_NULL && (rank < 0 || rank as u32 >= w.comm.size) {
                return Err((abi::err::RANK, format!("rank {rank} is not in the window")));
            }
            let own = rank as u32 == w.comm.rank;
            *size = if own { w.values.0 } else { 0 };
            *disp_unit = if own { w.values.1 } else { 1 };
            *(baseptr as *mut *mut u8) = if own { w.base } else { std::ptr::null_mut() };
            return Ok(());
        };
        let mine = parts.get(w.comm.rank as usize).map(|p| p.0).unwrap_or(0);
        let start = w.base.wrapping_sub(mine as usize);
        // MPI_PROC_NULL: the first part that has memory.
        let i = if rank == abi::PROC_NULL {
            parts.iter().position(|p| p.1 > 0).unwrap_or(0)
        } else if rank >= 0 && (rank as usize) < parts.len() {
            rank as usize
        } else {
            return Err((abi::err::RANK, format!("rank {rank} is not in the window")));
        };
        let (off, len, unit) = parts.get(i).copied().unwrap_or((0, 0, 1));
        *size = len as isize;
        *disp_unit = unit as c_int;
        *(baseptr as *mut *mut u8) = start.wrapping_add(off as usize);
        Ok(())
    })
}

/// # Safety
/// `group` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_get_group(win: usize, group: *mut usize) -> c_int {
    entry("MPI_Win_get_group", |c| {
        let members = c.win(win)?.comm.member_list();
        *group = c.new_group(members.to_vec()) as usize;
        Ok(())
    })
}

/// # Safety
/// `name` is a C string.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_set_name(win: usize, name: *const c_char) -> c_int {
    entry("MPI_Win_set_name", |c| {
        c.win(win)?;
        if name.is_null() {
            return Err((abi::err::ARG, "a null name".into()));
        }
        let text = CStr::from_ptr(name).to_string_lossy().into_owned();
        if let Some(w) = c.wins.get_mut(&(win as u64)) {
            w.name = text;
        }
        Ok(())
    })
}

/// # Safety
/// `name` holds MPI_MAX_OBJECT_NAME (128) bytes; `len` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_get_name(win: usize, name: *mut c_char, len: *mut c_int) -> c_int {
    entry("MPI_Win_get_name", |c| {
        let text = if win as u64 == abi::WIN_NULL {
            "MPI_WIN_NULL".to_string()
        } else {
            c.win(win)?.name.clone()
        };
        crate::env::put_str(&text, name, 128, len);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn MPI_Win_set_errhandler(win: usize, handler: usize) -> c_int {
    entry("MPI_Win_set_errhandler", |c| {
        c.win(win)?;
        let h = c.check_handler(handler)?;
        c.errhandlers.insert(win as u64, h);
        Ok(())
    })
}

/// # Safety
/// `handler` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_get_errhandler(win: usize, handler: *mut usize) -> c_int {
    entry("MPI_Win_get_errhandler", |c| {
        c.win(win)?;
        let h = c
            .errhandlers
            .get(&(win as u64))
            .or_else(|| c.errhandlers.get(&abi::COMM_WORLD))
            .copied()
            .unwrap_or(abi::ERRORS_ARE_FATAL);
        *handler = h as usize;
        Ok(())
    })
}

/// # Safety
/// As MPI_Comm_create_errhandler.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_create_errhandler(f: Option<crate::errhan::HandlerFn>, handler: *mut usize) -> c_int {
    crate::errhan::MPI_Comm_create_errhandler(f, handler)
}

#[no_mangle]
pub extern "C" fn MPI_Win_call_errhandler(win: usize, code: c_int) -> c_int {
    // The handler runs as for an error of a call on the window.
    entry("MPI_Win_call_errhandler", |c| {
        c.win(win)?;
        Err((code, format!("error {code} raised by the program on the window")))
    })
}

/// # Safety
/// `info` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_get_info(win: usize, info: *mut usize) -> c_int {
    entry("MPI_Win_get_info", |c| {
        c.win(win)?;
        *info = c.new_info(Vec::new()) as usize;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn MPI_Win_set_info(win: usize, _info: usize) -> c_int {
    entry("MPI_Win_set_info", |c| c.win(win).map(drop))
}

/// # Safety
/// As MPI_Comm_create_keyval.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_create_keyval(
    copy: usize,
    delete: usize,
    keyval: *mut c_int,
    extra: *mut c_void,
) -> c_int {
    crate::attr::MPI_Comm_create_keyval(copy, delete, keyval, extra)
}

/// # Safety
/// As MPI_Comm_free_keyval.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_free_keyval(keyval: *mut c_int) -> c_int {
    crate::attr::MPI_Comm_free_keyval(keyval)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_set_attr(win: usize, keyval: c_int, value: *mut c_void) -> c_int {
    entry("MPI_Win_set_attr", |c| {
        c.win(win)?;
        c.set_attr(win, keyval, value)
    })
}

/// # Safety
/// `value` and `flag` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_get_attr(win: usize, keyval: c_int, value: *mut c_void, flag: *mut c_int) -> c_int {
    entry("MPI_Win_get_attr", |c| {
        let w = c.win(win)?;
        let v = &*w.values;
        let found: Option<*mut c_void> = match keyval {
            WIN_BASE => Some(w.base as *mut c_void),
            WIN_SIZE => Some(&v.0 as *const isize as *mut c_void),
            WIN_DISP_UNIT => Some(&v.1 as *const c_int as *mut c_void),
            WIN_CREATE_FLAVOR => Some(&v.2 as *const c_int as *mut c_void),
            WIN_MODEL => Some(&v.3 as *const c_int as *mut c_void),
            k => {
                if !c.keyvals.contains_key(&k) {
                    return Err((abi::err::KEYVAL, format!("keyval {k} does not exist")));
                }
                c.attrs.get(&(win as u64, k)).map(|&a| a as *mut c_void)
            }
        };
        *flag = c_int::from(found.is_some());
        if let Some(v) = found {
            *(value as *mut *mut c_void) = v;
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Win_delete_attr(win: usize, keyval: c_int) -> c_int {
    entry("MPI_Win_delete_attr", |c| {
        c.win(win)?;
        if !c.delete_attr(win, keyval)? {
            return Err((abi::err::KEYVAL, format!("the window has no attribute {keyval}")));
        }
        Ok(())
    })
}
