//! The handle values and constants of the MPI 5.0 standard ABI (`mpi_abi.h`: handles
//! are pointers to incomplete types, predefined ones small integers), as simpi's
//! `mpi.h` defines them, and what each predefined datatype is made of. The launcher
//! reads datatype and operation handles the ranks send it; both sides read these.

/// MPI_ANY_SOURCE.
pub const ANY_SOURCE: i32 = -1;
/// MPI_PROC_NULL.
pub const PROC_NULL: i32 = -2;
/// MPI_ROOT.
pub const ROOT: i32 = -3;
/// MPI_ANY_TAG.
pub const ANY_TAG: i32 = -31;
/// MPI_KEYVAL_INVALID.
pub const KEYVAL_INVALID: i32 = -127;
/// MPI_UNDEFINED.
pub const UNDEFINED: i32 = -32766;
/// The largest tag (MPI_TAG_UB's value): tags above are refused.
pub const TAG_UB: i32 = (1 << 30) - 1;

/// MPI_COMM_NULL.
pub const COMM_NULL: u64 = 0x100;
/// MPI_WIN_NULL.
pub const WIN_NULL: u64 = 0x110;
/// MPI_INFO_NULL.
pub const INFO_NULL: u64 = 0x130;
/// MPI_COMM_WORLD.
pub const COMM_WORLD: u64 = 0x101;
/// MPI_COMM_SELF.
pub const COMM_SELF: u64 = 0x102;
/// MPI_GROUP_NULL.
pub const GROUP_NULL: u64 = 0x108;
/// MPI_GROUP_EMPTY.
pub const GROUP_EMPTY: u64 = 0x109;
/// MPI_COMM_TYPE_SHARED (MPI_Comm_split_type).
pub const COMM_TYPE_SHARED: i32 = 1001;
/// MPI_REQUEST_NULL.
pub const REQUEST_NULL: u64 = 0x180;
/// MPI_ERRORS_ARE_FATAL.
pub const ERRORS_ARE_FATAL: u64 = 0x141;
/// MPI_ERRORS_RETURN.
pub const ERRORS_RETURN: u64 = 0x142;
/// MPI_ERRORS_ABORT.
pub const ERRORS_ABORT: u64 = 0x143;
/// MPI_IN_PLACE (a buffer address).
pub const IN_PLACE: usize = 1;

/// MPI_SUM.
pub const OP_SUM: u64 = 0x21;
/// MPI_MIN.
pub const OP_MIN: u64 = 0x22;
/// MPI_MAX.
pub const OP_MAX: u64 = 0x23;
/// MPI_PROD.
pub const OP_PROD: u64 = 0x24;
/// MPI_BAND.
pub const OP_BAND: u64 = 0x28;
/// MPI_BOR.
pub const OP_BOR: u64 = 0x29;
/// MPI_BXOR.
pub const OP_BXOR: u64 = 0x2a;
/// MPI_LAND.
pub const OP_LAND: u64 = 0x30;
/// MPI_LOR.
pub const OP_LOR: u64 = 0x31;
/// MPI_LXOR.
pub const OP_LXOR: u64 = 0x32;
/// MPI_MINLOC.
pub const OP_MINLOC: u64 = 0x38;
/// MPI_MAXLOC.
pub const OP_MAXLOC: u64 = 0x39;
/// MPI_REPLACE.
pub const OP_REPLACE: u64 = 0x3c;
/// MPI_NO_OP.
pub const OP_NO_OP: u64 = 0x3d;

/// Not a handle: the operation of a reduction is the program's own function, which
/// only the rank can call. The simulator answers such a reduction with the
/// contributions the rank's result combines (in rank order), and the rank combines
/// them.
pub const OP_USER: u64 = 0xffff_ffff;

/// MPI_DOUBLE (used by tests on both sides).
pub const DOUBLE: u64 = 0x214;
/// MPI_LONG_DOUBLE.
pub const LONG_DOUBLE: u64 = 0x220;
/// MPI_C_LONG_DOUBLE_COMPLEX.
pub const C_LONG_DOUBLE_COMPLEX: u64 = 0x224;
/// MPI_CXX_LONG_DOUBLE_COMPLEX.
pub const CXX_LONG_DOUBLE_COMPLEX: u64 = 0x225;
/// MPI_LONG_DOUBLE_INT.
pub const LONG_DOUBLE_INT: u64 = 0x22d;
/// MPI_INT.
pub const INT: u64 = 0x209;
/// MPI_BYTE.
pub const BYTE: u64 = 0x247;

/// Error classes simpi returns (MPI_SUCCESS is 0).
pub mod err {
    /// MPI_SUCCESS.
    pub const SUCCESS: i32 = 0;
    /// MPI_ERR_BUFFER.
    pub const BUFFER: i32 = 1;
    /// MPI_ERR_COUNT.
    pub const COUNT: i32 = 2;
    /// MPI_ERR_TYPE.
    pub const TYPE: i32 = 3;
    /// MPI_ERR_TAG.
    pub const TAG: i32 = 4;
    /// MPI_ERR_COMM.
    pub const COMM: i32 = 5;
    /// MPI_ERR_RANK.
    pub const RANK: i32 = 6;
    /// MPI_ERR_REQUEST.
    pub const REQUEST: i32 = 7;
    /// MPI_ERR_ROOT.
    pub const ROOT: i32 = 8;
    /// MPI_ERR_GROUP.
    pub const GROUP: i32 = 9;
    /// MPI_ERR_OP.
    pub const OP: i32 = 10;
    /// MPI_ERR_TOPOLOGY.
    pub const TOPOLOGY: i32 = 11;
    /// MPI_ERR_DIMS.
    pub const DIMS: i32 = 12;
    /// MPI_ERR_ARG.
    pub const ARG: i32 = 13;
    /// MPI_ERR_TRUNCATE.
    pub const TRUNCATE: i32 = 15;
    /// MPI_ERR_OTHER.
    pub const OTHER: i32 = 16;
    /// MPI_ERR_INTERN.
    pub const INTERN: i32 = 17;
    /// MPI_ERR_ASSERT.
    pub const ASSERT: i32 = 22;
    /// MPI_ERR_DISP.
    pub const DISP: i32 = 26;
    /// MPI_ERR_INFO_NOKEY.
    pub const INFO_NOKEY: i32 = 32;
    /// MPI_ERR_KEYVAL.
    pub const KEYVAL: i32 = 36;
    /// MPI_ERR_LOCKTYPE.
    pub const LOCKTYPE: i32 = 37;
    /// MPI_ERR_NO_MEM.
    pub const NO_MEM: i32 = 39;
    /// MPI_ERR_RMA_RANGE.
    pub const RMA_RANGE: i32 = 49;
    /// MPI_ERR_RMA_SYNC.
    pub const RMA_SYNC: i32 = 51;
    /// MPI_ERR_RMA_FLAVOR.
    pub const RMA_FLAVOR: i32 = 52;
    /// MPI_ERR_SIZE.
    pub const SIZE: i32 = 55;
    /// MPI_ERR_WIN.
    pub const WIN: i32 = 60;
    /// MPI_ERR_UNSUPPORTED_OPERATION.
    pub const UNSUPPORTED_OPERATION: i32 = 58;
    /// MPI_ERR_ERRHANDLER.
    pub const ERRHANDLER: i32 = 61;
}

/// A number a reduction computes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// Signed integer of 1, 2, 4 or 8 bytes.
    I8,
    /// 16-bit signed.
    I16,
    /// 32-bit signed.
    I32,
    /// 64-bit signed.
    I64,
    /// 8-bit unsigned.
    U8,
    /// 16-bit unsigned.
    U16,
    /// 32-bit unsigned.
    U32,
    /// 64-bit unsigned.
    U64,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
}

impl Num {
    /// Bytes of one number.
    pub fn size(self) -> usize {
        match self {
            Num::I8 | Num::U8 => 1,
            Num::I16 | Num::U16 => 2,
            Num::I32 | Num::U32 | Num::F32 => 4,
            Num::I64 | Num::U64 | Num::F64 => 8,
        }
    }
}

/// What one element of a predefined datatype is, for reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// A number.
    Num(Num),
    /// A value and an `int` index (MPI_MINLOC/MAXLOC types), laid out as the C struct.
    Pair(Num, Num),
    /// A complex number: real and imaginary parts of this type.
    Complex(Num),
    /// Bytes with no arithmetic here (characters, long double and its complex).
    Opaque,
}

/// A predefined datatype: handle, name, size in bytes, element.
pub struct Datatype {
    /// The ABI handle value.
    pub handle: u64,
    /// The name in `mpi.h`.
    pub name: &'static str,
    /// Bytes (on x86-64 Linux, LP64).
    pub size: u64,
    /// What reductions see.
    pub elem: Elem,
}

macro_rules! types {
    ($($name:literal $handle:literal $size:literal $elem:expr;)*) => {
        /// Every predefined datatype simpi's `mpi.h` names.
        pub const DATATYPES: &[Datatype] = &[
            $(Datatype { handle: $handle, name: $name, size: $size, elem: $elem },)*
        ];
    };
}

use Elem::{Complex as C, Num as N, Opaque as O, Pair as P};
types! {
    "MPI_AINT" 0x201 8 N(Num::I64);
    "MPI_COUNT" 0x202 8 N(Num::I64);
    "MPI_OFFSET" 0x203 8 N(Num::I64);
    "MPI_PACKED" 0x207 1 O;
    "MPI_SHORT" 0x208 2 N(Num::I16);
    "MPI_INT" 0x209 4 N(Num::I32);
    "MPI_LONG" 0x20a 8 N(Num::I64);
    "MPI_LONG_LONG" 0x20b 8 N(Num::I64);
    "MPI_UNSIGNED_SHORT" 0x20c 2 N(Num::U16);
    "MPI_UNSIGNED" 0x20d 4 N(Num::U32);
    "MPI_UNSIGNED_LONG" 0x20e 8 N(Num::U64);
    "MPI_UNSIGNED_LONG_LONG" 0x20f 8 N(Num::U64);
    "MPI_FLOAT" 0x210 4 N(Num::F32);
    "MPI_C_COMPLEX" 0x212 8 C(Num::F32);
    "MPI_CXX_FLOAT_COMPLEX" 0x213 8 C(Num::F32);
    "MPI_DOUBLE" 0x214 8 N(Num::F64);
    "MPI_C_DOUBLE_COMPLEX" 0x216 16 C(Num::F64);
    "MPI_CXX_DOUBLE_COMPLEX" 0x217 16 C(Num::F64);
    "MPI_INTEGER" 0x218 4 N(Num::I32);
    "MPI_LOGICAL" 0x219 4 N(Num::I32);
    "MPI_REAL" 0x21a 4 N(Num::F32);
    "MPI_COMPLEX" 0x21b 8 C(Num::F32);
    "MPI_DOUBLE_PRECISION" 0x21c 8 N(Num::F64);
    "MPI_DOUBLE_COMPLEX" 0x21d 16 C(Num::F64);
    "MPI_LONG_DOUBLE" 0x220 16 O;
    "MPI_C_LONG_DOUBLE_COMPLEX" 0x224 32 O;
    "MPI_CXX_LONG_DOUBLE_COMPLEX" 0x225 32 O;
    "MPI_FLOAT_INT" 0x228 8 P(Num::F32, Num::I32);
    "MPI_DOUBLE_INT" 0x229 16 P(Num::F64, Num::I32);
    "MPI_LONG_INT" 0x22a 16 P(Num::I64, Num::I32);
    "MPI_2INT" 0x22b 8 P(Num::I32, Num::I32);
    "MPI_SHORT_INT" 0x22c 8 P(Num::I16, Num::I32);
    "MPI_LONG_DOUBLE_INT" 0x22d 32 O;
    "MPI_2REAL" 0x230 8 P(Num::F32, Num::F32);
    "MPI_2DOUBLE_PRECISION" 0x231 16 P(Num::F64, Num::F64);
    "MPI_2INTEGER" 0x232 8 P(Num::I32, Num::I32);
    "MPI_C_BOOL" 0x238 1 N(Num::U8);
    "MPI_CXX_BOOL" 0x239 1 N(Num::U8);
    "MPI_WCHAR" 0x23c 4 O;
    "MPI_INT8_T" 0x240 1 N(Num::I8);
    "MPI_UINT8_T" 0x241 1 N(Num::U8);
    "MPI_CHAR" 0x243 1 N(Num::I8);
    "MPI_SIGNED_CHAR" 0x244 1 N(Num::I8);
    "MPI_UNSIGNED_CHAR" 0x245 1 N(Num::U8);
    "MPI_BYTE" 0x247 1 O;
    "MPI_INT16_T" 0x248 2 N(Num::I16);
    "MPI_UINT16_T" 0x249 2 N(Num::U16);
    "MPI_INT32_T" 0x250 4 N(Num::I32);
    "MPI_UINT32_T" 0x251 4 N(Num::U32);
    "MPI_INT64_T" 0x258 8 N(Num::I64);
    "MPI_UINT64_T" 0x259 8 N(Num::U64);
    "MPI_INTEGER1" 0x2c0 1 N(Num::I8);
    "MPI_CHARACTER" 0x2c3 1 O;
    "MPI_INTEGER2" 0x2c8 2 N(Num::I16);
    "MPI_INTEGER4" 0x2d0 4 N(Num::I32);
    "MPI_REAL4" 0x2d2 4 N(Num::F32);
    "MPI_INTEGER8" 0x2d8 8 N(Num::I64);
    "MPI_REAL8" 0x2da 8 N(Num::F64);
    "MPI_COMPLEX8" 0x2db 8 C(Num::F32);
    "MPI_INTEGER16" 0x2e0 16 O;
    "MPI_REAL16" 0x2e2 16 O;
    "MPI_COMPLEX16" 0x2e3 16 C(Num::F64);
    "MPI_COMPLEX32" 0x2eb 32 O;
}

/// The predefined datatype with ABI handle `h`.
pub fn datatype(h: u64) -> Option<&'static Datatype> {
    DATATYPES.iter().find(|d| d.handle == h)
}

/// The name of predefined operation `h`, if it is one.
pub fn op_name(h: u64) -> Option<&'static str> {
    Some(match h {
        OP_SUM => "MPI_SUM",
        OP_MIN => "MPI_MIN",
        OP_MAX => "MPI_MAX",
        OP_PROD => "MPI_PROD",
        OP_BAND => "MPI_BAND",
        OP_BOR => "MPI_BOR",
        OP_BXOR => "MPI_BXOR",
        OP_LAND => "MPI_LAND",
        OP_LOR => "MPI_LOR",
        OP_LXOR => "MPI_LXOR",
        OP_MINLOC => "MPI_MINLOC",
        OP_MAXLOC => "MPI_MAXLOC",
        OP_REPLACE => "MPI_REPLACE",
        OP_NO_OP => "MPI_NO_OP",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datatype_handles_are_distinct_and_sizes_cover_their_elements() {
        for (i, a) in DATATYPES.iter().enumerate() {
            // simpi's library indexes them by handle from 0x200.
            assert!((0x200..0x300).contains(&a.handle), "{} at {:#x}", a.name, a.handle);
            for b in &DATATYPES[i + 1..] {
                assert_ne!(a.handle, b.handle, "{} and {}", a.name, b.name);
            }
            match a.elem {
                Elem::Num(n) => assert_eq!(n.size() as u64, a.size, "{}", a.name),
                // A pair is laid out as a C struct: the second member aligned to its size.
                Elem::Pair(v, i) => {
                    let off = v.size().next_multiple_of(i.size());
                    let end = (off + i.size()).next_multiple_of(v.size().max(i.size()));
                    assert_eq!(end as u64, a.size, "{}", a.name);
                }
                Elem::Complex(n) => assert_eq!(2 * n.size() as u64, a.size, "{}", a.name),
                Elem::Opaque => {}
            }
        }
    }
}
