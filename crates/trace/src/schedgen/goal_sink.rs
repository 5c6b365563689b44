//! An [`OpSink`] that writes a rank's operations as GOAL text as they are made, so a
//! pattern of a million ranks is written in the memory of one rank at a time.
//!
//! GOAL has no communicators and no joins: a message in matching context `c > 0` gets
//! tag `c · 2^24 + tag` (as `goal::export` writes them), and a join is left out, what
//! waits for it waiting for what it waited for instead.

use crate::goal::{GoalWriter, Label};
use simpi_kernel::MixHashMap;
use simpi_mpi::sink::OpSink;
use simpi_mpi::{Error, Op, OpKind};
use std::io::{self, Write};

/// Writes one rank's operations into a [`GoalWriter`] whose rank block is open.
pub(crate) struct GoalSink<'w, W: Write> {
    w: &'w mut GoalWriter<W>,
    /// Picoseconds per GOAL time unit.
    unit_ps: u64,
    /// Operations written or left out so far (labels are positions).
    next: u32,
    /// The joins left out, with what they wait for.
    joins: MixHashMap<u32, Vec<u32>>,
    /// The first write that failed.
    pub(crate) failed: Option<io::Error>,
}

impl<'w, W: Write> GoalSink<'w, W> {
    pub(crate) fn new(w: &'w mut GoalWriter<W>, unit_ps: u64) -> Self {
        GoalSink {
            w,
            unit_ps,
            next: 0,
            joins: MixHashMap::default(),
            failed: None,
        }
    }

    fn io(&mut self, r: io::Result<Label>) -> Result<u32, Error> {
        match r {
            Ok(l) => Ok(l.0),
            Err(e) => {
                let msg = format!("writing the schedule: {e}");
                self.failed = Some(e);
                Err(Error::BadParameter(msg))
            }
        }
    }
}

impl<W: Write> OpSink for GoalSink<'_, W> {
    type Ref = u32;

    fn push(&mut self, op: Op, ctx: u32) -> Result<u32, Error> {
        self.next += 1;
        let tag = if ctx == 0 { op.tag } else { (ctx << 24) | op.tag };
        let r = match op.kind {
            OpKind::Send => self.w.send_on(op.size, op.peer, tag, op.cpu, op.nic),
            OpKind::Recv => self.w.recv_on(op.size, op.peer, tag, op.cpu, op.nic),
            OpKind::Calc => self.w.calc_on(op.size / self.unit_ps, op.cpu),
        };
        self.io(r)
    }

    fn push_join(&mut self) -> Result<u32, Error> {
        self.w.skip_label();
        self.next += 1;
        self.joins.insert(self.next - 1, Vec::new());
        Ok(self.next - 1)
    }

    fn requires(&mut self, a: u32, b: u32) {
        if self.joins.contains_key(&a) {
            // What a join waits for (never another join: those are written through).
            let through = self.joins.get(&b).cloned().unwrap_or_else(|| vec![b]);
            self.joins.get_mut(&a).expect("a join").extend(through);
            return;
        }
        let preds = match self.joins.get(&b) {
            Some(p) => p.clone(),
            None => vec![b],
        };
        for p in preds {
            if let Err(e) = self.w.requires(Label(a), Label(p)) {
                self.failed.get_or_insert(e);
            }
        }
    }

    /// GOAL has no any-of dependency: the operation waits for all of them.
    fn any_of(&mut self, _a: u32) {}

    fn test_target(&mut self, req: u32) -> u32 {
        req
    }

    /// GOAL has no tests: a test is the compute it costs.
    fn test_of(&mut self, _test: u32, _target: u32) {}

    fn created(&self) -> u64 {
        self.next as u64
    }
}
