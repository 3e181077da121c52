//! Cost of the per-ply message: building a turn from a game, and encoding it.
//!
//! `cargo bench -p stratego-protocol --bench turn`

use stratego_protocol::{Clock, HostMessage, Rng, Turn, fast_json};
use stratego_rules::{Color, Deployment, Game, Ruleset};

fn main() {
    divan::main();
}

fn middle_game() -> Game {
    let rules = Ruleset::classic();
    let mut rng = Rng::new(42);
    let red = Deployment::random(&rules, Color::Red, &mut || rng.next_u64());
    let blue = Deployment::random(&rules, Color::Blue, &mut || rng.next_u64());
    let mut game = Game::new(rules, &red, &blue).unwrap();
    let mut moves = Vec::new();
    while game.ply_count() < 60 {
        game.legal_moves(&mut moves);
        game.play_unchecked(moves[rng.below(moves.len())]);
    }
    game
}

fn build(game: &Game, moves: &mut Vec<stratego_rules::Move>) -> Turn {
    game.legal_moves(moves);
    let n = game.history().len();
    Turn {
        game_id: "0000000000000001-1".into(),
        ply: game.ply_count(),
        color: game.to_move(),
        plies: game.history()[n - 2..].to_vec(),
        pieces: game.view_pieces(game.to_move()),
        captured: Some(*game.captured()),
        legal_moves: std::mem::take(moves),
        clock: Clock { move_ms: 1000, remaining_ms: None, opponent_remaining_ms: None },
        strike: None,
        opponent_squares: None,
    }
}

#[divan::bench]
fn build_turn(bencher: divan::Bencher) {
    let game = middle_game();
    let mut moves = Vec::with_capacity(128);
    bencher.bench_local(|| build(&game, &mut moves));
}

#[divan::bench]
fn build_and_encode_turn_fast(bencher: divan::Bencher) {
    let game = middle_game();
    let mut moves = Vec::with_capacity(128);
    let mut out = Vec::with_capacity(8192);
    bencher.bench_local(|| {
        let t = build(&game, &mut moves);
        out.clear();
        fast_json::write_turn(&mut out, &t);
        out.len()
    });
}

#[divan::bench]
fn build_and_encode_turn_serde(bencher: divan::Bencher) {
    let game = middle_game();
    let mut moves = Vec::with_capacity(128);
    let mut out = Vec::with_capacity(8192);
    bencher.bench_local(|| {
        let t = HostMessage::Turn(build(&game, &mut moves));
        out.clear();
        serde_json::to_writer(&mut out, &t).unwrap();
        out.len()
    });
}

#[divan::bench]
fn decode_turn_in_a_bot(bencher: divan::Bencher) {
    let game = middle_game();
    let mut moves = Vec::new();
    let mut line = Vec::new();
    fast_json::write_turn(&mut line, &build(&game, &mut moves));
    let line = String::from_utf8(line).unwrap();
    println!("turn line: {} bytes", line.len());
    bencher.bench_local(|| stratego_protocol::bot::parse_host_message(&line).unwrap());
}
