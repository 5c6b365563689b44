//! The operations every way into simpi reduces to: send, receive and local compute.

/// A rank (process) number.
pub type Rank = u32;

/// `peer` of a receive that accepts a message from any source (GOAL's `from -1`).
pub const ANY_SOURCE: u32 = u32::MAX;

/// `tag` that matches any tag (GOAL's `tag -1`).
pub const ANY_TAG: u32 = u32::MAX;

/// Index of an operation in a [`crate::Schedule`], unique across all ranks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpId(pub u32);

/// What an operation does. The discriminants order freshly enabled operations the way
/// LogGOPSim does (sends, then receives, then computes) and must not change.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum OpKind {
    /// Send `size` bytes to `peer` with `tag`.
    Send = 1,
    /// Receive `size` bytes from `peer` (or [`ANY_SOURCE`]) with `tag` (or [`ANY_TAG`]).
    Recv = 2,
    /// Compute for `size` picoseconds.
    Calc = 3,
}

/// One operation of a rank's schedule: 32 bytes, with its dependency counters and (for
/// the common single successor) its successor inline, so an event touches one line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Op {
    /// Bytes for send and receive; picoseconds for compute.
    pub size: u64,
    /// Destination of a send, source of a receive; unused for compute.
    pub peer: u32,
    /// Message tag; unused for compute.
    pub tag: u32,
    /// The single `requires` successor (if `flags & INLINE_SUCC`), or where this op's
    /// successor lists start in the schedule's edge array, or [`NO_SUCC`].
    pub(crate) succ: u32,
    /// Dependencies (both kinds); during a run, those not yet satisfied.
    pub(crate) deps: u32,
    /// The rank that owns the operation.
    pub(crate) rank: u32,
    /// The kind of operation.
    pub kind: OpKind,
    /// The rank-local CPU that executes the operation.
    pub cpu: u8,
    /// The rank-local NIC that carries the message.
    pub nic: u8,
    pub(crate) flags: u8,
}

/// `Op::flags`: the op's successors are stored in the op itself: its `requires`
/// successors are the consecutive ops `succ .. succ + n`, declared in that order, where
/// `n - 1` is in the flags' top bits (see [`RUN_SHIFT`]); it has no `irequires` ones.
pub(crate) const INLINE_SUCC: u8 = 1;
/// `Op::flags >> RUN_SHIFT`: with [`INLINE_SUCC`], the number of successors after
/// `succ` (so at most [`MAX_RUN`] in all). Runs are the common case (an op freeing the
/// next few) and need no edge list: no memory, and no cache miss to find them.
pub(crate) const RUN_SHIFT: u32 = 4;
/// The longest run of successors stored in an op.
pub(crate) const MAX_RUN: u32 = 1 << (8 - RUN_SHIFT);
/// `Op::flags`: the op starts when any one of its predecessors completes.
pub(crate) const ANY_DEPS: u8 = 2;
/// `Op::flags`: a compute that is an MPI_Test of the request op whose rank-local index
/// is in `peer` (see [`crate::Schedule::tested_request`]).
pub(crate) const TEST: u8 = 4;
/// `Op::flags`: a join, a zero-length compute that takes no CPU: it is done the moment
/// its dependencies are, and its successors are freed in its place
/// ([`crate::ScheduleBuilder::push_join`]).
pub(crate) const JOIN: u8 = 8;

/// `Op::cpu` of a transfer the NIC serves alone (the target's side of a one-sided
/// put or get, as RDMA does it): it takes no CPU and pays no software overhead under
/// SMPI's rules (LogGOPS's charge the rank's first CPU).
pub const NO_CPU: u8 = u8::MAX;

impl Op {
    /// A send of `bytes` to `to`.
    pub fn send(bytes: u64, to: Rank, tag: u32, cpu: u8, nic: u8) -> Op {
        Op::new(OpKind::Send, bytes, to, tag, cpu, nic)
    }

    /// A receive of `bytes` from `from` (or [`ANY_SOURCE`]).
    pub fn recv(bytes: u64, from: Rank, tag: u32, cpu: u8, nic: u8) -> Op {
        Op::new(OpKind::Recv, bytes, from, tag, cpu, nic)
    }

    /// A computation of `ps` picoseconds on `cpu`.
    pub fn calc(ps: u64, cpu: u8) -> Op {
        Op::new(OpKind::Calc, ps, 0, 0, cpu, 0)
    }

    fn new(kind: OpKind, size: u64, peer: u32, tag: u32, cpu: u8, nic: u8) -> Op {
        Op {
            size,
            peer,
            tag,
            succ: NO_SUCC,
            deps: 0,
            rank: 0,
            kind,
            cpu,
            nic,
            flags: 0,
        }
    }
}

/// Marks an operation without successors.
pub(crate) const NO_SUCC: u32 = u32::MAX;

/// Renders a peer or tag, writing wildcards as `any`.
pub fn show_wild(v: u32) -> String {
    if v == u32::MAX {
        "any".to_string()
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_is_compact() {
        assert_eq!(std::mem::size_of::<Op>(), 32);
    }

    #[test]
    fn kinds_order_like_loggopsim() {
        assert!(OpKind::Send < OpKind::Recv && OpKind::Recv < OpKind::Calc);
    }
}
