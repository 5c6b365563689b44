//! Where a rank's MPI calls put their operations: the [`OpSink`] seam. A
//! [`ScheduleBuilder`] takes a whole program before anything runs (a schedule to
//! export or to keep); the live store takes a rank's next operations at the moment the
//! rank reaches them. The MPI semantics in [`crate::calls`] are written once, over this
//! trait, so both give the same operations with the same dependencies.

use crate::coll::emit::{Chooser, Placement, Template};
use crate::coll::{Algorithm, CollSpec};
use crate::error::Error;
use crate::op::Op;
use crate::schedule::ScheduleBuilder;
use std::sync::Arc;

/// A destination for one rank's operations and their dependencies.
pub trait OpSink {
    /// How the sink names an operation it holds.
    type Ref: Copy + PartialEq + std::fmt::Debug;

    /// Adds `op` in matching context `ctx`; its dependencies follow.
    fn push(&mut self, op: Op, ctx: u32) -> Result<Self::Ref, Error>;

    /// Adds `ops`, in order, in context `ctx`, and appends their names to `refs`.
    fn push_all(&mut self, ops: &[Op], ctx: u32, refs: &mut Vec<Self::Ref>) -> Result<(), Error> {
        for &op in ops {
            refs.push(self.push(op, ctx)?);
        }
        Ok(())
    }

    /// Adds a join: a zero-length compute that takes no CPU and passes the moment its
    /// dependencies are done.
    fn push_join(&mut self) -> Result<Self::Ref, Error>;

    /// Adds `op` as an operation of rank `rank`, not of this sink's rank, in context
    /// `ctx`: the target's part of a one-sided transfer, which the target's program
    /// does not call. Its dependencies follow (none: it starts at once). Only a store
    /// that takes calls as the ranks make them (on-line simulation) holds such
    /// operations.
    fn push_for(&mut self, rank: u32, _op: Op, _ctx: u32) -> Result<Self::Ref, Error> {
        Err(Error::BadParameter(format!(
            "a one-sided transfer to rank {rank}: only on-line simulation has them"
        )))
    }

    /// `a` starts only after `b` completes. `a` must be the operation just added (or
    /// one of those just added) and its dependencies given before the next call.
    fn requires(&mut self, a: Self::Ref, b: Self::Ref);

    /// Whether [`OpSink::synchronous`] is simulated (a live run); a trace reader takes a
    /// synchronous send as a standard one, and says so, where it is not.
    fn takes_synchronous(&self) -> bool {
        false
    }

    /// Makes send `a` (just added) synchronous (MPI_Ssend): see
    /// [`crate::engine::OpStore::is_synchronous`]. A whole schedule has no such mode (GOAL
    /// has none to write), so only the live store takes it.
    fn synchronous(&mut self, a: Self::Ref) -> Result<(), Error> {
        let _ = a;
        Err(Error::BadParameter(
            "a synchronous send (MPI_Ssend): only a live run simulates them, not a whole schedule".into(),
        ))
    }

    /// Makes compute `c` (just added, of no length) an MPI_Cancel of receive `recv`:
    /// see [`crate::engine::OpStore::is_cancel`]. Only the live store takes it.
    fn cancels(&mut self, c: Self::Ref, recv: Self::Ref) -> Result<(), Error> {
        let _ = (c, recv);
        Err(Error::BadParameter(
            "MPI_Cancel: only a live run simulates it, not a whole schedule".into(),
        ))
    }

    /// `a` starts once *any one* of its dependencies has completed (MPI_Waitany).
    /// Call after adding them.
    fn any_of(&mut self, a: Self::Ref);

    /// A handle for the tests of request `req` (an earlier operation): every test of
    /// one request shares what they found (SMPI leaves a null request once one finds
    /// it complete).
    fn test_target(&mut self, req: Self::Ref) -> u32;

    /// Makes compute `test` (just added) a test of the request behind `target`.
    fn test_of(&mut self, test: Self::Ref, target: u32);

    /// No test will name `target` again (its request was waited for).
    fn forget_target(&mut self, _target: u32) {}

    /// Operations this rank has so far (the position the next one will have).
    fn created(&self) -> u64;

    /// The program's calls that follow come from `line` of its input (kept with their
    /// operations, for reports).
    fn at_line(&mut self, _line: u32) {}

    /// How many of its last collective calls' templates a rank should remember itself
    /// (a sink that shares templates between ranks may want fewer: at hundreds of
    /// thousands of ranks, each rank's memory of its calls outweighs the rest).
    fn remembered_calls(&self) -> usize {
        4
    }

    /// The template of rank `spec.me`'s part of collective `spec` under `alg`
    /// (algorithms made of others take theirs from `choose`). A sink may share one
    /// template between ranks whose parts are the same.
    fn template(
        &mut self,
        alg: &'static Algorithm,
        spec: &CollSpec,
        choose: &Chooser<'_>,
    ) -> Result<Arc<Template>, Error> {
        Template::record_choosing(alg, spec, choose)
            .map(Arc::new)
            .map_err(Error::BadParameter)
    }

    /// Adds a collective's operations (see [`Template::instantiate`]); returns the
    /// operation after which the rank's program goes on. A sink may create them as
    /// their dependencies complete, in the order the whole template would have freed
    /// them.
    fn instantiate(
        &mut self,
        t: &Arc<Template>,
        at: Placement<'_>,
        entry: Option<Self::Ref>,
    ) -> Result<Option<Self::Ref>, Error>
    where
        Self: Sized,
    {
        t.instantiate(self, at, entry)
    }
}

impl OpSink for ScheduleBuilder {
    type Ref = u32;

    #[inline]
    fn push(&mut self, op: Op, ctx: u32) -> Result<u32, Error> {
        let l = ScheduleBuilder::push(self, op)?;
        self.set_context(l, ctx);
        Ok(l)
    }

    fn push_all(&mut self, ops: &[Op], ctx: u32, refs: &mut Vec<u32>) -> Result<(), Error> {
        let base = ScheduleBuilder::push_all(self, ops, ctx)?;
        refs.extend(base..base + ops.len() as u32);
        Ok(())
    }

    fn push_join(&mut self) -> Result<u32, Error> {
        Ok(ScheduleBuilder::push_join(self)?)
    }

    #[inline]
    fn requires(&mut self, a: u32, b: u32) {
        ScheduleBuilder::requires(self, a, b);
    }

    fn any_of(&mut self, a: u32) {
        ScheduleBuilder::any_of(self, a);
    }

    /// A request's tests are told apart by its operation.
    fn test_target(&mut self, req: u32) -> u32 {
        req
    }

    fn test_of(&mut self, test: u32, target: u32) {
        ScheduleBuilder::test_of(self, test, target);
    }

    fn created(&self) -> u64 {
        self.open_len() as u64
    }
}
