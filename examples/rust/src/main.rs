//! A starter bot for stratego-host in Rust, on the `stratego-protocol` crate's bot loop: it
//! plays random legal moves. Copy this folder, rename the crate, and put your strategy where
//! the comments say so.
//!
//! Build and run (from the repository root):
//!
//! ```text
//! cargo build --release --manifest-path examples/rust/Cargo.toml
//! stratego-host check examples/rust/target/release/stratego-starter-bot
//! ```
//!
//! The loop (`stratego_protocol::bot::run`) reads the host's messages from stdin (one JSON
//! object per line, see protocol.md), answers `hello` with `ready` (`multi_game` set for
//! you), asks this bot for each setup and move, writes and flushes each answer as one line,
//! plays any number of games in one process, and returns on `quit` or the end of input.
//! The seed (0 to 2^64-1) is a `u64`: `game.rng` is seeded with it.

use stratego_protocol::bot::{self, Action, Bot, Game};
use stratego_protocol::{GameOver, Ready, SetupRequest, Turn};

/// The bot. Keep what it learns during a game in its fields (reset them in `setup`, which
/// comes once per game), or across games: one process plays several games.
struct StarterBot;

impl Bot for StarterBot {
    fn ready(&self) -> Ready {
        Ready {
            name: "rust-starter".into(),
            version: Some("1".into()),
            // We compute on this one thread and only on our own turn. Say false if you add
            // threads that think while the opponent does.
            single_threaded: true,
            ..Ready::default()
        }
    }

    // ---- WHERE TO ADD YOUR STRATEGY ---------------------------------------------------
    // `setup` gets the setup_request, `turn` the turn, both decoded (see protocol.md for
    // their fields): `turn.pieces` is the board as you may see it (your ranks, the
    // opponent's once revealed), `turn.plies` what happened since your last turn,
    // `turn.clock` your time. `game.hello` has your colour and the ruleset; `game.rules`
    // is the validated ruleset of the `stratego-rules` crate, with which you can replay
    // the game and generate moves yourself.

    /// A random deployment of the army on the setup squares (the host plays
    /// `request.fixed` instead when the event chose the setup).
    fn setup(&mut self, game: &mut Game, _request: &SetupRequest) -> String {
        bot::random_setup(game)
    }

    /// One of the turn's legal moves (never empty), at random.
    fn turn(&mut self, game: &mut Game, turn: &Turn) -> Action {
        Action::Move(*game.rng.choose(&turn.legal_moves).expect("a turn has legal moves"))
    }
    // -------------------------------------------------------------------------------------

    fn game_over(&mut self, _game: &mut Game, over: &GameOver) {
        eprintln!("game over: {:?} ({})", over.result, over.reason);
    }
}

fn main() -> std::io::Result<()> {
    bot::run(StarterBot)
}
