//! Fixed, seeded random playouts: a stable workload for instruction counts.
//!
//! `valgrind --tool=callgrind target/release/examples/playouts 20`

use stratego_rules::{Color, Deployment, Game, Ruleset};

#[path = "../tests/support/rng.rs"]
mod rng;

fn main() {
    let games: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let rules = Ruleset::classic();
    let mut buf = Vec::with_capacity(128);
    let mut plies = 0u64;
    for seed in 0..games {
        let mut rng = rng::xorshift(seed);
        let red = Deployment::random(&rules, Color::Red, &mut rng);
        let blue = Deployment::random(&rules, Color::Blue, &mut rng);
        let mut game = Game::new(rules.clone(), &red, &blue).expect("valid");
        while !game.is_over() {
            game.legal_moves(&mut buf);
            game.play_unchecked(buf[(rng() % buf.len() as u64) as usize]);
        }
        plies += u64::from(game.ply_count());
    }
    println!("{games} games, {plies} plies");
}
