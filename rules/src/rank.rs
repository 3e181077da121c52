//! Piece kinds, their strengths and per-kind counts.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::{Index, IndexMut};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A kind of piece. Strengths use the new numbering: Marshal 10 … Spy 1.
///
/// ```
/// use stratego_rules::Rank;
/// assert_eq!(Rank::Marshal.strength(), Some(10));
/// assert_eq!(Rank::Marshal.old_rank(), "1");
/// assert_eq!(Rank::Spy.code(), 'S');
/// assert_eq!("miner".parse::<Rank>().unwrap(), Rank::Miner);
/// assert!(!Rank::Bomb.is_mobile());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Rank {
    /// The Flag: immobile; capturing it wins.
    Flag = 0,
    /// The Spy (1): beats the Marshal when it attacks it.
    Spy = 1,
    /// The Scout (2): moves any distance in a straight line.
    Scout = 2,
    /// The Miner (3): defuses Bombs.
    Miner = 3,
    /// The Sergeant (4).
    Sergeant = 4,
    /// The Lieutenant (5).
    Lieutenant = 5,
    /// The Captain (6).
    Captain = 6,
    /// The Major (7).
    Major = 7,
    /// The Colonel (8).
    Colonel = 8,
    /// The General (9).
    General = 9,
    /// The Marshal (10).
    Marshal = 10,
    /// The Bomb: immobile; kills any attacker but a Miner.
    Bomb = 11,
}

impl Rank {
    /// All twelve kinds from the strongest down, then Bomb and Flag: the order pieces are
    /// listed in for people (captured pieces in the replay and the HTML viewer).
    pub const STRONGEST_FIRST: [Rank; 12] = [
        Rank::Marshal,
        Rank::General,
        Rank::Colonel,
        Rank::Major,
        Rank::Captain,
        Rank::Lieutenant,
        Rank::Sergeant,
        Rank::Miner,
        Rank::Scout,
        Rank::Spy,
        Rank::Bomb,
        Rank::Flag,
    ];

    /// All twelve kinds, Flag first, Bomb last.
    pub const ALL: [Rank; 12] = [
        Rank::Flag,
        Rank::Spy,
        Rank::Scout,
        Rank::Miner,
        Rank::Sergeant,
        Rank::Lieutenant,
        Rank::Captain,
        Rank::Major,
        Rank::Colonel,
        Rank::General,
        Rank::Marshal,
        Rank::Bomb,
    ];

    /// Index into [`Rank::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The rank with this index into [`Rank::ALL`].
    pub const fn from_index(i: usize) -> Option<Rank> {
        if i < 12 { Some(Rank::ALL[i]) } else { None }
    }

    /// Fighting strength in the new numbering (Spy 1 … Marshal 10); `None` for Bomb and Flag.
    pub const fn strength(self) -> Option<u8> {
        match self {
            Rank::Flag | Rank::Bomb => None,
            r => Some(r as u8),
        }
    }

    /// Whether the piece can move at all.
    pub const fn is_mobile(self) -> bool {
        !matches!(self, Rank::Flag | Rank::Bomb)
    }

    /// The lowercase English name used on the wire (`"marshal"`).
    pub const fn name(self) -> &'static str {
        match self {
            Rank::Flag => "flag",
            Rank::Spy => "spy",
            Rank::Scout => "scout",
            Rank::Miner => "miner",
            Rank::Sergeant => "sergeant",
            Rank::Lieutenant => "lieutenant",
            Rank::Captain => "captain",
            Rank::Major => "major",
            Rank::Colonel => "colonel",
            Rank::General => "general",
            Rank::Marshal => "marshal",
            Rank::Bomb => "bomb",
        }
    }

    /// One-character code used by the compact deployment text: `F`, `S`, `2`–`9`, `X`
    /// (Marshal, 10), `B`.
    pub const fn code(self) -> char {
        match self {
            Rank::Flag => 'F',
            Rank::Spy => 'S',
            Rank::Marshal => 'X',
            Rank::Bomb => 'B',
            r => (b'0' + r as u8) as char,
        }
    }

    /// The rank for a [`Rank::code`] character (also accepts `1` for the Spy and lowercase).
    pub fn from_code(c: char) -> Option<Rank> {
        Some(match c.to_ascii_uppercase() {
            'F' => Rank::Flag,
            'S' | '1' => Rank::Spy,
            'X' => Rank::Marshal,
            'B' => Rank::Bomb,
            d @ '2'..='9' => Rank::ALL[(d as u8 - b'0') as usize],
            _ => return None,
        })
    }

    /// The label in the old numbering printed by older editions: Marshal `1` … Scout `9`,
    /// Spy `S`, Bomb `B`, Flag `F`.
    pub const fn old_rank(self) -> &'static str {
        match self {
            Rank::Marshal => "1",
            Rank::General => "2",
            Rank::Colonel => "3",
            Rank::Major => "4",
            Rank::Captain => "5",
            Rank::Lieutenant => "6",
            Rank::Sergeant => "7",
            Rank::Miner => "8",
            Rank::Scout => "9",
            Rank::Spy => "S",
            Rank::Bomb => "B",
            Rank::Flag => "F",
        }
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown piece name; quotes the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown piece {0:?}: expected one of marshal, general, colonel, major, captain, lieutenant, sergeant, miner, scout, spy, bomb, flag"
)]
pub struct ParseRankError(pub String);

impl FromStr for Rank {
    type Err = ParseRankError;
    fn from_str(s: &str) -> Result<Rank, ParseRankError> {
        Rank::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(s)).ok_or_else(|| ParseRankError(s.to_owned()))
    }
}

impl Serialize for Rank {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Rank {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rank, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A count of pieces for each [`Rank`]. Serialises as a map from piece name to count,
/// leaving out zeros.
///
/// ```
/// use stratego_rules::{PieceCounts, Rank};
/// let classic = PieceCounts::classic();
/// assert_eq!(classic.total(), 40);
/// assert_eq!(classic[Rank::Scout], 8);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PieceCounts(pub [u16; 12]);

impl PieceCounts {
    /// The classic army of 40.
    pub const fn classic() -> PieceCounts {
        // Flag, Spy, Scout, Miner, Sergeant, Lieutenant, Captain, Major, Colonel, General, Marshal, Bomb
        PieceCounts([1, 1, 8, 5, 4, 4, 4, 3, 2, 1, 1, 6])
    }

    /// The Barrage army of 8: Marshal, General, Miner, 2 Scouts, Spy, Bomb, Flag.
    pub const fn barrage() -> PieceCounts {
        PieceCounts([1, 1, 2, 1, 0, 0, 0, 0, 0, 1, 1, 1])
    }

    /// Total number of pieces.
    pub fn total(&self) -> u32 {
        self.0.iter().map(|&n| u32::from(n)).sum()
    }

    /// Number of pieces that can move.
    pub fn mobile(&self) -> u32 {
        Rank::ALL.iter().filter(|r| r.is_mobile()).map(|&r| u32::from(self[r])).sum()
    }

    /// `(rank, count)` for every rank with a non-zero count, weakest first.
    pub fn iter(&self) -> impl Iterator<Item = (Rank, u16)> + '_ {
        Rank::ALL.into_iter().map(|r| (r, self[r])).filter(|&(_, n)| n > 0)
    }
}

impl Index<Rank> for PieceCounts {
    type Output = u16;
    fn index(&self, r: Rank) -> &u16 {
        &self.0[r.index()]
    }
}

impl IndexMut<Rank> for PieceCounts {
    fn index_mut(&mut self, r: Rank) -> &mut u16 {
        &mut self.0[r.index()]
    }
}

impl fmt::Debug for PieceCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter().map(|(r, n)| (r.name(), n))).finish()
    }
}

impl Serialize for PieceCounts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(Rank::ALL.iter().rev().filter(|&&r| self[r] > 0).map(|&r| (r.name(), self[r])))
    }
}

impl<'de> Deserialize<'de> for PieceCounts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PieceCounts, D::Error> {
        let map = BTreeMap::<String, u16>::deserialize(d)?;
        let mut counts = PieceCounts::default();
        for (name, n) in map {
            let r: Rank = name.parse().map_err(serde::de::Error::custom)?;
            counts[r] = n;
        }
        Ok(counts)
    }
}
