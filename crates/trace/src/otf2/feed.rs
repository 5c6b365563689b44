//! Each rank's events, read from the decoder in chunks as the rank reaches them, with
//! requests tied to their completions: an `MpiIrecvRequest` says nothing of the message
//! (Score-P writes the sender, tag and size when the receive completes, in `MpiIrecv`),
//! and a non-blocking collective's request says nothing of the collective. Events are
//! read ahead until the completion of such a request is known; the request's event
//! then carries it ([`Outcome`]), and the completion is marked as paired.

use super::sandbox::Decoder;
use super::wire::{Ev, Kind, Outcome};
use super::Otf2Error;
use std::collections::{HashMap, VecDeque};

/// Events asked of the decoder at a time.
const CHUNK: u32 = 4096;

/// One rank's events read so far and not yet taken.
#[derive(Default)]
struct Stream {
    queue: VecDeque<Ev>,
    /// Events taken before `queue[0]`.
    base: u64,
    /// The location has no more events.
    eof: bool,
    /// Receive requests whose completion is not read yet: request id → index.
    irecvs: HashMap<u64, u64>,
    /// Non-blocking collective requests likewise.
    colls: HashMap<u64, u64>,
}

impl Stream {
    fn at(&mut self, index: u64) -> &mut Ev {
        let i = (index - self.base) as usize;
        &mut self.queue[i]
    }

    /// Appends `e`, pairing requests with their completions.
    fn admit(&mut self, mut e: Ev) {
        let index = self.base + self.queue.len() as u64;
        match &mut e.kind {
            Kind::IrecvRequest(q, _) => {
                // A request id reused before its completion: the first one never completes.
                if let Some(old) = self.irecvs.insert(*q, index) {
                    if let Kind::IrecvRequest(_, o) = &mut self.at(old).kind {
                        *o = Outcome::Never;
                    }
                }
            }
            Kind::CollectiveRequest(q, _) => {
                if let Some(old) = self.colls.insert(*q, index) {
                    if let Kind::CollectiveRequest(_, o) = &mut self.at(old).kind {
                        *o = Outcome::Never;
                    }
                }
            }
            Kind::Irecv(p, q, paired) => {
                if let Some(at) = self.irecvs.remove(q) {
                    *paired = true;
                    let p = *p;
                    if let Kind::IrecvRequest(_, o) = &mut self.at(at).kind {
                        *o = Outcome::Done(p);
                    }
                }
            }
            Kind::CollectiveComplete(c, q, paired) => {
                if let Some(at) = self.colls.remove(q) {
                    *paired = true;
                    let c = *c;
                    if let Kind::CollectiveRequest(_, o) = &mut self.at(at).kind {
                        *o = Outcome::Done(c);
                    }
                }
            }
            Kind::RequestCancelled(q) => {
                let q = *q;
                if let Some(at) = self.irecvs.remove(&q) {
                    if let Kind::IrecvRequest(_, o) = &mut self.at(at).kind {
                        *o = Outcome::Cancelled;
                    }
                }
                if let Some(at) = self.colls.remove(&q) {
                    if let Kind::CollectiveRequest(_, o) = &mut self.at(at).kind {
                        *o = Outcome::Cancelled;
                    }
                }
            }
            _ => {}
        }
        self.queue.push_back(e);
    }

    /// At the end of the events: requests still open never complete.
    fn close(&mut self) {
        self.eof = true;
        for (_, at) in std::mem::take(&mut self.irecvs) {
            if let Kind::IrecvRequest(_, o) = &mut self.at(at).kind {
                *o = Outcome::Never;
            }
        }
        for (_, at) in std::mem::take(&mut self.colls) {
            if let Kind::CollectiveRequest(_, o) = &mut self.at(at).kind {
                *o = Outcome::Never;
            }
        }
    }

    /// The first event waits for more events: a request whose completion is not read.
    fn front_pending(&self) -> bool {
        matches!(
            self.queue.front().map(|e| e.kind),
            Some(Kind::IrecvRequest(_, Outcome::Pending) | Kind::CollectiveRequest(_, Outcome::Pending))
        )
    }
}

/// Every rank's events, from one decoder.
pub struct Feed {
    decoder: Decoder,
    streams: Vec<Stream>,
    scratch: Vec<Ev>,
}

impl Feed {
    /// The events of `ranks` ranks from `decoder` (whose locations are selected).
    pub fn new(decoder: Decoder, ranks: usize) -> Feed {
        Feed {
            decoder,
            streams: (0..ranks).map(|_| Stream::default()).collect(),
            scratch: Vec::new(),
        }
    }

    /// The decoder (for the archive's file names).
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// Reads the next chunk of rank `r`'s events.
    fn fill(&mut self, r: usize) -> Result<(), Otf2Error> {
        self.scratch.clear();
        let got = self.decoder.read(r, CHUNK, &mut self.scratch)?;
        let s = &mut self.streams[r];
        for e in self.scratch.drain(..) {
            s.admit(e);
        }
        if got < CHUNK as u64 {
            s.close();
        }
        Ok(())
    }

    /// Rank `r`'s next event, with its request's completion known; `None` at the end.
    pub fn next(&mut self, r: usize) -> Result<Option<Ev>, Otf2Error> {
        loop {
            let s = &self.streams[r];
            let ready = !s.queue.is_empty() && !s.front_pending();
            if ready || s.eof {
                break;
            }
            self.fill(r)?;
        }
        let s = &mut self.streams[r];
        let e = s.queue.pop_front();
        if e.is_some() {
            s.base += 1;
        }
        Ok(e)
    }

    /// Drops what rank `r` has read ahead (it is done).
    pub fn close(&mut self, r: usize) {
        self.streams[r] = Stream {
            eof: true,
            ..Stream::default()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::otf2::wire::P2p;

    fn ev(pos: u64, kind: Kind) -> Ev {
        Ev { time: pos, pos, kind }
    }

    #[test]
    fn requests_learn_their_completion() {
        let p = P2p {
            peer: 1,
            comm: 0,
            tag: 3,
            len: 8,
        };
        let mut s = Stream::default();
        s.admit(ev(1, Kind::IrecvRequest(7, Outcome::Pending)));
        s.admit(ev(2, Kind::IrecvRequest(8, Outcome::Pending)));
        assert!(s.front_pending());
        s.admit(ev(3, Kind::Irecv(p, 7, false)));
        s.admit(ev(4, Kind::RequestCancelled(8)));
        s.admit(ev(5, Kind::IrecvRequest(7, Outcome::Pending)));
        s.close();
        let kinds: Vec<Kind> = s.queue.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            vec![
                Kind::IrecvRequest(7, Outcome::Done(p)),
                Kind::IrecvRequest(8, Outcome::Cancelled),
                Kind::Irecv(p, 7, true),
                Kind::RequestCancelled(8),
                Kind::IrecvRequest(7, Outcome::Never),
            ]
        );
    }
}
