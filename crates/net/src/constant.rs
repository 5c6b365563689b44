//! The constant network model: every transfer takes the same time, whatever its size,
//! route or the traffic around it (infinite bandwidth, no contention), like SimGrid's
//! `network/model:Constant`. Useful to separate what a program's structure costs from
//! what its network costs, and the smallest member of the [`NetworkModel`] seam.

use crate::model::{NetworkModel, Token};
use crate::Error;
use simpi_kernel::{EventQueue, SimTime};
use simpi_platform::HostId;

/// SimGrid's constant model takes one second per communication.
pub const SIMGRID_CONSTANT_TIME: SimTime = SimTime(1_000_000_000_000);

/// Transfers that each take `time`.
pub struct ConstantNetwork {
    time: SimTime,
    /// Completions, in (time, start order): transfers started earlier complete first.
    due: EventQueue<Token>,
}

impl ConstantNetwork {
    /// A network where every transfer takes `time`.
    pub fn new(time: SimTime) -> ConstantNetwork {
        ConstantNetwork {
            time,
            due: EventQueue::new(),
        }
    }
}

impl NetworkModel for ConstantNetwork {
    fn start(&mut self, now: SimTime, _src: HostId, _dst: HostId, _bytes: u64, token: Token) -> Result<(), Error> {
        let at = now.ps().checked_add(self.time.ps()).ok_or(Error::TimeOverflow)?;
        self.due.schedule(at, token);
        Ok(())
    }

    fn next_time(&mut self) -> Option<SimTime> {
        self.due.peek_time().map(SimTime)
    }

    fn advance(&mut self, now: SimTime, done: &mut Vec<Token>) {
        while self.due.peek_time() == Some(now.ps()) {
            done.push(self.due.pop().expect("peeked").event);
        }
    }

    fn in_flight(&self) -> usize {
        self.due.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_transfer_takes_the_constant_time_in_start_order() {
        // 5 us per transfer whatever the size: started at 0, 0 and 3 us, they end at 5,
        // 5 and 8 us; the two at 5 us come back in the order they were started.
        let mut n = ConstantNetwork::new(SimTime(5_000_000));
        n.start(SimTime::ZERO, HostId(0), HostId(1), 1 << 40, 7).unwrap();
        n.start(SimTime::ZERO, HostId(1), HostId(0), 0, 3).unwrap();
        n.start(SimTime(3_000_000), HostId(0), HostId(0), 10, 9).unwrap();
        assert_eq!(n.in_flight(), 3);
        let mut done = Vec::new();
        assert_eq!(n.next_time(), Some(SimTime(5_000_000)));
        n.advance(SimTime(5_000_000), &mut done);
        assert_eq!(done, vec![7, 3]);
        assert_eq!(n.next_time(), Some(SimTime(8_000_000)));
        n.advance(SimTime(8_000_000), &mut done);
        assert_eq!(done, vec![7, 3, 9]);
        assert_eq!((n.next_time(), n.in_flight()), (None, 0));
    }

    #[test]
    fn a_transfer_past_the_clock_is_an_error() {
        let mut n = ConstantNetwork::new(SimTime(10));
        let late = SimTime(u64::MAX - 5);
        assert_eq!(n.start(late, HostId(0), HostId(1), 1, 0), Err(Error::TimeOverflow));
    }
}
