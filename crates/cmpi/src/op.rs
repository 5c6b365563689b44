//! Reduction operations the program defines (MPI_Op_create). The simulator cannot
//! call the program's function: it answers such a reduction with the contributions
//! the rank's result combines, and the rank combines them here, in rank order, as
//! MPI defines the result (`c0 op c1 op ... op ck`, grouped from the right, which is
//! exact for any associative operation, commutative or not).

use crate::client::{entry, Failure, Typed};
use simpi_wire::abi;
use std::ffi::{c_int, c_void};

/// The program's function: `inout[i] = in[i] op inout[i]` for `len` elements of the
/// datatype.
pub type UserFunction = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int, *mut usize);

/// A user-defined operation.
#[derive(Clone, Copy, Debug)]
pub struct UserOp {
    /// Its function.
    pub f: UserFunction,
    /// Whether the program declared it commutative.
    pub commute: bool,
}

/// The first handle of an operation the program makes (above every predefined one).
pub const FIRST_OP: u64 = 0x1000;

/// # Safety
/// `f` is a function of the MPI_User_function type; `op` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Op_create(f: Option<UserFunction>, commute: c_int, op: *mut usize) -> c_int {
    entry("MPI_Op_create", |c| {
        let f = f.ok_or((abi::err::ARG, "a null function".to_string()))?;
        *op = c.new_op(UserOp {
            f,
            commute: commute != 0,
        }) as usize;
        Ok(())
    })
}

/// # Safety
/// `op` points to an operation handle.
#[no_mangle]
pub unsafe extern "C" fn MPI_Op_free(op: *mut usize) -> c_int {
    entry("MPI_Op_free", |c| {
        if c.ops.remove(&(*op as u64)).is_none() {
            return Err((
                abi::err::OP,
                format!("operation {:#x} is predefined or does not exist", *op),
            ));
        }
        *op = OP_NULL;
        Ok(())
    })
}

/// MPI_OP_NULL.
const OP_NULL: usize = 0x20;

/// # Safety
/// `commute` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Op_commutative(op: usize, commute: *mut c_int) -> c_int {
    entry("MPI_Op_commutative", |c| {
        *commute = match c.ops.get(&(op as u64)) {
            Some(u) => c_int::from(u.commute),
            None if abi::op_name(op as u64).is_some() => 1,
            None => return Err((abi::err::OP, format!("operation {op:#x} does not exist"))),
        };
        Ok(())
    })
}

/// # Safety
/// As the MPI standard's: both buffers hold `count` elements of `datatype`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce_local(
    inbuf: *const c_void,
    inoutbuf: *mut c_void,
    count: c_int,
    datatype: usize,
    op: usize,
) -> c_int {
    entry("MPI_Reduce_local", |c| {
        let t = c.typed(count.into(), datatype)?;
        if let Some(&u) = c.ops.get(&(op as u64)) {
            let (mut len, mut dt) = (count, datatype);
            (u.f)(inbuf as *mut c_void, inoutbuf, &mut len, &mut dt);
            return Ok(());
        }
        if simpi_wire::abi::op_name(op as u64).is_none() {
            return Err((abi::err::OP, format!("operation {op:#x} does not exist")));
        }
        let base = t.ty.base.ok_or((
            abi::err::TYPE,
            "a predefined reduction on a datatype mixing several predefined types".to_string(),
        ))?;
        // Every predefined operation commutes: inout = in op inout.
        let mut acc = t.read(inoutbuf as *const u8)?;
        let x = t.read(inbuf as *const u8)?;
        simpi_wire::reduce::combine(op as u64, base, &mut acc, &x).map_err(|e| (abi::err::OP, e))?;
        t.write(inoutbuf as *mut u8, &acc)
    })
}

/// A buffer laid out as `t` says, for the program's function to read and write.
struct Scratch {
    bytes: Vec<u8>,
    /// Where element 0 starts in `bytes` (its lowest byte may be before it).
    origin: usize,
}

impl Scratch {
    fn new(t: &Typed) -> Scratch {
        let ty = &t.ty;
        let last = (t.count.max(1) as i64 - 1) * ty.extent;
        let lo = ty.true_lb.min(last + ty.true_lb).min(0);
        let hi = (ty.true_lb + ty.true_extent)
            .max(last + ty.true_lb + ty.true_extent)
            .max(0);
        Scratch {
            bytes: vec![0; (hi - lo) as usize],
            origin: (-lo) as usize,
        }
    }

    fn at(&mut self) -> *mut u8 {
        self.bytes.as_mut_ptr().wrapping_add(self.origin)
    }
}

/// Combines `parts` (each the packed contribution of one rank, in rank order) with
/// `op` on `t` (`dt` its handle), as the program's function sees them: spread out
/// by the datatype. Returns the packed result (empty if there are no parts).
///
/// # Safety
/// `op.f` is the program's reduction function.
pub unsafe fn fold(op: UserOp, t: &Typed, dt: usize, parts: &[u8]) -> Result<Vec<u8>, Failure> {
    let each = t.bytes() as usize;
    if each == 0 || parts.is_empty() {
        return Ok(Vec::new());
    }
    if !parts.len().is_multiple_of(each) {
        return Err((abi::err::INTERN, "contributions of different sizes".into()));
    }
    let mut blocks = parts.chunks(each).rev();
    let mut acc = Scratch::new(t);
    let mut inp = Scratch::new(t);
    if let Some(last) = blocks.next() {
        t.write(acc.at(), last)?;
    }
    let mut len = c_int::try_from(t.count).map_err(|_| (abi::err::COUNT, "too many elements".to_string()))?;
    let mut handle = dt;
    for b in blocks {
        t.write(inp.at(), b)?;
        (op.f)(inp.at() as *mut c_void, acc.at() as *mut c_void, &mut len, &mut handle);
    }
    t.read(acc.at())
}
