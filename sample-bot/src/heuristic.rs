//! The heuristic strategy: score every legal move by what is known of the pieces involved.
//!
//! - An attack is worth its expected material gain over the possible ranks of the target
//!   (known rank, or the remaining unknown pieces; a piece that moved is no Bomb or Flag).
//! - A quiet move is worth a little progress towards the enemy, less the expected loss if
//!   an adjacent enemy piece attacks it next, plus the danger it escapes.
//! - Enemy pieces are judged by [`Knowledge::with_setup_prior`]: the Flag and Bombs most
//!   likely where human players put them (the Gravon table), each mobile rank weighted by
//!   where humans start it, and by what the piece's moves showed ([`Evidence`]: a piece that
//!   steps next to a known piece of ours most likely beats it).
//! - A piece that has just won a fight stands revealed: every neighbour that beats it,
//!   moved or not, is a threat, and an unknown neighbour is suspected of beating it
//!   ([`suspect`]: the enemy brings what beats a known piece).
//! - Known enemy pieces are hunted by the pieces that beat them, and pieces keep two
//!   squares away from known pieces that beat them; the Spy lurks two squares from the
//!   known Marshal ([`SPY_LURK`]).
//! - An attack also counts the loss it spares our pieces next to its target; a piece
//!   threatened where it stands may leave its post by the Flag or its hidden place
//!   ([`THREATENED`]).
//! - Enemy pieces that moved within [`INTRUDER_SQUARES`] of our Flag draw the pieces that
//!   beat them, the more urgently the nearer they are to it.
//! - Flag hunt: Miners (after ply 120), and late in the game the other lower pieces, walk
//!   towards the unmoved enemy piece most likely to be the Flag; Miners clear the Bombs
//!   around it.
//! - After [`QUIET_PLIES`] plies without a fight, the cheap pieces (Scouts, Sergeants,
//!   Lieutenants) are urged to probe the unknown enemy pieces, more the longer the quiet
//!   lasts ([`probe_bonus`]): otherwise two careful bots shuffle until the ply limit.
//! - A quiet move of a piece that never moved costs [`UNMOVED_COST`]: the army stays hidden
//!   (unmoved pieces may be Bombs) and the pieces already shown do the work.
//! - Ties are broken at random (seeded), so play is varied but reproducible.

use stratego_protocol::{Rng, Turn};
use stratego_rules::{Color, Combat, CombatResult, Move, Rank, Ruleset, Square, ViewPiece};

#[cfg(test)]
use crate::knowledge::MINER_THREAT;
use crate::knowledge::{Evidence, Knowledge, MINER_SQUARES, flag_bombs, steps_to};

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

/// Value of taking a piece in the expected-gain sums: a possible Flag counts for a lot, but
/// not so much that every unmoved piece looks worth a Marshal.
fn prize(r: Rank) -> f64 {
    if r == Rank::Flag { 600.0 } else { value(r) }
}

fn fight_value(attacker: Rank, defender: Rank) -> f64 {
    match Combat::resolve(attacker, defender).result {
        CombatResult::AttackerWins => prize(defender),
        CombatResult::DefenderWins => -value(attacker),
        CombatResult::BothRemoved => prize(defender) - value(attacker),
    }
}

/// Expected gain for the attacker when `attacker` attacks a piece with rank distribution `p`.
fn expected_attack(attacker: Rank, p: &[f64; 12]) -> f64 {
    Rank::ALL.iter().map(|&r| p[r.index()] * fight_value(attacker, r)).sum()
}

/// What our `defender` loses when an enemy `attacker` attacks it: its value if it is
/// taken, its value less the attacker's in a trade, nothing if it wins.
fn loss_when_attacked(attacker: Rank, defender: Rank) -> f64 {
    match Combat::resolve(attacker, defender).result {
        CombatResult::AttackerWins => value(defender),
        CombatResult::BothRemoved => (value(defender) - value(attacker)).max(0.0),
        CombatResult::DefenderWins => 0.0,
    }
}

/// Expected loss when an enemy piece with distribution `p` attacks our `defender`.
fn expected_threat(defender: Rank, p: &[f64; 12]) -> f64 {
    defended_threat(defender, p, &[])
}

/// How much of a recapture counts against the loss it answers (the enemy may see it coming
/// and not attack, or our defender may be needed elsewhere).
pub const RECAPTURE: f64 = 0.8;

/// What one of our `helpers` (pieces next to the square) wins by taking back an enemy
/// `attacker` that has just taken our `defender` there: the best of them, 0 if none gains.
fn recapture(attacker: Rank, defender: Rank, helpers: &[Rank]) -> f64 {
    if Combat::resolve(attacker, defender).result != CombatResult::AttackerWins {
        return 0.0; // no attacker left standing there to take
    }
    helpers.iter().map(|&h| fight_value(h, attacker).max(0.0)).fold(0.0, f64::max)
}

/// [`expected_threat`] on a square our `helpers` defend: for each attacking rank, the loss
/// less [`RECAPTURE`] times what taking the attacker back wins (never below 0). A piece
/// chased by a known General stands safe next to our Marshal: the chase ends there.
fn defended_threat(defender: Rank, p: &[f64; 12], helpers: &[Rank]) -> f64 {
    Rank::ALL
        .iter()
        .filter(|r| r.is_mobile())
        .map(|&r| {
            p[r.index()] * (loss_when_attacked(r, defender) - RECAPTURE * recapture(r, defender, helpers)).max(0.0)
        })
        .sum()
}

fn neighbours(sq: Square) -> impl Iterator<Item = Square> {
    let (f, r) = (sq.file() as i16, sq.rank() as i16);
    [(f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1)]
        .into_iter()
        .filter(|&(f, r)| f >= 0 && r >= 0)
        .filter_map(|(f, r)| Square::new(f as u8, r as u8))
}

/// What a quiet move of a piece that never moved costs: the enemy cannot tell an unmoved
/// piece from a Bomb, and the 2012 agents send their known General and Marshal after every
/// piece that moved (PeternLewis took about 9 moved unknown pieces a game that way). With
/// it, the heuristic won 281 of 400 games against PeternLewis instead of 131 (README,
/// "Against the UCC 2012 agents", for the other agents and the costs tried).
pub const UNMOVED_COST: f64 = 30.0;

/// The least probability that an unknown piece next to our known Marshal is the Spy.
const SPY_SUSPICION: f64 = 0.3;

/// The least probability that an unknown enemy piece that has moved, next to one of our
/// known pieces, is of a rank that beats it (while any such rank is unseen). The enemy
/// sees which of our pieces it can take and brings its strong pieces to them: against
/// Demon of Ignorance our known Generals and Colonels stepped next to its hidden Marshal
/// and General 22 times in 26 games, each time lost.
pub const KNOWN_SUSPICION_MOVED: f64 = 0.3;

/// [`KNOWN_SUSPICION_MOVED`] for an unknown enemy piece that never moved.
pub const KNOWN_SUSPICION_STILL: f64 = 0.15;

/// The rank distribution `d` of an unknown enemy piece next to our known `rank`, with the
/// ranks that beat ours given at least `floor` in all (the others scaled down to make room).
/// Unchanged when no unseen rank beats ours or they already have `floor`.
pub fn suspect(rank: Rank, d: &[f64; 12], floor: f64) -> [f64; 12] {
    let beats = |r: Rank| r.is_mobile() && Combat::resolve(r, rank).result == CombatResult::AttackerWins;
    let s: f64 = Rank::ALL.iter().filter(|&&r| beats(r)).map(|r| d[r.index()]).sum();
    if s <= 0.0 || s >= floor || s >= 1.0 {
        return *d;
    }
    let (up, down) = (floor / s, (1.0 - floor) / (1.0 - s));
    let mut out = *d;
    for r in Rank::ALL {
        out[r.index()] *= if beats(r) { up } else { down };
    }
    out
}

struct Position<'a> {
    turn: &'a Turn,
    knowledge: Knowledge,
}

impl Position<'_> {
    /// What our `attacker` (leaving `from`) saves by attacking `target` (rank distribution
    /// `d`): for each rank the target may be, if the attack removes it, the most it would
    /// take from our other pieces next to it (weighted as in [`Position::danger`]).
    fn relief(&self, attacker: Rank, target: &ViewPiece, d: &[f64; 12], from: Square) -> f64 {
        let victims: Vec<&ViewPiece> = neighbours(target.square)
            .filter(|&n| n != from)
            .filter_map(|n| self.at(n))
            .filter(|p| p.color == self.turn.color && p.rank.is_some())
            .collect();
        if victims.is_empty() {
            return 0.0;
        }
        Rank::ALL
            .iter()
            .filter(|r| r.is_mobile() && d[r.index()] > 0.0)
            .filter(|&&r| Combat::resolve(attacker, r).result != CombatResult::DefenderWins)
            .map(|&r| {
                let worst = victims
                    .iter()
                    .map(|q| {
                        let w = if q.revealed {
                            0.9
                        } else if target.rank.is_none() && !target.moved {
                            0.2
                        } else {
                            0.8
                        };
                        w * loss_when_attacked(r, q.rank.unwrap_or(Rank::Flag))
                    })
                    .fold(0.0, f64::max);
                d[r.index()] * worst
            })
            .sum()
    }

    /// The rank distribution of an enemy piece. (A human-placement prior made play against
    /// uniformly random setups worse, so the heuristic assumes nothing about placement.)
    fn dist(&self, p: &ViewPiece) -> [f64; 12] {
        self.knowledge.distribution(p)
    }

    fn at(&self, sq: Square) -> Option<&ViewPiece> {
        self.turn.pieces.binary_search_by_key(&sq, |p| p.square).ok().map(|i| &self.turn.pieces[i])
    }

    /// Expected loss of our `rank` standing on `sq` (ignoring the square `ignore`, which we
    /// are leaving or capturing). A piece the enemy knows (`revealed`) is attacked by any
    /// neighbour that beats it, moved or not; an unknown one mostly by pieces that move.
    /// Our pieces next to `sq` other than the one at `ignore` or `mover` can take back an
    /// attacker that wins there ([`defended_threat`]).
    fn danger(&self, rank: Rank, sq: Square, ignore: Square, mover: Square, revealed: bool) -> f64 {
        let helpers: Vec<Rank> = neighbours(sq)
            .filter(|&n| n != ignore && n != mover)
            .filter_map(|n| self.at(n))
            .filter(|p| p.color == self.turn.color)
            .filter_map(|p| p.rank.filter(|r| r.is_mobile()))
            .collect();
        neighbours(sq)
            .filter(|&n| n != ignore)
            .filter_map(|n| self.at(n))
            .filter(|p| p.color != self.turn.color)
            .map(|p| {
                let mut d = self.dist(p);
                // A known Marshal is the Spy's one target: the enemy keeps its Spy where it
                // can strike, so any unknown neighbour may well be it.
                if rank == Rank::Marshal && revealed && p.rank.is_none() && d[Rank::Spy.index()] > 0.0 {
                    d[Rank::Spy.index()] = d[Rank::Spy.index()].max(SPY_SUSPICION);
                } else if revealed && p.rank.is_none() {
                    // Any other known piece: the enemy brings what beats it.
                    let floor = if p.moved { KNOWN_SUSPICION_MOVED } else { KNOWN_SUSPICION_STILL };
                    d = suspect(rank, &d, floor);
                }
                // An unmoved unknown piece rarely attacks: weigh it down.
                let w = if revealed {
                    0.9
                } else if p.rank.is_none() && !p.moved {
                    0.2
                } else {
                    0.8
                };
                w * defended_threat(rank, &d, &helpers)
            })
            .fold(0.0, f64::max)
    }
}

/// How far (in steps) from our Flag an enemy piece that moved counts as an intruder: the
/// pieces that beat it close in, the more urgently the nearer it is to the Flag (PeternLewis
/// walked a piece down an open file to our Flag in 4 moves, unopposed, in a fifth of the
/// games it won).
pub const INTRUDER_SQUARES: u8 = 5;

/// The share of its value a piece must risk where it stands to count as threatened: it may
/// then leave its post by the Flag or its hidden place in the army ([`UNMOVED_COST`]).
pub const THREATENED: f64 = 0.25;

/// Scores every legal move, best first: `(score, move)`, from the turn alone.
pub fn ranked(rules: &Ruleset, turn: &Turn, rng: &mut Rng) -> Vec<(f64, Move)> {
    ranked_with(rules, turn, rng, &Evidence::default())
}

/// Scores every legal move, best first, with what the enemy's moves have shown so far.
pub fn ranked_with(rules: &Ruleset, turn: &Turn, rng: &mut Rng, evidence: &Evidence) -> Vec<(f64, Move)> {
    ranked_weighted(rules, turn, rng, evidence, 1.0)
}

/// [`ranked_with`], with the hunt of known enemy pieces ([`chase`]'s closing in) weighted
/// by `hunt_weight` (1 in full, 0 not at all).
fn ranked_weighted(
    rules: &Ruleset,
    turn: &Turn,
    rng: &mut Rng,
    evidence: &Evidence,
    hunt_weight: f64,
) -> Vec<(f64, Move)> {
    let pos = Position { turn, knowledge: Knowledge::with_setup_prior(rules, turn, evidence) };
    let forward: i16 = if turn.color == Color::Red { 1 } else { -1 };
    let our_flag = turn.pieces.iter().find(|p| p.color == turn.color && p.rank == Some(Rank::Flag)).map(|p| p.square);
    let movable = turn.pieces.iter().filter(|p| p.color == turn.color && p.rank.is_some_and(Rank::is_mobile)).count();
    // With few movable pieces left, losing one may lose the game (no legal move).
    let caution = if movable <= 5 { 3.0 } else { 1.0 };
    // While Bombs close our Flag's sides, a Miner is what takes it: a moved enemy piece near
    // those Bombs is worth its Miner probability times this much more to remove.
    let bombs = if evidence.defence.miner_threat > 0.0 { flag_bombs(turn) } else { Vec::new() };
    let miner_threat = |p: &ViewPiece, d: &[f64; 12]| -> f64 {
        let steps = steps_to(&bombs, p.square);
        if steps > MINER_SQUARES || !(p.moved || p.rank.is_some()) {
            return 0.0;
        }
        let near = f64::from(MINER_SQUARES + 1 - steps.max(1)) / f64::from(MINER_SQUARES);
        d[Rank::Miner.index()] * evidence.defence.miner_threat * near
    };
    // Enemy pieces that came close to our Flag: intruders to hunt down (each by the pieces
    // that gain by attacking it, a likely Miner near its Bombs also by those that beat a
    // Miner), with their urgency and Miner threat.
    let intruders: Vec<(Square, [f64; 12], f64, f64)> = match our_flag {
        Some(f) => turn
            .pieces
            .iter()
            .filter(|p| p.color != turn.color && p.moved)
            .filter_map(|p| {
                let d = pos.dist(p);
                let threat = miner_threat(p, &d);
                let near = p.square.distance(f) <= INTRUDER_SQUARES;
                let urgency = |steps: u8| f64::from(INTRUDER_SQUARES + 1 - steps.min(INTRUDER_SQUARES)) / 3.0;
                let by_bombs = if threat > 0.0 { urgency(steps_to(&bombs, p.square) + 1) } else { 0.0 };
                let by_flag = if near { urgency(p.square.distance(f)) } else { 0.0 };
                (near || threat > 0.0).then_some((p.square, d, by_flag.max(by_bombs), threat))
            })
            .collect(),
        None => Vec::new(),
    };
    let beats_miner = |rank: Rank| Combat::resolve(rank, Rank::Miner).result == CombatResult::AttackerWins;
    // The gate: the square beside one of our Flag's Bombs nearest to the likeliest Miner on
    // its way (the Miner must stand there to take the Bomb, then the Flag, one move each),
    // the pull towards it, and the pieces that beat a Miner nearest to it, which go there.
    let gate: Option<(Vec<u8>, f64, Vec<Square>)> = (evidence.defence.gate_guards > 0)
        .then(|| {
            let (threat, at) =
                intruders.iter().filter(|i| i.3 > 0.0).map(|i| (i.3, i.0)).max_by(|a, b| a.0.total_cmp(&b.0))?;
            // Walking distances (round lakes and our Bombs): the gate is the one the Miner
            // reaches first, its guards the pieces that reach it first.
            let from_threat = walking(rules, turn, at);
            let gate = bombs
                .iter()
                .flat_map(|&b| neighbours(b))
                .filter(|&g| rules.on_board(g) && from_threat[walk_index(rules, g)] < u8::MAX)
                .min_by_key(|&g| from_threat[walk_index(rules, g)])?;
            let to_gate = walking(rules, turn, gate);
            let mut guards: Vec<&ViewPiece> = turn
                .pieces
                .iter()
                .filter(|p| p.color == turn.color && p.rank.is_some_and(|r| r.is_mobile() && beats_miner(r)))
                .filter(|p| to_gate[walk_index(rules, p.square)] < u8::MAX)
                .collect();
            guards.sort_by_key(|p| to_gate[walk_index(rules, p.square)]);
            guards.truncate(usize::from(evidence.defence.gate_guards));
            let pull = GATE_STEP * (threat / evidence.defence.miner_threat * 4.0).min(1.0);
            Some((to_gate, pull, guards.iter().map(|p| p.square).collect()))
        })
        .flatten();
    // A guard: a mid-ranked piece kept within two squares of our Flag against Miners.
    let is_guard = |p: &ViewPiece| {
        p.color == turn.color
            && p.rank.is_some_and(|r| (4..=8).contains(&r.strength().unwrap_or(0)))
            && our_flag.is_some_and(|f| f.distance(p.square) <= 2)
    };
    let guards = turn.pieces.iter().filter(|p| is_guard(p)).count();
    // Flag hunt: the unmoved enemy piece most likely to be the Flag (by where humans put
    // it), and how much it is worth walking there.
    let enemy_movable = turn
        .pieces
        .iter()
        .filter(|p| p.color != turn.color && (p.moved || p.rank.is_some_and(Rank::is_mobile)))
        .count();
    let flag_target = turn
        .pieces
        .iter()
        .filter(|p| p.color != turn.color && p.rank.is_none() && !p.moved)
        .map(|p| (pos.knowledge.flag_probability(p), p.square))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let hunt = |rank: Rank| -> f64 {
        match rank {
            Rank::Miner if turn.ply > 120 => 6.0,
            Rank::Marshal | Rank::General | Rank::Spy => 0.0,
            _ if turn.ply > 400 && enemy_movable <= 6 => 4.0,
            _ => 0.0,
        }
    };
    // Known enemy pieces that can move: prey for the pieces that beat them, and a threat to
    // the pieces they beat.
    let known: Vec<(Square, Rank)> = turn
        .pieces
        .iter()
        .filter(|p| p.color != turn.color)
        .filter_map(|p| p.rank.filter(|r| r.is_mobile()).map(|r| (p.square, r)))
        .collect();
    let mut out = Vec::with_capacity(turn.legal_moves.len());
    for &m in &turn.legal_moves {
        let Some(mine) = pos.at(m.from) else { continue };
        let Some(rank) = mine.rank else { continue };
        let mut score = rng.unit() * 2.0; // tie-break
        match pos.at(m.to) {
            Some(target) => {
                let d = pos.dist(target);
                let gain = expected_attack(rank, &d);
                score += if gain < 0.0 { caution * gain } else { gain };
                // Our last movable pieces must not be traded away.
                if movable <= 2 && d[Rank::Flag.index()] < 0.5 {
                    let p_lose = Rank::ALL
                        .iter()
                        .filter(|&&r| Combat::resolve(rank, r).result != CombatResult::AttackerWins)
                        .map(|r| d[r.index()])
                        .sum::<f64>();
                    score -= 1000.0 * p_lose;
                }
                // An enemy piece near our Flag must go, whatever it costs; but a piece
                // known to beat ours is not stopped by a sacrifice.
                let futile = target.rank.is_some_and(|t| Combat::resolve(rank, t).result == CombatResult::DefenderWins);
                match our_flag.map(|f| f.distance(m.to)) {
                    _ if futile => {}
                    Some(1) => score += 500.0,
                    Some(2) => score += 250.0,
                    Some(3) if target.moved => score += 100.0,
                    Some(4) if target.moved => score += 50.0,
                    _ => {}
                }
                // Taking the target away saves the pieces of ours it threatens.
                score += pos.relief(rank, target, &d, m.from);
                // And a Miner on its way to our Flag's Bombs.
                if beats_miner(rank) {
                    score += miner_threat(target, &d);
                }
                // A winner stays on the square: account for the danger there.
                if d[Rank::Flag.index()] < 0.99 {
                    score -= 0.5 * pos.danger(rank, m.to, m.to, m.from, true);
                }
                // Unknown, unmoved targets may be Bombs: keep valuable pieces away.
                if target.rank.is_none() && !target.moved && rank != Rank::Miner {
                    // Unmoved pieces late in the game are mostly Bombs: leave them to Miners
                    // (and cheap Scouts as probes).
                    let bomb = d[Rank::Bomb.index()];
                    // Late, with movable pieces to spare, cheap pieces probe for the Flag.
                    let probing = turn.ply > 250 && movable > 6 && value(rank) <= value(Rank::Captain);
                    // A Miner clears the Bombs around the likely Flag.
                    if rank == Rank::Miner && flag_target.is_some_and(|(_, t)| t.distance(m.to) <= 1) {
                        score += 80.0 * bomb;
                    }
                    if !probing {
                        score -= caution
                            * value(rank)
                            * (0.1 + if bomb > 0.3 && rank != Rank::Scout { 2.0 * bomb } else { 0.0 });
                    }
                }
            }
            None => {
                // What the piece risks where it stands: a piece about to be taken there
                // neither guards the Flag nor hides the army by staying.
                let here = pos.danger(rank, m.from, m.to, m.from, mine.revealed);
                let threatened = here >= THREATENED * value(rank);
                if guards <= 2 && is_guard(mine) && our_flag.is_some_and(|f| f.distance(m.to) > 2) && !threatened {
                    score -= 150.0;
                }
                if !matches!(rank, Rank::Scout | Rank::Spy | Rank::Miner) {
                    // Only towards an intruder it beats: a Major that walks up to a known
                    // General near our Flag is lost, and the Flag no safer.
                    // The intruder closest to our Flag it beats, the more urgently the closer
                    // to the Flag it stands (an intruder walks to an open Flag in a few moves).
                    let target = intruders
                        .iter()
                        .filter(|(_, d, _, threat)| {
                            expected_attack(rank, d) + if beats_miner(rank) { *threat } else { 0.0 } > 0.0
                        })
                        .max_by(|a, b| a.2.total_cmp(&b.2));
                    if let Some(&(i, _, urgency, _)) = target {
                        let step = f64::from(i.distance(m.from)) - f64::from(i.distance(m.to));
                        score += 60.0 * urgency * step;
                    }
                }
                // A guard of the gate a likely Miner makes for goes there, and stays.
                if let Some((to_gate, pull, guards)) = &gate {
                    if guards.contains(&m.from) {
                        let steps = |sq: Square| f64::from(to_gate[walk_index(rules, sq)]);
                        score += pull * (steps(m.from) - steps(m.to)).clamp(-1.0, 1.0);
                    }
                }
                score += chase(&known, rank, m.from, m.to, hunt_weight);
                if let Some((p_flag, t)) = flag_target {
                    let h = hunt(rank) * (0.5 + p_flag);
                    score += h * (f64::from(t.distance(m.from)) - f64::from(t.distance(m.to)));
                }
                // A piece that never moved may be a Bomb for all the enemy knows: keep the
                // army hidden and play with the pieces already shown.
                if !mine.moved && !mine.revealed && !threatened {
                    score -= UNMOVED_COST;
                }
                let progress = (m.to.rank() as i16 - m.from.rank() as i16) * forward;
                score += 3.0 * f64::from(progress.signum());
                score -= caution * pos.danger(rank, m.to, m.from, m.from, mine.revealed || m.from.distance(m.to) > 1);
                score += 0.9 * here;
                if rank == Rank::Scout && m.from.distance(m.to) > 1 {
                    score -= 5.0; // a long move reveals the Scout
                }
                if matches!(rank, Rank::Marshal | Rank::General) && mine.revealed {
                    score -= 1.0;
                }
            }
        }
        out.push((score, m));
    }
    out.sort_by(|a, b| b.0.total_cmp(&a.0));
    out
}

/// The index of a square in [`walking`]'s distances.
fn walk_index(rules: &Ruleset, sq: Square) -> usize {
    usize::from(sq.rank()) * usize::from(rules.width()) + usize::from(sq.file())
}

/// Steps from `start` to every square (by [`walk_index`]) for a piece that walks round the
/// lakes and our Bombs and Flag (`u8::MAX`: no way there); other pieces are no obstacle.
fn walking(rules: &Ruleset, turn: &Turn, start: Square) -> Vec<u8> {
    let mut dist = vec![u8::MAX; usize::from(rules.width()) * usize::from(rules.height())];
    let blocked = |sq: Square| {
        rules.is_lake(sq)
            || turn
                .pieces
                .binary_search_by_key(&sq, |p| p.square)
                .is_ok_and(|i| turn.pieces[i].color == turn.color && !turn.pieces[i].rank.is_some_and(Rank::is_mobile))
    };
    let mut queue = std::collections::VecDeque::from([start]);
    dist[walk_index(rules, start)] = 0;
    while let Some(sq) = queue.pop_front() {
        let d = dist[walk_index(rules, sq)];
        for n in neighbours(sq).filter(|&n| rules.on_board(n) && !blocked(n)) {
            if dist[walk_index(rules, n)] == u8::MAX {
                dist[walk_index(rules, n)] = d + 1;
                queue.push_back(n);
            }
        }
    }
    dist
}

/// Worth of a step of a guard towards the gate a likely Miner makes for (a square beside a
/// Bomb beside our Flag; [`crate::knowledge::FlagDefence::gate_guards`]), while that piece's
/// Miner probability is a quarter or more (less in proportion below).
pub const GATE_STEP: f64 = 60.0;

/// Worth of a step of our Spy towards lurking two squares from the known enemy Marshal.
pub const SPY_LURK: f64 = 40.0;

/// The worth of a quiet move of our `rank` from `from` to `to` against the known enemy
/// pieces: closing in on the most valuable one it beats, weighted by `hunt_weight`
/// ([`hunt_weight`]), and keeping two squares away from those that beat it. The Spy,
/// which takes the Marshal only by attacking it and is taken by it otherwise, lurks two
/// squares from the known Marshal ([`SPY_LURK`] a step): one step from striking, out of
/// its reach (it used to keep away, and took 15 Marshals in 200 games against
/// PeternLewis, whose known Marshal took three of our pieces a game).
fn chase(known: &[(Square, Rank)], rank: Rank, from: Square, to: Square, hunt_weight: f64) -> f64 {
    let mut score = 0.0;
    let mut prey: Option<(f64, Square)> = None;
    for &(sq, theirs) in known {
        let ours_wins = Combat::resolve(rank, theirs).result == CombatResult::AttackerWins;
        let theirs_wins = Combat::resolve(theirs, rank).result == CombatResult::AttackerWins;
        if rank == Rank::Spy && theirs == Rank::Marshal {
            let lurk = |s: Square| f64::from(s.distance(sq).abs_diff(2));
            score += hunt_weight * SPY_LURK * (lurk(from) - lurk(to));
        } else if ours_wins && (rank != Rank::Spy || theirs == Rank::Marshal) && !theirs_wins {
            let d = f64::from(sq.distance(from));
            let w = value(theirs) / (1.0 + 0.3 * d);
            if prey.is_none_or(|(b, _)| w > b) {
                prey = Some((w, sq));
            }
        } else if theirs_wins {
            // Within two squares, the enemy piece takes ours next move or the one after.
            let near = |s: Square| if s.distance(sq) <= 2 { 1.0 } else { 0.0 };
            score += 0.3 * value(rank) * (near(from) - near(to));
        }
    }
    if let Some((_, sq)) = prey {
        let v = known.iter().find(|k| k.0 == sq).map_or(0.0, |k| value(k.1));
        score += hunt_weight * 0.12 * v * (f64::from(sq.distance(from)) - f64::from(sq.distance(to)));
    }
    score
}

/// Quiet plies after which the hunt of a known enemy piece has faded out entirely.
pub const HUNT_FADE_PLIES: u32 = 60;

/// How much the hunt of known enemy pieces counts after `quiet` plies without a fight: in
/// full up to [`QUIET_PLIES`], then less and less, nothing after [`HUNT_FADE_PLIES`] more.
/// A known piece that flees round a lake or a block of pieces is never caught (the 2012
/// rules have no two-square rule to corner it, and a searching bot never steps into
/// reach); hunting it for ever drew won games at the ply limit. When the hunt fades, the
/// cheap pieces' probes ([`probe_bonus`]) take over and the game moves on.
pub fn hunt_weight(quiet: u32) -> f64 {
    let over = quiet.saturating_sub(QUIET_PLIES);
    (1.0 - f64::from(over) / f64::from(HUNT_FADE_PLIES)).max(0.0)
}

/// Plies without a fight after which the bot starts probing unknown pieces.
pub const QUIET_PLIES: u32 = 20;

/// Bonus for attacking an unknown piece with a cheap one after `quiet` plies without a
/// fight: neither side attacks pieces it cannot see, and both would shuffle until the ply
/// limit; a probe costs a little material and tells the search what it faces.
pub fn probe_bonus(turn: &Turn, m: Move, quiet: u32) -> f64 {
    if quiet < QUIET_PLIES {
        return 0.0;
    }
    let at = |sq| turn.pieces.binary_search_by_key(&sq, |p: &stratego_rules::ViewPiece| p.square).ok();
    let Some(from) = at(m.from) else { return 0.0 };
    if !matches!(turn.pieces[from].rank, Some(Rank::Scout | Rank::Sergeant | Rank::Lieutenant)) {
        return 0.0;
    }
    let urge = f64::from((quiet - QUIET_PLIES) * 2).min(120.0);
    match at(m.to).map(|i| &turn.pieces[i]) {
        Some(theirs) if theirs.color != turn.color && theirs.rank.is_none() => urge,
        Some(_) => 0.0,
        None => {
            // Step towards the nearest unknown enemy piece.
            let nearest = |sq: stratego_rules::Square| {
                turn.pieces
                    .iter()
                    .filter(|p| p.color != turn.color && p.rank.is_none())
                    .map(|p| p.square.distance(sq))
                    .min()
                    .unwrap_or(0)
            };
            let closer = i64::from(nearest(m.from)) - i64::from(nearest(m.to));
            0.25 * urge * closer.signum() as f64
        }
    }
}

/// Penalty for moving a piece straight back where it came from after `quiet` plies
/// without a fight: it grows with the quiet stretch, up to more than a fleeing piece gains,
/// so an endless chase (an enemy piece following ours to and fro without attacking) ends.
pub fn shuffle_penalty(quiet: u32) -> f64 {
    f64::from(quiet.saturating_sub(QUIET_PLIES)).min(200.0)
}

/// Worth of a step of a chased piece towards the nearest of our pieces that beats its
/// chaser, and of such a piece towards the chaser ([`chase_breaker`]).
pub const HELP_STEP: f64 = 20.0;

/// Bonus for ending a chase, a quiet move at a time: without a two-square rule an enemy
/// piece can follow one of ours for a thousand plies, ours fleeing every move (the ply-limit
/// draws against Asmodeus, its Marshal after our General). A chased piece (an enemy piece
/// next to it that likely beats it) flees towards the nearest of our other pieces whose
/// attack on the chaser gains on average; those pieces close in on the chaser. Next to such
/// a helper the chased piece stands defended ([`defended_threat`]) and stops fleeing.
fn chase_breaker(pos: &Position, m: Move) -> f64 {
    let turn = pos.turn;
    if pos.at(m.to).is_some() {
        return 0.0; // attacks are scored on their own
    }
    let Some(mine) = pos.at(m.from) else { return 0.0 };
    let Some(rank) = mine.rank else { return 0.0 };
    let ours = |p: &&ViewPiece| p.color == turn.color && p.rank.is_some_and(Rank::is_mobile);
    // Chasers: moved (or known mobile) enemy pieces next to one of ours they likely beat.
    let mut chasers: Vec<(Square, [f64; 12], Square)> = Vec::new();
    for v in turn.pieces.iter().filter(ours) {
        let vr = v.rank.unwrap_or(Rank::Flag);
        for n in neighbours(v.square) {
            let Some(e) = pos.at(n) else { continue };
            if e.color == turn.color || !(e.moved || e.rank.is_some_and(Rank::is_mobile)) {
                continue;
            }
            let d = pos.dist(e);
            if expected_threat(vr, &d) >= 0.25 * value(vr) {
                chasers.push((n, d, v.square));
            }
        }
    }
    let step = |target: Square| f64::from(target.distance(m.from)) - f64::from(target.distance(m.to));
    let mut bonus = 0.0;
    // The chased piece flees towards help.
    if let Some((_, d, _)) = chasers.iter().find(|c| c.2 == m.from) {
        let help = turn
            .pieces
            .iter()
            .filter(ours)
            .filter(|h| h.square != m.from && expected_attack(h.rank.unwrap_or(Rank::Flag), d) > 0.0)
            .map(|h| h.square)
            .min_by_key(|h| h.distance(m.from));
        if let Some(h) = help {
            bonus += HELP_STEP * step(h);
        }
    } else if let Some(&(c, _, _)) = chasers
        .iter()
        .filter(|c| c.2 != m.from && expected_attack(rank, &c.1) > HELP_STEP)
        .min_by_key(|c| c.0.distance(m.from))
    {
        // A helper closes in on the chaser.
        bonus += HELP_STEP * step(c);
    }
    bonus
}

/// [`ranked_with`], plus the urge to probe unknown pieces with cheap ones after `quiet`
/// plies without a fight ([`probe_bonus`]), and to end a chase ([`chase_breaker`]); the
/// hunt of known enemy pieces fades out over a long quiet stretch ([`hunt_weight`]).
pub fn ranked_quiet(rules: &Ruleset, turn: &Turn, rng: &mut Rng, evidence: &Evidence, quiet: u32) -> Vec<(f64, Move)> {
    let mut ranked = ranked_weighted(rules, turn, rng, evidence, hunt_weight(quiet));
    if quiet >= QUIET_PLIES {
        let pos = Position { turn, knowledge: Knowledge::with_setup_prior(rules, turn, evidence) };
        for (score, m) in &mut ranked {
            *score += chase_breaker(&pos, *m);
        }
        // Our own last move: stepping straight back is how two careful bots shuffle a
        // piece to and fro until the ply limit.
        let last = turn.plies.iter().rev().find(|p| p.color == turn.color).map(|p| p.mv);
        for (score, m) in &mut ranked {
            *score += probe_bonus(turn, *m, quiet);
            if last.is_some_and(|l| l.from == m.to && l.to == m.from) {
                *score -= shuffle_penalty(quiet);
            }
        }
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    }
    ranked
}

/// Picks the move with the best score; `quiet` is the number of plies since the last fight.
pub fn choose(rules: &Ruleset, turn: &Turn, rng: &mut Rng, evidence: &Evidence, quiet: u32) -> Move {
    ranked_quiet(rules, turn, rng, evidence, quiet).first().map_or(turn.legal_moves[0], |&(_, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(r: Rank) -> [f64; 12] {
        let mut p = [0.0; 12];
        p[r.index()] = 1.0;
        p
    }

    #[test]
    fn a_piece_is_threatened_by_the_enemy_pieces_that_beat_it_not_by_those_it_beats() {
        // Our Captain next to a known Major: taken for sure; next to a known Scout: safe.
        assert_eq!(expected_threat(Rank::Captain, &known(Rank::Major)), value(Rank::Captain));
        assert_eq!(expected_threat(Rank::Captain, &known(Rank::Scout)), 0.0);
        // Against an equal piece, a trade: nothing lost on balance.
        assert_eq!(expected_threat(Rank::Captain, &known(Rank::Captain)), 0.0);
        // The Marshal fears only the Spy (which takes it when attacking).
        assert_eq!(expected_threat(Rank::Marshal, &known(Rank::General)), 0.0);
        assert_eq!(expected_threat(Rank::Marshal, &known(Rank::Spy)), value(Rank::Marshal));
        // An unknown piece: in proportion to the ranks that beat ours.
        let mut half = [0.0; 12];
        half[Rank::Scout.index()] = 0.5;
        half[Rank::General.index()] = 0.5;
        assert_eq!(expected_threat(Rank::Major, &half), 0.5 * value(Rank::Major));
    }
}

#[cfg(test)]
mod shuffle_tests {
    use super::*;
    use stratego_rules::{ByColor, Game, Ply, PositionPiece};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// Red's revealed Captain on a6 (a known Bomb above it) has just fled from a5, and
    /// Blue's revealed General followed it from b5 to b6; Red has nothing else to move but
    /// a Scout far away.
    #[test]
    fn after_a_long_quiet_stretch_a_piece_stops_fleeing_to_and_fro() {
        let piece =
            |s: &str, color, rank, revealed| PositionPiece { square: sq(s), color, rank, moved: true, revealed };
        let pieces = [
            piece("a6", Color::Red, Rank::Captain, true),
            piece("b6", Color::Blue, Rank::General, true),
            piece("a7", Color::Blue, Rank::Bomb, true),
            piece("h1", Color::Red, Rank::Scout, false),
            piece("i1", Color::Red, Rank::Flag, false),
            piece("j10", Color::Blue, Rank::Flag, false),
        ];
        let game = Game::from_position(Ruleset::ucc2012(), &pieces, Color::Red, 300, ByColor::default()).unwrap();
        let mut legal_moves = Vec::new();
        game.legal_moves(&mut legal_moves);
        let mut turn = crate::tests::turn_of(&game, 0, legal_moves);
        turn.plies = vec![
            Ply { color: Color::Red, mv: "a5-a6".parse().unwrap(), combat: None },
            Ply { color: Color::Blue, mv: "b5-b6".parse().unwrap(), combat: None },
        ];
        let back: Move = "a6-a5".parse().unwrap();
        let best = |quiet| {
            let mut rng = Rng::new(1);
            ranked_quiet(&Ruleset::ucc2012(), &turn, &mut rng, &Evidence::default(), quiet)[0].1
        };
        // Fleeing straight back is the natural move; after a long quiet stretch, not any more.
        assert_eq!(best(0), back);
        assert_ne!(best(400), back);
        assert_eq!(shuffle_penalty(QUIET_PLIES), 0.0);
        assert!(shuffle_penalty(400) > shuffle_penalty(100));
    }
}

#[cfg(test)]
mod marshal_and_flag_tests {
    use super::*;
    use stratego_rules::{ByColor, Game, PositionPiece};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn turn_with(pieces: &[PositionPiece]) -> Turn {
        let game = Game::from_position(Ruleset::ucc2012(), pieces, Color::Red, 200, ByColor::default()).unwrap();
        let mut legal_moves = Vec::new();
        game.legal_moves(&mut legal_moves);
        crate::tests::turn_of(&game, 0, legal_moves)
    }

    fn piece(s: &str, color: Color, rank: Rank, moved: bool, revealed: bool) -> PositionPiece {
        PositionPiece { square: sq(s), color, rank, moved, revealed }
    }

    #[test]
    fn a_known_marshal_fears_any_unknown_neighbour_as_the_spy() {
        // Blue has its Spy and nine Scouts unseen: one in ten for each moved unknown piece.
        let mut pieces = vec![
            piece("e4", Color::Red, Rank::Marshal, true, true),
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("j10", Color::Blue, Rank::Flag, false, false),
            piece("e6", Color::Blue, Rank::Spy, true, false),
        ];
        for f in ["a", "b", "c", "d", "e", "f", "g", "h", "i"] {
            pieces.push(piece(&format!("{f}9"), Color::Blue, Rank::Scout, true, false));
        }
        let turn = turn_with(&pieces);
        let pos = Position {
            turn: &turn,
            knowledge: Knowledge::with_setup_prior(&Ruleset::ucc2012(), &turn, &Evidence::default()),
        };
        let e6 = pos.at(sq("e6")).unwrap();
        assert!(pos.dist(e6)[Rank::Spy.index()] < 0.2);
        // Known to the enemy, the Marshal on e5 risks at least the suspicion's share of itself.
        let known = pos.danger(Rank::Marshal, sq("e5"), sq("e4"), sq("e4"), true);
        assert!(known >= 0.9 * SPY_SUSPICION * value(Rank::Marshal) - 1e-9, "{known}");
        // Unknown, it risks only what the odds say.
        let unknown = pos.danger(Rank::Marshal, sq("e5"), sq("e4"), sq("e4"), false);
        assert!(unknown < 0.2 * value(Rank::Marshal), "{unknown}");
    }

    #[test]
    fn quiet_moves_go_to_pieces_already_shown_not_to_the_hidden_army() {
        // Red's Captain on e4 has moved; its Captain on b2 never did. Both can step forward
        // to an empty square with no enemy near (Blue has a Scout far away): the moved one
        // goes.
        let pieces = [
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("b2", Color::Red, Rank::Captain, false, false),
            piece("e4", Color::Red, Rank::Captain, true, false),
            piece("j10", Color::Blue, Rank::Flag, false, false),
            piece("j9", Color::Blue, Rank::Scout, true, false),
        ];
        let turn = turn_with(&pieces);
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let ranked = ranked_with(&Ruleset::ucc2012(), &turn, &mut rng, &Evidence::default());
            let score = |m: &str| ranked.iter().find(|(_, x)| *x == m.parse::<Move>().unwrap()).unwrap().0;
            assert_eq!(ranked[0].1.from, sq("e4"), "seed {seed}: {:?}", ranked[0]);
            // The same step, one piece hidden and one shown: the hidden one pays the cost
            // (give or take the tie-break).
            assert!(score("e4-e5") - score("b2-b3") >= UNMOVED_COST - 2.0, "seed {seed}");
        }
    }

    #[test]
    fn no_sacrifice_against_a_known_piece_that_beats_ours_near_our_flag() {
        // Blue's known Marshal on b1 stands next to our Flag on a1; our Scout on b2 could
        // attack it and die; our Spy on c1 could take it.
        let pieces = [
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("b2", Color::Red, Rank::Scout, true, false),
            piece("c1", Color::Red, Rank::Spy, true, false),
            piece("b1", Color::Blue, Rank::Marshal, true, true),
            piece("j10", Color::Blue, Rank::Flag, false, false),
        ];
        let turn = turn_with(&pieces);
        let mut rng = Rng::new(1);
        let ranked = ranked_with(&Ruleset::ucc2012(), &turn, &mut rng, &Evidence::default());
        let score = |m: &str| ranked.iter().find(|(_, x)| *x == m.parse::<Move>().unwrap()).unwrap().0;
        assert_eq!(ranked[0].1, "c1-b1".parse::<Move>().unwrap());
        assert!(score("b2-b1") < 0.0, "{}", score("b2-b1"));
    }
}

#[cfg(test)]
mod chase_tests {
    use super::*;
    use stratego_rules::{ByColor, Game, PositionPiece};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn piece(s: &str, color: Color, rank: Rank) -> PositionPiece {
        PositionPiece { square: sq(s), color, rank, moved: rank.is_mobile(), revealed: rank.is_mobile() }
    }

    /// Red's known Colonel chased by Blue's known General, Red's known Marshal at `marshal`.
    fn position(colonel: &str, general: &str, marshal: &str) -> Turn {
        let pieces = [
            piece("a1", Color::Red, Rank::Flag),
            piece(colonel, Color::Red, Rank::Colonel),
            piece(marshal, Color::Red, Rank::Marshal),
            piece(general, Color::Blue, Rank::General),
            piece("j10", Color::Blue, Rank::Flag),
        ];
        let game = Game::from_position(Ruleset::ucc2012(), &pieces, Color::Red, 300, ByColor::default()).unwrap();
        let mut legal_moves = Vec::new();
        game.legal_moves(&mut legal_moves);
        crate::tests::turn_of(&game, 0, legal_moves)
    }

    #[test]
    fn a_piece_next_to_a_defender_that_takes_the_attacker_back_is_safe() {
        assert_eq!(defended_threat(Rank::Colonel, &known(Rank::General), &[]), value(Rank::Colonel));
        assert_eq!(defended_threat(Rank::Colonel, &known(Rank::General), &[Rank::Marshal]), 0.0);
        // A defender the attacker also beats is no help; a trade back is worth its balance.
        assert_eq!(defended_threat(Rank::Colonel, &known(Rank::General), &[Rank::Major]), value(Rank::Colonel));
        let trade_back = defended_threat(Rank::Major, &known(Rank::General), &[Rank::General]);
        assert!((trade_back - value(Rank::Major)).abs() < 1e-9, "{trade_back}");
        // The Spy takes a Marshal back.
        let spy = defended_threat(Rank::General, &known(Rank::Marshal), &[Rank::Spy]);
        assert!(spy < 0.1 * value(Rank::General), "{spy}");
        // In a position: the Colonel on g4 next to our Marshal on h4 risks nothing; on e4, all.
        let turn = position("g4", "f4", "h4");
        let pos = Position {
            turn: &turn,
            knowledge: Knowledge::with_setup_prior(&Ruleset::ucc2012(), &turn, &Evidence::default()),
        };
        assert_eq!(pos.danger(Rank::Colonel, sq("g4"), sq("g3"), sq("g3"), true), 0.0);
        // The Marshal itself, were it the piece moving away, would not defend.
        let leaving = pos.danger(Rank::Colonel, sq("g4"), sq("g3"), sq("h4"), true);
        assert!((leaving - 0.9 * value(Rank::Colonel)).abs() < 1e-9, "{leaving}");
        let turn = position("e4", "e5", "h4");
        let pos = Position {
            turn: &turn,
            knowledge: Knowledge::with_setup_prior(&Ruleset::ucc2012(), &turn, &Evidence::default()),
        };
        let alone = pos.danger(Rank::Colonel, sq("e4"), sq("e3"), sq("e3"), true);
        assert!((alone - 0.9 * value(Rank::Colonel)).abs() < 1e-9, "{alone}");
    }

    fn known(r: Rank) -> [f64; 12] {
        let mut p = [0.0; 12];
        p[r.index()] = 1.0;
        p
    }

    #[test]
    fn a_chased_piece_flees_towards_help_and_help_comes() {
        let turn = position("e4", "e5", "h4");
        let scores = |quiet| {
            let mut rng = Rng::new(3);
            ranked_quiet(&Ruleset::ucc2012(), &turn, &mut rng, &Evidence::default(), quiet)
        };
        let score =
            |ranked: &[(f64, Move)], m: &str| ranked.iter().find(|(_, x)| *x == m.parse::<Move>().unwrap()).unwrap().0;
        // After a quiet stretch the Colonel flees towards the Marshal (f4), not away (d4),
        // and the Marshal's step towards the General gains the same.
        let late = scores(QUIET_PLIES);
        assert_eq!(late[0].1, "e4-f4".parse::<Move>().unwrap(), "{late:?}");
        assert!(score(&late, "e4-f4") - score(&late, "e4-d4") >= 2.0 * HELP_STEP - 2.0);
        let early = scores(0);
        let help_late = score(&late, "h4-g4") - score(&late, "h4-i4");
        let help_early = score(&early, "h4-g4") - score(&early, "h4-i4");
        assert!(help_late - help_early >= 2.0 * HELP_STEP - 4.0, "{help_late} {help_early}");
    }
}

#[cfg(test)]
mod hunt_fade_tests {
    use super::*;
    use stratego_rules::{ByColor, Game, PositionPiece};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// Red's known General on e3 and Blue's known Colonel on e7, which flees round the
    /// lakes; the Flags far apart; nothing else.
    fn turn() -> Turn {
        let piece =
            |s: &str, color, rank, shown| PositionPiece { square: sq(s), color, rank, moved: shown, revealed: shown };
        let pieces = [
            piece("a1", Color::Red, Rank::Flag, false),
            piece("e3", Color::Red, Rank::General, true),
            piece("e7", Color::Blue, Rank::Colonel, true),
            piece("j10", Color::Blue, Rank::Flag, false),
        ];
        let game = Game::from_position(Ruleset::ucc2012(), &pieces, Color::Red, 300, ByColor::default()).unwrap();
        let mut legal_moves = Vec::new();
        game.legal_moves(&mut legal_moves);
        crate::tests::turn_of(&game, 0, legal_moves)
    }

    #[test]
    fn the_hunt_of_a_known_piece_fades_over_a_long_quiet_stretch() {
        assert_eq!(hunt_weight(0), 1.0);
        assert_eq!(hunt_weight(QUIET_PLIES), 1.0);
        assert!((hunt_weight(QUIET_PLIES + HUNT_FADE_PLIES / 2) - 0.5).abs() < 1e-9);
        assert_eq!(hunt_weight(QUIET_PLIES + HUNT_FADE_PLIES), 0.0);
        assert_eq!(hunt_weight(u32::MAX), 0.0);
        let turn = turn();
        // The General's step towards the Colonel (e3-e4) against a step sideways (e3-d3,
        // as far from it by one more file), the tie-break's 2 points aside.
        let lead = |quiet| {
            let mut rng = Rng::new(9);
            let ranked = ranked_quiet(&Ruleset::ucc2012(), &turn, &mut rng, &Evidence::default(), quiet);
            let score = |m: &str| ranked.iter().find(|(_, x)| *x == m.parse::<Move>().unwrap()).unwrap().0;
            score("e3-e4") - score("e3-d3")
        };
        // Early, the hunt: 0.12 of the Colonel's value per square closed, both ways.
        let hunt = 2.0 * 0.12 * value(Rank::Colonel);
        assert!(lead(0) >= hunt - 2.0, "{}", lead(0));
        // After the fade only the step's progress (3 a rank) is left.
        let late = lead(QUIET_PLIES + HUNT_FADE_PLIES);
        assert!(late.abs() <= 3.0 + 2.0, "{late}");
    }
}

#[cfg(test)]
mod round3_tests {
    use super::*;
    use stratego_rules::{ByColor, Game, PositionPiece};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn piece(s: &str, color: Color, rank: Rank, moved: bool, revealed: bool) -> PositionPiece {
        PositionPiece { square: sq(s), color, rank, moved, revealed }
    }

    fn turn_with(pieces: &[PositionPiece]) -> Turn {
        let game = Game::from_position(Ruleset::ucc2012(), pieces, Color::Red, 200, ByColor::default()).unwrap();
        let mut legal_moves = Vec::new();
        game.legal_moves(&mut legal_moves);
        crate::tests::turn_of(&game, 0, legal_moves)
    }

    fn ranked_of(turn: &Turn, seed: u64) -> Vec<(f64, Move)> {
        let mut rng = Rng::new(seed);
        ranked_with(&Ruleset::ucc2012(), turn, &mut rng, &Evidence::default())
    }

    fn score(ranked: &[(f64, Move)], m: &str) -> f64 {
        ranked.iter().find(|(_, x)| *x == m.parse::<Move>().unwrap()).unwrap().0
    }

    #[test]
    fn suspicion_gives_the_ranks_that_beat_a_known_piece_at_least_the_floor() {
        let mut d = [0.0; 12];
        d[Rank::Marshal.index()] = 0.05;
        d[Rank::Scout.index()] = 0.55;
        d[Rank::Major.index()] = 0.4;
        let s = suspect(Rank::General, &d, 0.3);
        assert!((s[Rank::Marshal.index()] - 0.3).abs() < 1e-9, "{s:?}");
        assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!((s[Rank::Scout.index()] / s[Rank::Major.index()] - 0.55 / 0.4).abs() < 1e-9);
        // Already above the floor, or no unseen rank beats ours: unchanged.
        assert_eq!(suspect(Rank::General, &d, 0.04), d);
        let mut none = d;
        none[Rank::Marshal.index()] = 0.0;
        none[Rank::Scout.index()] = 0.6;
        assert_eq!(suspect(Rank::General, &none, 0.3), none);
    }

    #[test]
    fn a_known_general_keeps_away_from_unknown_pieces_the_enemy_brought_near() {
        // Red's known General on e4 could step to e5, next to a moved unknown Blue piece on
        // e6 (its army: the Marshal among 9 Scouts and a Sergeant still unseen).
        let mut pieces = vec![
            piece("e4", Color::Red, Rank::General, true, true),
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("j10", Color::Blue, Rank::Flag, false, false),
            piece("e6", Color::Blue, Rank::Marshal, true, false),
            piece("a9", Color::Blue, Rank::Sergeant, true, false),
        ];
        for f in ["b", "c", "d", "e", "f", "g", "h", "i"] {
            pieces.push(piece(&format!("{f}9"), Color::Blue, Rank::Scout, true, false));
        }
        let turn = turn_with(&pieces);
        let pos = Position {
            turn: &turn,
            knowledge: Knowledge::with_setup_prior(&Ruleset::ucc2012(), &turn, &Evidence::default()),
        };
        let e6 = pos.at(sq("e6")).unwrap();
        assert!(pos.dist(e6)[Rank::Marshal.index()] < 0.15, "{:?}", pos.dist(e6));
        // Known to the enemy, the General on e5 risks the suspicion's share of itself at least.
        let known = pos.danger(Rank::General, sq("e5"), sq("e4"), sq("e4"), true);
        assert!(known >= 0.9 * KNOWN_SUSPICION_MOVED * value(Rank::General) - 1e-9, "{known}");
        // Unknown, only what the odds say.
        let unknown = pos.danger(Rank::General, sq("e5"), sq("e4"), sq("e4"), false);
        assert!(unknown < 0.15 * value(Rank::General), "{unknown}");
    }

    #[test]
    fn taking_a_piece_that_threatens_ours_counts_what_it_saves() {
        // Blue's known Colonel on h9 stands next to our Captain on h8, which cannot move
        // (our Scouts on g8 and h7, our Major on i8); our Colonel on g9 can trade with it.
        let pieces = [
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("h8", Color::Red, Rank::Captain, true, false),
            piece("g8", Color::Red, Rank::Scout, false, false),
            piece("h7", Color::Red, Rank::Scout, false, false),
            piece("i8", Color::Red, Rank::Major, true, false),
            piece("g9", Color::Red, Rank::Colonel, true, false),
            piece("h9", Color::Blue, Rank::Colonel, true, true),
            piece("a10", Color::Blue, Rank::Flag, false, false),
        ];
        let turn = turn_with(&pieces);
        let ranked = ranked_of(&turn, 1);
        // A trade is worth nothing by itself; here it saves the Captain (0.8 of 100, the
        // Colonel being known and the Captain not).
        assert_eq!(ranked[0].1, "g9-h9".parse::<Move>().unwrap(), "{ranked:?}");
        let pos = Position {
            turn: &turn,
            knowledge: Knowledge::with_setup_prior(&Ruleset::ucc2012(), &turn, &Evidence::default()),
        };
        let h9 = pos.at(sq("h9")).unwrap();
        let relief = pos.relief(Rank::Colonel, h9, &pos.dist(h9), sq("g9"));
        assert!((relief - 0.8 * value(Rank::Captain)).abs() < 1e-9, "{relief}");
        // Our Major's attack, which loses, saves nothing.
        assert_eq!(pos.relief(Rank::Major, h9, &pos.dist(h9), sq("i8")), 0.0);
    }

    #[test]
    fn a_threatened_guard_leaves_its_post_and_an_unmoved_piece_its_hiding_place() {
        // Our unmoved Captain on e3 guards our Flag on e1; Blue's known Colonel on e4 is next
        // to it. Stepping aside to d3 or f3 (three squares from the Flag) beats staying.
        let pieces = [
            piece("e1", Color::Red, Rank::Flag, false, false),
            piece("e2", Color::Red, Rank::Bomb, false, false),
            piece("e3", Color::Red, Rank::Captain, false, false),
            piece("a2", Color::Red, Rank::Scout, true, false),
            piece("e4", Color::Blue, Rank::Colonel, true, true),
            piece("j10", Color::Blue, Rank::Flag, false, false),
        ];
        let turn = turn_with(&pieces);
        for seed in 0..10 {
            let ranked = ranked_of(&turn, seed);
            assert_eq!(ranked[0].1.from, sq("e3"), "seed {seed}: {ranked:?}");
            assert!(score(&ranked, "e3-d3") > 50.0, "seed {seed}: {ranked:?}");
        }
    }

    #[test]
    fn intruders_are_met_from_five_squares_by_the_pieces_that_beat_them_only() {
        // Blue's known Lieutenant on a6, five squares from our Flag on a1, walks down the
        // open file; our Captain on e2 and our Sergeant on c2 (which it beats).
        let pieces = [
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("e2", Color::Red, Rank::Captain, true, false),
            piece("c2", Color::Red, Rank::Sergeant, true, false),
            piece("a6", Color::Blue, Rank::Lieutenant, true, true),
            piece("j10", Color::Blue, Rank::Flag, false, false),
        ];
        let turn = turn_with(&pieces);
        let ranked = ranked_of(&turn, 1);
        // The Captain closes in (20 a step at five squares: a third of 60), the Sergeant not.
        assert!(score(&ranked, "e2-d2") - score(&ranked, "e2-f2") >= 40.0 - 3.0, "{ranked:?}");
        assert!((score(&ranked, "c2-b2") - score(&ranked, "c2-d2")).abs() <= 2.0, "{ranked:?}");
        // Forward or sideways, the Captain's step towards it is the move.
        assert_eq!(ranked[0].1.from, sq("e2"), "{ranked:?}");
        assert!(ranked[0].1.to.distance(sq("a6")) < sq("e2").distance(sq("a6")), "{ranked:?}");
    }

    #[test]
    fn the_spy_lurks_two_squares_from_the_known_marshal() {
        let known = [(sq("e6"), Rank::Marshal)];
        // From four squares to three, and from three to two: a step of the lurk each.
        assert_eq!(chase(&known, Rank::Spy, sq("e2"), sq("e3"), 1.0), SPY_LURK);
        assert_eq!(chase(&known, Rank::Spy, sq("e3"), sq("e4"), 1.0), SPY_LURK);
        // Not next to it (the Marshal would take it), and the lurk fades with the hunt.
        assert_eq!(chase(&known, Rank::Spy, sq("e4"), sq("e5"), 1.0), -SPY_LURK);
        assert_eq!(chase(&known, Rank::Spy, sq("e2"), sq("e3"), 0.5), 0.5 * SPY_LURK);
        // Other pieces still keep two squares away from a Marshal.
        assert!(chase(&known, Rank::Major, sq("e3"), sq("e4"), 1.0) < 0.0);
    }
}

#[cfg(test)]
mod miner_threat_tests {
    use super::*;
    use crate::knowledge::FlagDefence;
    use stratego_rules::{ByColor, Game, PieceCounts, PositionPiece};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// Red's Flag on a1 behind Bombs on a2 and b1, Red's Sergeant (moved, unknown) on
    /// `sergeant`; an unknown Blue piece that moved on a5, three steps from the Bomb on a2.
    fn ranked_for(sergeant: &str, defence: FlagDefence) -> Vec<(f64, Move)> {
        ranked_with_pieces(&[(sergeant, Rank::Sergeant)], defence)
    }

    /// [`ranked_for`] with these moved pieces of Red's.
    fn ranked_with_pieces(ours: &[(&str, Rank)], defence: FlagDefence) -> Vec<(f64, Move)> {
        let piece = |s: &str, color, rank, moved| PositionPiece { square: sq(s), color, rank, moved, revealed: false };
        let mut pieces = vec![
            piece("a1", Color::Red, Rank::Flag, false),
            piece("a2", Color::Red, Rank::Bomb, false),
            piece("b1", Color::Red, Rank::Bomb, false),
            piece("a5", Color::Blue, Rank::Major, true),
            piece("j10", Color::Blue, Rank::Flag, false),
        ];
        pieces.extend(ours.iter().map(|&(s, r)| piece(s, Color::Red, r, true)));
        // Blue has lost its Spy and Scouts: 24 mobile pieces unseen, 5 of them Miners, 15
        // that beat a Sergeant.
        let mut lost = ByColor::<PieceCounts>::default();
        lost[Color::Blue][Rank::Scout] = 8;
        lost[Color::Blue][Rank::Spy] = 1;
        let game = Game::from_position(Ruleset::ucc2012(), &pieces, Color::Red, 200, lost).unwrap();
        let mut legal_moves = Vec::new();
        game.legal_moves(&mut legal_moves);
        let turn = crate::tests::turn_of(&game, 0, legal_moves);
        let mut rng = Rng::new(4);
        ranked_with(&Ruleset::ucc2012(), &turn, &mut rng, &Evidence::with_defence(defence))
    }

    fn score(ranked: &[(f64, Move)], m: &str) -> f64 {
        ranked.iter().find(|(_, x)| *x == m.parse::<Move>().unwrap()).unwrap().0
    }

    #[test]
    fn a_piece_that_beats_a_miner_meets_a_likely_miner_near_the_bombs_of_our_flag() {
        // The unknown piece beats a Sergeant more often than not: on its own, no reason to
        // walk up to it (the tie-break's 2 points aside).
        let off = ranked_for("e2", FlagDefence::OFF);
        assert!((score(&off, "e2-d2") - score(&off, "e2-f2")).abs() <= 2.0, "{off:?}");
        // Near the Bombs that hide our Flag it may be a Miner on its way: the Sergeant, which
        // beats a Miner, closes in (40 a step at three steps from the Bomb, both ways).
        let on = ranked_for("e2", FlagDefence::TRIED);
        assert!(score(&on, "e2-d2") - score(&on, "e2-f2") >= 80.0 - 2.0, "{on:?}");
        assert!(on[0].1.to.distance(sq("a5")) < sq("e2").distance(sq("a5")), "{on:?}");
        assert!(off[0].1.to.distance(sq("a5")) >= sq("e2").distance(sq("a5")) || off[0].0 < 10.0, "{off:?}");
    }

    #[test]
    fn attacking_a_likely_miner_near_the_bombs_of_our_flag_is_worth_more() {
        let (off, on) = (ranked_for("b5", FlagDefence::OFF), ranked_for("b5", FlagDefence::TRIED));
        // Its Miner probability (5 of the 24 unseen mobile pieces) times the threat, half of
        // it at three steps from the Bomb.
        let gain = score(&on, "b5-a5") - score(&off, "b5-a5");
        let expected = 5.0 / 24.0 * MINER_THREAT * 0.5;
        assert!((gain - expected).abs() < 0.3 * expected, "{gain} {expected}");
    }

    #[test]
    fn the_nearest_piece_that_beats_a_miner_goes_to_the_gate_a_likely_miner_makes_for() {
        // The gate: a3, beside the Bomb on a2, nearest to the unknown piece on a5. Our
        // Sergeant on d3 is the nearest piece that beats a Miner; the Captain on h3 is not.
        let ours = [("d3", Rank::Sergeant), ("h3", Rank::Captain)];
        let no_gate = FlagDefence { gate_guards: 0, ..FlagDefence::TRIED };
        let (without, with) = (ranked_with_pieces(&ours, no_gate), ranked_with_pieces(&ours, FlagDefence::TRIED));
        let gained = |m: &str| score(&with, m) - score(&without, m);
        // Its Miner probability, 5 of 24, is below a quarter of the most threat there is at
        // three steps (half of it): the pull is 5/24 * 200 * 0.5 / 200 * 4 of a full step.
        let pull = GATE_STEP * (5.0 / 24.0 * 0.5 * 4.0);
        assert!((gained("d3-c3") - pull).abs() < 0.3 * pull, "{} {pull}", gained("d3-c3"));
        assert!((gained("d3-d4") + pull).abs() < 0.3 * pull, "{} {pull}", gained("d3-d4"));
        // The second guard is not asked.
        assert!(gained("h3-g3").abs() < 1e-9, "{}", gained("h3-g3"));
    }
}
