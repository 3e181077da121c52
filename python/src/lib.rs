//! The native half of the `stratego` Python package: the `stratego-rules` crate (the referee)
//! and the protocol's messages (`stratego-protocol`), wrapped with PyO3.
//!
//! Nothing here decides a rule: every legal move, fight and ending comes from the rules
//! crate. The Python-facing names are documented in `stratego/_stratego.pyi`.

use pyo3::prelude::*;

mod board;
mod convert;
mod data;
mod errors;
mod game;
mod messages;
mod ruleset;
mod text;
mod tracker;
mod types;

/// The `stratego._stratego` extension module.
#[pymodule]
fn _stratego(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("StrategoError", py.get_type::<errors::StrategoError>())?;
    m.add("RulesetError", py.get_type::<errors::RulesetError>())?;
    m.add("DeploymentError", py.get_type::<errors::DeploymentError>())?;
    m.add("GameError", py.get_type::<errors::GameError>())?;
    m.add("IllegalMoveError", py.get_type::<errors::IllegalMoveError>())?;
    m.add("MoveSyntaxError", py.get_type::<errors::MoveSyntaxError>())?;
    m.add("ProtocolError", py.get_type::<errors::ProtocolError>())?;
    m.add("RecordError", py.get_type::<errors::RecordError>())?;
    m.add("GravonError", py.get_type::<errors::GravonError>())?;
    m.add_class::<types::PyMove>()?;
    m.add_class::<types::PyCombat>()?;
    m.add_class::<types::PyPly>()?;
    m.add_class::<types::PyOutcome>()?;
    m.add_class::<types::PyPiece>()?;
    m.add_class::<ruleset::PyRuleset>()?;
    m.add_class::<ruleset::PyDeployment>()?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<board::PyView>()?;
    m.add_class::<tracker::PyTracker>()?;
    m.add_class::<messages::PyHello>()?;
    m.add_class::<messages::PySetupRequest>()?;
    m.add_class::<messages::PyTurn>()?;
    m.add_class::<messages::PyPlyNotice>()?;
    m.add_class::<messages::PyGameOver>()?;
    m.add_class::<messages::PyQuit>()?;
    m.add_class::<data::PyRecord>()?;
    m.add_class::<data::PyCompactRecords>()?;
    m.add_class::<data::PyGravonGame>()?;
    m.add_class::<data::PyGravonReplay>()?;
    m.add_function(wrap_pyfunction!(messages::parse_message, m)?)?;
    m.add_function(wrap_pyfunction!(game::random_playouts, m)?)?;
    m.add_function(wrap_pyfunction!(types::strength, m)?)?;
    m.add_function(wrap_pyfunction!(types::rank_code, m)?)?;
    m.add_function(wrap_pyfunction!(types::rank_from_code, m)?)?;
    m.add_function(wrap_pyfunction!(types::is_mobile, m)?)?;
    m.add("RANKS", types::rank_names())?;
    m.add("PLANES", board::plane_names())?;
    m.add("PROTOCOL_VERSION", stratego_protocol::PROTOCOL_VERSION)?;
    Ok(())
}
