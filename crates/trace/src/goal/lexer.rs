//! Splits one line of GOAL text into tokens on demand, tracking columns and `/* */`
//! comments that span lines. No allocation: tokens borrow the line.

use crate::quote::quote_bytes;

/// A token and the 1-based column where it starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tok<'a> {
    pub col: u32,
    pub kind: TokKind<'a>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokKind<'a> {
    /// An identifier or keyword.
    Word(&'a [u8]),
    /// A non-negative integer (None if it overflows u64).
    Int(Option<u64>),
    /// The literal `-1` (wildcard source or tag).
    MinusOne,
    /// `{`, `}` or `:`.
    Punct(u8),
    /// Any other byte, or a negative number other than -1.
    Bad(&'a [u8]),
}

impl TokKind<'_> {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            TokKind::Word(w) => quote_bytes(w),
            TokKind::Int(Some(n)) => format!("'{n}'"),
            TokKind::Int(None) => "a number too large".to_string(),
            TokKind::MinusOne => "'-1'".to_string(),
            TokKind::Punct(c) => format!("'{}'", *c as char),
            TokKind::Bad(b) => quote_bytes(b),
        }
    }
}

/// A cursor over the tokens of one line.
pub(crate) struct Lexer<'a> {
    line: &'a [u8],
    pos: usize,
    /// True while inside a `/* */` comment; carried from line to line by the caller.
    pub in_comment: bool,
    peeked: Option<Option<Tok<'a>>>,
}

impl<'a> Lexer<'a> {
    /// A cursor at the start of `line` (without its newline).
    pub fn new(line: &'a [u8], in_comment: bool) -> Self {
        Lexer {
            line,
            pos: 0,
            in_comment,
            peeked: None,
        }
    }

    /// The column just past the end of the line.
    pub fn eol(&self) -> u32 {
        self.line.len() as u32 + 1
    }

    /// The next token without consuming it.
    #[inline]
    pub fn peek(&mut self) -> Option<Tok<'a>> {
        if self.peeked.is_none() {
            self.peeked = Some(self.scan());
        }
        self.peeked.unwrap()
    }

    /// Consumes and returns the next token.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Tok<'a>> {
        match self.peeked.take() {
            Some(t) => t,
            None => self.scan(),
        }
    }

    /// The column of the next token, or of the end of the line.
    pub fn col(&mut self) -> u32 {
        let eol = self.eol();
        self.peek().map_or(eol, |t| t.col)
    }

    #[inline]
    fn scan(&mut self) -> Option<Tok<'a>> {
        let line = self.line;
        let n = line.len();
        let mut i = self.pos;
        loop {
            if self.in_comment {
                match find(&line[i..], b"*/") {
                    Some(k) => {
                        i += k + 2;
                        self.in_comment = false;
                    }
                    None => {
                        self.pos = n;
                        return None;
                    }
                }
            }
            if i >= n {
                self.pos = n;
                return None;
            }
            let c = line[i];
            let col = i as u32 + 1;
            let (kind, end) = match c {
                b' ' | b'\t' | b'\r' => {
                    i += 1;
                    continue;
                }
                b'/' if line.get(i + 1) == Some(&b'/') => {
                    self.pos = n;
                    return None;
                }
                b'/' if line.get(i + 1) == Some(&b'*') => {
                    self.in_comment = true;
                    i += 2;
                    continue;
                }
                b'{' | b'}' | b':' => (TokKind::Punct(c), i + 1),
                b'0'..=b'9' => {
                    let mut j = i;
                    let mut v: u64 = 0;
                    let mut ok = true;
                    while j < n && line[j].is_ascii_digit() {
                        let d = (line[j] - b'0') as u64;
                        match v.checked_mul(10).and_then(|v| v.checked_add(d)) {
                            Some(x) => v = x,
                            None => ok = false,
                        }
                        j += 1;
                    }
                    (TokKind::Int(ok.then_some(v)), j)
                }
                b'-' => {
                    let mut j = i + 1;
                    while j < n && line[j].is_ascii_digit() {
                        j += 1;
                    }
                    let text = &line[i..j];
                    (
                        if text == b"-1" {
                            TokKind::MinusOne
                        } else {
                            TokKind::Bad(text)
                        },
                        j,
                    )
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    let mut j = i + 1;
                    while j < n && (line[j].is_ascii_alphanumeric() || line[j] == b'_') {
                        j += 1;
                    }
                    (TokKind::Word(&line[i..j]), j)
                }
                _ => {
                    // One whole UTF-8 character, so the message shows what the user typed.
                    let len = utf8_len(c).min(n - i);
                    (TokKind::Bad(&line[i..i + len]), i + len)
                }
            };
            self.pos = end;
            return Some(Tok { col, kind });
        }
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &'static str, in_comment: bool) -> (Vec<TokKind<'static>>, bool) {
        let mut lx = Lexer::new(line.as_bytes(), in_comment);
        let mut v = Vec::new();
        while let Some(t) = lx.next() {
            v.push(t.kind);
        }
        (v, lx.in_comment)
    }

    #[test]
    fn splits_numbers_from_byte_suffix_and_labels_from_colons() {
        let (k, _) = kinds("l1: send 10b to -1 tag 7 // done", false);
        assert_eq!(
            k,
            vec![
                TokKind::Word(b"l1"),
                TokKind::Punct(b':'),
                TokKind::Word(b"send"),
                TokKind::Int(Some(10)),
                TokKind::Word(b"b"),
                TokKind::Word(b"to"),
                TokKind::MinusOne,
                TokKind::Word(b"tag"),
                TokKind::Int(Some(7)),
            ]
        );
    }

    #[test]
    fn block_comments_span_lines() {
        let (k, open) = kinds("calc 5 /* start", false);
        assert_eq!(k, vec![TokKind::Word(b"calc"), TokKind::Int(Some(5))]);
        assert!(open);
        assert_eq!(kinds("still comment", true), (vec![], true));
        assert_eq!(kinds("end */ }", true), (vec![TokKind::Punct(b'}')], false));
    }

    #[test]
    fn overflow_and_odd_bytes_are_tokens_not_panics() {
        let (k, _) = kinds("99999999999999999999999 -5 é", false);
        assert_eq!(k[0], TokKind::Int(None));
        assert_eq!(k[1], TokKind::Bad(b"-5"));
        assert_eq!(k[2], TokKind::Bad("é".as_bytes()));
    }

    #[test]
    fn peek_does_not_consume_and_columns_are_one_based() {
        let mut lx = Lexer::new(b"  rank 3 {", false);
        assert_eq!(lx.peek().unwrap().col, 3);
        assert_eq!(lx.next().unwrap().kind, TokKind::Word(b"rank"));
        assert_eq!(lx.col(), 8);
        lx.next();
        lx.next();
        assert_eq!(lx.col(), 11);
    }
}
