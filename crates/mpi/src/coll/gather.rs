//! MPI_Gather algorithms.

mod binomial;
pub(crate) mod linear;
mod linear_sync;

use crate::coll::Algorithm;

/// The gather algorithms.
pub const ALGORITHMS: &[Algorithm] = &[linear::ALGORITHM, binomial::ALGORITHM, linear_sync::ALGORITHM];

/// Tag of gather messages (Open MPI's GATHER tag, without its sign).
pub(crate) const TAG: u32 = 19;
