//! Writes GOAL text, streaming, with generated labels (`l0`, `l1`, ... per rank).

use simpi_mpi::{ANY_SOURCE, ANY_TAG};
use std::io::{self, Write};

/// A label of an operation written in the current rank block.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Label(pub u32);

/// Streams a GOAL schedule to `W`. Ranks are written one block at a time; memory does
/// not grow with the schedule.
pub struct GoalWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    next_label: u32,
    in_rank: bool,
}

const FLUSH_AT: usize = 1 << 16;

impl<W: Write> GoalWriter<W> {
    /// Starts a schedule of `num_ranks` ranks.
    pub fn new(out: W, num_ranks: u32) -> io::Result<Self> {
        let mut w = GoalWriter {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 256),
            next_label: 0,
            in_rank: false,
        };
        w.buf.extend_from_slice(b"num_ranks ");
        push_u64(&mut w.buf, num_ranks as u64);
        w.buf.push(b'\n');
        Ok(w)
    }

    /// Opens the block of rank `r`.
    pub fn begin_rank(&mut self, r: u32) -> io::Result<()> {
        assert!(!self.in_rank, "begin_rank inside a rank");
        self.in_rank = true;
        self.next_label = 0;
        self.buf.extend_from_slice(b"\nrank ");
        push_u64(&mut self.buf, r as u64);
        self.buf.extend_from_slice(b" {\n");
        Ok(())
    }

    /// Closes the open rank block.
    pub fn end_rank(&mut self) -> io::Result<()> {
        assert!(self.in_rank, "end_rank outside a rank");
        self.in_rank = false;
        self.buf.extend_from_slice(b"}\n");
        self.maybe_flush()
    }

    /// Uses up the next label without writing an operation (for one left out, so that
    /// the labels of the rest stay their operations' positions).
    pub fn skip_label(&mut self) {
        self.next_label += 1;
    }

    fn label(&mut self) -> Label {
        let l = Label(self.next_label);
        self.next_label += 1;
        self.buf.push(b'l');
        push_u64(&mut self.buf, l.0 as u64);
        self.buf.extend_from_slice(b": ");
        l
    }

    /// `send <bytes>b to <to> tag <tag>` on CPU 0 and NIC 0.
    pub fn send(&mut self, bytes: u64, to: u32, tag: u32) -> io::Result<Label> {
        self.send_on(bytes, to, tag, 0, 0)
    }

    /// A send on a given CPU and NIC.
    pub fn send_on(&mut self, bytes: u64, to: u32, tag: u32, cpu: u8, nic: u8) -> io::Result<Label> {
        self.message(b"send ", b"b to ", bytes, to, tag, cpu, nic)
    }

    /// `recv <bytes>b from <from> tag <tag>` on CPU 0 and NIC 0 ([`ANY_SOURCE`] and
    /// [`ANY_TAG`] are written as -1).
    pub fn recv(&mut self, bytes: u64, from: u32, tag: u32) -> io::Result<Label> {
        self.recv_on(bytes, from, tag, 0, 0)
    }

    /// A receive on a given CPU and NIC.
    pub fn recv_on(&mut self, bytes: u64, from: u32, tag: u32, cpu: u8, nic: u8) -> io::Result<Label> {
        self.message(b"recv ", b"b from ", bytes, from, tag, cpu, nic)
    }

    #[allow(clippy::too_many_arguments)]
    fn message(
        &mut self,
        verb: &[u8],
        dir: &[u8],
        bytes: u64,
        peer: u32,
        tag: u32,
        cpu: u8,
        nic: u8,
    ) -> io::Result<Label> {
        let l = self.label();
        self.buf.extend_from_slice(verb);
        push_u64(&mut self.buf, bytes);
        self.buf.extend_from_slice(dir);
        push_wild(&mut self.buf, peer, ANY_SOURCE);
        self.buf.extend_from_slice(b" tag ");
        push_wild(&mut self.buf, tag, ANY_TAG);
        if cpu != 0 {
            self.buf.extend_from_slice(b" cpu ");
            push_u64(&mut self.buf, cpu as u64);
        }
        if nic != 0 {
            self.buf.extend_from_slice(b" nic ");
            push_u64(&mut self.buf, nic as u64);
        }
        self.buf.push(b'\n');
        self.maybe_flush()?;
        Ok(l)
    }

    /// `calc <time>` on CPU 0, in the schedule's time unit.
    pub fn calc(&mut self, time: u64) -> io::Result<Label> {
        self.calc_on(time, 0)
    }

    /// A computation on a given CPU.
    pub fn calc_on(&mut self, time: u64, cpu: u8) -> io::Result<Label> {
        let l = self.label();
        self.buf.extend_from_slice(b"calc ");
        push_u64(&mut self.buf, time);
        if cpu != 0 {
            self.buf.extend_from_slice(b" cpu ");
            push_u64(&mut self.buf, cpu as u64);
        }
        self.buf.push(b'\n');
        self.maybe_flush()?;
        Ok(l)
    }

    /// `a requires b`: `a` starts after `b` completes.
    pub fn requires(&mut self, a: Label, b: Label) -> io::Result<()> {
        self.dep(a, b"requires", b)
    }

    /// `a irequires b`: `a` starts after `b` has started.
    pub fn irequires(&mut self, a: Label, b: Label) -> io::Result<()> {
        self.dep(a, b"irequires", b)
    }

    fn dep(&mut self, a: Label, kw: &[u8], b: Label) -> io::Result<()> {
        self.buf.push(b'l');
        push_u64(&mut self.buf, a.0 as u64);
        self.buf.push(b' ');
        self.buf.extend_from_slice(kw);
        self.buf.extend_from_slice(b" l");
        push_u64(&mut self.buf, b.0 as u64);
        self.buf.push(b'\n');
        self.maybe_flush()
    }

    fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Flushes everything and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        assert!(!self.in_rank, "finish inside a rank");
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()?;
        Ok(self.out)
    }
}

fn push_wild(buf: &mut Vec<u8>, v: u32, wild: u32) {
    if v == wild {
        buf.extend_from_slice(b"-1");
    } else {
        push_u64(buf, v as u64);
    }
}

/// Appends the decimal form of `v` (faster than `write!` on hot paths).
fn push_u64(buf: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_thesis_example_shape() {
        let mut w = GoalWriter::new(Vec::new(), 2).unwrap();
        w.begin_rank(0).unwrap();
        let c = w.calc(100).unwrap();
        let s = w.send(10, 1, 0).unwrap();
        w.recv(10, ANY_SOURCE, ANY_TAG).unwrap();
        w.requires(s, c).unwrap();
        w.end_rank().unwrap();
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "num_ranks 2\n\nrank 0 {\nl0: calc 100\nl1: send 10b to 1 tag 0\nl2: recv 10b from -1 tag -1\nl1 requires l0\n}\n"
        );
    }

    #[test]
    fn formats_extreme_integers() {
        let mut b = Vec::new();
        push_u64(&mut b, 0);
        b.push(b' ');
        push_u64(&mut b, u64::MAX);
        assert_eq!(b, b"0 18446744073709551615");
    }
}
