//! The `alphabeta` strategy: a determinised alpha-beta search.
//!
//! 1. The heuristic ([`ranked_quiet`]) scores every legal move; the best
//!    [`AlphaBetaConfig::candidates`] of them and every attack are searched.
//! 2. The bot deals [`AlphaBetaConfig::worlds`] full-information worlds consistent with what
//!    it knows ([`sample_world`]: revealed ranks stay, a piece that moved is no Bomb or Flag, a
//!    Scout that ran is a Scout, the ranks of pieces that moved weighted by what their moves
//!    showed, the Flag and Bombs where the Gravon setups put them).
//! 3. In each world, each candidate is searched by negamax alpha-beta to the same depth,
//!    captures resolved at the leaves (a quiescence search over the attacks that do not lose
//!    the attacker), material ([`crate::search::evaluate`]) at the leaves (optionally less
//!    what the pieces whose ranks their opponents know cost:
//!    [`AlphaBetaConfig::reveal_share`]). Below the root a side attacks the pieces whose
//!    ranks it knows, the enemy also our Flag and optionally the pieces beside it where
//!    its attacker wins ([`AlphaBetaConfig::guard_attacks`]: a Miner takes a Bomb guarding
//!    the Flag) or, where that pays on average for the attacker's rank, our hidden pieces
//!    ([`AlphaBetaConfig::blind_attacks`]).
//!    Iterative deepening: depth 1, 2, 3, ... while
//!    the node budget lasts, moves ordered by what the earlier iterations found
//!    ([`AlphaBetaConfig::ordering`]); the values of the last depth completed in every
//!    world are used.
//! 4. A candidate's value is its mean over the worlds (an expectation over the ranks the
//!    hidden pieces may have: the attack of an unknown piece counts every rank it may be),
//!    less the position's value now, plus [`HEURISTIC_WEIGHT`] times the heuristic's score
//!    (its positional knowledge: Flag defence, probing after a quiet stretch, the hunt of
//!    known pieces), plus a little seeded noise.
//!
//! The budget is a number of nodes ([`AlphaBetaConfig::nodes_per_ms`] times the share of the
//! move's time), so that play is deterministic for the seed whatever the machine's load. Two
//! deadlines stop the search early (the last depth completed is used then): the wall time
//! (or, with [`AlphaBetaConfig::cpu_clock`], the thread's CPU time) at [`AlphaBetaConfig::time_share`] of the move's time (a machine too slow for
//! the budget; a loaded machine that keeps the bot off its CPU does not count, so the bot
//! searches as deep as on an idle one), and the wall time at
//! [`AlphaBetaConfig::wall_share`] of it (40 %: a safety cap well inside the host's limit: the bot
//! never loses on time, at the cost of reproducibility on a machine that slow).

use std::time::{Duration, Instant};

use stratego_protocol::{Rng, Turn};
use stratego_rules::{Color, Combat, CombatResult, Game, Move, Rank, Ruleset, Square};

use crate::heuristic::{ranked_quiet, value};
use crate::knowledge::{Evidence, Knowledge};
use crate::search::{evaluate, sample_world};

/// Settings of the `alphabeta` strategy.
#[derive(Clone, Copy, Debug)]
pub struct AlphaBetaConfig {
    /// Quiet candidate moves searched (the heuristic's best); attacks are always searched.
    pub candidates: usize,
    /// Worlds sampled per move.
    pub worlds: u32,
    /// Deepest iteration, in plies (the quiescence search goes further).
    pub max_depth: u32,
    /// Nodes searched per millisecond of the move's time used (the deterministic budget).
    pub nodes_per_ms: f64,
    /// Share of the move's time the node budget is computed for, and after which, in the
    /// search thread's CPU time (wall time where the system has no such clock), the search
    /// stops whatever the budget.
    pub time_share: f64,
    /// Fixed node budget instead of one computed from the clock (reproducible on any clock).
    pub nodes: Option<u64>,
    /// Most nodes a move when the budget comes from the clock (a long move time would
    /// otherwise buy seconds of search a move).
    pub max_nodes: u64,
    /// Order the moves below the root by what earlier searches found: the best move of a
    /// position from the last iteration (a table keyed by the position's hash), two killer
    /// moves a ply and a history score a move (`Ordering`). Off, quiet moves keep the
    /// rules' order. The values are the same either way (each candidate is searched with a
    /// full window); ordering only prunes more: the same depth in fewer nodes.
    pub ordering: bool,
    /// Share of a mobile piece's value it loses once its opponent knows its rank (at the
    /// leaves, for both sides): a known piece can be hunted, dodged and bluffed, a hidden
    /// one cannot (`reveal_cost`). 0 (the default): material only. Measured at 0.1 in
    /// issue #46's fifth round (BENCHMARKS.md) without a gain: off by default.
    pub reveal_share: f64,
    /// Below the root, the enemy also attacks our pieces it does not know, where such an
    /// attack pays on average for the attacker's rank as the enemy sees it (`Blind`);
    /// off (the default), it attacks only the pieces of ours it knows (and our Flag).
    /// Measured with `reveal_share` 0.1 in issue #46's fifth round without a gain.
    pub blind_attacks: bool,
    /// Share of the move's time after which the search stops, in wall time, whatever the
    /// budget and the CPU time used: the safety cap against a loss on time on a machine so
    /// loaded that the bot waits longer for a CPU than the host credits. 0.4 (issue #46's
    /// sixth round measured 0.6, but `check` at 1 s a move then counted a move of 998 ms
    /// at load 10: stalls the host could not see).
    pub wall_share: f64,
    /// Whether the deadline at [`AlphaBetaConfig::time_share`] counts the search thread's
    /// CPU time (on) or the wall time (off, the default): in issue #46's sixth round the
    /// deeper searches that the CPU clock buys on a loaded machine won fewer games against
    /// Demon of Ignorance; the seventh traced that to the load on its own wall-clock
    /// search, not to the depth (BENCHMARKS.md).
    pub cpu_clock: bool,
    /// At the leaves, what the enemy's nearest threat to our Flag costs (`flag_danger`):
    /// by its distance, a mobile enemy piece's to the Flag while a square beside it is
    /// not one of our Bombs, a Miner's also through such a Bomb. The enemy's pieces are
    /// those of each sampled world: a likely Miner counts in the worlds where it is one.
    /// Off by default: measured in issue #46's sixth round (with `general_bonus` 0.5)
    /// without a gain (BENCHMARKS.md).
    pub flag_safety: bool,
    /// Share of a General's value it gains at the leaves while the opposing Marshal is
    /// off the board (then only a General or a Bomb stops it; both sides counted). 0 by
    /// default: 0.5 was measured in issue #46's sixth round without a gain.
    pub general_bonus: f64,
    /// Below the root, the enemy also attacks our pieces on the squares beside our Flag,
    /// hidden or not, wherever its attacker wins (in each sampled world): a Miner takes a
    /// Bomb that guards the Flag, then the Flag. Off, the search never sees a Flag lost
    /// through its Bombs (the enemy attacks only the pieces of ours it knows), and most of
    /// the games lost to Demon of Ignorance were lost that way. Off by default: measured
    /// in issue #46's seventh round without a gain (11 of 40 games against Demon of
    /// Ignorance where the level without it won 9; it changed none of the 405 moves of a
    /// replayed game: the threat shows too late for the search's depth; BENCHMARKS.md).
    pub guard_attacks: bool,
    /// At the root, the odds by which a hidden enemy piece beside a square where our
    /// Marshal captures is likelier than the bot's beliefs say to be the Spy (a piece the
    /// enemy leaves to our Marshal is bait beside its Spy); the extra chance of the Spy's
    /// strike costs the Marshal's value ([`spy_bait_cost`]). 1 (the default): the beliefs
    /// as they are. Issue #46's eighth round, base's 80 games against Demon of Ignorance
    /// replayed: after 96 captures of our Marshal next to hidden pieces the bot believed a
    /// Spy there at 9.3 % on average; one was there, and struck, in 19 (19.8 %). Our other
    /// ranks' recaptures were believed about as often as they came (Colonel 17 % / 18 %,
    /// Captain 24 % / 23 %, Lieutenant 50 % / 48 %). Measured at 2.5 with `known_attacks`
    /// in that round without a gain (14 of 40 games against 15 for base beside it).
    pub spy_odds: f64,
    /// Below the root, the enemy's pieces whose ranks we know also attack our pieces that
    /// have moved, hidden or not, wherever they win (in each sampled world). Off (the
    /// default), the search expects them to attack only the pieces of ours they know, and
    /// leaves a hidden piece beside a known piece that beats it. Issue #46's eighth round:
    /// in base's 80 games against Demon of Ignorance, after our move a hidden moved piece
    /// of ours stood beside a known enemy piece that beat it 615 times, and was taken at
    /// once in 337 (55 %); an unmoved one in 51 of 3,704 (1.4 %). In 397 of the 988 turns
    /// that began so, the bot moved another piece without taking the threat away. Measured
    /// with `spy_odds` 2.5 in that round without a gain (14 of 40 games against 15).
    pub known_attacks: bool,
}

impl Default for AlphaBetaConfig {
    fn default() -> AlphaBetaConfig {
        AlphaBetaConfig {
            candidates: 10,
            worlds: 12,
            max_depth: 6,
            nodes_per_ms: 1200.0,
            time_share: 0.2,
            nodes: None,
            max_nodes: 400_000,
            ordering: true,
            reveal_share: 0.0,
            blind_attacks: false,
            wall_share: 0.4,
            cpu_clock: false,
            flag_safety: false,
            general_bonus: 0.0,
            guard_attacks: false,
            spy_odds: 1.0,
            known_attacks: false,
        }
    }
}

/// Weight of the heuristic's score of a move beside the search's value of it.
pub const HEURISTIC_WEIGHT: f64 = 0.5;

/// Random spread added to each candidate's value (seeded): exact ties otherwise make play
/// repetitive.
const NOISE: f64 = 5.0;

/// Value of taking a hidden piece that turns out to be the Flag, at the root (as the
/// heuristic's prize for a possible Flag).
const HIDDEN_FLAG_PRIZE: f64 = 600.0;

/// What the pieces whose ranks their opponents know cost `color` (ours count against us,
/// the enemy's for us): [`AlphaBetaConfig::reveal_share`] of each one's value (mobile
/// pieces only: a known Bomb or Flag moves no less).
fn reveal_cost(game: &Game, known: &Known, color: Color, share: f64) -> f64 {
    if share == 0.0 {
        return 0.0;
    }
    let mut cost = 0.0;
    for (sq, c, r) in game.board_pieces() {
        if r.is_mobile() && known.get(sq) {
            cost += if c == color { value(r) } else { -value(r) };
        }
    }
    share * cost
}

/// What the enemy's nearest threat to our Flag costs, by the threat's distance in moves
/// (index 0 unused: a piece cannot stand on the Flag).
const FLAG_THREAT: [f64; 6] = [0.0, 150.0, 90.0, 50.0, 25.0, 10.0];

/// What `me`'s Flag's nearest threat costs [`FLAG_THREAT`]: the distance (in steps, lakes
/// and pieces in the way not counted) of the enemy's mobile piece closest to the Flag, a
/// Miner's through one of our Bombs beside the Flag (its distance to the Bomb plus one)
/// and, while a square beside the Flag is not one of our Bombs, any piece's.
fn flag_danger(game: &Game, me: Color) -> f64 {
    let Some(flag) = game.board_pieces().find(|&(_, c, r)| c == me && r == Rank::Flag).map(|(s, _, _)| s) else {
        return 0.0;
    };
    let rules = game.rules();
    let mut bombs: [Option<Square>; 4] = [None; 4];
    let mut open = false;
    let (f, r) = (i16::from(flag.file()), i16::from(flag.rank()));
    for (i, (df, dr)) in [(0, 1), (1, 0), (0, -1), (-1, 0)].into_iter().enumerate() {
        let (nf, nr) = (f + df, r + dr);
        let Some(n) = u8::try_from(nf).ok().zip(u8::try_from(nr).ok()).and_then(|(a, b)| Square::new(a, b)) else {
            continue;
        };
        if !rules.on_board(n) || rules.is_lake(n) {
            continue;
        }
        match game.piece_at(n) {
            Some((c, Rank::Bomb)) if c == me => bombs[i] = Some(n),
            _ => open = true,
        }
    }
    let mut nearest = u8::MAX;
    for (s, c, rank) in game.board_pieces() {
        if c == me || !rank.is_mobile() {
            continue;
        }
        if open {
            nearest = nearest.min(s.distance(flag));
        }
        if rank == Rank::Miner {
            for b in bombs.iter().flatten() {
                nearest = nearest.min(s.distance(*b).saturating_add(1));
            }
        }
    }
    FLAG_THREAT.get(usize::from(nearest)).copied().unwrap_or(0.0)
}

/// What each side's General gains while the opposing Marshal is off the board
/// ([`AlphaBetaConfig::general_bonus`]), `color`'s less the opponent's.
fn general_bonus(game: &Game, color: Color, share: f64) -> f64 {
    if share == 0.0 {
        return 0.0;
    }
    let mut marshals = [0u32; 2];
    let mut generals = [0u32; 2];
    for (_, c, r) in game.board_pieces() {
        match r {
            Rank::Marshal => marshals[c.index()] += 1,
            Rank::General => generals[c.index()] += 1,
            _ => {}
        }
    }
    let bonus = |c: Color| {
        if marshals[(!c).index()] == 0 { share * value(Rank::General) * f64::from(generals[c.index()]) } else { 0.0 }
    };
    bonus(color) - bonus(!color)
}

/// The value of `game` at a leaf for `side`: material ([`evaluate`]), less what revealed
/// pieces cost ([`reveal_cost`]), less the threat to `me`'s Flag ([`flag_danger`], for `me`;
/// the enemy's Flag, a guess in each world, is left to the heuristic), plus the Generals'
/// bonus ([`general_bonus`]).
fn leaf(game: &Game, known: &Known, side: Color, me: Color, config: &AlphaBetaConfig) -> f64 {
    let mut v = evaluate(game, side) - reveal_cost(game, known, side, config.reveal_share)
        + general_bonus(game, side, config.general_bonus);
    if config.flag_safety && game.outcome().is_none() {
        let danger = flag_danger(game, me);
        v += if side == me { -danger } else { danger };
    }
    v
}

/// Probability from which an enemy piece's rank counts as known to the search.
const CERTAIN: f64 = 0.99;

/// Plies of captures the quiescence search follows past the nominal depth.
const QUIESCENCE_PLIES: u32 = 6;

/// Value of a won game, less [`WIN_PLY`] a ply to reach it (a quicker win is better, a
/// later loss less bad).
const WIN: f64 = 5_000.0;

/// What each ply costs a win (see [`WIN`]).
const WIN_PLY: f64 = 50.0;

/// The squares whose piece's rank its opponent knows (by square index): below the root,
/// a side attacks only pieces it knows (and the enemy our Flag). Without this each world's search attacks exactly
/// the hidden pieces it beats in that world, which no player can do, and every square next
/// to hidden enemy pieces looks good (strategy fusion).
#[derive(Clone, Copy)]
struct Known {
    /// Whose rank the opponent knows.
    known: Bits,
    /// Which of our pieces have moved (for [`Blind`]).
    moved: Bits,
}

/// One bit a mailbox square.
#[derive(Clone, Copy, Default)]
struct Bits([u64; 4]);

impl Bits {
    fn get(&self, sq: Square) -> bool {
        self.0[sq.index() / 64] & (1 << (sq.index() % 64)) != 0
    }

    fn set(&mut self, sq: Square, on: bool) {
        let (w, b) = (sq.index() / 64, 1u64 << (sq.index() % 64));
        if on {
            self.0[w] |= b;
        } else {
            self.0[w] &= !b;
        }
    }
}

impl Known {
    fn get(&self, sq: Square) -> bool {
        self.known.get(sq)
    }

    fn set(&mut self, sq: Square, on: bool) {
        self.known.set(sq, on);
    }

    fn moved(&self, sq: Square) -> bool {
        self.moved.get(sq)
    }

    /// The pieces whose ranks are known in `turn`: ours revealed, the enemy's with a rank
    /// or whose rank is certain ([`CERTAIN`]) from what we know (the last unmoved piece
    /// when only the Flag is unseen among the immobile ranks, say).
    fn of(rules: &Ruleset, turn: &Turn, evidence: &Evidence) -> Known {
        let mut k = Known { known: Bits::default(), moved: Bits::default() };
        let knowledge = Knowledge::with_setup_prior(rules, turn, evidence);
        for p in &turn.pieces {
            if p.color == turn.color && p.moved {
                k.moved.set(p.square, true);
            }
            let known = if p.color == turn.color {
                p.revealed
            } else {
                p.rank.is_some() || knowledge.distribution(p).iter().any(|&x| x >= CERTAIN)
            };
            if known {
                k.set(p.square, true);
            }
        }
        k
    }

    /// After `m` is played in `before`: a piece that fought or ran (a Scout's long move)
    /// is known where it stands.
    fn after(&self, before: &Game, m: Move) -> Known {
        let mut k = *self;
        let fought = before.piece_at(m.to).is_some();
        let mover_known = k.get(m.from) || fought || m.from.distance(m.to) > 1;
        k.set(m.from, false);
        k.set(m.to, mover_known);
        k.moved.set(m.from, false);
        k.moved.set(m.to, true);
        k
    }
}

/// Which enemy ranks attack a piece of ours they do not know (below the root, with
/// [`AlphaBetaConfig::blind_attacks`]): those whose attack on one of our hidden pieces
/// gains on average, over the ranks our hidden pieces have (split by whether the target
/// has moved: a piece that moved is no Bomb or Flag), a Flag counted as
/// [`HIDDEN_FLAG_PRIZE`]. The enemy then picks among those attacks as if it knew the
/// outcome (pessimistic for us); the enemy ranks are those of each sampled world.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Blind {
    /// By attacker rank index: attacks an unmoved piece of ours, attacks a moved one.
    attacks: [[bool; 2]; 12],
}

impl Blind {
    /// No blind attacks (the enemy attacks only what it knows).
    const NONE: Blind = Blind { attacks: [[false; 2]; 12] };

    fn of(turn: &Turn) -> Blind {
        let mut b = Blind::NONE;
        for (moved, slot) in [(false, 0), (true, 1)] {
            let pool: Vec<Rank> = turn
                .pieces
                .iter()
                .filter(|p| p.color == turn.color && !p.revealed && p.moved == moved)
                .filter_map(|p| p.rank)
                .collect();
            if pool.is_empty() {
                continue;
            }
            for attacker in Rank::ALL.into_iter().filter(|r| r.is_mobile()) {
                let gain: f64 = pool
                    .iter()
                    .map(|&r| {
                        let prize = if r == Rank::Flag { HIDDEN_FLAG_PRIZE } else { value(r) };
                        match Combat::resolve(attacker, r).result {
                            CombatResult::AttackerWins => prize,
                            CombatResult::BothRemoved => prize - value(attacker),
                            CombatResult::DefenderWins => -value(attacker),
                        }
                    })
                    .sum();
                b.attacks[attacker.index()][slot] = gain > 0.0;
            }
        }
        b
    }

    fn attacks(&self, attacker: Rank, target_moved: bool) -> bool {
        self.attacks[attacker.index()][usize::from(target_moved)]
    }
}

/// What a search of one world returns per candidate move.
struct Searcher {
    /// The side the search is for.
    me: Color,
    nodes: u64,
    node_limit: u64,
    /// The search's clock and when it stops.
    clock: Box<dyn SearchClock>,
    /// CPU time (of the search's thread) after which the search stops.
    cpu_limit: Duration,
    /// Wall time after which the search stops.
    wall_limit: Duration,
    stopped: bool,
    /// The settings (the leaves' terms).
    config: AlphaBetaConfig,
    /// The enemy's attacks on our hidden pieces.
    blind: Blind,
    /// Move ordering, if on.
    order: Option<Ordering>,
    /// The squares beside our Flag ([`AlphaBetaConfig::guard_attacks`]; none when off).
    guards: Bits,
}

/// Slots of the table of best moves ([`Ordering::best`]), a power of two.
const BEST_SLOTS: usize = 1 << 16;

/// What earlier searches of this move found, to try the likeliest best move first below
/// the root (alpha-beta prunes most when the best move comes first).
struct Ordering {
    /// The best move (or the one that cut off) of a position, keyed by the position's hash
    /// and the world: filled by each iteration, tried first by the next.
    best: Vec<(u64, Option<Move>)>,
    /// Two quiet moves a ply that cut off a search at that ply (killer moves).
    killers: Vec<[Option<Move>; 2]>,
    /// How often, weighted by the depth left, a quiet move cut off a search (by from and
    /// to square).
    history: Vec<u32>,
    /// The world being searched (part of the table's key).
    world: u64,
}

impl Ordering {
    fn new() -> Ordering {
        Ordering { best: vec![(0, None); BEST_SLOTS], killers: Vec::new(), history: vec![0; 256 * 256], world: 0 }
    }

    fn key(&self, game: &Game) -> u64 {
        game.position_hash() ^ self.world.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn best_move(&self, game: &Game) -> Option<Move> {
        let key = self.key(game);
        match self.best[key as usize & (BEST_SLOTS - 1)] {
            (k, m) if k == key => m,
            _ => None,
        }
    }

    fn killers(&self, ply: u32) -> [Option<Move>; 2] {
        self.killers.get(ply as usize).copied().unwrap_or([None, None])
    }

    fn history(m: Move) -> usize {
        m.from.index() * 256 + m.to.index()
    }

    /// Notes that `m` was best in `game` (searched `depth` plies deep at `ply`); `quiet`:
    /// it attacked nothing.
    fn record(&mut self, game: &Game, m: Move, depth: u32, ply: u32, cutoff: bool, quiet: bool) {
        let key = self.key(game);
        self.best[key as usize & (BEST_SLOTS - 1)] = (key, Some(m));
        if cutoff && quiet {
            let i = ply as usize;
            if self.killers.len() <= i {
                self.killers.resize(i + 1, [None, None]);
            }
            let k = &mut self.killers[i];
            if k[0] != Some(m) {
                k[1] = k[0];
                k[0] = Some(m);
            }
            let h = &mut self.history[Ordering::history(m)];
            *h = h.saturating_add(depth * depth).min(HISTORY_MAX);
        }
    }

    /// Sorts `moves` (from [`ordered_moves`]: attacks scored by their trade, quiet moves 0)
    /// best first: the table's move, attacks that do not lose material, killer moves, the
    /// other quiet moves by history, attacks that lose material.
    fn sort(&self, game: &Game, ply: u32, moves: &mut [(f64, Move)]) {
        let best = self.best_move(game);
        let killers = self.killers(ply);
        for (score, m) in moves.iter_mut() {
            *score = if Some(*m) == best {
                1e9
            } else if *score >= ATTACK / 2.0 {
                // Attacks: `ATTACK + gain`.
                let gain = *score - ATTACK;
                if gain >= 0.0 { 1e7 + gain } else { -1e7 + gain }
            } else if killers[0] == Some(*m) {
                2e6
            } else if killers[1] == Some(*m) {
                2e6 - 1.0
            } else {
                f64::from(self.history[Ordering::history(*m)])
            };
        }
        moves.sort_by(|a, b| b.0.total_cmp(&a.0));
    }
}

/// Cap of a history score (below the killers' place in [`Ordering::sort`]).
const HISTORY_MAX: u32 = 1_000_000;

/// What [`ordered_moves`] adds to an attack's trade value (attacks first).
const ATTACK: f64 = 100_000.0;

impl Searcher {
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit
            || (self.nodes & 127 == 0 && (self.clock.cpu() >= self.cpu_limit || self.clock.wall() >= self.wall_limit))
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Negamax value of `game` for the side to move, `depth` plies deep then quiescence.
    fn negamax(&mut self, game: &Game, known: &Known, depth: u32, mut alpha: f64, beta: f64, ply: u32) -> f64 {
        if self.tick() {
            return 0.0;
        }
        if let Some(v) = terminal(game, ply) {
            return v;
        }
        if depth == 0 {
            return self.quiesce(game, known, alpha, beta, ply, QUIESCENCE_PLIES);
        }
        let mut moves =
            ordered_moves(game, known, self.me, &self.blind, &self.guards, self.config.known_attacks, false);
        if let Some(o) = &self.order {
            o.sort(game, ply, &mut moves);
        }
        let mut best = f64::NEG_INFINITY;
        let mut best_move = None;
        for (_, m) in moves {
            let mut child = game.clone();
            let k = known.after(game, m);
            let quiet = game.piece_at(m.to).is_none();
            child.play_unchecked(m);
            let v = -self.negamax(&child, &k, depth - 1, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0.0;
            }
            if v > best {
                best = v;
                best_move = Some((m, quiet));
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                if let Some(o) = &mut self.order {
                    o.record(game, m, depth, ply, true, quiet);
                }
                return best;
            }
        }
        if let (Some(o), Some((m, quiet))) = (&mut self.order, best_move) {
            o.record(game, m, depth, ply, false, quiet);
        }
        // Every move attacks a hidden piece: standing still is not possible, but the
        // search does not guess which hidden piece a real player would attack.
        if best == f64::NEG_INFINITY { self.quiesce(game, known, alpha, beta, ply, 0) } else { best }
    }

    /// Stand pat or resolve the attacks that do not lose the attacker.
    fn quiesce(&mut self, game: &Game, known: &Known, mut alpha: f64, beta: f64, ply: u32, left: u32) -> f64 {
        let stand = leaf(game, known, game.to_move(), self.me, &self.config);
        if stand >= beta || left == 0 {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut best = stand;
        for (_, m) in ordered_moves(game, known, self.me, &self.blind, &self.guards, self.config.known_attacks, true) {
            if self.tick() {
                return 0.0;
            }
            let mut child = game.clone();
            let k = known.after(game, m);
            child.play_unchecked(m);
            let v = match terminal(&child, ply + 1) {
                Some(t) => -t,
                None => -self.quiesce(&child, &k, -beta, -alpha, ply + 1, left - 1),
            };
            if self.stopped {
                return 0.0;
            }
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// The value of a finished game for the side to move, `None` while it goes on.
fn terminal(game: &Game, ply: u32) -> Option<f64> {
    let o = game.outcome()?;
    Some(match o.winner {
        Some(w) if w == game.to_move() => WIN - WIN_PLY * f64::from(ply),
        Some(_) => -(WIN - WIN_PLY * f64::from(ply)),
        None => 0.0,
    })
}

/// Legal moves, attacks first (the best trade first), leaving out attacks on pieces the
/// attacker does not know, except the enemy's on our Flag (`me`'s: a player attacks the
/// pieces likeliest to be the Flag, and the search defends its own Flag against every
/// enemy piece in reach), the enemy's winning attacks on the squares beside our Flag
/// (`guards`), with `known_attacks` the winning attacks of its pieces we know on our
/// pieces that have moved, and the enemy's that `blind` lets it make; with `attacks_only`,
/// only the attacks that do not lose the attacker.
fn ordered_moves(
    game: &Game,
    known: &Known,
    me: Color,
    blind: &Blind,
    guards: &Bits,
    known_attacks: bool,
    attacks_only: bool,
) -> Vec<(f64, Move)> {
    let enemy_to_move = game.to_move() != me;
    let mut buf = Vec::with_capacity(64);
    game.legal_moves(&mut buf);
    let mut out = Vec::with_capacity(buf.len());
    for m in buf {
        let Some((_, mine)) = game.piece_at(m.from) else { continue };
        match game.piece_at(m.to) {
            Some((_, theirs))
                if !(known.get(m.to)
                    || (enemy_to_move
                        && (theirs == Rank::Flag
                            || blind.attacks(mine, known.moved(m.to))
                            || ((guards.get(m.to) || (known_attacks && known.get(m.from) && known.moved(m.to)))
                                && Combat::resolve(mine, theirs).result == CombatResult::AttackerWins)))) => {}
            Some((_, theirs)) => {
                let gain = match Combat::resolve(mine, theirs).result {
                    CombatResult::AttackerWins => value(theirs),
                    CombatResult::BothRemoved => value(theirs) - value(mine),
                    CombatResult::DefenderWins if attacks_only => continue,
                    CombatResult::DefenderWins => -value(mine),
                };
                out.push((gain + ATTACK, m));
            }
            None if attacks_only => {}
            None => out.push((0.0, m)),
        }
    }
    // Stable: quiet moves keep the rules' order.
    out.sort_by(|a, b| b.0.total_cmp(&a.0));
    out
}

/// What our Marshal's capture `m` loses on top of what the worlds count when each hidden
/// enemy piece beside the target square is `odds` times likelier (in odds) than
/// `knowledge` says to be the Spy ([`AlphaBetaConfig::spy_odds`]): the Marshal's value
/// times the chance its attack wins times the extra chance that a Spy beside it strikes.
/// 0 for a quiet move, another rank's capture, an attack that cannot win, or `odds` of 1.
pub fn spy_bait_cost(turn: &Turn, knowledge: &Knowledge, m: Move, odds: f64) -> f64 {
    let at = |sq: Square| turn.pieces.iter().find(|p| p.square == sq);
    let (Some(mine), Some(target)) = (at(m.from), at(m.to)) else { return 0.0 };
    if mine.color != turn.color || target.color == turn.color || mine.rank != Some(Rank::Marshal) || odds == 1.0 {
        return 0.0;
    }
    let target_d = knowledge.distribution(target);
    let p_win: f64 = Rank::ALL
        .iter()
        .filter(|r| Combat::resolve(Rank::Marshal, **r).result == CombatResult::AttackerWins)
        .map(|r| target_d[r.index()])
        .sum();
    let (mut safe, mut safe_guarded) = (1.0, 1.0);
    for n in turn.pieces.iter().filter(|p| p.color != turn.color && p.rank.is_none()) {
        if n.square == m.to || !n.square.is_adjacent(m.to) {
            continue;
        }
        let spy = knowledge.distribution(n)[Rank::Spy.index()];
        safe *= 1.0 - spy;
        safe_guarded *= 1.0 - odds * spy / (1.0 + (odds - 1.0) * spy);
    }
    value(Rank::Marshal) * p_win * (safe - safe_guarded)
}

/// The squares beside `turn`'s side's Flag (on the board, no lake): where the enemy's
/// winning attacks are searched whether it knows the piece there or not
/// ([`AlphaBetaConfig::guard_attacks`]).
fn guards_of(rules: &Ruleset, turn: &Turn) -> Bits {
    let mut guards = Bits::default();
    let Some(flag) = turn.pieces.iter().find(|p| p.color == turn.color && p.rank == Some(Rank::Flag)) else {
        return guards;
    };
    let (f, r) = (i16::from(flag.square.file()), i16::from(flag.square.rank()));
    for (df, dr) in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
        let n = u8::try_from(f + df).ok().zip(u8::try_from(r + dr).ok()).and_then(|(a, b)| Square::new(a, b));
        if let Some(n) = n.filter(|&n| rules.on_board(n) && !rules.is_lake(n)) {
            guards.set(n, true);
        }
    }
    guards
}

/// What [`choose_with_report`] found.
#[derive(Clone, Debug)]
pub struct Report {
    /// The move chosen.
    pub mv: Move,
    /// The deepest iteration completed in every world (0: none, the heuristic's choice).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Worlds searched.
    pub worlds: u32,
    /// Each candidate with its search value (the mean over the worlds, less the value now).
    pub values: Vec<(Move, f64)>,
}

/// Chooses a move; `quiet` is the number of plies since the last fight.
pub fn choose(
    rules: &Ruleset,
    turn: &Turn,
    rng: &mut Rng,
    config: &AlphaBetaConfig,
    quiet: u32,
    evidence: &Evidence,
) -> Move {
    choose_with_report(rules, turn, rng, config, quiet, evidence).mv
}

/// [`choose`], with what the search found.
pub fn choose_with_report(
    rules: &Ruleset,
    turn: &Turn,
    rng: &mut Rng,
    config: &AlphaBetaConfig,
    quiet: u32,
    evidence: &Evidence,
) -> Report {
    choose_clocked(rules, turn, rng, config, quiet, evidence, Box::new(ThreadClock::start(config.cpu_clock)))
}

/// The time a search has used: its thread's CPU time and the wall time, since it started.
trait SearchClock {
    /// CPU time the search's thread has used.
    fn cpu(&mut self) -> Duration;
    /// Wall time since the search started.
    fn wall(&mut self) -> Duration;
}

/// The real clocks: `CLOCK_THREAD_CPUTIME_ID` on Linux, the wall clock for both elsewhere
/// or when the CPU clock is not asked for.
struct ThreadClock {
    started: Instant,
    cpu_started: Option<Duration>,
}

impl ThreadClock {
    fn start(cpu_clock: bool) -> ThreadClock {
        ThreadClock { started: Instant::now(), cpu_started: if cpu_clock { thread_cpu_time() } else { None } }
    }
}

impl SearchClock for ThreadClock {
    fn cpu(&mut self) -> Duration {
        match (self.cpu_started, thread_cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => self.started.elapsed(),
        }
    }

    fn wall(&mut self) -> Duration {
        self.started.elapsed()
    }
}

/// CPU time the calling thread has used, where the system tells it.
#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Option<Duration> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

/// CPU time the calling thread has used: not known here (the wall clock stands in).
#[cfg(not(target_os = "linux"))]
fn thread_cpu_time() -> Option<Duration> {
    None
}

/// [`choose_with_report`] on the given clock.
fn choose_clocked(
    rules: &Ruleset,
    turn: &Turn,
    rng: &mut Rng,
    config: &AlphaBetaConfig,
    quiet: u32,
    evidence: &Evidence,
    clock: Box<dyn SearchClock>,
) -> Report {
    let ranked = ranked_quiet(rules, turn, rng, evidence, quiet);
    let fallback = ranked.first().map_or(turn.legal_moves[0], |&(_, m)| m);
    let report = |mv, depth, nodes, worlds, values| Report { mv, depth, nodes, worlds, values };
    if ranked.len() <= 1 {
        return report(fallback, 0, 0, 0, Vec::new());
    }
    // The candidates: the heuristic's best quiet moves and every attack.
    let enemy_at = |m: &Move| turn.pieces.iter().any(|p| p.square == m.to && p.color != turn.color);
    let (prior, candidates): (Vec<f64>, Vec<Move>) = ranked
        .iter()
        .enumerate()
        .filter(|(i, (_, m))| *i < config.candidates || enemy_at(m))
        .map(|(_, &(s, m))| (s, m))
        .unzip();
    let worlds: Vec<Game> = {
        let mut w = Vec::with_capacity(config.worlds as usize);
        let mut tries = 0;
        while w.len() < config.worlds as usize && tries < 3 * config.worlds {
            tries += 1;
            if let Some(g) = sample_world(rules, turn, rng, evidence) {
                w.push(g);
            }
        }
        w
    };
    if worlds.is_empty() {
        return report(fallback, 0, 0, 0, Vec::new());
    }
    let move_ms = turn.clock.move_ms as f64 * config.time_share;
    let node_limit = config.nodes.unwrap_or(((move_ms * config.nodes_per_ms) as u64).min(config.max_nodes));
    let cpu_limit = Duration::from_secs_f64((move_ms - 5.0).max(1.0) / 1000.0);
    let wall_ms = turn.clock.move_ms as f64 * config.wall_share;
    let wall_limit = Duration::from_secs_f64((wall_ms - 5.0).max(1.0) / 1000.0);
    let known = Known::of(rules, turn, evidence);
    let order = config.ordering.then(Ordering::new);
    let mut searcher = Searcher {
        me: turn.color,
        nodes: 0,
        node_limit,
        clock,
        cpu_limit,
        wall_limit,
        stopped: false,
        config: *config,
        blind: if config.blind_attacks { Blind::of(turn) } else { Blind::NONE },
        order,
        guards: if config.guard_attacks { guards_of(rules, turn) } else { Bits::default() },
    };
    // The candidates' summed values at the last depth completed in every world.
    let mut done: Option<(u32, Vec<f64>)> = None;
    let mut last_cost = 0u64;
    for depth in 1..=config.max_depth {
        // Stop before an iteration that would not finish: each costs several times the last.
        let before = searcher.nodes;
        if depth > 2 && before + last_cost.saturating_mul(3) > node_limit {
            break;
        }
        let mut totals = vec![0.0; candidates.len()];
        'worlds: for (w, world) in worlds.iter().enumerate() {
            if let Some(o) = &mut searcher.order {
                o.world = w as u64 + 1;
            }
            let now = leaf(world, &known, turn.color, turn.color, config);
            for (i, &m) in candidates.iter().enumerate() {
                if world.check_move(m).is_err() {
                    totals[i] -= WIN;
                    continue;
                }
                let mut g = world.clone();
                let k = known.after(world, m);
                let hidden = world.piece_at(m.to).is_some_and(|_| !known.get(m.to));
                g.play_unchecked(m);
                let v = match terminal(&g, 1) {
                    // The attack of a hidden piece that is the Flag in this world: worth
                    // a prize, not the game (counted as the game, every unmoved piece with
                    // a few per cent of Flag is worth a General's risk on a Bomb).
                    Some(_) if hidden && g.outcome().is_some_and(|o| o.winner == Some(turn.color)) => {
                        now + HIDDEN_FLAG_PRIZE
                    }
                    Some(t) => -t,
                    None => -searcher.negamax(&g, &k, depth - 1, f64::NEG_INFINITY, f64::INFINITY, 1),
                };
                if searcher.stopped {
                    break 'worlds;
                }
                totals[i] += v - now;
            }
        }
        if searcher.stopped {
            break;
        }
        last_cost = searcher.nodes - before;
        done = Some((depth, totals));
    }
    let Some((depth, totals)) = done else {
        return report(fallback, 0, searcher.nodes, worlds.len() as u32, Vec::new());
    };
    let n = worlds.len() as f64;
    let noise: Vec<f64> = (0..candidates.len()).map(|_| rng.unit() * NOISE).collect();
    let bait: Vec<f64> = if config.spy_odds == 1.0 {
        vec![0.0; candidates.len()]
    } else {
        let knowledge = Knowledge::with_setup_prior(rules, turn, evidence);
        candidates.iter().map(|&m| spy_bait_cost(turn, &knowledge, m, config.spy_odds)).collect()
    };
    let score = |i: usize| totals[i] / n - bait[i] + HEURISTIC_WEIGHT * prior[i] + noise[i];
    let mut best = 0;
    for i in 1..candidates.len() {
        if score(i) > score(best) + 1e-9 {
            best = i;
        }
    }
    let values = candidates.iter().zip(&totals).map(|(&m, t)| (m, t / n)).collect();
    report(candidates[best], depth, searcher.nodes, worlds.len() as u32, values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::Evidence;
    use crate::setup;
    use crate::tests::{game_of, piece};
    use stratego_rules::{ByColor, Color, PieceCounts, PositionPiece, Rank, Square};

    /// Red's Marshal (e4) reaches the enemy Flag (the last unmoved Blue piece, on e6) in two
    /// moves whatever Blue does; a Captain (j4) could take a known Scout (j5) at once.
    fn flag_in_two() -> (Ruleset, Game) {
        let rules = Ruleset::classic();
        let pieces = [
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("e4", Color::Red, Rank::Marshal, true, false),
            piece("j4", Color::Red, Rank::Captain, true, false),
            piece("e6", Color::Blue, Rank::Flag, false, false),
            piece("j5", Color::Blue, Rank::Scout, true, true),
            piece("j9", Color::Blue, Rank::Sergeant, true, false),
        ];
        let game = game_of(&rules, &pieces, Color::Red, 100);
        (rules, game)
    }

    /// `turn` with a move time no load can use up: the node budget, not the deadline,
    /// ends the search.
    fn calm(mut turn: Turn) -> Turn {
        turn.clock.move_ms = 600_000;
        turn
    }

    /// The searched values, at the root of `game` (its side to move, a calm turn, seed 3),
    /// of the moves `wanted` under `config`.
    fn root_values<const N: usize>(game: &Game, config: &AlphaBetaConfig, wanted: [&str; N]) -> [f64; N] {
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let turn = calm(crate::tests::turn_of(game, 0, moves));
        let r = choose_with_report(game.rules(), &turn, &mut Rng::new(3), config, 0, &Evidence::default());
        wanted.map(|m| {
            let m: Move = m.parse().unwrap();
            r.values.iter().find(|(c, _)| *c == m).map(|&(_, v)| v).unwrap()
        })
    }

    #[test]
    fn the_search_finds_a_forced_capture_of_the_flag_in_two_moves() {
        let (rules, game) = flag_in_two();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let turn = calm(crate::tests::turn_of(&game, 0, moves));
        let config = AlphaBetaConfig { worlds: 2, nodes: Some(200_000), ..AlphaBetaConfig::default() };
        let r = choose_with_report(&rules, &turn, &mut Rng::new(1), &config, 0, &Evidence::default());
        assert!(r.depth >= 3, "{r:?}");
        assert_eq!(r.mv, "e4-e5".parse().unwrap(), "{r:?}");
        let (_, v) = r.values.iter().find(|(m, _)| *m == r.mv).unwrap();
        assert!(*v > WIN / 2.0, "the win is seen: {r:?}");
        // One ply short, the search cannot see it: the capture of the Scout looks as good.
        let shallow = AlphaBetaConfig { max_depth: 1, ..config };
        let r1 = choose_with_report(&rules, &turn, &mut Rng::new(1), &shallow, 0, &Evidence::default());
        assert!(r1.values.iter().all(|(_, v)| *v < WIN / 2.0), "{r1:?}");
    }

    /// Plays `games` games of the heuristic (Red) against this strategy (Blue) on a small
    /// node budget; every move either picks is legal and every world the bot samples agrees
    /// with what it knows. Returns the worlds checked.
    fn play(rules: Ruleset, games: u64, plies: u32) -> u32 {
        let config = AlphaBetaConfig { worlds: 3, nodes: Some(1_500), ..AlphaBetaConfig::default() };
        let mut checked = 0;
        for seed in 0..games {
            let mut rng = Rng::new(seed);
            let red = setup::human_like(&rules, Color::Red, &mut rng);
            let blue = setup::human_like(&rules, Color::Blue, &mut rng);
            let mut game = Game::new(rules.clone(), &red, &blue).unwrap();
            let mut quiet = [crate::QuietPlies::default(), crate::QuietPlies::default()];
            let mut evidence = [Evidence::default(), Evidence::default()];
            let mut moves = Vec::new();
            while !game.is_over() && game.ply_count() < plies {
                game.legal_moves(&mut moves);
                let side = game.to_move();
                let turn = crate::tests::turn_of(&game, 2, moves.clone());
                let q = quiet[side.index()].update(&turn);
                evidence[side.index()].update(&turn);
                if game.ply_count() % 7 == 0 {
                    checked += check_worlds(&rules, &game, &turn, &evidence[side.index()], &mut rng);
                }
                let m = if side == Color::Red {
                    crate::heuristic::choose(&rules, &turn, &mut rng, &evidence[0], q)
                } else {
                    choose(&rules, &turn, &mut rng, &config, q, &evidence[1])
                };
                assert!(moves.contains(&m), "seed {seed} ply {}: {m} is not legal", turn.ply);
                game.play(m).unwrap();
            }
        }
        checked
    }

    /// Samples worlds for `turn` and checks each against the true game and the view.
    fn check_worlds(rules: &Ruleset, truth: &Game, turn: &Turn, evidence: &Evidence, rng: &mut Rng) -> u32 {
        let me = turn.color;
        let mut n = 0;
        for _ in 0..4 {
            let world = sample_world(rules, turn, rng, evidence).expect("a world consistent with a real game exists");
            // The same squares occupied by the same sides; our pieces as they are.
            let world_pieces: Vec<(Square, Color, Rank)> = world.board_pieces().collect();
            assert_eq!(world_pieces.len(), turn.pieces.len());
            let mut counts: ByColor<PieceCounts> = ByColor::default();
            for (s, c, r) in world_pieces {
                let view = turn.pieces.iter().find(|p| p.square == s).expect("a piece the view shows");
                assert_eq!(view.color, c, "{s}");
                counts[c][r] += 1;
                if c == me {
                    assert_eq!(truth.piece_at(s), Some((c, r)), "our own piece on {s}");
                    continue;
                }
                if let Some(known) = view.rank {
                    assert_eq!(known, r, "a revealed rank stays ({s})");
                }
                if view.moved {
                    assert!(r.is_mobile(), "a piece that moved is no {r:?} ({s})");
                }
            }
            // The enemy's army: what it has on the board and what it lost.
            let lost = turn.captured.unwrap_or_default()[!me];
            for r in Rank::ALL {
                assert_eq!(counts[!me][r] + lost[r], rules.pieces()[r], "{r:?}");
            }
            n += 1;
        }
        n
    }

    #[test]
    fn sampled_worlds_agree_with_the_view_and_every_move_is_legal_classic() {
        assert!(play(Ruleset::classic(), 2, 160) > 80);
    }

    #[test]
    fn sampled_worlds_agree_with_the_view_and_every_move_is_legal_barrage() {
        let n = play(Ruleset::barrage(), 6, 160);
        assert!(n > 40, "{n}");
    }

    #[test]
    fn the_node_budget_makes_play_reproducible() {
        let (rules, game) = flag_in_two();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let turn = calm(crate::tests::turn_of(&game, 0, moves));
        let config = AlphaBetaConfig { worlds: 4, nodes: Some(20_000), ..AlphaBetaConfig::default() };
        let run = || {
            let r = choose_with_report(&rules, &turn, &mut Rng::new(7), &config, 0, &Evidence::default());
            (r.mv, r.depth, r.nodes, r.values)
        };
        assert_eq!(run(), run());
    }

    /// A clock that moves by fixed steps each time it is read: `cpu` of CPU time and
    /// `wall` of wall time per look at both (the search looks every 128 nodes).
    struct Stepping {
        cpu: Duration,
        wall: Duration,
        cpu_now: Duration,
        wall_now: Duration,
    }

    impl Stepping {
        fn boxed(cpu_us: u64, wall_us: u64) -> Box<dyn SearchClock> {
            Box::new(Stepping {
                cpu: Duration::from_micros(cpu_us),
                wall: Duration::from_micros(wall_us),
                cpu_now: Duration::ZERO,
                wall_now: Duration::ZERO,
            })
        }
    }

    impl SearchClock for Stepping {
        fn cpu(&mut self) -> Duration {
            self.cpu_now += self.cpu;
            self.cpu_now
        }

        fn wall(&mut self) -> Duration {
            self.wall_now += self.wall;
            self.wall_now
        }
    }

    /// On a busy machine (the search thread gets a tenth of the wall time: 2 ms of wall
    /// time for each 0.2 ms of CPU time, every 128 nodes) the search reaches the same
    /// nodes, depth and values as on an idle one: the CPU-time deadline (20 % of 500 ms)
    /// is never reached, and the wall time used (about 36 % of the move) stays under the
    /// wall cap (40 %). A wall-time deadline at 20 % of the move (the clock before issue
    /// #46's sixth round: CPU time = wall time) stops it far earlier; a machine slower
    /// still is stopped by the wall cap.
    #[test]
    fn a_busy_machine_searches_the_same_nodes_as_an_idle_one() {
        let (rules, game) = flag_in_two();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let mut turn = crate::tests::turn_of(&game, 0, moves);
        turn.clock.move_ms = 500;
        let config = AlphaBetaConfig { worlds: 4, nodes: Some(30_000), ..AlphaBetaConfig::default() };
        let run = |clock| {
            let r = choose_clocked(&rules, &turn, &mut Rng::new(7), &config, 0, &Evidence::default(), clock);
            (r.nodes, r.depth, r.values)
        };
        let idle = run(Stepping::boxed(200, 200));
        let busy = run(Stepping::boxed(200, 2_000));
        assert!(idle.0 > 10_000 && idle.1 == 5, "the node budget ends the idle search: {idle:?}");
        let looks = idle.0 / 128;
        assert!(
            looks * 2 > 100 && looks * 2 < 195,
            "the busy search's wall time, {} ms, lies between the old deadline and the cap",
            looks * 2
        );
        assert_eq!(busy, idle);
        let old = run(Stepping::boxed(2_000, 2_000));
        assert!(old.0 < idle.0 && old.1 < idle.1, "a wall-time deadline at 20 %: {old:?}, idle {idle:?}");
        let slower = run(Stepping::boxed(200, 5_000));
        assert!(slower.0 < idle.0 && slower.0 >= 128 * 39, "the wall cap (195 ms) stops it: {} nodes", slower.0);
    }

    /// Red's Flag (a1) behind two Bombs (b1, a2), Blue's far away, and `extra`.
    fn flag_corner(extra: &[PositionPiece]) -> Game {
        let rules = Ruleset::classic();
        let mut pieces = vec![
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("b1", Color::Red, Rank::Bomb, false, false),
            piece("a2", Color::Red, Rank::Bomb, false, false),
            piece("j10", Color::Blue, Rank::Flag, false, false),
            piece("i10", Color::Blue, Rank::Bomb, false, false),
        ];
        pieces.extend_from_slice(extra);
        game_of(&rules, &pieces, Color::Red, 100)
    }

    /// The Flag's threat by distance: a Miner beside a Bomb beside the Flag is two moves
    /// from it (through the Bomb), a Captain there none while the Flag is closed, two once
    /// a square beside it is open; a Miner far away costs nothing; Blue's Flag is not
    /// counted for Red.
    #[test]
    fn flag_danger_counts_the_nearest_threat_through_the_bombs() {
        let blue = |s: &str, r: Rank| piece(s, Color::Blue, r, true, false);
        assert_eq!(flag_danger(&flag_corner(&[blue("c1", Rank::Miner)]), Color::Red), FLAG_THREAT[2]);
        assert_eq!(flag_danger(&flag_corner(&[blue("c2", Rank::Miner)]), Color::Red), FLAG_THREAT[3]);
        assert_eq!(flag_danger(&flag_corner(&[blue("c1", Rank::Captain)]), Color::Red), 0.0);
        assert_eq!(flag_danger(&flag_corner(&[blue("j2", Rank::Miner)]), Color::Red), 0.0);
        // Blue's Flag with a Red Miner beside it: no threat counted for Blue's side here
        // (the function is for the side whose Flag it guards).
        assert_eq!(flag_danger(&flag_corner(&[piece("h10", Color::Red, Rank::Miner, true, false)]), Color::Red), 0.0);
        // The Bomb on a2 gone: the Captain on c1 walks in (b1's Bomb aside, c1 to a1 is 2).
        let rules = Ruleset::classic();
        let open = game_of(
            &rules,
            &[
                piece("a1", Color::Red, Rank::Flag, false, false),
                piece("b1", Color::Red, Rank::Bomb, false, false),
                piece("j10", Color::Blue, Rank::Flag, false, false),
                blue("c1", Rank::Captain),
            ],
            Color::Red,
            100,
        );
        assert_eq!(flag_danger(&open, Color::Red), FLAG_THREAT[2]);
    }

    /// Red's Flag in the corner behind its Bombs (`flag_corner`), a known Blue Miner on c1
    /// beside the Bomb b1 with Red's Lieutenant on d1, a known Blue Captain on j6 with
    /// Red's Major on j5, and three more known Miners far away (a9-c9: the last Miners'
    /// bonus stays out of it).
    fn miner_at_the_flags_bomb() -> Game {
        flag_corner(&[
            piece("d1", Color::Red, Rank::Lieutenant, true, false),
            piece("j5", Color::Red, Rank::Major, true, false),
            piece("c1", Color::Blue, Rank::Miner, true, true),
            piece("j6", Color::Blue, Rank::Captain, true, true),
            piece("a9", Color::Blue, Rank::Miner, true, true),
            piece("b9", Color::Blue, Rank::Miner, true, true),
            piece("c9", Color::Blue, Rank::Miner, true, true),
        ])
    }

    /// With flag safety, taking a known Miner beside the Bomb beside our Flag (c1, with
    /// the Lieutenant on d1) is worth more than taking a known Captain far away (j6, with
    /// the Major on j5); material alone, the Captain is worth more.
    #[test]
    fn the_search_takes_the_miner_at_its_flag_before_a_captain_elsewhere() {
        let game = miner_at_the_flags_bomb();
        let values = |config: &AlphaBetaConfig| root_values(&game, config, ["d1-c1", "j5-j6"]);
        // One ply (then captures): deeper, the other capture follows in both lines.
        let safe = AlphaBetaConfig {
            worlds: 2,
            max_depth: 1,
            nodes: Some(1_000_000),
            flag_safety: true,
            // The leaf term alone: with the enemy's attacks beside the Flag the search
            // sees the Miner take the Bomb and the Flag whatever the term.
            guard_attacks: false,
            ..AlphaBetaConfig::default()
        };
        let [miner, captain] = values(&safe);
        assert!(miner > captain + 40.0, "with flag safety: the Miner {miner}, the Captain {captain}");
        let [miner, captain] = values(&AlphaBetaConfig { flag_safety: false, ..safe });
        assert!(captain > miner + 30.0, "material only: the Miner {miner}, the Captain {captain}");
    }

    /// The enemy's attacks beside our Flag: a known Blue Miner (c1) beside the Bomb (b1)
    /// beside Red's Flag (a1), which Blue does not know. With them, the search sees the
    /// Miner take the Bomb and then the Flag unless Red's Lieutenant (d1) takes it first,
    /// and prefers that to taking a known Captain far away (j6, with the Major on j5);
    /// without them, Blue never attacks the hidden Bomb and the Captain is worth more.
    #[test]
    fn the_enemy_attacks_the_hidden_bombs_beside_our_flag() {
        let game = miner_at_the_flags_bomb();
        let values = |config: &AlphaBetaConfig| root_values(&game, config, ["d1-c1", "j5-j6"]);
        let guarded = AlphaBetaConfig {
            worlds: 2,
            max_depth: 3,
            nodes: Some(1_000_000),
            guard_attacks: true,
            ..AlphaBetaConfig::default()
        };
        let [miner, captain] = values(&guarded);
        assert!(captain < -WIN / 2.0, "the Flag is lost after the Captain's capture: {captain}");
        assert!(miner > captain + 1_000.0, "the Miner {miner}, the Captain {captain}");
        let [miner, captain] = values(&AlphaBetaConfig { guard_attacks: false, ..guarded });
        assert!(captain > miner + 30.0, "without: the Miner {miner}, the Captain {captain}");
    }

    /// A General gains half its value while the opposing Marshal is off the board: Red's
    /// General with Blue's Marshal on the board gains nothing; without it, Red gains 150
    /// (Blue loses as much), and with both Generals and no Marshal the gains cancel.
    #[test]
    fn a_general_is_worth_more_once_the_enemy_marshal_is_gone() {
        let red_general = piece("e4", Color::Red, Rank::General, true, false);
        let blue_marshal = piece("e7", Color::Blue, Rank::Marshal, true, false);
        let blue_general = piece("f7", Color::Blue, Rank::General, true, false);
        let with_marshal = flag_corner(&[red_general, blue_marshal]);
        assert_eq!(general_bonus(&with_marshal, Color::Red, 0.5), 0.0);
        let without = flag_corner(&[red_general]);
        assert_eq!(general_bonus(&without, Color::Red, 0.5), 0.5 * value(Rank::General));
        assert_eq!(general_bonus(&without, Color::Blue, 0.5), -0.5 * value(Rank::General));
        assert_eq!(general_bonus(&without, Color::Red, 0.0), 0.0);
        let both = flag_corner(&[red_general, blue_general]);
        assert_eq!(general_bonus(&both, Color::Red, 0.5), 0.0);
    }

    /// Turns of real middlegames: the heuristic against itself from human-like setups,
    /// a turn every 15 plies from ply 40 to ply 160 (with the evidence each side gathered).
    fn middlegame_turns(seed: u64) -> Vec<(Ruleset, Turn, Evidence, u32)> {
        let rules = Ruleset::classic();
        let mut rng = Rng::new(seed);
        let red = setup::human_like(&rules, Color::Red, &mut rng);
        let blue = setup::human_like(&rules, Color::Blue, &mut rng);
        let mut game = Game::new(rules.clone(), &red, &blue).unwrap();
        let mut quiet = [crate::QuietPlies::default(), crate::QuietPlies::default()];
        let mut evidence = [Evidence::default(), Evidence::default()];
        let mut moves = Vec::new();
        let mut out = Vec::new();
        while !game.is_over() && game.ply_count() < 160 {
            game.legal_moves(&mut moves);
            let side = game.to_move().index();
            let turn = calm(crate::tests::turn_of(&game, 2, moves.clone()));
            let q = quiet[side].update(&turn);
            evidence[side].update(&turn);
            if game.ply_count() >= 40 && game.ply_count() % 15 == 0 {
                out.push((rules.clone(), turn.clone(), evidence[side].clone(), q));
            }
            let m = crate::heuristic::choose(&rules, &turn, &mut rng, &evidence[side], q);
            game.play(m).unwrap();
        }
        out
    }

    /// Ordering changes no value (each candidate is searched with a full window, the
    /// table only suggests which move to try first) and prunes more: the same depth in
    /// fewer nodes.
    #[test]
    fn move_ordering_keeps_every_value_and_searches_fewer_nodes() {
        let (mut with, mut without) = (0, 0);
        for (rules, turn, evidence, q) in middlegame_turns(3) {
            let config =
                AlphaBetaConfig { worlds: 2, max_depth: 4, nodes: Some(u64::MAX / 4), ..AlphaBetaConfig::default() };
            let off = AlphaBetaConfig { ordering: false, ..config };
            let a = choose_with_report(&rules, &turn, &mut Rng::new(9), &config, q, &evidence);
            let b = choose_with_report(&rules, &turn, &mut Rng::new(9), &off, q, &evidence);
            assert_eq!((a.depth, b.depth), (4, 4));
            assert_eq!(a.values, b.values, "ply {}", turn.ply);
            with += a.nodes;
            without += b.nodes;
        }
        eprintln!("depth 4: ordered {with} nodes, unordered {without}");
        assert!(without > 0 && with * 10 < without * 9, "ordered {with} nodes, unordered {without}");
    }

    /// A known enemy Sergeant (f4) that Red's hidden General (e4) and hidden Lieutenant
    /// (g4) can both take; Blue's other pieces far away, Red's Flag behind two Bombs.
    fn sergeant_between() -> (Ruleset, Game) {
        let rules = Ruleset::classic();
        let pieces = [
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("b1", Color::Red, Rank::Bomb, false, false),
            piece("a2", Color::Red, Rank::Bomb, false, false),
            piece("e4", Color::Red, Rank::General, true, false),
            piece("g4", Color::Red, Rank::Lieutenant, true, false),
            piece("f4", Color::Blue, Rank::Sergeant, true, true),
            piece("j10", Color::Blue, Rank::Flag, false, false),
            piece("i10", Color::Blue, Rank::Bomb, false, false),
            piece("a10", Color::Blue, Rank::Scout, true, false),
        ];
        (rules.clone(), game_of(&rules, &pieces, Color::Red, 100))
    }

    /// The cost of a revealed piece: material alone, taking the Sergeant with the General
    /// or with the Lieutenant is worth the same; with it, the General's capture (which
    /// shows the General) is worth `reveal_share` (0.1) of the General's value less than the
    /// Lieutenant's (which shows a Lieutenant).
    #[test]
    fn a_capture_that_reveals_a_strong_piece_costs_what_the_enemy_learns() {
        let (rules, game) = sergeant_between();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let turn = calm(crate::tests::turn_of(&game, 0, moves));
        let material = AlphaBetaConfig {
            worlds: 2,
            max_depth: 3,
            nodes: Some(1_000_000),
            reveal_share: 0.0,
            ..AlphaBetaConfig::default()
        };
        let [general, lieutenant] = root_values(&game, &material, ["e4-f4", "g4-f4"]);
        assert!((general - lieutenant).abs() < 1e-9, "material only: {general} vs {lieutenant}");
        let revealing = AlphaBetaConfig { reveal_share: 0.1, ..material };
        let [general, lieutenant] = root_values(&game, &revealing, ["e4-f4", "g4-f4"]);
        let expected = 0.1 * (value(Rank::General) - value(Rank::Lieutenant));
        assert!(
            (lieutenant - general - expected).abs() < 1e-9,
            "{general} vs {lieutenant}, expected a gap of {expected}"
        );
        let r = choose_with_report(&rules, &turn, &mut Rng::new(3), &revealing, 0, &Evidence::default());
        assert_eq!(r.mv, "g4-f4".parse().unwrap(), "{r:?}");
    }

    /// The enemy's attacks on pieces it does not know: a known enemy General (f4) next to
    /// Red's hidden Captain (e4). Red's hidden pieces that moved are a Captain, a Sergeant
    /// and a Lieutenant, so a General that attacks one of them wins on average: with blind
    /// attacks, a move that leaves the Captain there loses it (the General takes it), the
    /// Captain's retreat does not; without them, the search sees no danger at all.
    #[test]
    fn the_enemy_attacks_a_hidden_piece_where_that_pays_for_it_on_average() {
        let rules = Ruleset::classic();
        let pieces = [
            piece("a1", Color::Red, Rank::Flag, false, false),
            piece("b1", Color::Red, Rank::Bomb, false, false),
            piece("a2", Color::Red, Rank::Bomb, false, false),
            piece("e4", Color::Red, Rank::Captain, true, false),
            piece("h2", Color::Red, Rank::Sergeant, true, false),
            piece("h3", Color::Red, Rank::Lieutenant, true, false),
            piece("f4", Color::Blue, Rank::General, true, true),
            piece("j10", Color::Blue, Rank::Flag, false, false),
            piece("i10", Color::Blue, Rank::Bomb, false, false),
        ];
        let game = game_of(&rules, &pieces, Color::Red, 100);
        let values = |config: &AlphaBetaConfig| root_values(&game, config, ["e4-e5", "h2-h1"]);
        let blind = AlphaBetaConfig {
            worlds: 2,
            max_depth: 2,
            candidates: 30,
            nodes: Some(1_000_000),
            blind_attacks: true,
            ..AlphaBetaConfig::default()
        };
        let [retreat, elsewhere] = values(&blind);
        assert!(retreat - elsewhere >= 90.0, "retreat {retreat}, elsewhere {elsewhere}");
        let [retreat, elsewhere] = values(&AlphaBetaConfig { blind_attacks: false, ..blind });
        assert!((retreat - elsewhere).abs() < 1e-9, "retreat {retreat}, elsewhere {elsewhere}");
    }
}

#[cfg(test)]
mod recapture_tests {
    use super::*;
    use crate::knowledge::Evidence;
    use crate::tests::{game_of, piece};
    use stratego_rules::{Color, Rank};

    /// Our known Marshal (e8) beside a known Blue Lieutenant (e9) that stands beside two
    /// hidden unmoved Blue pieces (d9, the Spy, and e10); Blue's other hidden pieces on
    /// its back ranks.
    fn bait() -> Game {
        let (r, b) = (Color::Red, Color::Blue);
        let mut pieces = vec![
            piece("a1", r, Rank::Flag, false, false),
            piece("a2", r, Rank::Bomb, false, false),
            piece("b1", r, Rank::Bomb, false, false),
            piece("e8", r, Rank::Marshal, true, true),
            piece("j2", r, Rank::Scout, true, false),
            piece("h2", r, Rank::Sergeant, true, false),
            piece("e9", b, Rank::Lieutenant, true, true),
            piece("d9", b, Rank::Spy, false, false),
            piece("e10", b, Rank::Scout, false, false),
        ];
        let back = [
            ("a10", Rank::Flag),
            ("b10", Rank::Bomb),
            ("a9", Rank::Bomb),
            ("c10", Rank::Bomb),
            ("d10", Rank::Captain),
            ("f10", Rank::Captain),
            ("g10", Rank::Miner),
            ("h10", Rank::Miner),
            ("i10", Rank::Scout),
            ("j10", Rank::Sergeant),
            ("b9", Rank::Captain),
            ("c9", Rank::Lieutenant),
            ("g9", Rank::Scout),
            ("c8", Rank::Sergeant),
            ("h9", Rank::Miner),
            ("i9", Rank::Major),
            ("h8", Rank::Major),
            ("j9", Rank::Scout),
            ("j8", Rank::Colonel),
        ];
        pieces.extend(back.iter().map(|&(s, rank)| piece(s, b, rank, false, false)));
        game_of(&Ruleset::ucc2012(), &pieces, Color::Red, 300)
    }

    /// The capture of the bait costs the extra chance of the Spy's strike, nothing with
    /// odds of 1 or for a quiet move; the bot takes the Lieutenant as its beliefs stand and
    /// leaves it with the odds at 2.5.
    #[test]
    fn the_marshal_leaves_a_bait_beside_hidden_pieces_that_may_hide_the_spy() {
        let game = bait();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let mut turn = crate::tests::turn_of(&game, 0, moves);
        turn.clock.move_ms = 600_000;
        let knowledge = Knowledge::with_setup_prior(game.rules(), &turn, &Evidence::default());
        let take: Move = "e8-e9".parse().unwrap();
        let cost = spy_bait_cost(&turn, &knowledge, take, 2.5);
        assert!(cost > 40.0, "{cost}");
        assert_eq!(spy_bait_cost(&turn, &knowledge, take, 1.0), 0.0);
        assert_eq!(spy_bait_cost(&turn, &knowledge, "e8-e7".parse().unwrap(), 2.5), 0.0);
        let choose_with = |odds: f64| {
            let config = AlphaBetaConfig { worlds: 12, nodes: Some(60_000), spy_odds: odds, ..Default::default() };
            choose_with_report(game.rules(), &turn, &mut Rng::new(5), &config, 0, &Evidence::default())
        };
        let plain = choose_with(1.0);
        assert_eq!(plain.mv, take, "{plain:?}");
        let guarded = choose_with(2.5);
        assert_ne!(guarded.mv, take, "{guarded:?}");
    }
}

#[cfg(test)]
mod known_attack_tests {
    use super::*;
    use crate::knowledge::Evidence;
    use crate::tests::{game_of, piece};
    use stratego_rules::{Color, Rank};

    /// Our hidden Captain (e5, it has moved) beside a known Blue Major (e6); our Sergeant
    /// (j5) beside a known Blue Scout (j6).
    fn exposed() -> Game {
        let (r, b) = (Color::Red, Color::Blue);
        let pieces = vec![
            piece("a1", r, Rank::Flag, false, false),
            piece("a2", r, Rank::Bomb, false, false),
            piece("b1", r, Rank::Bomb, false, false),
            piece("e5", r, Rank::Captain, true, false),
            piece("j5", r, Rank::Sergeant, true, false),
            piece("c2", r, Rank::Scout, false, false),
            piece("e6", b, Rank::Major, true, true),
            piece("j6", b, Rank::Scout, true, true),
            piece("a10", b, Rank::Flag, false, false),
            piece("b10", b, Rank::Bomb, false, false),
            piece("a9", b, Rank::Bomb, false, false),
            piece("e10", b, Rank::Scout, false, false),
            piece("g10", b, Rank::Sergeant, false, false),
        ];
        game_of(&Ruleset::ucc2012(), &pieces, Color::Red, 300)
    }

    /// As its beliefs stand the search expects the known Major to leave our hidden Captain
    /// alone and takes the Scout; with the known pieces' attacks on our moved pieces it
    /// sees the Captain lost and saves it.
    #[test]
    fn a_hidden_piece_beside_a_known_piece_that_beats_it_is_saved_first() {
        let game = exposed();
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let mut turn = crate::tests::turn_of(&game, 0, moves);
        turn.clock.move_ms = 600_000;
        let choose_with = |known_attacks: bool| {
            let config = AlphaBetaConfig { worlds: 12, nodes: Some(60_000), known_attacks, ..Default::default() };
            choose_with_report(game.rules(), &turn, &mut Rng::new(5), &config, 0, &Evidence::default())
        };
        let plain = choose_with(false);
        assert_eq!(plain.mv, "j5-j6".parse().unwrap(), "{plain:?}");
        let wary = choose_with(true);
        assert_eq!(wary.mv.from, "e5".parse().unwrap(), "{wary:?}");
    }
}
