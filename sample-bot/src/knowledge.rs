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

/// The probability of each rank for an enemy piece: its known rank, or the unknown counts
/// (without Bombs and the Flag once it has moved).
pub fn distribution(piece: &ViewPiece, unknown: &PieceCounts) -> [f64; 12] {
    let mut p = [0.0; 12];
    if let Some(r) = piece.rank {
        p[r.index()] = 1.0;
        return p;
    }
    let mut total = 0.0;
    for r in Rank::ALL {
        if piece.moved && !r.is_mobile() {
            continue;
        }
        let n = f64::from(unknown[r]);
        p[r.index()] = n;
        total += n;
    }
    if total == 0.0 {
        // Inconsistent (free setups): fall back to a uniform guess over mobile ranks.
        for r in Rank::ALL.iter().filter(|r| r.is_mobile()) {
            p[r.index()] = 1.0 / 10.0;
        }
        return p;
    }
    for x in &mut p {
        *x /= total;
    }
    p
}
