//! A hasher for the simulator's integer keys (operation ids, host pairs): one multiply.
//! The standard SipHash resists adversarial keys, which ids are not, and showed in
//! profiles of message starts and deliveries.

use std::hash::{BuildHasherDefault, Hasher};

/// Hashes integers with a multiply; other input a byte at a time.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, k: u32) {
        self.write_u64(k as u64);
    }
    fn write_u64(&mut self, k: u64) {
        // The high bits of the product feed hashbrown's control bytes; mixing the key's
        // high half down keeps pairs that differ only there apart.
        self.0 = (k ^ k >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A `HashMap` with [`IdHasher`].
pub type IdHashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_keep_every_key_apart() {
        let mut m: IdHashMap<u64, u64> = IdHashMap::default();
        // Keys differing only in their high half (host pairs) and consecutive ids.
        for i in 0..1000u64 {
            m.insert(i << 32 | 0xffff_ffff, i);
            m.insert(i, i + 1);
        }
        assert_eq!(m.len(), 2000);
        assert!((0..1000u64).all(|i| m[&(i << 32 | 0xffff_ffff)] == i && m[&i] == i + 1));
    }
}
