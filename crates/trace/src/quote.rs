//! Pieces of the user's input in error messages: a token may be megabytes long (a
//! line without spaces), and a message should show what it starts with, not all of it.

/// The longest piece of an input token an error message quotes, in bytes.
pub const QUOTE_LIMIT: usize = 60;

/// `s` between quotes: whole if short, else its start and how long it was.
pub fn quote(s: &str) -> String {
    if s.len() <= QUOTE_LIMIT {
        return format!("'{s}'");
    }
    let mut end = QUOTE_LIMIT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("'{}...' ({} bytes)", &s[..end], s.len())
}

/// [`quote`] of bytes that may not be UTF-8 (invalid sequences shown as U+FFFD).
pub(crate) fn quote_bytes(b: &[u8]) -> String {
    if b.len() <= QUOTE_LIMIT {
        return quote(&String::from_utf8_lossy(b));
    }
    let head = String::from_utf8_lossy(&b[..QUOTE_LIMIT]);
    // The cut may split a character: drop a trailing replacement it made.
    let head = head.trim_end_matches('\u{FFFD}');
    format!("'{head}...' ({} bytes)", b.len())
}

/// The longest line a reader takes, in bytes: a file without line ends (`/dev/zero`,
/// a binary file) would otherwise be read into memory whole, or forever. A TIT line
/// of a vector collective over 2^24 ranks is about 200 MB.
pub(crate) const MAX_LINE: usize = 256 << 20;

/// The UTF-8 byte-order mark some editors write at the start of a text file.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue16_long_tokens_are_quoted_short() {
        assert_eq!(quote("abc"), "'abc'");
        let long = "x".repeat(2 << 20);
        let q = quote(&long);
        assert!(q.len() < 100, "{q}");
        assert!(q.ends_with("(2097152 bytes)"), "{q}");
        // A cut inside a multi-byte character backs off to its start.
        let wide = "é".repeat(100);
        let q = quote(&wide);
        assert!(q.starts_with("'éé") && q.ends_with("(200 bytes)"), "{q}");
        let q = quote_bytes(wide.as_bytes());
        assert!(q.starts_with("'éé") && !q.contains('\u{FFFD}'), "{q}");
        assert_eq!(quote_bytes(b"a\xffb"), "'a\u{FFFD}b'");
    }
}
