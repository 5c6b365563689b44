//! The label table of one rank block: an open-addressing hash table over an arena of
//! label bytes, cleared (not freed) between ranks, so millions of labels cost no
//! allocation each. Labels of the form `l<number>` — what generators write — skip the
//! hash and index a plain vector by their number.

/// Where a label was defined.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct LabelDef {
    /// Rank-local operation index.
    pub idx: u32,
    /// Line of the definition.
    pub line: u32,
}

#[derive(Copy, Clone)]
struct Slot {
    /// 0 marks an empty slot (real hashes have their low bit set).
    hash: u64,
    off: u32,
    len: u32,
    def: LabelDef,
}

const EMPTY: Slot = Slot {
    hash: 0,
    off: 0,
    len: 0,
    def: LabelDef { idx: 0, line: 0 },
};

/// Labels of the open rank block.
pub(crate) struct LabelTable {
    arena: Vec<u8>,
    slots: Vec<Slot>,
    used: usize,
    /// `numbered[n]` is label `l<n>`, if defined (`line == 0` marks a hole).
    numbered: Vec<LabelDef>,
    /// Labels in `numbered`.
    numbered_used: usize,
    /// Whether some `l<n>` label is in the hash table instead, its number being too far
    /// ahead of the others (a single `l16000000:` must not take 128 MB).
    spilled: bool,
}

impl Default for LabelTable {
    fn default() -> Self {
        LabelTable {
            arena: Vec::new(),
            slots: vec![EMPTY; 64],
            used: 0,
            numbered: Vec::new(),
            numbered_used: 0,
            spilled: false,
        }
    }
}

/// Largest `n` of an `l<n>` label kept in the plain vector.
const MAX_NUMBERED: u64 = 1 << 24;

/// The number of an `l<digits>` label written canonically (no leading zeros).
#[inline(always)]
fn numbered(key: &[u8]) -> Option<usize> {
    let (&first, digits) = key.split_first()?;
    if first != b'l' || digits.is_empty() || digits.len() > 8 || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    let mut n = 0u64;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + (d - b'0') as u64;
    }
    (n < MAX_NUMBERED).then_some(n as usize)
}

#[inline]
fn hash(key: &[u8]) -> u64 {
    // FxHash-style multiply-rotate over 8-byte words; deterministic across runs.
    let mut h: u64 = key.len() as u64;
    let mut chunks = key.chunks_exact(8);
    for c in &mut chunks {
        h = (h.rotate_left(5) ^ u64::from_le_bytes(c.try_into().unwrap())).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    (h ^ (h >> 29)) | 1
}

impl LabelTable {
    /// Forgets every label, keeping the memory for the next rank.
    pub fn clear(&mut self) {
        self.numbered.clear();
        self.numbered_used = 0;
        self.spilled = false;
        if self.used > 0 {
            if self.slots.len() > 4096 && self.used * 16 < self.slots.len() {
                self.slots = vec![EMPTY; (self.used * 2).next_power_of_two().max(64)];
            } else {
                self.slots.fill(EMPTY);
            }
        }
        self.used = 0;
        self.arena.clear();
    }

    /// The definition of `key`, if any.
    #[inline]
    pub fn get(&self, key: &[u8]) -> Option<LabelDef> {
        if let Some(n) = numbered(key) {
            let found = self.numbered.get(n).copied().filter(|d| d.line != 0);
            if found.is_some() || !self.spilled {
                return found;
            }
        }
        self.get_hashed(key)
    }

    fn get_hashed(&self, key: &[u8]) -> Option<LabelDef> {
        let h = hash(key);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let s = &self.slots[i];
            if s.hash == 0 {
                return None;
            }
            if s.hash == h && &self.arena[s.off as usize..(s.off + s.len) as usize] == key {
                return Some(s.def);
            }
            i = (i + 1) & mask;
        }
    }

    /// Defines `key`; if it already exists, returns the existing definition instead.
    #[inline]
    pub fn insert(&mut self, key: &[u8], def: LabelDef) -> Result<(), LabelDef> {
        debug_assert!(def.line != 0, "line numbers start at 1");
        if let Some(n) = numbered(key) {
            // The vector stays within a few times the labels it holds.
            if n < self.numbered.len().max(4 * self.numbered_used + 4096) {
                if self.spilled {
                    if let Some(first) = self.get_hashed(key) {
                        return Err(first);
                    }
                }
                if n >= self.numbered.len() {
                    self.numbered.resize(n + 1, LabelDef { idx: 0, line: 0 });
                }
                let slot = &mut self.numbered[n];
                if slot.line != 0 {
                    return Err(*slot);
                }
                *slot = def;
                self.numbered_used += 1;
                return Ok(());
            }
            self.spilled = true;
        }
        if (self.used + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let h = hash(key);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let s = &self.slots[i];
            if s.hash == 0 {
                break;
            }
            if s.hash == h && &self.arena[s.off as usize..(s.off + s.len) as usize] == key {
                return Err(s.def);
            }
            i = (i + 1) & mask;
        }
        let off = self.arena.len() as u32;
        self.arena.extend_from_slice(key);
        self.slots[i] = Slot {
            hash: h,
            off,
            len: key.len() as u32,
            def,
        };
        self.used += 1;
        Ok(())
    }

    fn grow(&mut self) {
        let doubled = vec![EMPTY; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, doubled);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.hash != 0) {
            let mut i = s.hash as usize & mask;
            while self.slots[i].hash != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// The labels of operations `idxs` (a few), with their definitions: one pass over
    /// the table whatever the number wanted, and names made only for those found.
    pub fn names_of(&self, idxs: &[u32]) -> Vec<Option<(String, LabelDef)>> {
        let mut out = vec![None; idxs.len()];
        let mut put = |def: LabelDef, name: &dyn Fn() -> String| {
            for (k, &i) in idxs.iter().enumerate() {
                if i == def.idx && out[k].is_none() {
                    out[k] = Some((name(), def));
                }
            }
        };
        for s in self.slots.iter().filter(|s| s.hash != 0) {
            let bytes = &self.arena[s.off as usize..(s.off + s.len) as usize];
            put(s.def, &|| String::from_utf8_lossy(bytes).into_owned());
        }
        for (n, d) in self.numbered.iter().enumerate().filter(|(_, d)| d.line != 0) {
            put(*d, &|| format!("l{n}"));
        }
        out
    }

    /// Every label with its definition (for error messages).
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (String, LabelDef)> + '_ {
        let hashed = self.slots.iter().filter(|s| s.hash != 0).map(|s| {
            (
                String::from_utf8_lossy(&self.arena[s.off as usize..(s.off + s.len) as usize]).into_owned(),
                s.def,
            )
        });
        let numbered = self
            .numbered
            .iter()
            .enumerate()
            .filter(|(_, d)| d.line != 0)
            .map(|(n, d)| (format!("l{n}"), *d));
        hashed.chain(numbered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn issue16_a_label_number_far_ahead_takes_no_memory_of_its_own() {
        let mut t = LabelTable::default();
        t.insert(b"l16000000", LabelDef { idx: 0, line: 1 }).unwrap();
        assert!(t.numbered.capacity() < 1 << 16, "{}", t.numbered.capacity());
        assert_eq!(t.get(b"l16000000"), Some(LabelDef { idx: 0, line: 1 }));
        // Labels written in order still go to the vector, and duplicates of the far
        // one are found once the vector reaches it.
        for n in 0..20_000u32 {
            t.insert(
                format!("l{n}").as_bytes(),
                LabelDef {
                    idx: n + 1,
                    line: n + 2,
                },
            )
            .unwrap();
        }
        assert_eq!(t.used, 1);
        assert_eq!(
            t.insert(b"l16000000", LabelDef { idx: 9, line: 9 }),
            Err(LabelDef { idx: 0, line: 1 })
        );
    }

    #[test]
    fn behaves_like_a_hashmap_across_growth_and_clears() {
        let mut t = LabelTable::default();
        for round in 0..3u32 {
            let mut shadow = HashMap::new();
            for i in 0..5000u32 {
                // Hashed names, numbered names, and near-numbered ones that must hash.
                let key = match i % 5 {
                    0 => format!("label_{}_{}", i % 2500, round),
                    1 => format!("l{}", (i * 7) % 1700),
                    2 => format!("l0{}", i % 900),
                    // Numbers far apart: some go to the hash table, until the vector
                    // has grown past them.
                    3 => format!("l{}", (i as u64 * 7919 * (round as u64 + 1)) % 16_000_000),
                    _ => format!("l{}x", i % 800),
                };
                let def = LabelDef { idx: i, line: i + 1 };
                let r = t.insert(key.as_bytes(), def);
                match shadow.get(&key) {
                    Some(&first) => assert_eq!(r, Err(first)),
                    None => {
                        assert!(r.is_ok());
                        shadow.insert(key, def);
                    }
                }
            }
            for (k, v) in &shadow {
                assert_eq!(t.get(k.as_bytes()), Some(*v));
            }
            assert_eq!(t.get(b"missing"), None);
            assert_eq!(t.get(b"l99999"), None);
            assert_eq!(t.iter().count(), shadow.len());
            for (k, d) in t.iter() {
                assert_eq!(shadow.get(&k), Some(&d), "{k}");
            }
            // names_of agrees with iter.
            let some: Vec<u32> = vec![0, 1, 2, 4999, 77_777];
            let named = t.names_of(&some);
            for (k, &i) in some.iter().enumerate() {
                let expect = t.iter().find(|(_, d)| d.idx == i);
                assert_eq!(named[k], expect, "{i}");
            }
            t.clear();
            assert_eq!(t.get(b"label_1_0"), None);
            assert_eq!(t.get(b"l7"), None);
        }
    }
}
