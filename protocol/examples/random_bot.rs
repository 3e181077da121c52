//! A complete random bot: `cargo run -p stratego-protocol --example random_bot`.
use stratego_protocol::bot::{self, Action, Bot, Game};
use stratego_protocol::{Ready, Turn};

struct RandomBot;

impl Bot for RandomBot {
    fn ready(&self) -> Ready {
        Ready { name: "random-example".into(), ..Ready::default() }
    }
    fn turn(&mut self, game: &mut Game, turn: &Turn) -> Action {
        Action::Move(*game.rng.choose(&turn.legal_moves).expect("a turn has legal moves"))
    }
}

fn main() -> std::io::Result<()> {
    bot::run(RandomBot)
}
