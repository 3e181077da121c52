//! The game viewer's positions, computed by the rules crate: compiled to WebAssembly, this
//! crate is what a viewer page runs to turn a game's moves into the boards it shows, so the
//! pages carry the moves only and the browser holds no second rules implementation.
//!
//! [`replay`] takes a game as a page has it (ruleset, both setups, the moves) and gives,
//! ply by ply, the board in each of the viewer's views (the spectator's, Red's, Blue's), the
//! pieces each side has lost, who is to move, and each ply's mover, squares and fight.
//!
//! For the browser, the `wasm32` build exports a plain C ABI (no wasm-bindgen):
//! [`viewer_alloc`] and [`viewer_free`] manage buffers in linear memory, and
//! [`viewer_replay`] reads a UTF-8 JSON [`Input`] and returns a buffer holding a
//! little-endian `u32` length and then that many bytes of UTF-8 JSON [`Replayed`]. On other
//! targets the same functions exist (under their Rust names only) for tests.
//!
//! The live page's boards are [`live`]: a running game as a spectator sees it, moved on by
//! each ply the page is sent ([`viewer_live_new`], [`viewer_live_apply`],
//! [`viewer_live_drop`]).

pub mod live;

use serde::{Deserialize, Serialize};
use stratego_rules::{
    ByColor, Color, CombatResult, Deployment, Game, Move, Rank, Ruleset, RulesetSpec, Square, ViewPiece,
};

/// A game as a viewer page carries it.
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// The game's rules (a record's `ruleset`).
    pub ruleset: RulesetSpec,
    /// Red's setup, in any text form [`Deployment::parse`] reads.
    pub red: String,
    /// Blue's setup.
    pub blue: String,
    /// The moves, `e4-e5`, separated by spaces.
    pub moves: String,
}

/// What a viewer page draws, computed from an [`Input`].
#[derive(Clone, Debug, Default, Serialize)]
pub struct Replayed {
    /// Board width (files).
    pub width: u8,
    /// Board height (ranks).
    pub height: u8,
    /// Square names, board index `rank * width + file` from `a1`.
    pub cells: Vec<String>,
    /// Board indices of the lakes.
    pub lakes: Vec<usize>,
    /// The plies replayed, in order.
    pub plies: Vec<PlyOut>,
    /// `plies.len() + 1` states: ply 0 is the start position.
    pub states: Vec<StateOut>,
    /// Why the game stops short of its moves (a bad ruleset, setup or move), else `None`:
    /// the states are those up to the ply before it.
    pub error: Option<String>,
}

/// One ply as the viewer shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlyOut {
    /// The mover.
    pub color: Color,
    /// Board indices of the squares left and entered.
    pub from: usize,
    /// See `from`.
    pub to: usize,
    /// The fight, if the move attacked.
    pub combat: Option<CombatOut>,
}

/// A fight.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CombatOut {
    /// The attacker's rank code.
    pub attacker: char,
    /// The defender's rank code.
    pub defender: char,
    /// `attacker_wins`, `defender_wins` or `both_removed`.
    pub result: &'static str,
    /// In words: `Scout (2) attacks Colonel (8): the Colonel (8) wins`.
    pub text: String,
}

/// The position after a ply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StateOut {
    /// Boards of the spectator, Red and Blue, three characters per cell in `cells` order:
    /// side (`r`, `b` or `.`), rank code (`?` when the view does not know it, `.` for an
    /// empty square), and a digit: 1 if the piece has moved, plus 2 if its rank is public.
    pub boards: [String; 3],
    /// Pieces each side has lost, as rank codes, strongest first.
    pub captured: ByColor<String>,
    /// Who moves next.
    pub to_move: Color,
}

/// Replays `input`: every state up to the last move, or up to the first one that does not
/// apply (then [`Replayed::error`] says which and why; a bad ruleset or setup leaves no
/// state at all).
pub fn replay(input: &Input) -> Replayed {
    let mut out = Replayed::default();
    let rules = match Ruleset::try_from(input.ruleset.clone()) {
        Ok(r) => r,
        Err(e) => {
            out.error = Some(format!("ruleset: {e}"));
            return out;
        }
    };
    let (width, height) = (rules.width(), rules.height());
    let squares: Vec<Square> = (0..height)
        .flat_map(|rank| (0..width).map(move |file| Square::new(file, rank).expect("the ruleset's board fits")))
        .collect();
    let index_of = |sq: Square| usize::from(sq.rank()) * usize::from(width) + usize::from(sq.file());
    out.width = width;
    out.height = height;
    out.cells = squares.iter().map(Square::to_string).collect();
    out.lakes = squares.iter().filter(|&&s| rules.is_lake(s)).map(|&s| index_of(s)).collect();
    let setup =
        |color: Color, text: &str| Deployment::parse(&rules, color, text).map_err(|e| format!("{color}'s setup: {e}"));
    let game = setup(Color::Red, &input.red)
        .and_then(|red| Ok((red, setup(Color::Blue, &input.blue)?)))
        .and_then(|(red, blue)| Game::new(rules.clone(), &red, &blue).map_err(|e| e.to_string()));
    let mut game = match game {
        Ok(g) => g,
        Err(e) => {
            out.error = Some(e);
            return out;
        }
    };
    let mut views = [Vec::new(), Vec::new()];
    out.states.push(state(&game, &squares, &mut views));
    for (i, text) in input.moves.split_ascii_whitespace().enumerate() {
        let n = i + 1;
        let played =
            text.parse::<Move>().map_err(|e| e.to_string()).and_then(|mv| game.play(mv).map_err(|e| e.to_string()));
        let ply = match played {
            Ok(p) => p,
            Err(e) => {
                out.error = Some(format!("ply {n} {text}: {e}"));
                break;
            }
        };
        out.plies.push(PlyOut {
            color: ply.color,
            from: index_of(ply.mv.from),
            to: index_of(ply.mv.to),
            combat: ply.combat.map(|c| CombatOut {
                attacker: c.attacker.code(),
                defender: c.defender.code(),
                result: match c.result {
                    CombatResult::AttackerWins => "attacker_wins",
                    CombatResult::DefenderWins => "defender_wins",
                    CombatResult::BothRemoved => "both_removed",
                },
                text: combat_text(c.attacker, c.defender, c.result),
            }),
        });
        out.states.push(state(&game, &squares, &mut views));
    }
    out
}

/// [`replay`] of JSON text: the [`Replayed`] as JSON (a bad input is a [`Replayed`] with
/// only its `error`).
pub fn replay_json(input: &[u8]) -> String {
    let replayed = match serde_json::from_slice::<Input>(input) {
        Ok(input) => replay(&input),
        Err(e) => Replayed { error: Some(format!("the game's data: {e}")), ..Replayed::default() },
    };
    serde_json::to_string(&replayed).expect("a replay serializes")
}

/// `Scout (2) attacks Colonel (8): the Colonel (8) wins`.
pub fn combat_text(attacker: Rank, defender: Rank, result: CombatResult) -> String {
    let label = |r: Rank| {
        let mut name = r.name().to_owned();
        name[..1].make_ascii_uppercase();
        match r.strength() {
            Some(s) => format!("{name} ({s})"),
            None => name,
        }
    };
    let outcome = match result {
        CombatResult::AttackerWins if defender == Rank::Flag => "the Flag is captured".to_owned(),
        CombatResult::AttackerWins => format!("the {} wins", label(attacker)),
        CombatResult::DefenderWins => format!("the {} wins", label(defender)),
        CombatResult::BothRemoved => "both are removed".to_owned(),
    };
    format!("{} attacks {}: {outcome}", label(attacker), label(defender))
}

/// The state of `game`; `views` are buffers for the two sides' views.
fn state(game: &Game, squares: &[Square], views: &mut [Vec<ViewPiece>; 2]) -> StateOut {
    let [red, blue] = views;
    game.view_pieces_into(Color::Red, red);
    game.view_pieces_into(Color::Blue, blue);
    let red_at = pieces_at(red);
    let spectator = |sq: Square| game.piece_at(sq).map(|(_, rank)| rank);
    StateOut {
        boards: [
            board_text(squares, &red_at, spectator),
            board_text(squares, &red_at, |_| None),
            board_text(squares, &pieces_at(blue), |_| None),
        ],
        captured: ByColor::new_with(|c| {
            let lost = &game.captured()[c];
            let mut codes = String::with_capacity(lost.total() as usize);
            for &r in &Rank::STRONGEST_FIRST {
                for _ in 0..lost[r] {
                    codes.push(r.code());
                }
            }
            codes
        }),
        to_move: game.to_move(),
    }
}

/// A side's view pieces by square index.
fn pieces_at(pieces: &[ViewPiece]) -> [Option<&ViewPiece>; 256] {
    let mut at = [None; 256];
    for p in pieces {
        at[p.square.index()] = Some(p);
    }
    at
}

/// A board in the page's form (see [`StateOut::boards`]): the pieces as one side sees them
/// (`at`, by square index), with the ranks it does not know taken from `known` when that
/// knows them.
fn board_text(squares: &[Square], at: &[Option<&ViewPiece>; 256], known: impl Fn(Square) -> Option<Rank>) -> String {
    let mut out = String::with_capacity(squares.len() * 3);
    for sq in squares {
        match at[sq.index()] {
            None => out.push_str("..0"),
            Some(p) => {
                out.push(if p.color == Color::Red { 'r' } else { 'b' });
                out.push(p.rank.or_else(|| known(p.square)).map_or('?', Rank::code));
                out.push(char::from(b'0' + u8::from(p.moved) + 2 * u8::from(p.revealed)));
            }
        }
    }
    out
}

/// A buffer of `len` bytes in linear memory for the caller to fill (give it back with
/// [`viewer_free`]).
#[cfg_attr(target_arch = "wasm32", unsafe(no_mangle))]
pub extern "C" fn viewer_alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast()
}

/// Frees a buffer of [`viewer_alloc`] or [`viewer_replay`].
///
/// # Safety
/// `ptr` and `len` are a buffer those functions returned (for [`viewer_replay`]'s, `len`
/// is its length prefix plus 4), not yet freed.
#[cfg_attr(target_arch = "wasm32", unsafe(no_mangle))]
pub unsafe extern "C" fn viewer_free(ptr: *mut u8, len: usize) {
    // SAFETY: the caller gives back a boxed slice of `len` bytes made by this module.
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) });
}

/// [`replay_json`] of the `len` bytes at `ptr`: a new buffer holding the length of the
/// answer (`u32`, little-endian) and then the answer's UTF-8 JSON. The input buffer stays
/// the caller's.
///
/// # Safety
/// `ptr` points to `len` readable bytes.
#[cfg_attr(target_arch = "wasm32", unsafe(no_mangle))]
pub unsafe extern "C" fn viewer_replay(ptr: *const u8, len: usize) -> *mut u8 {
    // SAFETY: the caller gives `len` readable bytes at `ptr`.
    answer(&replay_json(unsafe { std::slice::from_raw_parts(ptr, len) }))
}

/// A new buffer holding `text`'s length (`u32`, little-endian) and then its UTF-8 bytes.
fn answer(text: &str) -> *mut u8 {
    let mut out = Vec::with_capacity(4 + text.len());
    out.extend_from_slice(&u32::try_from(text.len()).expect("an answer under 4 GB").to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    Box::into_raw(out.into_boxed_slice()).cast()
}

/// [`live::live_new_json`] of the `len` bytes at `ptr` (a live game's board): a new buffer
/// as [`viewer_replay`]'s, holding `{"handle": N}` or `{"error": "…"}`.
///
/// # Safety
/// `ptr` points to `len` readable bytes.
#[cfg_attr(target_arch = "wasm32", unsafe(no_mangle))]
pub unsafe extern "C" fn viewer_live_new(ptr: *const u8, len: usize) -> *mut u8 {
    // SAFETY: the caller gives `len` readable bytes at `ptr`.
    answer(&live::live_new_json(unsafe { std::slice::from_raw_parts(ptr, len) }))
}

/// [`live::live_apply_json`]: applies the plies (JSON, the `len` bytes at `ptr`) to board
/// `handle`; a new buffer as [`viewer_replay`]'s, holding the squares changed.
///
/// # Safety
/// `ptr` points to `len` readable bytes.
#[cfg_attr(target_arch = "wasm32", unsafe(no_mangle))]
pub unsafe extern "C" fn viewer_live_apply(handle: u32, ptr: *const u8, len: usize) -> *mut u8 {
    // SAFETY: the caller gives `len` readable bytes at `ptr`.
    answer(&live::live_apply_json(handle, unsafe { std::slice::from_raw_parts(ptr, len) }))
}

/// [`live::live_drop`]: forgets board `handle`.
#[cfg_attr(target_arch = "wasm32", unsafe(no_mangle))]
pub extern "C" fn viewer_live_drop(handle: u32) {
    live::live_drop(handle);
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: &str = "B32222222S/6655554444/BX98877766/FB3B333B2B";
    const BLUE: &str = "FB3B333B2B/BX98877766/6655554444/B32222222S";

    /// Up to `plies` moves chosen deterministically from the legal moves, preferring attacks.
    fn played(plies: usize) -> Vec<Move> {
        let rules = Ruleset::classic();
        let red = Deployment::parse(&rules, Color::Red, RED).unwrap();
        let blue = Deployment::parse(&rules, Color::Blue, BLUE).unwrap();
        let mut game = Game::new(rules, &red, &blue).unwrap();
        let (mut moves, mut out) = (Vec::new(), Vec::new());
        let mut seed = 7u64;
        while !game.is_over() && out.len() < plies {
            game.legal_moves(&mut moves);
            let attacks: Vec<Move> = moves.iter().copied().filter(|m| game.piece_at(m.to).is_some()).collect();
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let pool = if !attacks.is_empty() && seed >> 62 != 0 { &attacks } else { &moves };
            let mv = pool[(seed >> 33) as usize % pool.len()];
            game.play(mv).unwrap();
            out.push(mv);
        }
        out
    }

    fn input(moves: &[Move]) -> Input {
        Input {
            ruleset: RulesetSpec::from(Ruleset::classic()),
            red: RED.into(),
            blue: BLUE.into(),
            moves: moves.iter().map(Move::to_string).collect::<Vec<_>>().join(" "),
        }
    }

    /// Occupied cells of a board: `(square, side, rank code)`.
    fn cells(out: &Replayed, board: &str) -> Vec<(String, char, char)> {
        let chars: Vec<char> = board.chars().collect();
        assert_eq!(chars.len(), out.cells.len() * 3);
        let mut v: Vec<_> = chars
            .chunks(3)
            .zip(&out.cells)
            .filter(|(c, _)| c[0] != '.')
            .map(|(c, n)| (n.clone(), c[0], c[1]))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_spectator_sees_each_replayed_position() {
        let moves = played(300);
        assert!(moves.len() > 50, "the test game is long enough: {}", moves.len());
        let out = replay(&input(&moves));
        assert_eq!(out.error, None);
        assert_eq!((out.width, out.height, out.lakes.len()), (10, 10, 8));
        assert_eq!(out.states.len(), moves.len() + 1);
        let rules = Ruleset::classic();
        let red = Deployment::parse(&rules, Color::Red, RED).unwrap();
        let blue = Deployment::parse(&rules, Color::Blue, BLUE).unwrap();
        let mut game = Game::new(rules, &red, &blue).unwrap();
        let expected = |game: &Game| {
            let mut v: Vec<_> = game
                .board_pieces()
                .map(|(sq, c, r)| (sq.to_string(), if c == Color::Red { 'r' } else { 'b' }, r.code()))
                .collect();
            v.sort();
            v
        };
        assert_eq!(cells(&out, &out.states[0].boards[0]), expected(&game));
        let mut fights = 0;
        for (i, &mv) in moves.iter().enumerate() {
            let ply = game.play(mv).unwrap();
            assert_eq!(cells(&out, &out.states[i + 1].boards[0]), expected(&game), "ply {}", i + 1);
            assert_eq!(out.plies[i].color, ply.color);
            assert_eq!(out.cells[out.plies[i].from], mv.from.to_string());
            assert_eq!(out.cells[out.plies[i].to], mv.to.to_string());
            assert_eq!(out.plies[i].combat.as_ref().map(|c| c.attacker), ply.combat.map(|c| c.attacker.code()));
            assert_eq!(out.states[i + 1].to_move, game.to_move());
            fights += usize::from(ply.combat.is_some());
        }
        assert!(fights > 0, "the test game has fights");
        let last = out.states.last().unwrap();
        let lost: usize = Color::ALL.iter().map(|&c| game.captured()[c].total() as usize).sum();
        assert_eq!(last.captured.red.len() + last.captured.blue.len(), lost);
    }

    /// Tracks, independently of the rules crate's views, which pieces have shown their rank
    /// (by a fight, or by a move longer than one square), and checks that each player's view
    /// shows an opponent rank only for such pieces and a blank otherwise.
    #[test]
    fn a_view_shows_no_unrevealed_opponent_rank() {
        let moves = played(400);
        let out = replay(&input(&moves));
        assert_eq!(out.error, None);
        let rules = Ruleset::classic();
        let mut replay_game = {
            let red = Deployment::parse(&rules, Color::Red, RED).unwrap();
            let blue = Deployment::parse(&rules, Color::Blue, BLUE).unwrap();
            Game::new(rules.clone(), &red, &blue).unwrap()
        };
        // square → (side, rank, shown)
        let mut board = std::collections::BTreeMap::new();
        for (side, text) in [('r', RED), ('b', BLUE)] {
            let color = if side == 'r' { Color::Red } else { Color::Blue };
            for &(sq, rank) in Deployment::parse(&rules, color, text).unwrap().pieces() {
                board.insert(sq.to_string(), (side, rank.code(), false));
            }
        }
        let mut revealed_seen = 0;
        for (i, st) in out.states.iter().enumerate() {
            if i > 0 {
                let mv = moves[i - 1];
                let ply = replay_game.play(mv).unwrap();
                let (from, to) = (mv.from.to_string(), mv.to.to_string());
                let mut mover = board.remove(&from).unwrap();
                mover.2 |= mv.from.distance(mv.to) > 1;
                match ply.combat.map(|c| c.result) {
                    None => {
                        board.insert(to, mover);
                    }
                    Some(CombatResult::AttackerWins) => {
                        board.insert(to, (mover.0, mover.1, true));
                    }
                    Some(CombatResult::DefenderWins) => {
                        board.get_mut(&to).unwrap().2 = true;
                    }
                    Some(CombatResult::BothRemoved) => {
                        board.remove(&to);
                    }
                }
            }
            for (view, me) in [(1, 'r'), (2, 'b')] {
                let shown = cells(&out, &st.boards[view]);
                assert_eq!(shown.len(), board.len(), "ply {i}");
                for (sq, side, code) in shown {
                    let (true_side, true_rank, public) = board[&sq];
                    assert_eq!(side, true_side, "ply {i} {sq}");
                    if side == me {
                        assert_eq!(code, true_rank, "ply {i} {sq}: own rank");
                    } else if public {
                        assert_eq!(code, true_rank, "ply {i} {sq}: a revealed rank");
                        revealed_seen += 1;
                    } else {
                        assert_eq!(code, '?', "ply {i} {sq}: the rank of an unrevealed opponent piece");
                    }
                }
            }
        }
        assert!(revealed_seen > 0, "the test game reveals pieces");
    }

    #[test]
    fn a_bad_move_stops_the_replay_saying_which() {
        let moves = played(20);
        let mut bad = input(&moves[..10]);
        bad.moves.push_str(" a1-a9 b4-b5");
        let out = replay(&bad);
        assert_eq!(out.states.len(), 11, "the states before the bad move");
        assert!(out.error.as_deref().unwrap().starts_with("ply 11 a1-a9: "), "{:?}", out.error);
        let mut garbled = input(&moves[..3]);
        garbled.moves.push_str(" e4e5");
        assert!(replay(&garbled).error.unwrap().contains("ply 4 e4e5: invalid move"));
        let mut setup = input(&[]);
        setup.blue = "XX".into();
        let out = replay(&setup);
        assert!(out.error.unwrap().starts_with("Blue's setup"));
        assert!(out.states.is_empty());
        assert!(replay_json(b"{\"ruleset\": 3}").contains("the game's data"));
    }

    #[test]
    fn the_c_abi_round_trips_through_linear_memory() {
        let moves = played(30);
        let text = serde_json::json!({
            "ruleset": RulesetSpec::from(Ruleset::classic()),
            "red": RED, "blue": BLUE,
            "moves": moves.iter().map(Move::to_string).collect::<Vec<_>>().join(" "),
        })
        .to_string();
        let buf = viewer_alloc(text.len());
        // SAFETY: `buf` is `text.len()` bytes from `viewer_alloc`; the answer is read within
        // its length prefix, then both are freed once.
        let answer = unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), buf, text.len());
            let out = viewer_replay(buf, text.len());
            viewer_free(buf, text.len());
            let len = u32::from_le_bytes(std::slice::from_raw_parts(out, 4).try_into().unwrap()) as usize;
            let answer = String::from_utf8(std::slice::from_raw_parts(out.add(4), len).to_vec()).unwrap();
            viewer_free(out, len + 4);
            answer
        };
        let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(v["states"].as_array().unwrap().len(), moves.len() + 1);
        assert_eq!(v["error"], serde_json::Value::Null);
        assert_eq!(v["states"][0]["to_move"], "red");
    }

    #[test]
    fn fights_read_as_words() {
        assert_eq!(
            combat_text(Rank::Scout, Rank::Colonel, CombatResult::DefenderWins),
            "Scout (2) attacks Colonel (8): the Colonel (8) wins"
        );
        assert_eq!(
            combat_text(Rank::Miner, Rank::Flag, CombatResult::AttackerWins),
            "Miner (3) attacks Flag: the Flag is captured"
        );
    }
}
