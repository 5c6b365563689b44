//! A look at an XML text before it is parsed: the parser descends one level of recursion
//! per element, so a file nesting elements thousands deep would overflow the stack, and
//! entities could expand into more nesting or into gigabytes of text. The scan counts
//! element depth (skipping comments, CDATA, processing instructions and the DOCTYPE) and
//! refuses entity declarations, which no platform needs.

/// The deepest element nesting accepted: zones nest at most
/// [`crate::model::MAX_ZONE_DEPTH`] deep, plus the few levels of elements inside them.
pub const MAX_ELEMENT_DEPTH: usize = crate::model::MAX_ZONE_DEPTH as usize + 16;

/// Where the text goes wrong: (1-based line, message).
pub type ScanError = (u32, String);

fn line_of(text: &[u8], at: usize) -> u32 {
    text[..at.min(text.len())].iter().filter(|&&b| b == b'\n').count() as u32 + 1
}

/// The index just past the first `pat` at or after `from` (the end if none).
fn after(t: &[u8], from: usize, pat: &[u8]) -> usize {
    t[from.min(t.len())..]
        .windows(pat.len())
        .position(|w| w == pat)
        .map_or(t.len(), |i| from + i + pat.len())
}

/// The index just past the `>` closing the markup that starts at `from`, skipping
/// quoted values (and, for the DOCTYPE, its bracketed internal subset).
fn tag_end(t: &[u8], from: usize) -> usize {
    let (mut i, mut quote, mut brackets) = (from, 0u8, 0usize);
    while i < t.len() {
        let c = t[i];
        if quote != 0 {
            if c == quote {
                quote = 0;
            }
        } else {
            match c {
                b'"' | b'\'' => quote = c,
                b'[' => brackets += 1,
                b']' => brackets = brackets.saturating_sub(1),
                b'>' if brackets == 0 => return i + 1,
                _ => {}
            }
        }
        i += 1;
    }
    t.len()
}

/// Checks `text`'s element depth and entity declarations.
pub fn scan(text: &str) -> Result<(), ScanError> {
    let t = text.as_bytes();
    let (mut i, mut depth) = (0usize, 0usize);
    while i < t.len() {
        if t[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &t[i..];
        if rest.starts_with(b"<!--") {
            i = after(t, i + 4, b"-->");
        } else if rest.starts_with(b"<![CDATA[") {
            i = after(t, i + 9, b"]]>");
        } else if rest.starts_with(b"<?") {
            i = after(t, i + 2, b"?>");
        } else if rest.starts_with(b"<!") {
            let end = tag_end(t, i + 2);
            if t[i..end].windows(8).any(|w| w == b"<!ENTITY") {
                return Err((
                    line_of(t, i),
                    "entity declarations are not supported in platform files".into(),
                ));
            }
            i = end;
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            i = tag_end(t, i + 2);
        } else {
            let end = tag_end(t, i + 1);
            let self_closing = end >= 2 && t[end - 1] == b'>' && t[end - 2] == b'/';
            if !self_closing {
                depth += 1;
                if depth > MAX_ELEMENT_DEPTH {
                    return Err((
                        line_of(t, i),
                        format!("elements are nested more than {MAX_ELEMENT_DEPTH} deep"),
                    ));
                }
            }
            i = end;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_counted_past_comments_and_quotes() {
        assert!(scan("<a><!-- <b><b><b> --><c x='>' y=\"<d>\"/><e></e></a>").is_ok());
        let deep = "<a>".repeat(MAX_ELEMENT_DEPTH + 1);
        assert_eq!(scan(&deep).unwrap_err().0, 1);
        let ok = format!(
            "{}{}",
            "<a>\n".repeat(MAX_ELEMENT_DEPTH),
            "</a>".repeat(MAX_ELEMENT_DEPTH)
        );
        assert!(scan(&ok).is_ok());
        let e = scan("<?xml version='1.0'?>\n<!DOCTYPE p [\n<!ENTITY e \"<a>\">\n]>\n<p/>").unwrap_err();
        assert_eq!(e.0, 2);
        assert!(scan("<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<p/>").is_ok());
    }
}
