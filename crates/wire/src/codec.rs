//! Little-endian encoding of frames and their fields; every read checks its length.

use crate::WireError;
use std::io::{Read, Write};

/// The largest frame accepted (a message of 16 GiB): a corrupt length fails here
/// instead of asking for all the memory there is.
const MAX_FRAME: u64 = 1 << 34;

/// Builds a frame's body.
#[derive(Default)]
pub struct Writer(Vec<u8>);

impl Writer {
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
    /// The body.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
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
    /// Checks that nothing is left.
    pub fn end(&self) -> Result<(), WireError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(WireError(format!("{} bytes left over", self.rest.len())))
        }
    }
}

/// Writes `body` as one frame.
pub fn write_frame(w: &mut impl Write, body: &[u8]) -> std::io::Result<()> {
    w.write_all(&(body.len() as u64).to_le_bytes())?;
    w.write_all(body)?;
    w.flush()
}

/// Waits up to `spin` for `sock` to have data, polling without sleeping (and yielding
/// the CPU between polls), before a caller's blocking read: a round trip between a
/// rank and the simulator then costs no wake-up from sleep when the answer comes
/// quickly, which is most of what a blocking MPI call costs.
pub fn spin_until_readable(sock: &std::os::unix::net::UnixStream, spin: std::time::Duration) {
    use std::os::fd::AsRawFd;
    let fd = sock.as_raw_fd();
    let start = std::time::Instant::now();
    let mut byte = 0u8;
    loop {
        // SAFETY: a one-byte peek into a valid buffer on an open socket.
        let n = unsafe {
            libc::recv(
                fd,
                (&mut byte as *mut u8).cast(),
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        if n != -1 || start.elapsed() >= spin {
            return;
        }
        // SAFETY: sched_yield has no preconditions.
        unsafe { libc::sched_yield() };
    }
}

/// Reads one frame's body; `Ok(None)` at a clean end of stream (the peer closed).
pub fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 8];
    let mut got = 0;
    while got < 8 {
        match r.read(&mut len[got..])? {
            0 if got == 0 => return Ok(None),
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => got += n,
        }
    }
    let n = u64::from_le_bytes(len);
    if n > MAX_FRAME {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a frame of {n} bytes (more than {MAX_FRAME})"),
        ));
    }
    let mut body = vec![0u8; n as usize];
    r.read_exact(&mut body)?;
    Ok(Some(body))
}
