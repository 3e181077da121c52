//! One test per rule of ../shared/RULES.md, on hand-made positions.

use stratego_rules::*;

#[path = "support/rng.rs"]
mod rng;

/// A ruleset where each side may place any part of the classic army anywhere on its half,
/// with the repetition settings of `base`.
fn free(base: Ruleset, f: impl FnOnce(&mut RulesetSpec)) -> Ruleset {
    let mut spec = base.spec().clone();
    spec.exact_counts = false;
    spec.setup_ranks = ByColor::new([1, 10], [1, 10]);
    f(&mut spec);
    Ruleset::try_from(spec).unwrap()
}

fn game(rules: Ruleset, red: &str, blue: &str) -> Game {
    let r = Deployment::parse(&rules, Color::Red, red).unwrap();
    let b = Deployment::parse(&rules, Color::Blue, blue).unwrap();
    Game::new(rules, &r, &b).unwrap()
}

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

fn legal(g: &Game) -> Vec<String> {
    let mut buf = Vec::new();
    g.legal_moves(&mut buf);
    let mut v: Vec<String> = buf.iter().map(Move::to_string).collect();
    v.sort();
    v
}

/// Every move `check_move` accepts among all pairs of board squares, sorted.
fn checked_moves(g: &Game) -> Vec<Move> {
    let squares: Vec<Square> = g.rules().squares().collect();
    let mut out = Vec::new();
    for &from in &squares {
        for &to in &squares {
            if g.check_move(Move::new(from, to)).is_ok() {
                out.push(Move::new(from, to));
            }
        }
    }
    out.sort();
    out
}

/// The generator's moves, sorted.
fn generated_moves(g: &Game) -> Vec<Move> {
    let mut buf = Vec::new();
    g.legal_moves(&mut buf);
    buf.sort();
    buf
}

fn play_all(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        g.play(mv(m)).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

fn fight(attacker: Rank, defender: Rank) -> (Ply, Game) {
    let rules = free(Ruleset::classic(), |_| {});
    // Every setup places its Flag: Blue's stands on i10 unless it is the defender.
    let blue_flag = if defender == Rank::Flag { "" } else { " i10=F" };
    let mut g = game(
        rules,
        &format!("a1=F e4={} j1=2", attacker.code()),
        &format!("a10=B e5={} j10=2{blue_flag}", defender.code()),
    );
    let ply = g.play(mv("e4-e5")).unwrap();
    (ply, g)
}

#[test]
fn combat_spy_attacking_marshal_wins() {
    let (ply, g) = fight(Rank::Spy, Rank::Marshal);
    assert_eq!(ply.combat.unwrap().result, CombatResult::AttackerWins);
    assert_eq!(g.piece_at(mv("e4-e5").to), Some((Color::Red, Rank::Spy)));
    assert_eq!(g.captured().blue[Rank::Marshal], 1);
}

#[test]
fn combat_marshal_attacking_spy_wins() {
    let (ply, _) = fight(Rank::Marshal, Rank::Spy);
    assert_eq!(ply.combat.unwrap().result, CombatResult::AttackerWins);
}

#[test]
fn combat_spy_loses_any_other_fight() {
    assert_eq!(fight(Rank::Spy, Rank::General).0.combat.unwrap().result, CombatResult::DefenderWins);
    assert_eq!(fight(Rank::Scout, Rank::Spy).0.combat.unwrap().result, CombatResult::AttackerWins);
    assert_eq!(fight(Rank::Spy, Rank::Spy).0.combat.unwrap().result, CombatResult::BothRemoved);
}

#[test]
fn combat_miner_defuses_bomb() {
    let (ply, g) = fight(Rank::Miner, Rank::Bomb);
    assert_eq!(ply.combat.unwrap().result, CombatResult::AttackerWins);
    assert_eq!(g.piece_at("e5".parse().unwrap()), Some((Color::Red, Rank::Miner)));
}

#[test]
fn combat_other_pieces_die_on_a_bomb() {
    for r in [Rank::Spy, Rank::Scout, Rank::Sergeant, Rank::General, Rank::Marshal] {
        let (ply, g) = fight(r, Rank::Bomb);
        assert_eq!(ply.combat.unwrap().result, CombatResult::DefenderWins, "{r}");
        assert_eq!(g.piece_at("e5".parse().unwrap()), Some((Color::Blue, Rank::Bomb)));
        assert_eq!(g.piece_at("e4".parse().unwrap()), None);
    }
}

#[test]
fn combat_equal_ranks_remove_both() {
    let (ply, g) = fight(Rank::Major, Rank::Major);
    assert_eq!(ply.combat.unwrap().result, CombatResult::BothRemoved);
    assert_eq!(g.piece_at("e5".parse().unwrap()), None);
    assert_eq!(g.piece_at("e4".parse().unwrap()), None);
    assert_eq!((g.captured().red[Rank::Major], g.captured().blue[Rank::Major]), (1, 1));
}

#[test]
fn combat_higher_rank_wins_either_way() {
    assert_eq!(fight(Rank::Colonel, Rank::Major).0.combat.unwrap().result, CombatResult::AttackerWins);
    let (ply, g) = fight(Rank::Major, Rank::Colonel);
    assert_eq!(ply.combat.unwrap().result, CombatResult::DefenderWins);
    assert_eq!(g.piece_at("e5".parse().unwrap()), Some((Color::Blue, Rank::Colonel)));
}

#[test]
fn combat_capturing_the_flag_wins_the_game() {
    let (ply, g) = fight(Rank::Scout, Rank::Flag);
    assert!(ply.combat.unwrap().flag_captured());
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::FlagCaptured }));
    assert_eq!(g.check_move(mv("j10-j9")), Err(IllegalMove::GameOver));
}

#[test]
fn scout_rays_stop_at_lakes_pieces_and_the_edge() {
    // Scout on b5: right is the lake c5, up to b10 (own piece on b9 stops it at b8), down to b2.
    let rules = free(Ruleset::classic(), |_| {});
    let g = game(rules, "a1=F b5=2 b9=4 b1=B", "j10=F j9=4");
    let scout: Vec<String> = legal(&g).into_iter().filter(|m| m.starts_with("b5-")).collect();
    assert_eq!(scout, ["b5-a5", "b5-b2", "b5-b3", "b5-b4", "b5-b6", "b5-b7", "b5-b8"]);
    assert_eq!(g.check_move(mv("b5-d5")), Err(IllegalMove::BlockedByLake("c5".parse().unwrap())));
    assert_eq!(g.check_move(mv("b5-b10")), Err(IllegalMove::BlockedPath("b9".parse().unwrap())));
}

#[test]
fn scout_attacks_at_the_end_of_a_ray() {
    let rules = free(Ruleset::classic(), |_| {});
    let mut g = game(rules, "a1=F e2=2", "j10=F e9=4");
    assert!(legal(&g).contains(&"e2-e9".to_string()));
    let ply = g.play(mv("e2-e9")).unwrap();
    assert_eq!(ply.combat.unwrap().result, CombatResult::DefenderWins);
}

#[test]
fn scout_move_and_attack_can_be_switched_off() {
    let rules = free(Ruleset::classic(), |s| s.scout_move_and_attack = false);
    let g = game(rules, "a1=F e2=2", "j10=F e9=4 e3=4");
    let l = legal(&g);
    assert!(l.contains(&"e2-e3".to_string()));
    let rules = free(Ruleset::classic(), |s| s.scout_move_and_attack = false);
    let g = game(rules, "a1=F e2=2", "j10=F e9=4");
    assert!(!legal(&g).contains(&"e2-e9".to_string()));
    assert!(legal(&g).contains(&"e2-e8".to_string()));
    assert_eq!(g.check_move(mv("e2-e9")), Err(IllegalMove::ScoutMoveAndAttack));
}

#[test]
fn immobile_pieces_never_move() {
    let rules = free(Ruleset::classic(), |_| {});
    let g = game(rules, "a1=F a2=B e4=4", "j10=F j9=4");
    assert!(legal(&g).iter().all(|m| m.starts_with("e4")));
    assert_eq!(
        g.check_move(mv("a1-b1")),
        Err(IllegalMove::Immobile { rank: Rank::Flag, square: "a1".parse().unwrap() })
    );
    assert_eq!(
        g.check_move(mv("a2-a3")),
        Err(IllegalMove::Immobile { rank: Rank::Bomb, square: "a2".parse().unwrap() })
    );
}

#[test]
fn checked_moves_explain_every_illegal_move() {
    let rules = free(Ruleset::classic(), |_| {});
    let g = game(rules, "a1=F e4=4 f4=4 b5=2", "j10=F e5=4");
    let sq = |s: &str| -> Square { s.parse().unwrap() };
    let cases = [
        ("e4-e5", Ok(())),
        ("e3-e4", Err(IllegalMove::NoPiece(sq("e3")))),
        ("e5-e6", Err(IllegalMove::NotYourPiece(sq("e5")))),
        ("e4-f5", Err(IllegalMove::NotStraight(mv("e4-f5")))),
        ("e4-e6", Err(IllegalMove::TooFar(Rank::Sergeant))),
        ("e4-f4", Err(IllegalMove::OntoOwnPiece(sq("f4")))),
        ("b5-c5", Err(IllegalMove::BlockedByLake(sq("c5")))),
        ("e4-k4", Err(IllegalMove::OffBoard(sq("k4")))),
        ("e4-e4", Err(IllegalMove::SameSquare(sq("e4")))),
    ];
    for (m, want) in cases {
        assert_eq!(g.check_move(mv(m)), want, "{m}");
    }
    assert_eq!(
        IllegalMove::TwoSquareRule { limit: 5 }.to_string(),
        "two-square rule: this piece has already moved 5 times in a row between these squares"
    );
}

#[test]
fn two_square_rule_classic_allows_five_and_forbids_the_sixth() {
    let rules = free(Ruleset::classic(), |_| {});
    let mut g = game(rules, "a1=F e4=7 j1=7", "a10=F e9=7 j9=7");
    // Five red shuttles between e4 and e5; Blue's moves in between do not reset the count.
    play_all(&mut g, "e4-e5 e9-e8 e5-e4 e8-e9 e4-e5 e9-e8 e5-e4 j9-j8 e4-e5 j8-j9");
    assert_eq!(g.check_move(mv("e5-e4")), Err(IllegalMove::TwoSquareRule { limit: 5 }));
    assert!(!legal(&g).contains(&"e5-e4".to_string()));
    assert_eq!(generated_moves(&g), checked_moves(&g));
    // Other moves of the same piece stay legal, and moving another piece resets the count.
    assert!(legal(&g).contains(&"e5-e6".to_string()));
    play_all(&mut g, "j1-j2 e8-e7 e5-e4");
}

#[test]
fn two_square_rule_isf_allows_three_and_forbids_the_fourth() {
    let rules = free(Ruleset::isf(), |s| s.more_squares = false);
    let mut g = game(rules, "a1=F e4=7", "a10=F e9=7 j9=7");
    play_all(&mut g, "e4-e5 e9-e8 e5-e4 j9-j8 e4-e5 j8-j9");
    assert_eq!(g.check_move(mv("e5-e4")), Err(IllegalMove::TwoSquareRule { limit: 3 }));
}

#[test]
fn two_square_rule_scout_path_counts_moves_within_the_stretch() {
    // ISF: a8-e8, then moves inside a8..e8 continue the shuttle; the fourth is illegal.
    let moves = "a8-e8 j10-j9 e8-b8 j9-j10 b8-d8 j10-j9";
    let rules = free(Ruleset::isf(), |s| s.more_squares = false);
    let mut g = game(rules, "a1=F a8=2", "a10=F j10=4");
    play_all(&mut g, moves);
    assert_eq!(g.check_move(mv("d8-a8")), Err(IllegalMove::TwoSquareRule { limit: 3 }));
    // Leaving the stretch is a new shuttle.
    assert_eq!(g.check_move(mv("d8-d7")), Ok(()));
    // Classic: only exact repetitions between two squares count.
    let rules = free(Ruleset::classic(), |s| s.two_square_limit = Some(3));
    let mut g = game(rules, "a1=F a8=2", "a10=F j10=4");
    play_all(&mut g, moves);
    assert_eq!(g.check_move(mv("d8-a8")), Ok(()));
}

#[test]
fn two_square_rule_scout_shuttling_exactly_counts_under_classic() {
    let rules = free(Ruleset::classic(), |_| {});
    let mut g = game(rules, "a1=F a8=2", "a10=F j10=4 j1=4");
    play_all(&mut g, "a8-e8 j10-j9 e8-a8 j9-j10 a8-e8 j10-j9 e8-a8 j9-j10 a8-e8 j1-j2");
    assert_eq!(g.check_move(mv("e8-a8")), Err(IllegalMove::TwoSquareRule { limit: 5 }));
    assert_eq!(g.check_move(mv("e8-b8")), Ok(()));
}

/// Red's Major follows Blue's Captain once around the lake c5-d6: the ring of twelve
/// squares brings back the position at the start of the chase.
const RING: [&str; 12] = ["b7", "c7", "d7", "e7", "e6", "e5", "e4", "d4", "c4", "b4", "b5", "b6"];

fn chase_game(more_squares: bool) -> Game {
    let rules = free(Ruleset::isf(), |s| {
        s.more_squares = more_squares;
        s.two_square_limit = None;
    });
    let mut g = game(rules, "a1=F a7=7", "j10=F c7=6");
    g.play(mv("a7-b7")).unwrap(); // the threat
    for i in 0..12 {
        g.play(mv(&format!("{}-{}", RING[(i + 1) % 12], RING[(i + 2) % 12]))).unwrap();
        if i < 11 {
            g.play(mv(&format!("{}-{}", RING[i], RING[i + 1]))).unwrap();
        }
    }
    g
}

#[test]
fn chasing_rule_forbids_recreating_a_position_of_the_chase() {
    let g = chase_game(true);
    // Blue's Captain is on b7's neighbour c7 again; Red's b6-b7 would recreate the position
    // after the first threat, and b7 is not where the Major came from.
    assert_eq!(g.piece_at("c7".parse().unwrap()), Some((Color::Blue, Rank::Captain)));
    assert_eq!(g.check_move(mv("b6-b7")), Err(IllegalMove::ChasingRule));
    assert!(!legal(&g).contains(&"b6-b7".to_string()));
    assert_eq!(generated_moves(&g), checked_moves(&g));
    // A move that does not chase is fine, and so is the same move without the rule.
    assert_eq!(g.check_move(mv("b6-a6")), Ok(()));
    assert_eq!(chase_game(false).check_move(mv("b6-b7")), Ok(()));
}

#[test]
fn chasing_rule_allows_returning_to_the_square_just_left() {
    let rules = free(Ruleset::isf(), |s| s.two_square_limit = None);
    let mut g = game(rules, "a1=F e6=7", "j10=F e8=6");
    // e6-e7 threatens e8; e8-f8 flees; e7-f7 chases; f8-e8 flees back; f7-e7 repeats the
    // position after the threat, but e7 is where the Major came from.
    play_all(&mut g, "e6-e7 e8-f8 e7-f7 f8-e8");
    assert_eq!(g.check_move(mv("f7-e7")), Ok(()));
}

#[test]
fn end_flag_captured() {
    let rules = free(Ruleset::classic(), |_| {});
    let mut g = game(rules, "a1=F j9=4", "j10=F a10=4");
    g.play(mv("j9-j10")).unwrap();
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::FlagCaptured }));
    assert!(legal(&g).is_empty());
}

#[test]
fn end_no_legal_moves_loses() {
    let rules = free(Ruleset::classic(), |_| {});
    let mut g = game(rules, "a1=F e4=9 e3=8", "j10=F e5=4 j9=B");
    g.play(mv("e4-e5")).unwrap();
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::NoLegalMoves }));
}

#[test]
fn end_no_legal_moves_when_walled_in() {
    // Blue's only movable piece sits in the corner behind its own Bombs and Flag.
    let rules = free(Ruleset::classic(), |_| {});
    let g = game(rules, "a1=F e4=9", "j10=4 i10=B j9=F");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Red), reason: EndReason::NoLegalMoves }));
}

#[test]
fn end_neither_can_move_is_a_draw() {
    let rules = free(Ruleset::classic(), |_| {});
    let mut g = game(rules, "a1=F e4=7", "j10=F e5=7");
    g.play(mv("e4-e5")).unwrap();
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::NeitherCanMove }));
}

#[test]
fn end_ply_limit_is_a_draw() {
    let rules = free(Ruleset::classic(), |s| s.ply_limit = Some(3));
    let mut g = game(rules, "a1=F e4=7", "j10=F e9=7");
    play_all(&mut g, "e4-e5 e9-e8");
    assert_eq!(g.outcome(), None);
    g.play(mv("e5-e6")).unwrap();
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::PlyLimit }));
}

#[test]
fn end_sealed_flags_is_a_draw_only_when_no_capture_is_possible() {
    let rules = free(Ruleset::classic(), |s| s.sealed_flags_draw = true);
    // Both Flags walled in by Bombs in a corner; Red's last Miner dies on a Major.
    let mut g = game(rules.clone(), "a1=F b1=B a2=B e4=3 g1=7", "j10=F i10=B j9=B e5=7 e9=7");
    assert_eq!(g.outcome(), None);
    g.play(mv("e4-e5")).unwrap();
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::SealedFlags }));
    // A Miner can still reach a Bomb: no draw.
    let mut g = game(rules.clone(), "a1=F b1=B a2=B e4=7", "j10=F i10=B j9=B e9=3");
    g.play(mv("e4-e5")).unwrap();
    assert_eq!(g.outcome(), None);
    // A Flag with an open side: no draw.
    let mut g = game(rules, "a1=F b1=B e4=7", "j10=F i10=B j9=B e9=7");
    g.play(mv("e4-e5")).unwrap();
    assert_eq!(g.outcome(), None);
}

#[test]
fn sealed_flags_is_off_in_every_preset() {
    for r in [Ruleset::classic(), Ruleset::isf(), Ruleset::barrage(), Ruleset::ucc2012()] {
        assert!(!r.sealed_flags_draw());
    }
}

#[test]
fn each_ending_has_a_distinct_reason() {
    let all = [
        EndReason::FlagCaptured,
        EndReason::NoLegalMoves,
        EndReason::NeitherCanMove,
        EndReason::PlyLimit,
        EndReason::SealedFlags,
    ];
    let codes: std::collections::BTreeSet<&str> = all.iter().map(|r| r.code()).collect();
    assert_eq!(codes.len(), all.len());
}

#[test]
fn free_setup_without_a_flag_is_rejected() {
    // Free setups may leave pieces out, but a side without its Flag could never lose by capture.
    let rules = free(Ruleset::classic(), |_| {});
    assert!(!rules.exact_counts());
    let err = Deployment::parse(&rules, Color::Red, "e4=4 j1=2 a1=B").unwrap_err();
    assert_eq!(err.to_string(), "Red places no flag; the ruleset requires 1");
    assert_eq!(err, DeploymentError::Count { color: Color::Red, rank: Rank::Flag, placed: 0, allowed: 1 });
    let err = Deployment::parse(&rules, Color::Blue, "a10=F b10=F e9=4").unwrap_err();
    assert_eq!(err.to_string(), "Blue places 2 flags; the ruleset allows 1");
}

#[test]
fn exact_setup_without_a_flag_names_the_flag() {
    let rules = Ruleset::classic();
    let err = Deployment::parse(&rules, Color::Red, "B32222222S/6655554444/BX98877766/.B3B333B2B").unwrap_err();
    assert_eq!(err.to_string(), "Red places no flag; the ruleset requires 1");
    // An empty answer says so instead of naming the first missing kind.
    let err = Deployment::new(&rules, Color::Red, []).unwrap_err();
    assert_eq!(err.to_string(), "Red places no piece");
    let err = Deployment::new(&free(Ruleset::classic(), |_| {}), Color::Blue, []).unwrap_err();
    assert_eq!(err.to_string(), "Blue places no piece");
}

#[test]
fn free_setup_with_its_flag_and_fewer_other_pieces_is_accepted() {
    let rules = free(Ruleset::classic(), |_| {});
    let d = Deployment::parse(&rules, Color::Red, "a1=F e4=4 b1=B").unwrap();
    assert_eq!(d.pieces().len(), 3);
    // Only the Flag: legal, and that side loses at once by having no legal move.
    let red = Deployment::parse(&rules, Color::Red, "a1=F").unwrap();
    let blue = Deployment::parse(&rules, Color::Blue, "j10=F e9=4").unwrap();
    let g = Game::new(rules, &red, &blue).unwrap();
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Blue), reason: EndReason::NoLegalMoves }));
}

#[test]
fn ruleset_without_a_flag_is_rejected() {
    let err = Ruleset::from_json(r#"{"pieces": {"marshal": 1, "scout": 2, "flag": 0}}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pieces: the army has no flag; it needs exactly one (without it no game can be won by capture)"
    );
    // The same check holds for free setups and for a spec built in code.
    let mut spec = Ruleset::classic().spec().clone();
    spec.exact_counts = false;
    spec.pieces[Rank::Flag] = 0;
    assert_eq!(Ruleset::try_from(spec.clone()).unwrap_err(), err);
    spec.pieces[Rank::Flag] = 2;
    assert_eq!(Ruleset::try_from(spec).unwrap_err().to_string(), "pieces: the army has 2 flags; it needs exactly one");
}

#[test]
fn ruleset_of_only_bombs_and_flags_is_rejected() {
    let err = Ruleset::from_json(r#"{"pieces": {"bomb": 6, "flag": 1}}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pieces: the army has no movable piece; it needs at least one (bombs and flags never move)"
    );
    assert!(matches!(err, RulesetError::Field { field: "pieces", .. }), "{err:?}");
}

#[test]
fn presets_have_one_flag_and_movable_pieces() {
    for name in ["classic", "isf", "barrage", "ucc2012"] {
        let r = Ruleset::preset(name).unwrap();
        assert_eq!(r.pieces()[Rank::Flag], 1, "{name}");
        assert!(r.pieces().mobile() > 0, "{name}");
        // Presets go through the same checks as JSON rulesets.
        assert_eq!(Ruleset::try_from(r.spec().clone()).unwrap(), r, "{name}");
        assert_eq!(Ruleset::from_json(&serde_json::to_string(&r).unwrap()).unwrap(), r, "{name}");
    }
}

#[test]
fn six_by_six_board_plays() {
    let rules = Ruleset::from_json(
        r#"{"name": "mini", "width": 6, "height": 6, "lakes": ["c3", "d4"],
        "setup_ranks": {"red": [1, 2], "blue": [5, 6]},
        "pieces": {"marshal": 1, "scout": 2, "miner": 1, "spy": 1, "flag": 1}}"#,
    )
    .unwrap();
    let mut g = game(rules, "a1=F b1=X c1=2 d1=2 e1=3 f1=S", "a6=F b6=X c6=2 d6=2 e6=3 f6=S");
    assert!(legal(&g).contains(&"c1-c2".to_string()));
    assert!(!legal(&g).contains(&"c1-c3".to_string()), "c3 is a lake");
    assert!(legal(&g).contains(&"d1-d3".to_string()));
    assert_eq!(g.check_move(mv("d1-d5")), Err(IllegalMove::BlockedByLake("d4".parse().unwrap())));
    g.play(mv("b1-b2")).unwrap();
}

#[test]
fn from_position_rebuilds_a_played_position() {
    let rules = Ruleset::classic();
    let mut rng = rng::xorshift(77);
    let red = Deployment::random(&rules, Color::Red, &mut rng);
    let blue = Deployment::random(&rules, Color::Blue, &mut rng);
    let mut g = Game::new(rules.clone(), &red, &blue).unwrap();
    let mut buf = Vec::new();
    for _ in 0..50 {
        g.legal_moves(&mut buf);
        g.play_unchecked(buf[(rng() % buf.len() as u64) as usize]);
    }
    let view = g.view(Color::Red);
    let pieces: Vec<PositionPiece> = g
        .board_pieces()
        .map(|(square, color, rank)| {
            let v = view.piece_at(square).unwrap();
            PositionPiece { square, color, rank, moved: v.moved, revealed: v.revealed }
        })
        .collect();
    let copy = Game::from_position(rules.clone(), &pieces, g.to_move(), g.ply_count(), *g.captured()).unwrap();
    assert_eq!(copy.ply_count(), 50);
    assert_eq!(copy.board_pieces().collect::<Vec<_>>(), g.board_pieces().collect::<Vec<_>>());
    // Same moves, except those the repetition histories (not carried over) forbid.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    g.legal_moves(&mut a);
    copy.legal_moves(&mut b);
    assert!(a.iter().all(|m| b.contains(m)));
    let dup = [pieces[0], pieces[0]];
    assert!(matches!(
        Game::from_position(rules.clone(), &dup, Color::Red, 0, ByColor::default()),
        Err(GameError::Overlap(_))
    ));
    let lake = [PositionPiece { square: "c5".parse().unwrap(), ..pieces[0] }];
    assert!(matches!(
        Game::from_position(rules, &lake, Color::Red, 0, ByColor::default()),
        Err(GameError::OffBoard(_))
    ));
}

/// The most crowded move list: fifteen Scouts on the diagonal of an open 15x15 board, each
/// with (almost) its whole file and rank to run along. The generator's list equals the
/// moves `check_move` accepts among all square pairs.
#[test]
fn scouts_on_the_largest_open_board_get_every_move() {
    let spec = RulesetSpec {
        name: "open15".to_owned(),
        width: 15,
        height: 15,
        lakes: Vec::new(),
        setup_ranks: ByColor::new([1, 7], [9, 15]),
        ..RulesetSpec::default()
    };
    let rules = Ruleset::try_from(spec).unwrap();
    let at = |f: u8, r: u8| Square::new(f, r).unwrap();
    let piece = |square, color, rank| PositionPiece { square, color, rank, moved: false, revealed: false };
    let mut pieces: Vec<PositionPiece> = (0..15).map(|i| piece(at(i, i), Color::Red, Rank::Scout)).collect();
    pieces.push(piece(at(14, 0), Color::Blue, Rank::Flag));
    pieces.push(piece(at(0, 14), Color::Blue, Rank::Scout));
    let game = Game::from_position(rules, &pieces, Color::Red, 0, ByColor::default()).unwrap();
    let generated = generated_moves(&game);
    assert!(generated.len() > 400, "{} moves", generated.len());
    assert_eq!(generated, checked_moves(&game));
}
