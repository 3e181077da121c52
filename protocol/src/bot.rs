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

/// Decodes one line from the host. A `turn` (the message of every ply) that starts with its
/// type, as the host writes it, is decoded straight into [`Turn`]; everything else goes
/// through the general tagged decoding, which first buffers the whole message.
///
/// # Errors
/// The line is not a host message.
pub fn parse_host_message(line: &str) -> serde_json::Result<HostMessage> {
    if line.starts_with("{\"type\":\"turn\",") {
        return serde_json::from_str::<Turn>(line).map(HostMessage::Turn);
    }
    serde_json::from_str(line)
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
        let msg: HostMessage = match parse_host_message(&line) {
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
                    Action::Move(m) => BotMessage::Move(MoveAnswer { mv: m.to_string(), ply: Some(turn.ply) }),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turn_fast_path_decodes_like_the_general_path() {
        let line = r#"{"type":"turn","game_id":"g","ply":0,"color":"red","plies":[],"pieces":[{"square":"a1","color":"red","origin":"a1","rank":"flag"},{"square":"a10","color":"blue","origin":"a10","moved":true}],"captured":{"red":{},"blue":{"scout":1}},"legal_moves":["b1-b2"],"clock":{"move_ms":5,"remaining_ms":null,"opponent_remaining_ms":7}}"#;
        let general: HostMessage = serde_json::from_str(line).unwrap();
        assert_eq!(parse_host_message(line).unwrap(), general);
        // Another field order still decodes (through the general path).
        let reordered = line.replacen(r#""type":"turn","game_id":"g""#, r#""game_id":"g","type":"turn""#, 1);
        assert_eq!(parse_host_message(&reordered).unwrap(), general);
    }

    #[test]
    fn the_loop_answers_hello_setup_turn_and_stops_at_quit() {
        struct First;
        impl Bot for First {
            fn ready(&self) -> Ready {
                Ready { name: "first".into(), ..Ready::default() }
            }
            fn turn(&mut self, _: &mut Game, turn: &Turn) -> Action {
                Action::Move(turn.legal_moves[0])
            }
        }
        let hello = serde_json::to_string(&HostMessage::Hello(Hello {
            protocol: 1,
            game_id: "g".into(),
            color: stratego_rules::Color::Red,
            ruleset: Ruleset::barrage().spec().clone(),
            time_control: crate::TimeControl {
                startup_ms: 1,
                setup_ms: 1,
                move_ms: Some(1),
                bank_ms: None,
                increment_ms: 0,
                margin_ms: 0,
            },
            seed: 3,
            max_line_bytes: 1 << 20,
            opponent: None,
        }))
        .unwrap();
        let input = format!(
            "{hello}\n{}\n{}\n{{\"type\":\"quit\"}}\n{}\n",
            r#"{"type":"setup_request","game_id":"g","color":"red","squares":[],"pieces":{},"exact_counts":true,"time_ms":5}"#,
            r#"{"type":"turn","game_id":"g","ply":0,"color":"red","plies":[],"pieces":[],"captured":{"red":{},"blue":{}},"legal_moves":["b1-b2"],"clock":{"move_ms":5,"remaining_ms":null,"opponent_remaining_ms":null}}"#,
            r#"{"type":"turn","game_id":"g","ply":2,"color":"red","plies":[],"pieces":[],"captured":{"red":{},"blue":{}},"legal_moves":["c1-c2"],"clock":{"move_ms":5,"remaining_ms":null,"opponent_remaining_ms":null}}"#,
        );
        let mut out = Vec::new();
        run_on(First, input.as_bytes(), &mut out).unwrap();
        let lines: Vec<BotMessage> =
            String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 3, "ready, setup, move; nothing after quit");
        assert!(matches!(&lines[0], BotMessage::Ready(r) if r.name == "first" && r.multi_game));
        let BotMessage::Setup(s) = &lines[1] else { panic!() };
        let rules = Ruleset::barrage();
        Deployment::parse(&rules, stratego_rules::Color::Red, &s.deployment).unwrap();
        assert_eq!(lines[2], BotMessage::Move(MoveAnswer { mv: "b1-b2".into(), ply: Some(0) }));
    }
}
