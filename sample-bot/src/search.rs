//! The search strategy: determinized Monte Carlo.
//!
//! For each of the heuristic's best few moves, the bot samples complete opponent setups
//! consistent with everything it has seen (revealed ranks, pieces that moved are neither
//! Bombs nor the Flag, the counts of pieces not yet seen; the Flag and the Bombs placed
//! where human players put them, the ranks of pieces that moved weighted by what their
//! moves showed), plays the move in each sampled
//! world, then plays a short greedy rollout for both sides, and scores the material and
//! any ending. A move's value is its mean over the worlds (the same worlds for every move)
//! plus the heuristic's own score of it (the rollouts see each world with full
//! information, which flatters risky moves; this prior halved the search's losses against
//! the heuristic), plus a little seeded noise. It stops when 70 % of the move's time less
//! 3 ms is used, or after `--worlds N` worlds for exactly reproducible play.
//!
//! After 20 plies without a fight it takes the initiative: its cheap pieces (Scouts,
//! Sergeants, Lieutenants) are urged towards the nearest unknown enemy piece and to attack
//! it, more the longer the quiet lasts. Without this, neither side attacks what it cannot
//! see and a fifth of the games against the heuristic ended as ply-limit draws with most
//! pieces still on the board.

use std::time::{Duration, Instant};

use stratego_protocol::{Rng, Turn};
use stratego_rules::{ByColor, Color, Combat, CombatResult, Game, Move, PositionPiece, Rank, Ruleset};

use crate::heuristic::{ranked_quiet, value};
use crate::knowledge::{Evidence, SetupPrior, unknown_counts};

/// Search settings.
#[derive(Clone, Copy, Debug)]
pub struct SearchConfig {
    /// Candidate moves (the heuristic's best).
    pub candidates: usize,
    /// Rollout length in plies.
    pub depth: u32,
    /// Fixed number of worlds (reproducible); `None`: as many as the time allows.
    pub worlds: Option<u32>,
    /// Share of the move's time to use.
    pub time_share: f64,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig { candidates: 6, depth: 10, worlds: None, time_share: 0.7 }
    }
}

/// Weight of the heuristic's score of a move beside the mean of its rollouts.
const PRIOR_WEIGHT: f64 = 1.0;

/// Random spread added to each candidate's value: with many worlds the means are exact
/// and play turns repetitive, drawing won games at the ply limit.
const NOISE: f64 = 30.0;

/// Samples one full-information world consistent with the turn.
pub(crate) fn sample_world(rules: &Ruleset, turn: &Turn, rng: &mut Rng, evidence: &Evidence) -> Option<Game> {
    let me = turn.color;
    let mut pool: Vec<Rank> =
        unknown_counts(rules, turn).iter().flat_map(|(r, n)| std::iter::repeat_n(r, usize::from(n))).collect();
    let mut pieces = Vec::with_capacity(turn.pieces.len());
    let mut unknown_moved = Vec::new();
    let mut unknown_still = Vec::new();
    for p in &turn.pieces {
        match p.rank {
            Some(rank) => pieces.push(PositionPiece {
                square: p.square,
                color: p.color,
                rank,
                moved: p.moved,
                revealed: p.revealed,
            }),
            None if p.moved => unknown_moved.push(p),
            None => unknown_still.push(p),
        }
    }
    // Moved pieces take mobile ranks first, then the rest is dealt to unmoved pieces.
    for p in unknown_moved {
        // Weighted by what the piece's moves showed.
        let f = evidence.factors(p.origin);
        let weights: Vec<f64> = pool.iter().map(|r| if r.is_mobile() { f[r.index()] } else { 0.0 }).collect();
        let i = crate::setup::weighted(&weights, rng)?;
        let rank = pool.swap_remove(i);
        pieces.push(PositionPiece { square: p.square, color: p.color, rank, moved: true, revealed: false });
    }
    // The Flag and the Bombs go where human players put them (the Gravon table: the Flag
    // mostly on the back rank, the Bombs around it), the rest at random.
    let prior = SetupPrior::new(rules, me);
    let mut still: Vec<Option<Rank>> = vec![None; unknown_still.len()];
    let mut flag_origin = None;
    for rank in [Rank::Flag, Rank::Bomb] {
        while let Some(i) = pool.iter().position(|&r| r == rank) {
            let weights: Vec<f64> = unknown_still
                .iter()
                .zip(&still)
                .map(|(p, r)| match (r, flag_origin) {
                    (Some(_), _) => 0.0,
                    (None, Some(f)) if rank == Rank::Bomb => prior.bomb_weight_given_flag(p.origin, f),
                    (None, _) => prior.weight(rank, p.origin),
                })
                .collect();
            let j = crate::setup::weighted(&weights, rng)?;
            still[j] = Some(pool.swap_remove(i));
            if rank == Rank::Flag {
                flag_origin = Some(unknown_still[j].origin);
            }
        }
    }
    for (p, r) in unknown_still.into_iter().zip(still) {
        let rank = match r {
            Some(r) => r,
            None if pool.is_empty() => return None,
            None => pool.swap_remove(rng.below(pool.len())),
        };
        pieces.push(PositionPiece { square: p.square, color: p.color, rank, moved: false, revealed: false });
    }
    Game::from_position(rules.clone(), &pieces, turn.color, turn.ply, turn.captured.unwrap_or_default()).ok()
}

/// Material of `color` minus the opponent's, with the ending counted big.
pub(crate) fn evaluate(game: &Game, color: Color) -> f64 {
    if let Some(o) = game.outcome() {
        return match o.winner {
            Some(w) if w == color => 5_000.0,
            Some(_) => -5_000.0,
            None => 0.0,
        };
    }
    let mut score = 0.0;
    let mut miners: ByColor<u32> = ByColor::default();
    let mut movable: ByColor<u32> = ByColor::default();
    for (_, c, r) in game.board_pieces() {
        if r == Rank::Flag {
            continue;
        }
        let v = value(r);
        score += if c == color { v } else { -v };
        if r == Rank::Miner {
            miners[c] += 1;
        }
        if r.is_mobile() {
            movable[c] += 1;
        }
    }
    // A side with few movable pieces is close to losing by having no move: every mobile
    // piece taken from a thin army counts extra, which turns a material lead into a win
    // instead of a ply-limit draw.
    for c in Color::ALL {
        let thin = 40.0 * f64::from(8u32.saturating_sub(movable[c]));
        score += if c == color { -thin } else { thin };
    }
    // The last Miners are worth more: without them a bombed Flag cannot be taken.
    for c in Color::ALL {
        let bonus = match miners[c] {
            0 => 0.0,
            1 => 120.0,
            2 => 60.0,
            _ => 0.0,
        };
        score += if c == color { bonus } else { -bonus };
    }
    score
}

/// The greedy full-information rollout policy: the best winning capture, else a random
/// move that does not lose its piece.
fn rollout_move(game: &Game, moves: &[Move], rng: &mut Rng) -> Move {
    let mut best: Option<(f64, Move)> = None;
    let mut safe = Vec::with_capacity(moves.len());
    for &m in moves {
        let Some((_, mine)) = game.piece_at(m.from) else { continue };
        match game.piece_at(m.to) {
            Some((_, theirs)) => {
                let c = Combat::resolve(mine, theirs);
                let gain = match c.result {
                    CombatResult::AttackerWins if theirs == Rank::Flag => 100_000.0,
                    CombatResult::AttackerWins => value(theirs),
                    CombatResult::BothRemoved => value(theirs) - value(mine) + 1.0,
                    CombatResult::DefenderWins => continue,
                };
                if best.is_none_or(|(b, _)| gain > b) {
                    best = Some((gain, m));
                }
            }
            None => safe.push(m),
        }
    }
    if let Some((g, m)) = best {
        if g > 0.0 || safe.is_empty() {
            return m;
        }
    }
    *rng.choose(if safe.is_empty() { moves } else { &safe }).expect("a game not over has moves")
}

/// Chooses a move within the move's time; `quiet` is the number of plies since the last
/// fight.
pub fn choose(
    rules: &Ruleset,
    turn: &Turn,
    rng: &mut Rng,
    config: &SearchConfig,
    quiet: u32,
    evidence: &Evidence,
) -> Move {
    let started = Instant::now();
    let ranked = ranked_quiet(rules, turn, rng, evidence, quiet);
    let (prior, candidates): (Vec<f64>, Vec<Move>) = ranked.iter().take(config.candidates).copied().unzip();
    if candidates.len() == 1 {
        return candidates[0];
    }
    // Use most of the move's time, keeping a margin for the last world, writing the answer
    // and the operating system (the clock starts when the turn has been read).
    let move_time = Duration::from_millis(turn.clock.move_ms);
    let budget = move_time.mul_f64(config.time_share).saturating_sub(Duration::from_millis(3));
    let mut totals = vec![0.0; candidates.len()];
    let mut worlds = 0u32;
    let mut buf = Vec::with_capacity(128);
    loop {
        match config.worlds {
            Some(n) if worlds >= n => break,
            None if worlds > 0 && started.elapsed() >= budget => break,
            _ => {}
        }
        let Some(world) = sample_world(rules, turn, rng, evidence) else { break };
        worlds += 1;
        for (i, &m) in candidates.iter().enumerate() {
            let mut g = world.clone();
            if g.check_move(m).is_err() {
                totals[i] -= 10_000.0;
                continue;
            }
            g.play_unchecked(m);
            for _ in 0..config.depth {
                if g.is_over() {
                    break;
                }
                g.legal_moves(&mut buf);
                let mv = rollout_move(&g, &buf, rng);
                g.play_unchecked(mv);
            }
            totals[i] += evaluate(&g, turn.color);
        }
    }
    if worlds == 0 {
        return candidates[0];
    }
    // Ties go to the heuristic's order (earlier candidates first).
    // The rollouts' mean, plus the heuristic's own score as a prior: the rollouts see each
    // sampled world with full information, which makes risky moves look better than they are.
    let noise: Vec<f64> = (0..candidates.len()).map(|_| rng.unit() * NOISE).collect();
    let value = |i: usize| totals[i] / f64::from(worlds) + PRIOR_WEIGHT * prior[i] + noise[i];
    let mut best = 0;
    for i in 1..candidates.len() {
        if value(i) > value(best) + 1e-9 {
            best = i;
        }
    }
    candidates[best]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heuristic::{QUIET_PLIES, probe_bonus};
    use stratego_rules::Square;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// Red to move: a Sergeant (a4) faces an unknown piece (a5), a Marshal (e4) faces an
    /// unknown piece (e5), a Lieutenant (j4) faces a revealed Scout (j5), a Scout stands
    /// alone on b1.
    fn turn() -> Turn {
        let piece =
            |s: &str, color, rank, revealed| PositionPiece { square: sq(s), color, rank, moved: false, revealed };
        let pieces = [
            piece("a4", Color::Red, Rank::Sergeant, false),
            piece("e4", Color::Red, Rank::Marshal, false),
            piece("j4", Color::Red, Rank::Lieutenant, false),
            piece("b1", Color::Red, Rank::Scout, false),
            piece("i1", Color::Red, Rank::Flag, false),
            piece("a5", Color::Blue, Rank::Captain, false),
            piece("e5", Color::Blue, Rank::Bomb, false),
            piece("j5", Color::Blue, Rank::Scout, true),
            piece("j10", Color::Blue, Rank::Flag, false),
        ];
        let game = Game::from_position(Ruleset::classic(), &pieces, Color::Red, 100, ByColor::default()).unwrap();
        let mut legal_moves = Vec::new();
        game.legal_moves(&mut legal_moves);
        crate::tests::turn_of(&game, 0, legal_moves)
    }

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    #[test]
    fn cheap_pieces_probe_unknown_pieces_only_after_a_quiet_stretch() {
        let t = turn();
        for m in ["a4-a5", "e4-e5", "j4-j5", "b1-b2"] {
            assert!(t.legal_moves.contains(&mv(m)), "{m} is legal");
            assert_eq!(probe_bonus(&t, mv(m), QUIET_PLIES - 1), 0.0, "{m} before the quiet stretch");
        }
        let quiet = QUIET_PLIES + 30;
        // A Sergeant attacking an unknown piece: yes; the Marshal: no; a known target: no.
        assert!(probe_bonus(&t, mv("a4-a5"), quiet) > 0.0);
        assert_eq!(probe_bonus(&t, mv("e4-e5"), quiet), 0.0);
        assert_eq!(probe_bonus(&t, mv("j4-j5"), quiet), 0.0);
        // The urge grows with the stretch, up to a cap.
        assert!(probe_bonus(&t, mv("a4-a5"), quiet + 10) > probe_bonus(&t, mv("a4-a5"), quiet));
        assert_eq!(probe_bonus(&t, mv("a4-a5"), 10_000), probe_bonus(&t, mv("a4-a5"), 20_000));
        // Quiet moves: towards an unknown piece earns a little, away from it costs a little.
        assert!(probe_bonus(&t, mv("b1-b2"), quiet) > 0.0);
        assert!(probe_bonus(&t, mv("a4-b4"), quiet) < 0.0);
        assert!(probe_bonus(&t, mv("a4-a5"), quiet) > probe_bonus(&t, mv("b1-b2"), quiet));
    }
}
