//! A small loop for Rust bots: implement [`Bot::turn`] (and optionally the rest), call
//! [`run`]. The loop answers `hello`, `setup_request`, `turn` and `quit`, and plays any
//! number of games in one process.
//!
//! A complete random bot (`protocol/examples/random_bot.rs`):
//!
//! ```no_run
//! use stratego_protocol::bot::{self, Action, Bot, Game};
//! use stratego_protocol::{Ready, Turn};
//!
//! struct RandomBot;
//!
//! impl Bot for RandomBot {
//!     fn ready(&self) -> Ready {
//!         Ready { name: "random-example".into(), ..Ready::default() }
//!     }
//!     fn turn(&mut self, game: &mut Game, turn: &Turn) -> Action {
//!         Action::Move(*game.rng.choose(&turn.legal_moves).expect("a turn has legal moves"))
//!     }
//! }
//!
//! fn main() -> std::io::Result<()> {
//!     bot::run(RandomBot)
//! }
//! ```

use std::io::{self, BufRead, Write};

use stratego_rules::{Deployment, Move, Ruleset};

use crate::{
    BotMessage, GameOver, Hello, HostMessage, Info, MoveAnswer, Ready, Resign, Rng, SetupAnswer, SetupRequest, Turn,
};

/// The game in progress, as the loop knows it.
pub struct Game {
    /// The `hello` that started it.
    pub hello: Hello,
    /// Its ruleset, validated.
    pub rules: Ruleset,
    /// A generator seeded with the game's seed.
    pub rng: Rng,
}

/// A bot's answer to a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Play this move.
    Move(Move),
    /// Give up.
    Resign,
}

/// A bot: a function from turn to move, plus optional hooks.
pub trait Bot {
    /// Name, version, author. `multi_game` is set by the loop.
    fn ready(&self) -> Ready;

    /// The deployment text for a setup request. Default: a uniformly random setup.
    fn setup(&mut self, game: &mut Game, _request: &SetupRequest) -> String {
        random_setup(game)
    }

    /// The move for a turn.
    fn turn(&mut self, game: &mut Game, turn: &Turn) -> Action;

    /// Called at the end of each game.
    fn game_over(&mut self, _game: &mut Game, _over: &GameOver) {}

    /// Lines of free text to send as `info` after a move (recorded, never forwarded).
    fn info(&mut self) -> Option<String> {
        None
    }
}

/// A uniformly random legal setup for the game's side, in rows form.
pub fn random_setup(game: &mut Game) -> String {
    let rng = &mut game.rng;
    Deployment::random(&game.rules, game.hello.color, &mut || rng.next_u64()).to_rows(&game.rules)
}

/// Runs `bot` on stdin and stdout until `quit` or the end of input.
///
/// # Errors
/// An I/O error on stdout.
pub fn run(bot: impl Bot) -> io::Result<()> {
    run_on(bot, io::stdin().lock(), io::stdout().lock())
}

/// Sends one message as one line with one write.
///
/// # Errors
/// An I/O error of `out`.
pub fn send(out: &mut impl Write, msg: &BotMessage) -> io::Result<()> {
    let mut line = serde_json::to_vec(msg).map_err(io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// [`run`] on any input and output (tests drive it with buffers).
///
/// # Errors
/// An I/O error on `output`.
pub fn run_on(mut bot: impl Bot, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut game: Option<Game> = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let msg: HostMessage = match serde_json::from_str(&line) {
            Ok(m) => m,
            Err(e) => {
                // A newer host may send messages this loop does not know: skip them.
                eprintln!("bot: ignoring a message I cannot read ({e})");
                continue;
            }
        };
        match msg {
            HostMessage::Hello(hello) => {
                let rules = match Ruleset::try_from(hello.ruleset.clone()) {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!("bot: the host sent an invalid ruleset: {e}");
                        return Ok(());
                    }
                };
                let rng = Rng::new(hello.seed);
                game = Some(Game { hello, rules, rng });
                let ready = Ready { multi_game: true, ..bot.ready() };
                send(&mut output, &BotMessage::Ready(ready))?;
            }
            HostMessage::SetupRequest(req) => {
                let Some(g) = game.as_mut() else { continue };
                let deployment = bot.setup(g, &req);
                send(&mut output, &BotMessage::Setup(SetupAnswer { deployment }))?;
            }
            HostMessage::Turn(turn) => {
                let Some(g) = game.as_mut() else { continue };
                let answer = match bot.turn(g, &turn) {
                    Action::Move(m) => BotMessage::Move(MoveAnswer { mv: m.to_string() }),
                    Action::Resign => BotMessage::Resign(Resign {}),
                };
                send(&mut output, &answer)?;
                if let Some(text) = bot.info() {
                    send(&mut output, &BotMessage::Info(Info { text }))?;
                }
            }
            HostMessage::GameOver(over) => {
                if let Some(g) = game.as_mut() {
                    bot.game_over(g, &over);
                }
            }
            HostMessage::Ply(_) => {}
            HostMessage::Quit(_) => return Ok(()),
        }
    }
}
