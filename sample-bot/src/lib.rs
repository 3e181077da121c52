//! The reference bot of `stratego-host`.
//!
//! - `random`: a uniformly random legal setup and uniformly random legal moves.
//! - `heuristic` (default): a setup with the Flag on the back rank behind its Bombs, and
//!   moves chosen by what the bot knows of each enemy piece (see [`heuristic`]).
//!
//! Every strategy is deterministic for the seed the host sends.

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
    /// Determinized Monte Carlo over the heuristic's best moves (the strongest); uses 70 %
    /// of each move's time less 3 ms.
    Search,
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
}

/// The bot.
pub struct SampleBot {
    strategy: Strategy,
    name: String,
    search: search::SearchConfig,
    /// Ask for full turns whatever the strategy.
    pub full_view: bool,
}

impl SampleBot {
    /// A bot with this strategy.
    pub fn new(strategy: Strategy, name: Option<String>) -> SampleBot {
        let default = match strategy {
            Strategy::Random => "sample-bot-random",
            Strategy::Heuristic => "sample-bot-heuristic",
            Strategy::Search => "sample-bot-search",
        };
        SampleBot {
            strategy,
            name: name.unwrap_or_else(|| default.to_owned()),
            search: search::SearchConfig::default(),
            full_view: false,
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
            ..Ready::default()
        }
    }

    fn setup(&mut self, game: &mut Game, _request: &SetupRequest) -> String {
        match self.strategy {
            Strategy::Random => bot::random_setup(game),
            Strategy::Heuristic | Strategy::Search => {
                setup::human_like(&game.rules, game.hello.color, &mut game.rng).to_rows(&game.rules)
            }
        }
    }

    fn turn(&mut self, game: &mut Game, turn: &Turn) -> Action {
        match self.strategy {
            Strategy::Random => Action::Move(*game.rng.choose(&turn.legal_moves).expect("a turn has legal moves")),
            Strategy::Heuristic => Action::Move(heuristic::choose(&game.rules, turn, &mut game.rng)),
            Strategy::Search => Action::Move(search::choose(&game.rules, turn, &mut game.rng, &self.search)),
        }
    }
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
    let mut bot = SampleBot::new(args.strategy, args.name);
    bot.search.worlds = args.worlds;
    bot.search.depth = args.depth;
    bot.full_view = args.full_view;
    match bot::run(bot) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("sample-bot: {e}");
            1
        }
    }
}
