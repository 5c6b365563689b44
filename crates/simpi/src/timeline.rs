//! Timelines people can open: Chrome trace-event JSON (Perfetto, chrome://tracing) and
//! Paje (ViTE, PajeNG).
//!
//! Each rank is a group of *lanes*: spans of one rank that overlap in time (a receive
//! posted before a computation, requests in flight during later calls) are put on
//! separate lanes, so that the spans of one lane never overlap. Both formats need this:
//! a Chrome track draws only properly nested slices, and Paje's `PopState` ends the state
//! on top of a container's stack, whichever span actually ended.
//!
//! A timeline may be cut down to some ranks and a time window ([`Filter`]), and may carry
//! what the run knows of each span's message ([`Message`]) and which send matched which
//! receive ([`Flow`]): Chrome shows those as arguments and arrows, Paje as links.

mod chrome;
mod filter;
pub(crate) mod lanes;
mod paje;

pub use filter::{Filter, RankSet, Window};

use crate::analysis::Span;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Whether a message span sends or receives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MessageKind {
    /// A send.
    Send,
    /// A receive.
    Recv,
}

/// What a timeline knows of the message of a span.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Send or receive.
    pub kind: MessageKind,
    /// Bytes.
    pub bytes: u64,
    /// The destination of a send, the source of a receive.
    pub peer: u32,
    /// The message tag.
    pub tag: u32,
}

/// A send matched a receive: an arrow from span `send` to span `recv` (indices into
/// [`Timeline::spans`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Flow {
    /// The span of the send.
    pub send: usize,
    /// The span of the receive it matched.
    pub recv: usize,
}

/// What a timeline shows.
#[derive(Copy, Clone, Debug)]
pub struct Timeline<'a> {
    /// Number of ranks of the run (spans name ranks below it).
    pub ranks: u32,
    /// The spans.
    pub spans: &'a [Span],
    /// The message of each span, by span index; empty if the run recorded none.
    pub messages: &'a [Option<Message>],
    /// Sends and the receives they matched; empty if the run recorded none.
    pub flows: &'a [Flow],
    /// The busiest links' use over time (the packet model); Chrome files show them as
    /// counters of a "network" process, Paje files do not.
    pub links: &'a [simpi_net::LinkSeries],
}

impl<'a> Timeline<'a> {
    /// A timeline of `spans` alone (no messages, no arrows).
    pub fn of_spans(ranks: u32, spans: &'a [Span]) -> Timeline<'a> {
        Timeline {
            ranks,
            spans,
            messages: &[],
            flows: &[],
            links: &[],
        }
    }

    /// The message of span `i`, if known.
    fn message(&self, i: usize) -> Option<Message> {
        self.messages.get(i).copied().flatten()
    }

    /// What span `i` is: `send`, `recv`, `compute`, or `call` (an MPI call of a trace).
    fn kind(&self, i: usize) -> &'static str {
        match self.message(i).map(|m| m.kind) {
            Some(MessageKind::Send) => "send",
            Some(MessageKind::Recv) => "recv",
            None => match self.spans[i].label.as_str() {
                "send" => "send",
                "recv" => "recv",
                "compute" => "compute",
                _ => "call",
            },
        }
    }
}

/// The formats a timeline can be written in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// Chrome trace events (`.json`): Perfetto, chrome://tracing.
    Chrome,
    /// Paje (`.paje`, or SimGrid's `.trace`): ViTE, PajeNG.
    Paje,
}

/// The file extensions a timeline may have, as an error message lists them.
pub const EXTENSIONS: &str = ".json (Chrome trace events, for Perfetto) or .paje (Paje, for ViTE; .trace too)";

impl FileFormat {
    /// The format named by `path`'s extension.
    pub fn of_path(path: &Path) -> Result<FileFormat, String> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("json") => Ok(FileFormat::Chrome),
            Some("paje" | "trace") => Ok(FileFormat::Paje),
            Some(e) => Err(format!(
                "unknown timeline extension '.{}': expected {EXTENSIONS}",
                filter::clip(e)
            )),
            None => Err(format!("a timeline file needs an extension: {EXTENSIONS}")),
        }
    }
}

/// A timeline file to write: its path and, from its extension, its format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Where to write.
    pub path: PathBuf,
    /// In which format.
    pub format: FileFormat,
}

impl Target {
    /// A target from a path typed by the user (clap's `value_parser`): an unknown
    /// extension is refused, never guessed.
    pub fn parse(s: &str) -> Result<Target, String> {
        let path = PathBuf::from(s);
        let format = FileFormat::of_path(&path)?;
        Ok(Target { path, format })
    }
}

/// Writes the part of `t` that `filter` keeps, in `format`, and flushes `w`.
pub fn write<W: Write>(w: W, format: FileFormat, t: &Timeline<'_>, filter: &Filter) -> io::Result<()> {
    let v = View::new(t, filter);
    match format {
        FileFormat::Chrome => chrome::write(w, &v),
        FileFormat::Paje => paje::write(w, &v),
    }
}

/// Writes every span of a run of `ranks` ranks as Chrome trace-event JSON (times in
/// microseconds).
pub fn write_chrome<W: Write>(w: W, ranks: u32, spans: &[Span]) -> io::Result<()> {
    write(
        w,
        FileFormat::Chrome,
        &Timeline::of_spans(ranks, spans),
        &Filter::default(),
    )
}

/// Writes every span of a run of `ranks` ranks as a Paje trace (times in seconds).
pub fn write_paje<W: Write>(w: W, ranks: u32, spans: &[Span]) -> io::Result<()> {
    write(
        w,
        FileFormat::Paje,
        &Timeline::of_spans(ranks, spans),
        &Filter::default(),
    )
}

/// What the writers draw: the spans a filter keeps, each on its lane.
struct View<'a> {
    t: &'a Timeline<'a>,
    /// The filter it was cut with (the links' counters follow its window).
    filter: Filter,
    /// The ranks shown, ascending.
    ranks: Vec<u32>,
    /// The spans kept, by rank then start time.
    kept: Vec<usize>,
    /// The lane of each span, by span index ([`lanes::NONE`] if not kept).
    lane: Vec<u32>,
    /// How many lanes each rank has, by rank.
    lanes: Vec<u32>,
    /// The arrows whose two spans are kept.
    flows: Vec<Flow>,
}

impl<'a> View<'a> {
    fn new(t: &'a Timeline<'a>, filter: &Filter) -> View<'a> {
        let ranks: Vec<u32> = (0..t.ranks).filter(|&r| filter.keeps_rank(r)).collect();
        let mut kept: Vec<usize> = (0..t.spans.len())
            .filter(|&i| {
                let s = &t.spans[i];
                s.rank < t.ranks && filter.keeps_rank(s.rank) && filter.keeps_time(s.start, s.end)
            })
            .collect();
        kept.sort_by_key(|&i| {
            let s = &t.spans[i];
            (s.rank, s.start, s.end, i)
        });
        let (lane, lanes) = lanes::assign(t.spans, &kept, t.ranks);
        let flows = t
            .flows
            .iter()
            .filter(|f| {
                let shown = |i: usize| lane.get(i).is_some_and(|&l| l != lanes::NONE);
                shown(f.send) && shown(f.recv)
            })
            .copied()
            .collect();
        View {
            t,
            filter: filter.clone(),
            ranks,
            kept,
            lane,
            lanes,
            flows,
        }
    }
}

/// `s` as the inside of a quoted string: JSON escapes quotes and backslashes, Paje
/// (which has no escapes) gets apostrophes for quotes; control characters become spaces.
fn clean(s: &str, json: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' if json => out.push_str("\\\""),
            '"' => out.push('\''),
            '\\' if json => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_name_the_format_or_are_refused() {
        assert_eq!(Target::parse("a/b.json").unwrap().format, FileFormat::Chrome);
        assert_eq!(Target::parse("x.PAJE").unwrap().format, FileFormat::Paje);
        assert_eq!(Target::parse("smpi.trace").unwrap().format, FileFormat::Paje);
        let e = Target::parse("x.txt").unwrap_err();
        assert!(
            e.contains("'.txt'") && e.contains(".json") && e.contains(".paje"),
            "{e}"
        );
        let e = Target::parse("timeline").unwrap_err();
        assert!(e.contains(".json") && e.contains(".paje"), "{e}");
    }

    #[test]
    fn kinds_come_from_messages_then_labels() {
        let span = |label: &str| Span {
            rank: 0,
            label: label.into(),
            start: 0,
            end: 1,
        };
        let spans = [span("send"), span("compute"), span("allreduce"), span("isend")];
        let messages = [
            None,
            None,
            None,
            Some(Message {
                kind: MessageKind::Send,
                bytes: 8,
                peer: 1,
                tag: 0,
            }),
        ];
        let t = Timeline {
            ranks: 1,
            spans: &spans,
            messages: &messages,
            flows: &[],
            links: &[],
        };
        let kinds: Vec<&str> = (0..4).map(|i| t.kind(i)).collect();
        assert_eq!(kinds, ["send", "compute", "call", "send"]);
    }
}
