//! Replays every game of the Gravon archive in ../shared/data/gravon under its ruleset.

mod support {
    pub mod archive;
    pub mod rng;
}

use std::path::PathBuf;

fn archive_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/gravon")
}

#[test]
fn every_archive_game_replays_legally_and_its_result_agrees() {
    let dir = archive_dir();
    let games = support::archive::read_games(&dir)
        .unwrap_or_else(|e| panic!("the Gravon archive must be at {}: {e}", dir.display()));
    let report = support::archive::check(&games);
    // Written straight to stderr so the counts show in CI logs even though the test passes.
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "Gravon archive replay:\n{}", report.render(false));
    assert!(report.unreadable.is_empty(), "unreadable games: {:#?}", report.unreadable);
    assert_eq!(report.skipped.keys().collect::<Vec<_>>(), ["ultimate lightning"], "only ultimate lightning is skipped");
    for ty in ["classic", "barrage", "classicfree"] {
        let t = &report.types[ty];
        assert!(t.games > 0, "{ty}: no games read");
        assert!(t.illegal.is_empty(), "{ty}: illegal moves: {:#?}", t.illegal);
        // Rule endings (0 loser cannot move, 1 flag captured, 2 neither can move) must agree
        // with the replay; other endings need a game the rules had not ended.
        assert!(t.disagreements.is_empty(), "{ty}: results disagree: {:#?}", t.disagreements);
    }
    let classic = &report.types["classic"];
    assert_eq!(classic.games, 3723);
    assert!(classic.results[&1].1 > 1000 && classic.results[&0].1 > 200, "{:?}", classic.results);
    assert_eq!(report.types["barrage"].games, 191);
}

#[test]
fn duell_games_replay_under_the_duell_ruleset() {
    // The stored months hold no duell game: play one under the duell ruleset, write it as
    // Gravon XML, and check that it reads back and replays to the same result.
    use stratego_rules::gravon::{GravonGame, GravonResult, Replay, ruleset_for_type};
    use stratego_rules::{Color, Deployment, Game};
    let rules = ruleset_for_type("duell").unwrap();
    assert_eq!(rules.pieces().total(), 10);
    let mut rng = support::rng::xorshift(0x1234_5678_9abc_def1);
    let red = Deployment::random(&rules, Color::Red, &mut rng);
    let blue = Deployment::random(&rules, Color::Blue, &mut rng);
    let mut game = Game::new(rules, &red, &blue).unwrap();
    let mut moves = Vec::new();
    while !game.is_over() {
        game.legal_moves(&mut moves);
        game.play(moves[(rng() % moves.len() as u64) as usize]).unwrap();
    }
    let o = game.outcome().unwrap();
    let kind = match o.reason {
        stratego_rules::EndReason::FlagCaptured => 1,
        stratego_rules::EndReason::NoLegalMoves => 0,
        stratego_rules::EndReason::NeitherCanMove => 2,
        _ => 4,
    };
    let winner = match o.winner {
        Some(Color::Red) => 1,
        Some(Color::Blue) => 2,
        None => 3,
    };
    let xml = GravonGame::from_game("duell", &game, Some(GravonResult { kind, winner })).to_xml();
    let back = GravonGame::parse(&xml).unwrap();
    let replay = Replay::run(&back).unwrap();
    assert_eq!(replay.illegal, None);
    assert_eq!(replay.plies, game.ply_count() as usize);
    assert_eq!(replay.outcome, Some(o));
    if kind != 4 {
        assert!(replay.agrees);
    }
}
