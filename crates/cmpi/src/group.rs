//! Groups: ordered sets of world ranks, made and compared on the rank alone (no call
//! reaches the simulator).

use crate::client::{entry, Client, Failure};
use crate::comm::{compare_members, IDENT};
use simpi_wire::abi;
use std::ffi::c_int;

/// This rank's place in `g`, or MPI_UNDEFINED.
fn place_in(g: &[u32], world: u32) -> c_int {
    g.iter()
        .position(|&w| w == world)
        .map_or(abi::UNDEFINED, |i| i as c_int)
}

/// The ranks `ranks[0..n]` of `g`, checked: each in range and none twice.
unsafe fn picked(g: &[u32], n: c_int, ranks: *const c_int) -> Result<Vec<u32>, Failure> {
    if n < 0 {
        return Err((abi::err::ARG, format!("{n} ranks")));
    }
    let mut seen = vec![false; g.len()];
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        let r = *ranks.add(i);
        if r < 0 || r as usize >= g.len() || seen[r as usize] {
            return Err((
                abi::err::RANK,
                format!("rank {r} is outside the group of {} or named twice", g.len()),
            ));
        }
        seen[r as usize] = true;
        out.push(r as u32);
    }
    Ok(out)
}

/// The ranks of `n` (first, last, stride) triples, checked as [`picked`] checks.
unsafe fn ranges(g: &[u32], n: c_int, triples: *const [c_int; 3]) -> Result<Vec<c_int>, Failure> {
    if n < 0 {
        return Err((abi::err::ARG, format!("{n} ranges")));
    }
    let mut out = Vec::new();
    for i in 0..n as usize {
        let [first, last, stride] = *triples.add(i);
        if stride == 0 {
            return Err((abi::err::ARG, "a range with stride 0".into()));
        }
        let mut r = first as i64;
        while (stride > 0 && r <= last as i64) || (stride < 0 && r >= last as i64) {
            if out.len() > g.len() {
                return Err((abi::err::RANK, "the ranges name a rank twice".into()));
            }
            out.push(r as c_int);
            r += stride as i64;
        }
    }
    Ok(out)
}

/// Stores a group made of `members` in `*out`.
unsafe fn store(c: &mut Client, members: Vec<u32>, out: *mut usize) {
    *out = c.new_group(members) as usize;
}

/// # Safety
/// `size` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Group_size(group: usize, size: *mut c_int) -> c_int {
    entry("MPI_Group_size", |c| {
        *size = c.group(group)?.len() as c_int;
        Ok(())
    })
}

/// # Safety
/// `rank` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Group_rank(group: usize, rank: *mut c_int) -> c_int {
    entry("MPI_Group_rank", |c| {
        *rank = place_in(&c.group(group)?, c.rank);
        Ok(())
    })
}

/// # Safety
/// `group` points to a group handle.
#[no_mangle]
pub unsafe extern "C" fn MPI_Group_free(group: *mut usize) -> c_int {
    entry("MPI_Group_free", |c| {
        c.group(*group)?;
        c.groups.remove(&(*group as u64));
        *group = abi::GROUP_NULL as usize;
        Ok(())
    })
}

/// # Safety
/// `ranks` holds `n` ranks; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Group_incl(group: usize, n: c_int, ranks: *const c_int, out: *mut usize) -> c_int {
    entry("MPI_Group_incl", |c| {
        let g = c.group(group)?;
        let m = picked(&g, n, ranks)?.into_iter().map(|i| g[i as usize]).collect();
        store(c, m, out);
        Ok(())
    })
}

/// # Safety
/// `ranks` holds `n` ranks; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Group_excl(group: usize, n: c_int, ranks: *const c_int, out: *mut usize) -> c_int {
    entry("MPI_Group_excl", |c| {
        let g = c.group(group)?;
        let gone = picked(&g, n, ranks)?;
        let m = (0..g.len() as u32)
            .filter(|i| !gone.contains(i))
            .map(|i| g[i as usize])
            .collect();
        store(c, m, out);
        Ok(())
    })
}

/// # Safety
/// `triples` holds `n` (first, last, stride) triples; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Group_range_incl(
    group: usize,
    n: c_int,
    triples: *const [c_int; 3],
    out: *mut usize,
) -> c_int {
    entry("MPI_Group_range_incl", |c| {
        let g = c.group(group)?;
        let r = ranges(&g, n, triples)?;
        let m = picked(&g, r.len() as c_int, r.as_ptr())?
            .into_iter()
            .map(|i| g[i as usize])
            .collect();
        store(c, m, out);
        Ok(())
    })
}

/// # Safety
/// `triples` holds `n` (first, last, stride) triples; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Group_range_excl(
    group: usize,
    n: c_int,
    triples: *const [c_int; 3],
    out: *mut usize,
) -> c_int {
    entry("MPI_Group_range_excl", |c| {
        let g = c.group(group)?;
        let r = ranges(&g, n, triples)?;
        let gone = picked(&g, r.len() as c_int, r.as_ptr())?;
        let m = (0..g.len() as u32)
            .filter(|i| !gone.contains(i))
            .map(|i| g[i as usize])
            .collect();
        store(c, m, out);
        Ok(())
    })
}

/// The set operations, in the order the standard defines: the first group's members
/// in its order, then (union) the second's that are new.
fn combine(a: &[u32], b: &[u32], op: SetOp) -> Vec<u32> {
    match op {
        SetOp::Union => {
            let mut m = a.to_vec();
            m.extend(b.iter().filter(|w| !a.contains(w)));
            m
        }
        SetOp::Intersection => a.iter().copied().filter(|w| b.contains(w)).collect(),
        SetOp::Difference => a.iter().copied().filter(|w| !b.contains(w)).collect(),
    }
}

#[derive(Clone, Copy)]
enum SetOp {
    Union,
    Intersection,
    Difference,
}

macro_rules! set_ops {
    ($($name:ident $op:expr;)*) => {$(
        /// # Safety
        /// `out` is writable.
        #[no_mangle]
        pub unsafe extern "C" fn $name(a: usize, b: usize, out: *mut usize) -> c_int {
            entry(stringify!($name), |c| {
                let m = combine(&c.group(a)?, &c.group(b)?, $op);
                store(c, m, out);
                Ok(())
            })
        }
    )*};
}
set_ops! {
    MPI_Group_union SetOp::Union;
    MPI_Group_intersection SetOp::Intersection;
    MPI_Group_difference SetOp::Difference;
}

/// # Safety
/// `ranks_a` holds `n` ranks of `a`; `ranks_b` is writable for `n`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Group_translate_ranks(
    a: usize,
    n: c_int,
    ranks_a: *const c_int,
    b: usize,
    ranks_b: *mut c_int,
) -> c_int {
    entry("MPI_Group_translate_ranks", |c| {
        let (ga, gb) = (c.group(a)?, c.group(b)?);
        if n < 0 {
            return Err((abi::err::ARG, format!("{n} ranks")));
        }
        for i in 0..n as usize {
            let r = *ranks_a.add(i);
            *ranks_b.add(i) = match r {
                abi::PROC_NULL => abi::PROC_NULL,
                r if r >= 0 && (r as usize) < ga.len() => place_in(&gb, ga[r as usize]),
                r => return Err((abi::err::RANK, format!("rank {r} is outside the group of {}", ga.len()))),
            };
        }
        Ok(())
    })
}

/// # Safety
/// `result` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Group_compare(a: usize, b: usize, result: *mut c_int) -> c_int {
    entry("MPI_Group_compare", |c| {
        *result = compare_members(&c.group(a)?, &c.group(b)?, IDENT);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations_keep_the_first_groups_order() {
        let (a, b) = ([5, 1, 3], [3, 7, 5]);
        assert_eq!(combine(&a, &b, SetOp::Union), vec![5, 1, 3, 7]);
        assert_eq!(combine(&a, &b, SetOp::Intersection), vec![5, 3]);
        assert_eq!(combine(&a, &b, SetOp::Difference), vec![1]);
    }

    #[test]
    fn ranges_walk_both_ways_and_refuse_repeats() {
        let g: Vec<u32> = (0..10).collect();
        // SAFETY: the triples live for the calls.
        unsafe {
            assert_eq!(
                ranges(&g, 2, [[0, 6, 3], [9, 7, -1]].as_ptr()).unwrap(),
                vec![0, 3, 6, 9, 8, 7]
            );
            assert!(ranges(&g, 1, [[0, 4, 0]].as_ptr()).is_err());
            let r = ranges(&g, 2, [[0, 2, 1], [2, 2, 1]].as_ptr()).unwrap();
            assert!(picked(&g, r.len() as c_int, r.as_ptr()).is_err());
        }
    }
}
