//! A set of small integers (piece ids or mailbox indices, all below 256) as a 256-bit mask.

/// A set of `u8` values, iterated in increasing order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct IdSet([u64; 4]);

impl IdSet {
    /// Adds `i`.
    #[inline]
    pub fn insert(&mut self, i: u8) {
        self.0[(i >> 6) as usize] |= 1 << (i & 63);
    }

    /// Removes `i`.
    #[inline]
    pub fn remove(&mut self, i: u8) {
        self.0[(i >> 6) as usize] &= !(1 << (i & 63));
    }

    /// Whether `i` is in the set.
    #[cfg(test)]
    pub fn contains(&self, i: u8) -> bool {
        self.0[(i >> 6) as usize] & (1 << (i & 63)) != 0
    }

    /// Number of members.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The four 64-bit words: member `i` is bit `i % 64` of word `i / 64`.
    #[inline]
    pub fn words(&self) -> [u64; 4] {
        self.0
    }

    /// The members, smallest first.
    #[inline]
    pub fn iter(&self) -> Iter {
        Iter { words: self.0, word: 0, bits: self.0[0] }
    }
}

/// Members of an [`IdSet`], smallest first.
pub(crate) struct Iter {
    words: [u64; 4],
    word: usize,
    bits: u64,
}

impl Iterator for Iter {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        while self.bits == 0 {
            self.word += 1;
            if self.word == 4 {
                return None;
            }
            self.bits = self.words[self.word];
        }
        let bit = self.bits.trailing_zeros();
        self.bits &= self.bits - 1;
        Some((self.word as u32 * 64 + bit) as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_come_out_in_order_across_words() {
        let mut s = IdSet::default();
        for i in [200u8, 0, 63, 64, 255, 1, 127, 128] {
            s.insert(i);
        }
        s.remove(1);
        s.remove(2);
        assert_eq!(s.iter().collect::<Vec<_>>(), [0, 63, 64, 127, 128, 200, 255]);
        assert_eq!(s.len(), 7);
        assert!(s.contains(255) && !s.contains(1));
        assert_eq!(IdSet::default().iter().next(), None);
    }
}
