//! What a datatype is in memory: the contiguous pieces of one element (byte offset
//! from the element's start, length), its bounds, and the predefined type its data is
//! made of. Messages carry the pieces' bytes back to back ("packed"); a receiver
//! spreads them out with its own datatype.

use simpi_wire::abi;

/// The memory layout of a datatype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The pieces of one element, in type-map order; adjacent pieces are merged.
    pub blocks: Vec<(i64, u64)>,
    /// Bytes of data in one element.
    pub size: u64,
    /// Lower bound.
    pub lb: i64,
    /// Extent: where the next element starts, from this one's start.
    pub extent: i64,
    /// Lowest byte of data.
    pub true_lb: i64,
    /// Span from the lowest to one past the highest byte of data.
    pub true_extent: i64,
    /// The predefined datatype every piece is made of, if one is (reductions need it).
    pub base: Option<u64>,
    /// Predefined elements in one element of this type.
    pub elements: u64,
}

/// A layout that cannot be built: what is wrong.
pub type Bad = String;

impl Layout {
    /// A predefined datatype's layout.
    pub fn predefined(t: &abi::Datatype) -> Layout {
        Layout {
            blocks: if t.size > 0 { vec![(0, t.size)] } else { Vec::new() },
            size: t.size,
            lb: 0,
            extent: t.size as i64,
            true_lb: 0,
            true_extent: t.size as i64,
            base: Some(t.handle),
            elements: 1,
        }
    }

    /// Whether one element is one piece starting at its start with no gap before the
    /// next element (packing is one copy).
    pub fn is_contiguous(&self) -> bool {
        self.blocks.len() <= 1
            && self
                .blocks
                .first()
                .is_none_or(|&(o, l)| o == 0 && l as i64 == self.extent)
    }

    /// Copies of `parts`: `(displacement in bytes, count of elements, layout)`, each
    /// count of elements laid `layout.extent` apart from the displacement (the
    /// general constructor, MPI_Type_create_struct; the others reduce to it).
    pub fn combine(parts: &[(i64, u64, &Layout)]) -> Result<Layout, Bad> {
        let mut blocks: Vec<(i64, u64)> = Vec::new();
        let (mut size, mut elements) = (0u64, 0u64);
        let (mut lb, mut ub) = (i64::MAX, i64::MIN);
        let (mut tlb, mut tub) = (i64::MAX, i64::MIN);
        let mut base: Option<Option<u64>> = None;
        let overflow = || "the datatype's size or bounds overflow".to_string();
        for &(disp, count, t) in parts {
            if count == 0 {
                continue;
            }
            base = Some(match base {
                None => t.base,
                Some(b) if b == t.base => b,
                Some(_) => None,
            });
            size = count
                .checked_mul(t.size)
                .and_then(|s| s.checked_add(size))
                .ok_or_else(overflow)?;
            elements = count
                .checked_mul(t.elements)
                .and_then(|s| s.checked_add(elements))
                .ok_or_else(overflow)?;
            if blocks.len() as u64 + count.saturating_mul(t.blocks.len() as u64) > MAX_PIECES {
                return Err(format!("the datatype has more than {MAX_PIECES} separate pieces"));
            }
            let last = (count as i64 - 1)
                .checked_mul(t.extent)
                .and_then(|x| x.checked_add(disp));
            let last = last.ok_or_else(overflow)?;
            // Bounds of the first and the last copy (the extent may be negative).
            for at in [disp, last] {
                lb = lb.min(at.checked_add(t.lb).ok_or_else(overflow)?);
                ub = ub.max(at.checked_add(t.lb + t.extent).ok_or_else(overflow)?);
                if t.size > 0 {
                    tlb = tlb.min(at.checked_add(t.true_lb).ok_or_else(overflow)?);
                    tub = tub.max(at.checked_add(t.true_lb + t.true_extent).ok_or_else(overflow)?);
                }
            }
            for k in 0..count as i64 {
                let at = disp + k * t.extent;
                for &(o, l) in &t.blocks {
                    push(&mut blocks, at + o, l);
                }
            }
        }
        if lb == i64::MAX {
            (lb, ub) = (0, 0);
        }
        if tlb == i64::MAX {
            (tlb, tub) = (0, 0);
        }
        Ok(Layout {
            blocks,
            size,
            lb,
            extent: ub - lb,
            true_lb: tlb,
            true_extent: tub - tlb,
            base: base.flatten(),
            elements,
        })
    }

    /// `count` blocks of `blocklen` elements of `t`, `stride` bytes apart
    /// (MPI_Type_create_hvector; vector and contiguous are special cases).
    pub fn hvector(count: u64, blocklen: u64, stride: i64, t: &Layout) -> Result<Layout, Bad> {
        if count.saturating_mul(blocklen) > MAX_PIECES {
            return Err(format!("more than {MAX_PIECES} elements in one datatype element"));
        }
        let parts: Vec<(i64, u64, &Layout)> = (0..count as i64).map(|i| (i * stride, blocklen, t)).collect();
        Layout::combine(&parts)
    }

    /// The same data with bounds `lb` and `extent` (MPI_Type_create_resized).
    pub fn resized(&self, lb: i64, extent: i64) -> Layout {
        Layout {
            lb,
            extent,
            ..self.clone()
        }
    }

    /// The bytes of `count` elements at `buf`, packed.
    ///
    /// # Safety
    /// `buf` holds `count` elements of this layout.
    pub unsafe fn pack(&self, buf: *const u8, count: u64) -> Result<Vec<u8>, Bad> {
        let total = self.size.checked_mul(count).ok_or("the message's size overflows")?;
        if total == 0 {
            return Ok(Vec::new());
        }
        if buf.is_null() && self.true_lb == 0 {
            return Err(format!("a null buffer for {total} bytes"));
        }
        if self.is_contiguous() {
            return Ok(std::slice::from_raw_parts(buf, total as usize).to_vec());
        }
        let mut out = Vec::with_capacity(total as usize);
        for i in 0..count as i64 {
            let at = buf.wrapping_offset((i * self.extent) as isize);
            for &(o, l) in &self.blocks {
                out.extend_from_slice(std::slice::from_raw_parts(at.wrapping_offset(o as isize), l as usize));
            }
        }
        Ok(out)
    }

    /// Spreads packed `data` over elements at `buf` (at most `count` of them); more
    /// data than they hold is MPI_ERR_TRUNCATE's message, returned as an error.
    ///
    /// # Safety
    /// `buf` holds `count` elements of this layout.
    pub unsafe fn unpack(&self, buf: *mut u8, count: u64, data: &[u8]) -> Result<(), Bad> {
        let room = self.size.saturating_mul(count);
        if data.len() as u64 > room {
            return Err(format!(
                "a message of {} bytes arrived in a buffer of {room}",
                data.len()
            ));
        }
        if data.is_empty() {
            return Ok(());
        }
        if self.is_contiguous() {
            std::ptr::copy_nonoverlapping(data.as_ptr(), buf, data.len());
            return Ok(());
        }
        let mut rest = data;
        'elements: for i in 0..count as i64 {
            let at = buf.wrapping_offset((i * self.extent) as isize);
            for &(o, l) in &self.blocks {
                let n = (l as usize).min(rest.len());
                std::ptr::copy_nonoverlapping(rest.as_ptr(), at.wrapping_offset(o as isize), n);
                rest = &rest[n..];
                if rest.is_empty() {
                    break 'elements;
                }
            }
        }
        Ok(())
    }
}

/// Pieces one datatype element may have (a bound on the memory a mistaken
/// constructor may take).
pub const MAX_PIECES: u64 = 1 << 26;

/// Appends piece (`at`, `len`), merging it with the last if they touch.
fn push(blocks: &mut Vec<(i64, u64)>, at: i64, len: u64) {
    if len == 0 {
        return;
    }
    if let Some(last) = blocks.last_mut() {
        if last.0 + last.1 as i64 == at {
            last.1 += len;
            return;
        }
    }
    blocks.push((at, len));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn double() -> Layout {
        Layout::predefined(abi::datatype(abi::DOUBLE).unwrap())
    }

    #[test]
    fn a_vector_has_its_blocks_its_extent_and_packs_them() {
        // 3 blocks of 2 doubles, 4 doubles apart: 6 doubles of data, extent from the
        // first to the end of the last block = (2*4 + 2) doubles.
        let d = double();
        let v = Layout::hvector(3, 2, 32, &d).unwrap();
        assert_eq!(v.blocks, vec![(0, 16), (32, 16), (64, 16)]);
        assert_eq!((v.size, v.lb, v.extent, v.elements), (48, 0, 80, 6));
        assert_eq!(v.base, Some(abi::DOUBLE));
        let buf: Vec<f64> = (0..12).map(f64::from).collect();
        // SAFETY: `buf` holds 12 doubles, the vector spans 10.
        let packed = unsafe { v.pack(buf.as_ptr() as *const u8, 1) }.unwrap();
        let got: Vec<f64> = packed
            .chunks(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(got, vec![0.0, 1.0, 4.0, 5.0, 8.0, 9.0]);
        let mut back = vec![-1.0f64; 12];
        // SAFETY: as above.
        unsafe { v.unpack(back.as_mut_ptr() as *mut u8, 1, &packed) }.unwrap();
        assert_eq!(&back[..6], &[0.0, 1.0, -1.0, -1.0, 4.0, 5.0]);
    }

    #[test]
    fn contiguous_runs_merge_and_a_struct_mixes_bases() {
        let d = double();
        let c = Layout::hvector(4, 1, 8, &d).unwrap();
        assert!(c.is_contiguous());
        let i = Layout::predefined(abi::datatype(abi::INT).unwrap());
        // { int at 0, double at 8 }: 12 bytes of data, extent 16, no single base.
        let s = Layout::combine(&[(0, 1, &i), (8, 1, &d)]).unwrap();
        assert_eq!((s.size, s.extent, s.base, s.blocks.len()), (12, 16, None, 2));
        // Resized to extent 24: two elements are 24 bytes apart.
        let r = s.resized(0, 24);
        let two = Layout::hvector(2, 1, r.extent, &r).unwrap();
        assert_eq!(two.blocks, vec![(0, 4), (8, 8), (24, 4), (32, 8)]);
    }

    #[test]
    fn a_negative_stride_moves_the_lower_bound_and_truncation_is_refused() {
        let d = double();
        let v = Layout::hvector(2, 1, -16, &d).unwrap();
        assert_eq!((v.lb, v.extent, v.true_lb, v.true_extent), (-16, 24, -16, 24));
        let mut one = 0.0f64;
        // SAFETY: the buffer holds one double.
        let e = unsafe { d.unpack(&mut one as *mut f64 as *mut u8, 1, &[0; 16]) }.unwrap_err();
        assert!(e.contains("16 bytes arrived in a buffer of 8"), "{e}");
    }
}
