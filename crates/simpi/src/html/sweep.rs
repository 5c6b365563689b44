//! The page of a sweep (`simpi sweep --html`): what was swept and the fastest and
//! slowest points, the makespan plotted against each swept setting, one point's time
//! per rank, and the table of every point (sortable by any column in the browser).
//! The plots are the sweep's own SVGs ([`crate::sweep::plot`]), inlined.

use super::{escape, time, Page, Section};
use crate::sweep::plot::Plot;
use crate::sweep::Table;

/// What the page says about a sweep besides its table.
#[derive(Clone, Debug)]
pub struct SweepInfo {
    /// The page's title: the inputs or the pattern.
    pub title: String,
    /// Each swept setting (its flag name) and its values, in the grid's order.
    pub axes: Vec<(String, Vec<String>)>,
    /// The settings every point shares, as `name=value`.
    pub fixed: Vec<String>,
    /// The point whose time per rank is shown, as the sweep describes it.
    pub breakdown_point: String,
}

/// The page of a sweep: its `table`, the makespan `plots` and the per-rank
/// `breakdown` plot (an SVG document) of `info.breakdown_point`.
pub fn sweep_page<'a>(table: &'a Table, plots: &'a [Plot], breakdown: &'a str, info: &'a SweepInfo) -> Page<'a> {
    let mut page = Page::new(&info.title);
    page.push(Summary { table, info });
    page.push(Plots { plots });
    page.push(Breakdown { svg: breakdown, info });
    page.push(Points { table });
    page
}

/// An SVG document as an element of the page: without its XML declaration.
fn inline_svg(doc: &str) -> &str {
    match doc.find("<svg") {
        Some(i) => &doc[i..],
        None => doc,
    }
}

/// The row's cells: its input (if the table has inputs) and its swept values.
fn labels(table: &Table, row: usize) -> Vec<String> {
    let r = &table.rows[row];
    let mut v: Vec<String> = r.input.iter().cloned().collect();
    v.extend(table.columns.iter().zip(&r.values).map(|(c, v)| format!("{c}={v}")));
    v
}

struct Summary<'a> {
    table: &'a Table,
    info: &'a SweepInfo,
}

impl Section for Summary<'_> {
    fn id(&self) -> &str {
        "summary"
    }

    fn title(&self) -> &str {
        "Summary"
    }

    fn body(&self, out: &mut String) {
        let rows = &self.table.rows;
        let mut items = vec![("Points", format!("<span id=\"points\">{}</span>", rows.len()))];
        for (name, values) in &self.info.axes {
            let shown: Vec<String> = values.iter().map(|v| escape::text(v)).collect();
            items.push((
                "Swept",
                format!("<code>{}</code>: {}", escape::text(name), shown.join(", ")),
            ));
        }
        if !self.info.fixed.is_empty() {
            let shown: Vec<String> = self.info.fixed.iter().map(|f| escape::text(f)).collect();
            items.push(("Every point", format!("<code>{}</code>", shown.join(" "))));
        }
        // Ties go to the first point in grid order.
        let fastest = (0..rows.len()).min_by_key(|&i| (rows[i].makespan_ps, i));
        let slowest = (0..rows.len()).max_by_key(|&i| (rows[i].makespan_ps, std::cmp::Reverse(i)));
        for (what, id, at) in [("Fastest", "fastest", fastest), ("Slowest", "slowest", slowest)] {
            if let Some(i) = at {
                items.push((
                    what,
                    format!(
                        "<span id=\"{id}\">{}</span> at point {i} ({})",
                        time(rows[i].makespan_ps),
                        escape::text(&labels(self.table, i).join(", "))
                    ),
                ));
            }
        }
        out.push_str("<dl class=\"summary\">\n");
        for (name, value) in items {
            out.push_str(&format!("<dt>{name}</dt><dd>{value}</dd>\n"));
        }
        out.push_str("</dl>\n");
    }
}

struct Plots<'a> {
    plots: &'a [Plot],
}

impl Section for Plots<'_> {
    fn id(&self) -> &str {
        "sweep-plots"
    }

    fn title(&self) -> &str {
        "Makespan"
    }

    fn body(&self, out: &mut String) {
        out.push_str(
            "<p class=\"note\">The makespan against each swept setting; one line per combination of the other settings and input.</p>\n",
        );
        for p in self.plots {
            out.push_str(&format!(
                "<figure class=\"plot\" data-file=\"{}\">\n{}\n</figure>\n",
                escape::text(&p.file_name),
                inline_svg(&p.svg)
            ));
        }
    }
}

struct Breakdown<'a> {
    svg: &'a str,
    info: &'a SweepInfo,
}

impl Section for Breakdown<'_> {
    fn id(&self) -> &str {
        "sweep-breakdown"
    }

    fn title(&self) -> &str {
        "Time per rank"
    }

    fn body(&self, out: &mut String) {
        let described = &self.info.breakdown_point;
        out.push_str(&format!(
            "<p class=\"note\">Compute, communication, waiting and idle time of each rank at {} (another point with <code>--breakdown-point K</code>).</p>\n",
            escape::text(described)
        ));
        out.push_str(&format!(
            "<figure class=\"plot\">\n{}\n</figure>\n",
            inline_svg(self.svg)
        ));
    }
}

struct Points<'a> {
    table: &'a Table,
}

impl Section for Points<'_> {
    fn id(&self) -> &str {
        "sweep-table"
    }

    fn title(&self) -> &str {
        "Points"
    }

    fn body(&self, out: &mut String) {
        let t = self.table;
        out.push_str("<p class=\"note\">Click a column's heading to sort by it.</p>\n");
        out.push_str("<div class=\"scroll\"><table class=\"numbers\" id=\"points-table\">\n<thead><tr><th>point</th>");
        if t.has_input {
            out.push_str("<th>input</th>");
        }
        for c in &t.columns {
            out.push_str(&format!("<th>{}</th>", escape::text(c)));
        }
        out.push_str("<th>makespan</th><th>events</th></tr></thead>\n<tbody>\n");
        for (i, r) in t.rows.iter().enumerate() {
            out.push_str(&format!("<tr><td data-v=\"{i}\">{i}</td>"));
            if let Some(input) = &r.input {
                let input = escape::text(input);
                out.push_str(&format!("<td class=\"name\" data-v=\"{input}\">{input}</td>"));
            }
            for v in &r.values {
                let v = escape::text(v);
                out.push_str(&format!("<td data-v=\"{v}\">{v}</td>"));
            }
            out.push_str(&format!(
                "<td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td></tr>\n",
                r.makespan_ps,
                time(r.makespan_ps),
                r.events,
                r.events
            ));
        }
        out.push_str("</tbody></table></div>\n");
    }

    fn data(&self, out: &mut String) -> bool {
        // The script sorts what the body holds; it needs only to know the table is there.
        out.push_str(&format!("{{\"rows\":{}}}", self.table.rows.len()));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::table::Row;

    fn table() -> Table {
        let row = |v: &str, ps| Row {
            input: Some("a<b>.goal".into()),
            values: vec![v.into()],
            makespan_ps: ps,
            events: 7,
        };
        Table {
            has_input: true,
            columns: vec!["L".into()],
            rows: vec![row("1000", 4_154_000), row("2500", 5_654_000), row("500", 4_154_000)],
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_sweep_page_names_the_extremes_and_escapes_its_inputs() {
        let t = table();
        let plots = [Plot {
            file_name: "makespan-vs-L.svg".into(),
            svg: "<?xml version=\"1.0\"?>\n<svg id=\"p\"></svg>".into(),
        }];
        let info = SweepInfo {
            title: "a<b>.goal".into(),
            axes: vec![("L".into(), vec!["1000".into(), "2500".into(), "500".into()])],
            fixed: vec!["model=loggops".into()],
            breakdown_point: "point 1 (L=2500)".into(),
        };
        let html = sweep_page(&t, &plots, "<svg id=\"b\"></svg>", &info).render();
        // A tie goes to the first point in grid order.
        assert!(html.contains(&format!("<span id=\"fastest\">{}</span> at point 0", time(4_154_000))));
        assert!(html.contains(&format!("<span id=\"slowest\">{}</span> at point 1", time(5_654_000))));
        assert!(html.contains("<span id=\"points\">3</span>"));
        assert!(!html.contains("a<b>") && html.contains("a&lt;b&gt;.goal"));
        // The SVGs are inlined without their XML declarations.
        assert!(html.contains("<svg id=\"p\">") && html.contains("<svg id=\"b\">"));
        assert!(!html.contains("<?xml"));
        assert_eq!(html.matches("<tr><td data-v=").count(), 3);
        assert!(html.contains("{\"sweep-table\":{\"rows\":3}}"), "the script's data");
    }
}
