//! The reference bot of `stratego-host`.
//!
//! - `random`: a uniformly random legal setup and uniformly random legal moves.
//! - `heuristic` (default): a setup with the Flag on the back rank behind its Bombs, and
//!   moves chosen by what the bot knows of each enemy piece (see [`heuristic`]).
//! - `search`: determinized Monte Carlo over the heuristic's best moves (see [`search`]).
//! - `alphabeta`: a determinised alpha-beta search with quiescence on captures over
//!   sampled worlds, the heuristic's score as a prior (see [`alphabeta`]).
//!
//! Every strategy is deterministic for the seed the host sends (`search` only with
//! `--worlds N`; `alphabeta` unless the machine is too slow for its node budget, see
//! [`alphabeta`]).

pub mod alphabeta;
pub mod heuristic;
pub mod knowledge;
pub mod search;
pub mod setup;
#[allow(missing_docs)]
mod setup_table;

use clap::{Parser, ValueEnum};
use stratego_protocol::bot::{self, Action, Bot, Game};
use stratego_protocol::{Ready, SetupRequest, Turn};

/// How the bot plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Strategy {
    /// Uniformly random legal moves and setup.
    Random,
    /// Knowledge-based move scoring and a human-like setup.
    Heuristic,
    /// Determinized Monte Carlo over the heuristic's best moves; uses 70 % of each move's
    /// time less 3 ms. It beats the heuristic head to head, but not the 2012 agents (see
    /// the README's strength table).
    Search,
    /// Determinised alpha-beta: sampled worlds consistent with what the bot knows, each
    /// searched with iterative deepening and quiescence on captures, within 20 % of each
    /// move's time (see [`alphabeta`]).
    Alphabeta,
}

/// The sample bot's command line.
#[derive(Parser, Debug)]
#[command(
    name = "sample-bot",
    version,
    about = "The reference Stratego bot (speaks the stratego-host protocol on stdin/stdout)"
)]
pub struct Args {
    /// How to play.
    #[arg(long, value_enum, default_value_t = Strategy::Heuristic)]
    pub strategy: Strategy,
    /// Name to report (default: sample-bot-STRATEGY).
    #[arg(long)]
    pub name: Option<String>,
    /// search: sample exactly N worlds per move instead of filling the time (reproducible
    /// play whatever the machine's speed).
    #[arg(long, value_name = "N")]
    pub worlds: Option<u32>,
    /// Ask for full turns even when the strategy needs only the legal moves (`random`
    /// asks for `"view": "moves"` otherwise).
    #[arg(long)]
    pub full_view: bool,
    /// search: rollout length in plies.
    #[arg(long, value_name = "PLIES", default_value_t = 10)]
    pub depth: u32,
    /// alphabeta: search exactly N nodes a move (all iterations together) instead of a
    /// budget computed from the move's time.
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// alphabeta: worlds sampled a move.
    #[arg(long, value_name = "N", default_value_t = alphabeta::AlphaBetaConfig::default().worlds)]
    pub ab_worlds: u32,
    /// alphabeta: share of a mobile piece's value it loses at the search's leaves once its
    /// opponent knows its rank (0: material only; tried at 0.1, see BENCHMARKS.md).
    #[arg(long, value_name = "SHARE", value_parser = parse_share,
          default_value_t = alphabeta::AlphaBetaConfig::default().reveal_share)]
    pub reveal_share: f64,
    /// alphabeta: below the root, the enemy also attacks our hidden pieces where that pays
    /// on average for its attacker's rank (tried, see BENCHMARKS.md).
    #[arg(long)]
    pub blind_attacks: bool,
    /// alphabeta: count the threat to our Flag at the search's leaves (an enemy piece near
    /// it, a Miner near a Bomb beside it; tried in round 6 without a gain, see BENCHMARKS.md).
    #[arg(long)]
    pub flag_safety: bool,
    /// alphabeta: share of a General's value it gains at the leaves while the opposing
    /// Marshal is off the board (0: none, the default; tried at 0.5, see BENCHMARKS.md).
    #[arg(long, value_name = "SHARE", value_parser = parse_share,
          default_value_t = alphabeta::AlphaBetaConfig::default().general_bonus)]
    pub general_bonus: f64,
    /// alphabeta: share of the move's time after which the search stops in wall time, a
    /// safety cap against a loss on time on a loaded machine (its CPU-time deadline is at
    /// 20 %).
    #[arg(long, value_name = "SHARE", value_parser = parse_share,
          default_value_t = alphabeta::AlphaBetaConfig::default().wall_share)]
    pub wall_share: f64,
    /// alphabeta: the search's deadline (20 % of the move) in its thread's CPU time instead
    /// of wall time (Linux; tried in round 6, see BENCHMARKS.md).
    #[arg(long)]
    pub cpu_clock: bool,
    /// heuristic, search, alphabeta: likelihood factor for the Miner when an unknown enemy
    /// piece steps closer to a Bomb beside our Flag (1: no such evidence, the default; tried
    /// at 1.5 in round 7 without a gain, see BENCHMARKS.md).
    #[arg(long, value_name = "FACTOR", default_value_t = knowledge::FlagDefence::default().miner_approach)]
    pub miner_approach: f64,
    /// heuristic, search, alphabeta: what removing a likely Miner next to a Bomb beside our
    /// Flag is worth on top of its material (0: nothing, the default; tried at 200).
    #[arg(long, value_name = "POINTS", default_value_t = knowledge::FlagDefence::default().miner_threat)]
    pub miner_threat: f64,
    /// heuristic, search, alphabeta: how many of our pieces that beat a Miner go to the
    /// square a likely Miner takes a Bomb beside our Flag from (0: none, the default; tried
    /// at 1).
    #[arg(long, value_name = "N", default_value_t = knowledge::FlagDefence::default().gate_guards)]
    pub gate_guards: u8,
    /// alphabeta: below the root, the enemy also attacks our pieces beside our Flag, hidden
    /// or not, where its attacker wins (a Miner takes a Bomb guarding the Flag, then the
    /// Flag; tried in round 7 without a gain, see BENCHMARKS.md).
    #[arg(long)]
    pub guard_attacks: bool,
    /// alphabeta: odds by which a hidden enemy piece beside a square where our Marshal
    /// captures is likelier than the beliefs say to be the Spy (the bait is guarded); the
    /// extra chance of the Spy's strike costs the Marshal's value at the root (1: off, the
    /// default; see BENCHMARKS.md, round 8).
    #[arg(long, value_name = "ODDS", value_parser = parse_odds,
          default_value_t = alphabeta::AlphaBetaConfig::default().spy_odds)]
    pub spy_odds: f64,
    /// alphabeta: below the root, the enemy's known pieces also take our pieces that have
    /// moved where they win, hidden or not (off by default; see BENCHMARKS.md, round 8).
    #[arg(long)]
    pub known_attacks: bool,
    /// heuristic, search, alphabeta: the power the evidence of the enemy's moves is raised
    /// to (its likelihood factors): 1 (the default) as gathered, 0.5 its square root (see
    /// BENCHMARKS.md, round 8: as gathered, the beliefs were worse calibrated than with no
    /// evidence at all against Demon of Ignorance).
    #[arg(long, value_name = "POWER", value_parser = parse_share,
          default_value_t = knowledge::Evidence::default().power)]
    pub evidence_power: f64,
    /// heuristic, search, alphabeta: where the setup puts the Flag and its Bombs (`gravon`,
    /// the default: the Flag on the back rank behind one layer of Bombs; `layered`: in a back
    /// corner behind two layers; `decoy`: plus a second walled structure elsewhere on the back rank;
    /// `flank`: as `gravon`, never in a corner nor on the centre files; the three tried in
    /// round 8 without a gain against Demon of Ignorance, see BENCHMARKS.md).
    #[arg(long, value_enum, value_name = "STYLE", default_value_t = setup::SetupStyle::Gravon)]
    pub setup_style: setup::SetupStyle,
}

/// An odds factor: a number of at least 1.
fn parse_odds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x >= 1.0 && x.is_finite() => Ok(x),
        _ => Err(format!("{s:?} is not an odds factor: give a number of at least 1 (1: off)")),
    }
}

/// A share of a piece's value: a number from 0 to 1.
fn parse_share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("{s:?} is not a share: give a number from 0 to 1 (0.1: a tenth)")),
    }
}

/// The bot.
pub struct SampleBot {
    strategy: Strategy,
    name: String,
    search: search::SearchConfig,
    alphabeta: alphabeta::AlphaBetaConfig,
    /// Ask for full turns whatever the strategy.
    pub full_view: bool,
    quiet: QuietPlies,
    evidence: knowledge::Evidence,
    /// Where the setup puts the Flag and its Bombs.
    pub setup_style: setup::SetupStyle,
}

/// Counts the plies since the last fight, from the plies each turn reports.
#[derive(Clone, Debug, Default)]
pub struct QuietPlies {
    game_id: String,
    last_fight: u32,
}

impl QuietPlies {
    /// Takes in a turn's plies; returns how many plies have been played since the last
    /// fight (since the start of the game if none).
    pub fn update(&mut self, turn: &Turn) -> u32 {
        if self.game_id != turn.game_id {
            *self = QuietPlies { game_id: turn.game_id.clone(), last_fight: 0 };
        }
        // `plies` ends with the ply just played, number `turn.ply`.
        let n = turn.plies.len() as u32;
        for (i, p) in (0u32..).zip(&turn.plies) {
            if p.combat.is_some() {
                self.last_fight = turn.ply.saturating_sub(n - 1 - i);
            }
        }
        turn.ply.saturating_sub(self.last_fight)
    }
}

impl SampleBot {
    /// A bot with this strategy.
    pub fn new(strategy: Strategy, name: Option<String>) -> SampleBot {
        let default = match strategy {
            Strategy::Random => "sample-bot-random",
            Strategy::Heuristic => "sample-bot-heuristic",
            Strategy::Search => "sample-bot-search",
            Strategy::Alphabeta => "sample-bot-alphabeta",
        };
        SampleBot {
            strategy,
            name: name.unwrap_or_else(|| default.to_owned()),
            search: search::SearchConfig::default(),
            alphabeta: alphabeta::AlphaBetaConfig::default(),
            full_view: false,
            quiet: QuietPlies::default(),
            evidence: knowledge::Evidence::default(),
            setup_style: setup::SetupStyle::default(),
        }
    }
}

impl Bot for SampleBot {
    fn ready(&self) -> Ready {
        Ready {
            name: self.name.clone(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            author: Some("stratego-arena".to_owned()),
            // The random strategy needs only the legal moves: smaller turns, faster games.
            view: if self.strategy == Strategy::Random && !self.full_view {
                stratego_protocol::ViewMode::Moves
            } else {
                stratego_protocol::ViewMode::Full
            },
            // It thinks on one thread, only on its own turn: the host may run both bots of
            // a game on one CPU.
            single_threaded: true,
            ..Ready::default()
        }
    }

    fn setup(&mut self, game: &mut Game, _request: &SetupRequest) -> String {
        match self.strategy {
            Strategy::Random => bot::random_setup(game),
            Strategy::Heuristic | Strategy::Search | Strategy::Alphabeta => {
                setup::human_like_styled(&game.rules, game.hello.color, self.setup_style, &mut game.rng)
                    .to_rows(&game.rules)
            }
        }
    }

    fn turn(&mut self, game: &mut Game, turn: &Turn) -> Action {
        let quiet = self.quiet.update(turn);
        if self.strategy != Strategy::Random {
            self.evidence.update(turn);
        }
        match self.strategy {
            Strategy::Random => Action::Move(*game.rng.choose(&turn.legal_moves).expect("a turn has legal moves")),
            Strategy::Heuristic => {
                Action::Move(heuristic::choose(&game.rules, turn, &mut game.rng, &self.evidence, quiet))
            }
            Strategy::Search => {
                Action::Move(search::choose(&game.rules, turn, &mut game.rng, &self.search, quiet, &self.evidence))
            }
            Strategy::Alphabeta => Action::Move(alphabeta::choose(
                &game.rules,
                turn,
                &mut game.rng,
                &self.alphabeta,
                quiet,
                &self.evidence,
            )),
        }
    }
}

/// The bot the command line asks for.
fn bot_of(args: Args) -> SampleBot {
    let mut bot = SampleBot::new(args.strategy, args.name);
    bot.search.worlds = args.worlds;
    bot.search.depth = args.depth;
    bot.alphabeta.nodes = args.nodes;
    bot.alphabeta.worlds = args.ab_worlds.max(1);
    bot.alphabeta.reveal_share = args.reveal_share;
    bot.alphabeta.blind_attacks = args.blind_attacks;
    bot.alphabeta.flag_safety = args.flag_safety;
    bot.alphabeta.general_bonus = args.general_bonus;
    bot.alphabeta.wall_share = args.wall_share.max(bot.alphabeta.time_share);
    bot.alphabeta.cpu_clock = args.cpu_clock;
    bot.alphabeta.guard_attacks = args.guard_attacks;
    bot.alphabeta.spy_odds = args.spy_odds;
    bot.alphabeta.known_attacks = args.known_attacks;
    bot.full_view = args.full_view;
    bot.setup_style = args.setup_style;
    bot.evidence = knowledge::Evidence::with_defence(knowledge::FlagDefence {
        miner_approach: args.miner_approach.max(0.0),
        miner_threat: args.miner_threat.max(0.0),
        gate_guards: args.gate_guards,
    });
    bot.evidence.power = args.evidence_power;
    bot
}

/// Runs the bot with a full argument list (program name first); returns the exit code.
pub fn main_with_args(argv: Vec<String>) -> i32 {
    let args = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match bot::run(bot_of(args)) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("sample-bot: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratego_protocol::{Clock, Rng};
    use stratego_rules::{ByColor, Color, Deployment, Game, PieceCounts, PositionPiece, Rank, Ruleset};

    /// A piece of a position on square `s` (e.g. `"e4"`).
    pub(crate) fn piece(s: &str, color: Color, rank: Rank, moved: bool, revealed: bool) -> PositionPiece {
        PositionPiece { square: s.parse().unwrap(), color, rank, moved, revealed }
    }

    /// A game from `pieces`, each side having lost what its army lacks on the board (the
    /// counts the bot's beliefs start from).
    pub(crate) fn game_of(rules: &Ruleset, pieces: &[PositionPiece], to_move: Color, ply: u32) -> Game {
        let captured = ByColor::new_with(|c| {
            let mut n: PieceCounts = *rules.pieces();
            for p in pieces.iter().filter(|p| p.color == c) {
                n[p.rank] -= 1;
            }
            n
        });
        Game::from_position(rules.clone(), pieces, to_move, ply, captured).unwrap()
    }

    /// The turn the host would send to the side to move.
    pub(crate) fn turn_of(game: &Game, plies: usize, legal_moves: Vec<stratego_rules::Move>) -> Turn {
        let color = game.to_move();
        let n = game.history().len();
        Turn {
            game_id: "g".into(),
            ply: game.ply_count(),
            color,
            plies: game.history()[n.saturating_sub(plies)..].to_vec(),
            pieces: game.view_pieces(color),
            captured: Some(*game.captured()),
            legal_moves,
            clock: Clock { move_ms: 100, remaining_ms: None, opponent_remaining_ms: None },
            strike: None,
            opponent_squares: None,
        }
    }

    #[test]
    fn quiet_plies_count_from_the_last_fight_seen_by_either_side() {
        let rules = Ruleset::classic();
        let mut rng = Rng::new(5);
        let red = Deployment::random(&rules, Color::Red, &mut || rng.next_u64());
        let blue = Deployment::random(&rules, Color::Blue, &mut || rng.next_u64());
        let mut game = Game::new(rules, &red, &blue).unwrap();
        let mut trackers = [QuietPlies::default(), QuietPlies::default()];
        let mut moves = Vec::new();
        let mut checked = [0, 0];
        while !game.is_over() && game.ply_count() < 600 {
            game.legal_moves(&mut moves);
            let side = game.to_move().index();
            // Each side hears of the plies since its last turn (two, one for Red's first).
            let turn = turn_of(&game, 2, moves.clone());
            let quiet = trackers[side].update(&turn);
            let last = game.history().iter().rposition(|p| p.combat.is_some()).map_or(0, |i| i as u32 + 1);
            assert_eq!(quiet, game.ply_count() - last, "ply {}", game.ply_count());
            if quiet == 0 {
                checked[0] += 1;
            } else if last > 0 {
                checked[1] += 1;
            }
            game.play(moves[rng.below(moves.len())]).unwrap();
        }
        // Both cases were exercised: quiet stretches after a fight, and fights just seen.
        assert!(checked[0] > 10 && checked[1] > 10, "{checked:?}");
    }
}

#[cfg(test)]
mod random_game_tests {
    use super::*;
    use stratego_protocol::Rng;
    use stratego_rules::{Color, Game, Rank, Ruleset};

    /// Plays `games` games of the heuristic (Red) against the search with 3 worlds a move
    /// (Blue), from human-like setups, under `rules`, up to `plies` plies each. Every move
    /// either side picks must be in the rules crate's legal moves (the oracle), and every
    /// belief the bot holds about an enemy piece must be a distribution that gives the
    /// piece's true rank a chance (a piece that moved: no chance of a Bomb or the Flag).
    fn play(rules: Ruleset, games: u64, plies: u32) -> u32 {
        let mut checked = 0;
        for seed in 0..games {
            let mut rng = Rng::new(seed);
            let red = setup::human_like(&rules, Color::Red, &mut rng);
            let blue = setup::human_like(&rules, Color::Blue, &mut rng);
            let mut game = Game::new(rules.clone(), &red, &blue).unwrap();
            let mut quiet = [QuietPlies::default(), QuietPlies::default()];
            let mut evidence = [knowledge::Evidence::default(), knowledge::Evidence::default()];
            let config = search::SearchConfig { worlds: Some(3), ..search::SearchConfig::default() };
            let mut moves = Vec::new();
            while !game.is_over() && game.ply_count() < plies {
                game.legal_moves(&mut moves);
                let side = game.to_move();
                let turn = tests::turn_of(&game, 2, moves.clone());
                let q = quiet[side.index()].update(&turn);
                evidence[side.index()].update(&turn);
                let k = knowledge::Knowledge::with_setup_prior(&rules, &turn, &evidence[side.index()]);
                for p in turn.pieces.iter().filter(|p| p.color != side) {
                    let d = k.distribution(p);
                    let (_, truth) = game.piece_at(p.square).unwrap();
                    assert!((d.iter().sum::<f64>() - 1.0).abs() < 1e-9, "seed {seed} ply {}: {d:?}", turn.ply);
                    assert!(d.iter().all(|&x| x >= 0.0), "seed {seed}: {d:?}");
                    assert!(
                        d[truth.index()] > 0.0,
                        "seed {seed} ply {}: {truth:?} at {} has {d:?}",
                        turn.ply,
                        p.square
                    );
                    if p.moved {
                        assert_eq!(d[Rank::Bomb.index()] + d[Rank::Flag.index()], 0.0, "seed {seed}");
                    }
                    checked += 1;
                }
                let m = if side == Color::Red {
                    heuristic::choose(&rules, &turn, &mut rng, &evidence[0], q)
                } else {
                    search::choose(&rules, &turn, &mut rng, &config, q, &evidence[1])
                };
                assert!(moves.contains(&m), "seed {seed} ply {}: {m} is not legal", turn.ply);
                game.play(m).unwrap();
            }
        }
        checked
    }

    #[test]
    fn both_strategies_play_only_legal_moves_and_hold_consistent_beliefs_classic() {
        assert!(play(Ruleset::classic(), 6, 400) > 10_000);
    }

    #[test]
    fn both_strategies_play_only_legal_moves_and_hold_consistent_beliefs_ucc2012() {
        assert!(play(Ruleset::ucc2012(), 6, 400) > 10_000);
    }

    #[test]
    fn both_strategies_play_only_legal_moves_and_hold_consistent_beliefs_barrage() {
        assert!(play(Ruleset::barrage(), 10, 400) > 1_000);
    }

    /// `--reveal-share` and `--blind-attacks` reach the alphabeta level (both off by
    /// default); a share outside 0..=1 is refused.
    #[test]
    fn the_alphabeta_modelling_flags_reach_its_config() {
        let parse = |a: &[&str]| Args::try_parse_from(std::iter::once("sample-bot").chain(a.iter().copied()));
        let plain = bot_of(parse(&["--strategy", "alphabeta"]).unwrap()).alphabeta;
        assert_eq!((plain.reveal_share, plain.blind_attacks), (0.0, false));
        let tried = bot_of(parse(&["--strategy", "alphabeta", "--reveal-share", "0.1", "--blind-attacks"]).unwrap());
        assert_eq!((tried.alphabeta.reveal_share, tried.alphabeta.blind_attacks), (0.1, true));
        for bad in ["2", "-0.5", "NaN", "a tenth"] {
            let e = parse(&[&format!("--reveal-share={bad}")]).unwrap_err().to_string();
            assert!(e.contains("is not a share"), "{bad}: {e}");
        }
    }

    /// Flag safety and the General's bonus are off by default; `--flag-safety` and
    /// `--general-bonus 0.5` turn them on; `--wall-share` sets the wall-time cap (0.4), `--cpu-clock` the CPU-time deadline (off).
    #[test]
    fn the_alphabeta_leaf_term_flags_reach_its_config() {
        let parse = |a: &[&str]| Args::try_parse_from(std::iter::once("sample-bot").chain(a.iter().copied()));
        let plain = bot_of(parse(&["--strategy", "alphabeta"]).unwrap()).alphabeta;
        assert_eq!((plain.flag_safety, plain.general_bonus), (false, 0.0));
        let on = bot_of(parse(&["--strategy", "alphabeta", "--flag-safety", "--general-bonus", "0.5"]).unwrap());
        assert_eq!((on.alphabeta.flag_safety, on.alphabeta.general_bonus), (true, 0.5));
        assert!(parse(&["--general-bonus", "3"]).is_err());
        assert_eq!(plain.wall_share, 0.4);
        let capped = bot_of(parse(&["--strategy", "alphabeta", "--wall-share", "0.6"]).unwrap());
        assert_eq!(capped.alphabeta.wall_share, 0.6);
        assert!(!plain.cpu_clock);
        assert!(bot_of(parse(&["--strategy", "alphabeta", "--cpu-clock"]).unwrap()).alphabeta.cpu_clock);
        assert!(!plain.guard_attacks);
        assert!(bot_of(parse(&["--strategy", "alphabeta", "--guard-attacks"]).unwrap()).alphabeta.guard_attacks);
        assert_eq!(plain.spy_odds, 1.0);
        let odds = bot_of(parse(&["--strategy", "alphabeta", "--spy-odds", "3"]).unwrap());
        assert_eq!(odds.alphabeta.spy_odds, 3.0);
        for bad in ["0.5", "-2", "NaN", "inf", "three"] {
            assert!(parse(&[&format!("--spy-odds={bad}")]).is_err(), "{bad}");
        }
        assert!(!plain.known_attacks);
        let evidence = |a: &[&str]| bot_of(parse(a).unwrap()).evidence.power;
        assert_eq!(evidence(&["--strategy", "alphabeta"]), 1.0);
        assert_eq!(evidence(&["--strategy", "alphabeta", "--evidence-power", "0.5"]), 0.5);
        assert!(parse(&["--evidence-power", "2"]).is_err());
        assert!(bot_of(parse(&["--strategy", "alphabeta", "--known-attacks"]).unwrap()).alphabeta.known_attacks);
    }

    /// `--setup-style` reaches the bot (default `gravon`, today's setups); an unknown style
    /// is refused.
    #[test]
    fn the_setup_style_flag_reaches_the_bot() {
        let parse = |a: &[&str]| Args::try_parse_from(std::iter::once("sample-bot").chain(a.iter().copied()));
        assert_eq!(bot_of(parse(&["--strategy", "alphabeta"]).unwrap()).setup_style, setup::SetupStyle::Gravon);
        for (name, style) in [
            ("layered", setup::SetupStyle::Layered),
            ("decoy", setup::SetupStyle::Decoy),
            ("flank", setup::SetupStyle::Flank),
        ] {
            assert_eq!(bot_of(parse(&["--setup-style", name]).unwrap()).setup_style, style);
        }
        assert!(parse(&["--setup-style", "fortress"]).is_err());
    }
}
