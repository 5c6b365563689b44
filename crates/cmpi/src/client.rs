//! The rank's side of the conversation with `simpi run`: the connection, the
//! simulated clock, the requests in flight, and how every entry point runs and reports
//! errors.

use crate::layout::Layout;
use crate::op::UserOp;
use crate::rank_local::RankLocal;
use simpi_kernel::{IdHashMap, MixHashMap};
use simpi_wire::{abi, Call, Completion, Mailbox, Region, Reply, Request, Timed, ENV_MAILBOX};
use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

/// `MPI_Status`, laid out as the ABI's: source, tag, error and five private ints, of
/// which simpi keeps the received byte count in the first two and whether the
/// request was cancelled in the third.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Status {
    /// MPI_SOURCE.
    pub source: c_int,
    /// MPI_TAG.
    pub tag: c_int,
    /// MPI_ERROR.
    pub error: c_int,
    private: [c_int; 5],
}

impl Status {
    /// A status for `bytes` received from `source` with `tag`.
    pub fn new(source: c_int, tag: c_int, bytes: u64) -> Status {
        let mut s = Status {
            source,
            tag,
            error: abi::err::SUCCESS,
            private: [0; 5],
        };
        s.private[0] = bytes as u32 as c_int;
        s.private[1] = (bytes >> 32) as u32 as c_int;
        s
    }

    /// The received byte count.
    pub fn bytes(&self) -> u64 {
        (self.private[0] as u32 as u64) | ((self.private[1] as u32 as u64) << 32)
    }

    /// The status of a cancelled request: it received nothing.
    pub fn of_cancelled() -> Status {
        let mut s = Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0);
        s.set_cancelled(true);
        s
    }

    /// Whether the request was cancelled (MPI_Test_cancelled).
    pub fn cancelled(&self) -> bool {
        self.private[2] != 0
    }

    /// Marks the request cancelled or not (MPI_Status_set_cancelled).
    pub fn set_cancelled(&mut self, cancelled: bool) {
        self.private[2] = cancelled as c_int;
    }

    /// Writes `self` to `p` unless it is MPI_STATUS_IGNORE, leaving its MPI_ERROR
    /// field as the program set it: MPI sets that field only where a call completing
    /// several requests returns MPI_ERR_IN_STATUS, which simpi never does.
    ///
    /// # Safety
    /// `p` is null or points to a writable `MPI_Status`.
    pub unsafe fn store(self, p: *mut Status) {
        if !p.is_null() {
            *p = Status {
                error: (*p).error,
                ..self
            };
        }
    }
}

/// An error: the MPI error class and what went wrong.
pub type Failure = (c_int, String);

/// What a request of this rank is.
#[derive(Clone, Debug)]
pub enum Pending {
    /// A send: nothing comes back.
    Send,
    /// A receive into the elements `into` at `buf`.
    Recv {
        /// The buffer's address.
        buf: usize,
        /// What it holds.
        into: Typed,
    },
    /// A request already complete, with its status (on MPI_PROC_NULL, or one that
    /// MPI_Request_get_status found complete).
    Done(Status),
    /// A non-blocking collective: what to do with the rank's result.
    Coll(Arc<Deliver>),
    /// A request made of several of this rank's (MPI_Isendrecv, a non-blocking
    /// neighborhood collective).
    Compound(Arc<crate::compound::Compound>),
    /// A generalized request (MPI_Grequest_start): the program completes it.
    Greq(Arc<crate::greq::Greq>),
}

/// A persistent request (MPI_Send_init, MPI_Recv_init).
#[derive(Debug)]
pub struct Persistent {
    /// What MPI_Start starts.
    pub start: Starter,
    /// The request of the current start, while active.
    pub active: Option<u64>,
}

/// What a persistent request starts.
#[derive(Clone, Debug)]
pub enum Starter {
    /// A send or a receive.
    P2p(Start),
    /// A collective (MPI_Bcast_init ...): makes the call, as its non-blocking form.
    Coll(Arc<crate::coll::CollStarter>),
    /// A neighborhood collective (MPI_Neighbor_alltoall_init ...): starts its
    /// exchange.
    Neighbor(Arc<crate::neighborhood::NeighborStarter>),
}

/// The operation a persistent request starts: a send's or a receive's arguments.
#[derive(Clone, Debug)]
pub struct Start {
    /// The datatype's layout, held so that the datatype may be freed while the
    /// request lives (as MPI allows).
    pub _layout: Arc<Layout>,
    /// Whether it receives.
    pub recv: bool,
    /// A synchronous send (MPI_Ssend_init).
    pub sync: bool,
    /// The buffer.
    pub buf: usize,
    /// Elements.
    pub count: c_int,
    /// Their datatype.
    pub datatype: usize,
    /// Destination or source.
    pub peer: c_int,
    /// Tag.
    pub tag: c_int,
    /// Communicator.
    pub comm: usize,
}

impl Pending {
    /// A request on MPI_PROC_NULL: complete at once, with an empty status.
    pub fn null() -> Pending {
        Pending::Done(Status::new(abi::PROC_NULL, abi::ANY_TAG, 0))
    }
}

/// What a rank does with a collective's result when it arrives (writes it into the
/// program's buffers, which the call named).
pub struct Deliver(Box<dyn Fn(Vec<u8>) -> Result<(), Failure>>);

// SAFETY: the rank's one thread calls MPI (MPI_THREAD_SINGLE is what simpi provides);
// the buffers a `Deliver` writes are the program's, named by the call that made it.
unsafe impl Send for Deliver {}
// SAFETY: as for Send.
unsafe impl Sync for Deliver {}

impl Deliver {
    /// Delivers with `f`.
    pub fn new(f: impl Fn(Vec<u8>) -> Result<(), Failure> + 'static) -> Deliver {
        Deliver(Box::new(f))
    }

    /// Hands the result over.
    pub fn give(&self, data: Vec<u8>) -> Result<(), Failure> {
        (self.0)(data)
    }
}

impl std::fmt::Debug for Deliver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Deliver")
    }
}

/// How a rank reaches the simulator.
enum Link {
    /// Its own process, through the mailbox `simpi run` gave it.
    Mailbox {
        mailbox: Mailbox,
        /// The launcher's process id: if it changes, the launcher is gone.
        parent: libc::pid_t,
    },
    /// A coroutine of `simpi run`'s process (`in_process`).
    Coroutine,
}

/// The rank's connection and state.
pub struct Client {
    link: Link,
    /// This rank.
    pub rank: u32,
    /// Ranks in MPI_COMM_WORLD.
    pub size: u32,
    now_ps: u64,
    /// Simulated picoseconds per nanosecond of CPU time (0: compute not simulated).
    scale: f64,
    /// What one read of the clock costs, in simulated picoseconds.
    clock_cost_ps: u64,
    /// The rank's host speed in flop/s.
    pub host_flops: f64,
    /// The smallest contiguous buffer a collective leaves in place for the simulator
    /// to read or write (`u64::MAX`: none).
    pub remote_min: u64,
    /// What the clock reads since the last return cost, in simulated picoseconds.
    clock_ps: u64,
    /// CPU time at the last return from the simulator or call posted ahead (0 while
    /// compute is not simulated: the clock is then not read).
    cpu_at_reply: u64,
    /// Calls made without waiting for their replies, not yet sent: they go with the
    /// next call the rank waits for. Until then `now_ps` is behind.
    ahead: Vec<Timed>,
    /// Bytes of data the calls in `ahead` carry.
    ahead_bytes: usize,
    /// Where requests are encoded (kept: see [`simpi_wire::Writer::reusing`]).
    scratch: Vec<u8>,
    /// A message body past [`LARGE_BODY`] went either way (the allocator was tuned).
    large_bodies: bool,
    next_request: u64,
    /// The requests in flight, by the value `MPI_Request` holds.
    pub requests: IdHashMap<u64, Pending>,
    /// Error handlers set on communicators, by communicator handle.
    pub errhandlers: IdHashMap<u64, u64>,
    /// The error handlers the program made, by handle.
    pub handler_fns: IdHashMap<u64, crate::errhan::HandlerFn>,
    /// The next error handler's handle.
    pub next_handler: u64,
    /// Error classes and codes the program added: (class, text) by code.
    pub codes: IdHashMap<c_int, (c_int, String)>,
    /// The next error class or code to add.
    pub next_code: c_int,
    /// The communicator the current call named last (its errors go to its handler).
    pub(crate) last_comm: std::cell::Cell<u64>,
    /// The communicators made by the program and not freed, by handle.
    pub comms: IdHashMap<u64, Comm>,
    /// The groups made by the program and not freed, by handle: world ranks in
    /// group order.
    pub groups: IdHashMap<u64, Arc<[u32]>>,
    next_group: u64,
    /// The datatypes made by the program and not freed, by handle.
    pub types: IdHashMap<u64, Arc<Layout>>,
    next_type: u64,
    /// Datatypes freed by the program while a persistent request still used them.
    pub retired: IdHashMap<u64, Arc<Layout>>,
    /// The constructor (MPI_COMBINER_...) of each datatype the program made.
    pub combiners: IdHashMap<u64, c_int>,
    /// The persistent requests, by handle: how to start them, and the request of
    /// their current start while active.
    pub persistent: IdHashMap<u64, Persistent>,
    /// The topologies of communicators that have one, by handle.
    pub topos: IdHashMap<u64, crate::topo::Topo>,
    /// The duplicate each communicator's neighborhood collectives use, by handle.
    pub shadows: IdHashMap<u64, u64>,
    /// Persistent collectives made so far on each communicator, by index.
    pub persistent_colls: IdHashMap<u32, u64>,
    /// Info objects, by handle.
    pub infos: IdHashMap<u64, crate::info::Info>,
    next_info: u64,
    /// Keyvals the program made, by number.
    pub keyvals: IdHashMap<c_int, crate::attr::Keyval>,
    /// The next keyval's number.
    pub next_keyval: c_int,
    /// Attribute values, by (communicator handle, keyval).
    pub attrs: MixHashMap<(u64, c_int), usize>,
    /// When each attribute was set (attributes are deleted last set, first deleted).
    pub attr_order: MixHashMap<(u64, c_int), u64>,
    /// Attributes set so far.
    pub attrs_set: u64,
    /// The reduction operations made by the program and not freed, by handle.
    pub ops: IdHashMap<u64, UserOp>,
    /// Windows by handle.
    pub wins: crate::win::Wins,
    /// Windows made so far (handles are never reused).
    pub wins_made: u64,
    next_op: u64,
}

/// A communicator as this rank sees it.
#[derive(Clone, Debug)]
pub struct Comm {
    /// Its index for the simulator.
    pub index: u32,
    /// This rank's rank in it.
    pub rank: u32,
    /// Its size.
    pub size: u32,
    /// Its members as world ranks, in its rank order (`None`: the world's); of this
    /// rank's group, for an intercommunicator.
    pub members: Option<Arc<[u32]>>,
    /// The other group of an intercommunicator (world ranks); `None` for an
    /// intracommunicator.
    pub remote: Option<Arc<[u32]>>,
}

impl Comm {
    /// Ranks a point-to-point call may name: the other group's, on an
    /// intercommunicator.
    pub fn peers(&self) -> u32 {
        self.remote.as_ref().map_or(self.size, |r| r.len() as u32)
    }

    /// How errors name it.
    pub fn name(&self) -> String {
        match self.index {
            0 => "MPI_COMM_WORLD".into(),
            SELF_INDEX => "MPI_COMM_SELF".into(),
            i => format!("communicator #{i}"),
        }
    }

    /// Its members as world ranks.
    pub fn member_list(&self) -> Arc<[u32]> {
        match &self.members {
            None => (0..self.size).collect(),
            Some(m) => Arc::clone(m),
        }
    }
}

/// What every MPI call of a rank goes through.
struct Rank {
    /// The rank's client, once MPI_Init connected it.
    client: Mutex<Option<Client>>,
    /// The rank called MPI_Finalize.
    finalized: AtomicBool,
    /// The rank is inside an MPI call (its thread alone sets it: no atomic exchange
    /// is needed, and the program's other threads only read it).
    in_entry: AtomicBool,
    /// Work the current call leaves to run once it released the lock.
    deferred: Mutex<Vec<Deferred>>,
    /// `deferred` is not empty (checked by every call without taking its lock).
    has_deferred: AtomicBool,
}

/// The running rank's [`Rank`] (one lookup per call).
fn rank() -> &'static Rank {
    static RANK: RankLocal<Rank> = RankLocal::new(|| Rank {
        client: Mutex::new(None),
        finalized: AtomicBool::new(false),
        in_entry: AtomicBool::new(false),
        deferred: Mutex::new(Vec::new()),
        has_deferred: AtomicBool::new(false),
    });
    RANK.get()
}

/// Handles of communicators the program makes are this plus their index (above every
/// predefined handle).
pub const COMM_BASE: u64 = 0x10_0000;

/// The index of MPI_COMM_SELF for the simulator (the same on every rank).
pub const SELF_INDEX: u32 = 1;

/// The first handle of a group the program makes.
const FIRST_GROUP: u64 = 0x2000_0000;

/// MPI_DATATYPE_NULL.
const DATATYPE_NULL: u64 = 0x200;

/// The first handle of an info object the program makes.
const FIRST_INFO: u64 = 0x1000;

/// The first handle of a datatype the program makes (above every predefined one).
const FIRST_TYPE: u64 = 0x1000;

/// The first request value (above every predefined handle, so none is mistaken for
/// MPI_REQUEST_NULL).
const FIRST_REQUEST: u64 = 0x1000;

/// Calls posted ahead that a rank keeps before it sends them anyway (as a
/// [`Call::Sync`]), and the data they may carry: a bound on its memory and on the
/// mailbox's message.
const AHEAD_CALLS: usize = 64;
const AHEAD_BYTES: usize = 1 << 20;

/// A message body from which a rank tunes its allocator for large blocks
/// ([`simpi_wire::heap::reuse_large_blocks`]): glibc's default mmap threshold.
const LARGE_BODY: usize = 128 << 10;

/// The rank's CPU time in nanoseconds: its process's, or, for ranks that are
/// coroutines of one thread, that thread's (which runs one rank at a time, so the
/// time between a rank's return from one call and its next is the rank's).
pub fn cpu_ns() -> u64 {
    let clock = if crate::in_process::active() {
        libc::CLOCK_THREAD_CPUTIME_ID
    } else {
        libc::CLOCK_PROCESS_CPUTIME_ID
    };
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec to write.
    unsafe { libc::clock_gettime(clock, &mut t) };
    (t.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec as u64)
}

/// Prints `msg` as simpi's and ends this process with `code`; a rank that is a
/// coroutine ends alone, and `simpi run` reports `msg`.
fn die(msg: &str, code: i32) -> ! {
    if crate::in_process::in_rank() {
        crate::in_process::end_failed(msg.to_string());
    }
    eprintln!("simpi: {msg}");
    std::process::exit(code)
}

impl Client {
    /// Connects to `simpi run`: through the mailbox it passed in
    /// `SIMPI_RUN_MAILBOX`, or as a coroutine of its process.
    fn connect() -> Result<Client, Failure> {
        let link = if crate::in_process::in_rank() {
            Link::Coroutine
        } else {
            Self::open_mailbox()?
        };
        let mut c = Client {
            link,
            rank: 0,
            size: 0,
            now_ps: 0,
            scale: 0.0,
            clock_cost_ps: 0,
            host_flops: 1e9,
            remote_min: u64::MAX,
            clock_ps: 0,
            cpu_at_reply: 0,
            ahead: Vec::new(),
            ahead_bytes: 0,
            scratch: Vec::new(),
            large_bodies: false,
            next_request: FIRST_REQUEST,
            requests: Default::default(),
            errhandlers: Default::default(),
            handler_fns: Default::default(),
            next_handler: crate::errhan::FIRST_HANDLER,
            codes: Default::default(),
            next_code: crate::errhan::FIRST_CODE,
            last_comm: std::cell::Cell::new(abi::COMM_WORLD),
            comms: Default::default(),
            groups: Default::default(),
            next_group: FIRST_GROUP,
            types: Default::default(),
            combiners: Default::default(),
            retired: Default::default(),
            next_type: FIRST_TYPE,
            ops: Default::default(),
            persistent: Default::default(),
            topos: Default::default(),
            shadows: Default::default(),
            persistent_colls: Default::default(),
            infos: Default::default(),
            next_info: FIRST_INFO,
            keyvals: Default::default(),
            next_keyval: crate::attr::FIRST_KEYVAL,
            attrs: Default::default(),
            attr_order: Default::default(),
            attrs_set: 0,
            next_op: crate::op::FIRST_OP,
            wins: Default::default(),
            wins_made: 0,
        };
        match c.exchange(&Request::Hello) {
            Reply::Welcome {
                rank,
                size,
                now_ps,
                compute_scale,
                clock_cost_ps,
                host_flops,
                remote_min,
            } => {
                c.remote_min = remote_min;
                c.rank = rank;
                c.size = size;
                c.now_ps = now_ps;
                c.scale = compute_scale;
                c.clock_cost_ps = clock_cost_ps;
                c.host_flops = host_flops;
                c.cpu_at_reply = c.cpu_now();
                Ok(c)
            }
            _ => die("simpi run answered MPI_Init with something else", 1),
        }
    }

    /// The mailbox `simpi run` passed this process in `SIMPI_RUN_MAILBOX`.
    fn open_mailbox() -> Result<Link, Failure> {
        let mfd: i32 = std::env::var(ENV_MAILBOX)
            .ok()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| {
                (
                    abi::err::OTHER,
                    "this program uses simpi's MPI library: run it with `simpi run -np N PROGRAM`".to_string(),
                )
            })?;
        let mailbox = Mailbox::open(mfd).map_err(|e| (abi::err::OTHER, format!("cannot map the mailbox: {e}")))?;
        // Ended by the kernel if `simpi run` dies (a rank does not check by itself).
        // SAFETY: no memory is involved.
        unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
        // The simulator may have died before that: then no signal comes, and the
        // rank would wait for it for ever.
        // SAFETY: signal 0 only checks that the process exists.
        if unsafe { libc::kill(mailbox.creator() as libc::pid_t, 0) } != 0 {
            die("simpi run ended before this rank started", 1);
        }
        // SAFETY: the descriptor is mapped; closing it keeps the mapping.
        unsafe { libc::close(mfd) };
        Ok(Link::Mailbox {
            mailbox,
            // SAFETY: no preconditions.
            parent: unsafe { libc::getppid() },
        })
    }

    fn exchange(&mut self, req: &Request) -> Reply {
        req.encode_into(&mut self.scratch);
        let mut largest = self.scratch.len();
        let reply = match &mut self.link {
            Link::Coroutine => crate::in_process::exchange(&self.scratch, |body| {
                largest = largest.max(body.len());
                Reply::decode(body)
            }),
            Link::Mailbox { mailbox, parent } => {
                if mailbox.send(&self.scratch).is_err() {
                    die("lost the connection to simpi run", 1);
                }
                let parent = *parent;
                let alive = || {
                    // SAFETY: no preconditions.
                    if unsafe { libc::getppid() } == parent {
                        Ok(())
                    } else {
                        Err(std::io::Error::other("simpi run ended"))
                    }
                };
                match mailbox.receive_with(alive, |body| {
                    largest = largest.max(body.len());
                    Reply::decode(body)
                }) {
                    Ok(r) => r,
                    Err(_) => die("lost the connection to simpi run", 1),
                }
            }
        };
        simpi_wire::keep_small(&mut self.scratch);
        // Only a program that moves large messages gets the allocator settings for
        // them (they cost a program of small ones some memory per rank).
        if !self.large_bodies && largest > LARGE_BODY {
            self.large_bodies = true;
            simpi_wire::heap::reuse_large_blocks();
        }
        match reply {
            Ok(Reply::Fail { message }) => die(&message, 1),
            Ok(r) => r,
            Err(e) => die(&e.to_string(), 1),
        }
    }

    /// This process's CPU time, if compute is simulated (0 otherwise: a read of the
    /// CPU clock is a system call, a good part of a call's cost).
    fn cpu_now(&self) -> u64 {
        if self.scale > 0.0 {
            cpu_ns()
        } else {
            0
        }
    }

    /// `call` with the CPU time and clock reads since the last return, and the CPU
    /// time now.
    fn timed(&mut self, call: Call) -> (Timed, u64) {
        let now = self.cpu_now();
        let t = Timed {
            compute_ns: now.saturating_sub(self.cpu_at_reply),
            clock_ps: std::mem::take(&mut self.clock_ps),
            call,
        };
        (t, now)
    }

    /// Sends `call` (with the CPU time since the last return), after the calls posted
    /// ahead, and waits until the simulation lets the rank go on; returns what it
    /// received.
    pub fn call(&mut self, call: Call) -> Vec<Completion> {
        let (last, _) = self.timed(call);
        let ahead = std::mem::take(&mut self.ahead);
        self.ahead_bytes = 0;
        match self.exchange(&Request::Calls { ahead, last }) {
            Reply::Done { now_ps, completions } => {
                self.now_ps = now_ps;
                self.cpu_at_reply = self.cpu_now();
                completions
            }
            _ => die("simpi run answered a call with something else", 1),
        }
    }

    /// Makes `call`, whose reply the rank does not need (a send, a non-blocking call),
    /// without waiting: it goes to the simulator with the next call the rank waits for
    /// (each hand-over between processes costs microseconds). The simulator posts it
    /// when the simulation lets the rank go on from the call before, so simulated
    /// times are those of waiting for each reply.
    pub fn call_ahead(&mut self, call: Call) {
        let bytes = match &call {
            Call::Send { data, .. } | Call::Isend { data, .. } => data.len(),
            Call::ICollective { coll, .. } => coll.data.len(),
            _ => 0,
        };
        let (t, now) = self.timed(call);
        self.ahead.push(t);
        self.ahead_bytes = self.ahead_bytes.saturating_add(bytes);
        // The computation before the next call starts here.
        self.cpu_at_reply = now;
        if self.ahead.len() >= AHEAD_CALLS || self.ahead_bytes >= AHEAD_BYTES {
            self.call(Call::Sync);
        }
    }

    /// The simulated time now, in seconds: the last return's time plus the CPU time
    /// since, scaled, plus what the clock reads since cost (this one included, as
    /// SMPI's `smpi/wtime`: a loop that waits for the clock to advance ends).
    pub fn wtime(&mut self) -> f64 {
        if !self.ahead.is_empty() {
            // The time after the calls posted ahead is the simulator's to tell.
            self.call(Call::Sync);
        }
        self.clock_ps = self.clock_ps.saturating_add(self.clock_cost_ps);
        let since = self.cpu_now().saturating_sub(self.cpu_at_reply) as f64 * self.scale;
        (self.now_ps as f64 + since + self.clock_ps as f64) * 1e-12
    }

    /// Simulated time the rank spends without running (SMPI_SAMPLE_DELAY, the
    /// iterations a sampled loop skips): it counts before the next call, as computing.
    pub fn inject_ps(&mut self, ps: u64) {
        self.clock_ps = self.clock_ps.saturating_add(ps);
    }

    /// Simulated picoseconds per nanosecond of this machine's CPU time (0: compute is
    /// not simulated).
    pub fn compute_scale(&self) -> f64 {
        self.scale
    }

    /// A new request value.
    pub fn new_request(&mut self, p: Pending) -> u64 {
        let q = self.next_request;
        self.next_request += 1;
        self.requests.insert(q, p);
        q
    }

    /// What request `q` stands for now: nothing for MPI_REQUEST_NULL and inactive
    /// persistent requests, else the request in flight (for an active persistent
    /// one, that of its current start) and what it is.
    pub fn lookup(&self, q: usize) -> Result<Option<(u64, Pending)>, Failure> {
        let q = q as u64;
        if q == abi::REQUEST_NULL {
            return Ok(None);
        }
        let inner = match self.persistent.get(&q) {
            Some(p) => match p.active {
                Some(i) => i,
                None => return Ok(None),
            },
            None => q,
        };
        match self.requests.get(&inner) {
            Some(k) => Ok(Some((inner, k.clone()))),
            None => Err((abi::err::REQUEST, format!("request {q:#x} is not one of this rank's"))),
        }
    }

    /// Request `*q` completed: it is freed and set to MPI_REQUEST_NULL, or, if
    /// persistent, made inactive (its handle stays).
    pub fn retire(&mut self, q: &mut usize) {
        let h = *q as u64;
        match self.persistent.get_mut(&h) {
            Some(p) => {
                if let Some(i) = p.active.take() {
                    self.requests.remove(&i);
                }
            }
            None => {
                self.requests.remove(&h);
                *q = abi::REQUEST_NULL as usize;
            }
        }
    }

    /// A new request value, for a persistent request.
    pub fn new_persistent(&mut self, start: Starter) -> u64 {
        let q = self.next_request;
        self.next_request += 1;
        self.persistent.insert(q, Persistent { start, active: None });
        q
    }

    /// Tells `simpi run` the rank aborts, and exits.
    pub fn abort(&mut self, code: c_int, message: &str) -> ! {
        let request = Request::Abort {
            code,
            message: message.to_string(),
        }
        .encode();
        let code = if code == 0 { 1 } else { code };
        match &mut self.link {
            Link::Mailbox { mailbox, .. } => {
                let _ = mailbox.send(&request);
                std::process::exit(code)
            }
            // `simpi run` ends the run on the request: the rank never runs again.
            Link::Coroutine => crate::in_process::exchange(&request, |_| crate::in_process::end_exited(code)),
        }
    }

    /// Communicator `comm` as this rank sees it, or MPI_ERR_COMM.
    pub fn comm(&self, comm: usize) -> Result<Comm, Failure> {
        let found = self.find_comm(comm);
        if found.is_ok() {
            self.last_comm.set(comm as u64);
        }
        found
    }

    fn find_comm(&self, comm: usize) -> Result<Comm, Failure> {
        match comm as u64 {
            abi::COMM_WORLD => Ok(Comm {
                index: 0,
                rank: self.rank,
                size: self.size,
                members: None,
                remote: None,
            }),
            abi::COMM_SELF => Ok(Comm {
                index: SELF_INDEX,
                rank: 0,
                size: 1,
                members: Some(Arc::from([self.rank].as_slice())),
                remote: None,
            }),
            abi::COMM_NULL => Err((abi::err::COMM, "MPI_COMM_NULL is not a communicator to use".into())),
            h => self.comms.get(&h).cloned().ok_or_else(|| {
                (
                    abi::err::COMM,
                    format!("communicator {h:#x} does not exist (or was freed)"),
                )
            }),
        }
    }

    /// Takes the new communicator a creation call's reply describes (`parent`: the
    /// communicator it was made from); returns its handle.
    pub fn adopt(&mut self, parent: &Comm, reply: &[u8]) -> Result<u64, Failure> {
        let bad = |e: simpi_wire::WireError| (abi::err::INTERN, e.to_string());
        let (index, members, remote) = match simpi_wire::NewComm::decode(reply).map_err(bad)? {
            simpi_wire::NewComm::Null => return Ok(abi::COMM_NULL),
            simpi_wire::NewComm::SameMembers(i) => (i, parent.members.clone(), parent.remote.clone()),
            simpi_wire::NewComm::Members(i, m) => (i, Some(Arc::from(m)), None),
            simpi_wire::NewComm::Inter(i, local, remote) => (i, Some(Arc::from(local)), Some(Arc::from(remote))),
        };
        self.add_comm(index, members, remote)
    }

    /// Registers communicator `index` of `members` (this rank's group) and, for an
    /// intercommunicator, `remote`; returns its handle.
    pub fn add_comm(
        &mut self,
        index: u32,
        members: Option<Arc<[u32]>>,
        remote: Option<Arc<[u32]>>,
    ) -> Result<u64, Failure> {
        let (rank, size) = match &members {
            None => (self.rank, self.size),
            Some(m) => (
                m.iter()
                    .position(|&w| w == self.rank)
                    .ok_or((abi::err::INTERN, "a new communicator without this rank".to_string()))?
                    as u32,
                m.len() as u32,
            ),
        };
        let h = COMM_BASE + index as u64;
        self.comms.insert(
            h,
            Comm {
                index,
                rank,
                size,
                members,
                remote,
            },
        );
        Ok(h)
    }

    /// A handle for a new group of world ranks (the empty group is MPI_GROUP_EMPTY).
    pub fn new_group(&mut self, members: Vec<u32>) -> u64 {
        if members.is_empty() {
            return abi::GROUP_EMPTY;
        }
        let h = self.next_group;
        self.next_group += 1;
        self.groups.insert(h, members.into());
        h
    }

    /// `count` elements of datatype `dt`, checked: MPI_ERR_COUNT if negative or too
    /// many bytes, MPI_ERR_TYPE if no such datatype.
    pub fn typed(&self, count: i64, dt: usize) -> Result<Typed, Failure> {
        if count < 0 {
            return Err((abi::err::COUNT, format!("count {count} is negative")));
        }
        // No data: MPI_DATATYPE_NULL is taken as any (programs pass it with count 0).
        let dt = if count == 0 && dt as u64 == DATATYPE_NULL {
            abi::BYTE as usize
        } else {
            dt
        };
        let ty = self.layout(dt)?;
        if (count as u64).checked_mul(ty.size).is_none() {
            return Err((abi::err::COUNT, format!("{count} elements overflow")));
        }
        Ok(Typed {
            ty,
            count: count as u64,
        })
    }

    /// Datatype `dt`'s layout, or MPI_ERR_TYPE.
    pub fn layout(&self, dt: usize) -> Result<Arc<Layout>, Failure> {
        self.layout_ref(dt).map(Arc::clone)
    }

    /// Datatype `dt`'s layout, borrowed (for a call that only reads it), or
    /// MPI_ERR_TYPE.
    pub fn layout_ref(&self, dt: usize) -> Result<&Arc<Layout>, Failure> {
        if let Some(t) = predefined(dt as u64) {
            return Ok(t);
        }
        let h = dt as u64;
        // A datatype freed while a persistent request uses it stays known.
        self.types.get(&h).or_else(|| self.retired.get(&h)).ok_or_else(|| {
            (
                abi::err::TYPE,
                format!("datatype {dt:#x} does not exist (or was freed)"),
            )
        })
    }

    /// A handle for a new datatype.
    pub fn new_type(&mut self, t: Layout) -> u64 {
        let h = self.next_type;
        self.next_type += 1;
        self.types.insert(h, Arc::new(t));
        h
    }

    /// A handle for a new info object.
    pub fn new_info(&mut self, entries: crate::info::Info) -> u64 {
        let h = self.next_info;
        self.next_info += 1;
        self.infos.insert(h, entries);
        h
    }

    /// A handle for a new reduction operation.
    pub fn new_op(&mut self, op: UserOp) -> u64 {
        let h = self.next_op;
        self.next_op += 1;
        self.ops.insert(h, op);
        h
    }

    /// Group `g`'s members (world ranks), or MPI_ERR_GROUP.
    pub fn group(&self, g: usize) -> Result<Arc<[u32]>, Failure> {
        match g as u64 {
            abi::GROUP_EMPTY => Ok(Arc::from(Vec::new())),
            h => self
                .groups
                .get(&h)
                .cloned()
                .ok_or_else(|| (abi::err::GROUP, format!("group {h:#x} does not exist (or was freed)"))),
        }
    }
}

/// The layouts of the predefined datatypes, made once.
fn predefined(h: u64) -> Option<&'static Arc<Layout>> {
    // The ABI numbers the predefined datatypes from 0x200 to 0x2ff: an index, no hash.
    const FIRST: u64 = 0x200;
    static ALL: std::sync::OnceLock<Vec<Option<Arc<Layout>>>> = std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| {
        let mut all = vec![None; 0x100];
        for t in abi::DATATYPES {
            all[(t.handle - FIRST) as usize] = Some(Arc::new(Layout::predefined(t)));
        }
        all
    });
    all.get(h.wrapping_sub(FIRST) as usize)?.as_ref()
}

/// Checks a destination or source rank of `comm` (`wild` allows MPI_ANY_SOURCE);
/// `Ok(None)` for MPI_PROC_NULL.
pub fn check_rank(comm: &Comm, r: c_int, wild: bool) -> Result<Option<i32>, Failure> {
    match r {
        abi::PROC_NULL => Ok(None),
        abi::ANY_SOURCE if wild => Ok(Some(r)),
        r if r >= 0 && (r as u32) < comm.peers() => Ok(Some(r)),
        r => Err((
            abi::err::RANK,
            format!("rank {r} is not in {} (size {})", comm.name(), comm.peers()),
        )),
    }
}

/// Checks a tag (`wild` allows MPI_ANY_TAG).
pub fn check_tag(tag: c_int, wild: bool) -> Result<(), Failure> {
    if (0..=abi::TAG_UB).contains(&tag) || (wild && tag == abi::ANY_TAG) {
        Ok(())
    } else {
        Err((abi::err::TAG, format!("tag {tag} is not between 0 and {}", abi::TAG_UB)))
    }
}

/// `count` elements of a datatype: what a buffer argument of a call describes.
#[derive(Clone, Debug)]
pub struct Typed {
    /// The datatype's layout.
    pub ty: Arc<Layout>,
    /// Elements.
    pub count: u64,
}

impl Typed {
    /// Bytes of data (checked when made).
    pub fn bytes(&self) -> u64 {
        self.ty.size * self.count
    }

    /// The address of the `i`-th run of `count` elements from `buf` (where rank `i`'s
    /// block of a gather lands).
    pub fn block_at(&self, buf: *const u8, i: u64) -> *const u8 {
        buf.wrapping_offset((i as i64).wrapping_mul(self.count as i64).wrapping_mul(self.ty.extent) as isize)
    }

    /// The data at `buf`, packed.
    ///
    /// # Safety
    /// `buf` holds the elements.
    pub unsafe fn read(&self, buf: *const u8) -> Result<Vec<u8>, Failure> {
        self.ty.pack(buf, self.count).map_err(|e| (abi::err::BUFFER, e))
    }

    /// Spreads `data` (packed) over the elements at `buf`; more data than they hold
    /// is MPI_ERR_TRUNCATE.
    ///
    /// # Safety
    /// `buf` holds the elements.
    pub unsafe fn write(&self, buf: *mut u8, data: &[u8]) -> Result<(), Failure> {
        self.ty
            .unpack(buf, self.count, data)
            .map_err(|e| (abi::err::TRUNCATE, e))
    }

    /// The same datatype, `count` elements.
    pub fn with_count(&self, count: u64) -> Typed {
        Typed {
            ty: Arc::clone(&self.ty),
            count,
        }
    }
}

/// Data a call gives the simulator: packed, or where it lies in the rank's memory for
/// the simulator to read ([`Client::region`]; `data` is then empty).
pub struct Give {
    /// The packed bytes.
    pub data: Vec<u8>,
    /// Where the bytes lie instead.
    pub at: Option<Region>,
}

impl Give {
    /// Bytes given.
    pub fn len(&self) -> u64 {
        self.at.map_or(self.data.len() as u64, |r| r.len)
    }
}

impl From<Vec<u8>> for Give {
    fn from(data: Vec<u8>) -> Give {
        Give { data, at: None }
    }
}

impl Client {
    /// `t`'s elements at `buf`: left in place if `may_stay` and
    /// [`Client::region`] allows, else packed.
    ///
    /// # Safety
    /// `buf` holds the elements.
    pub unsafe fn give(&self, t: &Typed, buf: *const std::ffi::c_void, may_stay: bool) -> Result<Give, Failure> {
        Ok(match self.region(t, buf).filter(|_| may_stay) {
            Some(at) => Give {
                data: Vec::new(),
                at: Some(at),
            },
            None => t.read(buf as *const u8)?.into(),
        })
    }

    /// Where `t`'s elements at `buf` may stay for the simulator to read or write them
    /// itself, saving the copies through the mailbox: a contiguous run of at least
    /// the simulator's `remote_min` bytes.
    pub fn region(&self, t: &Typed, buf: *const std::ffi::c_void) -> Option<Region> {
        let len = t.bytes();
        (len >= self.remote_min && t.ty.is_contiguous() && !buf.is_null()).then_some(Region { addr: buf as u64, len })
    }
}

/// Runs entry point `name` on the initialized client: an error goes to the error
/// handler (fatal by default: the run ends); a panic never crosses into C.
pub fn entry(name: &str, f: impl FnOnce(&mut Client) -> Result<(), Failure>) -> c_int {
    // A callback of the program (an attribute's copy or delete function, a
    // reduction) that calls MPI would wait for itself on the lock.
    let me = rank();
    if me.in_entry.load(Ordering::Relaxed) {
        die(
            &format!("{name} called from inside a callback the program gave MPI: simpi does not support that yet"),
            1,
        );
    }
    me.in_entry.store(true, Ordering::Relaxed);
    let (mut code, handler) = entry_locked(me, name, f);
    me.in_entry.store(false, Ordering::Relaxed);
    // The program's callbacks the call queued (attribute copy and delete functions)
    // run now, outside the lock: they may call MPI. The first error they return is
    // the call's.
    let queued = if me.has_deferred.swap(false, Ordering::Relaxed) {
        std::mem::take(&mut *me.deferred.lock().unwrap_or_else(|p| p.into_inner()))
    } else {
        Vec::new()
    };
    for Deferred(f) in queued {
        let rc = f();
        if rc != abi::err::SUCCESS && code == abi::err::SUCCESS {
            code = rc;
        }
    }
    // The program's error handler runs outside the lock: it may call MPI.
    if let Some((f, comm)) = handler {
        let mut comm = comm as usize;
        // SAFETY: the program gave this function as an error handler.
        unsafe { f(&mut comm, &mut code) };
    }
    code
}

/// A callback of the program to run after the current call released the lock; it
/// returns an error code (MPI_SUCCESS: none).
pub struct Deferred(Box<dyn FnOnce() -> c_int>);

// SAFETY: the rank's one thread that calls MPI makes and runs them.
unsafe impl Send for Deferred {}

/// Queues `f` to run when the current MPI call has released the library's lock.
pub fn defer(f: impl FnOnce() -> c_int + 'static) {
    let me = rank();
    me.deferred
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Deferred(Box::new(f)));
    me.has_deferred.store(true, Ordering::Relaxed);
}

/// Runs `f` on the client (outside any MPI call: from deferred work).
pub fn with_mut(f: impl FnOnce(&mut Client)) {
    let mut guard = rank().client.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = guard.as_mut() {
        f(c);
    }
}

/// Runs `f` on the client if MPI is initialized (and this is not inside an MPI call);
/// whether it ran.
pub fn with(f: impl FnOnce(&Client)) -> bool {
    if rank().in_entry.load(Ordering::Relaxed) {
        return false;
    }
    let guard = rank().client.lock().unwrap_or_else(|p| p.into_inner());
    match guard.as_ref() {
        Some(c) => {
            f(c);
            true
        }
        None => false,
    }
}

/// The program's error handler to call, with the communicator it is for.
type Handler = Option<(crate::errhan::HandlerFn, u64)>;

fn entry_locked(me: &Rank, name: &str, f: impl FnOnce(&mut Client) -> Result<(), Failure>) -> (c_int, Handler) {
    let run = catch_unwind(AssertUnwindSafe(|| {
        let mut guard = me.client.lock().unwrap_or_else(|p| p.into_inner());
        let Some(c) = guard.as_mut() else {
            let when = if rank().finalized.load(Ordering::SeqCst) {
                "after MPI_Finalize"
            } else {
                "before MPI_Init"
            };
            die(&format!("{name} called {when}"), 1);
        };
        c.last_comm.set(abi::COMM_WORLD);
        match f(c) {
            Ok(()) => (abi::err::SUCCESS, None),
            Err((code, msg)) => {
                let comm = c.last_comm.get();
                match c.on_error(comm) {
                    crate::errhan::OnError::Return => (code, None),
                    crate::errhan::OnError::Call(h) => (code, Some((h, comm))),
                    crate::errhan::OnError::Abort => {
                        let text = format!("rank {}: {name}: {msg}", c.rank);
                        eprintln!("simpi: {text}");
                        c.abort(code, &text)
                    }
                }
            }
        }
    }));
    run.unwrap_or_else(|_| die(&format!("{name}: internal error (a bug in simpi)"), 1))
}

/// MPI_Init's work: connects once.
pub fn init(name: &str) -> c_int {
    if rank().in_entry.load(Ordering::Relaxed) {
        die(&format!("{name} called from inside a callback the program gave MPI"), 1);
    }
    let run = catch_unwind(|| {
        let mut guard = rank().client.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_some() || rank().finalized.load(Ordering::SeqCst) {
            die(&format!("{name} called twice"), 1);
        }
        match Client::connect() {
            Ok(c) => *guard = Some(c),
            Err((_, msg)) => die(&msg, 1),
        }
        abi::err::SUCCESS
    });
    run.unwrap_or_else(|_| die(&format!("{name}: internal error (a bug in simpi)"), 1))
}

/// MPI_Finalize's work: the last call, then the connection closes.
pub fn finalize() -> c_int {
    // MPI deletes MPI_COMM_SELF's attributes first (programs hook clean-up there);
    // their delete functions run, and may call MPI, before the last call.
    let code = entry("MPI_Finalize", |c| c.drop_attrs(abi::COMM_SELF as usize));
    let last = entry("MPI_Finalize", |c| {
        c.call(Call::Finalize);
        Ok(())
    });
    let code = if code == abi::err::SUCCESS { last } else { code };
    let mut guard = rank().client.lock().unwrap_or_else(|p| p.into_inner());
    *guard = None;
    rank().finalized.store(true, Ordering::SeqCst);
    code
}

/// The simulated time now, in seconds (as MPI_Wtime, and costing what a read of the
/// clock costs), if MPI is initialized and no MPI call is under way in this process
/// (the clock functions of the C library ask it; they fall back to the machine's
/// clock otherwise).
pub fn virtual_now() -> Option<f64> {
    if rank().in_entry.load(Ordering::Relaxed) {
        return None;
    }
    let mut guard = rank().client.try_lock().ok()?;
    guard.as_mut().map(|c| c.wtime())
}

/// Whether MPI_Init and MPI_Finalize were called.
pub fn state() -> (bool, bool) {
    let fin = rank().finalized.load(Ordering::SeqCst);
    // Inside an MPI call (a callback asks): initialized, and the lock is taken.
    if rank().in_entry.load(Ordering::Relaxed) {
        return (true, fin);
    }
    let init = fin || rank().client.lock().unwrap_or_else(|p| p.into_inner()).is_some();
    (init, fin)
}
