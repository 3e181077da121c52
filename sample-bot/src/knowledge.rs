//! What the bot can infer about each enemy piece from a turn's view.

use stratego_protocol::Turn;
use stratego_rules::{PieceCounts, Rank, Ruleset, ViewPiece};

/// Unrevealed enemy pieces by rank: the army less captured pieces less pieces whose rank
/// is known on the board.
pub fn unknown_counts(rules: &Ruleset, turn: &Turn) -> PieceCounts {
    let enemy = !turn.color;
    let mut counts = *rules.pieces();
    let captured = turn.captured.unwrap_or_default();
    for r in Rank::ALL {
        counts[r] = counts[r].saturating_sub(captured[enemy][r]);
    }
    for p in turn.pieces.iter().filter(|p| p.color == enemy) {
        if let Some(r) = p.rank {
            counts[r] = counts[r].saturating_sub(1);
        }
    }
    counts
}

/// What is known of the enemy's unrevealed pieces, for rank distributions.
#[derive(Clone, Debug)]
pub struct Knowledge {
    /// Unrevealed enemy pieces by rank.
    pub unknown: PieceCounts,
    /// Unrevealed enemy pieces that never moved: the Bombs and the Flag are all among them.
    pub unmoved: u32,
}

impl Knowledge {
    /// Reads what the turn tells about the enemy.
    pub fn new(rules: &Ruleset, turn: &Turn) -> Knowledge {
        let unmoved = turn.pieces.iter().filter(|p| p.color != turn.color && p.rank.is_none() && !p.moved).count();
        Knowledge { unknown: unknown_counts(rules, turn), unmoved: unmoved as u32 }
    }

    /// The probability of each rank for an enemy piece: its known rank; for a piece that
    /// moved, the unseen mobile ranks in proportion; for one that never moved, the unseen
    /// Bombs and Flag spread over the unmoved pieces only (they cannot be anywhere else),
    /// and the rest shared by the unseen mobile ranks.
    pub fn distribution(&self, piece: &ViewPiece) -> [f64; 12] {
        let mut p = [0.0; 12];
        if let Some(r) = piece.rank {
            p[r.index()] = 1.0;
            return p;
        }
        let mobile: f64 = Rank::ALL.iter().filter(|r| r.is_mobile()).map(|&r| f64::from(self.unknown[r])).sum();
        let immobile: f64 = Rank::ALL.iter().filter(|r| !r.is_mobile()).map(|&r| f64::from(self.unknown[r])).sum();
        let unmoved = f64::from(self.unmoved);
        // Share of the piece's probability that goes to Bombs and the Flag.
        let mut still = if piece.moved || unmoved == 0.0 { 0.0 } else { (immobile / unmoved).min(1.0) };
        if mobile == 0.0 {
            if immobile == 0.0 || piece.moved {
                // Inconsistent (free setups): a uniform guess over mobile ranks.
                for r in Rank::ALL.iter().filter(|r| r.is_mobile()) {
                    p[r.index()] = 1.0 / 10.0;
                }
                return p;
            }
            // No unseen mobile piece is left: an unmoved piece is a Bomb or the Flag.
            still = 1.0;
        }
        for r in Rank::ALL {
            let n = f64::from(self.unknown[r]);
            p[r.index()] = if r.is_mobile() {
                if mobile > 0.0 { (1.0 - still) * n / mobile } else { 0.0 }
            } else if immobile > 0.0 {
                still * n / immobile
            } else {
                0.0
            };
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratego_rules::{Color, Square};

    fn piece(moved: bool) -> ViewPiece {
        ViewPiece {
            square: Square::new(0, 9).unwrap(),
            color: Color::Blue,
            rank: None,
            moved,
            revealed: false,
            origin: Square::new(0, 9).unwrap(),
        }
    }

    #[test]
    fn bombs_and_flag_are_shared_by_the_unmoved_pieces_only() {
        let mut unknown = PieceCounts::default();
        unknown[Rank::Bomb] = 6;
        unknown[Rank::Flag] = 1;
        unknown[Rank::Miner] = 2;
        unknown[Rank::Scout] = 1;
        // Ten unknown pieces, seven of which never moved: those seven are the six Bombs and
        // the Flag, and the three that moved are the Miners and the Scout.
        let k = Knowledge { unknown, unmoved: 7 };
        let still = k.distribution(&piece(false));
        assert!((still[Rank::Bomb.index()] - 6.0 / 7.0).abs() < 1e-9);
        assert!((still[Rank::Flag.index()] - 1.0 / 7.0).abs() < 1e-9);
        assert!(still[Rank::Miner.index()].abs() < 1e-9);
        let moved = k.distribution(&piece(true));
        assert!((moved[Rank::Miner.index()] - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(moved[Rank::Bomb.index()], 0.0);
        // More unmoved pieces than Bombs and Flag: the rest is mobile in proportion.
        let k = Knowledge { unknown, unmoved: 14 };
        let still = k.distribution(&piece(false));
        assert!((still[Rank::Bomb.index()] - 6.0 / 14.0).abs() < 1e-9);
        assert!((still[Rank::Scout.index()] - 0.5 / 3.0).abs() < 1e-9);
        assert!((still.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}
