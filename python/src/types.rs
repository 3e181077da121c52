//! Value types: moves, fights, plies, outcomes and pieces as a player sees them.

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use stratego_rules::{Combat, CombatResult, Move, Outcome, Ply, Rank, ViewPiece};

use crate::convert::{color_str, move_obj, parse_rank, parse_square, rank_str, square_str};
use crate::errors::value_error;

/// A move, `from-to`. Compares equal to its text: `Move("e4-e5") == "e4-e5"`.
#[pyclass(frozen, name = "Move", module = "stratego")]
pub struct PyMove {
    pub mv: Move,
    text: Py<PyString>,
}

impl PyMove {
    /// A move object (see `convert::move_obj` for the interned one).
    pub fn make(py: Python<'_>, mv: Move) -> PyMove {
        PyMove { mv, text: PyString::new(py, &mv.to_string()).unbind() }
    }
}

#[pymethods]
impl PyMove {
    /// `Move("e4-e5")` or `Move("e4", "e5")`.
    #[new]
    #[pyo3(signature = (from_square, to_square = None))]
    fn new(py: Python<'_>, from_square: &str, to_square: Option<&str>) -> PyResult<PyMove> {
        let mv = match to_square {
            None => crate::convert::parse_move(from_square)?,
            Some(to) => {
                let bad = |e: PyErr| crate::errors::MoveSyntaxError::new_err(format!("not a move: {e}"));
                Move::new(parse_square(from_square).map_err(bad)?, parse_square(to).map_err(bad)?)
            }
        };
        Ok(PyMove::make(py, mv))
    }

    /// The shared move object for a text like `"e4-e5"`.
    #[staticmethod]
    fn parse<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyMove>> {
        let mv: Move = crate::convert::parse_move(text)?;
        move_obj(py, mv)
    }

    /// The square the piece leaves.
    #[getter(from_square)]
    fn source<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        square_str(py, self.mv.from)
    }

    /// The square it moves to or attacks.
    #[getter(to_square)]
    fn target<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        square_str(py, self.mv.to)
    }

    /// Number of squares travelled (more than 1 only for a Scout).
    #[getter]
    fn distance(&self) -> u8 {
        self.mv.from.distance(self.mv.to)
    }

    fn __str__(&self, py: Python<'_>) -> Py<PyString> {
        self.text.clone_ref(py)
    }

    fn __repr__(&self) -> String {
        format!("Move('{}')", self.mv)
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.text.bind(py).hash()
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let same = if let Ok(m) = other.cast::<PyMove>() {
            Some(m.get().mv == self.mv)
        } else if let Ok(s) = other.cast::<PyString>() {
            Some(s.to_cow()?.parse::<Move>().is_ok_and(|m| m == self.mv))
        } else {
            None
        };
        Ok(match (same, op) {
            (Some(s), CompareOp::Eq) => s.into_pyobject(py)?.to_owned().into_any().unbind(),
            (Some(s), CompareOp::Ne) => (!s).into_pyobject(py)?.to_owned().into_any().unbind(),
            _ => py.NotImplemented(),
        })
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let cls = py.get_type::<PyMove>().into_any();
        Ok((cls, PyTuple::new(py, [self.text.bind(py)])?))
    }
}

fn result_code(r: CombatResult) -> &'static str {
    match r {
        CombatResult::AttackerWins => "attacker_wins",
        CombatResult::DefenderWins => "defender_wins",
        CombatResult::BothRemoved => "both_removed",
    }
}

/// A fight: both ranks and who survived (`"attacker_wins"`, `"defender_wins"`,
/// `"both_removed"`).
#[pyclass(frozen, name = "Combat", module = "stratego")]
pub struct PyCombat {
    pub combat: Combat,
}

#[pymethods]
impl PyCombat {
    /// The fight of `attacker` against `defender` by the rule book (the rules crate's
    /// `Combat::resolve`).
    #[staticmethod]
    fn resolve(attacker: &str, defender: &str) -> PyResult<PyCombat> {
        Ok(PyCombat { combat: Combat::resolve(parse_rank(attacker)?, parse_rank(defender)?) })
    }

    /// The attacking piece's rank.
    #[getter]
    fn attacker<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        rank_str(py, self.combat.attacker)
    }

    /// The attacked piece's rank.
    #[getter]
    fn defender<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        rank_str(py, self.combat.defender)
    }

    /// `"attacker_wins"`, `"defender_wins"` or `"both_removed"`.
    #[getter]
    fn result(&self) -> &'static str {
        result_code(self.combat.result)
    }

    /// Whether this fight captured a Flag.
    #[getter]
    fn flag_captured(&self) -> bool {
        self.combat.flag_captured()
    }

    /// The wire form: `{"attacker": ..., "defender": ..., "result": ...}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        combat_dict(py, &self.combat)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyCombat>().is_ok_and(|o| o.get().combat == self.combat)
    }

    fn __hash__(&self) -> u64 {
        (self.combat.attacker as u64) << 16 | (self.combat.defender as u64) << 8 | self.combat.result as u64
    }

    fn __repr__(&self) -> String {
        format!(
            "Combat(attacker='{}', defender='{}', result='{}')",
            self.combat.attacker,
            self.combat.defender,
            result_code(self.combat.result)
        )
    }
}

fn combat_dict<'py>(py: Python<'py>, c: &Combat) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("attacker", rank_str(py, c.attacker))?;
    d.set_item("defender", rank_str(py, c.defender))?;
    d.set_item("result", result_code(c.result))?;
    Ok(d)
}

/// One ply as it happened: who moved, the move, and the fight if it was an attack.
#[pyclass(frozen, name = "Ply", module = "stratego")]
pub struct PyPly {
    pub ply: Ply,
}

#[pymethods]
impl PyPly {
    /// The side that moved.
    #[getter]
    fn color<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.ply.color)
    }

    /// The move.
    #[getter(r#move)]
    fn mv<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyMove>> {
        move_obj(py, self.ply.mv)
    }

    /// The fight, when the move was an attack.
    #[getter]
    fn combat(&self) -> Option<PyCombat> {
        self.ply.combat.map(|combat| PyCombat { combat })
    }

    /// The wire form: `{"color": ..., "move": ..., "combat": {...}}` (no `combat` key for a
    /// plain move).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("color", color_str(py, self.ply.color))?;
        d.set_item("move", self.ply.mv.to_string())?;
        if let Some(c) = &self.ply.combat {
            d.set_item("combat", combat_dict(py, c)?)?;
        }
        Ok(d)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyPly>().is_ok_and(|o| o.get().ply == self.ply)
    }

    fn __repr__(&self) -> String {
        match &self.ply.combat {
            None => format!("Ply('{}', '{}')", self.ply.color.name(), self.ply.mv),
            Some(c) => format!(
                "Ply('{}', '{}', {} x {}: {})",
                self.ply.color.name(),
                self.ply.mv,
                c.attacker,
                c.defender,
                result_code(c.result)
            ),
        }
    }
}

/// How a game ended by the rules: the winner (`None` for a draw) and the reason code
/// (`"flag_captured"`, `"no_legal_moves"`, `"neither_can_move"`, `"ply_limit"`,
/// `"sealed_flags"`).
#[pyclass(frozen, name = "Outcome", module = "stratego")]
pub struct PyOutcome {
    pub outcome: Outcome,
}

#[pymethods]
impl PyOutcome {
    /// `"red"`, `"blue"`, or `None` for a draw.
    #[getter]
    fn winner<'py>(&self, py: Python<'py>) -> Option<&Bound<'py, PyString>> {
        self.outcome.winner.map(|c| color_str(py, c))
    }

    /// The reason code.
    #[getter]
    fn reason(&self) -> &'static str {
        self.outcome.reason.code()
    }

    /// Whether the game is a draw.
    #[getter]
    fn is_draw(&self) -> bool {
        self.outcome.winner.is_none()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyOutcome>().is_ok_and(|o| o.get().outcome == self.outcome)
    }

    fn __str__(&self) -> String {
        self.outcome.to_string()
    }

    fn __repr__(&self) -> String {
        match self.outcome.winner {
            Some(c) => format!("Outcome(winner='{}', reason='{}')", c.name(), self.outcome.reason),
            None => format!("Outcome(winner=None, reason='{}')", self.outcome.reason),
        }
    }
}

/// A piece on the board as one player sees it. `rank` is `None` for an opponent piece
/// whose rank that player does not know.
#[pyclass(frozen, name = "Piece", module = "stratego")]
pub struct PyPiece {
    pub piece: ViewPiece,
}

#[pymethods]
impl PyPiece {
    /// Where it stands.
    #[getter]
    fn square<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        square_str(py, self.piece.square)
    }

    /// Whose it is.
    #[getter]
    fn color<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.piece.color)
    }

    /// Where it stood at the start: a public, stable label for the piece.
    #[getter]
    fn origin<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        square_str(py, self.piece.origin)
    }

    /// Its rank, or `None` when the viewer does not know it.
    #[getter]
    fn rank<'py>(&self, py: Python<'py>) -> Option<&Bound<'py, PyString>> {
        self.piece.rank.map(|r| rank_str(py, r))
    }

    /// Whether it has moved (so it is neither a Bomb nor the Flag).
    #[getter]
    fn moved(&self) -> bool {
        self.piece.moved
    }

    /// Whether its rank is known to both players.
    #[getter]
    fn revealed(&self) -> bool {
        self.piece.revealed
    }

    /// The wire form of a `turn`'s piece.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("square", square_str(py, self.piece.square))?;
        d.set_item("color", color_str(py, self.piece.color))?;
        d.set_item("origin", square_str(py, self.piece.origin))?;
        if let Some(r) = self.piece.rank {
            d.set_item("rank", rank_str(py, r))?;
        }
        if self.piece.moved {
            d.set_item("moved", true)?;
        }
        if self.piece.revealed {
            d.set_item("revealed", true)?;
        }
        Ok(d)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyPiece>().is_ok_and(|o| o.get().piece == self.piece)
    }

    fn __repr__(&self) -> String {
        let p = &self.piece;
        let rank = p.rank.map_or("None".to_owned(), |r| format!("'{r}'"));
        format!(
            "Piece(square='{}', color='{}', rank={rank}, origin='{}', moved={}, revealed={})",
            p.square,
            p.color.name(),
            p.origin,
            if p.moved { "True" } else { "False" },
            if p.revealed { "True" } else { "False" }
        )
    }
}

/// Fighting strength (Spy 1 ... Marshal 10); `None` for Bomb and Flag.
#[pyfunction]
pub fn strength(rank: &str) -> PyResult<Option<u8>> {
    Ok(parse_rank(rank)?.strength())
}

/// The one-character code of a rank (`"X"` for the Marshal, `"F"`, `"S"`, `"2"`...).
#[pyfunction]
pub fn rank_code(rank: &str) -> PyResult<String> {
    Ok(parse_rank(rank)?.code().to_string())
}

/// The rank name for a one-character code.
#[pyfunction]
pub fn rank_from_code(code: &str) -> PyResult<&'static str> {
    let mut chars = code.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Rank::from_code(c).map(Rank::name),
        _ => None,
    }
    .ok_or_else(|| value_error(format!("unknown piece code {code:?}: use F S 2-9 X B")))
}

/// Whether a piece of this rank can move (not a Bomb or the Flag).
#[pyfunction]
pub fn is_mobile(rank: &str) -> PyResult<bool> {
    Ok(parse_rank(rank)?.is_mobile())
}

/// The twelve rank names, Flag first, Bomb last (the order of the view planes).
pub fn rank_names() -> Vec<&'static str> {
    Rank::ALL.iter().map(|r| r.name()).collect()
}
