//! The run written as a time-independent trace (`simpi run --record-tit DIR`): what
//! each rank asked the engine to simulate, in simpi's TIT dialect
//! (`docs/formats.md`), so that `simpi replay DIR/index.txt` with the same machine and
//! options simulates the same operations and gives the same times.
//!
//! The lines are written from the calls the session posts to the driver, not from the
//! program's MPI calls: computation is the simulated time the rank computed (`sleep`,
//! exact to the picosecond, whatever the host's speed; zero-length ones too, as they
//! wait for the rank's CPU like any other), a receive's size is its buffer's (the
//! engine takes the message's), a collective is the one the engine timed (a
//! communicator's creation is timed as an allgather of 8 bytes), and calls that cost
//! nothing leave no line. Requests are named by (source, destination, tag) in world
//! ranks, as the format does; non-blocking collectives by `-3 rank n`.
//!
//! The replay completes the oldest outstanding request of a key, and a test puts the
//! request it tested last among those of its key. The writer keeps the same queues and
//! refuses a run whose completions the format cannot name that way, one whose ranks
//! start a communicator's non-blocking collectives in different orders (persistent
//! collectives may be; the replay tells them apart by their order), and one-sided
//! communication, intercommunicators and cancelled receives. A refusal leaves the
//! run's result as it is and writes no trace.
//!
//! A rank's lines stay in memory up to [`SPILL_BYTES`], then are appended to its file in
//! `DIR.partial`, which the end of the run moves into `DIR`.

use simpi_mpi::coll::{CollSpec, Collective};
use simpi_mpi::driver::Handle;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A request's name in the trace: (source, destination, tag).
type Key = (i64, i64, i64);

/// TIT's MPI_ANY_SOURCE and MPI_ANY_TAG (SimGrid's values).
const ANY_SOURCE: i64 = -333;
const ANY_TAG: i64 = -444;

/// The source of a non-blocking collective's key.
const ICOLL_SOURCE: i64 = -3;

/// SimGrid's datatype id for MPI_BYTE.
const BYTE: u32 = 6;

/// The longest `sleep` written (ps): the reader's seconds, a double, give back every
/// picosecond below it.
const LONGEST_SLEEP: u64 = 1_000_000_000_000_000;

/// Bytes of a rank's lines kept in memory before they are appended to its file in
/// the spill directory (`DIR.partial`), so that a long run's trace is not held whole.
const SPILL_BYTES: usize = 1 << 20;

/// What a communicator is to the trace.
pub(crate) enum CommName {
    /// MPI_COMM_WORLD: no prefix.
    World,
    /// The rank's MPI_COMM_SELF: a one-member communicator of its own (`s<rank>`), so
    /// that its point-to-point traffic keeps to itself.
    Own,
    /// Another intracommunicator: its index and its members as world ranks, in its
    /// rank order (`None`: the world's, a duplicate of it).
    Other(u32, Option<Arc<[u32]>>),
}

/// One rank's part of the trace.
#[derive(Default)]
struct RankTrace {
    /// Lines not yet in the spill directory.
    text: String,
    /// Some lines are in the spill directory.
    spilled: bool,
    /// The key of each request the replay will hold, by driver handle.
    keys: HashMap<Handle, Key>,
    /// The replay's requests of each key, oldest first.
    queues: HashMap<Key, VecDeque<Handle>>,
    /// The communicators the file has named.
    named: HashSet<u32>,
    /// Non-blocking collectives started.
    icolls: i64,
    /// The run's numbers of the non-blocking collectives started on each
    /// communicator, in order.
    started: HashMap<u32, Vec<u64>>,
}

/// The trace being written.
pub(crate) struct TitWriter {
    dir: PathBuf,
    /// Where ranks' lines go while the run lasts (`DIR.partial`).
    spill: PathBuf,
    ranks: Vec<RankTrace>,
    /// Why lines could not be spilled (the first error).
    io_error: Option<String>,
    /// The first call the format cannot express.
    unwritable: Option<String>,
}

impl TitWriter {
    /// A writer of a trace of `ranks` ranks into `dir`.
    pub fn new(dir: &Path, ranks: u32) -> TitWriter {
        let mut spill = dir.as_os_str().to_owned();
        spill.push(".partial");
        TitWriter {
            dir: dir.to_path_buf(),
            spill: PathBuf::from(spill),
            io_error: None,
            ranks: (0..ranks)
                .map(|r| RankTrace {
                    text: format!("{r} init\n"),
                    ..RankTrace::default()
                })
                .collect(),
            unwritable: None,
        }
    }

    /// Appends rank `r`'s lines to its file in the spill directory once they are many.
    fn spill_if_full(&mut self, r: u32) {
        let t = &mut self.ranks[r as usize];
        if t.text.len() < SPILL_BYTES || self.io_error.is_some() {
            return;
        }
        let path = self.spill.join(format!("rank-{r}.tit"));
        let put = || -> std::io::Result<()> {
            use std::io::Write;
            std::fs::create_dir_all(&self.spill)?;
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
            f.write_all(t.text.as_bytes())
        };
        match put() {
            Ok(()) => {
                t.text.clear();
                t.spilled = true;
            }
            Err(e) => self.io_error = Some(format!("{}: {e}", path.display())),
        }
    }

    /// Notes that rank `r` made a call the format cannot express (the first is kept).
    pub fn refuse(&mut self, r: u32, what: &str) {
        if self.unwritable.is_none() {
            self.unwritable = Some(format!("rank {r} used {what}"));
        }
    }

    fn line(&mut self, r: u32, comm: &CommName, action: std::fmt::Arguments<'_>) {
        let world = self.ranks.len() as u32;
        let t = &mut self.ranks[r as usize];
        match comm {
            CommName::World => {
                let _ = writeln!(t.text, "{r} {action}");
            }
            CommName::Own => {
                // Index 1 is every rank's MPI_COMM_SELF on line: named per rank here.
                if t.named.insert(1) {
                    let _ = writeln!(t.text, "{r} comm_known world s{r} {r}");
                }
                let _ = writeln!(t.text, "{r} @s{r} {action}");
            }
            CommName::Other(c, members) => {
                if t.named.insert(*c) {
                    let _ = write!(t.text, "{r} comm_known world c{c}");
                    match members {
                        Some(m) => m.iter().for_each(|w| {
                            let _ = write!(t.text, " {w}");
                        }),
                        None => (0..world).for_each(|w| {
                            let _ = write!(t.text, " {w}");
                        }),
                    }
                    t.text.push('\n');
                }
                let _ = writeln!(t.text, "{r} @c{c} {action}");
            }
        }
        self.spill_if_full(r);
    }

    /// Rank `r` computed for `ps` picoseconds (a zero-length computation included).
    pub fn compute(&mut self, r: u32, mut ps: u64) {
        let text = &mut self.ranks[r as usize].text;
        loop {
            // Seconds written exactly: the replay reads back the same picoseconds.
            let part = ps.min(LONGEST_SLEEP);
            let _ = writeln!(
                text,
                "{r} sleep {}.{:012}",
                part / 1_000_000_000_000,
                part % 1_000_000_000_000
            );
            ps -= part;
            if ps == 0 {
                break;
            }
        }
        self.spill_if_full(r);
    }

    /// Rank `r`'s request `h` under `key` (the replay's order of it among its key's).
    fn hold(&mut self, r: u32, h: Handle, key: Key) {
        let t = &mut self.ranks[r as usize];
        t.keys.insert(h, key);
        t.queues.entry(key).or_default().push_back(h);
    }

    /// Rank `r` sends `bytes` to world rank `to` (a request `handle` if non-blocking).
    #[allow(clippy::too_many_arguments)]
    pub fn send(&mut self, r: u32, comm: &CommName, to: u32, tag: u32, bytes: u64, sync: bool, handle: Option<Handle>) {
        let name = match (handle.is_some(), sync) {
            (false, false) => "send",
            (false, true) => "Ssend",
            (true, false) => "isend",
            (true, true) => "ISsend",
        };
        self.line(r, comm, format_args!("{name} {to} {tag} {bytes} {BYTE}"));
        if let Some(h) = handle {
            self.hold(r, h, (r.into(), to.into(), tag.into()));
        }
    }

    /// Rank `r` receives up to `bytes` from world rank `from` (or any).
    pub fn recv(&mut self, r: u32, comm: &CommName, from: u32, tag: u32, bytes: u64, handle: Option<Handle>) {
        let from = if from == simpi_mpi::ANY_SOURCE {
            ANY_SOURCE
        } else {
            from.into()
        };
        let tag = if tag == simpi_mpi::ANY_TAG { ANY_TAG } else { tag.into() };
        let name = if handle.is_some() { "irecv" } else { "recv" };
        self.line(r, comm, format_args!("{name} {from} {tag} {bytes} {BYTE}"));
        if let Some(h) = handle {
            self.hold(r, h, (from, r.into(), tag));
        }
    }

    /// The keys of the requests of `hs` that the replay holds, each taken from its
    /// key's queue; a refusal if the replay would take other requests of those keys.
    /// Non-blocking collectives that had nothing to do (`empty`) hold nothing.
    fn take(&mut self, r: u32, hs: &[Handle], empty: &[Handle]) -> Vec<Key> {
        let t = &mut self.ranks[r as usize];
        let mut taken: Vec<Key> = Vec::new();
        let mut by_key: HashMap<Key, HashSet<Handle>> = HashMap::new();
        for &h in hs {
            let Some(key) = t.keys.remove(&h) else { continue };
            if key.0 == ICOLL_SOURCE && empty.contains(&h) {
                t.queues.remove(&key);
                continue;
            }
            taken.push(key);
            by_key.entry(key).or_default().insert(h);
        }
        let mut wrong = false;
        for (key, mine) in by_key {
            let q = t.queues.get_mut(&key).expect("held requests are queued");
            // The replay takes the oldest requests of the key: they must be these.
            if q.iter().take(mine.len()).all(|h| mine.contains(h)) {
                q.drain(..mine.len());
            } else {
                wrong = true;
                q.retain(|h| !mine.contains(h));
            }
            if q.is_empty() {
                t.queues.remove(&key);
            }
        }
        if wrong {
            self.refuse(
                r,
                "requests of one (source, destination, tag) completed in another order than made, \
                 which TIT's completions cannot name",
            );
        }
        taken
    }

    fn write_keys(&mut self, r: u32, what: &str, keys: &[Key]) {
        let list: Vec<String> = keys.iter().map(|(s, d, t)| format!("{s} {d} {t}")).collect();
        let _ = writeln!(self.ranks[r as usize].text, "{r} {what} {}", list.join(" "));
        self.spill_if_full(r);
    }

    /// Rank `r` waited for all of `hs`.
    pub fn wait_all(&mut self, r: u32, hs: &[Handle], empty: &[Handle]) {
        let keys = self.take(r, hs, empty);
        if !keys.is_empty() {
            self.write_keys(r, &format!("waitall {}", keys.len()), &keys);
        }
    }

    /// Rank `r`'s wait for some of the `list` requests (MPI_Waitany: `any`) returned
    /// with `done` complete.
    pub fn wait_some(&mut self, r: u32, list: &[Handle], done: &[Handle], any: bool, empty: &[Handle]) {
        let t = &self.ranks[r as usize];
        let n = list.iter().filter(|h| t.keys.contains_key(h)).count();
        let keys = self.take(r, done, empty);
        match (keys.len(), any) {
            (0, _) => {}
            (_, true) => self.write_keys(r, &format!("waitany {n}"), &keys),
            (k, false) => self.write_keys(r, &format!("waitsome {n} {k}"), &keys),
        }
    }

    /// Rank `r` tested `list` (MPI_Test, Testany, Testall or Testsome: a test of its
    /// first request, at a cost of `cost_ps` that the protocol may grow) and found
    /// `done` complete.
    ///
    /// Written as a test that finds nothing (the replay makes the same test of the same
    /// request, at the same cost), then a wait for those found done, which takes no
    /// time: simpi's `test k 1` would wait first and pay after.
    pub fn test_some(&mut self, r: u32, list: &[Handle], done: &[Handle], cost_ps: u64, empty: &[Handle]) {
        let first = list.first().copied();
        let t = &mut self.ranks[r as usize];
        match first.and_then(|h| t.keys.get(&h).map(|&k| (h, k))) {
            Some((h, key)) if !(key.0 == ICOLL_SOURCE && empty.contains(&h)) => {
                // The replay tests the oldest of the key and puts it last.
                let q = t.queues.get_mut(&key).expect("held requests are queued");
                let oldest = q.pop_front() == Some(h);
                q.push_back(h);
                let (s, d, g) = key;
                let _ = writeln!(t.text, "{r} test {s} {d} {g} 0");
                self.spill_if_full(r);
                if !oldest {
                    self.refuse(
                        r,
                        "a test of a request made after another of the same (source, destination, tag) \
                         still pending, which TIT's tests cannot name",
                    );
                }
            }
            // The engine holds no such request: the test is its cost alone.
            _ => self.compute(r, cost_ps),
        }
        self.wait_all(r, done, empty);
    }

    /// Rank `r` takes part in collective `spec` on `comm`, communicator `index` of the
    /// run (non-blocking if it names a request `handle`: the call numbered `call` there).
    pub fn collective(&mut self, r: u32, comm: &CommName, spec: &CollSpec, handle: Option<(Handle, u32, u64)>) {
        let action = collective_text(spec);
        let i = if handle.is_some() { "i" } else { "" };
        self.line(r, comm, format_args!("{i}{action}"));
        if let Some((h, index, call)) = handle {
            let t = &mut self.ranks[r as usize];
            let n = t.icolls;
            t.icolls += 1;
            t.started.entry(index).or_default().push(call);
            self.hold(r, h, (ICOLL_SOURCE, r.into(), n));
        }
    }

    /// Writes `index.txt` and one `rank-<r>.tit` per rank, or says why the run cannot
    /// be written.
    pub fn finish(mut self) -> Result<PathBuf, String> {
        let mut first: HashMap<u32, (usize, &Vec<u64>)> = HashMap::new();
        for (r, t) in self.ranks.iter().enumerate() {
            for (&c, calls) in &t.started {
                let (r0, seen) = *first.entry(c).or_insert((r, calls));
                if seen != calls && self.unwritable.is_none() {
                    self.unwritable = Some(format!(
                        "ranks {r0} and {r} started the non-blocking collectives of one communicator \
                         in different orders (persistent collectives)"
                    ));
                }
            }
        }
        if let Some(why) = self.unwritable.take() {
            let _ = std::fs::remove_dir_all(&self.spill);
            return Err(format!(
                "--record-tit: {why}, which a TIT trace cannot express; no trace written to {}",
                self.dir.display()
            ));
        }
        if let Some(e) = self.io_error.take() {
            let _ = std::fs::remove_dir_all(&self.spill);
            return Err(format!("--record-tit: {e}"));
        }
        let at = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
        std::fs::create_dir_all(&self.dir).map_err(|e| at(&self.dir, e))?;
        let mut index = String::new();
        for (r, t) in self.ranks.iter_mut().enumerate() {
            let _ = writeln!(t.text, "{r} finalize");
            let name = format!("rank-{r}.tit");
            let path = self.dir.join(&name);
            if t.spilled {
                // The rest after the spilled lines, then the whole file into place.
                use std::io::Write;
                let part = self.spill.join(&name);
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(&part)
                    .and_then(|mut f| f.write_all(t.text.as_bytes()))
                    .map_err(|e| at(&part, e))?;
                std::fs::rename(&part, &path).map_err(|e| at(&path, e))?;
            } else {
                std::fs::write(&path, t.text.as_bytes()).map_err(|e| at(&path, e))?;
            }
            index.push_str(&name);
            index.push('\n');
        }
        let _ = std::fs::remove_dir_all(&self.spill);
        let path = self.dir.join("index.txt");
        std::fs::write(&path, index).map_err(|e| at(&path, e))?;
        Ok(path)
    }
}

/// SimGrid's id of a datatype of `elem` bytes that divides `bytes` (MPI_BYTE if none):
/// algorithms that cut a vector by elements see the element size the run had.
fn datatype(elem: u64, bytes: u64) -> (u64, u32) {
    let id = match elem {
        8 => 0,
        4 => 1,
        2 => 3,
        16 => 14,
        32 => 27,
        _ => BYTE,
    };
    if id == BYTE || !bytes.is_multiple_of(elem) {
        (bytes, BYTE)
    } else {
        (bytes / elem, id)
    }
}

fn list(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}

/// The TIT action of collective `spec` (counts in bytes unless the element size must
/// reach the algorithm; reductions compute nothing, as on line).
fn collective_text(s: &CollSpec) -> String {
    let me = s.me as usize;
    let own = |v: &[u64]| v.get(me).copied().unwrap_or(0);
    let b = BYTE;
    // The vector in elements, where the reader passes the element size on.
    let (c, dt) = datatype(s.elem, s.bytes);
    match s.coll {
        Collective::Barrier => "barrier".into(),
        Collective::Bcast => format!("bcast {c} {} {dt}", s.root),
        Collective::Reduce => format!("reduce {c} 0 {} {dt}", s.root),
        Collective::Allreduce => format!("allreduce {c} 0 {dt}"),
        Collective::Scan => format!("scan {} 0 {b}", s.bytes),
        Collective::Exscan => format!("exscan {} 0 {b}", s.bytes),
        Collective::Alltoall => format!("alltoall {0} {0} {b} {b}", s.bytes),
        Collective::Alltoallv => format!(
            "alltoallv {} {} {} {} {b} {b}",
            s.send_counts.iter().sum::<u64>(),
            list(&s.send_counts),
            s.recv_counts.iter().sum::<u64>(),
            list(&s.recv_counts)
        ),
        Collective::Gather => format!("gather {c} {c} {} {dt} {dt}", s.root),
        Collective::Allgather => format!("allgather {c} {c} {dt} {dt}"),
        Collective::Gatherv => format!("gatherv {} {} {} {b} {b}", own(&s.counts), list(&s.counts), s.root),
        Collective::Allgatherv => format!("allgatherv {} {} {b} {b}", own(&s.counts), list(&s.counts)),
        Collective::Scatter => format!("scatter {0} {0} {1} {b} {b}", s.bytes, s.root),
        Collective::Scatterv => format!("scatterv {} {} {} {b} {b}", list(&s.counts), own(&s.counts), s.root),
        Collective::ReduceScatter => format!("reducescatter {} 0 {b}", list(&s.counts)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE_EMPTY: &[Handle] = &[];

    #[test]
    fn computation_is_written_to_the_picosecond() {
        let mut w = TitWriter::new(Path::new("/nonexistent"), 1);
        w.compute(0, 1_234_567_890_123);
        w.compute(0, 7);
        w.compute(0, 0);
        // Longer than the longest sleep: in parts that add up.
        w.compute(0, 2 * LONGEST_SLEEP + 5);
        assert_eq!(
            w.ranks[0].text,
            "0 init\n0 sleep 1.234567890123\n0 sleep 0.000000000007\n0 sleep 0.000000000000\n\
             0 sleep 1000.000000000000\n0 sleep 1000.000000000000\n0 sleep 0.000000000005\n"
        );
    }

    #[test]
    fn element_sizes_reach_the_trace_only_when_they_divide_the_vector() {
        assert_eq!(datatype(8, 64), (8, 0));
        assert_eq!(datatype(8, 60), (60, BYTE));
        assert_eq!(datatype(3, 9), (9, BYTE));
        assert_eq!(datatype(1, 9), (9, BYTE));
    }

    #[test]
    fn a_communicator_is_named_once_per_rank_before_its_first_use() {
        let mut w = TitWriter::new(Path::new("/nonexistent"), 3);
        let c = CommName::Other(5, Some(Arc::from([2u32, 0].as_slice())));
        w.send(2, &c, 0, 7, 10, false, Some(1));
        w.recv(2, &c, simpi_mpi::ANY_SOURCE, simpi_mpi::ANY_TAG, 10, None);
        w.send(2, &CommName::Own, 2, 1, 4, false, None);
        w.wait_all(2, &[1, 99], NONE_EMPTY);
        assert_eq!(
            w.ranks[2].text,
            "2 init\n2 comm_known world c5 2 0\n2 @c5 isend 0 7 10 6\n2 @c5 recv -333 -444 10 6\n\
             2 comm_known world s2 2\n2 @s2 send 2 1 4 6\n2 waitall 1 2 0 7\n"
        );
        assert!(w.unwritable.is_none());
    }

    #[test]
    fn requests_of_one_key_completed_out_of_order_are_refused() {
        let mut w = TitWriter::new(Path::new("/nonexistent"), 2);
        // Two receives from any source with any tag: one key.
        w.recv(
            0,
            &CommName::World,
            simpi_mpi::ANY_SOURCE,
            simpi_mpi::ANY_TAG,
            8,
            Some(1),
        );
        w.recv(
            0,
            &CommName::World,
            simpi_mpi::ANY_SOURCE,
            simpi_mpi::ANY_TAG,
            8,
            Some(2),
        );
        // Both at once, in any order: the replay takes the two oldest, these.
        w.wait_all(0, &[2, 1], NONE_EMPTY);
        assert!(w.unwritable.is_none());
        w.recv(0, &CommName::World, 1, 3, 8, Some(3));
        w.recv(0, &CommName::World, 1, 3, 8, Some(4));
        w.wait_all(0, &[4], NONE_EMPTY);
        let why = w.unwritable.clone().expect("the newer one first is refused");
        assert!(why.contains("another order"), "{why}");
    }

    #[test]
    fn a_test_puts_its_request_last_as_the_replay_does() {
        let mut w = TitWriter::new(Path::new("/nonexistent"), 1);
        w.send(0, &CommName::World, 0, 1, 8, false, Some(1));
        w.send(0, &CommName::World, 0, 1, 8, false, Some(2));
        // Testing the oldest, found not done: it goes last; the next oldest is 2.
        w.test_some(0, &[1], &[], 100, NONE_EMPTY);
        w.wait_all(0, &[2], NONE_EMPTY);
        assert!(w.unwritable.is_none(), "{:?}", w.unwritable);
        w.wait_all(0, &[1], NONE_EMPTY);
        assert!(w.unwritable.is_none(), "{:?}", w.unwritable);
        assert!(w.ranks[0]
            .text
            .ends_with("0 test 0 0 1 0\n0 waitall 1 0 0 1\n0 waitall 1 0 0 1\n"));
        // A test of a request with nothing behind it costs its time.
        w.test_some(0, &[9], &[], 100, NONE_EMPTY);
        assert!(w.ranks[0].text.ends_with("0 sleep 0.000000000100\n"));
    }

    #[test]
    fn a_non_blocking_collective_with_nothing_to_do_is_not_waited_for() {
        let mut w = TitWriter::new(Path::new("/nonexistent"), 2);
        let spec = CollSpec::new(Collective::Barrier, 2, 0, 0);
        w.collective(0, &CommName::World, &spec, Some((7, 0, 0)));
        w.collective(0, &CommName::World, &spec, Some((8, 0, 1)));
        // Nothing to do for the first: the wait names the second only.
        w.wait_all(0, &[7, 8], &[7]);
        assert!(w.ranks[0]
            .text
            .ends_with("0 ibarrier\n0 ibarrier\n0 waitall 1 -3 0 1\n"));
        // A test of it costs a test's time.
        w.collective(0, &CommName::World, &spec, Some((9, 0, 2)));
        w.test_some(0, &[9], &[9], 5, &[9]);
        assert!(w.ranks[0].text.ends_with("0 ibarrier\n0 sleep 0.000000000005\n"));
        assert!(w.unwritable.is_none());
    }

    #[test]
    fn a_long_trace_goes_through_the_spill_directory_whole() {
        let dir = std::env::temp_dir().join(format!("simpi-tit-spill-{}", std::process::id()));
        let mut w = TitWriter::new(&dir, 2);
        // Each line is "1 sleep 0.000000000007\n", 23 bytes: past two spills.
        let lines = 2 * SPILL_BYTES / 23 + 10;
        for _ in 0..lines {
            w.compute(1, 7);
        }
        assert!(w.ranks[1].spilled && !w.ranks[0].spilled);
        let index = w.finish().unwrap();
        let text = std::fs::read_to_string(dir.join("rank-1.tit")).unwrap();
        assert_eq!(text.lines().count(), lines + 2, "init, the sleeps, finalize");
        assert!(text.starts_with("1 init\n1 sleep") && text.ends_with("1 sleep 0.000000000007\n1 finalize\n"));
        assert_eq!(std::fs::read_to_string(index).unwrap(), "rank-0.tit\nrank-1.tit\n");
        let mut partial = dir.as_os_str().to_owned();
        partial.push(".partial");
        assert!(!Path::new(&partial).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_refused_call_stops_the_trace_with_the_first_reason() {
        let dir = std::env::temp_dir().join(format!("simpi-tit-refused-{}", std::process::id()));
        let mut w = TitWriter::new(&dir, 2);
        w.refuse(1, "MPI_Put");
        w.refuse(0, "MPI_Cancel");
        let e = w.finish().unwrap_err();
        assert!(e.contains("rank 1 used MPI_Put"), "{e}");
        assert!(!dir.exists());
    }
}
