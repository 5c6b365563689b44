//! State the library keeps for the rank it runs for. A process of its own per rank
//! has one rank; ranks run as coroutines of one process (`in_process`) each have
//! their own, chosen by the rank running now, and each run of such ranks starts
//! afresh. Every `static` of the library that belongs to a rank is a [`RankLocal`].

use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

/// The rank running now, among this process's ranks (0 when the process is one rank).
static CURRENT: AtomicU32 = AtomicU32::new(0);
/// Ranks in this process's current run.
static COUNT: AtomicU32 = AtomicU32::new(1);
/// Which run of ranks this is: a new one leaves every rank's state of the last behind.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Makes this process hold a new run of `n` ranks (none running yet), each with its
/// state made afresh.
pub fn begin(n: u32) {
    COUNT.store(n.max(1), Ordering::SeqCst);
    CURRENT.store(0, Ordering::SeqCst);
    GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// Runs rank `r`'s code from now on (the coroutines switch with it).
pub fn switch_to(r: u32) {
    CURRENT.store(r, Ordering::Relaxed);
}

/// The rank running now.
pub fn current() -> u32 {
    CURRENT.load(Ordering::Relaxed)
}

/// A value per rank, made on first use by `make`.
pub struct RankLocal<T: 'static> {
    make: fn() -> T,
    slots: AtomicPtr<Slots<T>>,
}

/// The values of one run's ranks.
struct Slots<T> {
    generation: u64,
    cells: Box<[OnceLock<T>]>,
}

impl<T: Send + Sync> RankLocal<T> {
    /// Each rank's value is `make()`.
    pub const fn new(make: fn() -> T) -> RankLocal<T> {
        RankLocal {
            make,
            slots: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The running rank's value.
    pub fn get(&'static self) -> &'static T {
        let generation = GENERATION.load(Ordering::Acquire);
        let mut p = self.slots.load(Ordering::Acquire);
        // SAFETY: a non-null pointer is to slots made below and never freed.
        if p.is_null() || unsafe { (*p).generation } != generation {
            let fresh = Box::into_raw(Box::new(Slots {
                generation,
                cells: (0..COUNT.load(Ordering::Acquire)).map(|_| OnceLock::new()).collect(),
            }));
            p = match self
                .slots
                .compare_exchange(p, fresh, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => fresh,
                Err(now) => {
                    // SAFETY: `fresh` was not shared.
                    drop(unsafe { Box::from_raw(fresh) });
                    now
                }
            };
            // The last run's slots stay: a reference to one of them may be held still
            // (it is a rank's state of a run that ended, a few kilobytes).
        }
        // SAFETY: as above; `current` is below the run's count (`switch_to` is only
        // given its ranks).
        unsafe { (*p).cells[current() as usize].get_or_init(self.make) }
    }
}
