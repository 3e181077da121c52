//! The host's messages (protocol.md), decoded by the protocol crate's own serde types.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use stratego_protocol::{GameOver, GameResult, Hello, HostMessage, PlyNotice, SetupRequest, Turn};
use stratego_rules::{Ply, Ruleset, View};

use crate::board::PyView;
use crate::convert::{by_color_counts, color_str, counts_dict, move_obj, rank_str, square_str};
use crate::errors::{ProtocolError, RulesetError, value_error};
use crate::ruleset::{PyRuleset, extract_rules};
use crate::tracker::PyTracker;
use crate::types::{PyPiece, PyPly};

/// Decodes one line from the host into `Hello`, `SetupRequest`, `Turn`, `PlyNotice`,
/// `GameOver` or `Quit`. Raises `ProtocolError` for a line that is none of them (a newer
/// host's unknown message type included: a bot ignores those).
#[pyfunction]
pub fn parse_message(py: Python<'_>, line: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let text: String = if let Ok(b) = line.extract::<Vec<u8>>() {
        String::from_utf8(b).map_err(|e| ProtocolError::new_err(format!("the line is not UTF-8: {e}")))?
    } else {
        line.extract().map_err(|_| value_error("parse_message takes a str or bytes line"))?
    };
    let msg = stratego_protocol::bot::parse_host_message(text.trim_end_matches(['\n', '\r']))
        .map_err(|e| ProtocolError::new_err(format!("not a host message: {e}")))?;
    Ok(match msg {
        HostMessage::Hello(hello) => {
            let rules = Ruleset::try_from(hello.ruleset.clone())
                .map_err(|e| RulesetError::new_err(format!("the hello's ruleset is invalid: {e}")))?;
            Py::new(py, PyHello { hello, rules: Arc::new(rules) })?.into_any()
        }
        HostMessage::SetupRequest(req) => Py::new(py, PySetupRequest { req })?.into_any(),
        HostMessage::Turn(turn) => Py::new(py, PyTurn { turn })?.into_any(),
        HostMessage::Ply(notice) => Py::new(py, PyPlyNotice { notice })?.into_any(),
        HostMessage::GameOver(over) => Py::new(py, PyGameOver { over })?.into_any(),
        HostMessage::Quit(_) => Py::new(py, PyQuit {})?.into_any(),
    })
}

/// `hello`: starts a game.
#[pyclass(frozen, name = "Hello", module = "stratego")]
pub struct PyHello {
    hello: Hello,
    rules: Arc<Ruleset>,
}

#[pymethods]
impl PyHello {
    /// `"hello"`.
    #[getter(r#type)]
    fn kind(&self) -> &'static str {
        "hello"
    }
    /// The protocol version (1).
    #[getter]
    fn protocol(&self) -> u32 {
        self.hello.protocol
    }
    /// The game's id.
    #[getter]
    fn game_id(&self) -> &str {
        &self.hello.game_id
    }
    /// Your side.
    #[getter]
    fn color<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.hello.color)
    }
    /// The rules, validated.
    #[getter]
    fn rules(&self) -> PyRuleset {
        PyRuleset::new(self.rules.clone())
    }
    /// The clocks: `startup_ms`, `setup_ms`, `move_ms`, `bank_ms`, `increment_ms`,
    /// `margin_ms`.
    #[getter]
    fn time_control<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.hello.time_control;
        let d = PyDict::new(py);
        d.set_item("startup_ms", t.startup_ms)?;
        d.set_item("setup_ms", t.setup_ms)?;
        d.set_item("move_ms", t.move_ms)?;
        d.set_item("bank_ms", t.bank_ms)?;
        d.set_item("increment_ms", t.increment_ms)?;
        d.set_item("margin_ms", t.margin_ms)?;
        Ok(d)
    }
    /// The seed for your random choices (0 to 2**64 - 1).
    #[getter]
    fn seed(&self) -> u64 {
        self.hello.seed
    }
    /// The longest line you may send, in bytes.
    #[getter]
    fn max_line_bytes(&self) -> usize {
        self.hello.max_line_bytes
    }
    /// The opponent's name, when the host tells it.
    #[getter]
    fn opponent(&self) -> Option<&str> {
        self.hello.opponent.as_deref()
    }
    fn __repr__(&self) -> String {
        format!("<Hello {} {} {}>", self.hello.game_id, self.hello.color.name(), self.rules.name())
    }
}

/// `setup_request`: place your army.
#[pyclass(frozen, name = "SetupRequest", module = "stratego")]
pub struct PySetupRequest {
    req: SetupRequest,
}

#[pymethods]
impl PySetupRequest {
    /// `"setup_request"`.
    #[getter(r#type)]
    fn kind(&self) -> &'static str {
        "setup_request"
    }
    /// The game's id.
    #[getter]
    fn game_id(&self) -> &str {
        &self.req.game_id
    }
    /// Your side.
    #[getter]
    fn color<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.req.color)
    }
    /// The squares you may use, rank by rank.
    #[getter]
    fn squares<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.req.squares.iter().map(|&s| square_str(py, s)))
    }
    /// The pieces to place.
    #[getter]
    fn pieces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        counts_dict(py, &self.req.pieces)
    }
    /// Whether you must place exactly `pieces`.
    #[getter]
    fn exact_counts(&self) -> bool {
        self.req.exact_counts
    }
    /// Time you have, in milliseconds.
    #[getter]
    fn time_ms(&self) -> u64 {
        self.req.time_ms
    }
    /// The setup the event chose for you (rows form), if any: the host plays it whatever
    /// you answer.
    #[getter]
    fn fixed(&self) -> Option<&str> {
        self.req.fixed.as_deref()
    }
}

/// `turn`: your move, everything you may know (full view) or only the plies (moves view).
#[pyclass(frozen, name = "Turn", module = "stratego")]
pub struct PyTurn {
    pub turn: Turn,
}

#[pymethods]
impl PyTurn {
    /// `"turn"`.
    #[getter(r#type)]
    fn kind(&self) -> &'static str {
        "turn"
    }
    /// The game's id.
    #[getter]
    fn game_id(&self) -> &str {
        &self.turn.game_id
    }
    /// Plies played so far (0 before Red's first move). Echo it in your `move`.
    #[getter]
    fn ply(&self) -> u32 {
        self.turn.ply
    }
    /// Your side.
    #[getter]
    fn color<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.turn.color)
    }
    /// Plies since the last message you were sent, oldest first, with their fights.
    #[getter]
    fn plies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.turn.plies.iter().map(|&ply| PyPly { ply }))
    }
    /// Whether the turn carries the pieces (`"view": "full"`).
    #[getter]
    fn is_full_view(&self) -> bool {
        self.turn.captured.is_some()
    }
    /// Every piece on the board as you see it (empty in the moves view).
    #[getter]
    fn pieces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.turn.pieces.iter().map(|&piece| PyPiece { piece }))
    }
    /// Pieces each side has lost (None in the moves view).
    #[getter]
    fn captured<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.turn.captured.as_ref().map(|c| by_color_counts(py, c)).transpose()
    }
    /// Your legal moves (never empty).
    #[getter]
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.turn.legal_moves.iter().map(|&m| move_obj(py, m)).collect::<PyResult<Vec<_>>>()?)
    }
    /// Your time: `move_ms`, `remaining_ms`, `opponent_remaining_ms`.
    #[getter]
    fn clock<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = &self.turn.clock;
        let d = PyDict::new(py);
        d.set_item("move_ms", c.move_ms)?;
        d.set_item("remaining_ms", c.remaining_ms)?;
        d.set_item("opponent_remaining_ms", c.opponent_remaining_ms)?;
        Ok(d)
    }
    /// After a fault forgiven under the strike policy: `reason`, `message`, `replaced_by`,
    /// `strikes_left`.
    #[getter]
    fn strike<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = &self.turn.strike else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("reason", &s.reason)?;
        d.set_item("message", &s.message)?;
        d.set_item("replaced_by", move_obj(py, s.replaced_by)?)?;
        d.set_item("strikes_left", s.strikes_left)?;
        Ok(Some(d))
    }
    /// Moves view, first turn only: the squares of the opponent's pieces after both setups.
    #[getter]
    fn opponent_squares<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        self.turn.opponent_squares.as_ref().map(|v| PyList::new(py, v.iter().map(|&s| square_str(py, s)))).transpose()
    }

    /// The full view this turn describes: `rules` (a `Ruleset` or preset name, the
    /// hello's), and the plies sent before this turn (`history`) to complete the view's
    /// history. Raises for a moves-view turn: use a `Tracker` then.
    #[pyo3(signature = (rules, history = None))]
    fn view(&self, rules: &Bound<'_, PyAny>, history: Option<&Bound<'_, PyAny>>) -> PyResult<PyView> {
        let rules = extract_rules(rules)?;
        let Some(captured) = self.turn.captured else {
            return Err(value_error(
                "this turn carries no pieces (\"view\": \"moves\"): follow the game with a Tracker",
            ));
        };
        let mut all: Vec<Ply> = match history {
            None => Vec::new(),
            Some(h) => h
                .try_iter()?
                .map(|p| Ok(p?.cast::<PyPly>().map_err(|_| value_error("history takes Ply objects"))?.get().ply))
                .collect::<PyResult<_>>()?,
        };
        all.extend_from_slice(&self.turn.plies);
        let view = View {
            color: self.turn.color,
            to_move: self.turn.color,
            ply: self.turn.ply,
            pieces: self.turn.pieces.clone(),
            captured,
            history: all,
            legal_moves: self.turn.legal_moves.clone(),
            outcome: None,
        };
        Ok(PyView { view, rules })
    }

    /// The view from a tracker (moves view): applies this turn's plies to it, then returns
    /// its view with this turn's legal moves.
    fn view_with(&self, tracker: &Bound<'_, PyTracker>) -> PyResult<PyView> {
        let mut t = tracker.borrow_mut();
        t.apply_plies(&self.turn.plies)?;
        let view = t.make_view(self.turn.legal_moves.clone());
        if view.ply != self.turn.ply {
            return Err(ProtocolError::new_err(format!(
                "the tracker is at ply {} but the turn is at ply {}: it missed plies",
                view.ply, self.turn.ply
            )));
        }
        Ok(PyView { view, rules: t.rules().clone() })
    }

    fn __repr__(&self) -> String {
        format!("<Turn {} ply {} {}>", self.turn.game_id, self.turn.ply, self.turn.color.name())
    }
}

/// `ply`: one ply as it happens (bots with `immediate_plies`).
#[pyclass(frozen, name = "PlyNotice", module = "stratego")]
pub struct PyPlyNotice {
    notice: PlyNotice,
}

#[pymethods]
impl PyPlyNotice {
    /// `"ply"`.
    #[getter(r#type)]
    fn kind(&self) -> &'static str {
        "ply"
    }
    /// The game's id.
    #[getter]
    fn game_id(&self) -> &str {
        &self.notice.game_id
    }
    /// The ply's number (1 for Red's first move).
    #[getter]
    fn number(&self) -> u32 {
        self.notice.ply
    }
    /// What happened.
    #[getter]
    fn ply(&self) -> PyPly {
        PyPly { ply: self.notice.played }
    }
}

/// `game_over`: the result, why, the last plies and the opponent's setup.
#[pyclass(frozen, name = "GameOver", module = "stratego")]
pub struct PyGameOver {
    over: GameOver,
}

#[pymethods]
impl PyGameOver {
    /// `"game_over"`.
    #[getter(r#type)]
    fn kind(&self) -> &'static str {
        "game_over"
    }
    /// The game's id.
    #[getter]
    fn game_id(&self) -> &str {
        &self.over.game_id
    }
    /// `"win"`, `"loss"` or `"draw"`.
    #[getter]
    fn result(&self) -> &'static str {
        match self.over.result {
            GameResult::Win => "win",
            GameResult::Loss => "loss",
            GameResult::Draw => "draw",
        }
    }
    /// The winning side, None for a draw.
    #[getter]
    fn winner<'py>(&self, py: Python<'py>) -> Option<&Bound<'py, PyString>> {
        self.over.winner.map(|c| color_str(py, c))
    }
    /// The reason code (`flag_captured`, `move_timeout`, ...).
    #[getter]
    fn reason(&self) -> &str {
        &self.over.reason
    }
    /// The same in words.
    #[getter]
    fn message(&self) -> &str {
        &self.over.message
    }
    /// Plies you had not been sent yet.
    #[getter]
    fn plies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.over.plies.iter().map(|&ply| PyPly { ply }))
    }
    /// Plies played in the game.
    #[getter]
    fn total_plies(&self) -> u32 {
        self.over.total_plies
    }
    /// The opponent's setup: `[(square, rank), ...]` by square (empty if it gave none).
    #[getter]
    fn opponent_setup<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self
            .over
            .opponent_setup
            .iter()
            .map(|p| PyTuple::new(py, [square_str(py, p.square).into_any(), rank_str(py, p.rank).clone().into_any()]))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }
}

/// `quit`: exit now.
#[pyclass(frozen, name = "Quit", module = "stratego")]
pub struct PyQuit {}

#[pymethods]
impl PyQuit {
    /// `"quit"`.
    #[getter(r#type)]
    fn kind(&self) -> &'static str {
        "quit"
    }
}
