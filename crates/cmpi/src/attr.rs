//! Attributes on communicators: the predefined ones of MPI_COMM_WORLD (MPI_TAG_UB and
//! the others), and keyvals the program makes, with their copy functions (called by
//! MPI_Comm_dup) and delete functions (called when an attribute is deleted, replaced,
//! or its communicator freed).

use crate::client::{defer, entry, with_mut, Client, Failure};
use simpi_wire::abi;
use std::ffi::{c_int, c_void};

/// A copy function: (old communicator, keyval, extra state, value in, value out, flag).
pub type CopyFn = unsafe extern "C" fn(usize, c_int, *mut c_void, *mut c_void, *mut c_void, *mut c_int) -> c_int;
/// A delete function: (communicator, keyval, value, extra state).
pub type DeleteFn = unsafe extern "C" fn(usize, c_int, *mut c_void, *mut c_void) -> c_int;

/// MPI_COMM_NULL_COPY_FN and MPI_COMM_DUP_FN as the ABI defines them (the null
/// delete function is 0 too).
const NULL_COPY: usize = 0;
const DUP_COPY: usize = 1;

/// A keyval the program made.
#[derive(Clone, Copy, Debug)]
pub struct Keyval {
    copy: usize,
    delete: usize,
    extra: usize,
}

/// The predefined attribute keys (MPI_TAG_UB ... MPI_UNIVERSE_SIZE).
const TAG_UB: c_int = 10001;
const HOST: c_int = 10003;
const IO: c_int = 10002;
const WTIME_IS_GLOBAL: c_int = 10004;
const APPNUM: c_int = 10005;
const LASTUSEDCODE: c_int = 10006;
const UNIVERSE_SIZE: c_int = 10007;

/// The first keyval handed to the program.
pub const FIRST_KEYVAL: c_int = 1 << 20;

/// The values the predefined attributes point to.
static mut PREDEFINED: [c_int; 7] = [0; 7];

/// Where predefined attribute `key` of MPI_COMM_WORLD points, if it is one.
fn predefined(c: &Client, key: c_int) -> Option<*mut c_void> {
    let (i, v) = match key {
        TAG_UB => (0, abi::TAG_UB),
        IO => (1, abi::ANY_SOURCE),
        HOST => (2, abi::PROC_NULL),
        WTIME_IS_GLOBAL => (3, 1),
        APPNUM => (4, 0),
        LASTUSEDCODE => (5, 0x3fff),
        UNIVERSE_SIZE => (6, c.size as c_int),
        _ => return None,
    };
    // SAFETY: the rank's one thread writes these before handing out their address;
    // the program only reads them.
    unsafe {
        let p = std::ptr::addr_of_mut!(PREDEFINED) as *mut c_int;
        *p.add(i) = v;
        Some(p.add(i) as *mut c_void)
    }
}

impl Client {
    /// Sets attribute `keyval` of object `handle` (a communicator or a window) to
    /// `value`, deleting the one it had.
    pub(crate) fn set_attr(&mut self, handle: usize, keyval: c_int, value: *mut c_void) -> Result<(), Failure> {
        if !self.keyvals.contains_key(&keyval) {
            return Err((abi::err::KEYVAL, format!("keyval {keyval} cannot be set")));
        }
        self.delete_attr(handle, keyval)?;
        self.put_attr((handle as u64, keyval), value as usize);
        Ok(())
    }

    /// Stores attribute `at`, noting when it was set.
    pub(crate) fn put_attr(&mut self, at: (u64, c_int), value: usize) {
        self.attrs.insert(at, value);
        self.attr_order.insert(at, self.attrs_set);
        self.attrs_set += 1;
    }

    /// Deletes attribute `key` of communicator `comm`, calling its delete function.
    pub(crate) fn delete_attr(&mut self, comm: usize, key: c_int) -> Result<bool, Failure> {
        let Some(value) = self.attrs.remove(&(comm as u64, key)) else {
            return Ok(false);
        };
        self.attr_order.remove(&(comm as u64, key));
        if let Some(k) = self.keyvals.get(&key).copied() {
            if k.delete != 0 {
                // SAFETY: the program gave this function for this keyval.
                let f: DeleteFn = unsafe { std::mem::transmute::<usize, DeleteFn>(k.delete) };
                // It runs once the call released the lock (it may call MPI).
                // SAFETY: as above; the arguments are what MPI passes.
                defer(move || unsafe { f(comm, key, value as *mut c_void, k.extra as *mut c_void) });
            }
        }
        Ok(true)
    }

    /// Copies the attributes of `old` to its duplicate `new`, as their copy functions
    /// say.
    pub fn copy_attrs(&mut self, old: usize, new: usize) -> Result<(), Failure> {
        let mut keys: Vec<(c_int, usize)> = self
            .attrs
            .iter()
            .filter(|((c, _), _)| *c == old as u64)
            .map(|(&(_, k), &v)| (k, v))
            .collect();
        keys.sort_unstable();
        for (key, value) in keys {
            let Some(k) = self.keyvals.get(&key).copied() else {
                continue;
            };
            match k.copy {
                NULL_COPY => {}
                DUP_COPY => {
                    self.put_attr((new as u64, key), value);
                }
                f => {
                    // SAFETY: the program gave this function for this keyval.
                    let f: CopyFn = unsafe { std::mem::transmute::<usize, CopyFn>(f) };
                    // It runs once the call released the lock (it may call MPI); what
                    // it copies is set then.
                    defer(move || {
                        let (mut out, mut flag) = (0usize, 0 as c_int);
                        // SAFETY: as above; `out` and `flag` are writable.
                        let rc = unsafe {
                            f(
                                old,
                                key,
                                k.extra as *mut c_void,
                                value as *mut c_void,
                                &mut out as *mut usize as *mut c_void,
                                &mut flag,
                            )
                        };
                        if rc == abi::err::SUCCESS && flag != 0 {
                            with_mut(|c| {
                                c.put_attr((new as u64, key), out);
                            });
                        }
                        rc
                    });
                }
            }
        }
        Ok(())
    }

    /// Deletes every attribute of `comm` (it is being freed), the last set first (as
    /// MPI requires of MPI_COMM_SELF's at MPI_Finalize).
    pub fn drop_attrs(&mut self, comm: usize) -> Result<(), Failure> {
        let mut keys: Vec<(u64, c_int)> = self
            .attrs
            .keys()
            .filter(|(c, _)| *c == comm as u64)
            .map(|&at| (self.attr_order.get(&at).copied().unwrap_or(0), at.1))
            .collect();
        keys.sort_unstable_by(|a, b| b.cmp(a));
        for (_, key) in keys {
            self.delete_attr(comm, key)?;
        }
        Ok(())
    }
}

/// # Safety
/// `keyval` is writable; the functions are null, the predefined ones, or functions
/// of the types MPI defines.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_create_keyval(
    copy: usize,
    delete: usize,
    keyval: *mut c_int,
    extra: *mut c_void,
) -> c_int {
    entry("MPI_Comm_create_keyval", |c| {
        let k = c.next_keyval;
        c.next_keyval += 1;
        c.keyvals.insert(
            k,
            Keyval {
                copy,
                delete,
                extra: extra as usize,
            },
        );
        *keyval = k;
        Ok(())
    })
}

/// # Safety
/// `keyval` points to a keyval.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_free_keyval(keyval: *mut c_int) -> c_int {
    entry("MPI_Comm_free_keyval", |c| {
        // Attributes set with it stay until deleted, so its functions are kept.
        if !c.keyvals.contains_key(&*keyval) {
            return Err((abi::err::ARG, format!("keyval {} does not exist", *keyval)));
        }
        *keyval = abi::KEYVAL_INVALID;
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_set_attr(comm: usize, keyval: c_int, value: *mut c_void) -> c_int {
    entry("MPI_Comm_set_attr", |c| {
        c.comm(comm)?;
        c.set_attr(comm, keyval, value)
    })
}

/// # Safety
/// `value` and `flag` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_get_attr(comm: usize, keyval: c_int, value: *mut c_void, flag: *mut c_int) -> c_int {
    entry("MPI_Comm_get_attr", |c| {
        c.comm(comm)?;
        let found = match c.attrs.get(&(comm as u64, keyval)) {
            Some(&v) => Some(v as *mut c_void),
            None if comm as u64 == abi::COMM_WORLD || comm as u64 == abi::COMM_SELF => predefined(c, keyval),
            None => None,
        };
        if found.is_none() && !c.keyvals.contains_key(&keyval) && !(TAG_UB..=UNIVERSE_SIZE).contains(&keyval) {
            return Err((abi::err::ARG, format!("keyval {keyval} does not exist")));
        }
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
pub unsafe extern "C" fn MPI_Comm_delete_attr(comm: usize, keyval: c_int) -> c_int {
    entry("MPI_Comm_delete_attr", |c| {
        c.comm(comm)?;
        if !c.delete_attr(comm, keyval)? {
            return Err((abi::err::ARG, format!("communicator has no attribute {keyval}")));
        }
        Ok(())
    })
}

/// # Safety
/// As MPI_Comm_create_keyval.
#[no_mangle]
pub unsafe extern "C" fn MPI_Keyval_create(
    copy: usize,
    delete: usize,
    keyval: *mut c_int,
    extra: *mut c_void,
) -> c_int {
    MPI_Comm_create_keyval(copy, delete, keyval, extra)
}

/// # Safety
/// As MPI_Comm_free_keyval.
#[no_mangle]
pub unsafe extern "C" fn MPI_Keyval_free(keyval: *mut c_int) -> c_int {
    MPI_Comm_free_keyval(keyval)
}

/// # Safety
/// As MPI_Comm_set_attr.
#[no_mangle]
pub unsafe extern "C" fn MPI_Attr_put(comm: usize, keyval: c_int, value: *mut c_void) -> c_int {
    MPI_Comm_set_attr(comm, keyval, value)
}

/// # Safety
/// As MPI_Comm_get_attr.
#[no_mangle]
pub unsafe extern "C" fn MPI_Attr_get(comm: usize, keyval: c_int, value: *mut c_void, flag: *mut c_int) -> c_int {
    MPI_Comm_get_attr(comm, keyval, value, flag)
}

/// # Safety
/// As MPI_Comm_delete_attr.
#[no_mangle]
pub unsafe extern "C" fn MPI_Attr_delete(comm: usize, keyval: c_int) -> c_int {
    MPI_Comm_delete_attr(comm, keyval)
}

/// # Safety
/// As MPI_Comm_create_keyval.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_create_keyval(
    copy: usize,
    delete: usize,
    keyval: *mut c_int,
    extra: *mut c_void,
) -> c_int {
    MPI_Comm_create_keyval(copy, delete, keyval, extra)
}

/// # Safety
/// As MPI_Comm_free_keyval.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_free_keyval(keyval: *mut c_int) -> c_int {
    MPI_Comm_free_keyval(keyval)
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_set_attr(datatype: usize, keyval: c_int, value: *mut c_void) -> c_int {
    entry("MPI_Type_set_attr", |c| {
        c.layout(datatype)?;
        c.set_attr(datatype, keyval, value)
    })
}

/// # Safety
/// `value` and `flag` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_get_attr(
    datatype: usize,
    keyval: c_int,
    value: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    entry("MPI_Type_get_attr", |c| {
        c.layout(datatype)?;
        if !c.keyvals.contains_key(&keyval) {
            return Err((abi::err::KEYVAL, format!("keyval {keyval} does not exist")));
        }
        let found = c.attrs.get(&(datatype as u64, keyval)).copied();
        *flag = c_int::from(found.is_some());
        if let Some(v) = found {
            *(value as *mut *mut c_void) = v as *mut c_void;
        }
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_delete_attr(datatype: usize, keyval: c_int) -> c_int {
    entry("MPI_Type_delete_attr", |c| {
        c.layout(datatype)?;
        if !c.delete_attr(datatype, keyval)? {
            return Err((abi::err::KEYVAL, format!("the datatype has no attribute {keyval}")));
        }
        Ok(())
    })
}
