//! `simpi replay --html` (issue 20, item 4) in a real browser: headless Chromium (from
//! the distribution; scripts/setup installs it) opens each page, runs its script and
//! dumps the resulting DOM. A page must load without console errors, set the marker its
//! script sets when it has finished, and show the expected elements with values derived
//! independently (by hand from LogGOPS's rules for examples/thesis.goal, from SimGrid's
//! own replay time and the trace's lines for an OSU trace).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

/// An empty directory for one test.
fn workdir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("html-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn simpi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpi")).args(args).output().unwrap()
}

/// What Chromium made of a page: the DOM after its scripts ran, and its log.
struct Browsed {
    dom: String,
    log: String,
}

/// Opens `page` in headless Chromium with a fresh profile and no network, and dumps its
/// DOM. Chromium is killed after two minutes.
fn browse(page: &Path, dir: &Path) -> Browsed {
    let found = Command::new("sh")
        .args(["-c", "command -v chromium"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "chromium is not installed: run scripts/setup (or apt-get install chromium)"
    );
    let profile = dir.join(format!("profile-{}", page.file_name().unwrap().to_string_lossy()));
    let _ = std::fs::remove_dir_all(&profile);
    let mut child = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    // Read both pipes while it runs (a full pipe would stall it).
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).unwrap();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).unwrap();
        s
    });
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish with {} in two minutes", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(&profile);
    Browsed {
        dom: out.join().unwrap(),
        log: err.join().unwrap(),
    }
}

impl Browsed {
    /// The page's script errors and console messages, from Chromium's log.
    fn console(&self) -> Vec<&str> {
        self.log
            .lines()
            .filter(|l| l.contains("Uncaught") || l.contains(":CONSOLE"))
            .collect()
    }

    /// Fails unless the page loaded without console errors and its script finished.
    fn assert_clean(&self, what: &str) {
        assert!(self.console().is_empty(), "{what}: {:?}", self.console());
        assert!(
            self.dom.contains("data-simpi-ready=\"yes\""),
            "{what}: the page's script did not finish\n{}",
            &self.dom[..self.dom.len().min(2000)]
        );
        assert!(
            self.dom.contains("<p id=\"script-error\" class=\"error\" hidden=\"\">"),
            "{what}: the page shows a script error"
        );
    }

    /// The text of the element that starts with `open` up to `close`.
    fn element(&self, open: &str, close: &str) -> &str {
        let start = self.dom.find(open).unwrap_or_else(|| panic!("no {open} in the page"));
        let len = self.dom[start..].find(close).expect("element closed");
        &self.dom[start..start + len]
    }
}

/// Replays `args` with `--html page` and opens the page.
fn report(dir: &Path, name: &str, args: &[&str]) -> (Browsed, u64) {
    let page = dir.join(name);
    let mut all = vec!["replay"];
    all.extend(args);
    all.extend(["--html", page.to_str().unwrap()]);
    let out = simpi(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let size = std::fs::metadata(&page).unwrap().len();
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing to fetch.
    for needle in ["src=", "href=\"http", "@import", "url("] {
        assert!(!html.contains(needle), "{name} refers to {needle}");
    }
    (browse(&page, dir), size)
}

#[test]
fn thesis_report_shows_hand_derived_values() {
    let dir = workdir("thesis");
    let (b, _) = report(&dir, "thesis.html", &[repo("examples/thesis.goal").to_str().unwrap()]);
    b.assert_clean("thesis");
    // LogGOPS, LogGOPSim's defaults (ns): each rank computes 0..100, sends 100..1600
    // (o = 1500); the other's message can be taken in at 100 + 1500 + 2500 = 4100 and
    // the receive, posted at 0, ends at 4100 + 1500 + 6·9 = 5654 on both ranks.
    assert!(b.dom.contains("<span id=\"makespan\">5.654000 us</span>"), "makespan");
    assert!(b.dom.contains("(ranks 0 and 1 finish last, together)"));
    // The per-call table: two of each, with those durations.
    let calls = b.element("<table id=\"calls-table\"", "</table>");
    for row in [
        "<td class=\"name\">recv</td><td>2</td><td>11.308000 us</td><td>5.654000 us</td><td>5.654000 us</td>",
        "<td class=\"name\">send</td><td>2</td><td>3.000000 us</td><td>1.500000 us</td><td>1.500000 us</td>",
        "<td class=\"name\">compute</td><td>2</td><td>200.000 ns</td><td>100.000 ns</td><td>100.000 ns</td>",
    ] {
        assert!(calls.contains(row), "{row}\n{calls}");
    }
    // The rows the script built: rank 0 computes 0..100, moves data 100..1600 (its
    // send, over its waiting receive) and 4100..5654, and waits 1600..4100.
    let ranks = b.element("<table id=\"breakdown-ranks\"", "</table>");
    assert_eq!(ranks.matches("<tr>").count(), 3, "a header and two ranks: {ranks}");
    assert!(
        ranks.contains(
            "<tr><td>0</td><td>5.654000 us</td><td>100.000 ns</td><td>3.054000 us</td><td>2.500000 us</td><td>0.000 ns</td>"
        ),
        "{ranks}"
    );
    // The critical path from rank 0 (the lower of the two): its receive waited for rank
    // 1's message, sent after rank 1's compute.
    assert!(b.dom.contains("<span id=\"critical-ranks\">0, 1</span>"));
    let steps = b.element("<ol id=\"critical-steps\">", "</ol>");
    let items: Vec<&str> = steps.split("<li").skip(1).collect();
    assert_eq!(items.len(), 3, "{steps}");
    assert!(items[0].contains("rank 1</span> <b>compute</b>") && items[0].contains("0.000 ns to 100.000 ns"));
    assert!(items[1].contains("rank 1</span> <b>send</b>") && items[1].contains("100.000 ns to 1.600000 us"));
    assert!(items[2].contains("rank 0</span> <b>recv</b>") && items[2].contains("1.600000 us to 5.654000 us"));
    assert!(items[2].contains("after a message of 10 B from rank 1"));
    // The timeline: a canvas, the two lanes each rank needs (its receive overlaps its
    // compute and send), a message each way, the path's three steps.
    assert!(b.dom.contains("<canvas id=\"timeline-canvas\""));
    assert!(
        b.dom
            .contains("6 spans on 2 ranks (4 lanes), 2 messages and 3 critical-path steps loaded"),
        "{}",
        b.element("<p class=\"note\" id=\"timeline-status\"", "</p>")
    );
}

/// A script appended to a page: it zooms, drags, resets, hovers a span and clicks a
/// critical-path step as a user would (events on the canvas and the window, each after
/// the page has drawn the last), and writes what the page showed after each into
/// `<pre id="probe">`, one line each.
const PROBE: &str = r#"<script>
(function () {
  var c = document.getElementById('timeline-canvas');
  var range = document.getElementById('timeline-range');
  var tip = document.getElementById('timeline-tip');
  var out = document.createElement('pre');
  out.id = 'probe';
  var log = [];
  var b = c.getBoundingClientRect();
  // The thesis run shown whole: x of time t (ns) with the page's margins (72 px left,
  // 12 px right) and its 2 % of room after the makespan.
  var xOf = function (t) { return b.left + 72 + t / (5654 * 1.02) * (b.width - 84); };
  var steps = [
    function () { c.dispatchEvent(new WheelEvent('wheel', { deltaY: -500, clientX: b.left + b.width / 2, clientY: b.top + 30, bubbles: true, cancelable: true })); },
    function () {
      c.dispatchEvent(new MouseEvent('mousedown', { clientX: b.left + 300, clientY: b.top + 30, bubbles: true }));
      window.dispatchEvent(new MouseEvent('mousemove', { clientX: b.left + 100, clientY: b.top + 30, bubbles: true }));
      window.dispatchEvent(new MouseEvent('mouseup', { bubbles: true }));
    },
    function () { c.dispatchEvent(new MouseEvent('dblclick', { bubbles: true })); },
    function () { c.dispatchEvent(new MouseEvent('mousemove', { clientX: xOf(850), clientY: b.top + 22 + 8, bubbles: true })); },
    function () { document.querySelector('#critical-steps li[data-step="2"]').click(); }
  ];
  var i = 0;
  function next() {
    log.push(i === 4 ? (tip.hidden ? 'no tip' : tip.textContent.replace(/\n/g, ' | ')) : range.textContent);
    if (i === steps.length) {
      out.textContent = log.join('\n');
      document.body.appendChild(out);
      return;
    }
    steps[i++]();
    setTimeout(next, 200);
  }
  next();
})();
</script>
</body>"#;

/// "Shown: A to B" as picoseconds.
fn shown_range(line: &str) -> (f64, f64) {
    let ps = |t: &str| {
        let (v, unit) = t.trim().split_once(' ').unwrap();
        let k = match unit {
            "ns" => 1e3,
            "us" => 1e6,
            "ms" => 1e9,
            "s" => 1e12,
            _ => panic!("{t}"),
        };
        v.parse::<f64>().unwrap() * k
    };
    let (a, b) = line.trim_start_matches("Shown: ").split_once(" to ").unwrap();
    (ps(a), ps(b.split(';').next().unwrap()))
}

#[test]
fn the_timeline_zooms_pans_resets_and_names_spans() {
    let dir = workdir("interact");
    let page = dir.join("thesis.html");
    let thesis = repo("examples/thesis.goal");
    let out = simpi(&["replay", thesis.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert!(out.status.success());
    let html = std::fs::read_to_string(&page).unwrap();
    std::fs::write(&page, html.replacen("</body>", PROBE, 1)).unwrap();
    let b = browse(&page, &dir);
    b.assert_clean("interactions");
    let probe = b
        .element("<pre id=\"probe\">", "</pre>")
        .trim_start_matches("<pre id=\"probe\">");
    let lines: Vec<&str> = probe.lines().collect();
    assert_eq!(lines.len(), 6, "{probe}");
    let [whole, zoomed, dragged, reset] = [0, 1, 2, 3].map(|i| shown_range(lines[i]));
    // The whole run and 2 % more; the wheel narrows the view around the pointer; a drag
    // to the left moves it later by as much; a double-click shows everything again.
    assert_eq!(whole.0, 0.0);
    assert!((whole.1 - 5654e3 * 1.02).abs() < 1e3, "{whole:?}");
    let width = |r: (f64, f64)| r.1 - r.0;
    assert!(width(zoomed) < width(whole) / 2.0 && zoomed.0 > 0.0, "{zoomed:?}");
    assert!(
        (width(dragged) - width(zoomed)).abs() < 1e3 && dragged.0 > zoomed.0,
        "{dragged:?}"
    );
    assert_eq!(reset, whole);
    // Hovering rank 0's first lane at 850 ns names its send (100..1600 ns, o = 1500),
    // which is not on the critical path (rank 1's send is).
    assert_eq!(
        lines[4], "send on rank 0 | 100.000 ns to 1.600000 us (1.500000 us)",
        "{probe}"
    );
    // Clicking the path's third step (rank 0's receive, 1.6..5.654 us) shows it.
    let step = shown_range(lines[5]);
    assert!(step.0 <= 1.6e6 && step.1 >= 5.654e6, "{step:?}");
}

/// How many lines of each action the rank files of a TIT trace hold.
fn trace_actions(dir: &Path) -> std::collections::BTreeMap<String, u64> {
    let mut n = std::collections::BTreeMap::new();
    for e in std::fs::read_dir(dir.join("trace.txt_files")).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        for line in text.lines() {
            if let Some(action) = line.split_whitespace().nth(1) {
                *n.entry(action.to_string()).or_insert(0) += 1;
            }
        }
    }
    n
}

#[test]
fn osu_trace_report_matches_simgrid_and_the_trace() {
    let case = repo("tests/golden/smpi-replay/osu_bcast");
    let dir = workdir("osu");
    let path = |f: &str| case.join(f).to_str().unwrap().to_string();
    let mut args = vec![
        path("trace.txt"),
        "--platform".into(),
        path("platform.xml"),
        "--hostfile".into(),
        path("hostfile"),
        "--test-cost".into(),
        "1e-4".into(),
    ];
    // The algorithms SimGrid used, `op=simpi_name:simgrid_name`.
    for a in std::fs::read_to_string(case.join("algorithms.txt"))
        .unwrap()
        .split_whitespace()
    {
        args.push("--coll".into());
        args.push(a.split_once(':').unwrap().0.to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (b, size) = report(&dir, "osu.html", &args);
    b.assert_clean("osu_bcast");
    assert!(size < 1 << 20, "{size} bytes");
    // The makespan SimGrid's own replay printed (6 decimals), in ms as simpi shows it.
    let want: f64 = std::fs::read_to_string(case.join("expected.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let shown = b.element("<span id=\"makespan\">", "</span>");
    let ms: f64 = shown
        .trim_start_matches("<span id=\"makespan\">")
        .trim_end_matches(" ms")
        .parse()
        .unwrap_or_else(|_| panic!("{shown}"));
    assert!(
        (ms / 1e3 - want).abs() <= 5e-7 + 1e-6 * want,
        "{ms} ms, SimGrid {want} s"
    );
    // A row per MPI call of the trace, with as many calls as it has lines.
    let actions = trace_actions(&case);
    let calls = b.element("<table id=\"calls-table\"", "</table>");
    let mut spans = 0;
    for name in ["barrier", "bcast", "reduce"] {
        let count = actions[name];
        spans += count;
        let row = format!("<td class=\"name\">{name}</td><td>{count}</td>");
        assert!(calls.contains(&row), "{row}\n{calls}");
    }
    assert_eq!(calls.matches("<tr>").count(), 4, "a header and three calls: {calls}");
    // Every span and message fits the page: the timeline says it shows them all.
    assert!(
        b.dom.contains(&format!("Showing all {spans} spans of the 8 ranks")),
        "{}",
        b.element("<p class=\"note\" id=\"timeline-note\"", "</p>")
    );
    assert_eq!(
        b.element("<table id=\"breakdown-ranks\"", "</table>")
            .matches("<tr>")
            .count(),
        9
    );
    // The critical path names ranks of the run and ends on the rank the summary names
    // as ending last (the lowest, when several do).
    let last = b.element("<span id=\"last-rank\">", "</span>");
    let last_rank: u32 = last
        .split(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{last}"));
    let named = b.element("<span id=\"critical-ranks\">", "</span>");
    let ranks: Vec<u32> = named
        .trim_start_matches("<span id=\"critical-ranks\">")
        .split(", ")
        .map(|r| r.parse().unwrap())
        .collect();
    assert!(!ranks.is_empty() && ranks.iter().all(|&r| r < 8), "{named}");
    assert!(ranks.contains(&last_rank), "{named} {last}");
    let steps = b.element("<ol id=\"critical-steps\">", "</ol>");
    let final_step = steps.rsplit("<li").next().unwrap();
    assert!(final_step.contains(&format!("rank {last_rank}</span>")), "{final_step}");
    assert!(b.dom.contains("<canvas id=\"timeline-canvas\""));
}

#[test]
fn a_1024_rank_report_is_cut_down_and_says_so() {
    let dir = workdir("big");
    let (b, size) = report(&dir, "rd.html", &["--pattern", "rd-allreduce", "--ranks", "1024"]);
    b.assert_clean("rd-allreduce 1024");
    assert!(size < 1 << 20, "{size} bytes");
    // Recursive doubling on 1024 ranks: 10 rounds of a send and a receive per rank,
    // 20480 spans; a budget of 20000 gives each rank its first 19.
    let note = b.element("<p class=\"note\" id=\"timeline-note\"", "</p>");
    assert!(
        note.contains("of 20480 spans (the first 19 of each rank shown, and every span of the critical path)"),
        "{note}"
    );
    assert!(b.dom.contains("pattern rd-allreduce: 1024 ranks, 8 bytes, 1 iteration"));
    assert_eq!(
        b.element("<table id=\"breakdown-ranks\"", "</table>")
            .matches("<tr>")
            .count(),
        1025
    );
}

#[test]
fn names_from_inputs_stay_text() {
    // A schedule whose file name is markup: the page shows it as text, and the browser
    // builds no element from it.
    let dir = workdir("escape");
    let name = "a<b>x\"'&<i onclick=bad()>.goal";
    let file = dir.join(name);
    std::fs::copy(repo("examples/thesis.goal"), &file).unwrap();
    let (b, _) = report(&dir, "escape.html", &[file.to_str().unwrap()]);
    b.assert_clean("escape");
    assert!(!b.dom.contains("<b>x") && !b.dom.contains("<i onclick"));
    let shown = "a&lt;b&gt;x\"'&amp;&lt;i onclick=bad()&gt;.goal";
    assert!(
        b.element("<p class=\"input\">", "</p>").contains(shown),
        "{}",
        b.element("<header>", "</header>")
    );
    assert!(b.element("<dl class=\"summary\">", "</dl>").contains(shown));
}

#[test]
fn the_harness_sees_a_failing_script() {
    // The checks above would pass vacuously if Chromium's log did not carry script
    // errors: a page whose script throws must show up in it, without the marker.
    let dir = workdir("harness");
    let page = dir.join("broken.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><script>undefinedFunction();\
         document.documentElement.setAttribute('data-simpi-ready', 'yes');</script></body></html>",
    )
    .unwrap();
    let b = browse(&page, &dir);
    assert!(
        b.console().iter().any(|l| l.contains("Uncaught ReferenceError")),
        "{}",
        b.log
    );
    assert!(!b.dom.contains("data-simpi-ready=\"yes\""));
}

#[test]
fn a_report_needs_an_html_name() {
    let dir = workdir("name");
    let file = dir.join("r.json");
    let out = simpi(&[
        "replay",
        repo("examples/thesis.goal").to_str().unwrap(),
        "--html",
        file.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(".html or .htm"), "{err}");
    assert!(!file.exists() && out.stdout.is_empty());
}

/// A script appended to a sweep's page: it clicks the table's headings (makespan, again
/// makespan, then o) and writes the order of the points after each click into
/// `<pre id="probe">`, one line each.
const SORT_PROBE: &str = r#"<script>
(function () {
  var heads = document.querySelectorAll('#points-table thead th');
  var order = function () {
    return Array.prototype.map.call(document.querySelectorAll('#points-table tbody tr'), function (r) {
      return r.cells[0].textContent;
    }).join(',');
  };
  var log = [order()];
  [4, 4, 3].forEach(function (col) { heads[col].click(); log.push(order()); });
  var out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = log.join('\n');
  document.body.appendChild(out);
})();
</script>
</body>"#;

#[test]
fn a_sweep_page_shows_its_plots_and_sorts_its_points() {
    let dir = workdir("sweep");
    let page = dir.join("sweep.html");
    let thesis = repo("examples/thesis.goal");
    // Values out of order, so that sorting by makespan changes the grid's order.
    let out = simpi(&[
        "sweep",
        thesis.to_str().unwrap(),
        "--vary",
        "L=5000,1000,2500",
        "--vary",
        "o=1500,1000",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    for needle in ["src=", "href=\"http", "@import", "url("] {
        assert!(!html.contains(needle), "the sweep's page refers to {needle}");
    }
    std::fs::write(&page, html.replacen("</body>", SORT_PROBE, 1)).unwrap();
    let b = browse(&page, &dir);
    b.assert_clean("sweep");
    // LogGOPS with LogGOPSim's defaults on the thesis example: 100 + o + L + o + 6·9 ns
    // (see thesis_report_shows_hand_derived_values). Points in grid order, the last
    // --vary fastest: (5000,1500) 8154, (5000,1000) 7154, (1000,1500) 4154,
    // (1000,1000) 3154, (2500,1500) 5654, (2500,1000) 4654.
    assert!(b.dom.contains("<span id=\"points\">6</span>"));
    assert!(
        b.dom.contains("<span id=\"fastest\">3.154000 us</span> at point 3"),
        "fastest"
    );
    assert!(
        b.dom.contains("<span id=\"slowest\">8.154000 us</span> at point 0"),
        "slowest"
    );
    let table = b.element("<table class=\"numbers\" id=\"points-table\"", "</table>");
    for (point, l, o, ns) in [(0, 5000, 1500, 8154), (3, 1000, 1000, 3154), (4, 2500, 1500, 5654)] {
        let shown = format!("{}.{:03}000 us", ns / 1000, ns % 1000);
        let row = format!(
            "<td data-v=\"{point}\">{point}</td><td class=\"name\" data-v=\"{0}\">{0}</td><td data-v=\"{l}\">{l}</td><td data-v=\"{o}\">{o}</td><td data-v=\"{1}\">{shown}</td>",
            thesis.display(),
            ns * 1000,
        );
        assert!(table.contains(&row), "{row}\n{table}");
    }
    // A plot per swept setting and the breakdown, inline.
    assert!(b.dom.contains("data-file=\"makespan-vs-L.svg\"") && b.dom.contains("data-file=\"makespan-vs-o.svg\""));
    assert_eq!(b.dom.matches("<svg").count(), 3, "two makespan plots and a breakdown");
    // Sorting: by makespan, then reversed, then by o (ties keep the grid's order).
    let probe = b
        .element("<pre id=\"probe\">", "</pre>")
        .trim_start_matches("<pre id=\"probe\">");
    let lines: Vec<&str> = probe.lines().collect();
    assert_eq!(
        lines,
        ["0,1,2,3,4,5", "3,2,5,4,1,0", "0,1,4,5,2,3", "1,3,5,0,2,4"],
        "{probe}"
    );
}
