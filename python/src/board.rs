//! The player's view, and its encoding as planes for learning.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use stratego_rules::{Color, Rank, Ruleset, Square, View};

use crate::convert::{by_color_counts, color_str, move_obj, parse_square};
use crate::ruleset::{PyRuleset, json_loads};
use crate::types::{PyOutcome, PyPiece, PyPly};

/// What one player may know of a game, and nothing more (the rules crate's `View`).
///
/// From `Game.view(color)`, from a full-view `turn` (`Turn.view`), or from a `Tracker` for
/// bots that asked for `"view": "moves"`.
#[pyclass(frozen, name = "View", module = "stratego")]
pub struct PyView {
    pub view: View,
    pub rules: Arc<Ruleset>,
}

/// Names of the planes of [`PyView::planes`], in order.
pub fn plane_names() -> Vec<String> {
    let mut out: Vec<String> = Rank::ALL.iter().map(|r| format!("own_{}", r.name())).collect();
    out.extend(Rank::ALL.iter().map(|r| format!("opponent_{}", r.name())));
    out.extend(
        ["opponent_unknown_unmoved", "opponent_unknown_moved", "own_revealed", "own_moved", "lake"].map(str::to_owned),
    );
    out
}

/// Number of planes.
pub const PLANES: usize = 29;

/// The planes of a view, `PLANES` x height x width bytes of 0 or 1 (see the stubs).
pub fn encode_planes(view: &View, rules: &Ruleset, orient: bool) -> Vec<u8> {
    let (w, h) = (rules.width() as usize, rules.height() as usize);
    let mut out = vec![0u8; PLANES * h * w];
    let flip = orient && view.color == Color::Blue;
    let cell = |sq: Square| {
        let (f, r) = (sq.file() as usize, sq.rank() as usize);
        if flip { (h - 1 - r) * w + (w - 1 - f) } else { r * w + f }
    };
    for p in &view.pieces {
        let at = cell(p.square);
        let mut set = |plane: usize| out[plane * h * w + at] = 1;
        if p.color == view.color {
            set(p.rank.expect("a viewer knows its own ranks").index());
            if p.revealed {
                set(26);
            }
            if p.moved {
                set(27);
            }
        } else {
            match p.rank {
                Some(r) => set(12 + r.index()),
                None if p.moved => set(25),
                None => set(24),
            }
        }
    }
    for sq in rules.spec().lakes.iter() {
        out[28 * h * w + cell(*sq)] = 1;
    }
    out
}

#[pymethods]
impl PyView {
    /// The viewer.
    #[getter]
    fn color<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.view.color)
    }

    /// The side to move.
    #[getter]
    fn to_move<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.view.to_move)
    }

    /// Whether the viewer is to move.
    #[getter]
    fn is_my_turn(&self) -> bool {
        self.view.to_move == self.view.color
    }

    /// Plies played.
    #[getter]
    fn ply(&self) -> u32 {
        self.view.ply
    }

    /// The ruleset.
    #[getter]
    fn rules(&self) -> PyRuleset {
        PyRuleset::new(self.rules.clone())
    }

    /// Every piece on the board, by square.
    #[getter]
    fn pieces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.view.pieces.iter().map(|&piece| PyPiece { piece }))
    }

    /// The viewer's own pieces.
    fn own_pieces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let c = self.view.color;
        PyList::new(py, self.view.pieces.iter().filter(|p| p.color == c).map(|&piece| PyPiece { piece }))
    }

    /// The opponent's pieces (ranks only where known).
    fn opponent_pieces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let c = self.view.color;
        PyList::new(py, self.view.pieces.iter().filter(|p| p.color != c).map(|&piece| PyPiece { piece }))
    }

    /// The piece on `square`, or None.
    fn piece_at(&self, square: &str) -> PyResult<Option<PyPiece>> {
        Ok(self.view.piece_at(parse_square(square)?).map(|&piece| PyPiece { piece }))
    }

    /// Pieces each side has lost.
    #[getter]
    fn captured<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        by_color_counts(py, &self.view.captured)
    }

    /// Every ply so far, as both players saw it.
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.view.history.iter().map(|&ply| PyPly { ply }))
    }

    /// The viewer's legal moves when it is to move (empty otherwise).
    #[getter]
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.view.legal_moves.iter().map(|&m| move_obj(py, m)).collect::<PyResult<Vec<_>>>()?)
    }

    /// The result, once the game is over.
    #[getter]
    fn outcome(&self) -> Option<PyOutcome> {
        self.view.outcome.map(|outcome| PyOutcome { outcome })
    }

    /// The view as JSON (the rules crate's serde form).
    fn to_json(&self) -> String {
        serde_json::to_string(&self.view).expect("a view serialises")
    }

    /// The view as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.to_json())
    }

    /// The view as planes for learning: `len(PLANES)` x height x width bytes, each 0 or 1,
    /// plane by plane, row by row (row 0 is rank 1). With `orient` (the default) Blue's
    /// view is turned half a turn, so that row 0 is always the viewer's back rank. See
    /// `stratego.encoding.planes` for a numpy array.
    #[pyo3(signature = (orient = true))]
    fn planes<'py>(&self, py: Python<'py>, orient: bool) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &encode_planes(&self.view, &self.rules, orient))
    }

    /// `(planes, height, width)`: the shape of `planes()`.
    #[getter]
    fn planes_shape(&self) -> (usize, usize, usize) {
        (PLANES, self.rules.height() as usize, self.rules.width() as usize)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyView>().is_ok_and(|o| o.get().view == self.view && *o.get().rules == *self.rules)
    }

    fn __repr__(&self) -> String {
        format!(
            "<View of {} at ply {}: {} pieces, {} legal moves>",
            self.view.color.name(),
            self.view.ply,
            self.view.pieces.len(),
            self.view.legal_moves.len()
        )
    }
}
