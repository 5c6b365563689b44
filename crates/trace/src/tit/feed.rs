//! A trace's lines, parsed ahead of the simulation on a second thread. Each rank has a
//! bounded queue of parsed actions that the reader thread fills, round robin, while the
//! simulation takes from it; a rank whose queue is empty when the simulation needs it
//! parses its next line on the spot. Both parse a rank's lines under that rank's lock,
//! in order, so the simulation sees each rank's actions exactly as a sequential read
//! would give them, errors included: which thread parsed a line changes nothing.
//!
//! Memory stays bounded by the queues (a share of [`LOOKAHEAD_BYTES`] per rank), not by
//! the trace's length.

use super::actions::{parse, Action};
use super::program::{words, Args};
use super::source::{Cursor, Source};
use crate::quote::quote;
use simpi_kernel::MixHasher;
use simpi_mpi::comm::CommTable;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Bytes of parsed actions held ahead, over all ranks.
pub(crate) const LOOKAHEAD_BYTES: usize = 4 << 20;

/// The communicator an action runs on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CommRef {
    /// MPI_COMM_WORLD.
    World,
    /// The rank's MPI_COMM_SELF.
    Own,
    /// The communicator at this index of the table.
    Index(u32),
}

/// [`Parsed::name`] when calls are not recorded.
pub(crate) const NO_NAME: u32 = u32::MAX;

/// One parsed line of a rank.
pub(crate) struct Parsed {
    /// Its line number.
    pub line: u32,
    /// The communicator it names.
    pub comm: CommRef,
    /// The action's name, by its index in the feed's table ([`Feed::name`]), when
    /// calls are recorded; [`NO_NAME`] otherwise.
    pub name: u32,
    /// The action, or what is wrong with the line (the line's file, or the trace's
    /// file for a read error at line 0, is the rank's). An item crosses from the reader
    /// thread's cache to the simulation's: large actions and errors are boxed to keep
    /// it to one cache line.
    pub action: Result<Action, Box<(u32, String)>>,
}

/// One rank's reading state, shared by both threads.
struct RankFeed {
    cursor: Cursor,
    queue: VecDeque<Parsed>,
    /// `init x` made MPI_DOUBLE the default datatype.
    double_default: bool,
    ended: bool,
    /// Lines of another rank in this rank's file.
    skipped: u64,
}

/// Call names, each allocated once, and their indices.
#[derive(Default)]
struct Names {
    list: Vec<Arc<str>>,
    index: HashMap<Arc<str>, u32, BuildHasherDefault<MixHasher>>,
}

struct Shared {
    src: Arc<Source>,
    comms: Arc<CommTable>,
    ranks: Vec<Mutex<RankFeed>>,
    /// Call names, allocated once each, when calls are recorded.
    names: Option<Mutex<Names>>,
    lookahead: usize,
    stop: AtomicBool,
}

/// The parsed lines of every rank, read ahead on a thread of their own (or on the
/// caller's, when made without one).
pub(crate) struct Feed {
    shared: Arc<Shared>,
    /// What the simulation took from a rank's queue and has not used yet.
    local: Vec<VecDeque<Parsed>>,
    worker: Option<JoinHandle<()>>,
}

impl Shared {
    /// Parses rank `r`'s next line into `f`'s queue; false at the end of its lines.
    fn parse_next(&self, r: usize, f: &mut RankFeed) -> bool {
        let RankFeed {
            cursor,
            queue,
            double_default,
            ended,
            skipped,
        } = f;
        if *ended {
            return false;
        }
        let next = self.src.next_line(cursor, r, skipped);
        let (line, text) = match next {
            Ok(Some(l)) => l,
            Ok(None) => {
                *ended = true;
                return false;
            }
            Err(e) => {
                *ended = true;
                queue.push_back(Parsed {
                    line: e.line,
                    comm: CommRef::World,
                    name: NO_NAME,
                    action: Err(Box::new((e.line, e.msg))),
                });
                return false;
            }
        };
        let (comm, name, rest) = words(text);
        let p = self.src.ranks();
        let (comm, size) = match comm {
            None => (CommRef::World, Ok(p)),
            Some("self") => (CommRef::Own, Ok(1)),
            Some(id) => match self.comms.get(id) {
                Some((i, c)) => (CommRef::Index(i as u32), Ok(c.members.len())),
                None => (CommRef::World, Err(format!("unknown communicator {}", quote(id)))),
            },
        };
        let mut args = Args::default();
        let action = size
            .and_then(|n| parse(name, args.collect(rest), n, *double_default))
            .map_err(|m| Box::new((line, m)));
        if let Ok(Action::Init { double_default: d }) = &action {
            *double_default = *d;
        }
        let name = self.names.as_ref().map_or(NO_NAME, |names| {
            let mut names = names.lock().expect("names");
            match names.index.get(name) {
                Some(&i) => i,
                None => {
                    let n: Arc<str> = Arc::from(name);
                    let i = names.list.len() as u32;
                    names.list.push(Arc::clone(&n));
                    names.index.insert(n, i);
                    i
                }
            }
        });
        queue.push_back(Parsed {
            line,
            comm,
            name,
            action,
        });
        true
    }

    /// The reader thread: fills the queues that are less than half full, round robin,
    /// until every rank's lines are read or the feed is dropped.
    fn read_ahead(&self) {
        let half = self.lookahead.div_ceil(2);
        while !self.stop.load(Ordering::Relaxed) {
            let (mut did, mut open) = (false, false);
            for (r, rank) in self.ranks.iter().enumerate() {
                let Ok(mut f) = rank.try_lock() else {
                    open = true;
                    continue;
                };
                if f.ended {
                    continue;
                }
                open = true;
                if f.queue.len() > half {
                    continue;
                }
                did = true;
                while f.queue.len() < self.lookahead && self.parse_next(r, &mut f) {}
                if self.stop.load(Ordering::Relaxed) {
                    return;
                }
            }
            if !open {
                return;
            }
            if !did {
                std::thread::park_timeout(Duration::from_micros(500));
            }
        }
    }
}

impl Feed {
    /// A feed of `src`'s ranks; with `thread`, parsed ahead on a thread of its own.
    pub(crate) fn new(src: Arc<Source>, comms: Arc<CommTable>, names: bool, thread: bool) -> Feed {
        let p = src.ranks();
        let per_action = std::mem::size_of::<Parsed>() + 16;
        let lookahead = (LOOKAHEAD_BYTES / p.max(1) / per_action).clamp(16, 4096);
        let shared = Arc::new(Shared {
            ranks: (0..p)
                .map(|r| {
                    Mutex::new(RankFeed {
                        cursor: src.cursor(r),
                        queue: VecDeque::new(),
                        double_default: false,
                        ended: false,
                        skipped: 0,
                    })
                })
                .collect(),
            src,
            comms,
            names: names.then(|| Mutex::new(Names::default())),
            lookahead,
            stop: AtomicBool::new(false),
        });
        let worker = thread.then(|| {
            let s = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("simpi-trace-reader".into())
                .spawn(move || s.read_ahead())
                .expect("a thread for reading ahead")
        });
        Feed {
            shared,
            local: (0..p).map(|_| VecDeque::new()).collect(),
            worker,
        }
    }

    /// Rank `r`'s next parsed line, or `None` after its last.
    pub(crate) fn next(&mut self, r: usize) -> Option<Parsed> {
        if let Some(p) = self.local[r].pop_front() {
            return Some(p);
        }
        let mut f = self.shared.ranks[r].lock().expect("a rank's feed");
        if !f.queue.is_empty() {
            std::mem::swap(&mut self.local[r], &mut f.queue);
            drop(f);
            if let Some(w) = &self.worker {
                w.thread().unpark();
            }
            return self.local[r].pop_front();
        }
        self.shared.parse_next(r, &mut f);
        f.queue.pop_front()
    }

    /// Lines of per-rank files that belonged to another rank, so far.
    pub(crate) fn skipped(&self) -> u64 {
        self.shared
            .ranks
            .iter()
            .map(|f| f.lock().expect("a rank's feed").skipped)
            .sum()
    }

    /// The name of index `i` ([`Parsed::name`]).
    pub(crate) fn name(&self, i: u32) -> Arc<str> {
        let names = self
            .shared
            .names
            .as_ref()
            .expect("names are kept")
            .lock()
            .expect("names");
        Arc::clone(&names.list[i as usize])
    }

    /// Stops reading rank `r` (a schedule being built has passed it); returns the lines
    /// of other ranks its file had.
    pub(crate) fn close(&mut self, r: usize) -> u64 {
        self.local[r] = VecDeque::new();
        let mut f = self.shared.ranks[r].lock().expect("a rank's feed");
        f.queue = VecDeque::new();
        f.ended = true;
        f.cursor = Cursor::Shared(usize::MAX);
        std::mem::take(&mut f.skipped)
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(w) = self.worker.take() {
            w.thread().unpark();
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_parsed_line_fits_a_cache_line() {
        assert!(
            std::mem::size_of::<super::Parsed>() <= 64,
            "{}",
            std::mem::size_of::<super::Parsed>()
        );
    }
}
