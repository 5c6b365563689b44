//! The few SVG elements the sweep's plots draw, written as text: a document that needs
//! no script, stylesheet or font file. Every text is escaped.

use std::fmt::Write;

/// An SVG document being written.
pub struct Svg {
    body: String,
    width: f64,
    height: f64,
}

/// `s` with XML's special characters escaped.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => o.push('\u{fffd}'),
            c => o.push(c),
        }
    }
    o
}

/// A coordinate with two decimals (enough on screen, and short).
fn n(x: f64) -> String {
    let r = (x * 100.0).round() / 100.0;
    if r == 0.0 {
        "0".into()
    } else {
        format!("{r}")
    }
}

/// Where a text is anchored.
#[derive(Copy, Clone)]
pub enum Anchor {
    /// At its start.
    Start,
    /// At its middle.
    Middle,
    /// At its end.
    End,
}

impl Svg {
    /// An empty drawing of `width` x `height` pixels on white.
    pub fn new(width: f64, height: f64) -> Svg {
        let mut s = Svg {
            body: String::new(),
            width,
            height,
        };
        s.rect(0.0, 0.0, width, height, "#ffffff", None);
        s
    }

    /// A rectangle filled with `fill`, with a tooltip.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, title: Option<&str>) {
        let _ = write!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}""#,
            n(x),
            n(y),
            n(w),
            n(h),
            escape(fill)
        );
        self.close("rect", title);
    }

    /// A straight line.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"/>"#,
            n(x1),
            n(y1),
            n(x2),
            n(y2),
            escape(stroke),
            n(width)
        );
    }

    /// A line through `points`.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str) {
        let pts: Vec<String> = points.iter().map(|(x, y)| format!("{},{}", n(*x), n(*y))).collect();
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
            pts.join(" "),
            escape(stroke)
        );
    }

    /// A dot, with a tooltip.
    pub fn circle(&mut self, x: f64, y: f64, r: f64, fill: &str, title: Option<&str>) {
        let _ = write!(
            self.body,
            r#"<circle cx="{}" cy="{}" r="{}" fill="{}""#,
            n(x),
            n(y),
            n(r),
            escape(fill)
        );
        self.close("circle", title);
    }

    /// A text in the default sans-serif font; `rotate` turns it by -90 degrees
    /// around its anchor (an axis title).
    pub fn text(&mut self, x: f64, y: f64, size: f64, anchor: Anchor, rotate: bool, s: &str) {
        let anchor = match anchor {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        };
        let turn = if rotate {
            format!(r#" transform="rotate(-90 {} {})""#, n(x), n(y))
        } else {
            String::new()
        };
        let _ = writeln!(
            self.body,
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="{anchor}"{turn}>{}</text>"#,
            n(x),
            n(y),
            n(size),
            escape(s)
        );
    }

    /// Ends the element `tag` being written, with a tooltip as its child.
    fn close(&mut self, tag: &str, title: Option<&str>) {
        match title {
            Some(t) => {
                let _ = writeln!(self.body, "><title>{}</title></{tag}>", escape(t));
            }
            None => self.body.push_str("/>\n"),
        }
    }

    /// The document.
    pub fn finish(self) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
             font-family=\"sans-serif\">\n{}</svg>\n",
            self.body,
            w = n(self.width),
            h = n(self.height)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        let mut s = Svg::new(10.0, 10.0);
        s.text(1.0, 2.0, 12.0, Anchor::Start, false, "</svg><script>");
        s.rect(0.0, 0.0, 1.0, 1.0, "red", Some("x<y"));
        s.circle(1.0, 1.0, 2.0, "blue", Some("c&d"));
        let doc = s.finish();
        assert!(!doc.contains("<script>"));
        assert!(doc.contains("&lt;/svg&gt;&lt;script&gt;"));
        assert!(doc.contains("<title>x&lt;y</title></rect>"));
        assert!(doc.contains("<title>c&amp;d</title></circle>"));
        assert_eq!(doc.matches("<svg").count(), 1);
        assert!(doc.ends_with("</svg>\n"));
    }
}
