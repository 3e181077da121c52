//! A set of small integers (piece ids or mailbox indices, all below 256) as a 256-bit mask.

/// A set of `u8` values.
///
/// Members are visited smallest first by looping over [`IdSet::words`]:
/// `while bits != 0 { let i = word * 64 + bits.trailing_zeros(); bits &= bits - 1; … }`,
/// a loop the compiler keeps in registers (an `Iterator` adapter cost a third more
/// instructions in `has_legal_move`).
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(s: &IdSet) -> Vec<u8> {
        let mut out = Vec::new();
        for (word, mut bits) in s.words().into_iter().enumerate() {
            while bits != 0 {
                out.push((word as u32 * 64 + bits.trailing_zeros()) as u8);
                bits &= bits - 1;
            }
        }
        out
    }

    #[test]
    fn members_come_out_in_order_across_words() {
        let mut s = IdSet::default();
        for i in [200u8, 0, 63, 64, 255, 1, 127, 128] {
            s.insert(i);
        }
        s.remove(1);
        s.remove(2);
        assert_eq!(members(&s), [0, 63, 64, 127, 128, 200, 255]);
        assert_eq!(s.len(), 7);
        assert!(members(&IdSet::default()).is_empty());
    }
}
