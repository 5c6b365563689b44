//! What a run records of its operations when asked (reports and timelines): one
//! [`OpRecord`] per completed operation, written when it completes, so a store that
//! frees operations as they finish can still be recorded.

use crate::op::{Op, OpKind};
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
    /// The other rank of a message: a send's destination, the source of the send a
    /// receive matched ([`NO_PEER`] for a compute, or a receive that matched nothing).
    pub peer: u32,
    /// The message's tag (a receive's is its matched send's; 0 for a compute).
    pub tag: u32,
    /// For a receive, the position among its rank's operations of the send it matched
    /// (that rank is [`OpRecord::peer`]); [`NO_MATCH`] otherwise.
    pub matched_send: u64,
}

/// [`OpRecord::peer`] of an operation without a peer.
pub const NO_PEER: u32 = u32::MAX;
/// [`OpRecord::matched_send`] of an operation that matched no send.
pub const NO_MATCH: u64 = u64::MAX;

/// The send a receive matched: its rank, position and tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct MatchedSend {
    pub(crate) rank: u32,
    pub(crate) local: u64,
    pub(crate) tag: u32,
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
    /// The send each open receive matched, by operation id.
    matched: Vec<Option<MatchedSend>>,
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

    /// Receive `recv` matched `send`.
    pub(crate) fn matched(&mut self, recv: u32, send: MatchedSend) {
        let i = recv as usize;
        if i >= self.matched.len() {
            self.matched.resize((i + 1).max(self.matched.len() * 2), None);
        }
        self.matched[i] = Some(send);
    }

    /// `op` (operation `id`, at `local` among its rank's) completed: its record is
    /// written, with end `end` if its end was not set.
    pub(crate) fn complete(&mut self, id: u32, op: &Op, local: u64, end: Option<u64>) {
        let t = self.at(id);
        if let Some(e) = end {
            t.end = e;
        }
        let t = *t;
        // Operation ids are reused once freed: what this one matched is taken.
        let matched = self.matched.get_mut(id as usize).and_then(Option::take);
        let (peer, tag, matched_send) = match (op.kind, matched) {
            (OpKind::Send, _) => (op.peer, op.tag, NO_MATCH),
            (OpKind::Recv, Some(m)) => (m.rank, m.tag, m.local),
            (OpKind::Recv, None) => (NO_PEER, op.tag, NO_MATCH),
            (OpKind::Calc, _) => (NO_PEER, 0, NO_MATCH),
        };
        self.records.push(OpRecord {
            rank: op.rank,
            local,
            kind: op.kind,
            size: op.size,
            start: t.start,
            ready: t.ready,
            end: t.end,
            peer,
            tag,
            matched_send,
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
