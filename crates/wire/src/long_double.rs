//! Reductions on C's `long double` (x87 80-bit extended precision, stored in 16 bytes
//! on x86-64 Linux), computed by the x87 unit itself so results are exact to the last
//! bit, as the program's own arithmetic would be. Other machines refuse them.

/// The bytes of one element.
const WIDTH: usize = 16;

/// `acc = acc op x` for `long double` elements (`complex`: pairs of them, where only
/// the sum is defined here); `None` if the operation is not defined on them.
pub fn combine(op: u64, complex: bool, acc: &mut [u8], x: &[u8]) -> Option<()> {
    use crate::abi;
    if complex && op != abi::OP_SUM {
        return None;
    }
    let f: fn(&mut [u8], &[u8]) = match op {
        abi::OP_SUM => add,
        abi::OP_PROD => mul,
        abi::OP_MIN => |a, b| {
            if less(b, a) {
                a.copy_from_slice(b)
            }
        },
        abi::OP_MAX => |a, b| {
            if less(a, b) {
                a.copy_from_slice(b)
            }
        },
        _ => return None,
    };
    supported()?;
    for (a, b) in acc.chunks_exact_mut(WIDTH).zip(x.chunks_exact(WIDTH)) {
        f(a, b);
    }
    Some(())
}

/// MPI_MINLOC or MPI_MAXLOC (`min`) on MPI_LONG_DOUBLE_INT pairs (a long double, then
/// an int, 32 bytes in all): the better value, and on a tie the smaller index.
pub fn locate(min: bool, acc: &mut [u8], x: &[u8]) -> Option<()> {
    supported()?;
    for (a, b) in acc.chunks_exact_mut(2 * WIDTH).zip(x.chunks_exact(2 * WIDTH)) {
        let index = |p: &[u8]| i32::from_le_bytes([p[WIDTH], p[WIDTH + 1], p[WIDTH + 2], p[WIDTH + 3]]);
        let better = if min { less(b, a) } else { less(a, b) };
        let tie = !less(a, b) && !less(b, a);
        if better || (tie && index(b) < index(a)) {
            a.copy_from_slice(b);
        }
    }
    Some(())
}

#[cfg(target_arch = "x86_64")]
fn supported() -> Option<()> {
    Some(())
}

#[cfg(not(target_arch = "x86_64"))]
fn supported() -> Option<()> {
    None
}

/// `a = a op b` by the x87 instruction `$op` (which pops: `faddp`, `fmulp`).
#[cfg(target_arch = "x86_64")]
macro_rules! x87_binary {
    ($name:ident, $op:literal) => {
        fn $name(a: &mut [u8], b: &[u8]) {
            assert!(a.len() >= 10 && b.len() >= 10);
            // SAFETY: both hold the 10 bytes the loads and the store touch; the x87
            // stack is left as found.
            unsafe {
                std::arch::asm!(
                    "fld tbyte ptr [{a}]",
                    "fld tbyte ptr [{b}]",
                    concat!($op, " st(1), st"),
                    "fstp tbyte ptr [{a}]",
                    a = in(reg) a.as_mut_ptr(),
                    b = in(reg) b.as_ptr(),
                    out("st(0)") _,
                    out("st(1)") _,
                );
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
x87_binary!(add, "faddp");
#[cfg(target_arch = "x86_64")]
x87_binary!(mul, "fmulp");

/// Whether `a < b` (false if either is a NaN).
#[cfg(target_arch = "x86_64")]
fn less(a: &[u8], b: &[u8]) -> bool {
    assert!(a.len() >= 10 && b.len() >= 10);
    let below: u8;
    let unordered: u8;
    // SAFETY: both hold the 10 bytes loaded; both loads are popped.
    unsafe {
        std::arch::asm!(
            "fld tbyte ptr [{b}]",
            "fld tbyte ptr [{a}]",
            "fucomip st, st(1)",
            "fstp st(0)",
            "setb {below}",
            "setp {unordered}",
            a = in(reg) a.as_ptr(),
            b = in(reg) b.as_ptr(),
            below = out(reg_byte) below,
            unordered = out(reg_byte) unordered,
            out("st(0)") _,
            out("st(1)") _,
        );
    }
    below != 0 && unordered == 0
}

#[cfg(not(target_arch = "x86_64"))]
fn add(_: &mut [u8], _: &[u8]) {}
#[cfg(not(target_arch = "x86_64"))]
fn mul(_: &mut [u8], _: &[u8]) {}
#[cfg(not(target_arch = "x86_64"))]
fn less(_: &[u8], _: &[u8]) -> bool {
    false
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::abi;

    /// The 80-bit value of a small integer: sign and exponent, explicit integer bit.
    fn ld(v: u64) -> [u8; 16] {
        let mut out = [0u8; 16];
        if v == 0 {
            return out;
        }
        let shift = v.leading_zeros();
        let mantissa = v << shift;
        let exponent = 16383 + 63 - shift as u16;
        out[..8].copy_from_slice(&mantissa.to_le_bytes());
        out[8..10].copy_from_slice(&exponent.to_le_bytes());
        out
    }

    #[test]
    fn sums_products_and_extremes_are_the_x87_s() {
        let mut acc = [ld(3), ld(10)].concat();
        let x = [ld(4), ld(2)].concat();
        combine(abi::OP_SUM, false, &mut acc, &x).unwrap();
        assert_eq!(acc, [ld(7), ld(12)].concat());
        combine(abi::OP_PROD, false, &mut acc, &x).unwrap();
        assert_eq!(acc, [ld(28), ld(24)].concat());
        combine(abi::OP_MIN, false, &mut acc, &x).unwrap();
        assert_eq!(acc, [ld(4), ld(2)].concat());
        let mut big = [ld(1), ld(9)].concat();
        combine(abi::OP_MAX, false, &mut big, &x).unwrap();
        assert_eq!(big, [ld(4), ld(9)].concat());
        // 2^63 + 1 needs 64 bits of mantissa: a double would lose the 1.
        let mut exact = ld(1 << 63).to_vec();
        combine(abi::OP_SUM, false, &mut exact, &ld(1)).unwrap();
        assert_eq!(exact, ld((1 << 63) + 1).to_vec());
        assert!(combine(abi::OP_BAND, false, &mut acc, &x).is_none());
        // Pairs: (5, index 3) against (5, index 1) and (2, index 9).
        let pair = |v: u64, i: i32| {
            let mut p = [0u8; 32];
            p[..16].copy_from_slice(&ld(v));
            p[16..20].copy_from_slice(&i.to_le_bytes());
            p
        };
        let mut m = [pair(5, 3), pair(5, 3)].concat();
        locate(true, &mut m, &[pair(5, 1), pair(2, 9)].concat()).unwrap();
        assert_eq!(m, [pair(5, 1), pair(2, 9)].concat());
        locate(false, &mut m, &[pair(4, 0), pair(7, 8)].concat()).unwrap();
        assert_eq!(m, [pair(5, 1), pair(7, 8)].concat());
        assert!(combine(abi::OP_PROD, true, &mut acc, &x).is_none());
    }
}
