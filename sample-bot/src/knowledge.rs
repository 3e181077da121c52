//! What the bot can infer about each enemy piece from a turn's view.

use stratego_protocol::Turn;
use stratego_rules::{Color, Combat, CombatResult, PieceCounts, Rank, Ruleset, Square, ViewPiece};

use crate::setup::{classic_area, table_index};
use crate::setup_table::{BOMBS_BY_FLAG, MARGINAL};

/// Where human players put their Flag and Bombs: weights of each enemy start square, from
/// the 160,951 Gravon setups (most Flags on the back rank, most Bombs around the Flag).
#[derive(Clone, Debug)]
pub struct SetupPrior {
    rules_ok: bool,
    color: Color,
    rules: Ruleset,
}

impl SetupPrior {
    /// The prior for the enemy of `me` (uniform when the setup area is not the classic
    /// 4 x 10 the table describes).
    pub fn new(rules: &Ruleset, me: Color) -> SetupPrior {
        let color = !me;
        SetupPrior { rules_ok: classic_area(rules, color), color, rules: rules.clone() }
    }

    /// The table index of an enemy start square, if the table covers it.
    pub fn index(&self, origin: Square) -> Option<usize> {
        (self.rules_ok && self.rules.in_setup_area(self.color, origin))
            .then(|| table_index(&self.rules, self.color, origin))
    }

    /// Relative weight of `rank` starting on `origin` (1 without a table).
    pub fn weight(&self, rank: Rank, origin: Square) -> f64 {
        self.index(origin).map_or(1.0, |t| f64::from(MARGINAL[rank.index()][t]) + 1.0)
    }

    /// How much likelier `rank` is on `origin` than on an average square of the area.
    pub fn ratio(&self, rank: Rank, origin: Square) -> f64 {
        self.index(origin).map_or(1.0, |t| {
            let row = &MARGINAL[rank.index()];
            let mean = row.iter().map(|&n| f64::from(n)).sum::<f64>() / 40.0;
            (f64::from(row[t]) + 1.0) / (mean + 1.0)
        })
    }

    /// Relative weight of a Bomb on `origin` given the Flag started on `flag`.
    pub fn bomb_weight_given_flag(&self, origin: Square, flag: Square) -> f64 {
        match (self.index(origin), self.index(flag)) {
            (Some(t), Some(f)) => f64::from(BOMBS_BY_FLAG[f][t]) + 1.0,
            _ => self.weight(Rank::Bomb, origin),
        }
    }
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

/// What an enemy piece's moves suggest about its rank, kept across the turns of a game:
/// likelihood factors per rank for each enemy piece (by its start square, the stable label
/// the protocol gives every piece).
///
/// A piece that steps next to one of our pieces whose rank it knows most likely beats it
/// (players rarely walk into a known stronger piece): the ranks that beat ours gain weight,
/// the others lose some (bluffs happen). A piece that steps next to an unknown piece of
/// ours is more likely one of the stronger ranks. Weaker evidence the same way: a piece
/// that closes in on a known piece of ours from a few squares away ([`APPROACH_FACTOR`]),
/// and a piece next to a known piece of ours that steps away from it ([`RETREAT_FACTOR`]:
/// it most likely does not beat it).
#[derive(Clone, Debug)]
pub struct Evidence {
    game_id: String,
    factors: std::collections::HashMap<Square, [f64; 12]>,
    /// How the bot defends a Flag that hides behind Bombs (kept across games).
    pub defence: FlagDefence,
    /// The power the likelihood factors are raised to when read ([`Evidence::factors`]):
    /// 1 (the default) as gathered, below 1 tempered towards no evidence (0: none).
    /// Issue #46's eighth round: replayed over base's 80 games against Demon of Ignorance,
    /// the factors as gathered made the beliefs overconfident (moved pieces believed under
    /// 1 % Miners were Miners 7 % of the time; those believed over 90 % were Miners 17 %
    /// of the time). Measured at 0.5 in that round without a gain (7 of 40 games against 9
    /// for base beside it).
    pub power: f64,
}

impl Default for Evidence {
    fn default() -> Evidence {
        Evidence { game_id: String::new(), factors: Default::default(), defence: FlagDefence::default(), power: 1.0 }
    }
}

/// How the bot defends its Flag while Bombs close its sides (issue #46, round 7): the
/// setups put the Flag on the back rank behind Bombs, and Demon of Ignorance's Miners took
/// it through them in most of the games it won.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlagDefence {
    /// Likelihood factor for the Miner when an unknown enemy piece steps closer to a Bomb
    /// beside our Flag, within [`MINER_SQUARES`] of it (1: no such evidence, the default);
    /// such a step then says nothing of the known pieces of ours it passes. Tried at
    /// [`MINER_APPROACH_FACTOR`].
    pub miner_approach: f64,
    /// What removing a Miner next to a Bomb beside our Flag is worth on top of its material,
    /// less by a [`MINER_SQUARES`]th a step farther (0: nothing, the default). Used by the
    /// heuristic ([`crate::heuristic`]) to meet likely Miners before they reach the Bombs.
    /// Tried at [`MINER_THREAT`].
    pub miner_threat: f64,
    /// How many of our pieces that beat a Miner (the nearest) go to the gate the likeliest
    /// Miner near our Flag's Bombs makes for: the square beside one of those Bombs it
    /// reaches first (0: none, the default). A Miner that takes a Bomb beside our Flag
    /// takes the Flag next move unless a piece of ours stands by to take it first. Tried at
    /// [`GATE_GUARDS`].
    pub gate_guards: u8,
}

/// Off by default ([`FlagDefence::OFF`]): measured in issue #46's round 7 without a gain
/// against Demon of Ignorance (BENCHMARKS.md).
impl Default for FlagDefence {
    fn default() -> FlagDefence {
        FlagDefence::OFF
    }
}

impl FlagDefence {
    /// No Miner evidence and no Miner threat: the play of issue #46's rounds 5 and 6.
    pub const OFF: FlagDefence = FlagDefence { miner_approach: 1.0, miner_threat: 0.0, gate_guards: 0 };

    /// The settings tried in round 7 (`--miner-approach 1.5 --miner-threat 200
    /// --gate-guards 1`).
    pub const TRIED: FlagDefence =
        FlagDefence { miner_approach: MINER_APPROACH_FACTOR, miner_threat: MINER_THREAT, gate_guards: GATE_GUARDS };
}

/// How far (in steps) from a Bomb beside our Flag an enemy piece counts as a possible Miner
/// on its way ([`FlagDefence`]).
pub const MINER_SQUARES: u8 = 4;

/// [`FlagDefence::miner_approach`] as tried ([`FlagDefence::TRIED`]).
pub const MINER_APPROACH_FACTOR: f64 = 1.5;

/// [`FlagDefence::gate_guards`] as tried ([`FlagDefence::TRIED`]).
pub const GATE_GUARDS: u8 = 1;

/// [`FlagDefence::miner_threat`] as tried ([`FlagDefence::TRIED`]).
pub const MINER_THREAT: f64 = 200.0;

/// Our Bombs beside our Flag in a turn's view (none if the Flag is gone or unbombed).
pub fn flag_bombs(turn: &Turn) -> Vec<Square> {
    let ours = |p: &&ViewPiece, r: Rank| p.color == turn.color && p.rank == Some(r);
    let Some(flag) = turn.pieces.iter().find(|p| ours(p, Rank::Flag)) else { return Vec::new() };
    turn.pieces.iter().filter(|p| ours(p, Rank::Bomb) && p.square.is_adjacent(flag.square)).map(|p| p.square).collect()
}

/// Steps from `sq` to the nearest of `bombs` (`u8::MAX` if there is none).
pub fn steps_to(bombs: &[Square], sq: Square) -> u8 {
    bombs.iter().map(|b| b.distance(sq)).min().unwrap_or(u8::MAX)
}

impl Evidence {
    /// Evidence with these Flag defence settings.
    pub fn with_defence(defence: FlagDefence) -> Evidence {
        Evidence { defence, ..Evidence::default() }
    }

    /// Takes in the plies a turn reports (the opponent's moves since our last turn).
    pub fn update(&mut self, turn: &Turn) {
        if self.game_id != turn.game_id {
            *self = Evidence {
                game_id: turn.game_id.clone(),
                factors: Default::default(),
                defence: self.defence,
                power: self.power,
            };
        }
        let at = |sq: Square| turn.pieces.binary_search_by_key(&sq, |p| p.square).ok().map(|i| &turn.pieces[i]);
        let bombs = if self.defence.miner_approach != 1.0 { flag_bombs(turn) } else { Vec::new() };
        for ply in turn.plies.iter().filter(|p| p.color != turn.color && p.combat.is_none()) {
            let Some(theirs) = at(ply.mv.to).filter(|p| p.color != turn.color && p.rank.is_none()) else {
                continue;
            };
            let mut f = [1.0; 12];
            // Closing in on the Bombs that hide our Flag: most likely a Miner on its way. Its
            // route explains the step, so it says nothing of the known pieces of ours it
            // passes (Demon of Ignorance walks its Miners past them: counted as evidence,
            // they made its Miner a likely Colonel or Marshal, which our pieces fled).
            let (before, after) = (steps_to(&bombs, ply.mv.from), steps_to(&bombs, ply.mv.to));
            let miner_route = after <= MINER_SQUARES && after < before && ply.mv.from.distance(ply.mv.to) == 1;
            if miner_route {
                f[Rank::Miner.index()] *= self.defence.miner_approach;
            }
            for n in turn.pieces.iter().filter(|p| p.color == turn.color && p.square.is_adjacent(ply.mv.to)) {
                let Some(ours) = n.rank.filter(|_| !miner_route) else { continue };
                for r in Rank::ALL.iter().filter(|r| r.is_mobile()) {
                    let wins = Combat::resolve(*r, ours).result == CombatResult::AttackerWins;
                    f[r.index()] *= match (n.revealed, wins) {
                        (true, true) => 10.0,
                        (true, false) => 0.6,
                        (false, _) if r.strength().unwrap_or(0) >= 6 => 1.25,
                        (false, _) => 1.0,
                    };
                }
            }
            // Closing in on a known piece of ours from afar, or stepping away from one it
            // stood next to, says less but the same way: players bring what beats a known
            // piece and take away what it beats.
            for n in turn.pieces.iter().filter(|p| p.color == turn.color && p.revealed && !miner_route) {
                let Some(ours) = n.rank else { continue };
                let (before, after) = (n.square.distance(ply.mv.from), n.square.distance(ply.mv.to));
                let factor = |wins: bool| match () {
                    _ if after > 1 && after <= APPROACH_SQUARES && after < before => {
                        if wins {
                            APPROACH_FACTOR
                        } else {
                            1.0 / APPROACH_FACTOR.sqrt()
                        }
                    }
                    _ if before == 1 && after > 1 => {
                        if wins {
                            RETREAT_FACTOR
                        } else {
                            1.0 / RETREAT_FACTOR.sqrt()
                        }
                    }
                    _ => 1.0,
                };
                for r in Rank::ALL.iter().filter(|r| r.is_mobile()) {
                    f[r.index()] *= factor(Combat::resolve(*r, ours).result == CombatResult::AttackerWins);
                }
            }
            let e = self.factors.entry(theirs.origin).or_insert([1.0; 12]);
            for (a, b) in e.iter_mut().zip(f) {
                // Bounded: a long chase must not make a rank certain.
                *a = (*a * b).clamp(0.05, 100.0);
            }
        }
    }

    /// The likelihood factors of the enemy piece that started on `origin` (1 for all ranks
    /// if it showed nothing).
    pub fn factors(&self, origin: Square) -> [f64; 12] {
        let f = self.factors.get(&origin).copied().unwrap_or([1.0; 12]);
        if self.power == 1.0 { f } else { f.map(|x| x.powf(self.power)) }
    }
}

/// How far (in steps) from a known piece of ours an enemy piece's approach counts as
/// evidence ([`APPROACH_FACTOR`]).
pub const APPROACH_SQUARES: u8 = 3;

/// Likelihood factor for the ranks that beat a known piece of ours when an enemy piece
/// steps closer to it from within [`APPROACH_SQUARES`] (the other ranks get its inverse
/// square root).
pub const APPROACH_FACTOR: f64 = 2.0;

/// Likelihood factor for the ranks that beat a known piece of ours when an enemy piece
/// next to it steps away (the other ranks get its inverse square root): a piece that
/// could take ours does not flee from it.
pub const RETREAT_FACTOR: f64 = 0.25;

/// The most probability the setup prior gives one unmoved enemy piece of being a Bomb or
/// the Flag while more pieces are unmoved than there are unseen Bombs and Flags.
pub const MAX_STILL: f64 = 0.95;

/// What is known of the enemy's unrevealed pieces, for rank distributions.
#[derive(Clone, Debug)]
pub struct Knowledge {
    /// Unrevealed enemy pieces by rank.
    pub unknown: PieceCounts,
    /// Unrevealed enemy pieces that never moved: the Bombs and the Flag are all among them.
    pub unmoved: u32,
    /// With a setup prior: the prior and its Flag and Bomb weights summed over the
    /// unrevealed unmoved enemy pieces.
    pub prior: Option<(SetupPrior, f64, f64)>,
    /// What the enemy pieces' moves suggest.
    pub evidence: Evidence,
}

impl Knowledge {
    /// Reads what the turn tells about the enemy.
    pub fn new(rules: &Ruleset, turn: &Turn) -> Knowledge {
        let unmoved = turn.pieces.iter().filter(|p| p.color != turn.color && p.rank.is_none() && !p.moved).count();
        Knowledge {
            unknown: unknown_counts(rules, turn),
            unmoved: unmoved as u32,
            prior: None,
            evidence: Evidence::default(),
        }
    }

    /// Like [`Knowledge::new`], but the Bombs and the Flag are spread over the unmoved
    /// pieces by where human players put them (the Gravon table) instead of evenly.
    pub fn with_setup_prior(rules: &Ruleset, turn: &Turn, evidence: &Evidence) -> Knowledge {
        let mut k = Knowledge::new(rules, turn);
        k.evidence = evidence.clone();
        let prior = SetupPrior::new(rules, turn.color);
        let (mut flag, mut bomb) = (0.0, 0.0);
        for p in turn.pieces.iter().filter(|p| p.color != turn.color && p.rank.is_none() && !p.moved) {
            flag += prior.weight(Rank::Flag, p.origin);
            bomb += prior.weight(Rank::Bomb, p.origin);
        }
        k.prior = Some((prior, flag, bomb));
        k
    }

    /// The probability that an unrevealed, unmoved enemy piece is the Flag.
    pub fn flag_probability(&self, piece: &ViewPiece) -> f64 {
        self.distribution(piece)[Rank::Flag.index()]
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
        let mut factors = self.evidence.factors(piece.origin);
        // With the setup prior, each mobile rank also by how often humans start it there.
        if let Some((prior, _, _)) = &self.prior {
            for r in Rank::ALL.iter().filter(|r| r.is_mobile()) {
                factors[r.index()] *= prior.ratio(*r, piece.origin);
            }
        }
        let mobile: f64 = Rank::ALL.iter().filter(|r| r.is_mobile()).map(|&r| f64::from(self.unknown[r])).sum();
        // The mobile ranks in proportion to their unseen counts times the evidence.
        let weighted_mobile: f64 =
            Rank::ALL.iter().filter(|r| r.is_mobile()).map(|&r| f64::from(self.unknown[r]) * factors[r.index()]).sum();
        let mobile_share = |r: Rank| {
            if weighted_mobile > 0.0 { f64::from(self.unknown[r]) * factors[r.index()] / weighted_mobile } else { 0.0 }
        };
        let immobile: f64 = Rank::ALL.iter().filter(|r| !r.is_mobile()).map(|&r| f64::from(self.unknown[r])).sum();
        let unmoved = f64::from(self.unmoved);
        // Share of the piece's probability that goes to Bombs and the Flag.
        let mut still = if piece.moved || unmoved == 0.0 { 0.0 } else { (immobile / unmoved).min(1.0) };
        // With the setup prior, the Flag and the Bombs go to the squares humans favour.
        let mut split: Option<(f64, f64)> = None;
        if let Some((prior, flag_sum, bomb_sum)) = &self.prior {
            if !piece.moved && unmoved > 0.0 && immobile > 0.0 {
                let f = f64::from(self.unknown[Rank::Flag]) * prior.weight(Rank::Flag, piece.origin) / flag_sum;
                let b = f64::from(self.unknown[Rank::Bomb]) * prior.weight(Rank::Bomb, piece.origin) / bomb_sum;
                // While some unmoved pieces must be mobile, no single one is surely a Bomb
                // or the Flag (small armies such as barrage's put most of the table's
                // weight on a few squares, which left the true rank no chance).
                let cap = if unmoved > immobile { MAX_STILL } else { 1.0 };
                let (f, b) = if f + b > cap { (cap * f / (f + b), cap * b / (f + b)) } else { (f, b) };
                still = f + b;
                split = Some((f, b));
            }
        }
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
        if let Some((f, b)) = split.filter(|(f, b)| f + b > 0.0) {
            for r in Rank::ALL.iter().filter(|r| r.is_mobile()) {
                let n = f64::from(self.unknown[*r]);
                p[r.index()] = if mobile > 0.0 && n > 0.0 { (1.0 - still) * mobile_share(*r) } else { 0.0 };
            }
            p[Rank::Flag.index()] = still * f / (f + b);
            p[Rank::Bomb.index()] = still * b / (f + b);
            return p;
        }
        for r in Rank::ALL {
            let n = f64::from(self.unknown[r]);
            p[r.index()] = if r.is_mobile() {
                if mobile > 0.0 && n > 0.0 { (1.0 - still) * mobile_share(r) } else { 0.0 }
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
        let k = Knowledge { unknown, unmoved: 7, prior: None, evidence: Evidence::default() };
        let still = k.distribution(&piece(false));
        assert!((still[Rank::Bomb.index()] - 6.0 / 7.0).abs() < 1e-9);
        assert!((still[Rank::Flag.index()] - 1.0 / 7.0).abs() < 1e-9);
        assert!(still[Rank::Miner.index()].abs() < 1e-9);
        let moved = k.distribution(&piece(true));
        assert!((moved[Rank::Miner.index()] - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(moved[Rank::Bomb.index()], 0.0);
        // More unmoved pieces than Bombs and Flag: the rest is mobile in proportion.
        let k = Knowledge { unknown, unmoved: 14, prior: None, evidence: Evidence::default() };
        let still = k.distribution(&piece(false));
        assert!((still[Rank::Bomb.index()] - 6.0 / 14.0).abs() < 1e-9);
        assert!((still[Rank::Scout.index()] - 0.5 / 3.0).abs() < 1e-9);
        assert!((still.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}

#[cfg(test)]
mod prior_tests {
    use super::*;
    use stratego_protocol::Rng;
    use stratego_rules::{ByColor, Deployment, Game, Move, PositionPiece};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// A classic game with both armies set up at random, Red to move.
    fn game() -> Game {
        let rules = Ruleset::classic();
        let mut rng = Rng::new(3);
        let red = Deployment::random(&rules, Color::Red, &mut || rng.next_u64());
        let blue = Deployment::random(&rules, Color::Blue, &mut || rng.next_u64());
        Game::new(rules, &red, &blue).unwrap()
    }

    #[test]
    fn the_setup_prior_puts_the_flag_on_the_back_rank() {
        let game = game();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let turn = crate::tests::turn_of(&game, 0, moves);
        let k = Knowledge::with_setup_prior(game.rules(), &turn, &Evidence::default());
        let flag = |s: &str| {
            let p = turn.pieces.iter().find(|p| p.square == sq(s)).unwrap();
            assert_eq!(p.color, Color::Blue);
            k.flag_probability(p)
        };
        // Blue's back rank is rank 10, its front rank 7; without the prior all 40 unmoved
        // pieces share the Flag evenly (1/40).
        assert!(flag("a10") > 2.0 / 40.0, "{}", flag("a10"));
        assert!(flag("e7") < 0.2 / 40.0, "{}", flag("e7"));
        let total: f64 = turn.pieces.iter().filter(|p| p.color == Color::Blue).map(|p| k.flag_probability(p)).sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        let plain = Knowledge::new(game.rules(), &turn);
        let p = turn.pieces.iter().find(|p| p.square == sq("a10")).unwrap();
        assert!((plain.distribution(p)[Rank::Flag.index()] - 1.0 / 40.0).abs() < 1e-9);
    }

    #[test]
    fn a_piece_that_steps_next_to_a_known_piece_probably_beats_it() {
        // Red's revealed Captain on e4; a Blue piece steps from e6 to e5, next to it.
        let piece =
            |s: &str, color, rank, moved, revealed| PositionPiece { square: sq(s), color, rank, moved, revealed };
        let pieces = [
            piece("e4", Color::Red, Rank::Captain, true, true),
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("b1", Color::Red, Rank::Scout, false, false),
            piece("e6", Color::Blue, Rank::Colonel, false, false),
            piece("a10", Color::Blue, Rank::Flag, false, false),
            piece("j10", Color::Blue, Rank::Scout, true, false),
        ];
        let mut game = Game::from_position(Ruleset::classic(), &pieces, Color::Blue, 40, ByColor::default()).unwrap();
        game.play("e6-e5".parse::<Move>().unwrap()).unwrap();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let turn = crate::tests::turn_of(&game, 1, moves);
        let mut evidence = Evidence::default();
        evidence.update(&turn);
        let blue = turn.pieces.iter().find(|p| p.square == sq("e5")).unwrap();
        let f = evidence.factors(blue.origin);
        assert!(f[Rank::Colonel.index()] > 1.0 && f[Rank::Major.index()] > 1.0);
        assert!(f[Rank::Sergeant.index()] < 1.0 && f[Rank::Captain.index()] < 1.0);
        // The factors shift the piece's distribution towards the ranks that beat a Captain.
        let plain = Knowledge::new(game.rules(), &turn);
        let k = Knowledge::with_setup_prior(game.rules(), &turn, &evidence);
        let beats = |d: [f64; 12]| {
            Rank::ALL.iter().filter(|r| r.strength() > Rank::Captain.strength()).map(|r| d[r.index()]).sum::<f64>()
        };
        assert!(beats(k.distribution(blue)) > beats(plain.distribution(blue)) + 0.1);
        // A new game forgets.
        let mut other = turn.clone();
        other.game_id = "h".into();
        other.plies.clear();
        evidence.update(&other);
        assert_eq!(evidence.factors(blue.origin), [1.0; 12]);
    }
}

#[cfg(test)]
mod power_tests {
    use super::*;
    use stratego_rules::Move;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// A Blue piece (the Colonel, e8) walks down to our known Captain (e4) and steps next
    /// to it: as gathered, the evidence makes it almost surely a rank that beats a Captain;
    /// raised to the power 0.5, each factor is the square root of the gathered one and the
    /// belief stays short of certain.
    #[test]
    fn tempered_evidence_is_the_root_of_the_gathered_one_and_less_sure() {
        use crate::tests::piece;
        let pieces = [
            piece("e4", Color::Red, Rank::Captain, true, true),
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("b1", Color::Red, Rank::Scout, false, false),
            piece("e8", Color::Blue, Rank::Colonel, false, false),
            piece("a10", Color::Blue, Rank::Flag, false, false),
            piece("j10", Color::Blue, Rank::Scout, true, false),
            piece("j9", Color::Blue, Rank::Sergeant, true, false),
            piece("i10", Color::Blue, Rank::Miner, true, false),
        ];
        let mut game = crate::tests::game_of(&Ruleset::classic(), &pieces, Color::Blue, 40);
        let (mut gathered, mut tempered) = (Evidence::default(), Evidence::default());
        tempered.power = 0.5;
        for (blue, red) in [("e8-e7", "b1-b2"), ("e7-e6", "b2-b1"), ("e6-e5", "")] {
            game.play(blue.parse::<Move>().unwrap()).unwrap();
            let mut moves = Vec::new();
            game.legal_moves(&mut moves);
            let turn = crate::tests::turn_of(&game, 2, moves);
            gathered.update(&turn);
            tempered.update(&turn);
            if !red.is_empty() {
                game.play(red.parse::<Move>().unwrap()).unwrap();
            }
        }
        let origin = sq("e8");
        let (g, t) = (gathered.factors(origin), tempered.factors(origin));
        for r in Rank::ALL {
            assert!((t[r.index()] - g[r.index()].sqrt()).abs() < 1e-9, "{r:?}: {g:?} {t:?}");
        }
        assert!(g[Rank::Colonel.index()] > 10.0, "{g:?}");
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let turn = crate::tests::turn_of(&game, 0, moves);
        let blue = turn.pieces.iter().find(|p| p.square == sq("e5")).unwrap();
        let beats = |e: &Evidence| {
            let d = Knowledge::with_setup_prior(game.rules(), &turn, e).distribution(blue);
            Rank::ALL.iter().filter(|r| r.strength() > Rank::Captain.strength()).map(|r| d[r.index()]).sum::<f64>()
        };
        let (sure, less) = (beats(&gathered), beats(&tempered));
        assert!(sure > 0.9 && less < sure - 0.05, "gathered {sure}, tempered {less}");
    }
}

#[cfg(test)]
mod approach_tests {
    use super::*;
    use stratego_rules::{ByColor, Game, Move, PositionPiece};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// Red's revealed Colonel on e4; Blue plays `mv` with the unknown piece of `rank` on its
    /// `from` square; the evidence factors of that piece afterwards.
    fn factors_after(from: &str, mv: &str) -> [f64; 12] {
        let piece =
            |s: &str, color, rank, moved, revealed| PositionPiece { square: sq(s), color, rank, moved, revealed };
        let pieces = [
            piece("e4", Color::Red, Rank::Colonel, true, true),
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("j1", Color::Red, Rank::Scout, false, false),
            piece(from, Color::Blue, Rank::Major, true, false),
            piece("a10", Color::Blue, Rank::Flag, false, false),
            piece("j10", Color::Blue, Rank::Scout, true, false),
        ];
        let mut game = Game::from_position(Ruleset::classic(), &pieces, Color::Blue, 40, ByColor::default()).unwrap();
        game.play(mv.parse::<Move>().unwrap()).unwrap();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let turn = crate::tests::turn_of(&game, 1, moves);
        let mut evidence = Evidence::default();
        evidence.update(&turn);
        evidence.factors(sq(from))
    }

    #[test]
    fn closing_in_on_a_known_piece_suggests_a_rank_that_beats_it_and_stepping_away_one_that_does_not() {
        let (general, major) = (Rank::General.index(), Rank::Major.index());
        // From three squares to two (e7 to e6): the General and Marshal gain, the rest lose.
        let f = factors_after("e7", "e7-e6");
        assert!((f[general] - APPROACH_FACTOR).abs() < 1e-9, "{f:?}");
        assert!((f[major] - 1.0 / APPROACH_FACTOR.sqrt()).abs() < 1e-9, "{f:?}");
        // From four squares to three, too (the edge of the range); from five to four, nothing.
        assert!(factors_after("e8", "e8-e7")[general] > 1.0);
        assert_eq!(factors_after("e9", "e9-e8"), [1.0; 12]);
        // Moving away from afar says nothing.
        assert_eq!(factors_after("e6", "e6-e7"), [1.0; 12]);
        // Stepping away from next to it: the ranks that beat it lose most.
        let f = factors_after("e5", "e5-e6");
        assert!((f[general] - RETREAT_FACTOR).abs() < 1e-9, "{f:?}");
        assert!((f[major] - 1.0 / RETREAT_FACTOR.sqrt()).abs() < 1e-9, "{f:?}");
    }
}

#[cfg(test)]
mod miner_tests {
    use super::*;
    use stratego_rules::{ByColor, Game, Move, PositionPiece};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// Red's Flag on a1 behind Bombs on a2 and b1 (`bombed`; else nothing beside it); Blue
    /// plays `mv` with an unknown Major; Red's evidence about that piece afterwards.
    fn factors_after(mv: &str, bombed: bool, defence: FlagDefence) -> [f64; 12] {
        factors_beside(mv, bombed, defence, None)
    }

    /// [`factors_after`] with a known piece of Red's (revealed, moved) on a square.
    fn factors_beside(mv: &str, bombed: bool, defence: FlagDefence, known: Option<(&str, Rank)>) -> [f64; 12] {
        let piece =
            |s: &str, color, rank, moved, revealed| PositionPiece { square: sq(s), color, rank, moved, revealed };
        let mv: Move = mv.parse().unwrap();
        let mut pieces = vec![
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("j1", Color::Red, Rank::Scout, false, false),
            piece(&mv.from.to_string(), Color::Blue, Rank::Major, true, false),
            piece("a10", Color::Blue, Rank::Flag, false, false),
            piece("j10", Color::Blue, Rank::Scout, true, false),
        ];
        if let Some((at, rank)) = known {
            pieces.push(piece(at, Color::Red, rank, true, true));
        }
        if bombed {
            pieces.push(piece("a2", Color::Red, Rank::Bomb, false, false));
            pieces.push(piece("b1", Color::Red, Rank::Bomb, false, false));
        }
        let mut game = Game::from_position(Ruleset::classic(), &pieces, Color::Blue, 40, ByColor::default()).unwrap();
        game.play(mv).unwrap();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let turn = crate::tests::turn_of(&game, 1, moves);
        let mut evidence = Evidence::with_defence(defence);
        evidence.update(&turn);
        evidence.factors(mv.from)
    }

    #[test]
    fn a_piece_that_closes_in_on_the_bombs_beside_our_flag_is_likelier_a_miner() {
        let miner = Rank::Miner.index();
        let on = FlagDefence::TRIED;
        // From four steps of the Bomb on a2 to three (a6 to a5): the Miner gains.
        let f = factors_after("a6-a5", true, on);
        assert!((f[miner] - MINER_APPROACH_FACTOR).abs() < 1e-9, "{f:?}");
        assert_eq!(f[Rank::Major.index()], 1.0);
        // From five to four, too (the edge of the range); from six to five, nothing.
        assert!(factors_after("a7-a6", true, on)[miner] > 1.0);
        assert_eq!(factors_after("a8-a7", true, on), [1.0; 12]);
        // Stepping away says nothing.
        assert_eq!(factors_after("a5-a6", true, on), [1.0; 12]);
        assert_eq!(factors_after("b4-c4", true, on), [1.0; 12]);
        // A Flag with no Bomb beside it draws every piece alike; and the setting turns it off.
        assert_eq!(factors_after("a6-a5", false, on), [1.0; 12]);
        assert_eq!(factors_after("a6-a5", true, FlagDefence::OFF), [1.0; 12]);
    }

    #[test]
    fn a_step_on_the_way_to_the_bombs_beside_our_flag_says_nothing_of_the_known_pieces_it_passes() {
        let (miner, colonel) = (Rank::Miner.index(), Rank::Colonel.index());
        // From a6 to a5, next to our known Major on b5 and towards the Bomb on a2.
        let major = Some(("b5", Rank::Major));
        let on = factors_beside("a6-a5", true, FlagDefence::TRIED, major);
        assert!((on[miner] - MINER_APPROACH_FACTOR).abs() < 1e-9, "{on:?}");
        assert_eq!(on[colonel], 1.0, "{on:?}");
        // Without the Flag's Bombs (or with the setting off), the old reading: it beats the
        // Major (x10 for the Colonel), the Miner not (x0.6).
        for off in [
            factors_beside("a6-a5", false, FlagDefence::TRIED, major),
            factors_beside("a6-a5", true, FlagDefence::OFF, major),
        ] {
            assert!(off[colonel] >= 10.0 - 1e-9, "{off:?}");
            assert!(off[miner] < 1.0, "{off:?}");
        }
    }
}
