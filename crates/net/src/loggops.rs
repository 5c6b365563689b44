//! The LogGOPS model: latency `L`, per-message CPU overhead `o`, per-byte CPU overhead
//! `O`, per-message NIC gap `g`, per-byte NIC gap `G`, and the eager/rendezvous
//! threshold `S` (seed: LogGOPSim thesis, sections 2.2 and 3.1).
//!
//! Per-byte costs are charged for `size - 1` bytes, as LogGOPSim does: the first byte
//! is covered by the per-message cost. Times are picoseconds.
//!
//! LogGOPSim computes `size - 1` in unsigned 64-bit arithmetic, so for an empty message
//! it wraps to -1 and the per-byte terms *credit* one byte (e.g. the NIC is busy for
//! `g - G`). simpi reproduces this modular arithmetic so that schedules with empty
//! messages (common in generated collectives) give LogGOPSim's exact end times.

use simpi_kernel::{SimTime, TimeUnit};

/// LogGOPS parameters in picoseconds (and `S` in bytes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LogGops {
    /// Wire latency of a message.
    pub l: u64,
    /// CPU overhead per message, at the sender and at the receiver.
    pub o: u64,
    /// NIC gap per message.
    pub g: u64,
    /// NIC gap per byte (charged for `size - 1` bytes).
    pub big_g: u64,
    /// CPU overhead per byte (charged for `size - 1` bytes).
    pub big_o: u64,
    /// Largest message sent eagerly; larger messages use rendezvous.
    pub s: u64,
}

impl LogGops {
    /// LogGOPSim's defaults (L=2500 o=1500 g=1000 G=6 O=0 S=65535) read in `unit`.
    pub fn loggopsim_defaults(unit: TimeUnit) -> LogGops {
        LogGops::from_units(unit, 2500, 1500, 1000, 6, 0, 65535)
    }

    /// Parameters given in `unit` (as in a GOAL file) converted to picoseconds.
    pub fn from_units(unit: TimeUnit, l: u64, o: u64, g: u64, big_g: u64, big_o: u64, s: u64) -> LogGops {
        let k = unit.ps_per_unit();
        LogGops {
            l: l * k,
            o: o * k,
            g: g * k,
            big_g: big_g * k,
            big_o: big_o * k,
            s,
        }
    }

    /// Bytes that pay per-byte costs: all but the first, modulo 2^64 (so -1 for an
    /// empty message, as in LogGOPSim).
    #[inline(always)]
    fn extra_bytes(size: u64) -> u64 {
        size.wrapping_sub(1)
    }

    /// True if a message of `size` bytes goes eagerly (the send completes at once).
    #[inline(always)]
    pub fn is_eager(&self, size: u64) -> bool {
        size <= self.s
    }

    /// CPU time the sender spends injecting a message: `o + (size-1)·O`.
    #[inline(always)]
    pub fn send_cpu(&self, size: u64) -> u64 {
        self.o.wrapping_add(Self::extra_bytes(size).wrapping_mul(self.big_o))
    }

    /// NIC time of a message, at either end: `g + (size-1)·G`.
    #[inline(always)]
    pub fn nic(&self, size: u64) -> u64 {
        self.g.wrapping_add(Self::extra_bytes(size).wrapping_mul(self.big_g))
    }

    /// Delay from the start of a send until the message can be taken in at the
    /// receiver: `o + L`. The per-byte gap is paid on arrival.
    #[inline(always)]
    pub fn flight(&self) -> u64 {
        self.o + self.l
    }

    /// CPU time the receiver spends taking a message in: `o + max((size-1)·O, (size-1)·G)`,
    /// since the data is only complete once the NIC has streamed every byte. All terms
    /// are modulo 2^64; callers add them to times with wrapping arithmetic.
    #[inline(always)]
    pub fn recv_cpu(&self, size: u64) -> u64 {
        let b = Self::extra_bytes(size);
        // An unsigned max, as LogGOPSim takes it: for an empty message it picks the
        // larger residue, i.e. the smaller of the two credits.
        self.o
            .wrapping_add(b.wrapping_mul(self.big_o).max(b.wrapping_mul(self.big_g)))
    }

    /// [`LogGops::send_cpu`] as the true (unwrapped) value: negative for an empty
    /// message whose credit exceeds `o`. Added to a time, it agrees with LogGOPSim's
    /// modular sum whenever the result lies on the clock.
    #[inline(always)]
    pub fn send_cpu_exact(&self, size: u64) -> i128 {
        Self::exact(self.o, self.big_o, size)
    }

    /// [`LogGops::nic`] as the true value (see [`LogGops::send_cpu_exact`]).
    #[inline(always)]
    pub fn nic_exact(&self, size: u64) -> i128 {
        Self::exact(self.g, self.big_g, size)
    }

    /// [`LogGops::recv_cpu`] as the true value: for an empty message LogGOPSim's
    /// unsigned max credits the smaller non-zero of `O` and `G`.
    #[inline(always)]
    pub fn recv_cpu_exact(&self, size: u64) -> i128 {
        if size == 0 {
            let credit = match (self.big_o, self.big_g) {
                (0, g) => g,
                (o, 0) => o,
                (o, g) => o.min(g),
            };
            self.o as i128 - credit as i128
        } else {
            let b = (size - 1) as i128;
            self.o as i128 + (b * self.big_o as i128).max(b * self.big_g as i128)
        }
    }

    /// [`LogGops::flight`] as the true value.
    #[inline(always)]
    pub fn flight_exact(&self) -> i128 {
        self.o as i128 + self.l as i128
    }

    #[inline(always)]
    fn exact(base: u64, per_byte: u64, size: u64) -> i128 {
        base as i128 + (size as i128 - 1) * per_byte as i128
    }

    /// The uncontended end-to-end time of one eager message, sender start to receiver
    /// done: `o + L + o + max((size-1)·O, (size-1)·G)`.
    pub fn one_message(&self, size: u64) -> SimTime {
        SimTime(self.flight() + self.recv_cpu(size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thesis_ten_byte_message() {
        // 10 bytes under the defaults: L + 2o + 9G = 2500 + 3000 + 54 ns.
        let m = LogGops::loggopsim_defaults(TimeUnit::Ns);
        assert_eq!(m.one_message(10), SimTime(5554 * 1000));
        assert_eq!(m.nic(10), (1000 + 54) * 1000);
        assert!(m.is_eager(65535) && !m.is_eager(65536));
    }

    #[test]
    fn one_byte_pays_no_per_byte_cost_and_zero_bytes_are_credited() {
        let m = LogGops::from_units(TimeUnit::Ps, 10, 30, 40, 5, 7, 100);
        assert_eq!(m.send_cpu(1), 30);
        assert_eq!(m.nic(1), 40);
        // LogGOPSim's unsigned (0 - 1) * G: an empty message credits one byte.
        assert_eq!(m.nic(0), 40 - 5);
        assert_eq!(m.send_cpu(0), 30 - 7);
        // max over the residues of -7 and -5 picks -5: the receive costs o - G.
        assert_eq!(m.recv_cpu(0), 30 - 5);
        let m0 = LogGops::from_units(TimeUnit::Ps, 10, 30, 40, 5, 0, 100);
        assert_eq!(m0.recv_cpu(0), 30 - 5);
        assert_eq!(m.send_cpu(2), 30 + 7);
        assert_eq!(m.recv_cpu(3), 30 + 14);
        assert_eq!(m.nic(3), 40 + 10);
    }

    #[test]
    fn exact_costs_agree_with_the_modular_ones_on_the_clock() {
        // Where the true cost is not negative, it is the modular one; an empty message
        // under O > o is a true negative LogGOPSim wraps.
        for (o, g, big_g, big_o) in [
            (30, 40, 5, 7),
            (30, 40, 5, 0),
            (30, 40, 0, 7),
            (3, 2, 5, 7),
            (0, 0, 0, 0),
        ] {
            let m = LogGops::from_units(TimeUnit::Ps, 10, o, g, big_g, big_o, 100);
            for size in [0u64, 1, 2, 3, 1000] {
                let t = 1_000_000u64;
                let pairs = [
                    (m.send_cpu(size), m.send_cpu_exact(size)),
                    (m.nic(size), m.nic_exact(size)),
                    (m.recv_cpu(size), m.recv_cpu_exact(size)),
                ];
                for (modular, exact) in pairs {
                    assert_eq!(
                        t.wrapping_add(modular) as i128,
                        t as i128 + exact,
                        "{o} {g} {big_g} {big_o} size {size}"
                    );
                }
            }
        }
        let m = LogGops::from_units(TimeUnit::Ps, 10, 3, 2, 5, 7, 100);
        assert_eq!(m.send_cpu_exact(0), 3 - 7);
        assert_eq!(m.recv_cpu_exact(0), 3 - 5);
    }
}
