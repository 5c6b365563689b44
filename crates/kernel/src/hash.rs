//! Hashers for the simulator's own keys: integer ids and host pairs (one multiply), and
//! keys of several fields. The standard SipHash resists adversarial keys, which these
//! are not, and showed in profiles of message starts, deliveries and trace conversion.

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

/// Hashes keys of several fields (structs, vectors) by folding every word into the
/// state with a rotate, xor and multiply: much cheaper than SipHash for keys that are
/// not chosen by an adversary. [`IdHasher`] keeps only the last word, which suits lone
/// integers only.
#[derive(Default, Clone, Copy)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        // Fold the high bits down: hashbrown takes its bucket from the low bits.
        self.0 ^ self.0 >> 32
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, k: u8) {
        self.write_u64(k as u64);
    }
    fn write_u32(&mut self, k: u32) {
        self.write_u64(k as u64);
    }
    fn write_usize(&mut self, k: usize) {
        self.write_u64(k as u64);
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0.rotate_left(5) ^ k).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A `HashMap` with [`MixHasher`].
pub type MixHashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// A `HashSet` with [`MixHasher`].
pub type MixHashSet<K> = std::collections::HashSet<K, BuildHasherDefault<MixHasher>>;

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

    #[test]
    fn mixed_keys_depend_on_every_field() {
        use std::hash::BuildHasher;
        let h = |k: &(u32, u64, Vec<u64>, &str)| BuildHasherDefault::<MixHasher>::default().hash_one(k);
        let base = (3u32, 1u64 << 40, vec![1u64, 2, 3], "ring");
        let variants = [
            (4u32, 1u64 << 40, vec![1u64, 2, 3], "ring"),
            (3, 1 << 41, vec![1, 2, 3], "ring"),
            (3, 1 << 40, vec![1, 2, 4], "ring"),
            (3, 1 << 40, vec![1, 2, 3, 0], "ring"),
            (3, 1 << 40, vec![1, 2, 3], "rinh"),
        ];
        // IdHasher would give all of these the hash of their last field.
        for v in &variants {
            assert_ne!(h(v), h(&base), "{v:?}");
        }
        let mut m: MixHashMap<(u32, u64, Vec<u64>, &str), usize> = MixHashMap::default();
        for (i, v) in variants.iter().enumerate() {
            m.insert(v.clone(), i);
        }
        m.insert(base.clone(), 99);
        assert_eq!(m.len(), 6);
        assert_eq!(m[&base], 99);
    }
}
