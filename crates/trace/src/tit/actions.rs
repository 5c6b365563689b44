//! One TIT action: its grammar and how its arguments are read (numbers follow SimGrid's
//! parsing: counts may be written as floats and are truncated; partners, tags, roots and
//! count arrays take the integer prefix).

use super::datatypes::datatype_size;
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
pub(crate) fn parse(name: &str, a: &[&str], comm_size: usize, double_default: bool) -> Result<Action, String> {
    let need = |k: usize, what: &str| -> Result<(), String> {
        if a.len() < k {
            Err(format!("'{name}' needs {what}"))
        } else {
            Ok(())
        }
    };
    let dt = |i: usize| -> Result<u64, String> {
        match a.get(i) {
            None => Ok(if double_default { 8 } else { 1 }),
            Some(t) => {
                let id = int_prefix(t).ok_or_else(|| format!("'{t}' is not a datatype id"))?;
                datatype_size(id).ok_or_else(|| format!("unknown datatype id {id}"))
            }
        }
    };
    let count = |i: usize| -> Result<i64, String> { count(a[i]) };
    let bytes = |c: i64, size: u64| -> Result<u64, String> {
        (c.max(0) as u64)
            .checked_mul(size)
            .ok_or_else(|| format!("count {c} of {size}-byte elements is more than 2^64 bytes"))
    };
    let int = |i: usize| -> Result<i64, String> {
        int_prefix(a[i]).ok_or_else(|| format!("expected an integer, found '{}'", a[i]))
    };
    let opt_int = |i: usize, d: i64| -> Result<i64, String> { a.get(i).map_or(Ok(d), |_| int(i)) };
    let float = |i: usize| -> Result<f64, String> {
        a[i].parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("expected a number, found '{}'", a[i]))
    };
    let array = |from: usize| -> Result<Vec<i64>, String> {
        if a.len() < from + comm_size {
            return Err(format!(
                "'{name}' needs {comm_size} counts (one per rank of the communicator)"
            ));
        }
        (from..from + comm_size).map(int).collect()
    };
    // `count` keys of three integers starting at argument `from`, if they are all there.
    let keys = |from: usize, count: usize| -> Result<Option<Vec<Key>>, String> {
        if count == 0 || a.len() < from + 3 * count {
            return Ok(None);
        }
        (0..count)
            .map(|k| Ok((int(from + 3 * k)?, int(from + 3 * k + 1)?, int(from + 3 * k + 2)?)))
            .collect::<Result<Vec<_>, String>>()
            .map(Some)
    };
    let small = |i: usize| -> Result<usize, String> {
        let v = int(i)?;
        if !(0..=1 << 24).contains(&v) {
            return Err(format!("request count {v} is out of range"));
        }
        Ok(v as usize)
    };
    if let Some(inner) = name.strip_prefix('i').filter(|n| is_collective(n)) {
        return Ok(Action::Nonblocking(Box::new(parse(
            inner,
            a,
            comm_size,
            double_default,
        )?)));
    }
    // The commonest actions first: a string match tries its arms in order.
    Ok(match name {
        "compute" => {
            need(1, "a number of flops")?;
            Action::Compute { flops: float(0)? }
        }
        "send" | "isend" | "Ssend" | "ISsend" | "bsend" | "ibsend" | "rsend" | "irsend" => {
            need(3, "a destination, a tag and a count")?;
            Action::Send {
                blocking: matches!(name, "send" | "Ssend" | "bsend" | "rsend"),
                peer: int(0)?,
                tag: int(1)?,
                bytes: bytes(count(2)?, dt(3)?)?,
            }
        }
        "recv" | "irecv" => {
            need(3, "a source, a tag and a count")?;
            Action::Recv {
                blocking: name == "recv",
                peer: int(0)?,
                tag: int(1)?,
                bytes: bytes(count(2)?, dt(3)?)?,
            }
        }
        "Start" => {
            need(3, "a partner, a tag and a size in bytes")?;
            Action::Start {
                peer: int(0)?,
                tag: int(1)?,
                bytes: count(2)?.max(0) as u64,
                recv: a.get(4) == Some(&"r"),
            }
        }
        "wait" | "test" => {
            need(3, "a source, a destination and a tag")?;
            let (src, dst, tag) = (int(0)?, int(1)?, int(2)?);
            if name == "wait" {
                Action::Wait { src, dst, tag }
            } else {
                Action::Test {
                    src,
                    dst,
                    tag,
                    done: a.get(3).is_some_and(|f| int_prefix(f) == Some(1)),
                }
            }
        }
        "waitall" => Action::Waitall {
            reqs: if a.is_empty() { None } else { keys(1, small(0)?)? },
        },
        "init" => Action::Init {
            double_default: !a.is_empty(),
        },
        "finalize" | "location" | "comm_size" | "Startall" | "comm_free" | "request_free" | "probe" | "send_init"
        | "ssend_init" | "bsend_init" | "rsend_init" | "recv_init" => Action::NoOp,
        "iprobe" => Action::TestSome { done: Vec::new() },
        "startall" => {
            let n = if a.is_empty() { 0 } else { small(0)? };
            need(
                1 + 4 * n,
                "a count and, per request, a partner, a tag, a size and s or r",
            )?;
            let starts = (0..n)
                .map(|k| {
                    let at = 1 + 4 * k;
                    let recv = match a[at + 3] {
                        "r" => true,
                        "s" => false,
                        t => return Err(format!("expected s or r, found '{t}'")),
                    };
                    Ok((int(at)?, int(at + 1)?, count(at + 2)?.max(0) as u64, recv))
                })
                .collect::<Result<_, String>>()?;
            Action::Startall { starts }
        }
        "waitAny" | "waitany" => Action::Waitany {
            done: keys(1, 1)?.map(|k| k[0]),
        },
        "waitsome" => {
            need(2, "a request count and a completed count")?;
            let k = small(1)?;
            need(2 + 3 * k, "a source, a destination and a tag per completed request")?;
            Action::Waitsome {
                done: keys(2, k)?.unwrap_or_default(),
            }
        }
        "testany" | "testall" | "testsome" => {
            // simpi's tracer: `n flag|k keys..`; SimGrid writes no argument.
            let done = if a.len() >= 2 {
                let k = small(1)?;
                let k = match name {
                    "testany" => k.min(1),
                    "testall" => {
                        if k == 1 {
                            small(0)?
                        } else {
                            0
                        }
                    }
                    _ => k,
                };
                need(2 + 3 * k, "a source, a destination and a tag per completed request")?;
                keys(2, k)?.unwrap_or_default()
            } else {
                Vec::new()
            };
            Action::TestSome { done }
        }
        "sendRecv" | "sendrecv_replace" => {
            need(4, "a send count, a destination, a receive count and a source")?;
            Action::SendRecv(Box::new(SendRecv {
                sbytes: bytes(count(0)?, dt(4)?)?,
                dst: int(1)?,
                rbytes: bytes(count(2)?, dt(5)?)?,
                src: int(3)?,
                stag: opt_int(6, 0)?,
                rtag: opt_int(7, 0)?,
            }))
        }
        "sleep" => {
            need(1, "a duration in seconds")?;
            Action::Sleep { seconds: float(0)? }
        }
        "barrier" => Action::Barrier,
        "bcast" => {
            need(1, "a count")?;
            Action::Bcast {
                bytes: bytes(count(0)?, dt(2)?)?,
                root: opt_int(1, 0)?,
                elem: dt(2)?,
            }
        }
        "reduce" => {
            need(2, "a count and a computation amount")?;
            Action::Reduce {
                bytes: bytes(count(0)?, dt(3)?)?,
                comp: float(1)?,
                root: opt_int(2, 0)?,
                elem: dt(3)?,
            }
        }
        "allreduce" => {
            need(2, "a count and a computation amount")?;
            Action::Allreduce {
                bytes: bytes(count(0)?, dt(2)?)?,
                comp: float(1)?,
                elem: dt(2)?,
            }
        }
        "alltoall" => {
            need(2, "a send and a receive count")?;
            Action::Alltoall {
                sbytes: bytes(count(0)?, dt(2)?)?,
            }
        }
        "alltoallv" => {
            let sc = array(1)?;
            let rc = array(2 + comm_size)?;
            let (sd, rd) = (dt(2 + 2 * comm_size)?, dt(3 + 2 * comm_size)?);
            Action::Alltoallv {
                send: sc.iter().map(|&c| bytes(c, sd)).collect::<Result<_, _>>()?,
                recv: rc.iter().map(|&c| bytes(c, rd)).collect::<Result<_, _>>()?,
            }
        }
        "gather" | "allgather" => {
            need(2, "a send and a receive count")?;
            let all = name == "allgather";
            let (root, sdt_at) = if all { (0, 2) } else { (opt_int(2, 0)?, 3) };
            Action::Gather {
                all,
                sbytes: bytes(count(0)?, dt(sdt_at)?)?,
                root,
                elem: dt(sdt_at)?,
            }
        }
        "gatherv" | "allgatherv" => {
            need(1, "a send count")?;
            let rc = array(1)?;
            let all = name == "allgatherv";
            let rest = a.len() - 1 - comm_size;
            let (root, sdt_at, rdt_at) = if all {
                // Optional: "sdt rdt", "sdt rdt displs..", or "displs.." alone, told apart
                // by count as SimGrid does: more than the ranks, datatypes then
                // displacements; more than two, displacements; else datatypes (so on two
                // ranks two values are datatypes).
                if rest > comm_size || rest <= 2 {
                    (0, 1 + comm_size, 2 + comm_size)
                } else {
                    (0, usize::MAX, usize::MAX)
                }
            } else {
                (opt_int(1 + comm_size, 0)?, 2 + comm_size, 3 + comm_size)
            };
            let sd = if sdt_at == usize::MAX {
                dt(usize::MAX)?
            } else {
                dt(sdt_at)?
            };
            let rd = if rdt_at == usize::MAX {
                dt(usize::MAX)?
            } else {
                dt(rdt_at)?
            };
            Action::Gatherv(Box::new(Gatherv {
                all,
                sbytes: bytes(count(0)?, sd)?,
                recv: rc.iter().map(|&c| bytes(c, rd)).collect::<Result<_, _>>()?,
                root,
            }))
        }
        "scatter" => {
            need(2, "a send and a receive count")?;
            Action::Scatter {
                rbytes: bytes(count(1)?, dt(4)?)?,
                root: opt_int(2, 0)?,
            }
        }
        "scatterv" => {
            let sc = array(0)?;
            need(comm_size + 1, "send counts and a receive count")?;
            let (sd, rd) = (dt(comm_size + 2)?, dt(comm_size + 3)?);
            Action::Scatterv(Box::new(Scatterv {
                send: sc.iter().map(|&c| bytes(c, sd)).collect::<Result<_, _>>()?,
                rbytes: bytes(count(comm_size)?, rd)?,
                root: opt_int(comm_size + 1, 0)?,
            }))
        }
        "reducescatterblock" => {
            need(2, "a receive count and a computation amount")?;
            let d = dt(2)?;
            Action::ReduceScatter {
                recv: vec![bytes(count(0)?, d)?; comm_size],
                comp: float(1)?,
            }
        }
        "reducescatter" => {
            let rc = array(0)?;
            need(comm_size + 1, "receive counts and a computation amount")?;
            let d = dt(comm_size + 1)?;
            Action::ReduceScatter {
                recv: rc.iter().map(|&c| bytes(c, d)).collect::<Result<_, _>>()?,
                comp: float(comm_size)?,
            }
        }
        "scan" | "exscan" => {
            need(2, "a count and a computation amount")?;
            Action::Scan {
                exclusive: name == "exscan",
                bytes: bytes(count(0)?, dt(2)?)?,
                comp: float(1)?,
            }
        }
        "comm_split" if !a.is_empty() => {
            need(
                4,
                "a parent communicator, a color, a key and the new communicator's id (or -)",
            )?;
            Action::Comm(Box::new(Creation::Split {
                parent: a[0].to_string(),
                color: int(1)?,
                key: int(2)?,
                new: (a[3] != "-").then(|| a[3].to_string()),
            }))
        }
        "comm_dup" if !a.is_empty() => {
            need(2, "a parent communicator and the new communicator's id")?;
            Action::Comm(Box::new(Creation::Dup {
                parent: a[0].to_string(),
                new: a[1].to_string(),
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
            need(2, "a parent communicator, the new id (or -) and the members")?;
            let members = a[2..]
                .iter()
                .map(|t| {
                    t.parse::<u32>()
                        .map_err(|_| format!("expected a world rank, found '{t}'"))
                })
                .collect::<Result<_, _>>()?;
            Action::Comm(Box::new(Creation::Create {
                parent: a[0].to_string(),
                new: (a[1] != "-").then(|| a[1].to_string()),
                members,
            }))
        }
        "comm_split" | "comm_dup" => Action::NoOp,
        other => return Err(format!("unknown action '{other}'")),
    })
}

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
    let v: f64 = t.parse().map_err(|_| format!("expected a count, found '{t}'"))?;
    if !v.is_finite() || v.abs() > 9.0e18 {
        return Err(format!("count '{t}' is out of range"));
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
            .contains("needs 4 counts"));
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
            .contains("per completed request"));
    }

    #[test]
    fn errors_are_clear() {
        assert_eq!(parse("jump", &[], 2, false), Err("unknown action 'jump'".into()));
        assert_eq!(
            parse("send", &["1"], 2, false),
            Err("'send' needs a destination, a tag and a count".into())
        );
        assert!(parse("send", &["1", "2", "3", "99"], 2, false)
            .unwrap_err()
            .contains("unknown datatype"));
    }
}
