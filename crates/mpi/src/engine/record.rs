//! What a run records of its operations when asked (reports and timelines): one
//! [`OpRecord`] per completed operation, written when it completes, so a store that
//! frees operations as they finish can still be recorded.

use crate::op::OpKind;
use std::sync::Arc;

/// When one operation ran.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpRecord {
    /// Its rank.
    pub rank: u32,
    /// Its position among the rank's operations, in creation order.
    pub local: u64,
    /// What it was.
    pub kind: OpKind,
    /// Bytes (send, receive) or picoseconds (compute).
    pub size: u64,
    /// When it started, ps.
    pub start: u64,
    /// When it stopped waiting for its peer (its start for a compute), ps.
    pub ready: u64,
    /// When it ended, ps.
    pub end: u64,
}

/// The start, ready and end times of one operation while it runs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OpTime {
    /// Start.
    pub start: u64,
    /// End of waiting for the peer.
    pub ready: u64,
    /// End ([`u64::MAX`] until known).
    pub end: u64,
}

/// Times of the operations under way, by operation id, and the records of those done.
#[derive(Default)]
pub(crate) struct Recorder {
    open: Vec<OpTime>,
    pub(crate) records: Vec<OpRecord>,
}

impl Recorder {
    fn at(&mut self, id: u32) -> &mut OpTime {
        let i = id as usize;
        if i >= self.open.len() {
            self.open.resize((i + 1).max(self.open.len() * 2), OpTime::default());
        }
        &mut self.open[i]
    }

    /// Sets all three times of `id`.
    pub(crate) fn set(&mut self, id: u32, start: u64, ready: u64, end: u64) {
        *self.at(id) = OpTime { start, ready, end };
    }

    /// Sets the ready and end times of `id`.
    pub(crate) fn set_end(&mut self, id: u32, ready: u64, end: u64) {
        let t = self.at(id);
        t.ready = ready;
        t.end = end;
    }

    /// `id` started at `t`; its end is not known yet.
    pub(crate) fn start(&mut self, id: u32, t: u64) {
        self.set(id, t, t, u64::MAX);
    }

    /// `id` stopped waiting for its peer at `t`, unless it has already ended (a
    /// detached send is done before it is matched: it keeps its own times).
    pub(crate) fn ready(&mut self, id: u32, t: u64) {
        let e = self.at(id);
        if e.end == u64::MAX {
            e.ready = t.max(e.start);
        }
    }

    /// `id` completed: its record is written, with end `end` if its end was not set.
    pub(crate) fn complete(&mut self, id: u32, rank: u32, local: u64, kind: OpKind, size: u64, end: Option<u64>) {
        let t = self.at(id);
        if let Some(e) = end {
            t.end = e;
        }
        let t = *t;
        self.records.push(OpRecord {
            rank,
            local,
            kind,
            size,
            start: t.start,
            ready: t.ready,
            end: t.end,
        });
    }
}

/// One MPI call of a rank's program and the operations it became: the rank's
/// operations `first..end` in creation order ([`OpRecord::local`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRecord {
    /// The rank.
    pub rank: u32,
    /// The call's name as the front end gave it (shared by every call of that name).
    pub name: Arc<str>,
    /// Its first operation, as a position among the rank's operations.
    pub first: u64,
    /// One past its last operation.
    pub end: u64,
}
