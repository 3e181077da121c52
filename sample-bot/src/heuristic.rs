//! The heuristic strategy: score every legal move by what is known of the pieces involved.
//!
//! - An attack is worth its expected material gain over the possible ranks of the target
//!   (known rank, or the remaining unknown pieces; a piece that moved is no Bomb or Flag).
//! - A quiet move is worth a little progress towards the enemy, less the expected loss if
//!   an adjacent enemy piece attacks it next, plus the danger it escapes.
//! - Ties are broken at random (seeded), so play is varied but reproducible.

use stratego_protocol::{Rng, Turn};
use stratego_rules::{Color, Combat, CombatResult, Move, PieceCounts, Rank, Ruleset, Square, ViewPiece};

use crate::knowledge::{distribution, unknown_counts};

/// Material value of a rank.
pub fn value(r: Rank) -> f64 {
    match r {
        Rank::Flag => 10_000.0,
        Rank::Marshal => 400.0,
        Rank::General => 300.0,
        Rank::Colonel => 175.0,
        Rank::Major => 140.0,
        Rank::Captain => 100.0,
        Rank::Lieutenant => 50.0,
        Rank::Sergeant => 30.0,
        Rank::Miner => 60.0,
        Rank::Scout => 20.0,
        Rank::Spy => 120.0,
        Rank::Bomb => 40.0,
    }
}

fn fight_value(attacker: Rank, defender: Rank) -> f64 {
    match Combat::resolve(attacker, defender).result {
        CombatResult::AttackerWins => value(defender),
        CombatResult::DefenderWins => -value(attacker),
        CombatResult::BothRemoved => value(defender) - value(attacker),
    }
}

/// Expected gain for the attacker when `attacker` attacks a piece with rank distribution `p`.
fn expected_attack(attacker: Rank, p: &[f64; 12]) -> f64 {
    Rank::ALL.iter().map(|&r| p[r.index()] * fight_value(attacker, r)).sum()
}

/// Expected loss when an enemy piece with distribution `p` attacks our `defender`.
fn expected_threat(defender: Rank, p: &[f64; 12]) -> f64 {
    Rank::ALL
        .iter()
        .filter(|r| r.is_mobile())
        .map(|&r| p[r.index()] * (-fight_value(r, defender)).max(0.0).min(value(defender)))
        .sum()
}

fn neighbours(sq: Square) -> impl Iterator<Item = Square> {
    let (f, r) = (sq.file() as i16, sq.rank() as i16);
    [(f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1)]
        .into_iter()
        .filter(|&(f, r)| f >= 0 && r >= 0)
        .filter_map(|(f, r)| Square::new(f as u8, r as u8))
}

struct Position<'a> {
    turn: &'a Turn,
    unknown: PieceCounts,
}

impl Position<'_> {
    fn at(&self, sq: Square) -> Option<&ViewPiece> {
        self.turn.pieces.binary_search_by_key(&sq, |p| p.square).ok().map(|i| &self.turn.pieces[i])
    }

    /// Expected loss of our `rank` standing on `sq` (ignoring the square `ignore`, which we
    /// are leaving or capturing).
    fn danger(&self, rank: Rank, sq: Square, ignore: Square) -> f64 {
        neighbours(sq)
            .filter(|&n| n != ignore)
            .filter_map(|n| self.at(n))
            .filter(|p| p.color != self.turn.color)
            .map(|p| {
                let d = distribution(p, &self.unknown);
                // An unmoved unknown piece rarely attacks: weigh it down.
                let w = if p.rank.is_none() && !p.moved { 0.35 } else { 0.8 };
                w * expected_threat(rank, &d)
            })
            .fold(0.0, f64::max)
    }
}

/// Picks the move with the best score.
pub fn choose(rules: &Ruleset, turn: &Turn, rng: &mut Rng) -> Move {
    let pos = Position { turn, unknown: unknown_counts(rules, turn) };
    let forward: i16 = if turn.color == Color::Red { 1 } else { -1 };
    let mut best = turn.legal_moves[0];
    let mut best_score = f64::NEG_INFINITY;
    for &m in &turn.legal_moves {
        let Some(mine) = pos.at(m.from) else { continue };
        let Some(rank) = mine.rank else { continue };
        let mut score = rng.unit() * 2.0; // tie-break
        match pos.at(m.to) {
            Some(target) => {
                let d = distribution(target, &pos.unknown);
                score += expected_attack(rank, &d);
                // A winner stays on the square: account for the danger there.
                if d[Rank::Flag.index()] < 0.99 {
                    score -= 0.5 * pos.danger(rank, m.to, m.to);
                }
                // Unknown, unmoved targets may be Bombs: keep valuable pieces away.
                if target.rank.is_none() && !target.moved && rank != Rank::Miner {
                    score -= 0.1 * value(rank);
                }
            }
            None => {
                let progress = (m.to.rank() as i16 - m.from.rank() as i16) * forward;
                score += 3.0 * f64::from(progress.signum());
                score -= pos.danger(rank, m.to, m.from);
                score += 0.9 * pos.danger(rank, m.from, m.to);
                if rank == Rank::Scout && m.from.distance(m.to) > 1 {
                    score -= 5.0; // a long move reveals the Scout
                }
                if matches!(rank, Rank::Marshal | Rank::General) && mine.revealed {
                    score -= 1.0;
                }
            }
        }
        if score > best_score {
            best_score = score;
            best = m;
        }
    }
    best
}
