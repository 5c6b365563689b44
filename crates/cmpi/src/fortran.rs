//! The Fortran bindings (`mpif.h`, gfortran's names: lower case and a trailing
//! underscore, every argument by reference, the error code last). Each calls the C
//! binding: Fortran handles are the C handle values as default integers, and a
//! Fortran status is the C `MPI_Status` (eight integers, source first).
//!
//! `mpif.h` puts MPI_IN_PLACE, MPI_BOTTOM and the ignored statuses in common blocks;
//! the wrappers link programs with their symbols exported, so their addresses are
//! found here and told apart from real buffers.

#![allow(clippy::missing_safety_doc)]

use crate::cancel::MPI_Cancel;
use crate::client::Status;
use crate::coll::*;
use crate::comm::*;
use crate::datatype::*;
use crate::env::*;
use crate::errhan::*;
use crate::p2p::*;
use crate::rank_local::RankLocal;
use crate::some::*;
use crate::topo::*;
use simpi_wire::abi;
use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

/// A Fortran default integer.
pub type Fint = c_int;

/// The addresses of `mpif.h`'s special variables in this rank's program (none if it
/// did not use them): MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE.
fn special() -> &'static [usize; 4] {
    static AT: RankLocal<OnceLock<[usize; 4]>> = RankLocal::new(OnceLock::new);
    AT.get().get_or_init(|| {
        let program = crate::in_process::program();
        let find = |name: &std::ffi::CStr| {
            // SAFETY: looks up a symbol by a NUL-terminated name.
            unsafe { libc::dlsym(program, name.as_ptr()) as usize }
        };
        [
            find(c"simpi_f_in_place_"),
            find(c"simpi_f_bottom_"),
            find(c"simpi_f_status_ignore_"),
            find(c"simpi_f_statuses_ignore_"),
        ]
    })
}

/// A Fortran buffer as C sees it: MPI_IN_PLACE and MPI_BOTTOM recognised.
fn buf(p: *const c_void) -> *mut c_void {
    let at = special();
    match p as usize {
        a if a != 0 && a == at[0] => abi::IN_PLACE as *mut c_void,
        a if a != 0 && a == at[1] => std::ptr::null_mut(),
        _ => p as *mut c_void,
    }
}

/// A Fortran status (or array of statuses) as C sees it: the ignored ones null.
fn st(p: *mut Fint) -> *mut Status {
    let at = special();
    match p as usize {
        a if a != 0 && (a == at[2] || a == at[3]) => std::ptr::null_mut(),
        _ => p as *mut Status,
    }
}

/// A Fortran handle as C's.
fn h(f: Fint) -> usize {
    f as u32 as usize
}

/// A C handle as Fortran's (every handle simpi makes fits a default integer).
fn f(h: usize) -> Fint {
    h as u32 as Fint
}

/// `n` Fortran requests as C's.
unsafe fn requests(q: *const Fint, n: Fint) -> Vec<usize> {
    (0..n.max(0) as usize).map(|i| h(*q.add(i))).collect()
}

/// Writes C requests back to the Fortran array.
unsafe fn put_requests(q: *mut Fint, v: &[usize]) {
    for (i, &x) in v.iter().enumerate() {
        *q.add(i) = f(x);
    }
}

#[no_mangle]
pub unsafe extern "C" fn mpi_init_(ierr: *mut Fint) {
    *ierr = MPI_Init(std::ptr::null_mut(), std::ptr::null_mut());
}
#[no_mangle]
pub unsafe extern "C" fn mpi_init_thread_(_req: *const Fint, provided: *mut Fint, ierr: *mut Fint) {
    *ierr = MPI_Init(std::ptr::null_mut(), std::ptr::null_mut());
    *provided = 0;
}
#[no_mangle]
pub unsafe extern "C" fn mpi_finalize_(ierr: *mut Fint) {
    *ierr = MPI_Finalize();
}
#[no_mangle]
pub unsafe extern "C" fn mpi_initialized_(flag: *mut Fint, ierr: *mut Fint) {
    *ierr = MPI_Initialized(flag);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_abort_(comm: *const Fint, code: *const Fint, ierr: *mut Fint) {
    *ierr = MPI_Abort(h(*comm), *code);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_comm_rank_(comm: *const Fint, rank: *mut Fint, ierr: *mut Fint) {
    *ierr = MPI_Comm_rank(h(*comm), rank);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_comm_size_(comm: *const Fint, size: *mut Fint, ierr: *mut Fint) {
    *ierr = MPI_Comm_size(h(*comm), size);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_comm_dup_(comm: *const Fint, new: *mut Fint, ierr: *mut Fint) {
    let mut c = 0;
    *ierr = MPI_Comm_dup(h(*comm), &mut c);
    *new = f(c);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_comm_split_(
    comm: *const Fint,
    color: *const Fint,
    key: *const Fint,
    new: *mut Fint,
    ierr: *mut Fint,
) {
    let mut c = 0;
    *ierr = MPI_Comm_split(h(*comm), *color, *key, &mut c);
    *new = f(c);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_comm_free_(comm: *mut Fint, ierr: *mut Fint) {
    let mut c = h(*comm);
    *ierr = MPI_Comm_free(&mut c);
    *comm = f(c);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_barrier_(comm: *const Fint, ierr: *mut Fint) {
    *ierr = MPI_Barrier(h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_bcast_(
    b: *mut c_void,
    n: *const Fint,
    dt: *const Fint,
    root: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Bcast(buf(b), *n, h(*dt), *root, h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_reduce_(
    s: *const c_void,
    r: *mut c_void,
    n: *const Fint,
    dt: *const Fint,
    op: *const Fint,
    root: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Reduce(buf(s), buf(r), *n, h(*dt), h(*op), *root, h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_allreduce_(
    s: *const c_void,
    r: *mut c_void,
    n: *const Fint,
    dt: *const Fint,
    op: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Allreduce(buf(s), buf(r), *n, h(*dt), h(*op), h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_alltoall_(
    s: *const c_void,
    sn: *const Fint,
    sdt: *const Fint,
    r: *mut c_void,
    rn: *const Fint,
    rdt: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Alltoall(buf(s), *sn, h(*sdt), buf(r), *rn, h(*rdt), h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_allgather_(
    s: *const c_void,
    sn: *const Fint,
    sdt: *const Fint,
    r: *mut c_void,
    rn: *const Fint,
    rdt: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Allgather(buf(s), *sn, h(*sdt), buf(r), *rn, h(*rdt), h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_gather_(
    s: *const c_void,
    sn: *const Fint,
    sdt: *const Fint,
    r: *mut c_void,
    rn: *const Fint,
    rdt: *const Fint,
    root: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Gather(buf(s), *sn, h(*sdt), buf(r), *rn, h(*rdt), *root, h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_scatter_(
    s: *const c_void,
    sn: *const Fint,
    sdt: *const Fint,
    r: *mut c_void,
    rn: *const Fint,
    rdt: *const Fint,
    root: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Scatter(buf(s), *sn, h(*sdt), buf(r), *rn, h(*rdt), *root, h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_alltoallv_(
    s: *const c_void,
    sc: *const Fint,
    sd: *const Fint,
    sdt: *const Fint,
    r: *mut c_void,
    rc: *const Fint,
    rd: *const Fint,
    rdt: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Alltoallv(buf(s), sc, sd, h(*sdt), buf(r), rc, rd, h(*rdt), h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_send_(
    b: *const c_void,
    n: *const Fint,
    dt: *const Fint,
    dest: *const Fint,
    tag: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Send(buf(b), *n, h(*dt), *dest, *tag, h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_ssend_(
    b: *const c_void,
    n: *const Fint,
    dt: *const Fint,
    dest: *const Fint,
    tag: *const Fint,
    comm: *const Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Ssend(buf(b), *n, h(*dt), *dest, *tag, h(*comm));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_recv_(
    b: *mut c_void,
    n: *const Fint,
    dt: *const Fint,
    src: *const Fint,
    tag: *const Fint,
    comm: *const Fint,
    status: *mut Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Recv(buf(b), *n, h(*dt), *src, *tag, h(*comm), st(status));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_isend_(
    b: *const c_void,
    n: *const Fint,
    dt: *const Fint,
    dest: *const Fint,
    tag: *const Fint,
    comm: *const Fint,
    req: *mut Fint,
    ierr: *mut Fint,
) {
    let mut q = 0;
    *ierr = MPI_Isend(buf(b), *n, h(*dt), *dest, *tag, h(*comm), &mut q);
    *req = f(q);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_irecv_(
    b: *mut c_void,
    n: *const Fint,
    dt: *const Fint,
    src: *const Fint,
    tag: *const Fint,
    comm: *const Fint,
    req: *mut Fint,
    ierr: *mut Fint,
) {
    let mut q = 0;
    *ierr = MPI_Irecv(buf(b), *n, h(*dt), *src, *tag, h(*comm), &mut q);
    *req = f(q);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_wait_(req: *mut Fint, status: *mut Fint, ierr: *mut Fint) {
    let mut q = h(*req);
    *ierr = MPI_Wait(&mut q, st(status));
    *req = f(q);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_waitall_(n: *const Fint, req: *mut Fint, statuses: *mut Fint, ierr: *mut Fint) {
    let mut q = requests(req, *n);
    *ierr = MPI_Waitall(*n, q.as_mut_ptr(), st(statuses));
    put_requests(req, &q);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_waitany_(
    n: *const Fint,
    req: *mut Fint,
    idx: *mut Fint,
    status: *mut Fint,
    ierr: *mut Fint,
) {
    let mut q = requests(req, *n);
    *ierr = MPI_Waitany(*n, q.as_mut_ptr(), idx, st(status));
    put_requests(req, &q);
    // Fortran indices start at 1.
    if *idx >= 0 {
        *idx += 1;
    }
}
#[no_mangle]
pub unsafe extern "C" fn mpi_test_(req: *mut Fint, flag: *mut Fint, status: *mut Fint, ierr: *mut Fint) {
    let mut q = h(*req);
    *ierr = MPI_Test(&mut q, flag, st(status));
    *req = f(q);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_request_free_(req: *mut Fint, ierr: *mut Fint) {
    let mut q = h(*req);
    *ierr = MPI_Request_free(&mut q);
    *req = f(q);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_cancel_(req: *const Fint, ierr: *mut Fint) {
    let mut q = h(*req);
    *ierr = MPI_Cancel(&mut q);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_sendrecv_(
    s: *const c_void,
    sn: *const Fint,
    sdt: *const Fint,
    dest: *const Fint,
    stag: *const Fint,
    r: *mut c_void,
    rn: *const Fint,
    rdt: *const Fint,
    src: *const Fint,
    rtag: *const Fint,
    comm: *const Fint,
    status: *mut Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Sendrecv(
        buf(s),
        *sn,
        h(*sdt),
        *dest,
        *stag,
        buf(r),
        *rn,
        h(*rdt),
        *src,
        *rtag,
        h(*comm),
        st(status),
    );
}
#[no_mangle]
pub unsafe extern "C" fn mpi_probe_(
    src: *const Fint,
    tag: *const Fint,
    comm: *const Fint,
    status: *mut Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Probe(*src, *tag, h(*comm), st(status));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_iprobe_(
    src: *const Fint,
    tag: *const Fint,
    comm: *const Fint,
    flag: *mut Fint,
    status: *mut Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Iprobe(*src, *tag, h(*comm), flag, st(status));
}
#[no_mangle]
pub unsafe extern "C" fn mpi_get_count_(status: *const Fint, dt: *const Fint, n: *mut Fint, ierr: *mut Fint) {
    *ierr = MPI_Get_count(status as *const Status, h(*dt), n);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_wtime_() -> f64 {
    MPI_Wtime()
}
#[no_mangle]
pub unsafe extern "C" fn mpi_wtick_() -> f64 {
    MPI_Wtick()
}
#[no_mangle]
pub unsafe extern "C" fn mpi_type_size_(dt: *const Fint, size: *mut Fint, ierr: *mut Fint) {
    *ierr = MPI_Type_size(h(*dt), size);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_type_contiguous_(n: *const Fint, old: *const Fint, new: *mut Fint, ierr: *mut Fint) {
    let mut t = 0;
    *ierr = MPI_Type_contiguous(*n, h(*old), &mut t);
    *new = f(t);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_type_vector_(
    n: *const Fint,
    b: *const Fint,
    s: *const Fint,
    old: *const Fint,
    new: *mut Fint,
    ierr: *mut Fint,
) {
    let mut t = 0;
    *ierr = MPI_Type_vector(*n, *b, *s, h(*old), &mut t);
    *new = f(t);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_type_create_subarray_(
    n: *const Fint,
    sizes: *const Fint,
    subs: *const Fint,
    starts: *const Fint,
    order: *const Fint,
    old: *const Fint,
    new: *mut Fint,
    ierr: *mut Fint,
) {
    let mut t = 0;
    *ierr = MPI_Type_create_subarray(*n, sizes, subs, starts, *order, h(*old), &mut t);
    *new = f(t);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_type_commit_(dt: *mut Fint, ierr: *mut Fint) {
    let mut t = h(*dt);
    *ierr = MPI_Type_commit(&mut t);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_type_free_(dt: *mut Fint, ierr: *mut Fint) {
    let mut t = h(*dt);
    *ierr = MPI_Type_free(&mut t);
    *dt = f(t);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_cart_create_(
    comm: *const Fint,
    n: *const Fint,
    dims: *const Fint,
    periods: *const Fint,
    reorder: *const Fint,
    new: *mut Fint,
    ierr: *mut Fint,
) {
    let mut c = 0;
    *ierr = MPI_Cart_create(h(*comm), *n, dims, periods, *reorder, &mut c);
    *new = f(c);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_cart_coords_(
    comm: *const Fint,
    rank: *const Fint,
    n: *const Fint,
    coords: *mut Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Cart_coords(h(*comm), *rank, *n, coords);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_cart_rank_(comm: *const Fint, coords: *const Fint, rank: *mut Fint, ierr: *mut Fint) {
    *ierr = MPI_Cart_rank(h(*comm), coords, rank);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_cart_shift_(
    comm: *const Fint,
    dir: *const Fint,
    disp: *const Fint,
    src: *mut Fint,
    dst: *mut Fint,
    ierr: *mut Fint,
) {
    *ierr = MPI_Cart_shift(h(*comm), *dir, *disp, src, dst);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_cart_sub_(comm: *const Fint, remain: *const Fint, new: *mut Fint, ierr: *mut Fint) {
    let mut c = 0;
    *ierr = MPI_Cart_sub(h(*comm), remain, &mut c);
    *new = f(c);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_dims_create_(n: *const Fint, nd: *const Fint, dims: *mut Fint, ierr: *mut Fint) {
    *ierr = MPI_Dims_create(*n, *nd, dims);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_comm_set_errhandler_(comm: *const Fint, eh: *const Fint, ierr: *mut Fint) {
    *ierr = MPI_Comm_set_errhandler(h(*comm), h(*eh));
}

/// Copies C string `s` (`n` bytes) into Fortran character variable `out` of length
/// `len`, blank-padded.
unsafe fn to_fortran(s: &[u8], out: *mut c_char, len: usize) {
    for i in 0..len {
        *out.add(i) = *s.get(i).unwrap_or(&b' ') as c_char;
    }
}

#[no_mangle]
pub unsafe extern "C" fn mpi_get_processor_name_(name: *mut c_char, n: *mut Fint, ierr: *mut Fint, len: usize) {
    let mut b = [0 as c_char; 257];
    *ierr = MPI_Get_processor_name(b.as_mut_ptr(), n);
    let s: Vec<u8> = b[..(*n).max(0) as usize].iter().map(|&c| c as u8).collect();
    to_fortran(&s, name, len);
}
#[no_mangle]
pub unsafe extern "C" fn mpi_error_string_(
    code: *const Fint,
    text: *mut c_char,
    n: *mut Fint,
    ierr: *mut Fint,
    len: usize,
) {
    let mut b = [0 as c_char; 513];
    *ierr = MPI_Error_string(*code, b.as_mut_ptr(), n);
    let s: Vec<u8> = b[..(*n).max(0) as usize].iter().map(|&c| c as u8).collect();
    to_fortran(&s, text, len);
}

/// Makes `MPI_X_c2f` and `MPI_X_f2c` (and their `PMPI_` names, which some programs
/// call directly) for each kind of handle: a handle is the same number in C and
/// Fortran.
macro_rules! handle_conversions {
    ($($c2f:ident $f2c:ident $pc2f:ident $pf2c:ident)*) => {$(
        /// The handle as a Fortran integer.
        #[no_mangle]
        pub extern "C" fn $c2f(handle: usize) -> Fint {
            f(handle)
        }
        /// The Fortran integer as a handle.
        #[no_mangle]
        pub extern "C" fn $f2c(handle: Fint) -> usize {
            h(handle)
        }
        /// As the `MPI_` form.
        #[no_mangle]
        pub extern "C" fn $pc2f(handle: usize) -> Fint {
            f(handle)
        }
        /// As the `MPI_` form.
        #[no_mangle]
        pub extern "C" fn $pf2c(handle: Fint) -> usize {
            h(handle)
        }
    )*};
}

handle_conversions! {
    MPI_Comm_c2f MPI_Comm_f2c PMPI_Comm_c2f PMPI_Comm_f2c
    MPI_Type_c2f MPI_Type_f2c PMPI_Type_c2f PMPI_Type_f2c
    MPI_Group_c2f MPI_Group_f2c PMPI_Group_c2f PMPI_Group_f2c
    MPI_Request_c2f MPI_Request_f2c PMPI_Request_c2f PMPI_Request_f2c
    MPI_Op_c2f MPI_Op_f2c PMPI_Op_c2f PMPI_Op_f2c
    MPI_Info_c2f MPI_Info_f2c PMPI_Info_c2f PMPI_Info_f2c
    MPI_Win_c2f MPI_Win_f2c PMPI_Win_c2f PMPI_Win_f2c
    MPI_Errhandler_c2f MPI_Errhandler_f2c PMPI_Errhandler_c2f PMPI_Errhandler_f2c
    MPI_Message_c2f MPI_Message_f2c PMPI_Message_c2f PMPI_Message_f2c
}
