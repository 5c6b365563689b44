//! Runs independent jobs on a few threads and gives their results in the jobs' order,
//! whatever order they finish in: the table a sweep prints does not depend on how many
//! threads ran it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` applied to every item on up to `threads` threads, the results in item order. On
/// failures, the failure of the first item that failed, in item order, with its index:
/// threads take items in increasing order and stop taking new ones after a failure, so
/// every item before a failed one has been run and the answer does not depend on timing.
pub fn map_ordered<T, R, E, F>(items: &[T], threads: usize, f: F) -> Result<Vec<R>, (usize, E)>
where
    T: Sync,
    R: Send,
    E: Send,
    F: Fn(&T) -> Result<R, E> + Sync,
{
    map_ordered_with(items, threads, || (), |_, item| f(item))
}

/// [`map_ordered`] where each thread first makes a state of its own with `init` (a
/// copy of something every job changes) and hands it to each of its jobs.
pub fn map_ordered_with<T, R, E, S, I, F>(items: &[T], threads: usize, init: I, f: F) -> Result<Vec<R>, (usize, E)>
where
    T: Sync,
    R: Send,
    E: Send,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, &T) -> Result<R, E> + Sync,
{
    let threads = threads.clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Mutex<Vec<Option<Result<R, E>>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let work = || {
        let mut state = None;
        loop {
            if failed.load(Ordering::Relaxed) {
                return;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { return };
            // Made on a thread's first job: a thread with none makes no copy.
            let r = f(state.get_or_insert_with(&init), item);
            if r.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            // A panic in another job poisons the lock; its slot stays empty and the
            // panic is re-raised when the scope ends.
            if let Ok(mut s) = slots.lock() {
                s[i] = Some(r);
            }
        }
    };
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
    }
    let slots = slots.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut out = Vec::with_capacity(items.len());
    for (i, s) in slots.into_iter().enumerate() {
        match s {
            Some(Ok(r)) => out.push(r),
            Some(Err(e)) => return Err((i, e)),
            // Items after a failure are left undone; the failure comes first.
            None => unreachable!("an item is left undone only after a failed one"),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_item_order_for_any_thread_count() {
        let items: Vec<u64> = (0..200).collect();
        // Later items finish first: without ordering the output would be reversed.
        let slow_first = |&i: &u64| -> Result<u64, ()> {
            std::thread::sleep(std::time::Duration::from_micros(200 - i));
            Ok(i * i)
        };
        let want: Vec<u64> = items.iter().map(|i| i * i).collect();
        for threads in [1, 2, 3, 8, 500] {
            assert_eq!(map_ordered(&items, threads, slow_first).unwrap(), want);
        }
    }

    #[test]
    fn the_first_failure_in_item_order_is_reported() {
        let items: Vec<u32> = (0..100).collect();
        for threads in [1, 2, 4] {
            let r = map_ordered(&items, threads, |&i| if i % 30 == 17 { Err(i) } else { Ok(i) });
            assert_eq!(r.unwrap_err(), (17, 17));
        }
    }

    #[test]
    fn no_items_no_results() {
        let r: Result<Vec<u8>, (usize, ())> = map_ordered(&[] as &[u8], 4, |&x| Ok(x));
        assert_eq!(r.unwrap(), Vec::<u8>::new());
    }
}
