//! The run written as a time-independent trace (`simpi run --record-tit DIR`): what
//! each rank asked the engine to simulate, in simpi's TIT dialect
//! (`docs/formats.md`), so that `simpi replay DIR/index.txt` with the same machine and
//! options simulates the same operations and gives the same times.
//!
//! The lines are written from the calls the session posts to the driver, not from the
//! program's MPI calls: computation is the simulated time the rank computed (`sleep`,
//! exact to the picosecond, whatever the host's speed), a receive's size is its
//! buffer's (the engine takes the message's), a collective is the one the engine timed
//! (a communicator's creation is timed as an allgather of 8 bytes), and calls that
//! cost nothing leave no line. Requests are named by (source, destination, tag) in
//! world ranks, as the format does; non-blocking collectives by `-3 rank n`.
//!
//! What the format cannot say is refused when the run ends (one-sided communication,
//! intercommunicators, cancelled receives): the run's result stands, the trace is not
//! written. Synchronous sends are written as `Ssend`/`ISsend`, which `simpi replay`
//! simulates as synchronous.

use simpi_mpi::coll::{CollSpec, Collective};
use simpi_mpi::driver::Handle;
use std::collections::{HashMap, HashSet};
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

/// What a communicator is to the trace.
pub(crate) enum CommName {
    /// MPI_COMM_WORLD: no prefix.
    World,
    /// The rank's MPI_COMM_SELF (`@self`).
    Own,
    /// Another intracommunicator: its index and its members as world ranks, in its
    /// rank order.
    Other(u32, Arc<[u32]>),
}

/// The trace being written.
pub(crate) struct TitWriter {
    dir: PathBuf,
    /// Each rank's lines so far.
    text: Vec<String>,
    /// Per rank: the key of each outstanding request, by driver handle.
    keys: Vec<HashMap<Handle, Key>>,
    /// Per rank: the communicators its file has named.
    named: Vec<HashSet<u32>>,
    /// Per rank: non-blocking collectives started.
    icolls: Vec<i64>,
    /// The first call the format cannot express.
    unwritable: Option<String>,
}

impl TitWriter {
    /// A writer of a trace of `ranks` ranks into `dir`.
    pub fn new(dir: &Path, ranks: u32) -> TitWriter {
        let n = ranks as usize;
        TitWriter {
            dir: dir.to_path_buf(),
            text: (0..n).map(|r| format!("{r} init\n")).collect(),
            keys: vec![HashMap::new(); n],
            named: vec![HashSet::new(); n],
            icolls: vec![0; n],
            unwritable: None,
        }
    }

    /// Notes that rank `r` made a call the format cannot express (the first is kept).
    pub fn refuse(&mut self, r: u32, what: &str) {
        if self.unwritable.is_none() {
            self.unwritable = Some(format!("rank {r} used {what}"));
        }
    }

    fn line(&mut self, r: u32, comm: &CommName, action: std::fmt::Arguments<'_>) {
        let prefix = match comm {
            CommName::World => String::new(),
            CommName::Own => "@self ".into(),
            CommName::Other(c, members) => {
                if self.named[r as usize].insert(*c) {
                    let list: Vec<String> = members.iter().map(u32::to_string).collect();
                    let _ = writeln!(self.text[r as usize], "{r} comm_known world c{c} {}", list.join(" "));
                }
                format!("@c{c} ")
            }
        };
        let _ = writeln!(self.text[r as usize], "{r} {prefix}{action}");
    }

    /// Rank `r` computed for `ps` picoseconds.
    pub fn compute(&mut self, r: u32, ps: u64) {
        if ps > 0 {
            // Seconds written exactly: the replay reads back the same picoseconds.
            let _ = writeln!(
                self.text[r as usize],
                "{r} sleep {}.{:012}",
                ps / 1_000_000_000_000,
                ps % 1_000_000_000_000
            );
        }
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
            self.keys[r as usize].insert(h, (r.into(), to.into(), tag.into()));
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
            self.keys[r as usize].insert(h, (from, r.into(), tag));
        }
    }

    /// The key of rank `r`'s request `h` (`None`: a request that needs no wait, such as
    /// a collective with nothing to do).
    fn key(&self, r: u32, h: Handle) -> Option<Key> {
        self.keys[r as usize].get(&h).copied()
    }

    fn keys_text(&self, r: u32, hs: &[Handle]) -> (usize, String) {
        let keys: Vec<String> = hs
            .iter()
            .filter_map(|&h| self.key(r, h))
            .map(|(s, d, t)| format!("{s} {d} {t}"))
            .collect();
        (keys.len(), keys.join(" "))
    }

    /// Rank `r` waits for all of `hs`.
    pub fn wait_all(&mut self, r: u32, hs: &[Handle]) {
        let (n, keys) = self.keys_text(r, hs);
        if n > 0 {
            let _ = writeln!(self.text[r as usize], "{r} waitall {n} {keys}");
        }
        for h in hs {
            self.keys[r as usize].remove(h);
        }
    }

    /// Rank `r`'s wait for some of the `list` requests (MPI_Waitany: `any`) returned
    /// with `done` complete.
    pub fn wait_some(&mut self, r: u32, list: &[Handle], done: &[Handle], any: bool) {
        let n = list.iter().filter(|&&h| self.key(r, h).is_some()).count();
        let (k, keys) = self.keys_text(r, done);
        if k > 0 {
            let line = if any {
                format!("{r} waitany {n} {keys}")
            } else {
                format!("{r} waitsome {n} {k} {keys}")
            };
            self.text[r as usize].push_str(&line);
            self.text[r as usize].push('\n');
        }
        for h in done {
            self.keys[r as usize].remove(h);
        }
    }

    /// Rank `r` tested request `h` (at a cost of `cost_ps`, which the protocol may
    /// grow) and found it complete or not.
    ///
    /// Written as a test that finds nothing (the replay makes the same test, at the
    /// same cost) and, if it found the request complete, a wait for it, which takes no
    /// time: simpi's `test k 1` would wait first and pay after.
    pub fn test(&mut self, r: u32, h: Handle, complete: bool, cost_ps: u64) {
        let done = [h];
        self.test_some(r, &done, &done[..usize::from(complete)], cost_ps);
    }

    /// Rank `r` tested `list` (MPI_Test, Testany, Testall or Testsome: a test of its
    /// first request) and found `done` complete.
    pub fn test_some(&mut self, r: u32, list: &[Handle], done: &[Handle], cost_ps: u64) {
        match list.first().and_then(|&h| self.key(r, h)) {
            Some((s, d, t)) => {
                let _ = writeln!(self.text[r as usize], "{r} test {s} {d} {t} 0");
            }
            // The engine has no such request: the test is its cost alone.
            None => self.compute(r, cost_ps),
        }
        self.wait_all(r, done);
    }

    /// Rank `r` takes part in collective `spec` on `comm` (non-blocking if it names a
    /// request `handle`).
    pub fn collective(&mut self, r: u32, comm: &CommName, spec: &CollSpec, handle: Option<Handle>) {
        let action = collective_text(spec);
        let i = if handle.is_some() { "i" } else { "" };
        self.line(r, comm, format_args!("{i}{action}"));
        if let Some(h) = handle {
            let n = self.icolls[r as usize];
            self.icolls[r as usize] += 1;
            self.keys[r as usize].insert(h, (ICOLL_SOURCE, r.into(), n));
        }
    }

    /// Writes `index.txt` and one `rank-<r>.tit` per rank, or says why the run cannot
    /// be written.
    pub fn finish(mut self) -> Result<PathBuf, String> {
        if let Some(why) = self.unwritable.take() {
            return Err(format!(
                "--record-tit: {why}, which a TIT trace cannot express; no trace written to {}",
                self.dir.display()
            ));
        }
        let at = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
        std::fs::create_dir_all(&self.dir).map_err(|e| at(&self.dir, e))?;
        let mut index = String::new();
        for (r, text) in self.text.iter_mut().enumerate() {
            let _ = writeln!(text, "{r} finalize");
            let name = format!("rank-{r}.tit");
            let path = self.dir.join(&name);
            std::fs::write(&path, text.as_bytes()).map_err(|e| at(&path, e))?;
            index.push_str(&name);
            index.push('\n');
        }
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
    match s.coll {
        Collective::Barrier => "barrier".into(),
        Collective::Bcast => {
            let (c, dt) = datatype(s.elem, s.bytes);
            format!("bcast {c} {} {dt}", s.root)
        }
        Collective::Reduce => {
            let (c, dt) = datatype(s.elem, s.bytes);
            format!("reduce {c} 0 {} {dt}", s.root)
        }
        Collective::Allreduce => {
            let (c, dt) = datatype(s.elem, s.bytes);
            format!("allreduce {c} 0 {dt}")
        }
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
        Collective::Gather => {
            let (c, dt) = datatype(s.elem, s.bytes);
            format!("gather {c} {c} {} {dt} {dt}", s.root)
        }
        Collective::Allgather => {
            let (c, dt) = datatype(s.elem, s.bytes);
            format!("allgather {c} {c} {dt} {dt}")
        }
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

    #[test]
    fn computation_is_written_to_the_picosecond() {
        let mut w = TitWriter::new(Path::new("/nonexistent"), 1);
        w.compute(0, 1_234_567_890_123_456);
        w.compute(0, 7);
        w.compute(0, 0);
        assert_eq!(w.text[0], "0 init\n0 sleep 1234.567890123456\n0 sleep 0.000000000007\n");
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
        let c = CommName::Other(5, Arc::from([2u32, 0].as_slice()));
        w.send(2, &c, 0, 7, 10, false, Some(1));
        w.recv(2, &c, simpi_mpi::ANY_SOURCE, simpi_mpi::ANY_TAG, 10, None);
        w.wait_all(2, &[1, 99]);
        assert_eq!(
            w.text[2],
            "2 init\n2 comm_known world c5 2 0\n2 @c5 isend 0 7 10 6\n2 @c5 recv -333 -444 10 6\n\
             2 waitall 1 2 0 7\n"
        );
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
