//! Datatypes: the constructors of derived datatypes, their sizes and bounds, counts
//! of received elements, and MPI_Pack/MPI_Unpack. All is answered on the rank; the
//! layouts themselves are in `layout.rs`.

use crate::client::{entry, Client, Failure, Status};
use crate::layout::Layout;
use simpi_wire::abi;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// MPI_ORDER_C and MPI_ORDER_FORTRAN as `mpi.h` defines them.
const ORDER_C: c_int = 0xC;
const ORDER_FORTRAN: c_int = 0xF;

/// A count argument, checked.
fn count_of(n: c_int, what: &str) -> Result<u64, Failure> {
    u64::try_from(n).map_err(|_| (abi::err::COUNT, format!("{what} {n} is negative")))
}

/// The `n` values at `p` (none if `n` is 0).
unsafe fn array<T: Copy>(p: *const T, n: u64) -> Result<Vec<T>, Failure> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err((abi::err::ARG, "a null array".into()));
    }
    Ok(std::slice::from_raw_parts(p, n as usize).to_vec())
}

/// Stores a new datatype built by `make` with constructor `combiner` in `*out`.
unsafe fn made(c: &mut Client, make: Result<Layout, String>, combiner: c_int, out: *mut usize) -> Result<(), Failure> {
    let t = make.map_err(|e| (abi::err::ARG, e))?;
    let h = c.new_type(t);
    c.combiners.insert(h, combiner);
    *out = h as usize;
    Ok(())
}

/// The MPI_COMBINER_ values `mpi.h` defines.
mod combiner {
    use std::ffi::c_int;
    pub const NAMED: c_int = 301;
    pub const DUP: c_int = 302;
    pub const CONTIGUOUS: c_int = 303;
    pub const VECTOR: c_int = 304;
    pub const HVECTOR: c_int = 305;
    pub const INDEXED: c_int = 306;
    pub const HINDEXED: c_int = 307;
    pub const INDEXED_BLOCK: c_int = 308;
    pub const HINDEXED_BLOCK: c_int = 309;
    pub const STRUCT: c_int = 310;
    pub const SUBARRAY: c_int = 311;
    pub const RESIZED: c_int = 316;
}

/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_contiguous(count: c_int, old: usize, out: *mut usize) -> c_int {
    entry("MPI_Type_contiguous", |c| {
        let t = c.layout(old)?;
        let n = count_of(count, "count")?;
        made(c, Layout::hvector(1, n, 0, &t), combiner::CONTIGUOUS, out)
    })
}

/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_vector(
    count: c_int,
    blocklen: c_int,
    stride: c_int,
    old: usize,
    out: *mut usize,
) -> c_int {
    entry("MPI_Type_vector", |c| {
        let t = c.layout(old)?;
        let (n, b) = (count_of(count, "count")?, count_of(blocklen, "block length")?);
        made(
            c,
            Layout::hvector(n, b, i64::from(stride) * t.extent, &t),
            combiner::VECTOR,
            out,
        )
    })
}

/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_create_hvector(
    count: c_int,
    blocklen: c_int,
    stride: isize,
    old: usize,
    out: *mut usize,
) -> c_int {
    entry("MPI_Type_create_hvector", |c| {
        let t = c.layout(old)?;
        let (n, b) = (count_of(count, "count")?, count_of(blocklen, "block length")?);
        made(c, Layout::hvector(n, b, stride as i64, &t), combiner::HVECTOR, out)
    })
}

/// Blocks of `t` of the given lengths at byte displacements.
fn hindexed(lens: &[u64], displs: &[i64], t: &Layout) -> Result<Layout, String> {
    let parts: Vec<(i64, u64, &Layout)> = lens.iter().zip(displs).map(|(&l, &d)| (d, l, t)).collect();
    Layout::combine(&parts)
}

/// The block lengths of an indexed constructor.
unsafe fn lengths(count: c_int, lens: *const c_int) -> Result<Vec<u64>, Failure> {
    let n = count_of(count, "count")?;
    array(lens, n)?
        .into_iter()
        .map(|l| count_of(l, "block length"))
        .collect()
}

/// # Safety
/// The arrays hold `count` entries; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_indexed(
    count: c_int,
    lens: *const c_int,
    displs: *const c_int,
    old: usize,
    out: *mut usize,
) -> c_int {
    entry("MPI_Type_indexed", |c| {
        let t = c.layout(old)?;
        let l = lengths(count, lens)?;
        let d: Vec<i64> = array(displs, l.len() as u64)?
            .iter()
            .map(|&d| i64::from(d) * t.extent)
            .collect();
        made(c, hindexed(&l, &d, &t), combiner::INDEXED, out)
    })
}

/// # Safety
/// The arrays hold `count` entries; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_create_hindexed(
    count: c_int,
    lens: *const c_int,
    displs: *const isize,
    old: usize,
    out: *mut usize,
) -> c_int {
    entry("MPI_Type_create_hindexed", |c| {
        let t = c.layout(old)?;
        let l = lengths(count, lens)?;
        let d: Vec<i64> = array(displs, l.len() as u64)?.iter().map(|&d| d as i64).collect();
        made(c, hindexed(&l, &d, &t), combiner::HINDEXED, out)
    })
}

/// # Safety
/// `displs` holds `count` entries; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_create_indexed_block(
    count: c_int,
    blocklen: c_int,
    displs: *const c_int,
    old: usize,
    out: *mut usize,
) -> c_int {
    entry("MPI_Type_create_indexed_block", |c| {
        let t = c.layout(old)?;
        let n = count_of(count, "count")?;
        let b = count_of(blocklen, "block length")?;
        let d: Vec<i64> = array(displs, n)?.iter().map(|&d| i64::from(d) * t.extent).collect();
        made(c, hindexed(&vec![b; n as usize], &d, &t), combiner::INDEXED_BLOCK, out)
    })
}

/// # Safety
/// `displs` holds `count` entries; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_create_hindexed_block(
    count: c_int,
    blocklen: c_int,
    displs: *const isize,
    old: usize,
    out: *mut usize,
) -> c_int {
    entry("MPI_Type_create_hindexed_block", |c| {
        let t = c.layout(old)?;
        let n = count_of(count, "count")?;
        let b = count_of(blocklen, "block length")?;
        let d: Vec<i64> = array(displs, n)?.iter().map(|&d| d as i64).collect();
        made(c, hindexed(&vec![b; n as usize], &d, &t), combiner::HINDEXED_BLOCK, out)
    })
}

/// # Safety
/// The arrays hold `count` entries; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_create_struct(
    count: c_int,
    lens: *const c_int,
    displs: *const isize,
    types: *const usize,
    out: *mut usize,
) -> c_int {
    entry("MPI_Type_create_struct", |c| {
        let l = lengths(count, lens)?;
        let d = array(displs, l.len() as u64)?;
        let ts: Vec<Arc<Layout>> = array(types, l.len() as u64)?
            .into_iter()
            .map(|t| c.layout(t))
            .collect::<Result<_, _>>()?;
        let parts: Vec<(i64, u64, &Layout)> = (0..l.len()).map(|i| (d[i] as i64, l[i], &*ts[i])).collect();
        made(c, Layout::combine(&parts), combiner::STRUCT, out)
    })
}

/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_create_resized(old: usize, lb: isize, extent: isize, out: *mut usize) -> c_int {
    entry("MPI_Type_create_resized", |c| {
        let t = c.layout(old)?;
        made(c, Ok(t.resized(lb as i64, extent as i64)), combiner::RESIZED, out)
    })
}

/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_dup(old: usize, out: *mut usize) -> c_int {
    entry("MPI_Type_dup", |c| {
        let t = c.layout(old)?;
        made(c, Ok((*t).clone()), combiner::DUP, out)?;
        // Attributes follow their copy functions, as for a communicator.
        c.copy_attrs(old, *out)
    })
}

/// # Safety
/// The arrays hold `ndims` entries; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_create_subarray(
    ndims: c_int,
    sizes: *const c_int,
    subsizes: *const c_int,
    starts: *const c_int,
    order: c_int,
    old: usize,
    out: *mut usize,
) -> c_int {
    entry("MPI_Type_create_subarray", |c| {
        let t = c.layout(old)?;
        let n = count_of(ndims, "ndims")?;
        if n == 0 {
            return Err((abi::err::ARG, "a subarray of no dimension".into()));
        }
        let (mut sz, mut sub, mut st) = (array(sizes, n)?, array(subsizes, n)?, array(starts, n)?);
        match order {
            ORDER_C => {}
            // Fortran order: the first dimension varies fastest; reversed, it is C's.
            ORDER_FORTRAN => {
                sz.reverse();
                sub.reverse();
                st.reverse();
            }
            o => {
                return Err((
                    abi::err::ARG,
                    format!("order {o} is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN"),
                ))
            }
        }
        for i in 0..n as usize {
            if sz[i] <= 0 || sub[i] < 0 || st[i] < 0 || st[i] + sub[i] > sz[i] {
                return Err((
                    abi::err::ARG,
                    format!("dimension {i}: size {}, subsize {}, start {}", sz[i], sub[i], st[i]),
                ));
            }
        }
        // Innermost dimension first: a contiguous run, then each outer dimension a
        // vector of the inner, strided by the full inner array.
        let last = n as usize - 1;
        let mut inner = Layout::hvector(1, sub[last] as u64, 0, &t).map_err(|e| (abi::err::ARG, e))?;
        let mut offset = i64::from(st[last]) * t.extent;
        let mut span = i64::from(sz[last]) * t.extent;
        for i in (0..last).rev() {
            inner = Layout::hvector(sub[i] as u64, 1, span, &inner).map_err(|e| (abi::err::ARG, e))?;
            offset += i64::from(st[i]) * span;
            span *= i64::from(sz[i]);
        }
        let placed = Layout::combine(&[(offset, 1, &inner)]).map_err(|e| (abi::err::ARG, e))?;
        made(c, Ok(placed.resized(0, span)), combiner::SUBARRAY, out)
    })
}

#[no_mangle]
pub extern "C" fn MPI_Type_commit(_datatype: *mut usize) -> c_int {
    // Layouts are complete when made.
    abi::err::SUCCESS
}

/// # Safety
/// `datatype` points to a datatype handle.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_free(datatype: *mut usize) -> c_int {
    entry("MPI_Type_free", |c| {
        let h = *datatype as u64;
        if c.types.contains_key(&h) {
            c.drop_attrs(h as usize)?;
        }
        c.combiners.remove(&h);
        match c.types.remove(&h) {
            // A persistent request still uses it: it stays known to that request.
            Some(t) if Arc::strong_count(&t) > 1 => {
                c.retired.insert(h, t);
            }
            Some(_) => {}
            None => {
                return Err((
                    abi::err::TYPE,
                    format!("datatype {h:#x} is predefined or does not exist"),
                ))
            }
        }
        *datatype = DATATYPE_NULL;
        Ok(())
    })
}

/// MPI_DATATYPE_NULL.
const DATATYPE_NULL: usize = 0x200;

/// Names given with MPI_Type_set_name, by handle.
static TYPE_NAMES: crate::rank_local::RankLocal<std::sync::Mutex<Option<std::collections::HashMap<u64, String>>>> =
    crate::rank_local::RankLocal::new(|| std::sync::Mutex::new(None));

/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_set_name(datatype: usize, name: *const std::ffi::c_char) -> c_int {
    entry("MPI_Type_set_name", |c| {
        c.layout_ref(datatype)?;
        if name.is_null() {
            return Err((abi::err::ARG, "a null name".into()));
        }
        let text = std::ffi::CStr::from_ptr(name).to_string_lossy().into_owned();
        let mut names = TYPE_NAMES.get().lock().unwrap_or_else(|p| p.into_inner());
        names.get_or_insert_with(Default::default).insert(datatype as u64, text);
        Ok(())
    })
}

/// # Safety
/// `name` holds MPI_MAX_OBJECT_NAME (128) bytes; `len` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_get_name(datatype: usize, name: *mut std::ffi::c_char, len: *mut c_int) -> c_int {
    entry("MPI_Type_get_name", |c| {
        c.layout_ref(datatype)?;
        let names = TYPE_NAMES.get().lock().unwrap_or_else(|p| p.into_inner());
        let given = names.as_ref().and_then(|n| n.get(&(datatype as u64))).cloned();
        // A predefined datatype is named as in mpi.h; a derived one has no name.
        let text = given
            .or_else(|| abi::datatype(datatype as u64).map(|t| t.name.to_string()))
            .unwrap_or_default();
        crate::env::put_str(&text, name, 128, len);
        Ok(())
    })
}

/// # Safety
/// `size` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_size(datatype: usize, size: *mut c_int) -> c_int {
    entry("MPI_Type_size", |c| {
        let s = c.layout_ref(datatype)?.size;
        *size = c_int::try_from(s).unwrap_or(abi::UNDEFINED);
        Ok(())
    })
}

/// # Safety
/// `size` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_size_x(datatype: usize, size: *mut i64) -> c_int {
    entry("MPI_Type_size_x", |c| {
        *size = c.layout_ref(datatype)?.size as i64;
        Ok(())
    })
}

/// # Safety
/// `lb` and `extent` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_get_extent(datatype: usize, lb: *mut isize, extent: *mut isize) -> c_int {
    entry("MPI_Type_get_extent", |c| {
        let t = c.layout_ref(datatype)?;
        *lb = t.lb as isize;
        *extent = t.extent as isize;
        Ok(())
    })
}

/// # Safety
/// `lb` and `extent` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_get_true_extent(datatype: usize, lb: *mut isize, extent: *mut isize) -> c_int {
    entry("MPI_Type_get_true_extent", |c| {
        let t = c.layout_ref(datatype)?;
        *lb = t.true_lb as isize;
        *extent = t.true_extent as isize;
        Ok(())
    })
}

/// # Safety
/// `status` points to a status a receive filled; `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_count(status: *const Status, datatype: usize, count: *mut c_int) -> c_int {
    entry("MPI_Get_count", |c| {
        let n = whole_elements(c.layout_ref(datatype)?.size, (*status).bytes());
        *count = n.and_then(|n| c_int::try_from(n).ok()).unwrap_or(abi::UNDEFINED);
        Ok(())
    })
}

/// How many elements of `size` bytes `bytes` are (MPI_Get_count); `None` if not a
/// whole number (MPI_UNDEFINED).
pub(crate) fn whole_elements(size: u64, bytes: u64) -> Option<u64> {
    match bytes.checked_div(size) {
        Some(k) if bytes.is_multiple_of(size) => Some(k),
        // A zero-size datatype: zero elements of it, whatever arrived.
        None if bytes == 0 => Some(0),
        _ => None,
    }
}

/// # Safety
/// `status` points to a status a receive filled; `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_elements(status: *const Status, datatype: usize, count: *mut c_int) -> c_int {
    entry("MPI_Get_elements", |c| {
        let n = elements(c.layout_ref(datatype)?, (*status).bytes());
        *count = n.and_then(|n| c_int::try_from(n).ok()).unwrap_or(abi::UNDEFINED);
        Ok(())
    })
}

/// The predefined elements in `bytes` of datatype `t`: whole elements of it, then
/// those of a partial one (assuming one predefined size, as a homogeneous datatype
/// has); `None` if they are not a whole number.
fn elements(t: &Layout, bytes: u64) -> Option<u64> {
    let whole = bytes.checked_div(t.size).unwrap_or(0);
    let rest = bytes - whole * t.size;
    let each = t.size.checked_div(t.elements.max(1)).unwrap_or(0);
    match rest.checked_div(each) {
        Some(k) if rest.is_multiple_of(each) => whole.checked_mul(t.elements)?.checked_add(k),
        None if rest == 0 => Some(0),
        _ => None,
    }
}

/// # Safety
/// The outputs are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_get_envelope(
    datatype: usize,
    integers: *mut c_int,
    addresses: *mut c_int,
    datatypes: *mut c_int,
    combiner: *mut c_int,
) -> c_int {
    entry("MPI_Type_get_envelope", |c| {
        c.layout_ref(datatype)?;
        // The arguments of a derived datatype's constructor are not kept (so
        // MPI_Type_get_contents is not simulated): their counts are given as 0.
        *combiner = c.combiners.get(&(datatype as u64)).copied().unwrap_or(combiner::NAMED);
        *integers = 0;
        *addresses = 0;
        *datatypes = 0;
        Ok(())
    })
}

/// # Safety
/// `base` receives the address (it points to a pointer).
#[no_mangle]
pub unsafe extern "C" fn MPI_Alloc_mem(size: isize, _info: usize, base: *mut c_void) -> c_int {
    entry("MPI_Alloc_mem", |_| {
        let p = libc::malloc(size.max(1) as usize);
        if p.is_null() {
            return Err((abi::err::NO_MEM, format!("cannot allocate {size} bytes")));
        }
        *(base as *mut *mut c_void) = p;
        Ok(())
    })
}

/// # Safety
/// `base` came from MPI_Alloc_mem.
#[no_mangle]
pub unsafe extern "C" fn MPI_Free_mem(base: *mut c_void) -> c_int {
    libc::free(base);
    abi::err::SUCCESS
}

/// # Safety
/// `lb` and `extent` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_get_extent_x(datatype: usize, lb: *mut i64, extent: *mut i64) -> c_int {
    let (mut l, mut e) = (0isize, 0isize);
    let code = MPI_Type_get_extent(datatype, &mut l, &mut e);
    *lb = l as i64;
    *extent = e as i64;
    code
}

/// # Safety
/// `lb` and `extent` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Type_get_true_extent_x(datatype: usize, lb: *mut i64, extent: *mut i64) -> c_int {
    let (mut l, mut e) = (0isize, 0isize);
    let code = MPI_Type_get_true_extent(datatype, &mut l, &mut e);
    *lb = l as i64;
    *extent = e as i64;
    code
}

/// # Safety
/// As MPI_Get_elements, with a count of MPI_Count.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_elements_x(status: *const Status, datatype: usize, count: *mut i64) -> c_int {
    entry("MPI_Get_elements_x", |c| {
        let n = elements(c.layout_ref(datatype)?, (*status).bytes());
        *count = n
            .and_then(|n| i64::try_from(n).ok())
            .unwrap_or(i64::from(abi::UNDEFINED));
        Ok(())
    })
}

/// # Safety
/// `status` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Status_set_elements_x(status: *mut Status, datatype: usize, count: i64) -> c_int {
    entry("MPI_Status_set_elements", |c| {
        let t = c.layout(datatype)?;
        let per = t.size.checked_div(t.elements.max(1)).unwrap_or(0);
        let bytes = u64::try_from(count)
            .ok()
            .and_then(|k| k.checked_mul(per))
            .ok_or((abi::err::COUNT, format!("count {count}")))?;
        let s = &mut *status;
        *s = Status::new(s.source, s.tag, bytes);
        Ok(())
    })
}

/// # Safety
/// `status` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Status_set_elements(status: *mut Status, datatype: usize, count: c_int) -> c_int {
    MPI_Status_set_elements_x(status, datatype, i64::from(count))
}

#[no_mangle]
pub extern "C" fn MPI_Aint_add(base: isize, disp: isize) -> isize {
    base.wrapping_add(disp)
}

#[no_mangle]
pub extern "C" fn MPI_Aint_diff(a: isize, b: isize) -> isize {
    a.wrapping_sub(b)
}

/// # Safety
/// `address` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Get_address(location: *const c_void, address: *mut isize) -> c_int {
    *address = location as isize;
    abi::err::SUCCESS
}

/// # Safety
/// `size` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Pack_size(count: c_int, datatype: usize, _comm: usize, size: *mut c_int) -> c_int {
    entry("MPI_Pack_size", |c| {
        let b = c.typed(count.into(), datatype)?.bytes();
        *size = c_int::try_from(b).map_err(|_| (abi::err::COUNT, format!("{b} bytes do not fit an int")))?;
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's: `outbuf` holds `outsize` bytes; `position` is read and
/// advanced.
#[no_mangle]
pub unsafe extern "C" fn MPI_Pack(
    inbuf: *const c_void,
    count: c_int,
    datatype: usize,
    outbuf: *mut c_void,
    outsize: c_int,
    position: *mut c_int,
    _comm: usize,
) -> c_int {
    entry("MPI_Pack", |c| {
        let data = c.typed(count.into(), datatype)?.read(inbuf as *const u8)?;
        let at = *position;
        if at < 0 || i64::from(at) + data.len() as i64 > i64::from(outsize) {
            return Err((
                abi::err::TRUNCATE,
                format!("{} bytes at position {at} do not fit {outsize}", data.len()),
            ));
        }
        std::ptr::copy_nonoverlapping(data.as_ptr(), (outbuf as *mut u8).add(at as usize), data.len());
        *position = at + data.len() as c_int;
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's: `inbuf` holds `insize` bytes; `position` is read and
/// advanced.
#[no_mangle]
pub unsafe extern "C" fn MPI_Unpack(
    inbuf: *const c_void,
    insize: c_int,
    position: *mut c_int,
    outbuf: *mut c_void,
    count: c_int,
    datatype: usize,
    _comm: usize,
) -> c_int {
    entry("MPI_Unpack", |c| {
        let t = c.typed(count.into(), datatype)?;
        let at = *position;
        let len = t.bytes() as i64;
        if at < 0 || i64::from(at) + len > i64::from(insize) {
            return Err((
                abi::err::TRUNCATE,
                format!("{len} bytes at position {at} are beyond the {insize} packed"),
            ));
        }
        let data = std::slice::from_raw_parts((inbuf as *const u8).add(at as usize), len as usize);
        t.write(outbuf as *mut u8, data)?;
        *position = at + len as c_int;
        Ok(())
    })
}
