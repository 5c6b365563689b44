//! Escaping what comes from inputs (file names, call names) so that it stays text: in
//! HTML text and attribute values, and in the JSON the page's script reads.

use std::fmt::Write as _;

/// `s` as HTML text or a quoted attribute value: `&`, `<`, `>`, `"` and `'` become
/// character references, so nothing in `s` can open a tag or end an attribute.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Appends `s` as a JSON string literal that is safe inside a `<script>` element: quotes,
/// backslashes and control characters are escaped as JSON requires, and `<`, `>`, `&`,
/// U+2028 and U+2029 as `\uXXXX`, so the text can hold no `</script>` or `<!--` and
/// parses the same as JavaScript.
pub fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_text_cannot_open_a_tag_or_end_an_attribute() {
        assert_eq!(
            text(r#"<img src=x onerror="alert('1')">&amp;"#),
            "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;amp;"
        );
        assert_eq!(text("plain é"), "plain é");
    }

    #[test]
    fn json_strings_cannot_end_the_script() {
        let mut out = String::new();
        json_string(&mut out, "</script><!--\"\\\n\t\u{2028}é");
        assert_eq!(out, r#""\u003c/script\u003e\u003c!--\"\\\n\u0009\u2028é""#);
        assert!(!out.contains('<') && !out.contains('>'));
    }
}
