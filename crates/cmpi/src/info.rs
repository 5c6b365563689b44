//! Info objects: ordered (key, value) strings, kept on the rank. simpi reads no hint
//! from them; MPI_INFO_ENV holds what the launcher knows.

use crate::client::{entry, Client, Failure};
use simpi_wire::abi;
use std::ffi::{c_char, c_int, CStr};

/// MPI_INFO_NULL and MPI_INFO_ENV.
const INFO_NULL: u64 = 0x130;
const INFO_ENV: u64 = 0x131;
/// The longest key (MPI_MAX_INFO_KEY) and value (MPI_MAX_INFO_VAL).
const MAX_KEY: usize = 255;
const MAX_VAL: usize = 1024;

/// An info object's entries, in the order they were first set.
pub type Info = Vec<(String, String)>;

impl Client {
    fn info(&mut self, h: usize) -> Result<&mut Info, Failure> {
        let h = h as u64;
        if h == INFO_ENV && !self.infos.contains_key(&h) {
            let env = vec![("maxprocs".to_string(), self.size.to_string())];
            self.infos.insert(h, env);
        }
        self.infos
            .get_mut(&h)
            .ok_or_else(|| (abi::err::ARG, format!("info {h:#x} does not exist (or was freed)")))
    }
}

unsafe fn text(p: *const c_char, max: usize, what: &str) -> Result<String, Failure> {
    if p.is_null() {
        return Err((abi::err::ARG, format!("a null {what}")));
    }
    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
    if s.is_empty() || s.len() > max {
        return Err((abi::err::ARG, format!("a {what} of {} characters", s.len())));
    }
    Ok(s)
}

/// # Safety
/// `info` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_create(info: *mut usize) -> c_int {
    entry("MPI_Info_create", |c| {
        *info = c.new_info(Vec::new()) as usize;
        Ok(())
    })
}

/// # Safety
/// `key` and `value` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_set(info: usize, key: *const c_char, value: *const c_char) -> c_int {
    entry("MPI_Info_set", |c| {
        let (k, v) = (text(key, MAX_KEY, "key")?, text(value, MAX_VAL, "value")?);
        let i = c.info(info)?;
        match i.iter_mut().find(|e| e.0 == k) {
            Some(e) => e.1 = v,
            None => i.push((k, v)),
        }
        Ok(())
    })
}

/// # Safety
/// `key` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_delete(info: usize, key: *const c_char) -> c_int {
    entry("MPI_Info_delete", |c| {
        let k = text(key, MAX_KEY, "key")?;
        let i = c.info(info)?;
        let before = i.len();
        i.retain(|e| e.0 != k);
        if i.len() == before {
            return Err((abi::err::ARG, format!("no key {k}")));
        }
        Ok(())
    })
}

/// Copies `v` and a NUL into `buf` of `len` characters (plus the NUL).
unsafe fn put(v: &str, buf: *mut c_char, len: usize) {
    let n = v.len().min(len);
    std::ptr::copy_nonoverlapping(v.as_ptr() as *const c_char, buf, n);
    *buf.add(n) = 0;
}

/// # Safety
/// `value` holds `valuelen` + 1 bytes; `flag` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_get(
    info: usize,
    key: *const c_char,
    valuelen: c_int,
    value: *mut c_char,
    flag: *mut c_int,
) -> c_int {
    entry("MPI_Info_get", |c| {
        let k = text(key, MAX_KEY, "key")?;
        let found = c.info(info)?.iter().find(|e| e.0 == k).map(|e| e.1.clone());
        *flag = c_int::from(found.is_some());
        if let Some(v) = found {
            put(&v, value, valuelen.max(0) as usize);
        }
        Ok(())
    })
}

/// # Safety
/// `buflen` is read and written; `value` holds `*buflen` bytes; `flag` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_get_string(
    info: usize,
    key: *const c_char,
    buflen: *mut c_int,
    value: *mut c_char,
    flag: *mut c_int,
) -> c_int {
    entry("MPI_Info_get_string", |c| {
        let k = text(key, MAX_KEY, "key")?;
        let found = c.info(info)?.iter().find(|e| e.0 == k).map(|e| e.1.clone());
        *flag = c_int::from(found.is_some());
        if let Some(v) = found {
            let room = *buflen;
            if room > 0 {
                put(&v, value, room as usize - 1);
            }
            *buflen = v.len() as c_int + 1;
        }
        Ok(())
    })
}

/// # Safety
/// `len` and `flag` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_get_valuelen(
    info: usize,
    key: *const c_char,
    len: *mut c_int,
    flag: *mut c_int,
) -> c_int {
    entry("MPI_Info_get_valuelen", |c| {
        let k = text(key, MAX_KEY, "key")?;
        let found = c.info(info)?.iter().find(|e| e.0 == k).map(|e| e.1.len());
        *flag = c_int::from(found.is_some());
        if let Some(n) = found {
            *len = n as c_int;
        }
        Ok(())
    })
}

/// # Safety
/// `nkeys` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_get_nkeys(info: usize, nkeys: *mut c_int) -> c_int {
    entry("MPI_Info_get_nkeys", |c| {
        *nkeys = c.info(info)?.len() as c_int;
        Ok(())
    })
}

/// # Safety
/// `key` holds MPI_MAX_INFO_KEY + 1 bytes.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_get_nthkey(info: usize, n: c_int, key: *mut c_char) -> c_int {
    entry("MPI_Info_get_nthkey", |c| {
        let i = c.info(info)?;
        let k = usize::try_from(n)
            .ok()
            .and_then(|n| i.get(n))
            .map(|e| e.0.clone())
            .ok_or((abi::err::ARG, format!("info has no key number {n}")))?;
        put(&k, key, MAX_KEY);
        Ok(())
    })
}

/// # Safety
/// `newinfo` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_dup(info: usize, newinfo: *mut usize) -> c_int {
    entry("MPI_Info_dup", |c| {
        let copy = c.info(info)?.clone();
        *newinfo = c.new_info(copy) as usize;
        Ok(())
    })
}

/// # Safety
/// `info` points to an info handle.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_free(info: *mut usize) -> c_int {
    entry("MPI_Info_free", |c| {
        let h = *info as u64;
        if h == INFO_ENV || c.infos.remove(&h).is_none() {
            return Err((abi::err::ARG, format!("info {h:#x} cannot be freed")));
        }
        *info = INFO_NULL as usize;
        Ok(())
    })
}

/// # Safety
/// `info` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_get_info(comm: usize, info: *mut usize) -> c_int {
    entry("MPI_Comm_get_info", |c| {
        c.comm(comm)?;
        *info = c.new_info(Vec::new()) as usize;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn MPI_Comm_set_info(comm: usize, _info: usize) -> c_int {
    entry("MPI_Comm_set_info", |c| c.comm(comm).map(drop))
}

/// # Safety
/// `info` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Info_create_env(_argc: c_int, _argv: *mut *mut c_char, info: *mut usize) -> c_int {
    entry("MPI_Info_create_env", |c| {
        let env = c.info(INFO_ENV as usize)?.clone();
        *info = c.new_info(env) as usize;
        Ok(())
    })
}
