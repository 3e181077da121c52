//! Replays Gravon games under their rulesets: a small fixture of real games kept in the
//! repository (`tests/data/gravon`: the 2004-11 and 2005 months, 112 games) runs
//! everywhere; the full archive (`../shared/data/gravon`, thousands of games) is an extra
//! test that `.ci/run` runs with `--ignored`.

mod support {
    pub mod archive;
    pub mod rng;
}

use std::path::PathBuf;

/// Where the full archive is: `$STRATEGO_GRAVON_DIR`, else the shared folder beside the
/// checkout.
fn full_archive_dir() -> PathBuf {
    match std::env::var_os("STRATEGO_GRAVON_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/gravon"),
    }
}

/// Replays every game under `dir`, prints the counts and checks what must hold for any
/// collection; returns the report for collection-specific counts.
fn replay_collection(dir: &std::path::Path) -> support::archive::Report {
    let games = support::archive::read_games(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    let report = support::archive::check(&games);
    // Written straight to stderr so the counts show in CI logs even though the test passes.
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "Gravon replay of {}:\n{}", dir.display(), report.render(false));
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
    report
}

#[test]
fn fixture_games_replay_legally_and_their_results_agree() {
    let report = replay_collection(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gravon"));
    let classic = &report.types["classic"];
    assert_eq!(classic.games, 100);
    assert_eq!(classic.plies, 35_437);
    assert_eq!((classic.results[&1].1, classic.results[&0].1), (38, 5), "{:?}", classic.results);
    assert_eq!(report.types["barrage"].games, 4);
    assert_eq!(report.types["classicfree"].games, 8);
    assert_eq!(report.skipped["ultimate lightning"], 3);
}

#[test]
#[ignore = "needs the full Gravon archive (../shared/data/gravon or $STRATEGO_GRAVON_DIR); .ci/run runs it"]
fn every_full_archive_game_replays_legally_and_its_result_agrees() {
    let dir = full_archive_dir();
    assert!(
        dir.is_dir(),
        "the full Gravon archive is not at {} (set STRATEGO_GRAVON_DIR); the fixture test covers a fresh clone",
        dir.display()
    );
    let report = replay_collection(&dir);
    let classic = &report.types["classic"];
    assert_eq!(classic.games, 3723);
    assert!(classic.results[&1].1 > 1000 && classic.results[&0].1 > 200, "{:?}", classic.results);
    assert_eq!(report.types["barrage"].games, 191);
}

#[test]
fn duell_games_replay_under_the_duell_ruleset() {
    // The stored months hold no duell game: play one under the duell ruleset, write it as
    // Gravon XML, and check that it reads back and replays to the same result.
    use stratego_rules::gravon::{GravonGame, GravonResult, Playthrough, ruleset_for_type};
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
    let replay = Playthrough::run(&back).unwrap();
    assert_eq!(replay.illegal, None);
    assert_eq!(replay.plies, game.ply_count() as usize);
    assert_eq!(replay.outcome, Some(o));
    if kind != 4 {
        assert!(replay.agrees);
    }
}

#[test]
fn only_free_training_games_may_lack_a_flag() {
    // Gravon's classicfree training boards could leave out a Flag (one archive game does);
    // any other game type, like every arena game, must place it.
    use stratego_rules::gravon::{GravonGame, Playthrough};
    let field = "ABLKEDDCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA__AA__AAAA__AA__AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAYNXWQPPOAA";
    let xml = |ty: &str| format!(r#"<stratego><game type="{ty}"><field content="{field}"/></game></stratego>"#);
    let free = GravonGame::parse(&xml("classicfree")).unwrap();
    let replay = Playthrough::run(&free).unwrap();
    assert_eq!((replay.plies, replay.illegal), (0, None));
    let barrage = GravonGame::parse(&xml("barrage")).unwrap();
    assert_eq!(
        Playthrough::run(&barrage).unwrap_err().to_string(),
        "field: Red places no flag; the ruleset requires 1"
    );
}
