//! Little-endian encoding of message bodies and their fields; every read checks its
//! length.

use crate::WireError;

/// Builds a frame's body.
#[derive(Default)]
pub struct Writer(Vec<u8>);

impl Writer {
    /// A writer into `buf`, emptied first: a buffer kept between messages keeps its
    /// allocation (a large body in a fresh one costs a page fault per 4 KiB).
    pub fn reusing(mut buf: Vec<u8>) -> Writer {
        buf.clear();
        Writer(buf)
    }
    /// Appends a byte.
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends an `i32`.
    pub fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a `u64`.
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a length and the bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    /// Appends a length and the `u64`s.
    pub fn u64s(&mut self, v: &[u64]) {
        self.u64(v.len() as u64);
        for x in v {
            self.u64(*x);
        }
    }
    /// Appends a length and the `u32`s.
    pub fn u32s(&mut self, v: &[u32]) {
        self.u64(v.len() as u64);
        for x in v {
            self.u32(*x);
        }
    }
    /// The body.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

/// Frees `buf` if it grew past 16 MiB: a kept buffer saves page faults on messages of
/// common sizes, but should not hold a rare huge one's memory for the rest of the run.
pub fn keep_small(buf: &mut Vec<u8>) {
    if buf.capacity() > 16 << 20 {
        *buf = Vec::new();
    }
}

/// Reads a frame's body.
pub struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader of `body`.
    pub fn new(body: &'a [u8]) -> Reader<'a> {
        Reader { rest: body }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.rest.len() < n {
            return Err(WireError(format!("{} bytes missing", n - self.rest.len())));
        }
        let (a, b) = self.rest.split_at(n);
        self.rest = b;
        Ok(a)
    }

    /// A byte.
    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }
    /// A `u32`.
    pub fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    /// An `i32`.
    pub fn i32(&mut self) -> Result<i32, WireError> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    /// A `u64`.
    pub fn u64(&mut self) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    /// A count of elements of at least `elem` bytes each, checked against what is left.
    pub fn len_of(&mut self, elem: usize) -> Result<usize, WireError> {
        let n = self.u64()?;
        if n > (self.rest.len() / elem.max(1)) as u64 {
            return Err(WireError(format!("{n} elements claimed, the frame cannot hold them")));
        }
        Ok(n as usize)
    }
    /// A length and that many bytes.
    pub fn bytes(&mut self) -> Result<Vec<u8>, WireError> {
        let n = self.len_of(1)?;
        Ok(self.take(n)?.to_vec())
    }
    /// A length and that many `u64`s.
    pub fn u64s(&mut self) -> Result<Vec<u64>, WireError> {
        let n = self.len_of(8)?;
        (0..n).map(|_| self.u64()).collect()
    }
    /// A length and that many `u32`s.
    pub fn u32s(&mut self) -> Result<Vec<u32>, WireError> {
        let n = self.len_of(4)?;
        (0..n).map(|_| self.u32()).collect()
    }
    /// Checks that nothing is left.
    pub fn end(&self) -> Result<(), WireError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(WireError(format!("{} bytes left over", self.rest.len())))
        }
    }
}
