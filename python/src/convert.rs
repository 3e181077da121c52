//! Conversions between the rules crate's values and Python's: colours, ranks and squares
//! are plain strings (`"red"`, `"marshal"`, `"e4"`, as on the wire), moves are interned
//! [`PyMove`] objects.

use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pyo3::{intern, sync::PyOnceLock};
use stratego_rules::{ByColor, Color, Move, PieceCounts, Rank, Square};

use crate::errors::value_error;
use crate::types::PyMove;

/// The colour's wire name as an interned Python string.
pub fn color_str(py: Python<'_>, c: Color) -> &Bound<'_, PyString> {
    match c {
        Color::Red => intern!(py, "red"),
        Color::Blue => intern!(py, "blue"),
    }
}

/// The rank's wire name as an interned Python string.
pub fn rank_str(py: Python<'_>, r: Rank) -> &Bound<'_, PyString> {
    match r {
        Rank::Flag => intern!(py, "flag"),
        Rank::Spy => intern!(py, "spy"),
        Rank::Scout => intern!(py, "scout"),
        Rank::Miner => intern!(py, "miner"),
        Rank::Sergeant => intern!(py, "sergeant"),
        Rank::Lieutenant => intern!(py, "lieutenant"),
        Rank::Captain => intern!(py, "captain"),
        Rank::Major => intern!(py, "major"),
        Rank::Colonel => intern!(py, "colonel"),
        Rank::General => intern!(py, "general"),
        Rank::Marshal => intern!(py, "marshal"),
        Rank::Bomb => intern!(py, "bomb"),
    }
}

/// Square names, one Python string per mailbox index, made once.
static SQUARES: PyOnceLock<Vec<Option<Py<PyString>>>> = PyOnceLock::new();

/// The square's name as a shared Python string.
pub fn square_str(py: Python<'_>, sq: Square) -> Bound<'_, PyString> {
    let table = SQUARES.get_or_init(py, || {
        (0..=255u8).map(|i| Square::from_index(i).map(|s| PyString::new(py, &s.to_string()).unbind())).collect()
    });
    table[sq.index()].as_ref().expect("every square has a name").bind(py).clone()
}

/// Interned move objects, by `from.index() * 256 + to.index()`, made on first use.
static MOVES: OnceLock<Box<[OnceLock<Py<PyMove>>]>> = OnceLock::new();

/// The one `Move` object for `mv` (moves are immutable values, so one object serves every
/// list that holds the move).
pub fn move_obj(py: Python<'_>, mv: Move) -> PyResult<Bound<'_, PyMove>> {
    let table = MOVES.get_or_init(|| (0..65536).map(|_| OnceLock::new()).collect());
    let slot = &table[mv.from.index() * 256 + mv.to.index()];
    if let Some(m) = slot.get() {
        return Ok(m.bind(py).clone());
    }
    let made = Py::new(py, PyMove::make(py, mv))?;
    // Another thread may have filled the slot meanwhile: either object is the same move.
    let _ = slot.set(made);
    Ok(slot.get().expect("just set").bind(py).clone())
}

/// A colour from its wire name.
pub fn parse_color(s: &str) -> PyResult<Color> {
    match s {
        "red" | "Red" => Ok(Color::Red),
        "blue" | "Blue" => Ok(Color::Blue),
        _ => Err(value_error(format!("invalid color {s:?}: expected \"red\" or \"blue\""))),
    }
}

/// A rank from its name (`"marshal"`) or its one-character code (`"X"`).
pub fn parse_rank(s: &str) -> PyResult<Rank> {
    if let Ok(r) = s.parse::<Rank>() {
        return Ok(r);
    }
    let mut chars = s.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if let Some(r) = Rank::from_code(c) {
            return Ok(r);
        }
    }
    Err(value_error(format!(
        "unknown piece {s:?}: expected a name (marshal, general, colonel, major, captain, lieutenant, sergeant, miner, scout, spy, bomb, flag) or a code (X 9-2 S B F)"
    )))
}

/// A square from its name.
pub fn parse_square(s: &str) -> PyResult<Square> {
    s.parse().map_err(|e: stratego_rules::ParseSquareError| value_error(e.to_string()))
}

/// A move from a `Move` object or its text (`"e4-e5"`).
pub fn extract_move(obj: &Bound<'_, PyAny>) -> PyResult<Move> {
    if let Ok(m) = obj.cast::<PyMove>() {
        return Ok(m.get().mv);
    }
    let text: String = obj
        .extract()
        .map_err(|_| value_error(format!("expected a Move or a move text like \"e4-e5\", got {}", type_name(obj))))?;
    parse_move(&text)
}

/// A move from its text (`"e4-e5"`); bad text raises `MoveSyntaxError`.
pub fn parse_move(text: &str) -> PyResult<Move> {
    text.parse().map_err(|e: stratego_rules::ParseMoveError| {
        // The rules crate's message, as the host words it: it quotes the text.
        crate::errors::MoveSyntaxError::new_err(e.to_string())
    })
}

/// The Python type name of `obj`, for error messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

/// `{"marshal": 1, ...}` for the kinds with a non-zero count, strongest first.
pub fn counts_dict<'py>(py: Python<'py>, counts: &PieceCounts) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for r in Rank::STRONGEST_FIRST {
        if counts[r] > 0 {
            d.set_item(rank_str(py, r), counts[r])?;
        }
    }
    Ok(d)
}

/// `{"red": {...}, "blue": {...}}`.
pub fn by_color_counts<'py>(py: Python<'py>, c: &ByColor<PieceCounts>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "red"), counts_dict(py, &c.red)?)?;
    d.set_item(intern!(py, "blue"), counts_dict(py, &c.blue)?)?;
    Ok(d)
}

/// Piece counts from a `{name or code: count}` mapping.
pub fn extract_counts(obj: &Bound<'_, PyAny>) -> PyResult<PieceCounts> {
    let d = obj.cast::<PyDict>().map_err(|_| value_error("piece counts must be a dict of piece name to count"))?;
    let mut counts = PieceCounts::default();
    for (k, v) in d.iter() {
        let r = parse_rank(&k.extract::<String>()?)?;
        counts[r] = v.extract()?;
    }
    Ok(counts)
}

/// Captured counts from `{"red": {...}, "blue": {...}}` (either side may be missing).
pub fn extract_by_color_counts(obj: Option<&Bound<'_, PyAny>>) -> PyResult<ByColor<PieceCounts>> {
    let mut out = ByColor::<PieceCounts>::default();
    let Some(obj) = obj else { return Ok(out) };
    if obj.is_none() {
        return Ok(out);
    }
    let d =
        obj.cast::<PyDict>().map_err(|_| value_error("captured must be a dict {\"red\": {...}, \"blue\": {...}}"))?;
    for (k, v) in d.iter() {
        let c = parse_color(&k.extract::<String>()?)?;
        out[c] = extract_counts(&v)?;
    }
    Ok(out)
}
