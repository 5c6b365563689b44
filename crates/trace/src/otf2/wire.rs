//! What the decoder process (`child.rs`) sends the reader (`sandbox.rs`) and what the
//! reader asks of it: definitions and events as the OTF2 library reported them, in a
//! plain little-endian encoding. Messages travel in frames (`u32` length, then records);
//! a record is a tag byte and fixed fields, strings and lists prefixed with their length.

// Without the OTF2 library the decoder's side is not built, nor what only it uses.
#![cfg_attr(otf2_missing, allow(dead_code))]

/// A request to select these locations (`u64` count, then each).
pub const REQ_SELECT: u8 = 1;
/// A request for events: `u32` location index, `u32` how many.
pub const REQ_READ: u8 = 2;

/// A definition of the global definitions, as the library reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Def {
    /// `ClockProperties`: ticks per second, offset and length of the trace in ticks.
    Clock {
        /// Ticks per second.
        resolution: u64,
        /// Timestamp of the trace's start.
        offset: u64,
        /// Ticks the trace lasts.
        length: u64,
    },
    /// `String`.
    String {
        /// Its reference.
        id: u32,
        /// The text (lossily UTF-8).
        text: String,
    },
    /// `Location`: a thread or process whose events are one stream.
    Location {
        /// Its reference.
        id: u64,
        /// Name (a string reference).
        name: u32,
        /// Number of events it recorded.
        events: u64,
    },
    /// `Region`: a code region, such as an MPI function.
    Region {
        /// Its reference.
        id: u32,
        /// Name (a string reference).
        name: u32,
        /// `OTF2_RegionRole`.
        role: u8,
        /// `OTF2_Paradigm`.
        paradigm: u8,
    },
    /// `Group`: locations (the MPI ranks) or ranks of a communicator.
    Group {
        /// Its reference.
        id: u32,
        /// `OTF2_GroupType`.
        kind: u8,
        /// `OTF2_Paradigm`.
        paradigm: u8,
        /// `OTF2_GROUP_FLAG_GLOBAL_MEMBERS`: events name members by their index in the
        /// locations group, not by their rank in the communicator.
        global: bool,
        /// Members: locations, or ranks (indices into the paradigm's locations group).
        members: Vec<u64>,
    },
    /// `Comm`: a communicator over a group.
    Comm {
        /// Its reference.
        id: u32,
        /// Name (a string reference).
        name: u32,
        /// Its group.
        group: u32,
    },
    /// `InterComm`: an intercommunicator (not modelled).
    InterComm {
        /// Its reference.
        id: u32,
    },
}

/// A collective's record: `MpiCollectiveEnd` or `NonBlockingCollectiveComplete`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coll {
    /// `OTF2_CollectiveOp`.
    pub op: u8,
    /// The communicator.
    pub comm: u32,
    /// The root's rank in the communicator (undefined for operations without one).
    pub root: u32,
    /// Bytes this rank sent, as the tracer counted them.
    pub sent: u64,
    /// Bytes this rank received.
    pub received: u64,
}

/// A point-to-point record: partner (a rank of the communicator), communicator, tag,
/// length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct P2p {
    /// The partner's rank in the communicator.
    pub peer: u32,
    /// The communicator.
    pub comm: u32,
    /// The tag.
    pub tag: u32,
    /// Bytes.
    pub len: u64,
}

/// What a request posted earlier turned out to be, known once the trace has been read
/// past its completion (an `MpiIrecvRequest` learns its message from its `MpiIrecv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome<T> {
    /// Not read that far yet.
    Pending,
    /// Completed with this.
    Done(T),
    /// Cancelled (`MpiRequestCancelled`).
    Cancelled,
    /// The trace ends without completing it.
    Never,
}

/// An event of a location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `Enter` of a region.
    Enter(u32),
    /// `Leave` of a region.
    Leave(u32),
    /// `MpiSend`: a blocking send.
    Send(P2p),
    /// `MpiIsend` with its request.
    Isend(P2p, u64),
    /// `MpiIsendComplete`.
    IsendComplete(u64),
    /// `MpiIrecvRequest`, and the message its completion names.
    IrecvRequest(u64, Outcome<P2p>),
    /// `MpiRecv`: a blocking receive, with the actual sender and size.
    Recv(P2p),
    /// `MpiIrecv`: completion of a receive request; `paired` if its request was seen.
    Irecv(P2p, u64, bool),
    /// `MpiRequestTest`: a test that did not complete the request.
    RequestTest(u64),
    /// `MpiRequestCancelled`.
    RequestCancelled(u64),
    /// `MpiCollectiveBegin`.
    CollectiveBegin,
    /// `MpiCollectiveEnd`.
    CollectiveEnd(Coll),
    /// `NonBlockingCollectiveRequest`, and the collective its completion names.
    CollectiveRequest(u64, Outcome<Coll>),
    /// `NonBlockingCollectiveComplete`; `paired` if its request was seen.
    CollectiveComplete(Coll, u64, bool),
    /// `MeasurementOnOff` (`true`: on).
    Measurement(bool),
    /// `BufferFlush`: the tracer wrote its buffer from this event's time to this one.
    BufferFlush(u64),
}

/// An event with its time (in ticks) and position among its location's events (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ev {
    /// Timestamp in ticks.
    pub time: u64,
    /// Position in the location's events, counted from 1.
    pub pos: u64,
    /// What happened.
    pub kind: Kind,
}

/// What failed in the decoder process, which names the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Opening the anchor file.
    Anchor,
    /// Reading the global definitions.
    GlobalDefs,
    /// Reading a location's local definitions.
    LocalDefs,
    /// Reading a location's events.
    Events,
}

/// A message of the decoder process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// A global definition.
    Def(Def),
    /// The global definitions are all sent; the library counted this many locations.
    DefsEnd(u64),
    /// The selected locations are open.
    Ready,
    /// An event of the location asked for.
    Event(Ev),
    /// The events asked for are all sent: this many were read (fewer than asked: the
    /// location has no more).
    BatchEnd(u64),
    /// The library reported an error.
    Failed {
        /// What was being read.
        stage: Stage,
        /// The location (for local definitions and events).
        location: u64,
        /// The last event read from it (0: none).
        position: u64,
        /// The library's messages.
        message: String,
    },
}

// Record tags.
const DEF_CLOCK: u8 = 1;
const DEF_STRING: u8 = 2;
const DEF_LOCATION: u8 = 3;
const DEF_REGION: u8 = 4;
const DEF_GROUP: u8 = 5;
const DEF_COMM: u8 = 6;
const DEF_INTERCOMM: u8 = 7;
const DEFS_END: u8 = 8;
const READY: u8 = 9;
const BATCH_END: u8 = 10;
const FAILED: u8 = 11;
const EV_ENTER: u8 = 20;
const EV_LEAVE: u8 = 21;
const EV_SEND: u8 = 22;
const EV_ISEND: u8 = 23;
const EV_ISEND_COMPLETE: u8 = 24;
const EV_IRECV_REQUEST: u8 = 25;
const EV_RECV: u8 = 26;
const EV_IRECV: u8 = 27;
const EV_TEST: u8 = 28;
const EV_CANCELLED: u8 = 29;
const EV_COLL_BEGIN: u8 = 30;
const EV_COLL_END: u8 = 31;
const EV_NBC_REQUEST: u8 = 32;
const EV_NBC_COMPLETE: u8 = 33;
const EV_MEASUREMENT: u8 = 34;
const EV_FLUSH: u8 = 35;

/// Longest string sent (longer names are cut): a name past this is not an MPI function.
pub const MAX_STRING: usize = 1 << 16;

/// Records being encoded.
#[derive(Default)]
pub struct Out {
    /// The encoded records.
    pub buf: Vec<u8>,
}

impl Out {
    fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        let b = &b[..b.len().min(MAX_STRING)];
        self.u32(b.len() as u32);
        self.buf.extend_from_slice(b);
    }
    fn p2p(&mut self, p: &P2p) {
        self.u32(p.peer);
        self.u32(p.comm);
        self.u32(p.tag);
        self.u64(p.len);
    }
    fn coll(&mut self, c: &Coll) {
        self.u8(c.op);
        self.u32(c.comm);
        self.u32(c.root);
        self.u64(c.sent);
        self.u64(c.received);
    }

    /// Appends a string definition from raw bytes (the library's text need not be UTF-8).
    pub fn string(&mut self, id: u32, text: &[u8]) {
        self.u8(DEF_STRING);
        self.u32(id);
        self.bytes(text);
    }

    /// Appends a message.
    pub fn msg(&mut self, m: &Msg) {
        match m {
            Msg::Def(d) => match d {
                Def::Clock {
                    resolution,
                    offset,
                    length,
                } => {
                    self.u8(DEF_CLOCK);
                    self.u64(*resolution);
                    self.u64(*offset);
                    self.u64(*length);
                }
                Def::String { id, text } => self.string(*id, text.as_bytes()),
                Def::Location { id, name, events } => {
                    self.u8(DEF_LOCATION);
                    self.u64(*id);
                    self.u32(*name);
                    self.u64(*events);
                }
                Def::Region {
                    id,
                    name,
                    role,
                    paradigm,
                } => {
                    self.u8(DEF_REGION);
                    self.u32(*id);
                    self.u32(*name);
                    self.u8(*role);
                    self.u8(*paradigm);
                }
                Def::Group {
                    id,
                    kind,
                    paradigm,
                    global,
                    members,
                } => {
                    self.u8(DEF_GROUP);
                    self.u32(*id);
                    self.u8(*kind);
                    self.u8(*paradigm);
                    self.u8(u8::from(*global));
                    self.u64(members.len() as u64);
                    for &m in members {
                        self.u64(m);
                    }
                }
                Def::Comm { id, name, group } => {
                    self.u8(DEF_COMM);
                    self.u32(*id);
                    self.u32(*name);
                    self.u32(*group);
                }
                Def::InterComm { id } => {
                    self.u8(DEF_INTERCOMM);
                    self.u32(*id);
                }
            },
            Msg::DefsEnd(n) => {
                self.u8(DEFS_END);
                self.u64(*n);
            }
            Msg::Ready => self.u8(READY),
            Msg::BatchEnd(n) => {
                self.u8(BATCH_END);
                self.u64(*n);
            }
            Msg::Failed {
                stage,
                location,
                position,
                message,
            } => {
                self.u8(FAILED);
                self.u8(match stage {
                    Stage::Anchor => 0,
                    Stage::GlobalDefs => 1,
                    Stage::LocalDefs => 2,
                    Stage::Events => 3,
                });
                self.u64(*location);
                self.u64(*position);
                self.bytes(message.as_bytes());
            }
            Msg::Event(e) => self.event(e),
        }
    }

    fn event(&mut self, e: &Ev) {
        let tag = match e.kind {
            Kind::Enter(_) => EV_ENTER,
            Kind::Leave(_) => EV_LEAVE,
            Kind::Send(_) => EV_SEND,
            Kind::Isend(..) => EV_ISEND,
            Kind::IsendComplete(_) => EV_ISEND_COMPLETE,
            Kind::IrecvRequest(..) => EV_IRECV_REQUEST,
            Kind::Recv(_) => EV_RECV,
            Kind::Irecv(..) => EV_IRECV,
            Kind::RequestTest(_) => EV_TEST,
            Kind::RequestCancelled(_) => EV_CANCELLED,
            Kind::CollectiveBegin => EV_COLL_BEGIN,
            Kind::CollectiveEnd(_) => EV_COLL_END,
            Kind::CollectiveRequest(..) => EV_NBC_REQUEST,
            Kind::CollectiveComplete(..) => EV_NBC_COMPLETE,
            Kind::Measurement(_) => EV_MEASUREMENT,
            Kind::BufferFlush(_) => EV_FLUSH,
        };
        self.u8(tag);
        self.u64(e.time);
        self.u64(e.pos);
        match &e.kind {
            Kind::Enter(r) | Kind::Leave(r) => self.u32(*r),
            Kind::Send(p) | Kind::Recv(p) => self.p2p(p),
            Kind::Isend(p, q) | Kind::Irecv(p, q, _) => {
                self.p2p(p);
                self.u64(*q);
            }
            Kind::IsendComplete(q)
            | Kind::IrecvRequest(q, _)
            | Kind::RequestTest(q)
            | Kind::RequestCancelled(q)
            | Kind::CollectiveRequest(q, _) => self.u64(*q),
            Kind::CollectiveBegin => {}
            Kind::CollectiveEnd(c) => self.coll(c),
            Kind::CollectiveComplete(c, q, _) => {
                self.coll(c);
                self.u64(*q);
            }
            Kind::Measurement(on) => self.u8(u8::from(*on)),
            Kind::BufferFlush(stop) => self.u64(*stop),
        }
    }
}

/// Reads records from a frame's payload.
pub struct In<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> In<'a> {
    /// The records of `data`.
    pub fn new(data: &'a [u8]) -> In<'a> {
        In { data, at: 0 }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| "the decoder process sent a truncated record".to_string())?;
        let s = &self.data[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn text(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        Ok(String::from_utf8_lossy(self.take(n)?).into_owned())
    }
    fn p2p(&mut self) -> Result<P2p, String> {
        Ok(P2p {
            peer: self.u32()?,
            comm: self.u32()?,
            tag: self.u32()?,
            len: self.u64()?,
        })
    }
    fn coll(&mut self) -> Result<Coll, String> {
        Ok(Coll {
            op: self.u8()?,
            comm: self.u32()?,
            root: self.u32()?,
            sent: self.u64()?,
            received: self.u64()?,
        })
    }

    /// The next message, or `None` at the end of the payload.
    pub fn next_msg(&mut self) -> Result<Option<Msg>, String> {
        if self.at == self.data.len() {
            return Ok(None);
        }
        let tag = self.u8()?;
        let m = match tag {
            DEF_CLOCK => Msg::Def(Def::Clock {
                resolution: self.u64()?,
                offset: self.u64()?,
                length: self.u64()?,
            }),
            DEF_STRING => Msg::Def(Def::String {
                id: self.u32()?,
                text: self.text()?,
            }),
            DEF_LOCATION => Msg::Def(Def::Location {
                id: self.u64()?,
                name: self.u32()?,
                events: self.u64()?,
            }),
            DEF_REGION => Msg::Def(Def::Region {
                id: self.u32()?,
                name: self.u32()?,
                role: self.u8()?,
                paradigm: self.u8()?,
            }),
            DEF_GROUP => {
                let id = self.u32()?;
                let kind = self.u8()?;
                let paradigm = self.u8()?;
                let global = self.u8()? != 0;
                let n = self.u64()?;
                // Each member takes 8 bytes of this frame: a count beyond that is a
                // broken record, not a reason to allocate.
                if n > ((self.data.len() - self.at) / 8) as u64 {
                    return Err("the decoder process sent a truncated group".into());
                }
                let members = (0..n).map(|_| self.u64()).collect::<Result<_, _>>()?;
                Msg::Def(Def::Group {
                    id,
                    kind,
                    paradigm,
                    global,
                    members,
                })
            }
            DEF_COMM => Msg::Def(Def::Comm {
                id: self.u32()?,
                name: self.u32()?,
                group: self.u32()?,
            }),
            DEF_INTERCOMM => Msg::Def(Def::InterComm { id: self.u32()? }),
            DEFS_END => Msg::DefsEnd(self.u64()?),
            READY => Msg::Ready,
            BATCH_END => Msg::BatchEnd(self.u64()?),
            FAILED => {
                let stage = match self.u8()? {
                    0 => Stage::Anchor,
                    1 => Stage::GlobalDefs,
                    2 => Stage::LocalDefs,
                    _ => Stage::Events,
                };
                Msg::Failed {
                    stage,
                    location: self.u64()?,
                    position: self.u64()?,
                    message: self.text()?,
                }
            }
            t => {
                let time = self.u64()?;
                let pos = self.u64()?;
                let kind = match t {
                    EV_ENTER => Kind::Enter(self.u32()?),
                    EV_LEAVE => Kind::Leave(self.u32()?),
                    EV_SEND => Kind::Send(self.p2p()?),
                    EV_ISEND => Kind::Isend(self.p2p()?, self.u64()?),
                    EV_ISEND_COMPLETE => Kind::IsendComplete(self.u64()?),
                    EV_IRECV_REQUEST => Kind::IrecvRequest(self.u64()?, Outcome::Pending),
                    EV_RECV => Kind::Recv(self.p2p()?),
                    EV_IRECV => Kind::Irecv(self.p2p()?, self.u64()?, false),
                    EV_TEST => Kind::RequestTest(self.u64()?),
                    EV_CANCELLED => Kind::RequestCancelled(self.u64()?),
                    EV_COLL_BEGIN => Kind::CollectiveBegin,
                    EV_COLL_END => Kind::CollectiveEnd(self.coll()?),
                    EV_NBC_REQUEST => Kind::CollectiveRequest(self.u64()?, Outcome::Pending),
                    EV_NBC_COMPLETE => Kind::CollectiveComplete(self.coll()?, self.u64()?, false),
                    EV_MEASUREMENT => Kind::Measurement(self.u8()? != 0),
                    EV_FLUSH => Kind::BufferFlush(self.u64()?),
                    other => return Err(format!("the decoder process sent an unknown record {other}")),
                };
                Msg::Event(Ev { time, pos, kind })
            }
        };
        Ok(Some(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_round_trips() {
        let p = P2p {
            peer: 3,
            comm: 1,
            tag: 77,
            len: 1 << 40,
        };
        let c = Coll {
            op: 11,
            comm: 0,
            root: u32::MAX,
            sent: 64,
            received: 64,
        };
        let kinds = [
            Kind::Enter(5),
            Kind::Leave(5),
            Kind::Send(p),
            Kind::Isend(p, 9),
            Kind::IsendComplete(9),
            Kind::IrecvRequest(8, Outcome::Pending),
            Kind::Recv(p),
            Kind::Irecv(p, 8, false),
            Kind::RequestTest(8),
            Kind::RequestCancelled(8),
            Kind::CollectiveBegin,
            Kind::CollectiveEnd(c),
            Kind::CollectiveRequest(4, Outcome::Pending),
            Kind::CollectiveComplete(c, 4, false),
            Kind::Measurement(true),
            Kind::BufferFlush(77),
        ];
        let mut msgs: Vec<Msg> = kinds
            .iter()
            .enumerate()
            .map(|(i, &kind)| {
                Msg::Event(Ev {
                    time: 1000 + i as u64,
                    pos: i as u64 + 1,
                    kind,
                })
            })
            .collect();
        msgs.extend([
            Msg::Def(Def::Clock {
                resolution: 1_000_000_000,
                offset: 5,
                length: 6,
            }),
            Msg::Def(Def::String {
                id: 2,
                text: "MPI_Send".into(),
            }),
            Msg::Def(Def::Location {
                id: 7,
                name: 2,
                events: 10,
            }),
            Msg::Def(Def::Region {
                id: 1,
                name: 2,
                role: 3,
                paradigm: 4,
            }),
            Msg::Def(Def::Group {
                id: 1,
                kind: 5,
                paradigm: 4,
                global: true,
                members: vec![0, 2, 1],
            }),
            Msg::Def(Def::Comm {
                id: 0,
                name: 2,
                group: 1,
            }),
            Msg::Def(Def::InterComm { id: 3 }),
            Msg::DefsEnd(2),
            Msg::Ready,
            Msg::BatchEnd(15),
            Msg::Failed {
                stage: Stage::LocalDefs,
                location: 7,
                position: 0,
                message: "bad".into(),
            },
        ]);
        let mut out = Out::default();
        for m in &msgs {
            out.msg(m);
        }
        let mut input = In::new(&out.buf);
        let mut back = Vec::new();
        while let Some(m) = input.next_msg().unwrap() {
            back.push(m);
        }
        assert_eq!(back, msgs);
    }

    #[test]
    fn truncated_records_are_errors() {
        let mut out = Out::default();
        out.msg(&Msg::Def(Def::Group {
            id: 1,
            kind: 5,
            paradigm: 4,
            global: false,
            members: vec![0, 1],
        }));
        for cut in 0..out.buf.len() {
            let mut input = In::new(&out.buf[..cut]);
            assert!(cut == 0 || input.next_msg().is_err(), "cut at {cut}");
        }
    }
}
