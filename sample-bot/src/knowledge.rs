//! What the bot can infer about each enemy piece from a turn's view.

use stratego_protocol::Turn;
use stratego_rules::{Color, PieceCounts, Rank, Ruleset, Square, ViewPiece};

use crate::setup_table::MARGINAL;

/// How likely a piece of each rank is to start on `sq` of `owner`'s classic 4x10 setup
/// area, relative to a uniform spread (1.0), from the Gravon setups; `None` for other
/// board shapes.
pub fn placement_prior(rules: &Ruleset, owner: Color, sq: Square) -> Option<[f64; 12]> {
    let [lo, hi] = rules.spec().setup_ranks[owner];
    if rules.width() != 10 || hi - lo != 3 || !rules.in_setup_area(owner, sq) {
        return None;
    }
    let depth = match owner {
        Color::Red => sq.rank() + 1 - lo,
        Color::Blue => hi - 1 - sq.rank(),
    };
    let file = match owner {
        Color::Red => sq.file(),
        Color::Blue => 9 - sq.file(),
    };
    let i = usize::from(depth) * 10 + usize::from(file);
    let mut out = [1.0; 12];
    for r in Rank::ALL {
        let row = &MARGINAL[r.index()];
        let total: u32 = row.iter().sum();
        if total > 0 {
            out[r.index()] = (f64::from(row[i]) + 1.0) * 40.0 / (f64::from(total) + 40.0);
        }
    }
    Some(out)
}

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
    distribution_with_prior(piece, unknown, None)
}

/// [`distribution`], weighted by where human players put each rank (for an unmoved piece
/// still on its starting square).
pub fn distribution_with_prior(piece: &ViewPiece, unknown: &PieceCounts, prior: Option<&[f64; 12]>) -> [f64; 12] {
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
        let mut n = f64::from(unknown[r]);
        if let (Some(w), false) = (prior, piece.moved) {
            n *= w[r.index()];
        }
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
