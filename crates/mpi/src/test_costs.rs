//! SMPI's cost of MPI_Test (`Request::test` in SimGrid 3.32): a test sleeps its base
//! cost times a count shared by every rank, then looks at its request. Finding it not
//! yet complete adds one to the count (`smpi/grow-injected-times`); finding it complete
//! sets the count back to one and leaves a null request in its place, so that later
//! tests of it cost nothing. A request is complete for a test when its send has
//! completed or its receive's data has arrived.

/// The shared count, and which requests are complete and which a test found so.
pub(crate) struct TestCosts {
    count: u64,
    grow: bool,
    complete: Bits,
    found: Bits,
}

impl TestCosts {
    /// For a schedule of `ops` operations; keeps no per-operation state unless it
    /// `has_tests`.
    pub(crate) fn new(ops: usize, has_tests: bool, grow: bool) -> TestCosts {
        let n = if has_tests { ops } else { 0 };
        TestCosts {
            count: 1,
            grow,
            complete: Bits::new(n),
            found: Bits::new(n),
        }
    }

    /// What a test of request `req` with base cost `base` costs if it starts now, and
    /// whether it then looks at its request (false: a test found it before).
    pub(crate) fn cost(&self, base: u64, req: u32) -> (u64, bool) {
        if self.found.get(req) {
            (0, false)
        } else {
            (base.saturating_mul(self.count), true)
        }
    }

    /// A test has paid its cost and looks at request `req`.
    pub(crate) fn look(&mut self, req: u32) {
        if self.complete.get(req) {
            self.found.set(req);
            self.count = 1;
        } else if self.grow {
            self.count += 1;
        }
    }

    /// Operation `id` is complete for tests (a send done, a receive's data in).
    #[inline]
    pub(crate) fn complete(&mut self, id: u32) {
        if !self.complete.is_empty() {
            self.complete.set(id);
        }
    }
}

/// One bit per operation.
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn get(&self, i: u32) -> bool {
        self.0[i as usize / 64] >> (i % 64) & 1 != 0
    }

    fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }
}

#[cfg(test)]
mod tests {
    use super::TestCosts;

    #[test]
    fn failures_grow_the_count_and_a_success_resets_it_for_every_request() {
        // Requests 0 and 1 (0 completes after two failed tests); base cost 10.
        let mut t = TestCosts::new(2, true, true);
        assert_eq!(t.cost(10, 0), (10, true));
        t.look(0);
        assert_eq!(t.cost(10, 1), (20, true)); // the count is shared
        t.look(1);
        assert_eq!(t.cost(10, 0), (30, true));
        t.complete(0);
        t.look(0);
        assert_eq!(t.cost(10, 0), (0, false)); // found: a null request
        assert_eq!(t.cost(10, 1), (10, true)); // back to one
        let mut flat = TestCosts::new(2, true, false);
        flat.look(1);
        flat.look(1);
        assert_eq!(flat.cost(10, 1), (10, true));
    }
}
