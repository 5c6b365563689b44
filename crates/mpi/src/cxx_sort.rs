//! An unstable sort that permutes equal elements exactly as GCC's libstdc++
//! `std::sort` does (introsort: median-of-three quicksort down to blocks of 16, heap
//! sort past the depth limit, then a final insertion sort).
//!
//! LogGOPSim orders the operations that one event enables with `std::sort` on their
//! kind alone; among same-kind operations the resulting order decides which is queued
//! first, and so which wins a CPU or a match. Reproducing it here is what makes simpi's
//! per-rank end times identical to LogGOPSim's. The algorithm is written from its public
//! description; `tests/cxx_sort_vs_libstdcxx.rs` checks it against the real thing.

const THRESHOLD: usize = 16;

/// Sorts `v` by `less`, leaving equal elements where libstdc++'s `std::sort` would.
pub fn sort_like_libstdcxx<T, F: Fn(&T, &T) -> bool>(v: &mut [T], less: F) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let depth = 2 * (usize::BITS - 1 - n.leading_zeros()) as usize;
    introsort_loop(v, 0, n, depth, &less);
    final_insertion_sort(v, &less);
}

fn introsort_loop<T, F: Fn(&T, &T) -> bool>(v: &mut [T], first: usize, mut last: usize, mut depth: usize, less: &F) {
    while last - first > THRESHOLD {
        if depth == 0 {
            heap_sort(&mut v[first..last], less);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, less);
        introsort_loop(v, cut, last, depth, less);
        last = cut;
    }
}

fn partition_pivot<T, F: Fn(&T, &T) -> bool>(v: &mut [T], first: usize, last: usize, less: &F) -> usize {
    let mid = first + (last - first) / 2;
    move_median_to_first(v, first, first + 1, mid, last - 1, less);
    unguarded_partition(v, first + 1, last, first, less)
}

fn move_median_to_first<T, F: Fn(&T, &T) -> bool>(v: &mut [T], result: usize, a: usize, b: usize, c: usize, less: &F) {
    let pick = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(result, pick);
}

fn unguarded_partition<T, F: Fn(&T, &T) -> bool>(
    v: &mut [T],
    mut first: usize,
    mut last: usize,
    pivot: usize,
    less: &F,
) -> usize {
    loop {
        while less(&v[first], &v[pivot]) {
            first += 1;
        }
        last -= 1;
        while less(&v[pivot], &v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

fn final_insertion_sort<T, F: Fn(&T, &T) -> bool>(v: &mut [T], less: &F) {
    let n = v.len();
    if n > THRESHOLD {
        insertion_sort(&mut v[..THRESHOLD], less);
        for i in THRESHOLD..n {
            unguarded_linear_insert(v, i, less);
        }
    } else {
        insertion_sort(v, less);
    }
}

fn insertion_sort<T, F: Fn(&T, &T) -> bool>(v: &mut [T], less: &F) {
    for i in 1..v.len() {
        if less(&v[i], &v[0]) {
            v[..=i].rotate_right(1);
        } else {
            unguarded_linear_insert(v, i, less);
        }
    }
}

/// Moves `v[i]` left past every element it is less than (a smaller element is known to
/// exist to its left, so no bound check is needed in the original).
fn unguarded_linear_insert<T, F: Fn(&T, &T) -> bool>(v: &mut [T], i: usize, less: &F) {
    let mut j = i;
    while less(&v[j], &v[j - 1]) {
        v.swap(j, j - 1);
        j -= 1;
    }
}

/// libstdc++'s heap sort (`std::partial_sort(first, last, last)`), which introsort
/// falls back to past its depth limit.
pub fn heap_sort_like_libstdcxx<T, F: Fn(&T, &T) -> bool>(v: &mut [T], less: F) {
    heap_sort(v, &less);
}

/// Builds a max-heap, then pops it into place from the back.
fn heap_sort<T, F: Fn(&T, &T) -> bool>(v: &mut [T], less: &F) {
    let len = v.len();
    if len < 2 {
        return;
    }
    let mut parent = (len - 2) / 2;
    loop {
        adjust_heap(v, parent, len, less);
        if parent == 0 {
            break;
        }
        parent -= 1;
    }
    let mut last = len;
    while last > 1 {
        last -= 1;
        // pop_heap(first, last, last): the value at `last` goes to the hole at the top.
        v.swap(0, last);
        adjust_heap(v, 0, last, less);
    }
}

/// Sinks the value at `hole` to the bottom along the larger children, then lets it rise
/// again: libstdc++'s `__adjust_heap` followed by `__push_heap`.
fn adjust_heap<T, F: Fn(&T, &T) -> bool>(v: &mut [T], mut hole: usize, len: usize, less: &F) {
    let top = hole;
    let mut child = hole;
    // The value being placed rides along at `hole` through swaps.
    while child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(&v[child], &v[child - 1]) {
            child -= 1;
        }
        v.swap(hole, child);
        hole = child;
    }
    if len.is_multiple_of(2) && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        v.swap(hole, child - 1);
        hole = child - 1;
    }
    // push_heap: bubble up while the parent is less than the value.
    while hole > top {
        let parent = (hole - 1) / 2;
        if less(&v[parent], &v[hole]) {
            v.swap(hole, parent);
            hole = parent;
        } else {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simpi_kernel::Rng;

    #[test]
    fn sorts_by_key() {
        let mut r = Rng::new(3);
        for n in [0usize, 1, 2, 5, 16, 17, 33, 100, 1000] {
            let mut v: Vec<(u8, usize)> = (0..n).map(|i| (r.below(3) as u8, i)).collect();
            sort_like_libstdcxx(&mut v, |a, b| a.0 < b.0);
            assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
            let mut ids: Vec<usize> = v.iter().map(|x| x.1).collect();
            ids.sort();
            assert_eq!(ids, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn small_inputs_are_stable() {
        // Up to 16 elements libstdc++ only runs insertion sort, which is stable.
        let mut v: Vec<(u8, usize)> = [3, 1, 2, 1, 3, 2, 1].iter().enumerate().map(|(i, &k)| (k, i)).collect();
        sort_like_libstdcxx(&mut v, |a, b| a.0 < b.0);
        let ids: Vec<usize> = v.iter().map(|x| x.1).collect();
        assert_eq!(ids, vec![1, 3, 6, 2, 5, 0, 4]);
    }

    #[test]
    fn heap_sort_sorts() {
        let mut r = Rng::new(9);
        let mut v: Vec<u32> = (0..257).map(|_| r.below(50) as u32).collect();
        heap_sort(&mut v, &|a: &u32, b: &u32| a < b);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }
}
