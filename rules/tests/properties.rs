//! Property tests: random playouts keep the invariants; views leak nothing; round trips.

use proptest::prelude::*;
use stratego_rules::*;

#[path = "support/rng.rs"]
mod rng;
use rng::xorshift as rng_from;

fn preset(i: usize) -> Ruleset {
    [Ruleset::classic(), Ruleset::isf(), Ruleset::barrage()][i].clone()
}

fn random_game(rules: &Ruleset, seed: u64) -> (Deployment, Deployment, Vec<Move>) {
    let mut rng = rng_from(seed);
    let red = Deployment::random(rules, Color::Red, &mut rng);
    let blue = Deployment::random(rules, Color::Blue, &mut rng);
    let mut game = Game::new(rules.clone(), &red, &blue).unwrap();
    let mut buf = Vec::new();
    let mut moves = Vec::new();
    while !game.is_over() && moves.len() < 400 {
        game.legal_moves(&mut buf);
        let m = buf[(rng() % buf.len() as u64) as usize];
        game.play_unchecked(m);
        moves.push(m);
    }
    (red, blue, moves)
}

/// The legal moves by the public rules alone, in the documented order: the mover's pieces by
/// starting square, then direction (+file, -file, +rank, -rank), then distance; every
/// straight move that [`Game::check_move`] accepts.
fn legal_by_check(game: &Game) -> Vec<Move> {
    if game.is_over() {
        return Vec::new();
    }
    let mut own: Vec<ViewPiece> =
        game.view_pieces(game.to_move()).into_iter().filter(|p| p.color == game.to_move()).collect();
    own.sort_by_key(|p| p.origin);
    let mut out = Vec::new();
    for p in own {
        for (df, dr) in [(1i8, 0i8), (-1, 0), (0, 1), (0, -1)] {
            for dist in 1..MAX_SIDE as i8 {
                let (f, r) = (p.square.file() as i8 + df * dist, p.square.rank() as i8 + dr * dist);
                let Some(to) = (f >= 0 && r >= 0).then(|| Square::new(f as u8, r as u8)).flatten() else { break };
                let m = Move::new(p.square, to);
                if game.check_move(m).is_ok() {
                    out.push(m);
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// The generator against the checker, move for move and in order; the views' piece
    /// lists against the board; a reused view against a fresh one.
    #[test]
    fn legal_moves_are_exactly_the_checked_moves_in_order(seed in any::<u64>(), p in 0usize..3) {
        let rules = preset(p);
        let (red, blue, moves) = random_game(&rules, seed);
        let mut game = Game::new(rules.clone(), &red, &blue).unwrap();
        let mut buf = Vec::new();
        let mut reused = game.view(Color::Blue);
        for ply in 0..=moves.len() {
            game.legal_moves(&mut buf);
            prop_assert_eq!(&buf, &legal_by_check(&game), "ply {}", game.ply_count());
            for viewer in Color::ALL {
                let seen: Vec<(Square, Color)> = game.view_pieces(viewer).iter().map(|p| (p.square, p.color)).collect();
                let board: Vec<(Square, Color)> = game.board_pieces().map(|(sq, c, _)| (sq, c)).collect();
                prop_assert_eq!(seen, board);
                game.view_into(viewer, &mut reused);
                prop_assert_eq!(&reused, &game.view(viewer), "a reused view equals a fresh one");
            }
            if game.is_over() {
                break;
            }
            prop_assert!(game.has_legal_move(game.to_move()) && !buf.is_empty());
            if let Some(&m) = moves.get(ply) {
                game.play_unchecked(m);
            }
        }
    }

    #[test]
    fn random_playouts_keep_the_invariants(seed in any::<u64>(), p in 0usize..3) {
        let rules = preset(p);
        let mut rng = rng_from(seed);
        let red = Deployment::random(&rules, Color::Red, &mut rng);
        let blue = Deployment::random(&rules, Color::Blue, &mut rng);
        let mut game = Game::new(rules.clone(), &red, &blue).unwrap();
        let mut buf = Vec::new();
        let mut material = 2 * rules.pieces().total() as usize;
        while !game.is_over() && game.ply_count() < 600 {
            game.legal_moves(&mut buf);
            prop_assert!(!buf.is_empty(), "a game not over has a legal move");
            for &m in &buf {
                prop_assert_eq!(game.check_move(m), Ok(()), "generated move {} must pass the check", m);
            }
            let m = buf[(rng() % buf.len() as u64) as usize];
            game.play(m).unwrap();
            let on_board: Vec<_> = game.board_pieces().collect();
            let mut squares: Vec<_> = on_board.iter().map(|p| p.0).collect();
            squares.dedup();
            prop_assert_eq!(squares.len(), on_board.len(), "one piece per square");
            let captured: u32 = Color::ALL.iter().map(|&c| game.captured()[c].total()).sum();
            prop_assert_eq!(on_board.len() + captured as usize, 2 * rules.pieces().total() as usize);
            prop_assert!(on_board.len() <= material, "material never increases");
            material = on_board.len();
        }
    }

    /// Swapping two opponent pieces the viewer never sees (never in a fight, never shown as
    /// a Scout; both moved or both unmoved) must leave every view identical.
    #[test]
    fn views_do_not_leak_unseen_ranks(seed in any::<u64>(), p in 0usize..3, viewer_red in any::<bool>(), pick in any::<u64>()) {
        let rules = preset(p);
        let viewer = if viewer_red { Color::Red } else { Color::Blue };
        let (red, blue, moves) = random_game(&rules, seed);
        let mut game = Game::new(rules.clone(), &red, &blue).unwrap();
        let mut views = vec![serde_json::to_string(&game.view(viewer)).unwrap()];
        for &m in &moves {
            game.play_unchecked(m);
            views.push(serde_json::to_string(&game.view(viewer)).unwrap());
        }
        // Which opponent pieces stayed unseen, and which moved, by origin square.
        let final_view = game.view(viewer);
        let opp = !viewer;
        let deployment = if opp == Color::Red { &red } else { &blue };
        let mut seen = std::collections::BTreeSet::new();
        let mut moved = std::collections::BTreeSet::new();
        let mut probe = Game::new(rules.clone(), &red, &blue).unwrap();
        for &m in &moves {
            let before = probe.view(viewer);
            let origin = before.piece_at(m.from).map(|p| p.origin);
            let target_origin = before.piece_at(m.to).map(|p| p.origin);
            let ply = probe.play_unchecked(m);
            if let Some(o) = origin { moved.insert(o); }
            if ply.combat.is_some() || m.from.distance(m.to) > 1 {
                seen.extend(origin);
                seen.extend(target_origin);
            }
        }
        let _ = final_view;
        let candidates: Vec<(Square, Rank)> = deployment.pieces().iter().copied().filter(|(sq, _)| !seen.contains(sq)).collect();
        prop_assume!(candidates.len() >= 2);
        let i = (pick % candidates.len() as u64) as usize;
        let a = candidates[i];
        let Some(b) = candidates.iter().copied().find(|b| {
            b.1 != a.1 && (moved.contains(&a.0) == moved.contains(&b.0)) && (!moved.contains(&a.0) || (a.1.is_mobile() && b.1.is_mobile()))
        }) else { return Ok(()); };
        let swapped: Vec<(Square, Rank)> = deployment.pieces().iter().map(|&(sq, r)| {
            if sq == a.0 { (sq, b.1) } else if sq == b.0 { (sq, a.1) } else { (sq, r) }
        }).collect();
        let swapped = Deployment::new(&rules, opp, swapped).unwrap();
        let (r2, b2) = if opp == Color::Red { (swapped, blue.clone()) } else { (red.clone(), swapped) };
        let mut other = Game::new(rules.clone(), &r2, &b2).unwrap();
        prop_assert_eq!(&serde_json::to_string(&other.view(viewer)).unwrap(), &views[0]);
        for (k, &m) in moves.iter().enumerate() {
            if other.is_over() { break; }
            prop_assert_eq!(other.check_move(m), Ok(()), "ply {} {} stays legal after the swap", k + 1, m);
            other.play_unchecked(m);
            prop_assert_eq!(&serde_json::to_string(&other.view(viewer)).unwrap(), &views[k + 1], "view differs after ply {}", k + 1);
        }
    }

    #[test]
    fn text_forms_round_trip(file in 0u8..15, rank in 0u8..15, file2 in 0u8..15, rank2 in 0u8..15, seed in any::<u64>(), p in 0usize..3) {
        let sq = Square::new(file, rank).unwrap();
        prop_assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        let m = Move::new(sq, Square::new(file2, rank2).unwrap());
        prop_assert_eq!(m.to_string().parse::<Move>().unwrap(), m);
        prop_assert_eq!(serde_json::from_str::<Move>(&serde_json::to_string(&m).unwrap()).unwrap(), m);
        let rules = preset(p);
        let mut rng = rng_from(seed);
        for color in Color::ALL {
            let d = Deployment::random(&rules, color, &mut rng);
            prop_assert_eq!(&Deployment::parse(&rules, color, &d.to_rows(&rules)).unwrap(), &d);
            prop_assert_eq!(&Deployment::parse(&rules, color, &d.to_pairs()).unwrap(), &d);
        }
        let (red, blue, moves) = random_game(&rules, seed);
        let mut g = Game::new(rules.clone(), &red, &blue).unwrap();
        for &m in &moves { g.play_unchecked(m); }
        let v = g.view(Color::Red);
        let back: View = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
        prop_assert_eq!(back, v);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,60}") {
        let rules = Ruleset::classic();
        let _ = s.parse::<Square>();
        let _ = s.parse::<Move>();
        let _ = Deployment::parse(&rules, Color::Red, &s);
        let _ = Ruleset::from_json(&s);
        let _ = gravon::GravonGame::parse(&s);
    }
}
