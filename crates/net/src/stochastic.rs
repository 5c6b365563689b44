//! The stochastic network model (PEVPM's): each message takes a time drawn from the
//! measured distribution of its size at the contention it meets ([`Distributions`]).
//!
//! Contention is PEVPM's scoreboard of messages in flight, read when a message starts
//! and counting it: over the whole network ([`Scoreboard::Global`]), or on the busiest
//! link of its route ([`Scoreboard::Links`], with a platform's routes). A message's time
//! does not change once drawn.
//!
//! The uniform number behind each draw comes from a counter-based generator keyed by
//! (seed, replication, source host, destination host, the message's index between the
//! two): the draws do not depend on the order events happen in, and two alternatives
//! compared with one seed (another collective algorithm, another mapping) give the
//! same pair's k-th message the same quantile.

use crate::distributions::Distributions;
use crate::model::{NetworkModel, Token};
use crate::Error;
use simpi_kernel::{EventQueue, Rng, SimTime};
use simpi_platform::{HostId, Platform};
use std::collections::HashMap;

/// Names the generator's use in its key, so no other use shares its numbers.
const KEY_TAG: u64 = 0x5354_4f43_4841_5354; // "STOCHAST"

/// Where a message's contention is counted.
pub enum Scoreboard<'p> {
    /// Every message in flight counts.
    Global,
    /// Messages in flight on the busiest link of the route count (the platform's
    /// routes).
    Links(&'p Platform),
}

/// What the model keeps of a pair of hosts.
struct Pair {
    /// The links of its route (none under a global scoreboard).
    links: Vec<u32>,
    /// Messages started from the first to the second (the generator's counter).
    sent: u64,
}

/// A network whose messages take measured times.
pub struct StochasticNetwork<'p, 'd> {
    dists: &'d Distributions,
    scoreboard: Scoreboard<'p>,
    seed: u64,
    replication: u64,
    /// Messages in flight, and on each link (by the platform's link number).
    in_flight: usize,
    on_link: HashMap<u32, u32>,
    /// Each pair of hosts that exchanged messages: its route's links and its messages.
    pairs: HashMap<(u32, u32), Pair>,
    /// Completions in (time, start order), with the route of each.
    due: EventQueue<(Token, (u32, u32))>,
    /// Messages whose contention was above the highest measured level.
    above_measured: u64,
    /// The highest contention seen.
    max_seen: u32,
}

impl<'p, 'd> StochasticNetwork<'p, 'd> {
    /// A network drawing from `dists` with `seed`, in replication `replication` of a
    /// Monte Carlo run.
    pub fn new(dists: &'d Distributions, scoreboard: Scoreboard<'p>, seed: u64, replication: u64) -> Self {
        StochasticNetwork {
            dists,
            scoreboard,
            seed,
            replication,
            in_flight: 0,
            on_link: HashMap::new(),
            pairs: HashMap::new(),
            due: EventQueue::new(),
            above_measured: 0,
            max_seen: 0,
        }
    }

    /// Messages that met more contention than the distributions measured (their times
    /// were drawn at the highest level), and the highest contention met.
    pub fn beyond_measured(&self) -> (u64, u32) {
        (self.above_measured, self.max_seen)
    }
}

impl NetworkModel for StochasticNetwork<'_, '_> {
    fn start(&mut self, now: SimTime, src: HostId, dst: HostId, bytes: u64, token: Token) -> Result<(), Error> {
        let key = (src.0, dst.0);
        if !self.pairs.contains_key(&key) {
            let links = match self.scoreboard {
                Scoreboard::Global => Vec::new(),
                Scoreboard::Links(p) => p.route(src, dst)?.links.iter().map(|l| l.0).collect(),
            };
            self.pairs.insert(key, Pair { links, sent: 0 });
        }
        let pair = self.pairs.get_mut(&key).expect("inserted above");
        // Counting this message.
        let contention = match self.scoreboard {
            Scoreboard::Global => self.in_flight + 1,
            Scoreboard::Links(_) => pair
                .links
                .iter()
                .map(|l| self.on_link.get(l).copied().unwrap_or(0) as usize + 1)
                .max()
                .unwrap_or(1),
        };
        let contention = u32::try_from(contention).unwrap_or(u32::MAX);
        self.max_seen = self.max_seen.max(contention);
        if contention > self.dists.max_contention() {
            self.above_measured += 1;
        }
        let u = Rng::keyed(&[
            KEY_TAG,
            self.seed,
            self.replication,
            src.0 as u64,
            dst.0 as u64,
            pair.sent,
        ])
        .unit_f64();
        let time = self.dists.sample(bytes, contention, u)?;
        let at = now.ps().checked_add(time.ps()).ok_or(Error::TimeOverflow)?;
        pair.sent += 1;
        for &l in &pair.links {
            *self.on_link.entry(l).or_insert(0) += 1;
        }
        self.in_flight += 1;
        self.due.schedule(at, (token, (src.0, dst.0)));
        Ok(())
    }

    fn next_time(&mut self) -> Option<SimTime> {
        self.due.peek_time().map(SimTime)
    }

    fn advance(&mut self, now: SimTime, done: &mut Vec<Token>) {
        while self.due.peek_time() == Some(now.ps()) {
            let (token, pair) = self.due.pop().expect("peeked").event;
            if let Some(p) = self.pairs.get(&pair) {
                for l in &p.links {
                    if let Some(n) = self.on_link.get_mut(l) {
                        *n -= 1;
                    }
                }
            }
            self.in_flight -= 1;
            done.push(token);
        }
    }

    fn in_flight(&self) -> usize {
        self.in_flight
    }

    fn warnings(&self) -> Vec<String> {
        let (beyond, most) = self.beyond_measured();
        if beyond == 0 {
            return Vec::new();
        }
        let top = self.dists.max_contention();
        vec![format!(
            "{beyond} message(s) met more contention than was measured (up to {most} in flight; the distributions go to {top}): their times were drawn at {top}"
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// 8-byte messages: 10 us alone, 30 us with 2 in flight, 50 us with 3 (one bucket
    /// of width 0+ each: a point mass).
    fn stepped() -> Distributions {
        Distributions::parse(
            Path::new("d"),
            "unit ns\ndist 8 1\nbucket 10000 10000.001 1\ndist 8 2\nbucket 30000 30000.001 1\ndist 8 3\nbucket 50000 50000.001 1\n",
        )
        .unwrap()
    }

    fn us(t: SimTime) -> u64 {
        (t.ps() + 500_000) / 1_000_000
    }

    #[test]
    fn contention_is_the_number_in_flight_when_a_message_starts() {
        let d = stepped();
        let mut n = StochasticNetwork::new(&d, Scoreboard::Global, 1, 0);
        // At 0: alone (10 us). At 1 us: 2 in flight (30 us, ends at 31). At 2 us: 3 (50
        // us, ends at 52). At 20 us, after the first ended: 3 again (ends at 70).
        n.start(SimTime::ZERO, HostId(0), HostId(1), 8, 1).unwrap();
        n.start(SimTime(1_000_000), HostId(2), HostId(3), 8, 2).unwrap();
        n.start(SimTime(2_000_000), HostId(4), HostId(5), 8, 3).unwrap();
        let mut done = Vec::new();
        let first = n.next_time().unwrap();
        assert_eq!(us(first), 10);
        n.advance(first, &mut done);
        assert_eq!(done, vec![1]);
        n.start(SimTime(20_000_000), HostId(0), HostId(1), 8, 4).unwrap();
        let mut ends = Vec::new();
        while let Some(t) = n.next_time() {
            n.advance(t, &mut done);
            ends.push(us(t));
        }
        assert_eq!(ends, vec![31, 52, 70]);
        assert_eq!(done, vec![1, 2, 3, 4]);
        assert_eq!(n.beyond_measured(), (0, 3));
    }

    #[test]
    fn draws_depend_on_the_key_not_on_the_order_of_starts() {
        // A wide uniform histogram: each message's time shows its quantile.
        let d = Distributions::parse(Path::new("d"), "unit us\ndist 0 1\nbucket 0 1000 1\n").unwrap();
        let times = |order: &[(u32, u32)], seed: u64| {
            let mut n = StochasticNetwork::new(&d, Scoreboard::Global, seed, 0);
            let mut got = HashMap::new();
            for (k, &(s, t)) in order.iter().enumerate() {
                n.start(SimTime::ZERO, HostId(s), HostId(t), 0, k as u64).unwrap();
            }
            let mut done = Vec::new();
            while let Some(t) = n.next_time() {
                let before = done.len();
                n.advance(t, &mut done);
                for &tok in &done[before..] {
                    got.insert(order[tok as usize], t);
                }
            }
            got
        };
        let a = times(&[(0, 1), (2, 3), (4, 5)], 7);
        let b = times(&[(4, 5), (0, 1), (2, 3)], 7);
        assert_eq!(a, b);
        assert_ne!(a, times(&[(0, 1), (2, 3), (4, 5)], 8));
        // Three draws from U(0, 1000 us) are all different.
        let mut v: Vec<SimTime> = a.values().copied().collect();
        v.sort();
        v.dedup();
        assert_eq!(v.len(), 3);
    }

    #[test]
    fn more_contention_than_measured_is_counted() {
        let d = Distributions::parse(Path::new("d"), "unit us\ndist 0 1\nbucket 1 2 1\n").unwrap();
        let mut n = StochasticNetwork::new(&d, Scoreboard::Global, 0, 0);
        for k in 0..3 {
            n.start(SimTime::ZERO, HostId(0), HostId(1), 0, k).unwrap();
        }
        assert_eq!(n.beyond_measured(), (2, 3));
    }
}
