//! The simulation kernel: simulated time, a totally ordered event queue and seeded
//! randomness. It knows nothing about MPI, hosts or networks; those live in crates above.

pub mod hash;
pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod time;

pub use hash::{IdHashMap, IdHasher, MixHashMap, MixHashSet, MixHasher};
pub use prefetch::prefetch;
pub use queue::{EventQueue, Scheduled, Seq};
pub use rng::Rng;
pub use time::{SimTime, TimeUnit};
