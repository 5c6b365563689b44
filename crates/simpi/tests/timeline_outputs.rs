//! Timelines (issue 16, item 6): Paje pops the state that ended, Chrome tracks hold
//! properly nested spans, arrows join sends to their receives, filters cut ranks and time.
//!
//! The reference run is `examples/thesis.goal` under LogGOPSim's defaults (L=2500 o=1500
//! g=1000 G=6, ns): both ranks compute 0..100, post their receive at 0, send at 100 for
//! o (100..1600); the other rank's message arrives at 100 + o + L + 9G = 4154 and is
//! received in o: the receive spans 0..5654.

use simpi::analysis::Span;
use simpi::timeline::{self, FileFormat, Filter, Flow, Message, MessageKind, RankSet, Timeline, Window};
use simpi::{load, simulate, CollChoice, LoadOptions, LogGops, Model, SimOptions, TimeUnit};
use std::collections::HashMap;
use std::path::Path;

const NS: u64 = 1000;

/// The spans of the thesis example, recorded by a run.
fn thesis_spans() -> Vec<Span> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/thesis.goal");
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::new(Box::new(simpi::default_algorithm));
    let opts = LoadOptions {
        format: None,
        unit: TimeUnit::Ns,
        speed: &speed,
        collectives: &coll,
        test_cost: 0.0,
        calls: true,
        whole: false,
    };
    let mut w = load(&path, &opts).unwrap();
    let model = Model::LogGops(LogGops::loggopsim_defaults(TimeUnit::Ns));
    let sim = SimOptions {
        progress: None,
        max_blocked_ranks: 8,
        record: true,
    };
    simulate(&mut w, &model, sim).unwrap().spans
}

/// `(rank, label, start ps, end ps)`, sorted.
type Row = (u32, String, u64, u64);

/// A Paje link: `(from rank, to rank, start ps, end ps)`.
type Link = (u32, u32, u64, u64);

fn thesis_rows() -> Vec<Row> {
    let mut v = Vec::new();
    for r in 0..2 {
        v.push((r, "compute".to_string(), 0, 100 * NS));
        v.push((r, "recv".to_string(), 0, 5654 * NS));
        v.push((r, "send".to_string(), 100 * NS, 1600 * NS));
    }
    v.sort();
    v
}

fn render(format: FileFormat, t: &Timeline<'_>, filter: &Filter) -> String {
    let mut out = Vec::new();
    timeline::write(&mut out, format, t, filter).unwrap();
    String::from_utf8(out).unwrap()
}

/// Seconds with up to twelve decimals, as picoseconds.
fn ps_of_seconds(s: &str) -> u64 {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    assert!(frac.len() <= 12, "{s}");
    let frac: u64 = format!("{frac:0<12}").parse().unwrap();
    whole.parse::<u64>().unwrap() * 1_000_000_000_000 + frac
}

/// Splits a Paje event line into fields (quoted strings are one field).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        if let Some(q) = rest.strip_prefix('"') {
            let end = q.find('"').expect("a closed quote");
            out.push(q[..end].to_string());
            rest = q[end + 1..].trim_start();
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            out.push(rest[..end].to_string());
            rest = rest[end..].trim_start();
        }
    }
    out
}

/// What a Paje reader makes of a trace: its states `(rank, value, start, end)` in ps, and
/// its links `(from rank, to rank, start, end)`. Follows the format's rules: event ids
/// from the header's definitions, fields by name, time never going back, a pop ends the
/// top state of its container's stack, every stack empty at the end.
fn read_paje(text: &str) -> (Vec<Row>, Vec<Link>) {
    let mut defs: HashMap<String, (String, Vec<String>)> = HashMap::new();
    let mut current: Option<(String, String, Vec<String>)> = None;
    // Container alias -> (parent alias, name).
    let mut containers: HashMap<String, (String, String)> = HashMap::new();
    let mut stacks: HashMap<String, Vec<(String, u64)>> = HashMap::new();
    let mut states = Vec::new();
    let mut open_links: HashMap<String, (String, u64)> = HashMap::new();
    let mut links = Vec::new();
    let mut now = 0u64;
    let rank_of = |containers: &HashMap<String, (String, String)>, alias: &str| -> u32 {
        let mut a = alias.to_string();
        loop {
            let (parent, name) = containers.get(&a).unwrap_or_else(|| panic!("no container {a}"));
            if let Some(r) = name.strip_prefix("rank ").filter(|r| !r.contains(' ')) {
                return r.parse().unwrap();
            }
            a = parent.clone();
        }
    };
    for line in text.lines() {
        if let Some(def) = line.strip_prefix("%EventDef ") {
            let f: Vec<&str> = def.split_whitespace().collect();
            current = Some((f[0].to_string(), f[1].to_string(), Vec::new()));
            continue;
        }
        if line.starts_with("%EndEventDef") {
            let (name, id, names) = current.take().unwrap();
            defs.insert(id, (name, names));
            continue;
        }
        if let Some(field) = line.strip_prefix('%') {
            let name = field.split_whitespace().next().unwrap().to_string();
            current.as_mut().unwrap().2.push(name);
            continue;
        }
        let f = fields(line);
        let (event, names) = defs.get(&f[0]).unwrap_or_else(|| panic!("undefined event: {line}"));
        assert_eq!(f.len(), names.len() + 1, "{line}");
        let get = |n: &str| -> &str { &f[1 + names.iter().position(|x| x == n).unwrap()] };
        if names.iter().any(|n| n == "Time") {
            let t = ps_of_seconds(get("Time"));
            assert!(t >= now, "time goes back: {line}");
            now = t;
        }
        match event.as_str() {
            "PajeCreateContainer" => {
                containers.insert(get("Alias").into(), (get("Container").into(), get("Name").into()));
            }
            "PajePushState" => stacks
                .entry(get("Container").into())
                .or_default()
                .push((get("Value").into(), now)),
            "PajePopState" => {
                let c = get("Container");
                let (value, start) = stacks
                    .get_mut(c)
                    .and_then(|s| s.pop())
                    .unwrap_or_else(|| panic!("pop of an empty stack: {line}"));
                states.push((rank_of(&containers, c), value, start, now));
            }
            "PajeStartLink" => {
                open_links.insert(get("Key").into(), (get("StartContainer").into(), now));
            }
            "PajeEndLink" => {
                let (from, start) = open_links.remove(get("Key")).expect("a link that started");
                links.push((
                    rank_of(&containers, &from),
                    rank_of(&containers, get("EndContainer")),
                    start,
                    now,
                ));
            }
            _ => {}
        }
    }
    assert!(stacks.values().all(|s| s.is_empty()), "states never popped: {stacks:?}");
    assert!(open_links.is_empty(), "links never ended");
    states.sort();
    (states, links)
}

/// The `X` events of a Chrome trace, as lines without their trailing comma.
fn complete_events(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.contains("\"ph\":\"X\""))
        .map(|l| l.trim_end_matches(','))
        .collect()
}

#[test]
fn issue16_the_thesis_spans_are_as_computed_by_hand() {
    let mut rows: Vec<Row> = thesis_spans()
        .into_iter()
        .map(|s| (s.rank, s.label, s.start, s.end))
        .collect();
    rows.sort();
    assert_eq!(rows, thesis_rows());
}

#[test]
fn issue16_paje_pops_the_state_that_ended() {
    let spans = thesis_spans();
    let text = render(FileFormat::Paje, &Timeline::of_spans(2, &spans), &Filter::default());
    let (states, links) = read_paje(&text);
    // Before the fix, the pop at 100 ns ended "recv" (pushed last) and "compute" lasted
    // until 5654 ns.
    assert_eq!(states, thesis_rows(), "{text}");
    assert!(links.is_empty());
}

#[test]
fn issue16_chrome_tracks_properly_nested() {
    let spans = thesis_spans();
    let text = render(FileFormat::Chrome, &Timeline::of_spans(2, &spans), &Filter::default());
    // Rank 0 (pid 0): compute and then send on lane 0, the receive that overlaps both on
    // lane 1; rank 1 alike.
    let mut expected = Vec::new();
    for r in 0..2 {
        expected.push(format!("{{\"name\":\"compute\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":{r},\"tid\":0,\"ts\":0,\"dur\":0.1,\"args\":{{\"kind\":\"compute\"}}}}"));
        expected.push(format!("{{\"name\":\"recv\",\"cat\":\"mpi\",\"ph\":\"X\",\"pid\":{r},\"tid\":1,\"ts\":0,\"dur\":5.654,\"args\":{{\"kind\":\"recv\"}}}}"));
        expected.push(format!("{{\"name\":\"send\",\"cat\":\"mpi\",\"ph\":\"X\",\"pid\":{r},\"tid\":0,\"ts\":0.1,\"dur\":1.5,\"args\":{{\"kind\":\"send\"}}}}"));
    }
    assert_eq!(complete_events(&text), expected, "{text}");
    assert!(text.contains("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"lane 1\"}}"));
    assert!(text.contains("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"rank 0\"}}"));
}

/// Rank 0 computes 0..100 then sends 100..1600 (ns) to rank 1, whose receive spans
/// 0..5654 over its computation 0..100.
fn one_message() -> (Vec<Span>, Vec<Option<Message>>, Vec<Flow>) {
    let span = |rank, label: &str, start, end| Span {
        rank,
        label: label.into(),
        start: start * NS,
        end: end * NS,
    };
    let spans = vec![
        span(0, "send", 100, 1600),
        span(0, "compute", 0, 100),
        span(1, "recv", 0, 5654),
        span(1, "compute", 0, 100),
    ];
    let msg = |kind, peer| {
        Some(Message {
            kind,
            bytes: 10,
            peer,
            tag: 7,
        })
    };
    let messages = vec![msg(MessageKind::Send, 1), None, msg(MessageKind::Recv, 0), None];
    (spans, messages, vec![Flow { send: 0, recv: 2 }])
}

#[test]
fn issue16_chrome_flow_arrows() {
    let (spans, messages, flows) = one_message();
    let t = Timeline {
        ranks: 2,
        spans: &spans,
        messages: &messages,
        flows: &flows,
        links: &[],
    };
    let text = render(FileFormat::Chrome, &t, &Filter::default());
    // The send is on rank 0's lane 0 after the compute; the receive on rank 1's lane 1.
    // The arrow leaves the middle of the send (850 ns) and reaches the middle of the
    // receive (2827 ns), bound to the slice around it ("bp":"e").
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches(',')).collect();
    for want in [
        "{\"name\":\"send\",\"cat\":\"mpi\",\"ph\":\"X\",\"pid\":0,\"tid\":0,\"ts\":0.1,\"dur\":1.5,\"args\":{\"kind\":\"send\",\"bytes\":10,\"peer\":1,\"tag\":7}}",
        "{\"name\":\"recv\",\"cat\":\"mpi\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5.654,\"args\":{\"kind\":\"recv\",\"bytes\":10,\"peer\":0,\"tag\":7}}",
        "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":0,\"pid\":0,\"tid\":0,\"ts\":0.85}",
        "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":0,\"pid\":1,\"tid\":1,\"ts\":2.827}",
    ] {
        assert!(lines.contains(&want), "missing {want} in\n{text}");
    }
    // Without rank 1 the arrow has nowhere to go and is left out.
    let only0 = Filter {
        ranks: Some(RankSet::parse("0").unwrap()),
        window: None,
    };
    let text = render(FileFormat::Chrome, &t, &only0);
    assert!(
        !text.contains("\"ph\":\"s\"") && !text.contains("\"ph\":\"f\""),
        "{text}"
    );
}

#[test]
fn issue16_paje_links_join_send_and_receive() {
    let (spans, messages, flows) = one_message();
    let t = Timeline {
        ranks: 2,
        spans: &spans,
        messages: &messages,
        flows: &flows,
        links: &[],
    };
    let (_, links) = read_paje(&render(FileFormat::Paje, &t, &Filter::default()));
    // From rank 0 when the send starts to rank 1 when the receive ends.
    assert_eq!(links, [(0, 1, 100 * NS, 5654 * NS)]);
}

#[test]
fn issue16_timeline_filters_keep_ranks_and_a_window() {
    let spans = thesis_spans();
    let t = Timeline::of_spans(2, &spans);
    // Rank 1 from 2 us on: only its receive (0..5654 ns) overlaps; alone, on lane 0.
    let filter = Filter {
        ranks: Some(RankSet::parse("1").unwrap()),
        window: Some(Window::parse("2us:").unwrap()),
    };
    let text = render(FileFormat::Chrome, &t, &filter);
    assert_eq!(
        complete_events(&text),
        ["{\"name\":\"recv\",\"cat\":\"mpi\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":0,\"dur\":5.654,\"args\":{\"kind\":\"recv\"}}"]
    );
    assert!(!text.contains("\"pid\":0"), "{text}");
    let (states, _) = read_paje(&render(FileFormat::Paje, &t, &filter));
    assert_eq!(states, [(1, "recv".to_string(), 0, 5654 * NS)]);
    // Up to 100 ns, both ranks: computes and receives (the sends start at 100 ns, an
    // end of the window, so they are kept too).
    let filter = Filter {
        ranks: None,
        window: Some(Window::parse(":100ns").unwrap()),
    };
    let (states, _) = read_paje(&render(FileFormat::Paje, &t, &filter));
    assert_eq!(states, thesis_rows());
    let filter = Filter {
        ranks: None,
        window: Some(Window::parse(":99ns").unwrap()),
    };
    let (states, _) = read_paje(&render(FileFormat::Paje, &t, &filter));
    assert_eq!(states.len(), 4, "{states:?}");
    assert!(states.iter().all(|s| s.1 != "send"));
}

#[test]
fn link_counters_follow_the_window() {
    // One link, bins of 2 us: busy 1, then 0.5 with 3 packets held. Chrome shows them
    // as counters of a "network" process after the ranks, at each bin's start; a
    // window from 2.5 us keeps the second bin only.
    let (spans, messages, flows) = one_message();
    let links = [simpi::LinkSeries {
        link: "l\"0".into(),
        width: simpi::SimTime(2_000_000),
        busy: vec![1.0, 0.5],
        queue: vec![0.0, 3.0],
    }];
    let t = Timeline {
        ranks: 2,
        spans: &spans,
        messages: &messages,
        flows: &flows,
        links: &links,
    };
    let text = render(FileFormat::Chrome, &t, &Filter::default());
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches(',')).collect();
    let first = "{\"name\":\"l\\\"0\",\"ph\":\"C\",\"pid\":2,\"ts\":0,\"args\":{\"busy\":1.0000,\"queue\":0.0000}}";
    let second = "{\"name\":\"l\\\"0\",\"ph\":\"C\",\"pid\":2,\"ts\":2,\"args\":{\"busy\":0.5000,\"queue\":3.0000}}";
    for want in [
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"network\"}}",
        first,
        second,
    ] {
        assert!(lines.contains(&want), "missing {want} in\n{text}");
    }
    let later = Filter {
        ranks: None,
        window: Some(Window {
            start: 2_500_000,
            end: u64::MAX,
        }),
    };
    let text = render(FileFormat::Chrome, &t, &later);
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches(',')).collect();
    assert!(!lines.contains(&first) && lines.contains(&second), "{text}");
}
