//! Everything a bot receives is checked against an independent tracker of what its player
//! may know: no opponent rank before a fight revealed it (or a long move showed a Scout).

use std::collections::{BTreeMap, BTreeSet};

use stratego_protocol::HostMessage;
use stratego_rules::{Color, Deployment, Rank, Ruleset, Square};
use stratego_tests::read_records;
use stratego_tests::{TempDir, misbehaving, run_match};

/// Replays the true game and yields, before each ply, which opponent origins each side
/// has seen and where each piece (by origin) stands with its true rank.
struct Tracker {
    /// square → (origin, color, rank)
    board: BTreeMap<Square, (Square, Color, Rank)>,
    /// Origins whose rank is public.
    revealed: BTreeSet<(Color, Square)>,
}

impl Tracker {
    fn new(rules: &Ruleset, red: &str, blue: &str) -> Tracker {
        let mut board = BTreeMap::new();
        for (color, text) in [(Color::Red, red), (Color::Blue, blue)] {
            for &(sq, rank) in Deployment::parse(rules, color, text).unwrap().pieces() {
                board.insert(sq, (sq, color, rank));
            }
        }
        Tracker { board, revealed: BTreeSet::new() }
    }

    fn apply(&mut self, ply: &stratego_rules::Ply) {
        let (from, to) = (ply.mv.from, ply.mv.to);
        let mover = self.board.remove(&from).expect("a piece moves");
        if from.distance(to) > 1 {
            self.revealed.insert((mover.1, mover.0));
        }
        match ply.combat {
            None => {
                self.board.insert(to, mover);
            }
            Some(c) => {
                let defender = self.board.remove(&to).expect("a defender");
                self.revealed.insert((mover.1, mover.0));
                self.revealed.insert((defender.1, defender.0));
                match c.result {
                    stratego_rules::CombatResult::AttackerWins => {
                        self.board.insert(to, mover);
                    }
                    stratego_rules::CombatResult::DefenderWins => {
                        self.board.insert(to, defender);
                    }
                    stratego_rules::CombatResult::BothRemoved => {}
                }
            }
        }
    }
}

#[test]
fn no_bot_ever_receives_an_unrevealed_opponent_rank() {
    let dir = TempDir::new("views");
    let logs = [dir.join("red.log"), dir.join("blue.log")];
    let red = misbehaving(&format!("--log {}", logs[0].display()));
    let blue = misbehaving(&format!("--log {}", logs[1].display()));
    let out = run_match(&[&red, &blue, "--games", "1", "--seed", "21", "--out", dir.0.to_str().unwrap()]);
    assert!(out.status.success());
    let rec = read_records(&dir.join("games.jsonl")).unwrap().remove(0);
    assert!(rec.plies.len() > 20, "a real game: {} plies", rec.plies.len());
    let rules = Ruleset::try_from(rec.ruleset.clone()).unwrap();
    let mut checked_turns = 0;
    let mut checked_revealed = 0;
    for (viewer, log) in [(Color::Red, &logs[0]), (Color::Blue, &logs[1])] {
        let text = std::fs::read_to_string(log).unwrap();
        let mut tracker =
            Tracker::new(&rules, rec.deployments.red.as_deref().unwrap(), rec.deployments.blue.as_deref().unwrap());
        let mut applied = 0usize;
        for line in text.lines() {
            let msg: HostMessage = serde_json::from_str(line).unwrap();
            match msg {
                HostMessage::Hello(h) => assert_eq!(h.color, viewer),
                HostMessage::SetupRequest(r) => assert_eq!(r.color, viewer),
                HostMessage::Turn(t) => {
                    while applied < t.ply as usize {
                        tracker.apply(&rec.plies[applied].ply);
                        applied += 1;
                    }
                    assert_eq!(t.pieces.len(), tracker.board.len(), "ply {}: every piece listed", t.ply);
                    for p in &t.pieces {
                        let &(origin, color, rank) = tracker.board.get(&p.square).expect("a piece where the view says");
                        assert_eq!((p.origin, p.color), (origin, color), "ply {}: identity on {}", t.ply, p.square);
                        if color == viewer {
                            assert_eq!(p.rank, Some(rank), "own ranks are always told");
                        } else if tracker.revealed.contains(&(color, origin)) {
                            assert_eq!(
                                p.rank,
                                Some(rank),
                                "ply {}: a revealed piece on {} shows its rank",
                                t.ply,
                                p.square
                            );
                            checked_revealed += 1;
                        } else {
                            assert_eq!(
                                p.rank, None,
                                "ply {}: LEAK: unrevealed {} on {} shown as {:?}",
                                t.ply, rank, p.square, p.rank
                            );
                            // The raw line names no rank of an unrevealed piece either.
                            assert!(!line.contains(&format!(
                                "\"square\":\"{}\",\"color\":\"{}\",\"origin\":\"{}\",\"rank\"",
                                p.square,
                                color.name(),
                                origin
                            )));
                        }
                    }
                    checked_turns += 1;
                }
                HostMessage::GameOver(g) => {
                    assert_eq!(
                        g.opponent_setup.len(),
                        rules.pieces().total() as usize,
                        "the setup is revealed at the end"
                    );
                }
                HostMessage::Ply(_) | HostMessage::Quit(_) => {}
            }
        }
    }
    assert!(
        checked_turns > 20 && checked_revealed > 0,
        "turns {checked_turns}, revealed pieces checked {checked_revealed}"
    );
}
