//! The live page's boards: a running game as a spectator may see it, moved on ply by ply.
//!
//! A [`SpectatorBoard`] knows which side owns each square and the ranks that are public: the
//! two ranks of every fight, and a Scout shown by a move of more than one square. It never
//! holds a rank nobody has seen, so a board made from it can be sent while the game runs.
//! The live page's server keeps one per running game (to send a snapshot to a new client)
//! and the page's script keeps one per game in this module compiled to WebAssembly: the
//! server sends each ply as a [`LivePly`] (the move, and for a fight the two ranks it
//! reveals) and both apply it with [`SpectatorBoard::apply`], the fight resolved by the
//! rules crate ([`Combat::resolve`]).
//!
//! Board cells, in text (the pages' `data-piece`): `""` for an empty square, `red:?` for a
//! piece whose rank is not public, `blue:9` for one whose rank is.

use serde::{Deserialize, Serialize};
use stratego_rules::{Color, Combat, CombatResult, Deployment, Move, Rank, Ruleset, Square};

/// A piece as a spectator sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    color: Color,
    /// Its rank, once public.
    rank: Option<Rank>,
}

/// One ply as the live page sends it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LivePly {
    /// The move, `e4-e5`.
    #[serde(rename = "move")]
    pub mv: Move,
    /// For an attack: the attacker's and then the defender's rank code (`"28"`: a Scout
    /// attacks a Colonel), the two ranks the fight reveals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fight: Option<String>,
}

impl LivePly {
    /// The ply of a game's record: its move and, for a fight, the two ranks.
    pub fn of(ply: &stratego_rules::Ply) -> LivePly {
        LivePly { mv: ply.mv, fight: ply.combat.map(|c| [c.attacker.code(), c.defender.code()].into_iter().collect()) }
    }
}

/// A running game's board as any spectator may see it (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpectatorBoard {
    width: u8,
    height: u8,
    /// By board index, `rank * width + file` from `a1`.
    cells: Vec<Option<Seen>>,
    to_move: Color,
    plies: u32,
}

impl SpectatorBoard {
    /// The board at the start of a game of `rules` with these setups: every piece on its
    /// square, no rank public, Red to move.
    pub fn start(rules: &Ruleset, red: &Deployment, blue: &Deployment) -> SpectatorBoard {
        let (width, height) = (rules.width(), rules.height());
        let mut cells = vec![None; usize::from(width) * usize::from(height)];
        for (color, setup) in [(Color::Red, red), (Color::Blue, blue)] {
            for &(sq, _) in setup.pieces() {
                cells[usize::from(sq.rank()) * usize::from(width) + usize::from(sq.file())] =
                    Some(Seen { color, rank: None });
            }
        }
        SpectatorBoard { width, height, cells, to_move: Color::Red, plies: 0 }
    }

    /// The board a live page's snapshot gives: `cells` in text (see the module
    /// documentation), by board index, on a `width` × `height` board, `to_move` to move.
    ///
    /// # Errors
    /// A board of another size than `width` × `height` (at most 16 × 16), or a cell that does
    /// not read, naming it.
    pub fn from_cells(width: u8, height: u8, cells: &[String], to_move: Color) -> Result<SpectatorBoard, String> {
        if width == 0 || height == 0 || width > 16 || height > 16 {
            return Err(format!("a board of {width} × {height} squares (at most 16 × 16)"));
        }
        let n = usize::from(width) * usize::from(height);
        if cells.len() != n {
            return Err(format!("{} cells for a board of {width} × {height} squares", cells.len()));
        }
        let mut out = SpectatorBoard { width, height, cells: vec![None; n], to_move, plies: 0 };
        for (i, text) in cells.iter().enumerate() {
            out.cells[i] = parse_cell(text).map_err(|e| format!("square {}: {e}", out.name(i)))?;
        }
        Ok(out)
    }

    /// Board width (files).
    pub fn width(&self) -> u8 {
        self.width
    }

    /// Board height (ranks).
    pub fn height(&self) -> u8 {
        self.height
    }

    /// Who moves next.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Plies applied since this board was made.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// Cell `i` in text (see the module documentation).
    pub fn cell(&self, i: usize) -> String {
        match self.cells.get(i).copied().flatten() {
            None => String::new(),
            Some(p) => format!("{}:{}", p.color.name(), p.rank.map_or('?', Rank::code)),
        }
    }

    /// Every cell in text, by board index.
    pub fn cells(&self) -> Vec<String> {
        (0..self.cells.len()).map(|i| self.cell(i)).collect()
    }

    /// Plays `ply`: the mover leaves its square; onto an empty square it moves (a move of
    /// more than one square shows a Scout); onto an opponent's piece the fight's two ranks
    /// are revealed and [`Combat::resolve`] says who stays. Adds the board indices of the
    /// squares it changed to `changed`.
    ///
    /// # Errors
    /// The ply does not fit the board (no piece of the side to move on its first square, its
    /// own piece on the second, a square off the board, an attack without its fight's ranks
    /// or a fight on an empty square, a rank that contradicts one already public), saying
    /// which; the board is unchanged then.
    pub fn apply(&mut self, ply: &LivePly, changed: &mut Vec<usize>) -> Result<(), String> {
        let mv = ply.mv;
        let fail = |why: String| Err(format!("ply {} {mv}: {why}", self.plies + 1));
        let (Some(from), Some(to)) = (self.index(mv.from), self.index(mv.to)) else {
            return fail(format!("a square off the {} × {} board", self.width, self.height));
        };
        let Some(mover) = self.cells[from].filter(|p| p.color == self.to_move) else {
            return fail(format!("no piece of {}'s on {}", self.to_move, mv.from));
        };
        let fight = match ply.fight.as_deref() {
            None => None,
            Some(text) => match read_fight(text) {
                Some(f) => Some(f),
                None => return fail(format!("the fight {text:?} is not two rank codes (attacker, defender)")),
            },
        };
        let after = match (self.cells[to], fight) {
            (None, None) => {
                // Only a Scout moves more than one square.
                let rank = if mv.from.distance(mv.to) > 1 { Some(Rank::Scout) } else { mover.rank };
                Some(Seen { color: mover.color, rank })
            }
            (None, Some(_)) => return fail(format!("a fight on the empty square {}", mv.to)),
            (Some(t), _) if t.color == mover.color => return fail(format!("{} holds the mover's own piece", mv.to)),
            (Some(_), None) => return fail("an attack without the fight's ranks".into()),
            (Some(target), Some((attacker, defender))) => {
                for (who, known, told) in [("attacker", mover.rank, attacker), ("defender", target.rank, defender)] {
                    if known.is_some_and(|k| k != told) {
                        return fail(format!(
                            "the {who} is a {} by the fight, but its rank was public as {}",
                            told.name(),
                            known.map_or("?", Rank::name)
                        ));
                    }
                }
                match Combat::resolve(attacker, defender).result {
                    CombatResult::AttackerWins => Some(Seen { color: mover.color, rank: Some(attacker) }),
                    CombatResult::DefenderWins => Some(Seen { color: target.color, rank: Some(defender) }),
                    CombatResult::BothRemoved => None,
                }
            }
        };
        self.cells[from] = None;
        self.cells[to] = after;
        self.to_move = !self.to_move;
        self.plies += 1;
        changed.extend([from, to]);
        Ok(())
    }

    /// The board index of `sq`, when it is on this board.
    fn index(&self, sq: Square) -> Option<usize> {
        (sq.file() < self.width && sq.rank() < self.height)
            .then(|| usize::from(sq.rank()) * usize::from(self.width) + usize::from(sq.file()))
    }

    /// The name of board index `i`.
    fn name(&self, i: usize) -> String {
        let (file, rank) = (i % usize::from(self.width), i / usize::from(self.width));
        Square::new(file as u8, rank as u8).map_or_else(|| i.to_string(), |s| s.to_string())
    }
}

/// A cell's text (see the module documentation).
fn parse_cell(text: &str) -> Result<Option<Seen>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    let bad = || format!("{text:?} is not a piece (\"red:?\", \"blue:9\") nor \"\"");
    let (side, rank) = text.split_once(':').ok_or_else(bad)?;
    let color = Color::ALL.into_iter().find(|c| c.name() == side).ok_or_else(bad)?;
    let rank = match rank {
        "?" => None,
        code => {
            let mut chars = code.chars();
            match (chars.next().and_then(Rank::from_code), chars.next()) {
                (Some(r), None) => Some(r),
                _ => return Err(bad()),
            }
        }
    };
    Ok(Some(Seen { color, rank }))
}

/// `"28"`: the attacker's and the defender's ranks.
fn read_fight(text: &str) -> Option<(Rank, Rank)> {
    let mut chars = text.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(a), Some(d), None) => Some((Rank::from_code(a)?, Rank::from_code(d)?)),
        _ => None,
    }
}

// ---- for the page: boards by handle, JSON in and out ------------------------------------

/// What the page gives to make a board: a snapshot's game.
#[derive(Deserialize)]
struct NewInput {
    width: u8,
    height: u8,
    board: Vec<String>,
    to_move: Color,
}

/// The boards the page holds, by handle − 1.
static BOARDS: std::sync::Mutex<Vec<Option<SpectatorBoard>>> = std::sync::Mutex::new(Vec::new());

fn boards() -> std::sync::MutexGuard<'static, Vec<Option<SpectatorBoard>>> {
    BOARDS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A new board from JSON `{"width", "height", "board": [cells], "to_move"}`: the answer is
/// `{"handle": N}` (N ≥ 1, for [`live_apply_json`] and [`live_drop`]) or `{"error": "…"}`.
pub fn live_new_json(input: &[u8]) -> String {
    let made = serde_json::from_slice::<NewInput>(input)
        .map_err(|e| format!("the game's board: {e}"))
        .and_then(|i| SpectatorBoard::from_cells(i.width, i.height, &i.board, i.to_move));
    match made {
        Ok(board) => {
            let mut all = boards();
            let slot = match all.iter().position(Option::is_none) {
                Some(k) => k,
                None => {
                    all.push(None);
                    all.len() - 1
                }
            };
            all[slot] = Some(board);
            serde_json::json!({ "handle": slot + 1 }).to_string()
        }
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// Applies JSON `[ply, …]` ([`LivePly`]s) to board `handle`, in order, up to the first that
/// does not apply: the answer is `{"changes": {"INDEX": cell, …}, "to_move", "plies",
/// "error"}` (the squares changed, in text; `error` null or why a ply did not apply).
pub fn live_apply_json(handle: u32, input: &[u8]) -> String {
    let mut all = boards();
    let Some(board) = (handle as usize).checked_sub(1).and_then(|k| all.get_mut(k)).and_then(Option::as_mut) else {
        return serde_json::json!({ "error": format!("no board {handle}") }).to_string();
    };
    let mut changed = Vec::new();
    let error = match serde_json::from_slice::<Vec<LivePly>>(input) {
        Ok(plies) => plies.iter().find_map(|p| board.apply(p, &mut changed).err()),
        Err(e) => Some(format!("the plies: {e}")),
    };
    let changes: serde_json::Map<String, serde_json::Value> =
        changed.into_iter().map(|i| (i.to_string(), board.cell(i).into())).collect();
    serde_json::json!({ "changes": changes, "to_move": board.to_move(), "plies": board.plies(), "error": error })
        .to_string()
}

/// Forgets board `handle` (a game that finished or was replaced); no board, no effect.
pub fn live_drop(handle: u32) {
    let mut all = boards();
    if let Some(slot) = (handle as usize).checked_sub(1).and_then(|k| all.get_mut(k)) {
        *slot = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratego_rules::Game;

    const RED: &str = "B32222222S/6655554444/BX98877766/FB3B333B2B";
    const BLUE: &str = "FB3B333B2B/BX98877766/6655554444/B32222222S";

    fn game() -> (Ruleset, Deployment, Deployment) {
        let rules = Ruleset::classic();
        let red = Deployment::parse(&rules, Color::Red, RED).unwrap();
        let blue = Deployment::parse(&rules, Color::Blue, BLUE).unwrap();
        (rules, red, blue)
    }

    /// The public board of `game` by the rules crate's own views: each piece, with its rank
    /// when the rules crate says it is revealed to both players.
    fn public(game: &Game, width: u8) -> Vec<String> {
        let mut out = vec![String::new(); usize::from(width) * usize::from(game.rules().height())];
        for p in game.view_pieces(Color::Red) {
            let i = usize::from(p.square.rank()) * usize::from(width) + usize::from(p.square.file());
            let rank = if p.revealed { p.rank.map_or('!', Rank::code) } else { '?' };
            out[i] = format!("{}:{rank}", p.color.name());
        }
        out
    }

    #[test]
    fn a_spectator_board_follows_a_game_showing_only_public_ranks() {
        let (rules, red, blue) = game();
        let mut g = Game::new(rules.clone(), &red, &blue).unwrap();
        let mut board = SpectatorBoard::start(&rules, &red, &blue);
        assert_eq!(board.cells(), public(&g, 10));
        let (mut moves, mut seed, mut fights, mut long) = (Vec::new(), 11u64, 0, 0);
        let mut changed = Vec::new();
        while !g.is_over() && g.ply_count() < 600 {
            g.legal_moves(&mut moves);
            let attacks: Vec<Move> = moves.iter().copied().filter(|m| g.piece_at(m.to).is_some()).collect();
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let pool = if !attacks.is_empty() && seed >> 62 != 0 { &attacks } else { &moves };
            let mv = pool[(seed >> 33) as usize % pool.len()];
            let ply = g.play(mv).unwrap();
            fights += usize::from(ply.combat.is_some());
            long += usize::from(mv.from.distance(mv.to) > 1);
            changed.clear();
            board.apply(&LivePly::of(&ply), &mut changed).unwrap();
            assert_eq!(board.cells(), public(&g, 10), "ply {}", g.ply_count());
            assert_eq!(board.to_move(), g.to_move());
            assert_eq!(changed.len(), 2);
        }
        assert!(fights > 10 && long > 0, "the game has fights ({fights}) and long moves ({long})");
        // A board made from its own cells is the same board.
        let again = SpectatorBoard::from_cells(10, 10, &board.cells(), board.to_move()).unwrap();
        assert_eq!(again.cells(), board.cells());
    }

    #[test]
    fn a_ply_that_does_not_fit_is_refused_saying_why_and_changes_nothing() {
        let (rules, red, blue) = game();
        let board = SpectatorBoard::start(&rules, &red, &blue);
        let ply = |mv: &str, fight: Option<&str>| LivePly { mv: mv.parse().unwrap(), fight: fight.map(String::from) };
        for (p, why) in [
            (ply("a5-a6", None), "no piece of Red's on a5"),
            (ply("a7-a6", None), "no piece of Red's on a7"),
            (ply("a4-a3", None), "a3 holds the mover's own piece"),
            (ply("a4-a5", Some("22")), "a fight on the empty square a5"),
            (ply("a4-k4", None), "a square off the 10 × 10 board"),
            (ply("a4-a5", Some("2")), "is not two rank codes"),
        ] {
            let mut b = board.clone();
            let err = b.apply(&p, &mut Vec::new()).unwrap_err();
            assert!(err.starts_with(&format!("ply 1 {}: ", p.mv)) && err.contains(why), "{err}");
            assert_eq!(b, board, "unchanged after {err}");
        }
        // An attack needs its ranks, and they must agree with what is public.
        let mut b = SpectatorBoard::from_cells(2, 1, &["red:3".into(), "blue:?".into()], Color::Red).unwrap();
        assert!(b.apply(&ply("a1-b1", None), &mut Vec::new()).unwrap_err().contains("without the fight's ranks"));
        assert!(b.apply(&ply("a1-b1", Some("4B")), &mut Vec::new()).unwrap_err().contains("public as miner"));
        b.apply(&ply("a1-b1", Some("3B")), &mut Vec::new()).unwrap();
        assert_eq!(b.cells(), ["", "red:3"], "a Miner takes a Bomb (the rules crate's combat)");
        for (cells, why) in [
            (vec!["red:?".to_owned()], "1 cells for a board of 2 × 1"),
            (vec!["red:?".into(), "green:3".into()], "square b1: \"green:3\""),
            (vec!["red:?".into(), "red:33".into()], "square b1"),
        ] {
            assert!(SpectatorBoard::from_cells(2, 1, &cells, Color::Red).unwrap_err().contains(why), "{cells:?}");
        }
    }

    #[test]
    fn boards_by_handle_take_and_give_json() {
        let made: serde_json::Value = serde_json::from_str(&live_new_json(
            br#"{"width":2,"height":1,"board":["red:?","blue:?"],"to_move":"red"}"#,
        ))
        .unwrap();
        let handle = made["handle"].as_u64().unwrap() as u32;
        let answer: serde_json::Value =
            serde_json::from_str(&live_apply_json(handle, br#"[{"move":"a1-b1","fight":"9X"}]"#)).unwrap();
        assert_eq!(answer["changes"], serde_json::json!({ "0": "", "1": "blue:X" }));
        assert_eq!((answer["to_move"].as_str(), answer["plies"].as_u64()), (Some("blue"), Some(1)));
        assert_eq!(answer["error"], serde_json::Value::Null);
        let bad: serde_json::Value = serde_json::from_str(&live_apply_json(handle, b"[{\"move\":\"b1-a1\"}]")).unwrap();
        assert_eq!(bad["changes"], serde_json::json!({ "1": "", "0": "blue:X" }), "{bad}");
        let bad: serde_json::Value = serde_json::from_str(&live_apply_json(handle, b"[{\"move\":\"b1-a1\"}]")).unwrap();
        assert!(bad["error"].as_str().unwrap().contains("no piece of Red's on b1"), "{bad}");
        live_drop(handle);
        assert!(live_apply_json(handle, b"[]").contains("no board"));
        assert!(live_new_json(b"{}").contains("the game's board"));
    }
}
