//! Rules benchmarks: random playouts and legal-move generation (divan).
//!
//! `cargo bench -p stratego-rules --bench rules`

use stratego_rules::{Color, Deployment, Game, Move, Ruleset};

fn main() {
    divan::main();
}

#[path = "../tests/support/rng.rs"]
mod rng;
use rng::xorshift as rng_from;

/// Plays one random game with full legal-move generation every ply; returns its plies.
fn playout(rules: &Ruleset, seed: u64, buf: &mut Vec<Move>) -> u32 {
    let mut rng = rng_from(seed);
    let red = Deployment::random(rules, Color::Red, &mut rng);
    let blue = Deployment::random(rules, Color::Blue, &mut rng);
    let mut game = Game::new(rules.clone(), &red, &blue).expect("valid");
    while !game.is_over() {
        game.legal_moves(buf);
        game.play_unchecked(buf[(rng() % buf.len() as u64) as usize]);
    }
    game.ply_count()
}

/// 20 seeded random games per iteration; divan's counter reports plies per second.
#[divan::bench(args = ["classic", "isf", "barrage"], sample_count = 20)]
fn random_playouts(bencher: divan::Bencher, preset: &str) {
    let rules = Ruleset::preset(preset).unwrap();
    let mut buf = Vec::with_capacity(128);
    let plies: u32 = (0..20).map(|s| playout(&rules, s, &mut buf)).sum();
    bencher
        .counter(divan::counter::ItemsCount::new(plies as usize))
        .bench_local(|| (0..20).map(|s| playout(&rules, s, &mut buf)).sum::<u32>());
}

/// A middle-game position: 60 random plies into a classic game.
fn middle_game() -> Game {
    let rules = Ruleset::classic();
    let mut rng = rng_from(42);
    let red = Deployment::random(&rules, Color::Red, &mut rng);
    let blue = Deployment::random(&rules, Color::Blue, &mut rng);
    let mut game = Game::new(rules, &red, &blue).unwrap();
    let mut buf = Vec::new();
    while game.ply_count() < 60 {
        game.legal_moves(&mut buf);
        game.play_unchecked(buf[(rng() % buf.len() as u64) as usize]);
    }
    game
}

// Fixed sample sizes: a sample of a single ~150 ns call is too close to the timer's
// precision (20 ns here) for a stable median.
#[divan::bench(sample_count = 100, sample_size = 1000)]
fn legal_moves_middle_game(bencher: divan::Bencher) {
    let game = middle_game();
    let mut buf = Vec::with_capacity(128);
    bencher.bench_local(|| {
        game.legal_moves(&mut buf);
        buf.len()
    });
}

/// A fresh `View` of that position, built and dropped (as a host does every turn).
#[divan::bench(sample_count = 100, sample_size = 200)]
fn view_middle_game(bencher: divan::Bencher) {
    let game = middle_game();
    bencher.bench_local(|| game.view(game.to_move()).pieces.len());
}

/// The same view into a reused `View` (no allocation).
#[divan::bench(sample_count = 100, sample_size = 200)]
fn view_into_middle_game(bencher: divan::Bencher) {
    let game = middle_game();
    let mut view = game.view(game.to_move());
    bencher.bench_local(|| {
        game.view_into(game.to_move(), &mut view);
        view.pieces.len()
    });
}
