//! A binary min-heap of items `0..n` with at most one entry each, whose key can be set
//! again in place. The flow network keeps one completion time per flow here: re-timing
//! a flow after a rate change moves its entry instead of leaving a stale one behind.

/// Min-heap of `(key, item)`; each item appears at most once.
#[derive(Default)]
pub struct KeyedHeap {
    heap: Vec<((u64, u64), u32)>,
    /// Position of each item in `heap`, or `ABSENT`.
    pos: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl KeyedHeap {
    /// An empty heap.
    pub fn new() -> KeyedHeap {
        KeyedHeap::default()
    }

    /// Number of entries.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.heap.len()
    }

    /// The smallest entry.
    pub fn peek(&self) -> Option<((u64, u64), u32)> {
        self.heap.first().copied()
    }

    /// Gives `item` the key `key`, inserting it if absent.
    pub fn set(&mut self, item: u32, key: (u64, u64)) {
        let i = item as usize;
        if self.pos.len() <= i {
            self.pos.resize(i + 1, ABSENT);
        }
        match self.pos[i] {
            ABSENT => {
                self.heap.push((key, item));
                let at = self.heap.len() - 1;
                self.pos[i] = at as u32;
                self.up(at);
            }
            p => {
                let p = p as usize;
                let old = self.heap[p].0;
                self.heap[p].0 = key;
                if key < old {
                    self.up(p);
                } else {
                    self.down(p);
                }
            }
        }
    }

    /// Removes and returns the smallest entry.
    pub fn pop(&mut self) -> Option<((u64, u64), u32)> {
        let top = *self.heap.first()?;
        self.remove_at(0);
        Some(top)
    }

    /// Removes `item`'s entry, if any.
    pub fn remove(&mut self, item: u32) {
        if let Some(&p) = self.pos.get(item as usize) {
            if p != ABSENT {
                self.remove_at(p as usize);
            }
        }
    }

    fn remove_at(&mut self, p: usize) {
        let last = self.heap.len() - 1;
        self.swap(p, last);
        let (_, item) = self.heap.pop().unwrap();
        self.pos[item as usize] = ABSENT;
        if p < self.heap.len() {
            self.down(p);
            self.up(p);
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].1 as usize] = a as u32;
        self.pos[self.heap[b].1 as usize] = b as u32;
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[i].0 >= self.heap[parent].0 {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.heap[l].0 < self.heap[m].0 {
                m = l;
            }
            if r < n && self.heap[r].0 < self.heap[m].0 {
                m = r;
            }
            if m == i {
                break;
            }
            self.swap(i, m);
            i = m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simpi_kernel::Rng;
    use std::collections::BTreeMap;

    /// Random sets, removals and pops agree with an ordered map of the same entries.
    #[test]
    fn matches_an_ordered_map() {
        let mut rng = Rng::new(7);
        let mut h = KeyedHeap::new();
        let mut m: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        for step in 0..20_000u64 {
            let item = rng.below(64) as u32;
            match rng.below(4) {
                0 | 1 => {
                    let key = (rng.below(50), step);
                    h.set(item, key);
                    m.insert(item, key);
                }
                2 => {
                    h.remove(item);
                    m.remove(&item);
                }
                _ => {
                    let want = m.iter().map(|(&i, &k)| (k, i)).min();
                    assert_eq!(h.pop(), want);
                    if let Some((_, i)) = want {
                        m.remove(&i);
                    }
                }
            }
            assert_eq!(h.len(), m.len());
        }
    }
}
