//! Ids handed out in order, some to stored elements and some to runs computed by a
//! cluster block: which is which for a given id.

/// Where the element with a given id lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The `i`-th stored element.
    Stored(u32),
    /// Block `b`'s element at offset `k`.
    Block(u32, u32),
}

/// An id space: runs of block ids between stored ones.
#[derive(Clone, Debug, Default)]
pub(crate) struct IdSpace {
    len: u32,
    /// (first id, length, block) of each block run, in id order.
    runs: Vec<(u32, u32, u32)>,
    /// Block ids before each run.
    before: Vec<u32>,
}

impl IdSpace {
    /// Ids handed out.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// The id of the next stored element.
    pub fn push_stored(&mut self) -> u32 {
        self.len += 1;
        self.len - 1
    }

    /// The first id of a run of `n` ids of block `b`.
    pub fn push_block(&mut self, b: u32, n: u32) -> u32 {
        let start = self.len;
        let before = self.runs.last().map_or(0, |&(_, l, _)| l) + self.before.last().copied().unwrap_or(0);
        self.runs.push((start, n, b));
        self.before.push(before);
        self.len += n;
        start
    }

    /// Where id `id` (below [`IdSpace::len`]) lives.
    pub fn locate(&self, id: u32) -> Slot {
        let k = self.runs.partition_point(|&(s, _, _)| s <= id);
        if k == 0 {
            return Slot::Stored(id);
        }
        let (start, n, b) = self.runs[k - 1];
        if id < start + n {
            Slot::Block(b, id - start)
        } else {
            Slot::Stored(id - self.before[k - 1] - n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_and_block_ids_interleave() {
        let mut s = IdSpace::default();
        assert_eq!(s.push_stored(), 0);
        assert_eq!(s.push_block(0, 3), 1);
        assert_eq!(s.push_stored(), 4);
        assert_eq!(s.push_block(1, 2), 5);
        assert_eq!(s.push_stored(), 7);
        let got: Vec<Slot> = (0..8).map(|i| s.locate(i)).collect();
        use Slot::*;
        assert_eq!(
            got,
            [
                Stored(0),
                Block(0, 0),
                Block(0, 1),
                Block(0, 2),
                Stored(1),
                Block(1, 0),
                Block(1, 1),
                Stored(2)
            ]
        );
    }
}
