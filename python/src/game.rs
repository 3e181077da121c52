//! A game in progress, and random playouts run in Rust.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use stratego_protocol::Rng;
use stratego_rules::{ByColor, Color, Deployment, EndReason, Game, Move, PieceCounts, PositionPiece, Rank, Ruleset};

use crate::board::PyView;
use crate::convert::{
    by_color_counts, color_str, extract_by_color_counts, extract_move, move_obj, parse_color, parse_rank, parse_square,
    rank_str, square_str,
};
use crate::errors::{GameError, illegal, value_error};
use crate::ruleset::{PyDeployment, PyRuleset, extract_deployment, extract_rules};
use crate::types::{PyOutcome, PyPly};

/// A game refereed by the rules crate: legal moves, checked moves with their fights, the
/// two-square and chasing rules, and the end of the game.
///
/// `Game(rules, red, blue)` starts one from two deployments (objects or text); Red moves
/// first. `Game.from_position(...)` builds any position for analysis.
#[pyclass(name = "Game", module = "stratego")]
pub struct PyGame {
    pub game: Game,
    buf: Vec<Move>,
}

impl PyGame {
    /// Wraps a game.
    pub fn wrap(game: Game) -> PyGame {
        PyGame { game, buf: Vec::new() }
    }
}

pub fn game_err(e: stratego_rules::GameError) -> PyErr {
    GameError::new_err(e.to_string())
}

/// Plays random legal moves from `game` until it ends or `max_plies` more were played;
/// returns the number played.
fn playout(game: &mut Game, rng: &mut Rng, buf: &mut Vec<Move>, max_plies: Option<u32>) -> u32 {
    let mut n = 0;
    while !game.is_over() && max_plies.is_none_or(|m| n < m) {
        game.legal_moves(buf);
        game.play_unchecked(buf[rng.below(buf.len())]);
        n += 1;
    }
    n
}

/// Totals of a batch of playouts.
#[derive(Default)]
struct Tally {
    games: u64,
    plies: u64,
    red: u64,
    blue: u64,
    draws: u64,
    unfinished: u64,
    reasons: [u64; 5],
}

impl Tally {
    fn add(&mut self, game: &Game, plies: u32) {
        self.games += 1;
        self.plies += u64::from(plies);
        match game.outcome() {
            None => self.unfinished += 1,
            Some(o) => {
                match o.winner {
                    Some(Color::Red) => self.red += 1,
                    Some(Color::Blue) => self.blue += 1,
                    None => self.draws += 1,
                }
                self.reasons[reason_index(o.reason)] += 1;
            }
        }
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("games", self.games)?;
        d.set_item("plies", self.plies)?;
        d.set_item("red_wins", self.red)?;
        d.set_item("blue_wins", self.blue)?;
        d.set_item("draws", self.draws)?;
        d.set_item("unfinished", self.unfinished)?;
        let reasons = PyDict::new(py);
        for r in REASONS {
            reasons.set_item(r.code(), self.reasons[reason_index(r)])?;
        }
        d.set_item("reasons", reasons)?;
        Ok(d)
    }
}

const REASONS: [EndReason; 5] = [
    EndReason::FlagCaptured,
    EndReason::NoLegalMoves,
    EndReason::NeitherCanMove,
    EndReason::PlyLimit,
    EndReason::SealedFlags,
];

fn reason_index(r: EndReason) -> usize {
    REASONS.iter().position(|&x| x == r).expect("every reason is listed")
}

/// Plays `games` random games under `rules`, each from two random setups, all in Rust with
/// the GIL released; returns the totals (`games`, `plies`, `red_wins`, `blue_wins`,
/// `draws`, `unfinished`, `reasons`). Same seed, same games. `red` and `blue` fix the
/// setups instead.
#[pyfunction]
#[pyo3(signature = (rules, games, seed = 0, max_plies = None, red = None, blue = None))]
pub fn random_playouts<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyAny>,
    games: u64,
    seed: u64,
    max_plies: Option<u32>,
    red: Option<&Bound<'py, PyAny>>,
    blue: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let rules: Arc<Ruleset> = extract_rules(rules)?;
    let fixed = |obj: Option<&Bound<'py, PyAny>>, c: Color| obj.map(|o| extract_deployment(&rules, c, o)).transpose();
    let (red, blue) = (fixed(red, Color::Red)?, fixed(blue, Color::Blue)?);
    let tally = py.detach(|| -> Result<Tally, stratego_rules::GameError> {
        let mut rng = Rng::new(seed);
        let mut buf = Vec::new();
        let mut tally = Tally::default();
        for _ in 0..games {
            let mut setup = |fixed: &Option<Deployment>, c: Color| {
                fixed.clone().unwrap_or_else(|| Deployment::random(&rules, c, &mut || rng.next_u64()))
            };
            let (r, b) = (setup(&red, Color::Red), setup(&blue, Color::Blue));
            let mut game = Game::new(rules.clone(), &r, &b)?;
            let n = playout(&mut game, &mut rng, &mut buf, max_plies);
            tally.add(&game, n);
        }
        Ok(tally)
    });
    tally.map_err(game_err)?.to_dict(py)
}

/// One piece of a `from_position` list: `(square, color, rank[, moved[, revealed]])` or a
/// dict with those keys.
fn extract_position_piece(obj: &Bound<'_, PyAny>) -> PyResult<PositionPiece> {
    if let Ok(d) = obj.cast::<PyDict>() {
        let get = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> { d.get_item(k) };
        let need = |k: &str| -> PyResult<String> {
            get(k)?.ok_or_else(|| value_error(format!("a position piece needs {k:?}")))?.extract()
        };
        let flag = |k: &str| -> PyResult<bool> { Ok(get(k)?.map(|v| v.is_truthy()).transpose()?.unwrap_or(false)) };
        return Ok(PositionPiece {
            square: parse_square(&need("square")?)?,
            color: parse_color(&need("color")?)?,
            rank: parse_rank(&need("rank")?)?,
            moved: flag("moved")?,
            revealed: flag("revealed")?,
        });
    }
    let t = obj.cast::<PyTuple>().map_err(|_| {
        value_error("a position piece is (square, color, rank[, moved[, revealed]]) or a dict with those keys")
    })?;
    if !(3..=5).contains(&t.len()) {
        return Err(value_error(format!("a position piece tuple has 3 to 5 items, not {}", t.len())));
    }
    let s = |i: usize| -> PyResult<String> { t.get_item(i)?.extract() };
    let b = |i: usize| -> PyResult<bool> { if i < t.len() { t.get_item(i)?.is_truthy() } else { Ok(false) } };
    Ok(PositionPiece {
        square: parse_square(&s(0)?)?,
        color: parse_color(&s(1)?)?,
        rank: parse_rank(&s(2)?)?,
        moved: b(3)?,
        revealed: b(4)?,
    })
}

/// Each side's pieces on the board and lost, rank by rank, against the ruleset's army:
/// more of a rank than the ruleset has, or no Flag on the board, is a `GameError` naming
/// the side, the rank and both counts.
fn army_fits(rules: &Ruleset, pieces: &[PositionPiece], captured: &ByColor<PieceCounts>) -> PyResult<()> {
    for color in Color::ALL {
        let mut on_board = PieceCounts::default();
        for p in pieces.iter().filter(|p| p.color == color) {
            on_board[p.rank] += 1;
        }
        for rank in Rank::STRONGEST_FIRST {
            let (here, lost, allowed) = (on_board[rank], captured[color][rank], rules.pieces()[rank]);
            if u32::from(here) + u32::from(lost) > u32::from(allowed) {
                return Err(GameError::new_err(format!(
                    "{color} has {} {}: {here} on the board and {lost} captured, but the {} army has {allowed}",
                    u32::from(here) + u32::from(lost),
                    plural(rank, u32::from(here) + u32::from(lost)),
                    rules.name()
                )));
            }
        }
        if on_board[Rank::Flag] == 0 && rules.pieces()[Rank::Flag] > 0 {
            return Err(GameError::new_err(format!("{color} has no flag on the board")));
        }
    }
    Ok(())
}

fn plural(rank: Rank, n: u32) -> String {
    match (n, rank) {
        (1, _) => rank.name().to_owned(),
        (_, Rank::Spy) => "spies".to_owned(),
        _ => format!("{}s", rank.name()),
    }
}

#[pymethods]
impl PyGame {
    /// Starts a game from two deployments (`Deployment` objects or setup text).
    #[new]
    fn py_new(rules: &Bound<'_, PyAny>, red: &Bound<'_, PyAny>, blue: &Bound<'_, PyAny>) -> PyResult<PyGame> {
        let rules = extract_rules(rules)?;
        let r = extract_deployment(&rules, Color::Red, red)?;
        let b = extract_deployment(&rules, Color::Blue, blue)?;
        Ok(PyGame::wrap(Game::new(rules, &r, &b).map_err(game_err)?))
    }

    /// Any position, for analysis and search: `pieces` as `(square, color, rank[, moved[,
    /// revealed]])` tuples or dicts, `to_move`, `plies` already played (for the ply limit)
    /// and the pieces each side has lost. Repetition histories start empty. Each side's
    /// army is checked against the ruleset (`GameError`: more of a rank on the board and
    /// captured than the ruleset has, or no Flag on the board) unless `check_army=False`
    /// (a study position beyond the ruleset's army).
    #[staticmethod]
    #[pyo3(signature = (rules, pieces, to_move = "red", plies = 0, captured = None, check_army = true))]
    fn from_position(
        rules: &Bound<'_, PyAny>,
        pieces: &Bound<'_, PyAny>,
        to_move: &str,
        plies: u32,
        captured: Option<&Bound<'_, PyAny>>,
        check_army: bool,
    ) -> PyResult<PyGame> {
        let rules = extract_rules(rules)?;
        let list = pieces.try_iter()?.map(|p| extract_position_piece(&p?)).collect::<PyResult<Vec<_>>>()?;
        let captured = extract_by_color_counts(captured)?;
        // The board's own checks first (a square off the board, two pieces on one), then
        // the armies.
        let game =
            Game::from_position(rules.clone(), &list, parse_color(to_move)?, plies, captured).map_err(game_err)?;
        if check_army {
            army_fits(&rules, &list, &captured)?;
        }
        Ok(PyGame::wrap(game))
    }

    /// The ruleset.
    #[getter]
    fn rules(&self) -> PyRuleset {
        PyRuleset::new(self.game.rules_arc().clone())
    }

    /// The side to move.
    #[getter]
    fn to_move<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.game.to_move())
    }

    /// Plies played (including those before a `from_position` start).
    #[getter]
    fn ply(&self) -> u32 {
        self.game.ply_count()
    }

    /// Whether the game is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// How the game ended, once it has.
    #[getter]
    fn outcome(&self) -> Option<PyOutcome> {
        self.game.outcome().map(|outcome| PyOutcome { outcome })
    }

    /// Every ply played, with its fight.
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.game.history().iter().map(|&ply| PyPly { ply }))
    }

    /// The last ply played, if any.
    #[getter]
    fn last_ply(&self) -> Option<PyPly> {
        self.game.history().last().map(|&ply| PyPly { ply })
    }

    /// The starting deployments, `(red, blue)`.
    #[getter]
    fn deployments(&self) -> (PyDeployment, PyDeployment) {
        let d = self.game.deployments();
        let rules = self.game.rules_arc();
        (
            PyDeployment { deployment: d.red.clone(), rules: rules.clone() },
            PyDeployment { deployment: d.blue.clone(), rules: rules.clone() },
        )
    }

    /// Pieces each side has lost: `{"red": {"scout": 2}, "blue": {}}`.
    #[getter]
    fn captured<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        by_color_counts(py, self.game.captured())
    }

    /// A hash of the position by piece identity and side to move.
    #[getter]
    fn position_hash(&self) -> u64 {
        self.game.position_hash()
    }

    /// The legal moves of the side to move (empty once the game is over), in the rules
    /// crate's fixed order.
    fn legal_moves<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.game.legal_moves(&mut self.buf);
        PyList::new(py, self.buf.iter().map(|&m| move_obj(py, m)).collect::<PyResult<Vec<_>>>()?)
    }

    /// Number of legal moves of the side to move.
    fn legal_move_count(&mut self) -> usize {
        self.game.legal_moves(&mut self.buf);
        self.buf.len()
    }

    /// Whether `color` would have a legal move if it were its turn.
    fn has_legal_move(&self, color: &str) -> PyResult<bool> {
        Ok(self.game.has_legal_move(parse_color(color)?))
    }

    /// Whether `attacker` can never capture the other side's Flag (the sealed-flags test).
    fn flag_sealed_from(&self, attacker: &str) -> PyResult<bool> {
        Ok(self.game.flag_sealed_from(parse_color(attacker)?))
    }

    /// Whether the move is legal now.
    fn is_legal(&self, r#move: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.game.check_move(extract_move(r#move)?).is_ok())
    }

    /// Why the move is illegal: raises `IllegalMoveError` (with `.code`), else returns None.
    fn check_move(&self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<()> {
        self.game.check_move(extract_move(r#move)?).map_err(|e| illegal(py, e))
    }

    /// Checks and plays a move (a `Move` or `"e4-e5"`); returns the `Ply` with its fight.
    /// An illegal move raises `IllegalMoveError` and leaves the game unchanged.
    fn play(&mut self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<PyPly> {
        let m = extract_move(r#move)?;
        self.game.play(m).map(|ply| PyPly { ply }).map_err(|e| illegal(py, e))
    }

    /// Plays several moves (checked, in order); returns their plies.
    fn play_all<'py>(&mut self, py: Python<'py>, moves: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let mut plies = Vec::new();
        let items: Vec<Bound<'py, PyAny>> = if let Ok(s) = moves.cast::<PyString>() {
            s.to_cow()?.split_whitespace().map(|w| PyString::new(py, w).into_any()).collect()
        } else {
            moves.try_iter()?.collect::<PyResult<_>>()?
        };
        for item in items {
            let m = extract_move(&item)?;
            let ply = self.game.play(m).map_err(|e| {
                // Names the move: in a list, which one was refused matters.
                let err = crate::errors::IllegalMoveError::new_err(format!("{m}: {e}"));
                let _ = err.value(py).setattr("code", e.code());
                err
            })?;
            plies.push(PyPly { ply });
        }
        PyList::new(py, plies)
    }

    /// The piece on `square`: `(color, rank)`, or None.
    fn piece_at<'py>(&self, py: Python<'py>, square: &str) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let sq = parse_square(square)?;
        self.game
            .piece_at(sq)
            .map(|(c, r)| PyTuple::new(py, [color_str(py, c).clone(), rank_str(py, r).clone()]))
            .transpose()
    }

    /// Every piece on the board, `(square, color, rank)`, by square (full knowledge: for
    /// the referee's side of a search, never for what a player may see; see `view`).
    fn board<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self
            .game
            .board_pieces()
            .map(|(s, c, r)| PyTuple::new(py, [square_str(py, s), color_str(py, c).clone(), rank_str(py, r).clone()]))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// Everything `color` may know of the game, and nothing more.
    fn view(&self, color: &str) -> PyResult<PyView> {
        Ok(PyView { view: self.game.view(parse_color(color)?), rules: self.game.rules_arc().clone() })
    }

    /// An independent copy (for search: play on the copy).
    fn copy(&self) -> PyGame {
        PyGame { game: self.game.clone(), buf: Vec::new() }
    }

    /// The board as the host's `replay` draws it for a spectator (every rank shown), with
    /// the last ply, the losses, and who is to move or how the game ended.
    fn __str__(&self) -> String {
        let g = &self.game;
        let cells: Vec<crate::text::Cell> = g
            .board_pieces()
            .map(|(square, color, rank)| crate::text::Cell { square, color, rank: Some(rank) })
            .collect();
        crate::text::frame(
            g.rules(),
            &cells,
            false,
            g.ply_count(),
            g.history().last(),
            g.to_move(),
            g.captured(),
            g.outcome(),
        )
    }

    fn __copy__(&self) -> PyGame {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.copy()
    }

    /// Plays random legal moves (SplitMix64 seeded with `seed`) until the game ends or
    /// `max_plies` more were played, in Rust; returns the number of plies played.
    #[pyo3(signature = (seed = 0, max_plies = None))]
    fn playout(&mut self, py: Python<'_>, seed: u64, max_plies: Option<u32>) -> u32 {
        let PyGame { game, buf } = self;
        py.detach(|| playout(game, &mut Rng::new(seed), buf, max_plies))
    }

    /// `n` random playouts from this position (the game itself is unchanged), in Rust with
    /// the GIL released; returns the totals as `random_playouts` does.
    #[pyo3(signature = (n, seed = 0, max_plies = None))]
    fn random_playouts<'py>(
        &self,
        py: Python<'py>,
        n: u64,
        seed: u64,
        max_plies: Option<u32>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let start = &self.game;
        let tally = py.detach(|| {
            let mut rng = Rng::new(seed);
            let mut buf = Vec::new();
            let mut tally = Tally::default();
            for _ in 0..n {
                let mut game = start.clone();
                let plies = playout(&mut game, &mut rng, &mut buf, max_plies);
                tally.add(&game, plies);
            }
            tally
        });
        tally.to_dict(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "<Game {} ply {} {}>",
            self.game.rules().name(),
            self.game.ply_count(),
            match self.game.outcome() {
                Some(o) => o.to_string(),
                None => format!("{} to move", self.game.to_move()),
            }
        )
    }
}
