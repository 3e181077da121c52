//! State for the repetition rules: the two-square rule and the more-squares (chasing) rule.

use crate::{Color, Move, Square};

/// One player's current shuttle: a piece moving back and forth.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Shuttle {
    /// Piece id, 0 for none.
    pub piece: u8,
    /// The squares of the shuttle's first move (its stretch, for Scouts with `scout_path`).
    pub a: Option<Square>,
    pub b: Option<Square>,
    /// Moves made in a row within the shuttle.
    pub count: u8,
}

impl Shuttle {
    /// Whether `mv` (by this shuttle's piece) continues the shuttle.
    #[inline]
    pub fn continues(&self, mv: Move, scout_path: bool) -> bool {
        let (Some(a), Some(b)) = (self.a, self.b) else { return false };
        if !scout_path {
            return (mv.from == a && mv.to == b) || (mv.from == b && mv.to == a);
        }
        let within = |sq: Square| {
            if a.file() == b.file() {
                sq.file() == a.file() && (a.rank().min(b.rank())..=a.rank().max(b.rank())).contains(&sq.rank())
            } else {
                sq.rank() == a.rank() && (a.file().min(b.file())..=a.file().max(b.file())).contains(&sq.file())
            }
        };
        within(mv.from) && within(mv.to)
    }

    /// Records a move by this player (any piece).
    #[inline]
    pub fn record(&mut self, piece: u8, mv: Move, scout_path: bool) {
        if self.piece == piece && self.continues(mv, scout_path) {
            self.count = self.count.saturating_add(1);
        } else {
            *self = Shuttle { piece, a: Some(mv.from), b: Some(mv.to), count: 1 };
        }
    }
}

/// A chase in progress (more-squares rule).
#[derive(Clone, Debug)]
pub(crate) struct Chase {
    pub chaser: Color,
    /// The chasing piece.
    pub piece: u8,
    /// The chased piece.
    pub target: u8,
    /// Where the chasing piece came from on its previous move: moving back there is allowed.
    pub came_from: Square,
    /// Positions (identity hashes) seen during the chase.
    pub positions: Vec<u64>,
}

/// The previous ply, kept to detect the start of a chase.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LastMove {
    pub color: Color,
    pub piece: u8,
    pub from: Square,
    pub hash_after: u64,
}

/// Hash key toggled by every ply (side to move).
pub(crate) const SIDE_KEY: u64 = 0x9E37_79B9_7F4A_7C15;

/// Identity hash key of piece `id` standing on `sq` (SplitMix64 finaliser).
#[inline]
pub(crate) fn zobrist(id: u8, sq: Square) -> u64 {
    let mut z = ((id as u64) << 8 | sq.index() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
