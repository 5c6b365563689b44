//! Requests made of several (MPI_Isendrecv's send and receive, the messages of a
//! non-blocking neighborhood collective): the program holds one request, complete
//! once every part is. The parts are ordinary requests of this rank, kept out of the
//! program's sight; a wait or test of the compound waits for or tests all of them.

use crate::client::{Client, Failure, Pending, Status};
use crate::p2p::delivered;
use simpi_wire::{abi, Call, Completing, Completion, PENDING};
use std::sync::Arc;

/// The parts of a compound request.
#[derive(Debug)]
pub struct Compound {
    /// The parts' requests, in the order they were made.
    parts: Vec<u64>,
    /// The part whose status the compound's completion reports (`None`: an empty
    /// status, as for a collective).
    report: Option<usize>,
}

/// Makes a compound request of `parts` (requests made by this rank and not given to
/// the program); its status is that of `parts[report]`.
pub fn start(c: &mut Client, parts: Vec<u64>, report: Option<usize>) -> u64 {
    c.new_request(Pending::Compound(Arc::new(Compound { parts, report })))
}

impl Compound {
    /// The parts the simulator still has to complete (not those complete at once, on
    /// MPI_PROC_NULL).
    pub fn in_flight(&self, c: &Client) -> Vec<u64> {
        self.parts
            .iter()
            .copied()
            .filter(|q| !matches!(c.requests.get(q), Some(Pending::Done(_)) | None))
            .collect()
    }

    /// Hands each part its completion (taken in order from `done` for the parts in
    /// flight), frees the parts, and gives the compound's status.
    ///
    /// # Safety
    /// The parts' buffers are the program's, as when they were made.
    pub unsafe fn finish(&self, c: &mut Client, done: &mut dyn Iterator<Item = Completion>) -> Result<Status, Failure> {
        let mut status = Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0);
        for (i, q) in self.parts.iter().enumerate() {
            let st = match c.requests.remove(q) {
                Some(Pending::Done(st)) => st,
                Some(kind) => {
                    let m = done
                        .next()
                        .ok_or((abi::err::INTERN, "a completion is missing".to_string()))?;
                    delivered(&kind, m)?
                }
                None => Status::new(abi::ANY_SOURCE, abi::ANY_TAG, 0),
            };
            if self.report == Some(i) {
                status = st;
            }
        }
        Ok(status)
    }

    /// MPI_Test of the compound: its status if every part is complete (all are then
    /// finished), `None` if not (none is).
    ///
    /// # Safety
    /// As for [`Compound::finish`].
    pub unsafe fn test(&self, c: &mut Client) -> Result<Option<Status>, Failure> {
        let ids = self.in_flight(c);
        if ids.is_empty() {
            return self.finish(c, &mut std::iter::empty()).map(Some);
        }
        let answers = c.call(Call::Completing {
            requests: ids,
            how: Completing::TestAll,
        });
        if answers.iter().any(|m| m.source == PENDING) {
            return Ok(None);
        }
        self.finish(c, &mut answers.into_iter()).map(Some)
    }

    /// MPI_Request_free of the compound: the parts go on, nobody waits for them.
    pub fn free(&self, c: &mut Client) {
        for q in &self.parts {
            c.requests.remove(q);
        }
    }
}
