//! Splits one line of GOAL text into tokens, tracking columns and `/* */` comments that
//! span lines.

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
            TokKind::Word(w) => format!("'{}'", String::from_utf8_lossy(w)),
            TokKind::Int(Some(n)) => format!("'{n}'"),
            TokKind::Int(None) => "a number too large".to_string(),
            TokKind::MinusOne => "'-1'".to_string(),
            TokKind::Punct(c) => format!("'{}'", *c as char),
            TokKind::Bad(b) => format!("'{}'", String::from_utf8_lossy(b)),
        }
    }
}

/// Tokenizes lines, remembering whether a block comment is still open.
#[derive(Default)]
pub(crate) struct Lexer {
    in_block_comment: bool,
}

impl Lexer {
    /// True if a `/*` comment was opened and not closed.
    pub fn in_block_comment(&self) -> bool {
        self.in_block_comment
    }

    /// Appends the tokens of `line` (without its newline) to `out`.
    pub fn tokens<'a>(&mut self, line: &'a [u8], out: &mut Vec<Tok<'a>>) {
        out.clear();
        let n = line.len();
        let mut i = 0;
        while i < n {
            if self.in_block_comment {
                match find(&line[i..], b"*/") {
                    Some(k) => {
                        i += k + 2;
                        self.in_block_comment = false;
                        continue;
                    }
                    None => return,
                }
            }
            let c = line[i];
            let col = i as u32 + 1;
            match c {
                b' ' | b'\t' | b'\r' => i += 1,
                b'/' if line.get(i + 1) == Some(&b'/') => return,
                b'/' if line.get(i + 1) == Some(&b'*') => {
                    self.in_block_comment = true;
                    i += 2;
                }
                b'{' | b'}' | b':' => {
                    out.push(Tok {
                        col,
                        kind: TokKind::Punct(c),
                    });
                    i += 1;
                }
                b'0'..=b'9' => {
                    let start = i;
                    let mut v: Option<u64> = Some(0);
                    while i < n && line[i].is_ascii_digit() {
                        v = v
                            .and_then(|v| v.checked_mul(10))
                            .and_then(|v| v.checked_add((line[i] - b'0') as u64));
                        i += 1;
                    }
                    let _ = start;
                    out.push(Tok {
                        col,
                        kind: TokKind::Int(v),
                    });
                }
                b'-' => {
                    let start = i;
                    i += 1;
                    while i < n && line[i].is_ascii_digit() {
                        i += 1;
                    }
                    let text = &line[start..i];
                    let kind = if text == b"-1" {
                        TokKind::MinusOne
                    } else {
                        TokKind::Bad(text)
                    };
                    out.push(Tok { col, kind });
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    let start = i;
                    while i < n && (line[i].is_ascii_alphanumeric() || line[i] == b'_') {
                        i += 1;
                    }
                    out.push(Tok {
                        col,
                        kind: TokKind::Word(&line[start..i]),
                    });
                }
                _ => {
                    // One whole UTF-8 character, so the message shows what the user typed.
                    let len = utf8_len(c).min(n - i);
                    out.push(Tok {
                        col,
                        kind: TokKind::Bad(&line[i..i + len]),
                    });
                    i += len;
                }
            }
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

    fn kinds(line: &str, lx: &mut Lexer) -> Vec<TokKind<'static>> {
        let line: &'static [u8] = Box::leak(line.as_bytes().to_vec().into_boxed_slice());
        let mut v = Vec::new();
        lx.tokens(line, &mut v);
        v.into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn splits_numbers_from_byte_suffix_and_labels_from_colons() {
        let mut lx = Lexer::default();
        let k = kinds("l1: send 10b to -1 tag 7 // done", &mut lx);
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
        let mut lx = Lexer::default();
        assert_eq!(
            kinds("calc 5 /* start", &mut lx),
            vec![TokKind::Word(b"calc"), TokKind::Int(Some(5))]
        );
        assert!(lx.in_block_comment());
        assert_eq!(kinds("still comment", &mut lx), vec![]);
        assert_eq!(kinds("end */ }", &mut lx), vec![TokKind::Punct(b'}')]);
    }

    #[test]
    fn overflow_and_odd_bytes_are_tokens_not_panics() {
        let mut lx = Lexer::default();
        let k = kinds("99999999999999999999999 -5 é", &mut lx);
        assert_eq!(k[0], TokKind::Int(None));
        assert_eq!(k[1], TokKind::Bad(b"-5"));
        assert_eq!(k[2], TokKind::Bad("é".as_bytes()));
    }
}
