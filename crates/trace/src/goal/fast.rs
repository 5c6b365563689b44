//! A fast path for the statement shapes that make up nearly all of a large GOAL file
//! (`l7: send 8b to 3 tag 1`, `l7 requires l6`), parsed in one pass over the bytes.
//! Anything else — comments, braces, odd spacing, values needing an error message —
//! returns `None` and goes to the general parser, which gives the same result or the
//! error. `tests` checks the two agree on generated and mutated lines.

use simpi_mpi::{OpKind, ANY_SOURCE, ANY_TAG};

/// A statement recognised by the fast path.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fast<'a> {
    /// An operation; `peer` and `tag` may be the wildcards, `size` is in bytes or (for
    /// calc) in time units.
    Op {
        label: Option<&'a [u8]>,
        kind: OpKind,
        size: u64,
        peer: u32,
        tag: u32,
        cpu: u8,
        nic: u8,
    },
    /// `a requires b` or `a irequires b`.
    Dep { a: &'a [u8], b: &'a [u8], irequires: bool },
}

/// `-1` as read by [`Cur::number_or_wild`]; no literal reaches it (at most 18 digits).
const WILD: u64 = u64::MAX;

struct Cur<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    #[inline(always)]
    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }
    /// Skips one or more blanks; false if there were none.
    #[inline(always)]
    fn blanks(&mut self) -> bool {
        let start = self.i;
        while self.i < self.s.len() && (self.s[self.i] == b' ' || self.s[self.i] == b'\t') {
            self.i += 1;
        }
        self.i > start
    }
    #[inline(always)]
    fn ident(&mut self) -> Option<&'a [u8]> {
        let start = self.i;
        let s = self.s;
        if self.i < s.len() && (s[self.i].is_ascii_alphabetic() || s[self.i] == b'_') {
            self.i += 1;
            while self.i < s.len() && (s[self.i].is_ascii_alphanumeric() || s[self.i] == b'_') {
                self.i += 1;
            }
            Some(&s[start..self.i])
        } else {
            None
        }
    }
    /// Up to 18 digits (no overflow possible); longer numbers go to the general path.
    #[inline(always)]
    fn number(&mut self) -> Option<u64> {
        let start = self.i;
        let mut v = 0u64;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            v = v * 10 + (self.s[self.i] - b'0') as u64;
            self.i += 1;
            if self.i - start > 18 {
                return None;
            }
        }
        (self.i > start).then_some(v)
    }
    /// A number, or `-1` as [`WILD`].
    #[inline(always)]
    fn number_or_wild(&mut self) -> Option<u64> {
        if self.s[self.i..].starts_with(b"-1") && self.s.get(self.i + 2).is_none_or(|c| !c.is_ascii_digit()) {
            self.i += 2;
            return Some(WILD);
        }
        self.number()
    }
    #[inline(always)]
    fn word(&mut self, w: &[u8]) -> bool {
        if self.s[self.i..].starts_with(w) {
            let after = self.s.get(self.i + w.len());
            if after.is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_')) {
                self.i += w.len();
                return true;
            }
        }
        false
    }
}

/// Recognises one complete statement on `line`, or returns `None`.
#[inline]
pub(crate) fn fast_statement(line: &[u8]) -> Option<Fast<'_>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut c = Cur { s: line, i: 0 };
    c.blanks();
    let first = c.ident()?;
    if matches!(first, b"send" | b"recv" | b"calc") {
        return parse_op(&mut c, None, first);
    }
    let (label, verb) = if c.s.get(c.i) == Some(&b':') {
        c.i += 1;
        c.blanks();
        (Some(first), c.ident()?)
    } else {
        if !c.blanks() {
            return None;
        }
        let irequires = match c.ident()? {
            b"requires" => false,
            b"irequires" => true,
            _ => return None,
        };
        if !c.blanks() {
            return None;
        }
        let b = c.ident()?;
        c.blanks();
        return c.at_end().then_some(Fast::Dep { a: first, b, irequires });
    };
    parse_op(&mut c, label, verb)
}

#[inline(always)]
fn parse_op<'a>(c: &mut Cur<'a>, label: Option<&'a [u8]>, verb: &[u8]) -> Option<Fast<'a>> {
    let kind = match verb {
        b"send" => OpKind::Send,
        b"recv" => OpKind::Recv,
        b"calc" => OpKind::Calc,
        _ => return None,
    };
    if !c.blanks() {
        return None;
    }
    let size = c.number()?;
    let (mut peer, mut tag, mut cpu, mut nic) = (0u64, 0u64, 0u64, 0u64);
    if kind != OpKind::Calc {
        c.blanks();
        if !c.word(b"b") || !c.blanks() {
            return None;
        }
        let dir: &[u8] = if kind == OpKind::Send { b"to" } else { b"from" };
        if !c.word(dir) || !c.blanks() {
            return None;
        }
        peer = if kind == OpKind::Recv {
            c.number_or_wild()?
        } else {
            c.number()?
        };
    }
    // Options in the canonical order tag, cpu, nic, each at most once.
    let mut stage = 0;
    loop {
        let had_blank = c.blanks();
        if c.at_end() {
            break;
        }
        if !had_blank {
            return None;
        }
        if stage < 1 && kind != OpKind::Calc && c.word(b"tag") {
            c.blanks();
            tag = c.number_or_wild()?;
            stage = 1;
        } else if stage < 2 && c.word(b"cpu") {
            c.blanks();
            cpu = c.number()?;
            stage = 2;
        } else if stage < 3 && kind != OpKind::Calc && c.word(b"nic") {
            c.blanks();
            nic = c.number()?;
            stage = 3;
        } else {
            return None;
        }
    }
    // Literal values equal to the wildcards, and other out-of-range values, get the
    // general parser's error message.
    let peer = match peer {
        WILD => ANY_SOURCE,
        p if p < ANY_SOURCE as u64 => p as u32,
        _ => return None,
    };
    let tag = match tag {
        WILD => ANY_TAG,
        t if t < ANY_TAG as u64 => t as u32,
        _ => return None,
    };
    if cpu > 255 || nic > 255 {
        return None;
    }
    Some(Fast::Op {
        label,
        kind,
        size,
        peer,
        tag,
        cpu: cpu as u8,
        nic: nic as u8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_shapes_are_recognised() {
        assert_eq!(
            fast_statement(b"l12: send 4b to 5 tag 1"),
            Some(Fast::Op {
                label: Some(b"l12"),
                kind: OpKind::Send,
                size: 4,
                peer: 5,
                tag: 1,
                cpu: 0,
                nic: 0
            })
        );
        assert_eq!(
            fast_statement(b"  r: recv 10 b from -1 tag -1 cpu 2 nic 1\r"),
            Some(Fast::Op {
                label: Some(b"r"),
                kind: OpKind::Recv,
                size: 10,
                peer: ANY_SOURCE,
                tag: ANY_TAG,
                cpu: 2,
                nic: 1
            })
        );
        assert_eq!(
            fast_statement(b"calc 100 cpu 3"),
            Some(Fast::Op {
                label: None,
                kind: OpKind::Calc,
                size: 100,
                peer: 0,
                tag: 0,
                cpu: 3,
                nic: 0
            })
        );
        assert_eq!(
            fast_statement(b"l3 irequires l2"),
            Some(Fast::Dep {
                a: b"l3",
                b: b"l2",
                irequires: true
            })
        );
    }

    #[test]
    fn anything_unusual_goes_to_the_general_parser() {
        for line in [
            "l1: send 4b to 5 // comment",
            "l1: send 4b to -1",
            "calc 5 nic 1",
            "l1: send 4b to 5 cpu 1 tag 2",
            "l1: send 4b to 5 tag 1 tag 2",
            "l1: send 4bto 5",
            "l1: send 99999999999999999999b to 5",
            "l1: send 4b to 5 cpu 256",
            "l1: send 4b to 5 tag 4294967295",
            "rank 3 {",
            "}",
            "l1 requires l2 }",
            "l1 needs l2",
            "l1: jump 3",
            "",
        ] {
            assert_eq!(fast_statement(line.as_bytes()), None, "{line}");
        }
    }
}
