//! A page: a title and sections, filled into the template with the style sheet, the
//! script and the sections' data inlined, so the file needs nothing else to open.

use super::escape;

/// The page's skeleton; `{{name}}` marks where a part goes.
const TEMPLATE: &str = include_str!("page.html");
/// The style sheet, inlined.
const STYLE: &str = include_str!("report.css");
/// The script, inlined: it reads the sections' data and draws what needs drawing.
const SCRIPT: &str = include_str!("report.js");

/// One section of a page. The page lists it in its navigation, writes its body in a
/// `<section>` of id [`Section::id`], and puts its [`Section::data`] (if any) in the JSON
/// the script reads, under the same id; the script draws a section whose id it knows
/// (`initialisers` in `report.js`). A new kind of page (a sweep's table and plots) is new
/// sections, with a matching initialiser where they draw.
pub trait Section {
    /// The id of its element and of its data (letters, digits and `-`).
    fn id(&self) -> &str;
    /// Its heading.
    fn title(&self) -> &str;
    /// Appends its HTML. Anything that comes from an input goes through
    /// [`escape::text`].
    fn body(&self, out: &mut String);
    /// Appends its data as one JSON value (strings through [`escape::json_string`]) and
    /// returns true, or returns false when the script needs none.
    fn data(&self, _out: &mut String) -> bool {
        false
    }
}

/// A self-contained HTML page of sections.
pub struct Page<'a> {
    title: String,
    sections: Vec<Box<dyn Section + 'a>>,
}

impl<'a> Page<'a> {
    /// An empty page titled `title` (shown as text).
    pub fn new(title: &str) -> Page<'a> {
        Page {
            title: title.to_string(),
            sections: Vec::new(),
        }
    }

    /// Adds a section at the end.
    pub fn push(&mut self, s: impl Section + 'a) {
        self.sections.push(Box::new(s));
    }

    /// The whole page.
    pub fn render(&self) -> String {
        let mut nav = String::new();
        let mut body = String::new();
        let mut data = String::from("{");
        for s in &self.sections {
            let (id, title) = (escape::text(s.id()), escape::text(s.title()));
            nav.push_str(&format!("<a href=\"#{id}\">{title}</a>\n"));
            body.push_str(&format!("<section id=\"{id}\">\n<h2>{title}</h2>\n"));
            s.body(&mut body);
            body.push_str("</section>\n");
            let mark = data.len();
            if data.len() > 1 {
                data.push(',');
            }
            escape::json_string(&mut data, s.id());
            data.push(':');
            if !s.data(&mut data) {
                data.truncate(mark);
            }
        }
        data.push('}');
        fill(TEMPLATE, |key| match key {
            "title" => Some(escape::text(&self.title)),
            "style" => Some(STYLE.to_string()),
            "nav" => Some(nav.clone()),
            "sections" => Some(body.clone()),
            "data" => Some(data.clone()),
            "script" => Some(SCRIPT.to_string()),
            _ => None,
        })
    }
}

/// `template` with each `{{name}}` replaced by `part(name)` (kept when it gives none).
/// Parts are not searched again, so nothing they hold is taken for a marker.
fn fill(template: &str, part: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open..].find("}}") else { break };
        let name = &rest[open + 2..open + close];
        out.push_str(&rest[..open]);
        match part(name) {
            Some(p) => out.push_str(&p),
            None => out.push_str(&rest[open..open + close + 2]),
        }
        rest = &rest[open + close + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Plain(&'static str);

    impl Section for Plain {
        fn id(&self) -> &str {
            self.0
        }
        fn title(&self) -> &str {
            "A <b> title"
        }
        fn body(&self, out: &mut String) {
            out.push_str("<p>{{data}}</p>");
        }
        fn data(&self, out: &mut String) -> bool {
            if self.0 == "with" {
                out.push_str("[1,2]");
            }
            self.0 == "with"
        }
    }

    #[test]
    fn markers_are_filled_once() {
        let got = fill("a{{x}}b{{y}}c{{", |k| (k == "x").then(|| "{{y}}".to_string()));
        assert_eq!(got, "a{{y}}b{{y}}c{{");
    }

    #[test]
    fn sections_give_navigation_bodies_and_data() {
        let mut p = Page::new("t <i>");
        p.push(Plain("without"));
        p.push(Plain("with"));
        let html = p.render();
        assert!(html.contains("<title>simpi report: t &lt;i&gt;</title>"), "{html}");
        assert!(html.contains("<a href=\"#with\">A &lt;b&gt; title</a>"));
        assert!(html.contains("<section id=\"without\">"));
        // A body's text is not a marker; only sections with data are in the JSON.
        assert!(html.contains("<p>{{data}}</p>"));
        assert!(html.contains(">{\"with\":[1,2]}</script>"), "{html}");
    }

    #[test]
    fn the_inlined_style_and_script_cannot_end_their_element() {
        assert!(!STYLE.contains("</"));
        assert!(!SCRIPT.contains("</"));
        // Nothing is fetched: no address in the template, the style or the script.
        for text in [TEMPLATE, STYLE, SCRIPT] {
            assert!(!text.contains("http:") && !text.contains("https:") && !text.contains("//cdn"));
        }
    }
}
