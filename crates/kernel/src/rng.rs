//! Seeded pseudo-random numbers (xoshiro256**, seeded through SplitMix64).
//!
//! Written here rather than taken from a crate so that the stream for a given seed can
//! never change under us: the same seed gives bit-identical simulations forever.

/// A small, fast, seedable generator. Not cryptographic.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix64(*state)
}

/// SplitMix64's output function: a bijection that scatters every input bit.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator whose whole stream is determined by `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut st = seed;
        Rng {
            s: [
                splitmix64(&mut st),
                splitmix64(&mut st),
                splitmix64(&mut st),
                splitmix64(&mut st),
            ],
        }
    }

    /// The generator of one key of a counter-based family, e.g. (seed, replication,
    /// rank): its stream depends on the key's words, in order, and on nothing drawn
    /// before, so what each rank gets does not depend on the order events happen in.
    /// Callers put a constant naming their use first, so two uses never share a key.
    pub fn keyed(key: &[u64]) -> Rng {
        // Each word is absorbed through SplitMix64's finalizer, a bijection of 64-bit
        // words: keys that differ in one word differ in the state; the length is mixed
        // in first so that a key and its extension by a zero word differ too.
        let mut h = mix64(0x243F_6A88_85A3_08D3 ^ key.len() as u64);
        for &w in key {
            h = mix64(h.wrapping_add(0x9E37_79B9_7F4A_7C15) ^ w);
        }
        Rng::new(h)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        // Lemire's multiply-shift with rejection.
        loop {
            let x = self.next_u64();
            let m = (x as u128) * (n as u128);
            let low = m as u64;
            if low >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// A uniform float in `[0, 1)` with 53 random bits.
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit_f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let mut c = Rng::new(8);
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn splitmix_matches_reference_vector() {
        // First outputs of SplitMix64 seeded with 1234567 (published test vector).
        let mut st = 1234567u64;
        assert_eq!(splitmix64(&mut st), 6457827717110365317);
        assert_eq!(splitmix64(&mut st), 3203168211198807973);
    }

    #[test]
    fn keyed_streams_depend_on_every_word_and_its_place() {
        let first = |k: &[u64]| Rng::keyed(k).next_u64();
        assert_eq!(first(&[1, 2, 3]), first(&[1, 2, 3]));
        let keys: [&[u64]; 6] = [&[1, 2, 3], &[1, 2, 4], &[1, 3, 2], &[2, 1, 3], &[1, 2], &[1, 2, 3, 0]];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(first(a), first(b), "{a:?} and {b:?} share a stream");
            }
        }
    }

    #[test]
    fn keyed_draws_over_consecutive_keys_are_uniform() {
        // One draw per rank key (seed 9, replication 0, rank r), as noise offsets are
        // drawn: 10 cells of 1000 expected each; a chi-square over 9 degrees of freedom
        // passes 27.9 with probability 0.001.
        let mut cells = [0u32; 10];
        for r in 0..10_000u64 {
            cells[Rng::keyed(&[9, 0, r]).below(10) as usize] += 1;
        }
        let chi2: f64 = cells.iter().map(|&c| (c as f64 - 1000.0).powi(2) / 1000.0).sum();
        assert!(chi2 < 27.9, "{cells:?} (chi-square {chi2})");
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(1);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            let v = r.below(7) as usize;
            seen[v] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800 && c < 1200), "{seen:?}");
    }
}
