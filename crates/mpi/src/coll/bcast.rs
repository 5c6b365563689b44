//! MPI_Bcast algorithms.

mod binomial;

use crate::coll::Algorithm;

/// The broadcast algorithms.
pub const ALGORITHMS: &[Algorithm] = &[binomial::ALGORITHM];

/// Tag of broadcast messages (collective traffic has its own matching context).
pub(crate) const TAG: u32 = 1;
