//! Arbitrary bytes into every parser of the rules crate, then a game driven by the bytes:
//! nothing may panic, every generated move must pass the checked conversion, and every
//! move text the bytes spell must be refused or played consistently.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/rng.rs"]
mod rng;
use stratego_rules::{Color, Deployment, Game, Move, Ruleset, gravon::GravonGame};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = text.parse::<Move>();
    let _ = GravonGame::parse(&text);
    let rules = match data.first().map(|b| b % 4) {
        Some(0) => Ruleset::from_json(&text).unwrap_or_default(),
        Some(1) => Ruleset::isf(),
        Some(2) => Ruleset::barrage(),
        _ => Ruleset::classic(),
    };
    let _ = Deployment::parse(&rules, Color::Red, &text);
    // A game whose setups and moves are chosen by the bytes.
    let mut bytes = data.iter().copied().cycle().take(4096);
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ data.len() as u64;
    for b in data.iter().take(16) {
        seed = seed.rotate_left(8) ^ u64::from(*b);
    }
    let mut rng = rng::xorshift(seed);
    let red = Deployment::random(&rules, Color::Red, &mut rng);
    let blue = Deployment::random(&rules, Color::Blue, &mut rng);
    let Ok(mut game) = Game::new(rules.clone(), &red, &blue) else { return };
    let mut moves = Vec::new();
    while !game.is_over() {
        game.legal_moves(&mut moves);
        for &m in &moves {
            assert_eq!(game.check_move(m), Ok(()), "generated move {m} must be legal");
        }
        let Some(b) = bytes.next() else { break };
        if b % 8 == 0 {
            // Try a move spelled by the bytes: either refused with a reason or legal.
            let (x, y) = (bytes.next().unwrap_or(0), bytes.next().unwrap_or(0));
            if let (Some(from), Some(to)) = (stratego_rules::Square::from_index(x), stratego_rules::Square::from_index(y)) {
                let m = Move::new(from, to);
                match game.check_move(m) {
                    Ok(()) => assert!(moves.contains(&m), "{m} passes the check but was not generated"),
                    Err(_) => assert!(!moves.contains(&m), "{m} was generated but is refused"),
                }
            }
        }
        if moves.is_empty() {
            break;
        }
        game.play_unchecked(moves[usize::from(b) % moves.len()]);
    }
});
