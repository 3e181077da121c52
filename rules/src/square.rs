//! Board squares and their names (`a1` … `o15`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Largest board side the crate supports (files `a`–`o`, ranks `1`–`15`).
pub const MAX_SIDE: u8 = 15;

/// A square on the board, named `a1` … `o15`.
///
/// Files run `a`, `b`, … from left to right as Red sees the board, ranks `1`, `2`, … from
/// Red's side. A square is a plain coordinate: whether it lies on a given board is the
/// [`Ruleset`](crate::Ruleset)'s business.
///
/// Internally a square is a mailbox index `rank * 16 + file`; with at most 15 files and
/// ranks, every step off the board lands on a wall cell, so move generation needs no bounds
/// checks.
///
/// ```
/// use stratego_rules::Square;
/// let sq: Square = "e4".parse().unwrap();
/// assert_eq!((sq.file(), sq.rank()), (4, 3));
/// assert_eq!(sq.to_string(), "e4");
/// assert!("k11x".parse::<Square>().is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The square at zero-based `file` and `rank`, or `None` past the largest board.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < MAX_SIDE && rank < MAX_SIDE { Some(Square(rank * 16 + file)) } else { None }
    }

    /// Zero-based file (`a` = 0).
    pub const fn file(self) -> u8 {
        self.0 & 15
    }

    /// Zero-based rank (`1` = 0).
    pub const fn rank(self) -> u8 {
        self.0 >> 4
    }

    /// The mailbox index (`rank * 16 + file`), always below 256.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The square with mailbox index `index`, if that index names a square.
    #[inline]
    pub const fn from_index(index: u8) -> Option<Square> {
        Square::new(index & 15, index >> 4)
    }

    /// The square at mailbox index `index`, unchecked. Move generation reaches only board
    /// squares and the wall cells around them; a candidate onto a wall cell is written but
    /// never kept.
    #[inline]
    pub(crate) const fn at(index: u8) -> Square {
        Square(index)
    }

    /// Writes the name (`e4`, `j10`) into `buf` and returns it, without formatting
    /// machinery (names are written for every piece of every turn).
    #[inline]
    pub fn write_name(self, buf: &mut [u8; 3]) -> &str {
        let (bytes, len) = self.name_bytes();
        *buf = bytes;
        std::str::from_utf8(&buf[..len]).expect("ASCII")
    }

    /// The name as ASCII bytes and its length (2 or 3), for writers that skip UTF-8 checks.
    #[inline]
    pub fn name_bytes(self) -> ([u8; 3], usize) {
        let r = self.rank() + 1;
        if r >= 10 { ([b'a' + self.file(), b'1', b'0' + (r - 10)], 3) } else { ([b'a' + self.file(), b'0' + r, 0], 2) }
    }

    /// Manhattan distance between two squares.
    pub fn distance(self, other: Square) -> u8 {
        self.file().abs_diff(other.file()) + self.rank().abs_diff(other.rank())
    }

    /// Whether the two squares share a side.
    pub fn is_adjacent(self, other: Square) -> bool {
        self.distance(other) == 1
    }
}

/// Error for a square name that does not parse; quotes the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid square name {0:?}: expected a file letter a-o and a rank 1-15, like \"e4\"")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError(s.to_owned());
        let bytes = s.as_bytes();
        let (&f, digits) = bytes.split_first().ok_or_else(err)?;
        if !f.is_ascii_lowercase() || digits.is_empty() || digits.len() > 2 {
            return Err(err());
        }
        if digits[0] == b'0' || !digits.iter().all(u8::is_ascii_digit) {
            return Err(err());
        }
        let rank: u8 = std::str::from_utf8(digits).ok().and_then(|d| d.parse().ok()).ok_or_else(err)?;
        Square::new(f - b'a', rank - 1).ok_or_else(err)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.write_name(&mut [0; 3]))
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for Square {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.write_name(&mut [0; 3]))
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_on_the_largest_board() {
        for rank in 0..MAX_SIDE {
            for file in 0..MAX_SIDE {
                let sq = Square::new(file, rank).unwrap();
                assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
            }
        }
        assert_eq!("j10".parse::<Square>().unwrap(), Square::new(9, 9).unwrap());
    }

    #[test]
    fn bad_names_are_rejected_with_the_input_quoted() {
        for bad in ["", "e", "e0", "E4", "p1", "a16", "a01", "4e", "e4 ", "é4", "a+1"] {
            let err = bad.parse::<Square>().unwrap_err();
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
        }
    }
}
