//! The arithmetic of MPI's predefined reduction operations on predefined datatypes,
//! on the ranks' real data: the simulator reduces collectives' contributions with it,
//! a rank its MPI_Reduce_local.

use crate::abi::{self, Elem, Num};

/// `acc = acc * x` for complex numbers of `$t` parts.
macro_rules! complex_product {
    ($t:ty, $acc:expr, $x:expr) => {{
        const W: usize = std::mem::size_of::<$t>();
        let part = |b: &[u8]| <$t>::from_le_bytes(b.try_into().expect("width"));
        for (a, b) in $acc.chunks_exact_mut(2 * W).zip($x.chunks_exact(2 * W)) {
            let (ar, ai, br, bi) = (part(&a[..W]), part(&a[W..]), part(&b[..W]), part(&b[W..]));
            a[..W].copy_from_slice(&(ar * br - ai * bi).to_le_bytes());
            a[W..].copy_from_slice(&(ar * bi + ai * br).to_le_bytes());
        }
    }};
}

/// `acc = acc op x`, element by element, for `datatype` (an ABI handle). Both slices
/// hold whole elements. An operation the datatype does not support is an error naming
/// both, as MPI_ERR_OP would be.
pub fn combine(op: u64, datatype: u64, acc: &mut [u8], x: &[u8]) -> Result<(), String> {
    let ty = abi::datatype(datatype).ok_or_else(|| format!("datatype {datatype:#x} is not a predefined one"))?;
    let op_name = abi::op_name(op).ok_or_else(|| format!("operation {op:#x} is not a predefined one"))?;
    if acc.len() != x.len() {
        return Err(format!(
            "{op_name}: contributions of {} and {} bytes",
            acc.len(),
            x.len()
        ));
    }
    match op {
        abi::OP_REPLACE => {
            acc.copy_from_slice(x);
            return Ok(());
        }
        abi::OP_NO_OP => return Ok(()),
        _ => {}
    }
    let bad = || format!("{op_name} is not defined on {}", ty.name);
    // C's long double (and its complex), in the x87 unit's own arithmetic.
    if matches!(
        datatype,
        abi::LONG_DOUBLE | abi::C_LONG_DOUBLE_COMPLEX | abi::CXX_LONG_DOUBLE_COMPLEX
    ) {
        return crate::long_double::combine(op, datatype != abi::LONG_DOUBLE, acc, x).ok_or_else(bad);
    }
    if datatype == abi::LONG_DOUBLE_INT && matches!(op, abi::OP_MINLOC | abi::OP_MAXLOC) {
        return crate::long_double::locate(op == abi::OP_MINLOC, acc, x).ok_or_else(bad);
    }
    match ty.elem {
        Elem::Num(n) => num_op(op, n, acc, x).ok_or_else(bad)?,
        // MPI defines the bitwise operations on bytes.
        Elem::Opaque if datatype == abi::BYTE && matches!(op, abi::OP_BAND | abi::OP_BOR | abi::OP_BXOR) => {
            num_op(op, Num::U8, acc, x).ok_or_else(bad)?
        }
        // A sum adds the parts; a product multiplies as complex numbers.
        Elem::Complex(n) if op == abi::OP_SUM => num_op(op, n, acc, x).ok_or_else(bad)?,
        Elem::Complex(Num::F64) if op == abi::OP_PROD => complex_product!(f64, acc, x),
        Elem::Complex(Num::F32) if op == abi::OP_PROD => complex_product!(f32, acc, x),
        Elem::Pair(v, i) if op == abi::OP_MINLOC || op == abi::OP_MAXLOC => {
            let w = ty.size as usize;
            let off = v.size().next_multiple_of(i.size());
            for (a, b) in acc.chunks_exact_mut(w).zip(x.chunks_exact(w)) {
                let (va, vb) = (value(v, &a[..v.size()]), value(v, &b[..v.size()]));
                let (ia, ib) = (value(i, &a[off..off + i.size()]), value(i, &b[off..off + i.size()]));
                let better = if op == abi::OP_MINLOC { vb < va } else { vb > va };
                // On a tie MPI keeps the smaller index.
                if better || (vb == va && ib < ia) {
                    a.copy_from_slice(b);
                }
            }
        }
        _ => return Err(bad()),
    }
    Ok(())
}

/// A number widened without loss, for comparisons.
fn value(n: Num, b: &[u8]) -> Wide {
    match n {
        Num::I8 => Wide::I(b[0] as i8 as i128),
        Num::I16 => Wide::I(i16::from_le_bytes([b[0], b[1]]) as i128),
        Num::I32 => Wide::I(i32::from_le_bytes(b[..4].try_into().expect("4")) as i128),
        Num::I64 => Wide::I(i64::from_le_bytes(b[..8].try_into().expect("8")) as i128),
        Num::U8 => Wide::I(b[0] as i128),
        Num::U16 => Wide::I(u16::from_le_bytes([b[0], b[1]]) as i128),
        Num::U32 => Wide::I(u32::from_le_bytes(b[..4].try_into().expect("4")) as i128),
        Num::U64 => Wide::I(u64::from_le_bytes(b[..8].try_into().expect("8")) as i128),
        Num::F32 => Wide::F(f32::from_le_bytes(b[..4].try_into().expect("4")) as f64),
        Num::F64 => Wide::F(f64::from_le_bytes(b[..8].try_into().expect("8"))),
    }
}

/// A number widened for comparison.
#[derive(PartialEq, PartialOrd)]
enum Wide {
    I(i128),
    F(f64),
}

/// Applies `$f` to every pair of `$t` elements of `$acc` and `$x`, into `$acc`: one
/// loop per type and operation, so the compiler can vectorise it.
macro_rules! lanes {
    ($t:ty, $acc:expr, $x:expr, |$a:ident, $b:ident| $f:expr) => {{
        const W: usize = std::mem::size_of::<$t>();
        for (ca, cb) in $acc.chunks_exact_mut(W).zip($x.chunks_exact(W)) {
            let $a = <$t>::from_le_bytes(ca.try_into().expect("width"));
            let $b = <$t>::from_le_bytes(cb.try_into().expect("width"));
            ca.copy_from_slice(&$f.to_le_bytes());
        }
        Some(())
    }};
}

macro_rules! int_op {
    ($t:ty, $op:expr, $acc:expr, $x:expr) => {
        match $op {
            abi::OP_SUM => lanes!($t, $acc, $x, |a, b| a.wrapping_add(b)),
            abi::OP_PROD => lanes!($t, $acc, $x, |a, b| a.wrapping_mul(b)),
            abi::OP_MIN => lanes!($t, $acc, $x, |a, b| a.min(b)),
            abi::OP_MAX => lanes!($t, $acc, $x, |a, b| a.max(b)),
            abi::OP_BAND => lanes!($t, $acc, $x, |a, b| a & b),
            abi::OP_BOR => lanes!($t, $acc, $x, |a, b| a | b),
            abi::OP_BXOR => lanes!($t, $acc, $x, |a, b| a ^ b),
            abi::OP_LAND => lanes!($t, $acc, $x, |a, b| ((a != 0) && (b != 0)) as $t),
            abi::OP_LOR => lanes!($t, $acc, $x, |a, b| ((a != 0) || (b != 0)) as $t),
            abi::OP_LXOR => lanes!($t, $acc, $x, |a, b| ((a != 0) != (b != 0)) as $t),
            _ => None,
        }
    };
}

macro_rules! float_op {
    ($t:ty, $op:expr, $acc:expr, $x:expr) => {
        match $op {
            abi::OP_SUM => lanes!($t, $acc, $x, |a, b| a + b),
            abi::OP_PROD => lanes!($t, $acc, $x, |a, b| a * b),
            // As C's `b < a ? b : a`: a NaN operand is not skipped silently.
            abi::OP_MIN => lanes!($t, $acc, $x, |a, b| if b < a { b } else { a }),
            abi::OP_MAX => lanes!($t, $acc, $x, |a, b| if b > a { b } else { a }),
            _ => None,
        }
    };
}

fn num_op(op: u64, n: Num, acc: &mut [u8], x: &[u8]) -> Option<()> {
    match n {
        Num::I8 => int_op!(i8, op, acc, x),
        Num::I16 => int_op!(i16, op, acc, x),
        Num::I32 => int_op!(i32, op, acc, x),
        Num::I64 => int_op!(i64, op, acc, x),
        Num::U8 => int_op!(u8, op, acc, x),
        Num::U16 => int_op!(u16, op, acc, x),
        Num::U32 => int_op!(u32, op, acc, x),
        Num::U64 => int_op!(u64, op, acc, x),
        Num::F32 => float_op!(f32, op, acc, x),
        Num::F64 => float_op!(f64, op, acc, x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doubles(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn sums_products_and_extremes_of_doubles_and_ints() {
        let mut a = doubles(&[1.5, -2.0]);
        combine(abi::OP_SUM, abi::DOUBLE, &mut a, &doubles(&[0.25, 4.0])).unwrap();
        assert_eq!(a, doubles(&[1.75, 2.0]));
        combine(abi::OP_PROD, abi::DOUBLE, &mut a, &doubles(&[2.0, 0.5])).unwrap();
        assert_eq!(a, doubles(&[3.5, 1.0]));
        let mut i: Vec<u8> = [7i32, -3].iter().flat_map(|x| x.to_le_bytes()).collect();
        let j: Vec<u8> = [5i32, 9].iter().flat_map(|x| x.to_le_bytes()).collect();
        combine(abi::OP_MIN, abi::INT, &mut i, &j).unwrap();
        assert_eq!(i, [5i32, -3].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
        combine(abi::OP_BXOR, abi::INT, &mut i, &j).unwrap();
        assert_eq!(
            i,
            [0i32, -3 ^ 9].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()
        );
    }

    #[test]
    fn maxloc_keeps_the_larger_value_and_the_smaller_index_on_ties() {
        // MPI_DOUBLE_INT: a double, an int, 4 bytes of padding.
        let pair = |v: f64, i: i32| {
            let mut b = v.to_le_bytes().to_vec();
            b.extend_from_slice(&i.to_le_bytes());
            b.extend_from_slice(&[0; 4]);
            b
        };
        let mut a = pair(2.0, 5);
        combine(abi::OP_MAXLOC, 0x229, &mut a, &pair(2.0, 3)).unwrap();
        assert_eq!(a, pair(2.0, 3));
        combine(abi::OP_MAXLOC, 0x229, &mut a, &pair(1.0, 0)).unwrap();
        assert_eq!(a, pair(2.0, 3));
        combine(abi::OP_MINLOC, 0x229, &mut a, &pair(1.0, 9)).unwrap();
        assert_eq!(a, pair(1.0, 9));
    }

    #[test]
    fn complex_sums_add_parts_and_products_multiply() {
        // (1 + 2i)(3 - i) = 3 - i + 6i + 2 = 5 + 5i; the sum is 4 + i.
        let mut a = doubles(&[1.0, 2.0]);
        combine(abi::OP_SUM, 0x21d, &mut a, &doubles(&[3.0, -1.0])).unwrap();
        assert_eq!(a, doubles(&[4.0, 1.0]));
        let mut a = doubles(&[1.0, 2.0]);
        combine(abi::OP_PROD, 0x21d, &mut a, &doubles(&[3.0, -1.0])).unwrap();
        assert_eq!(a, doubles(&[5.0, 5.0]));
        assert!(combine(abi::OP_MAX, 0x21d, &mut a, &doubles(&[3.0, -1.0])).is_err());
    }

    #[test]
    fn undefined_combinations_are_errors() {
        let mut a = doubles(&[1.0]);
        assert!(combine(abi::OP_BAND, abi::DOUBLE, &mut a, &doubles(&[1.0])).is_err());
        assert!(combine(abi::OP_MAXLOC, abi::DOUBLE, &mut a, &doubles(&[1.0])).is_err());
        assert!(combine(0x999, abi::DOUBLE, &mut a, &doubles(&[1.0])).is_err());
        assert!(combine(abi::OP_SUM, abi::BYTE, &mut [0u8], &[1u8]).is_err());
        // Bitwise operations are defined on bytes.
        let mut b = [0b1100u8];
        combine(abi::OP_BXOR, abi::BYTE, &mut b, &[0b1010]).unwrap();
        assert_eq!(b, [0b0110]);
    }
}
