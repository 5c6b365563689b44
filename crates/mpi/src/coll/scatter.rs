//! MPI_Scatter algorithms.

mod binomial;
pub(crate) mod linear;
mod linear_nb;

use crate::coll::Algorithm;

/// The scatter algorithms.
pub const ALGORITHMS: &[Algorithm] = &[linear::ALGORITHM, binomial::ALGORITHM, linear_nb::ALGORITHM];

/// Tag of scatter messages (Open MPI's SCATTER tag, without its sign).
pub(crate) const TAG: u32 = 25;
