//! One TIT action: its grammar and how its arguments are read (numbers follow SimGrid's
//! parsing: counts may be written as floats and are truncated; partners, tags, roots and
//! count arrays take the integer prefix).

use super::datatypes::datatype_size;
use crate::quote::quote;
use simpi_mpi::comm::Creation;

/// A request's identity in a trace: (source, destination, tag) in world ranks.
pub(crate) type Key = (i64, i64, i64);

/// The source simpi's tracer writes for a request of the `k`-th non-blocking collective.
pub(crate) const ICOLL_SOURCE: i64 = -3;
/// The source simpi's tracer writes for a request the trace does not model (a null request,
/// a file or generalized request): waiting on it takes no time.
pub(crate) const UNMODELLED_SOURCE: i64 = -4;
/// The partner simpi's tracer writes for MPI_PROC_NULL: the operation is dropped.
pub(crate) const PROC_NULL: i64 = -2;

/// A parsed action. Sizes are in bytes (count × datatype size).
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// `init [x]`: `x` present makes MPI_DOUBLE the default datatype.
    Init {
        /// Whether the default datatype becomes MPI_DOUBLE.
        double_default: bool,
    },
    /// Actions that take no time (`finalize`, `location`, `comm_size`, SimGrid-style
    /// `comm_split`/`comm_dup` without arguments, `startall`).
    NoOp,
    /// `send`, `isend`, `Ssend`, `ISsend`, `bsend`, `ibsend`.
    Send {
        /// False for the non-blocking forms.
        blocking: bool,
        /// `Ssend`, `ISsend`: synchronous.
        sync: bool,
        /// Destination world rank.
        peer: i64,
        /// Tag.
        tag: i64,
        /// Bytes.
        bytes: u64,
    },
    /// `recv`, `irecv`.
    Recv {
        /// False for `irecv`.
        blocking: bool,
        /// Source world rank (negative: any).
        peer: i64,
        /// Tag (negative: any).
        tag: i64,
        /// Bytes (0 when the trace gives a negative count: probe first).
        bytes: u64,
    },
    /// `Start peer tag bytes dt [r]`: a persistent request started (bytes, not elements).
    /// SimGrid writes this rank as the partner of a receive; simpi's tracer writes the
    /// source and a final `r`.
    Start {
        /// Partner (this rank for a SimGrid receive).
        peer: i64,
        /// Tag.
        tag: i64,
        /// Bytes.
        bytes: u64,
        /// True when the trace marks it a receive (`r`).
        recv: bool,
    },
    /// `startall n (peer tag bytes s|r)*n` (simpi's tracer; SimGrid's `Startall` is a no-op).
    Startall {
        /// (partner, tag, bytes, is a receive) of each started request.
        starts: Vec<(i64, i64, u64, bool)>,
    },
    /// `wait src dst tag`.
    Wait {
        /// Source world rank of the request.
        src: i64,
        /// Destination world rank.
        dst: i64,
        /// Tag.
        tag: i64,
    },
    /// `test src dst tag [flag]`; simpi's tracer adds flag 1 when the request completed.
    Test {
        /// Source world rank of the request.
        src: i64,
        /// Destination world rank.
        dst: i64,
        /// Tag.
        tag: i64,
        /// The real call found it complete.
        done: bool,
    },
    /// `waitall [count [src dst tag]*count]`: every outstanding request, or the listed ones.
    Waitall {
        /// The requests waited for, when the trace lists them.
        reqs: Option<Vec<Key>>,
    },
    /// `waitAny`/`waitany [count [src dst tag]]`: any one outstanding request, or the one
    /// the real call completed.
    Waitany {
        /// The request that completed, when the trace says.
        done: Option<Key>,
    },
    /// `waitsome count k [src dst tag]*k` (simpi's tracer): the requests that completed.
    Waitsome {
        /// The requests that completed.
        done: Vec<Key>,
    },
    /// `testany`, `testall`, `testsome`, `iprobe`: a non-blocking check; simpi's tracer lists
    /// the requests the real call completed (`testany n flag [key]`, `testall n flag [key*n]`,
    /// `testsome n k [key*k]`).
    TestSome {
        /// The requests the real call completed.
        done: Vec<Key>,
    },
    /// `sendRecv scount dst rcount src [sdt] [rdt] [stag rtag]` (tags 0 unless given).
    SendRecv(Box<SendRecv>),
    /// A non-blocking collective (`ibcast`, `iallreduce`, ...): the collective it starts.
    Nonblocking(Box<Action>),
    /// `compute flops`.
    Compute {
        /// Floating-point operations.
        flops: f64,
    },
    /// `sleep seconds`.
    Sleep {
        /// Seconds.
        seconds: f64,
    },
    /// `barrier`.
    Barrier,
    /// `bcast count [root] [dt]`.
    Bcast {
        /// Bytes.
        bytes: u64,
        /// Root (communicator rank).
        root: i64,
        /// Bytes per element of its datatype (the split binary tree halves the message
        /// by elements).
        elem: u64,
    },
    /// `reduce count comp [root] [dt]`.
    Reduce {
        /// Bytes.
        bytes: u64,
        /// Flops of the reduction, computed after it.
        comp: f64,
        /// Root.
        root: i64,
        /// Bytes per element of its datatype (SimGrid's scatter-gather reduce cuts the
        /// vector by elements).
        elem: u64,
    },
    /// `allreduce count comp [dt]`.
    Allreduce {
        /// Bytes.
        bytes: u64,
        /// Flops computed after it.
        comp: f64,
        /// Bytes per element of its datatype.
        elem: u64,
    },
    /// `alltoall scount rcount [sdt] [rdt]`.
    Alltoall {
        /// Bytes sent to each rank.
        sbytes: u64,
    },
    /// `alltoallv ssum sc.. rsum rc.. [sdt] [rdt]`.
    Alltoallv {
        /// Bytes sent to each rank.
        send: Box<[u64]>,
        /// Bytes received from each rank.
        recv: Box<[u64]>,
    },
    /// `gather sc rc [root] [sdt] [rdt]` and `allgather sc rc [sdt] [rdt]`.
    Gather {
        /// True for allgather.
        all: bool,
        /// Bytes each rank contributes.
        sbytes: u64,
        /// Root.
        root: i64,
        /// Bytes per element of the send datatype (the synchronised linear gather cuts
        /// its first segment by elements).
        elem: u64,
    },
    /// `gatherv sc rc.. [root] [sdt] [rdt]` and `allgatherv sc rc.. [...]`.
    Gatherv(Box<Gatherv>),
    /// `scatter sc rc [root] [sdt] [rdt]`.
    Scatter {
        /// Bytes each rank receives.
        rbytes: u64,
        /// Root.
        root: i64,
    },
    /// `scatterv sc.. rc [root] [sdt] [rdt]`.
    Scatterv(Box<Scatterv>),
    /// `reducescatter rc.. comp [dt]`.
    ReduceScatter {
        /// Bytes each rank ends with.
        recv: Vec<u64>,
        /// Flops computed after it.
        comp: f64,
    },
    /// `scan count comp [dt]` / `exscan ...`.
    Scan {
        /// True for exscan.
        exclusive: bool,
        /// Bytes.
        bytes: u64,
        /// Flops computed after it.
        comp: f64,
    },
    /// `comm_split parent color key new|-`, `comm_dup parent new` and `comm_create
    /// parent new|- members..` (simpi's extensions; `comm_create` is also written for the
    /// other calls that make a communicator from a known member list: `comm_split_type`,
    /// `comm_create_group`, `cart_create`, `cart_sub`, `graph_create`,
    /// `dist_graph_create`, `dist_graph_create_adjacent`).
    Comm(Box<Creation>),
}

/// The arguments of `sendRecv` (boxed: actions are passed between threads, and the
/// common ones fit a cache line only without it).
#[derive(Clone, Debug, PartialEq)]
pub struct SendRecv {
    /// Bytes sent.
    pub sbytes: u64,
    /// Destination.
    pub dst: i64,
    /// Bytes received.
    pub rbytes: u64,
    /// Source.
    pub src: i64,
    /// Send tag.
    pub stag: i64,
    /// Receive tag.
    pub rtag: i64,
}

/// The arguments of `gatherv` and `allgatherv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Gatherv {
    /// True for allgatherv.
    pub all: bool,
    /// Bytes this rank contributes.
    pub sbytes: u64,
    /// Bytes gathered from each rank (meaningful where they are written).
    pub recv: Vec<u64>,
    /// Root.
    pub root: i64,
}

/// The arguments of `scatterv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Scatterv {
    /// Bytes sent to each rank (meaningful at the root).
    pub send: Vec<u64>,
    /// Bytes this rank receives.
    pub rbytes: u64,
    /// Root.
    pub root: i64,
}

/// Reads one action from its name and arguments. `comm_size` sizes the count arrays;
/// `double_default` says whether a missing datatype means MPI_DOUBLE (else MPI_BYTE).
///
/// Every field is checked: how many there are (each action takes what SimGrid's writer
/// and replayer or simpi's tracer put on its line, nothing more), that counts, sizes and
/// computation amounts are finite and not negative (a receive's negative count is
/// SimGrid's "size unknown": it takes the message's), that datatype ids and flags are
/// known. Errors quote at most a short piece of a field.
pub(crate) fn parse(name: &str, a: &[&str], comm_size: usize, double_default: bool) -> Result<Action, String> {
    let f = Fields {
        name,
        a,
        double_default,
    };
    if let Some(inner) = name.strip_prefix('i').filter(|n| is_collective(n)) {
        return Ok(Action::Nonblocking(Box::new(parse(
            inner,
            a,
            comm_size,
            double_default,
        )?)));
    }
    let n = comm_size;
    // The commonest actions first: a string match tries its arms in order.
    Ok(match name {
        "compute" => {
            f.arity(1, 1, "a number of flops")?;
            Action::Compute { flops: f.amount(0)? }
        }
        "send" | "isend" | "Ssend" | "ISsend" | "bsend" | "ibsend" | "rsend" | "irsend" => {
            f.arity(3, 4, "a destination, a tag, a count and optionally a datatype")?;
            Action::Send {
                blocking: matches!(name, "send" | "Ssend" | "bsend" | "rsend"),
                sync: matches!(name, "Ssend" | "ISsend"),
                peer: f.int(0)?,
                tag: f.int(1)?,
                bytes: f.bytes(f.count(2)?, f.dt(3)?)?,
            }
        }
        "recv" | "irecv" => {
            f.arity(3, 4, "a source, a tag, a count and optionally a datatype")?;
            Action::Recv {
                blocking: name == "recv",
                peer: f.int(0)?,
                tag: f.int(1)?,
                // A count <= 0 is SimGrid's "size unknown" (its replay probes for it):
                // the receive takes the size of the message it matches.
                bytes: f.bytes(f.any_count(2)?.max(0) as u64, f.dt(3)?)?,
            }
        }
        "Start" => {
            f.arity(3, 5, "a partner, a tag, a size in bytes, optionally a datatype and 'r'")?;
            f.dt(3)?;
            let recv = match a.get(4) {
                None => false,
                Some(&"r") => true,
                Some(t) => return Err(f.bad(4, "'r' (a receive)", t)),
            };
            Action::Start {
                peer: f.int(0)?,
                tag: f.int(1)?,
                bytes: f.count(2)?,
                recv,
            }
        }
        "wait" => {
            f.arity(3, 3, "a source, a destination and a tag")?;
            Action::Wait {
                src: f.int(0)?,
                dst: f.int(1)?,
                tag: f.int(2)?,
            }
        }
        "test" => {
            f.arity(
                3,
                4,
                "a source, a destination, a tag and optionally whether it completed (0 or 1)",
            )?;
            Action::Test {
                src: f.int(0)?,
                dst: f.int(1)?,
                tag: f.int(2)?,
                done: a.len() == 4 && f.flag(3)?,
            }
        }
        "waitall" => {
            // SimGrid: nothing or the request count (every outstanding request);
            // simpi's tracer: the count and a key per request.
            let reqs = if a.len() <= 1 {
                if !a.is_empty() {
                    f.small(0)?;
                }
                None
            } else {
                let k = f.small(0)?;
                f.keys_exactly(1, k, "request")?;
                f.keys(1, k)?
            };
            Action::Waitall { reqs }
        }
        "init" => {
            f.arity(0, 1, "nothing, or a value that makes MPI_DOUBLE the default datatype")?;
            Action::Init {
                double_default: !a.is_empty(),
            }
        }
        "finalize" | "request_free" | "barrier" => {
            f.arity(0, 0, "no argument")?;
            if name == "barrier" {
                Action::Barrier
            } else {
                Action::NoOp
            }
        }
        "comm_size" | "comm_free" => {
            f.arity(0, 1, "at most one argument")?;
            Action::NoOp
        }
        "probe" => {
            f.arity(0, 2, "a source and a tag")?;
            f.ints(0..a.len())?;
            Action::NoOp
        }
        "send_init" | "ssend_init" | "bsend_init" | "rsend_init" | "recv_init" => {
            if !a.is_empty() {
                f.arity(3, 4, "a partner, a tag, a size and optionally a datatype")?;
                f.ints(0..2)?;
                f.count(2)?;
                f.dt(3)?;
            }
            Action::NoOp
        }
        // Free text (a source location) and SimGrid's no-op: nothing to check.
        "location" | "Startall" => Action::NoOp,
        "iprobe" => {
            f.arity(0, 3, "a source, a tag and whether a message was found (0 or 1)")?;
            f.ints(0..a.len().min(2))?;
            if a.len() == 3 {
                f.flag(2)?;
            }
            Action::TestSome { done: Vec::new() }
        }
        "startall" => {
            let k = if a.is_empty() { 0 } else { f.small(0)? };
            let want = 1 + 4 * k;
            if a.len() != want.max(1) && !(a.is_empty() && k == 0) {
                return Err(format!(
                    "'startall {k}' needs a partner, a tag, a size and s or r per request: {} fields, found {}",
                    want,
                    a.len()
                ));
            }
            let starts = (0..k)
                .map(|j| {
                    let at = 1 + 4 * j;
                    let recv = match a[at + 3] {
                        "r" => true,
                        "s" => false,
                        t => return Err(f.bad(at + 3, "s or r", t)),
                    };
                    Ok((f.int(at)?, f.int(at + 1)?, f.count(at + 2)?, recv))
                })
                .collect::<Result<_, String>>()?;
            Action::Startall { starts }
        }
        "waitAny" | "waitany" => {
            // SimGrid: nothing or the request count; simpi's tracer: the count and the
            // key of the request that completed.
            if a.len() > 1 && a.len() != 4 {
                return Err(format!(
                    "'{name}' takes a request count and the source, destination and tag of the request \
                     that completed (4 fields), or the count alone; found {} fields",
                    a.len()
                ));
            }
            if !a.is_empty() {
                f.small(0)?;
            }
            Action::Waitany {
                done: f.keys(1, 1)?.map(|k| k[0]),
            }
        }
        "waitsome" => {
            f.arity(2, usize::MAX, "a request count and a completed count")?;
            let k = f.completed(0, 1)?;
            f.keys_exactly(2, k, "completed request")?;
            Action::Waitsome {
                done: f.keys(2, k)?.unwrap_or_default(),
            }
        }
        "testany" | "testall" | "testsome" => {
            // simpi's tracer: `n flag|k keys..`; SimGrid writes no argument (or a count).
            let done = if a.len() >= 2 {
                let k = match name {
                    "testany" => usize::from(f.flag(1)?),
                    "testall" => {
                        let n = f.small(0)?;
                        if f.flag(1)? {
                            n
                        } else {
                            0
                        }
                    }
                    _ => f.completed(0, 1)?,
                };
                f.keys_exactly(2, k, "completed request")?;
                f.keys(2, k)?.unwrap_or_default()
            } else {
                if !a.is_empty() {
                    f.small(0)?;
                }
                Vec::new()
            };
            Action::TestSome { done }
        }
        "sendRecv" | "sendrecv_replace" => {
            f.arity(
                4,
                8,
                "a send count, a destination, a receive count, a source, optionally two datatypes and two tags",
            )?;
            if a.len() == 7 {
                return Err(format!(
                    "'{name}' has a send tag but no receive tag: give both, or neither"
                ));
            }
            Action::SendRecv(Box::new(SendRecv {
                sbytes: f.bytes(f.count(0)?, f.dt(4)?)?,
                dst: f.int(1)?,
                rbytes: f.bytes(f.any_count(2)?.max(0) as u64, f.dt(5)?)?,
                src: f.int(3)?,
                stag: f.opt_int(6, 0)?,
                rtag: f.opt_int(7, 0)?,
            }))
        }
        "sleep" => {
            f.arity(1, 1, "a duration in seconds")?;
            Action::Sleep { seconds: f.amount(0)? }
        }
        "bcast" => {
            f.arity(1, 3, "a count, optionally a root and a datatype")?;
            let elem = f.dt(2)?;
            Action::Bcast {
                bytes: f.bytes(f.count(0)?, elem)?,
                root: f.opt_int(1, 0)?,
                elem,
            }
        }
        "reduce" => {
            f.arity(2, 4, "a count, a computation amount, optionally a root and a datatype")?;
            let elem = f.dt(3)?;
            Action::Reduce {
                bytes: f.bytes(f.count(0)?, elem)?,
                comp: f.amount(1)?,
                root: f.opt_int(2, 0)?,
                elem,
            }
        }
        "allreduce" => {
            f.arity(2, 3, "a count, a computation amount and optionally a datatype")?;
            let elem = f.dt(2)?;
            Action::Allreduce {
                bytes: f.bytes(f.count(0)?, elem)?,
                comp: f.amount(1)?,
                elem,
            }
        }
        "alltoall" => {
            f.arity(2, 4, "a send and a receive count, optionally two datatypes")?;
            f.count(1)?;
            f.dt(3)?;
            Action::Alltoall {
                sbytes: f.bytes(f.count(0)?, f.dt(2)?)?,
            }
        }
        "alltoallv" => {
            f.arity(
                2 * n + 2,
                2 * n + 4,
                &format!(
                    "a send total, {n} send counts, a receive total, {n} receive counts (one per rank of \
                     the communicator), optionally two datatypes"
                ),
            )?;
            f.count(0)?;
            f.count(1 + n)?;
            let (sd, rd) = (f.dt(2 + 2 * n)?, f.dt(3 + 2 * n)?);
            Action::Alltoallv {
                send: f.counts(1, n, sd)?.into_boxed_slice(),
                recv: f.counts(2 + n, n, rd)?.into_boxed_slice(),
            }
        }
        "gather" | "allgather" => {
            let all = name == "allgather";
            if all {
                f.arity(2, 4, "a send and a receive count, optionally two datatypes")?;
            } else {
                f.arity(2, 5, "a send and a receive count, optionally a root and two datatypes")?;
            }
            f.count(1)?;
            let (root, sdt_at) = if all { (0, 2) } else { (f.opt_int(2, 0)?, 3) };
            f.dt(sdt_at + 1)?;
            let elem = f.dt(sdt_at)?;
            Action::Gather {
                all,
                sbytes: f.bytes(f.count(0)?, elem)?,
                root,
                elem,
            }
        }
        "gatherv" | "allgatherv" => {
            let all = name == "allgatherv";
            let counts = format!("a send count and {n} receive counts (one per rank of the communicator)");
            if all {
                f.arity(
                    n + 1,
                    2 * n + 3,
                    &format!("{counts}, optionally datatypes and displacements"),
                )?;
            } else {
                f.arity(n + 1, n + 4, &format!("{counts}, optionally a root and two datatypes"))?;
            }
            let rest = a.len() - 1 - n;
            let (root, sdt_at, rdt_at) = if all {
                // Optional: "sdt rdt", "sdt rdt displs..", or "displs.." alone, told apart
                // by count as SimGrid does: more than the ranks, datatypes then
                // displacements; more than two, displacements; else datatypes (so on two
                // ranks two values are datatypes).
                if rest > n {
                    f.ints(3 + n..a.len())?;
                    (0, Some(1 + n), Some(2 + n))
                } else if rest > 2 {
                    if rest != n {
                        return Err(format!(
                            "'{name}' has {rest} values after its counts: expected two datatypes, {n} \
                             displacements (one per rank), or both"
                        ));
                    }
                    f.ints(1 + n..a.len())?;
                    (0, None, None)
                } else {
                    (0, Some(1 + n), Some(2 + n))
                }
            } else {
                (f.opt_int(1 + n, 0)?, Some(2 + n), Some(3 + n))
            };
            let sd = sdt_at.map_or(Ok(f.default_dt()), |i| f.dt(i))?;
            let rd = rdt_at.map_or(Ok(f.default_dt()), |i| f.dt(i))?;
            Action::Gatherv(Box::new(Gatherv {
                all,
                sbytes: f.bytes(f.count(0)?, sd)?,
                recv: f.counts(1, n, rd)?,
                root,
            }))
        }
        "scatter" => {
            f.arity(2, 5, "a send and a receive count, optionally a root and two datatypes")?;
            f.count(0)?;
            f.dt(3)?;
            Action::Scatter {
                rbytes: f.bytes(f.count(1)?, f.dt(4)?)?,
                root: f.opt_int(2, 0)?,
            }
        }
        "scatterv" => {
            f.arity(
                n + 1,
                n + 4,
                &format!(
                    "{n} send counts (one per rank of the communicator), a receive count, optionally a \
                     root and two datatypes"
                ),
            )?;
            let (sd, rd) = (f.dt(n + 2)?, f.dt(n + 3)?);
            Action::Scatterv(Box::new(Scatterv {
                send: f.counts(0, n, sd)?,
                rbytes: f.bytes(f.count(n)?, rd)?,
                root: f.opt_int(n + 1, 0)?,
            }))
        }
        "reducescatterblock" => {
            f.arity(2, 3, "a receive count, a computation amount and optionally a datatype")?;
            let d = f.dt(2)?;
            Action::ReduceScatter {
                recv: vec![f.bytes(f.count(0)?, d)?; n],
                comp: f.amount(1)?,
            }
        }
        "reducescatter" => {
            f.arity(
                n + 1,
                n + 2,
                &format!(
                    "{n} receive counts (one per rank of the communicator), a computation amount and \
                     optionally a datatype"
                ),
            )?;
            let d = f.dt(n + 1)?;
            Action::ReduceScatter {
                recv: f.counts(0, n, d)?,
                comp: f.amount(n)?,
            }
        }
        "scan" | "exscan" => {
            f.arity(2, 3, "a count, a computation amount and optionally a datatype")?;
            let d = f.dt(2)?;
            Action::Scan {
                exclusive: name == "exscan",
                bytes: f.bytes(f.count(0)?, d)?,
                comp: f.amount(1)?,
            }
        }
        "comm_split" if !a.is_empty() => {
            f.arity(
                4,
                4,
                "a parent communicator, a color, a key and the new communicator's id (or -)",
            )?;
            Action::Comm(Box::new(Creation::Split {
                parent: f.comm_id(0)?,
                color: f.int(1)?,
                key: f.int(2)?,
                new: (a[3] != "-").then(|| f.comm_id(3)).transpose()?,
            }))
        }
        "comm_dup" if !a.is_empty() => {
            f.arity(2, 2, "a parent communicator and the new communicator's id")?;
            Action::Comm(Box::new(Creation::Dup {
                parent: f.comm_id(0)?,
                new: f.comm_id(1)?,
            }))
        }
        "comm_create"
        | "comm_known"
        | "comm_split_type"
        | "comm_create_group"
        | "cart_create"
        | "cart_sub"
        | "graph_create"
        | "dist_graph_create"
        | "dist_graph_create_adjacent" => {
            f.arity(
                2,
                usize::MAX,
                "a parent communicator, the new id (or -) and the members",
            )?;
            let members = a[2..]
                .iter()
                .map(|t| {
                    t.parse::<u32>()
                        .map_err(|_| format!("expected a world rank, found {}", quote(t)))
                })
                .collect::<Result<_, _>>()?;
            Action::Comm(Box::new(Creation::Create {
                parent: f.comm_id(0)?,
                new: (a[1] != "-").then(|| f.comm_id(1)).transpose()?,
                members,
            }))
        }
        "comm_split" | "comm_dup" => Action::NoOp,
        other => return Err(format!("unknown action {}", quote(other))),
    })
}

/// A line's fields and how to read them.
struct Fields<'a, 't> {
    name: &'a str,
    a: &'a [&'t str],
    double_default: bool,
}

impl Fields<'_, '_> {
    /// `min..=max` fields, `what` naming them for the message.
    #[inline]
    fn arity(&self, min: usize, max: usize, what: &str) -> Result<(), String> {
        let n = self.a.len();
        if n < min {
            return Err(format!(
                "'{}' takes {what}: at least {min} field(s), found {n}",
                self.name
            ));
        }
        if n > max {
            return Err(format!(
                "'{}' takes {what}: at most {max} field(s), found {n} (the first extra one is {})",
                self.name,
                quote(self.a[max])
            ));
        }
        Ok(())
    }

    /// What is wrong with field `i`: `expected` was wanted, `found` is there.
    fn bad(&self, i: usize, expected: &str, found: &str) -> String {
        format!(
            "'{}' field {}: expected {expected}, found {}",
            self.name,
            i + 1,
            quote(found)
        )
    }

    fn default_dt(&self) -> u64 {
        if self.double_default {
            8
        } else {
            1
        }
    }

    /// The size of the datatype in field `i`, or the default one if there is none.
    #[inline]
    fn dt(&self, i: usize) -> Result<u64, String> {
        match self.a.get(i) {
            None => Ok(self.default_dt()),
            Some(t) => {
                let id = int_prefix(t).ok_or_else(|| self.bad(i, "a datatype id", t))?;
                datatype_size(id).ok_or_else(|| format!("unknown datatype id {id} (SimGrid's ids are -1 to 59)"))
            }
        }
    }

    /// A count (of elements, or of bytes), not negative.
    #[inline]
    fn count(&self, i: usize) -> Result<u64, String> {
        let c = self.any_count(i)?;
        if c < 0 {
            return Err(self.negative(i));
        }
        Ok(c as u64)
    }

    /// A count that may be negative.
    #[inline]
    fn any_count(&self, i: usize) -> Result<i64, String> {
        count(self.a[i])
    }

    /// `n` counts from field `from`, each in bytes of `size`-byte elements. SimGrid
    /// reads count arrays with `stoi`: the integer prefix (`1e3` is 1).
    fn counts(&self, from: usize, n: usize, size: u64) -> Result<Vec<u64>, String> {
        (from..from + n)
            .map(|i| {
                let c = self.int(i)?;
                if c < 0 {
                    return Err(self.negative(i));
                }
                self.bytes(c as u64, size)
            })
            .collect()
    }

    /// Field `i` is a negative count.
    fn negative(&self, i: usize) -> String {
        format!(
            "'{}' field {}: a count cannot be negative, found {}",
            self.name,
            i + 1,
            quote(self.a[i])
        )
    }

    /// Bytes of `c` elements of `size` bytes.
    #[inline]
    fn bytes(&self, c: u64, size: u64) -> Result<u64, String> {
        c.checked_mul(size)
            .ok_or_else(|| format!("count {c} of {size}-byte elements is more than 2^64 bytes"))
    }

    /// An integer field (SimGrid's `stoi`: its integer prefix).
    #[inline]
    fn int(&self, i: usize) -> Result<i64, String> {
        int_prefix(self.a[i]).ok_or_else(|| self.bad(i, "an integer", self.a[i]))
    }

    /// Integer fields `range`.
    fn ints(&self, range: std::ops::Range<usize>) -> Result<(), String> {
        range.into_iter().try_for_each(|i| self.int(i).map(|_| ()))
    }

    /// An optional integer field, `d` if absent.
    #[inline]
    fn opt_int(&self, i: usize, d: i64) -> Result<i64, String> {
        self.a.get(i).map_or(Ok(d), |_| self.int(i))
    }

    /// An amount (flops, seconds): a finite number, not negative.
    fn amount(&self, i: usize) -> Result<f64, String> {
        let t = self.a[i];
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            Ok(v) if v.is_finite() => Err(format!(
                "'{}' field {}: an amount cannot be negative, found {}",
                self.name,
                i + 1,
                quote(t)
            )),
            _ => Err(self.bad(i, "a finite number", t)),
        }
    }

    /// A flag: 0 or 1.
    fn flag(&self, i: usize) -> Result<bool, String> {
        match self.a[i] {
            "0" => Ok(false),
            "1" => Ok(true),
            t => Err(self.bad(i, "0 or 1", t)),
        }
    }

    /// A request count.
    fn small(&self, i: usize) -> Result<usize, String> {
        let v = self.int(i)?;
        if !(0..=1 << 24).contains(&v) {
            return Err(format!("request count {v} is out of range (0 to 2^24)"));
        }
        Ok(v as usize)
    }

    /// The completed count in field `k`, at most the request count in field `n`.
    fn completed(&self, n: usize, k: usize) -> Result<usize, String> {
        let (n, k) = (self.small(n)?, self.small(k)?);
        if k > n {
            return Err(format!("{k} of {n} requests completed: more than were given"));
        }
        Ok(k)
    }

    /// Exactly `count` keys of three integers from field `from` to the end.
    fn keys_exactly(&self, from: usize, count: usize, what: &str) -> Result<(), String> {
        if self.a.len() != from + 3 * count {
            return Err(format!(
                "'{}' names {count} {what}(s): a source, a destination and a tag each, {} fields in all, \
                 found {}",
                self.name,
                from + 3 * count,
                self.a.len()
            ));
        }
        Ok(())
    }

    /// `count` keys of three integers starting at field `from`, if they are all there.
    fn keys(&self, from: usize, count: usize) -> Result<Option<Vec<Key>>, String> {
        if count == 0 || self.a.len() < from + 3 * count {
            return Ok(None);
        }
        (0..count)
            .map(|k| {
                let at = from + 3 * k;
                Ok((self.int(at)?, self.int(at + 1)?, self.int(at + 2)?))
            })
            .collect::<Result<Vec<_>, String>>()
            .map(Some)
    }

    /// A communicator id: one word, at most [`MAX_COMM_ID`] bytes.
    fn comm_id(&self, i: usize) -> Result<String, String> {
        let t = self.a[i];
        if t.len() > MAX_COMM_ID {
            return Err(format!(
                "communicator id {} is longer than {MAX_COMM_ID} bytes",
                quote(t)
            ));
        }
        Ok(t.to_string())
    }
}

/// The longest communicator id (simpi's tracer writes a few dozen bytes).
const MAX_COMM_ID: usize = 256;

/// True for the names of collective actions (their non-blocking forms prefix an `i`).
fn is_collective(name: &str) -> bool {
    matches!(
        name,
        "barrier"
            | "bcast"
            | "reduce"
            | "allreduce"
            | "alltoall"
            | "alltoallv"
            | "gather"
            | "allgather"
            | "gatherv"
            | "allgatherv"
            | "scatter"
            | "scatterv"
            | "reducescatter"
            | "reducescatterblock"
            | "scan"
            | "exscan"
    )
}

/// SimGrid's `stoi`: the integer prefix of the token (`1e3` reads 1, `5.9` reads 5).
pub(crate) fn int_prefix(t: &str) -> Option<i64> {
    let b = t.as_bytes();
    let negative = b.first() == Some(&b'-');
    let start = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let digits = b[start..].iter().take_while(|c| c.is_ascii_digit());
    // Accumulated towards the sign, so that i64::MIN reads and overflow is None.
    let mut v: i64 = 0;
    let mut any = false;
    for &c in digits {
        let d = i64::from(c - b'0');
        v = v.checked_mul(10)?;
        v = if negative { v.checked_sub(d)? } else { v.checked_add(d)? };
        any = true;
    }
    any.then_some(v)
}

/// A count: parsed as a number and truncated (`1e6` works, `2.7` reads 2).
fn count(t: &str) -> Result<i64, String> {
    // Plain digits, the usual form, need no float parse; up to 15 of them the value is
    // below 2^53, where the float parse is exact too, so both read the same.
    if !t.is_empty() && t.len() <= 15 && t.bytes().all(|c| c.is_ascii_digit()) {
        return Ok(t.bytes().fold(0i64, |v, c| v * 10 + i64::from(c - b'0')));
    }
    let v: f64 = t.parse().map_err(|_| format!("expected a count, found {}", quote(t)))?;
    if !v.is_finite() || v.abs() > 9.0e18 {
        return Err(format!("count {} is out of range", quote(t)));
    }
    Ok(v.trunc() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_simgrid() {
        assert_eq!(int_prefix("1e3"), Some(1));
        assert_eq!(int_prefix("-444"), Some(-444));
        assert_eq!(int_prefix("x"), None);
        assert_eq!(int_prefix("+5"), Some(5));
        assert_eq!(int_prefix("-"), None);
        assert_eq!(int_prefix(""), None);
        assert_eq!(int_prefix("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(int_prefix("9223372036854775807x"), Some(i64::MAX));
        assert_eq!(int_prefix("9223372036854775808"), None);
        assert_eq!(int_prefix("-9223372036854775809"), None);
        assert_eq!(count("1e6"), Ok(1_000_000));
        assert_eq!(count("2.7"), Ok(2));
        // Plain digits (read without a float parse up to 15) and the float path agree.
        assert_eq!(count("007"), Ok(7));
        assert_eq!(count("999999999999999"), Ok(999_999_999_999_999));
        assert_eq!(count("9999999999999999"), Ok(9_999_999_999_999_999 + 1));
        assert!(count("").is_err());
    }

    #[test]
    fn point_to_point_sizes_use_the_datatype() {
        assert_eq!(
            parse("send", &["1", "42", "1000", "0"], 2, false).unwrap(),
            Action::Send {
                blocking: true,
                sync: false,
                peer: 1,
                tag: 42,
                bytes: 8000
            }
        );
        // Missing datatype: MPI_BYTE, or MPI_DOUBLE after `init 1`.
        assert_eq!(
            parse("irecv", &["0", "1", "10"], 2, false).unwrap(),
            Action::Recv {
                blocking: false,
                peer: 0,
                tag: 1,
                bytes: 10
            }
        );
        assert_eq!(
            parse("irecv", &["0", "1", "10"], 2, true).unwrap(),
            Action::Recv {
                blocking: false,
                peer: 0,
                tag: 1,
                bytes: 80
            }
        );
    }

    #[test]
    fn collectives_read_positional_fields() {
        assert_eq!(
            parse("bcast", &["100", "2", "0"], 4, false).unwrap(),
            Action::Bcast {
                bytes: 800,
                root: 2,
                elem: 8
            }
        );
        assert_eq!(
            parse("reduce", &["10", "0", "1", "5"], 4, false).unwrap(),
            Action::Reduce {
                bytes: 40,
                comp: 0.0,
                root: 1,
                elem: 4
            }
        );
        assert_eq!(
            parse(
                "alltoallv",
                &["10", "1", "2", "3", "4", "10", "1", "2", "3", "4", "0", "0"],
                4,
                false
            )
            .unwrap(),
            Action::Alltoallv {
                send: vec![8, 16, 24, 32].into(),
                recv: vec![8, 16, 24, 32].into()
            }
        );
        assert_eq!(
            parse("gatherv", &["5", "5", "5", "5", "5", "3", "0", "0"], 4, false).unwrap(),
            Action::Gatherv(Box::new(Gatherv {
                all: false,
                sbytes: 40,
                recv: vec![40; 4],
                root: 3
            }))
        );
        // gather: root then the send datatype (id 3: 2-byte MPI_SHORT); allgather has no
        // root, so its send datatype comes third.
        assert_eq!(
            parse("gather", &["6", "6", "1", "3", "3"], 4, false).unwrap(),
            Action::Gather {
                all: false,
                sbytes: 12,
                root: 1,
                elem: 2
            }
        );
        assert_eq!(
            parse("allgather", &["6", "6", "0", "0"], 4, false).unwrap(),
            Action::Gather {
                all: true,
                sbytes: 48,
                root: 0,
                elem: 8
            }
        );
        assert_eq!(
            parse("reducescatter", &["5", "5", "5", "5", "0", "0"], 4, false).unwrap(),
            Action::ReduceScatter {
                recv: vec![40; 4],
                comp: 0.0
            }
        );
        assert!(parse("alltoallv", &["10", "1"], 4, false)
            .unwrap_err()
            .contains("4 send counts"));
    }

    #[test]
    fn tracer_extensions_parse() {
        assert_eq!(
            parse("reducescatterblock", &["3", "0", "1"], 3, false).unwrap(),
            Action::ReduceScatter {
                recv: vec![12; 3],
                comp: 0.0
            }
        );
        assert_eq!(
            parse("ibcast", &["16", "1", "6"], 4, false).unwrap(),
            Action::Nonblocking(Box::new(Action::Bcast {
                bytes: 16,
                root: 1,
                elem: 1
            }))
        );
        assert_eq!(
            parse("testany", &["3", "1", "2", "0", "7"], 4, false).unwrap(),
            Action::TestSome { done: vec![(2, 0, 7)] }
        );
        assert_eq!(
            parse("testall", &["2", "0"], 4, false).unwrap(),
            Action::TestSome { done: vec![] }
        );
        assert_eq!(
            parse("waitany", &["1"], 4, false).unwrap(),
            Action::Waitany { done: None }
        );
        assert!(parse("startall", &["1", "0", "1", "8", "x"], 4, false)
            .unwrap_err()
            .contains("expected s or r"));
        assert!(parse("waitsome", &["2", "2", "0", "1", "2"], 4, false)
            .unwrap_err()
            .contains("names 2 completed request(s)"));
    }

    #[test]
    fn issue16_count_arrays_take_the_integer_prefix_and_refuse_negatives() {
        // SimGrid reads count arrays with stoi (`1e3` is 1), single counts as floats.
        assert_eq!(
            parse("gatherv", &["1e3", "1e3", "2", "0", "6", "6"], 2, false).unwrap(),
            Action::Gatherv(Box::new(Gatherv {
                all: false,
                sbytes: 1000,
                recv: vec![1, 2],
                root: 0
            }))
        );
        assert_eq!(
            parse("reducescatter", &["3", "-1", "0"], 2, false),
            Err("'reducescatter' field 2: a count cannot be negative, found '-1'".into())
        );
    }

    #[test]
    fn errors_are_clear() {
        assert_eq!(parse("jump", &[], 2, false), Err("unknown action 'jump'".into()));
        assert_eq!(
            parse("send", &["1"], 2, false),
            Err(
                "'send' takes a destination, a tag, a count and optionally a datatype: at least 3 field(s), found 1"
                    .into()
            )
        );
        assert!(parse("send", &["1", "2", "3", "99"], 2, false)
            .unwrap_err()
            .contains("unknown datatype"));
    }
}
