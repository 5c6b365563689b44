//! The conversation between simpi's MPI library, loaded into each rank's process, and
//! `simpi run`, which simulates: one request and one reply at a time per rank, through
//! a shared-memory [`Mailbox`], and the MPI 5.0 ABI handle values both sides read.
//!
//! Every decoder checks lengths before it reads, so a truncated or corrupt message is
//! an error, never a panic.

pub mod abi;
mod codec;
pub mod heap;
pub mod in_process;
mod long_double;
mod mailbox;
pub mod reduce;
mod win;

pub use codec::{keep_small, Reader, Writer};
pub use mailbox::{Mailbox, Side};
pub use win::{Access, AccessKind, Flavor, SharedMemory, Sync, WinCall};

/// A decoding failure: what was wrong with the frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed message between a rank and simpi run: {}", self.0)
    }
}

impl std::error::Error for WireError {}

/// The environment variable naming the mailbox's file descriptor in a rank's process.
pub const ENV_MAILBOX: &str = "SIMPI_RUN_MAILBOX";
/// The environment variable carrying the rank's number.
pub const ENV_RANK: &str = "SIMPI_RUN_RANK";

/// Which collective a [`Call::Collective`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollKind {
    /// MPI_Barrier.
    Barrier,
    /// MPI_Bcast.
    Bcast,
    /// MPI_Reduce.
    Reduce,
    /// MPI_Allreduce.
    Allreduce,
    /// MPI_Gather.
    Gather,
    /// MPI_Allgather.
    Allgather,
    /// MPI_Scatter.
    Scatter,
    /// MPI_Alltoall.
    Alltoall,
    /// MPI_Scan.
    Scan,
    /// MPI_Exscan.
    Exscan,
    /// MPI_Reduce_scatter_block.
    ReduceScatterBlock,
    /// MPI_Alltoallv.
    Alltoallv,
    /// MPI_Comm_dup: the reply's data is a new communicator ([`NewComm`]).
    Dup,
    /// MPI_Comm_split: the data holds the color and the key (two little-endian i32;
    /// the color MPI_UNDEFINED: no new communicator for this rank).
    Split,
    /// MPI_Comm_split_type with MPI_COMM_TYPE_SHARED: ranks on the same simulated host
    /// together; the data holds the key (i32), then 1 if the rank passed
    /// MPI_UNDEFINED (i32; no communicator for it).
    SplitShared,
    /// MPI_Comm_create: the data holds the group's members (u32 world ranks, in the
    /// new communicator's order), empty if this rank is not in its group.
    Create,
    /// MPI_Gatherv: `recv_counts` has each rank's bytes (on the root; elsewhere only
    /// the rank's own is known, the others are 0).
    Gatherv,
    /// MPI_Scatterv: `send_counts` has each rank's bytes (on the root; elsewhere only
    /// the rank's own).
    Scatterv,
    /// MPI_Allgatherv: `recv_counts` has each rank's bytes.
    Allgatherv,
    /// MPI_Reduce_scatter: `recv_counts` has each rank's share of the vector, in
    /// bytes.
    ReduceScatter,
    /// MPI_Intercomm_merge on an intercommunicator, over both its groups: the data
    /// holds this rank's `high` (i32); the reply's data is a new communicator.
    Merge,
}

const COLL_KINDS: [CollKind; 21] = [
    CollKind::Barrier,
    CollKind::Bcast,
    CollKind::Reduce,
    CollKind::Allreduce,
    CollKind::Gather,
    CollKind::Allgather,
    CollKind::Scatter,
    CollKind::Alltoall,
    CollKind::Scan,
    CollKind::Exscan,
    CollKind::ReduceScatterBlock,
    CollKind::Alltoallv,
    CollKind::Dup,
    CollKind::Split,
    CollKind::SplitShared,
    CollKind::Create,
    CollKind::Gatherv,
    CollKind::Scatterv,
    CollKind::Allgatherv,
    CollKind::ReduceScatter,
    CollKind::Merge,
];

impl CollKind {
    fn code(self) -> u8 {
        COLL_KINDS.iter().position(|&k| k == self).unwrap_or(0) as u8
    }

    fn from_code(c: u8) -> Result<CollKind, WireError> {
        COLL_KINDS
            .get(c as usize)
            .copied()
            .ok_or_else(|| WireError(format!("unknown collective {c}")))
    }
}

/// A collective call: the data a rank contributes and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collective {
    /// Which collective.
    pub kind: CollKind,
    /// The communicator (0: MPI_COMM_WORLD; others: duplicates of it).
    pub comm: u32,
    /// The root's rank (rooted collectives).
    pub root: u32,
    /// The reduction's operation (an ABI handle value; reductions only).
    pub op: u64,
    /// The element type (an ABI handle value).
    pub datatype: u64,
    /// Elements: of the vector (reductions, bcast), of one rank's block (gather,
    /// scatter, allgather, alltoall, reduce_scatter_block).
    pub count: u64,
    /// Alltoallv: bytes this rank sends to each rank (its data holds them in rank
    /// order); empty otherwise.
    pub send_counts: Vec<u64>,
    /// Alltoallv: bytes this rank receives from each rank; empty otherwise.
    pub recv_counts: Vec<u64>,
    /// What this rank contributes (empty where it contributes nothing, or where
    /// `send_at` says where it lies).
    pub data: Vec<u8>,
    /// Where the rank's contribution lies in its memory, when it left it there for
    /// the simulator to read as it takes the call (a large contiguous buffer: no
    /// copies through the mailbox). `data` is then empty.
    pub send_at: Option<Region>,
    /// Where the simulator may write the rank's result directly, if the result has
    /// exactly `len` bytes (a large contiguous receive buffer); the completion then
    /// says it did.
    pub recv_at: Option<Region>,
    /// A persistent collective's start (MPI_Bcast_init ... then MPI_Start): the
    /// request's number among the rank's persistent collectives on the communicator
    /// (in the order they were made) and the start's number. Such calls match by
    /// these, not by the order of the starts (MPI 4.0 lets ranks start them in any
    /// order).
    pub persistent: Option<(u64, u64)>,
}

/// Bytes of a rank's memory: `len` bytes from address `addr` of its process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// The first byte's address.
    pub addr: u64,
    /// Bytes.
    pub len: u64,
}

/// A communicator made by [`CollKind::Dup`], [`CollKind::Split`],
/// [`CollKind::SplitShared`] or [`CollKind::Create`], as the reply's data carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NewComm {
    /// This rank is in no new communicator (MPI_COMM_NULL).
    Null,
    /// The new communicator's index, with the same members as its parent.
    SameMembers(u32),
    /// The new communicator's index and its members (world ranks, in its rank order).
    Members(u32, Vec<u32>),
    /// A new intercommunicator's index, this rank's group and the other (world ranks,
    /// in their rank orders).
    Inter(u32, Vec<u32>, Vec<u32>),
}

impl NewComm {
    /// Its bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        match self {
            NewComm::Null => w.u8(0),
            NewComm::SameMembers(i) => {
                w.u8(1);
                w.u32(*i);
            }
            NewComm::Members(i, m) => {
                w.u8(2);
                w.u32(*i);
                w.u32s(m);
            }
            NewComm::Inter(i, local, remote) => {
                w.u8(3);
                w.u32(*i);
                w.u32s(local);
                w.u32s(remote);
            }
        }
        w.into_bytes()
    }

    /// The communicator `data` describes.
    pub fn decode(data: &[u8]) -> Result<NewComm, WireError> {
        let mut r = Reader::new(data);
        let c = match r.u8()? {
            0 => NewComm::Null,
            1 => NewComm::SameMembers(r.u32()?),
            2 => NewComm::Members(r.u32()?, r.u32s()?),
            3 => NewComm::Inter(r.u32()?, r.u32s()?, r.u32s()?),
            k => return Err(WireError(format!("unknown communicator kind {k}"))),
        };
        r.end()?;
        Ok(c)
    }
}

/// One MPI call that needs the other ranks, as a rank sends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// MPI_Send, MPI_Rsend and (with `sync`) MPI_Ssend.
    Send {
        /// The communicator (0: MPI_COMM_WORLD; others: duplicates of it).
        comm: u32,
        /// Destination rank.
        to: u32,
        /// Tag.
        tag: i32,
        /// Synchronous (MPI_Ssend): done only once a matching receive is posted.
        sync: bool,
        /// The message (empty when `from` says where it lies).
        data: Vec<u8>,
        /// Where the message lies in the rank's memory, for the simulator to read as
        /// it takes the call (a large contiguous buffer: the rank then waits for the
        /// reply, so that it cannot change the buffer before).
        from: Option<Region>,
    },
    /// MPI_Recv: `from` may be [`abi::ANY_SOURCE`], `tag` [`abi::ANY_TAG`].
    Recv {
        /// The communicator.
        comm: u32,
        /// Source rank.
        from: i32,
        /// Tag.
        tag: i32,
        /// Bytes the buffer holds.
        capacity: u64,
        /// Where the simulator may write the message itself (a large contiguous
        /// buffer); the completion then says how many bytes it wrote.
        into: Option<Region>,
    },
    /// MPI_Isend: `request` is the rank's name for it.
    Isend {
        /// The communicator.
        comm: u32,
        /// Destination rank.
        to: u32,
        /// Tag.
        tag: i32,
        /// Synchronous (MPI_Issend).
        sync: bool,
        /// The request.
        request: u64,
        /// The message (empty when `from` says where it lies).
        data: Vec<u8>,
        /// As for [`Call::Send`]; the rank may not change the buffer before the
        /// request completes.
        from: Option<Region>,
    },
    /// MPI_Irecv.
    Irecv {
        /// The communicator.
        comm: u32,
        /// Source rank.
        from: i32,
        /// Tag.
        tag: i32,
        /// Bytes the buffer holds.
        capacity: u64,
        /// The request.
        request: u64,
        /// As for [`Call::Recv`].
        into: Option<Region>,
    },
    /// MPI_Waitall over requests made by Isend and Irecv.
    Wait {
        /// The requests, in the order the reply answers them.
        requests: Vec<u64>,
    },
    /// MPI_Test of a request made by Isend or Irecv.
    Test {
        /// The request.
        request: u64,
    },
    /// MPI_Iprobe: after the probe's cost, is a message from `from` (or
    /// [`abi::ANY_SOURCE`]) with `tag` (or [`abi::ANY_TAG`]) sent to this rank on `comm`
    /// and not yet received? The reply has no completion if not, else one whose data
    /// is the message's size in bytes (a little-endian u64).
    Iprobe {
        /// The communicator.
        comm: u32,
        /// Source rank.
        from: i32,
        /// Tag.
        tag: i32,
    },
    /// MPI_Waitany, MPI_Waitsome, MPI_Testany, MPI_Testall or MPI_Testsome over
    /// requests made by Isend and Irecv: the reply has one completion per request, in
    /// order, with the source [`PENDING`] for those not completed by this call.
    Completing {
        /// The requests.
        requests: Vec<u64>,
        /// Which call.
        how: Completing,
    },
    /// A collective, or a call that makes a communicator.
    Collective(Collective),
    /// MPI_Comm_create_group: the members of `members` (world ranks, in the new
    /// communicator's order) make it, the others of the parent do not take part; the
    /// reply's data is the new communicator ([`NewComm::SameMembers`] with its index).
    GroupComm {
        /// The group.
        members: Vec<u32>,
        /// The tag the call named.
        tag: i32,
    },
    /// MPI_Intercomm_create, once the group leaders exchanged their groups: the
    /// reply's data is the new intercommunicator ([`NewComm::SameMembers`] with its
    /// index).
    Intercomm {
        /// This rank's group, as world ranks in its rank order.
        local: Vec<u32>,
        /// The other group.
        remote: Vec<u32>,
        /// The tag the call named.
        tag: i32,
    },
    /// A non-blocking collective: the call returns at once; request `request`
    /// completes with the rank's result.
    ICollective {
        /// The request.
        request: u64,
        /// The collective.
        coll: Collective,
    },
    /// A call on a window (one-sided communication).
    Win(WinCall),
    /// A sample of a loop that SMPI_SAMPLE_GLOBAL measures on every rank: the
    /// iteration's CPU time, if one ended, is added to the samples of `key`; the
    /// reply's data holds the samples so far (count as a u64, sum and sum of squares
    /// of their nanoseconds as f64 bits).
    Sample {
        /// The loop (file, line and tag).
        key: String,
        /// The CPU time of the iteration that ended, in nanoseconds.
        sample_ns: Option<u64>,
    },
    /// SMPI_SHARED_MALLOC: memory every rank asking with the same `key` shares; the
    /// reply's data is a [`SharedMemory`] with no parts, whose file holds at least
    /// `size` bytes.
    SharedMalloc {
        /// The call site (file and line; empty for the partly shared blocks).
        key: String,
        /// Bytes.
        size: u64,
    },
    /// MPI_Cancel of a receive request: cancelled if it has not matched yet (its
    /// completion then has the source [`CANCELLED`]), else it completes as usual.
    Cancel {
        /// The request.
        request: u64,
    },
    /// MPI_Finalize.
    Finalize,
    /// No MPI call: the rank wants the simulated time (MPI_Wtime after calls it posted
    /// ahead) or has posted many calls ahead; it continues at once.
    Sync,
}

/// A call with the computation before it: the rank's CPU time since it last returned
/// from the simulator (or posted a call ahead), and the simulated time its reads of the
/// clock cost meanwhile (MPI_Wtime; a loop that waits on the clock advances).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timed {
    /// CPU time, in nanoseconds.
    pub compute_ns: u64,
    /// What the clock reads cost, in simulated picoseconds.
    pub clock_ps: u64,
    /// The call.
    pub call: Call,
}

/// The source of a [`Completion`] for a request that a [`Call::Completing`] did not
/// complete.
pub const PENDING: i32 = i32::MIN;

/// Which of the calls that complete some of several requests a [`Call::Completing`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completing {
    /// MPI_Waitany: blocks until one is done; reports the first done.
    WaitAny,
    /// MPI_Waitsome: blocks until one is done; reports every done one.
    WaitSome,
    /// MPI_Testany: reports the first done, if any.
    TestAny,
    /// MPI_Testall: reports all if all are done, else none.
    TestAll,
    /// MPI_Testsome: reports every done one.
    TestSome,
}

const COMPLETINGS: [Completing; 5] = [
    Completing::WaitAny,
    Completing::WaitSome,
    Completing::TestAny,
    Completing::TestAll,
    Completing::TestSome,
];

impl Completing {
    /// Whether the call blocks until a request is done.
    pub fn waits(self) -> bool {
        matches!(self, Completing::WaitAny | Completing::WaitSome)
    }
}

/// What a rank sends to `simpi run`.
// One request exists at a time on each side and is decoded in place: boxing its
// large variant would cost an allocation per call for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// The first message of a rank: it called MPI_Init.
    Hello,
    /// Calls whose replies the rank does not read (a send, a non-blocking call: the
    /// rank went on without waiting, "posted ahead"), then one it waits for. The
    /// simulator posts each when the simulation lets the rank go on from the one
    /// before, as if the rank had waited for each reply, and answers the last.
    Calls {
        /// The calls posted ahead, in the order the rank made them.
        ahead: Vec<Timed>,
        /// The call whose reply the rank waits for.
        last: Timed,
    },
    /// MPI_Abort, or an error the rank's error handler made fatal.
    Abort {
        /// The exit code asked for.
        code: i32,
        /// Why.
        message: String,
    },
}

/// [`Completion::source`] of a receive that was cancelled (it received nothing).
pub const CANCELLED: i32 = i32::MIN;

/// One completed receive (or send) in a reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The message's source (-1 for a send, [`CANCELLED`] for a cancelled receive).
    pub source: i32,
    /// The message's tag.
    pub tag: i32,
    /// The bytes received (a collective's result; empty for a send, or when
    /// `placed` says where they went).
    pub data: Vec<u8>,
    /// The simulator wrote this many bytes where the call said (a collective's
    /// `recv_at`, a receive's `into`); `data` is then empty.
    pub placed: Option<u64>,
}

/// What `simpi run` answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The answer to [`Request::Hello`].
    Welcome {
        /// The rank.
        rank: u32,
        /// Ranks in MPI_COMM_WORLD.
        size: u32,
        /// Simulated time in picoseconds.
        now_ps: u64,
        /// Simulated picoseconds per nanosecond of this machine's CPU time (0: compute
        /// is not simulated).
        compute_scale: f64,
        /// What one read of the clock (MPI_Wtime) costs, in simulated picoseconds.
        clock_cost_ps: u64,
        /// The speed of the rank's simulated host, in flop/s (SMPI_SAMPLE_FLOPS).
        host_flops: f64,
        /// The smallest contiguous buffer a rank leaves in its memory for the
        /// simulator to read or write ([`Collective::send_at`] and `recv_at`, a
        /// send's `from`, a receive's `into`);
        /// `u64::MAX`: none (the simulator cannot reach the ranks' memory).
        remote_min: u64,
    },
    /// The call returned at simulated time `now_ps`, with what it received.
    Done {
        /// Simulated time in picoseconds.
        now_ps: u64,
        /// One per receive (Recv), per request (Wait), the collective's result, or
        /// for a Test one if it found the request complete and none if not.
        completions: Vec<Completion>,
    },
    /// The call cannot complete: the run ends, and the rank should exit.
    Fail {
        /// Why.
        message: String,
    },
}

impl Request {
    /// The frame's body.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        self.encode_into(&mut body);
        body
    }

    /// The frame's body, written into `body` (emptied first).
    pub fn encode_into(&self, body: &mut Vec<u8>) {
        let mut w = Writer::reusing(std::mem::take(body));
        match self {
            Request::Hello => w.u8(0),
            Request::Calls { ahead, last } => {
                w.u8(1);
                w.u64(ahead.len() as u64);
                for t in ahead.iter().chain(std::iter::once(last)) {
                    w.u64(t.compute_ns);
                    w.u64(t.clock_ps);
                    encode_call(&mut w, &t.call);
                }
            }
            Request::Abort { code, message } => {
                w.u8(2);
                w.i32(*code);
                w.bytes(message.as_bytes());
            }
        }
        *body = w.into_bytes();
    }

    /// The request in a frame's body.
    pub fn decode(body: &[u8]) -> Result<Request, WireError> {
        let mut r = Reader::new(body);
        let req = match r.u8()? {
            0 => Request::Hello,
            1 => {
                // Each call takes at least its two times and its kind.
                let n = r.len_of(17)?;
                let timed = |r: &mut Reader| -> Result<Timed, WireError> {
                    Ok(Timed {
                        compute_ns: r.u64()?,
                        clock_ps: r.u64()?,
                        call: decode_call(r)?,
                    })
                };
                let mut ahead = Vec::with_capacity(n);
                for _ in 0..n {
                    ahead.push(timed(&mut r)?);
                }
                Request::Calls {
                    ahead,
                    last: timed(&mut r)?,
                }
            }
            2 => Request::Abort {
                code: r.i32()?,
                message: String::from_utf8_lossy(&r.bytes()?).into_owned(),
            },
            k => return Err(WireError(format!("unknown request {k}"))),
        };
        r.end()?;
        Ok(req)
    }
}

fn encode_call(w: &mut Writer, call: &Call) {
    match call {
        Call::Send {
            comm,
            to,
            tag,
            sync,
            data,
            from,
        } => {
            w.u8(0);
            w.u32(*comm);
            w.u32(*to);
            w.i32(*tag);
            w.u8(*sync as u8);
            w.bytes(data);
            region(w, *from);
        }
        Call::Recv {
            comm,
            from,
            tag,
            capacity,
            into,
        } => {
            w.u8(1);
            w.u32(*comm);
            w.i32(*from);
            w.i32(*tag);
            w.u64(*capacity);
            region(w, *into);
        }
        Call::Isend {
            comm,
            to,
            tag,
            sync,
            request,
            data,
            from,
        } => {
            w.u8(2);
            w.u32(*comm);
            w.u32(*to);
            w.i32(*tag);
            w.u8(*sync as u8);
            w.u64(*request);
            w.bytes(data);
            region(w, *from);
        }
        Call::Irecv {
            comm,
            from,
            tag,
            capacity,
            request,
            into,
        } => {
            w.u8(3);
            w.u32(*comm);
            w.i32(*from);
            w.i32(*tag);
            w.u64(*capacity);
            w.u64(*request);
            region(w, *into);
        }
        Call::Wait { requests } => {
            w.u8(4);
            w.u64(requests.len() as u64);
            for q in requests {
                w.u64(*q);
            }
        }
        Call::Collective(c) => {
            w.u8(5);
            encode_collective(w, c);
        }
        Call::GroupComm { members, tag } => {
            w.u8(12);
            w.u32s(members);
            w.i32(*tag);
        }
        Call::Intercomm { local, remote, tag } => {
            w.u8(11);
            w.u32s(local);
            w.u32s(remote);
            w.i32(*tag);
        }
        Call::ICollective { request, coll } => {
            w.u8(10);
            w.u64(*request);
            encode_collective(w, coll);
        }
        Call::Finalize => w.u8(6),
        Call::Sync => w.u8(16),
        Call::Cancel { request } => {
            w.u8(17);
            w.u64(*request);
        }
        Call::Win(c) => {
            w.u8(13);
            win::encode(w, c);
        }
        Call::Sample { key, sample_ns } => {
            w.u8(14);
            w.bytes(key.as_bytes());
            match sample_ns {
                None => w.u8(0),
                Some(ns) => {
                    w.u8(1);
                    w.u64(*ns);
                }
            }
        }
        Call::SharedMalloc { key, size } => {
            w.u8(15);
            w.bytes(key.as_bytes());
            w.u64(*size);
        }
        Call::Completing { requests, how } => {
            w.u8(8);
            w.u8(COMPLETINGS.iter().position(|h| h == how).unwrap_or(0) as u8);
            w.u64s(requests);
        }
        Call::Test { request } => {
            w.u8(7);
            w.u64(*request);
        }
        Call::Iprobe { comm, from, tag } => {
            w.u8(9);
            w.u32(*comm);
            w.i32(*from);
            w.i32(*tag);
        }
    }
}

fn encode_collective(w: &mut Writer, c: &Collective) {
    w.u8(c.kind.code());
    w.u32(c.comm);
    w.u32(c.root);
    w.u64(c.op);
    w.u64(c.datatype);
    w.u64(c.count);
    w.u64s(&c.send_counts);
    w.u64s(&c.recv_counts);
    w.bytes(&c.data);
    region(w, c.send_at);
    region(w, c.recv_at);
    match c.persistent {
        None => w.u8(0),
        Some((id, start)) => {
            w.u8(1);
            w.u64(id);
            w.u64(start);
        }
    }
}

fn region(w: &mut Writer, at: Option<Region>) {
    match at {
        None => w.u8(0),
        Some(Region { addr, len }) => {
            w.u8(1);
            w.u64(addr);
            w.u64(len);
        }
    }
}

fn read_region(r: &mut Reader<'_>) -> Result<Option<Region>, WireError> {
    Ok(match r.u8()? {
        0 => None,
        1 => Some(Region {
            addr: r.u64()?,
            len: r.u64()?,
        }),
        k => return Err(WireError(format!("unknown region marker {k}"))),
    })
}

fn decode_collective(r: &mut Reader<'_>) -> Result<Collective, WireError> {
    Ok(Collective {
        kind: CollKind::from_code(r.u8()?)?,
        comm: r.u32()?,
        root: r.u32()?,
        op: r.u64()?,
        datatype: r.u64()?,
        count: r.u64()?,
        send_counts: r.u64s()?,
        recv_counts: r.u64s()?,
        data: r.bytes()?,
        send_at: read_region(r)?,
        recv_at: read_region(r)?,
        persistent: match r.u8()? {
            0 => None,
            1 => Some((r.u64()?, r.u64()?)),
            k => return Err(WireError(format!("unknown persistence marker {k}"))),
        },
    })
}

fn decode_call(r: &mut Reader<'_>) -> Result<Call, WireError> {
    Ok(match r.u8()? {
        0 => Call::Send {
            comm: r.u32()?,
            to: r.u32()?,
            tag: r.i32()?,
            sync: r.u8()? != 0,
            data: r.bytes()?,
            from: read_region(r)?,
        },
        1 => Call::Recv {
            comm: r.u32()?,
            from: r.i32()?,
            tag: r.i32()?,
            capacity: r.u64()?,
            into: read_region(r)?,
        },
        2 => Call::Isend {
            comm: r.u32()?,
            to: r.u32()?,
            tag: r.i32()?,
            sync: r.u8()? != 0,
            request: r.u64()?,
            data: r.bytes()?,
            from: read_region(r)?,
        },
        3 => Call::Irecv {
            comm: r.u32()?,
            from: r.i32()?,
            tag: r.i32()?,
            capacity: r.u64()?,
            request: r.u64()?,
            into: read_region(r)?,
        },
        4 => {
            let n = r.len_of(8)?;
            let mut requests = Vec::with_capacity(n);
            for _ in 0..n {
                requests.push(r.u64()?);
            }
            Call::Wait { requests }
        }
        5 => Call::Collective(decode_collective(r)?),
        12 => Call::GroupComm {
            members: r.u32s()?,
            tag: r.i32()?,
        },
        11 => Call::Intercomm {
            local: r.u32s()?,
            remote: r.u32s()?,
            tag: r.i32()?,
        },
        10 => Call::ICollective {
            request: r.u64()?,
            coll: decode_collective(r)?,
        },
        6 => Call::Finalize,
        16 => Call::Sync,
        17 => Call::Cancel { request: r.u64()? },
        13 => Call::Win(win::decode(r)?),
        14 => Call::Sample {
            key: String::from_utf8_lossy(&r.bytes()?).into_owned(),
            sample_ns: match r.u8()? {
                0 => None,
                _ => Some(r.u64()?),
            },
        },
        15 => Call::SharedMalloc {
            key: String::from_utf8_lossy(&r.bytes()?).into_owned(),
            size: r.u64()?,
        },
        7 => Call::Test { request: r.u64()? },
        9 => Call::Iprobe {
            comm: r.u32()?,
            from: r.i32()?,
            tag: r.i32()?,
        },
        8 => {
            let k = r.u8()?;
            let how = *COMPLETINGS
                .get(k as usize)
                .ok_or_else(|| WireError(format!("unknown completing call {k}")))?;
            Call::Completing {
                requests: r.u64s()?,
                how,
            }
        }
        k => return Err(WireError(format!("unknown call {k}"))),
    })
}

impl Reply {
    /// The frame's body.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        self.encode_into(&mut body);
        body
    }

    /// The frame's body, written into `body` (emptied first).
    pub fn encode_into(&self, body: &mut Vec<u8>) {
        let mut w = Writer::reusing(std::mem::take(body));
        match self {
            Reply::Welcome {
                rank,
                size,
                now_ps,
                compute_scale,
                clock_cost_ps,
                host_flops,
                remote_min,
            } => {
                w.u8(0);
                w.u32(*rank);
                w.u32(*size);
                w.u64(*now_ps);
                w.u64(compute_scale.to_bits());
                w.u64(*clock_cost_ps);
                w.u64(host_flops.to_bits());
                w.u64(*remote_min);
            }
            Reply::Done { now_ps, completions } => {
                w.u8(1);
                w.u64(*now_ps);
                w.u64(completions.len() as u64);
                for c in completions {
                    w.i32(c.source);
                    w.i32(c.tag);
                    w.bytes(&c.data);
                    match c.placed {
                        None => w.u8(0),
                        Some(n) => {
                            w.u8(1);
                            w.u64(n);
                        }
                    }
                }
            }
            Reply::Fail { message } => {
                w.u8(2);
                w.bytes(message.as_bytes());
            }
        }
        *body = w.into_bytes();
    }

    /// The reply in a frame's body.
    pub fn decode(body: &[u8]) -> Result<Reply, WireError> {
        let mut r = Reader::new(body);
        let rep = match r.u8()? {
            0 => Reply::Welcome {
                rank: r.u32()?,
                size: r.u32()?,
                now_ps: r.u64()?,
                compute_scale: f64::from_bits(r.u64()?),
                clock_cost_ps: r.u64()?,
                host_flops: f64::from_bits(r.u64()?),
                remote_min: r.u64()?,
            },
            1 => {
                let now_ps = r.u64()?;
                // Each completion takes at least 16 bytes.
                let n = r.len_of(16)?;
                let mut completions = Vec::with_capacity(n);
                for _ in 0..n {
                    completions.push(Completion {
                        source: r.i32()?,
                        tag: r.i32()?,
                        data: r.bytes()?,
                        placed: match r.u8()? {
                            0 => None,
                            1 => Some(r.u64()?),
                            k => return Err(WireError(format!("unknown placement {k}"))),
                        },
                    });
                }
                Reply::Done { now_ps, completions }
            }
            2 => Reply::Fail {
                message: String::from_utf8_lossy(&r.bytes()?).into_owned(),
            },
            k => return Err(WireError(format!("unknown reply {k}"))),
        };
        r.end()?;
        Ok(rep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_and_reply_decodes_to_itself() {
        let reqs = vec![
            Request::Hello,
            Request::Calls {
                ahead: Vec::new(),
                last: Timed {
                    compute_ns: 7,
                    clock_ps: 0,
                    call: Call::Send {
                        comm: 2,
                        to: 3,
                        tag: -5,
                        sync: false,
                        data: vec![1, 2, 3],
                        from: None,
                    },
                },
            },
            Request::Calls {
                ahead: Vec::new(),
                last: Timed {
                    compute_ns: 0,
                    clock_ps: 0,
                    call: Call::Irecv {
                        comm: 0,
                        from: abi::ANY_SOURCE,
                        tag: abi::ANY_TAG,
                        capacity: 1 << 40,
                        request: 9,
                        into: Some(Region {
                            addr: 4096,
                            len: 1 << 40,
                        }),
                    },
                },
            },
            Request::Calls {
                ahead: Vec::new(),
                last: Timed {
                    compute_ns: 1,
                    clock_ps: 0,
                    call: Call::Wait { requests: vec![4, 5] },
                },
            },
            Request::Calls {
                ahead: Vec::new(),
                last: Timed {
                    compute_ns: 2,
                    clock_ps: 0,
                    call: Call::Collective(Collective {
                        kind: CollKind::ReduceScatterBlock,
                        comm: 1,
                        root: 0,
                        op: abi::OP_SUM,
                        datatype: abi::DOUBLE,
                        count: 2,
                        send_counts: vec![1, 2],
                        recv_counts: vec![3],
                        data: vec![0; 16],
                        send_at: None,
                        recv_at: Some(Region { addr: 0x7f00, len: 16 }),
                        persistent: Some((3, 70)),
                    }),
                },
            },
            Request::Abort {
                code: 3,
                message: "bad".into(),
            },
        ];
        let mut reqs = reqs;
        reqs.push(Request::Calls {
            ahead: Vec::new(),
            last: Timed {
                compute_ns: 7,
                clock_ps: 0,
                call: Call::GroupComm {
                    members: vec![3, 1],
                    tag: -4,
                },
            },
        });
        reqs.push(Request::Calls {
            ahead: Vec::new(),
            last: Timed {
                compute_ns: 6,
                clock_ps: 0,
                call: Call::Intercomm {
                    local: vec![0, 2],
                    remote: vec![1],
                    tag: 3,
                },
            },
        });
        reqs.push(Request::Calls {
            ahead: Vec::new(),
            last: Timed {
                compute_ns: 5,
                clock_ps: 0,
                call: Call::Iprobe {
                    comm: 2,
                    from: abi::ANY_SOURCE,
                    tag: 7,
                },
            },
        });
        for sample_ns in [None, Some(12)] {
            reqs.push(Request::Calls {
                ahead: Vec::new(),
                last: Timed {
                    compute_ns: 1,
                    clock_ps: 0,
                    call: Call::Sample {
                        key: "a.c:3".into(),
                        sample_ns,
                    },
                },
            });
        }
        reqs.push(Request::Calls {
            ahead: Vec::new(),
            last: Timed {
                compute_ns: 0,
                clock_ps: 0,
                call: Call::Cancel { request: 12 },
            },
        });
        reqs.push(Request::Calls {
            ahead: Vec::new(),
            last: Timed {
                compute_ns: 1,
                clock_ps: 0,
                call: Call::SharedMalloc {
                    key: "b.c:9".into(),
                    size: 1 << 33,
                },
            },
        });
        for how in COMPLETINGS {
            reqs.push(Request::Calls {
                ahead: Vec::new(),
                last: Timed {
                    compute_ns: 3,
                    clock_ps: 0,
                    call: Call::Completing {
                        requests: vec![8, 6],
                        how,
                    },
                },
            });
        }
        for kind in COLL_KINDS {
            let coll = Collective {
                kind,
                comm: 3,
                root: 1,
                op: 0,
                datatype: abi::BYTE,
                count: 0,
                send_counts: Vec::new(),
                recv_counts: vec![2],
                data: Vec::new(),
                send_at: Some(Region { addr: 1 << 40, len: 8 }),
                recv_at: None,
                persistent: None,
            };
            reqs.push(Request::Calls {
                ahead: Vec::new(),
                last: Timed {
                    compute_ns: 4,
                    clock_ps: 0,
                    call: Call::ICollective {
                        request: 77,
                        coll: coll.clone(),
                    },
                },
            });
            reqs.push(Request::Calls {
                ahead: Vec::new(),
                last: Timed {
                    compute_ns: 4,
                    clock_ps: 0,
                    call: Call::Collective(coll),
                },
            });
        }
        // Calls posted ahead, then the one waited for.
        reqs.push(Request::Calls {
            ahead: vec![
                Timed {
                    compute_ns: 9,
                    clock_ps: 1,
                    call: Call::Isend {
                        comm: 0,
                        to: 1,
                        tag: 4,
                        sync: true,
                        request: 3,
                        data: Vec::new(),
                        from: Some(Region { addr: 1 << 44, len: 5 }),
                    },
                },
                Timed {
                    compute_ns: 0,
                    clock_ps: 0,
                    call: Call::Sync,
                },
            ],
            last: Timed {
                compute_ns: 2,
                clock_ps: 3,
                call: Call::Finalize,
            },
        });
        for q in reqs {
            assert_eq!(Request::decode(&q.encode()), Ok(q));
        }
        let reps = vec![
            Reply::Welcome {
                rank: 1,
                size: 2,
                now_ps: 3,
                compute_scale: 0.5,
                clock_cost_ps: 10_000,
                host_flops: 1e9,
                remote_min: 1 << 14,
            },
            Reply::Done {
                now_ps: 4,
                completions: vec![
                    Completion {
                        source: 1,
                        tag: 2,
                        data: vec![9],
                        placed: None,
                    },
                    Completion {
                        source: -1,
                        tag: 0,
                        data: Vec::new(),
                        placed: Some(1 << 20),
                    },
                ],
            },
            Reply::Fail { message: "x".into() },
        ];
        for r in reps {
            assert_eq!(Reply::decode(&r.encode()), Ok(r));
        }
        for c in [
            NewComm::Null,
            NewComm::SameMembers(7),
            NewComm::Members(8, vec![3, 1, 2]),
            NewComm::Inter(9, vec![0, 2], vec![1]),
        ] {
            assert_eq!(NewComm::decode(&c.encode()), Ok(c));
        }
        // A member list longer than the bytes that follow is refused, not read.
        let mut long = NewComm::Members(8, vec![1, 2]).encode();
        long.truncate(long.len() - 1);
        assert!(NewComm::decode(&long).is_err());
    }

    #[test]
    fn truncated_or_padded_frames_are_errors() {
        let body = Request::Calls {
            ahead: Vec::new(),
            last: Timed {
                compute_ns: 1,
                clock_ps: 0,
                call: Call::Send {
                    comm: 0,
                    to: 1,
                    tag: 0,
                    sync: false,
                    data: vec![7; 10],
                    from: None,
                },
            },
        }
        .encode();
        for cut in 0..body.len() {
            assert!(Request::decode(&body[..cut]).is_err(), "cut at {cut}");
        }
        let mut long = body.clone();
        long.push(0);
        assert!(Request::decode(&long).is_err());
        // A count that claims more elements than the frame holds.
        let mut w = Writer::default();
        w.u8(1);
        w.u64(0);
        w.u8(4);
        w.u64(u64::MAX);
        assert!(Request::decode(&w.into_bytes()).is_err());
    }
}
