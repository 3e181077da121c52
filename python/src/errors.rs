//! The package's exceptions. Every one is a `StrategoError`, itself a `ValueError`, and
//! carries the rules crate's own message.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(stratego, StrategoError, PyValueError, "Base class of every error of the stratego package.");
create_exception!(stratego, RulesetError, StrategoError, "An invalid ruleset (the message names the field).");
create_exception!(
    stratego,
    DeploymentError,
    StrategoError,
    "An invalid setup (the message names the square or count)."
);
create_exception!(stratego, GameError, StrategoError, "Two deployments or a position that cannot start a game.");
create_exception!(
    stratego,
    IllegalMoveError,
    StrategoError,
    "A move the rules forbid here; `.code` is the rules crate's stable code (`two_square_rule`, ...)."
);
create_exception!(
    stratego,
    MoveSyntaxError,
    StrategoError,
    "Text that is not a move (`\"e4-e5\"` is one): the message says what is wrong with it."
);
create_exception!(stratego, ProtocolError, StrategoError, "A line that is not a host message of the protocol.");
create_exception!(stratego, RecordError, StrategoError, "A game record that does not read or replay.");
create_exception!(stratego, GravonError, StrategoError, "A Gravon (StraDoS2) game file that does not read.");

/// A `ValueError` for a bad argument.
pub fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// An `IllegalMoveError` with its `code` attribute set.
pub fn illegal(py: Python<'_>, e: stratego_rules::IllegalMove) -> PyErr {
    let err = IllegalMoveError::new_err(e.to_string());
    // Setting an attribute on a fresh exception instance cannot fail in practice; if it
    // did, the message alone still says why.
    let _ = err.value(py).setattr("code", e.code());
    err
}
