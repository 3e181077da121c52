//! Following a game from the plies alone, for bots that asked for `"view": "moves"`.
//!
//! The tracker decides nothing: where pieces go and who survives a fight is what the host
//! reported in each ply (its referee is the rules crate). It only keeps the public record a
//! full-view `turn` would carry, which the tests check against the rules crate's own
//! `Game::view` ply by ply.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use stratego_rules::{ByColor, Color, CombatResult, Move, PieceCounts, Ply, Rank, Ruleset, Square, View, ViewPiece};

use crate::board::PyView;
use crate::convert::{color_str, extract_move, parse_color, parse_square};
use crate::errors::{ProtocolError, value_error};
use crate::ruleset::{extract_deployment, extract_rules};
use crate::types::{PyPiece, PyPly};

/// The board as one player knows it, kept from its own setup, the opponent's starting
/// squares (`turn.opponent_squares`) and every ply with its fight.
#[pyclass(name = "Tracker", module = "stratego")]
pub struct PyTracker {
    rules: Arc<Ruleset>,
    color: Color,
    /// By square.
    pieces: Vec<ViewPiece>,
    captured: ByColor<PieceCounts>,
    history: Vec<Ply>,
}

impl PyTracker {
    fn find(&self, sq: Square) -> Option<usize> {
        self.pieces.binary_search_by_key(&sq, |p| p.square).ok()
    }

    fn apply_ply(&mut self, ply: Ply) -> Result<(), String> {
        let n = self.history.len() + 1;
        let mv = ply.mv;
        let at = |msg: String| format!("ply {n} ({} {mv}): {msg}", ply.color);
        let from = self.find(mv.from).ok_or_else(|| at(format!("no piece on {} in the tracked board", mv.from)))?;
        if self.pieces[from].color != ply.color {
            return Err(at(format!("the piece on {} is not {}'s", mv.from, ply.color)));
        }
        let target = self.find(mv.to);
        let mut mover = self.pieces.remove(from);
        mover.moved = true;
        // A move of several squares shows a Scout to both players.
        if mv.from.distance(mv.to) > 1 {
            mover.rank = Some(Rank::Scout);
            mover.revealed = true;
        }
        match (ply.combat, target) {
            (None, None) => {
                mover.square = mv.to;
                self.insert(mover);
            }
            (None, Some(_)) => return Err(at(format!("{} is occupied but the ply has no fight", mv.to))),
            (Some(_), None) => return Err(at(format!("the ply has a fight but {} is empty", mv.to))),
            (Some(c), Some(_)) => {
                let t = self.find(mv.to).expect("found above");
                let mut defender = self.pieces.remove(t);
                for (p, rank) in [(&mover, c.attacker), (&defender, c.defender)] {
                    if p.color == self.color && p.rank != Some(rank) {
                        return Err(at(format!(
                            "the fight names a {rank} for the piece from {}, which is a {}",
                            p.origin,
                            p.rank.map_or("?", Rank::name)
                        )));
                    }
                }
                mover.rank = Some(c.attacker);
                mover.revealed = true;
                defender.rank = Some(c.defender);
                defender.revealed = true;
                match c.result {
                    CombatResult::AttackerWins => {
                        self.captured[defender.color][c.defender] += 1;
                        mover.square = mv.to;
                        self.insert(mover);
                    }
                    CombatResult::DefenderWins => {
                        self.captured[mover.color][c.attacker] += 1;
                        self.insert(defender);
                    }
                    CombatResult::BothRemoved => {
                        self.captured[mover.color][c.attacker] += 1;
                        self.captured[defender.color][c.defender] += 1;
                    }
                }
            }
        }
        self.history.push(ply);
        Ok(())
    }

    fn insert(&mut self, p: ViewPiece) {
        let i = self.pieces.partition_point(|q| q.square < p.square);
        self.pieces.insert(i, p);
    }

    /// The view at this point: `legal_moves` as given (the host's list).
    pub fn make_view(&self, legal_moves: Vec<Move>) -> View {
        let ply = self.history.len() as u32;
        View {
            color: self.color,
            to_move: if ply % 2 == 0 { Color::Red } else { Color::Blue },
            ply,
            pieces: self.pieces.clone(),
            captured: self.captured,
            history: self.history.clone(),
            legal_moves,
            outcome: None,
        }
    }

    /// Applies plies (from a message).
    pub fn apply_plies(&mut self, plies: &[Ply]) -> PyResult<()> {
        for &p in plies {
            self.apply_ply(p).map_err(ProtocolError::new_err)?;
        }
        Ok(())
    }

    /// The ruleset.
    pub fn rules(&self) -> &Arc<Ruleset> {
        &self.rules
    }
}

#[pymethods]
impl PyTracker {
    /// Starts from the viewer's deployment and the squares the opponent's pieces stood on
    /// after both setups (the first `turn`'s `opponent_squares`).
    #[new]
    fn py_new(
        rules: &Bound<'_, PyAny>,
        color: &str,
        deployment: &Bound<'_, PyAny>,
        opponent_squares: Vec<String>,
    ) -> PyResult<PyTracker> {
        let rules = extract_rules(rules)?;
        let color = parse_color(color)?;
        let own = extract_deployment(&rules, color, deployment)?;
        let mut pieces: Vec<ViewPiece> = own
            .pieces()
            .iter()
            .map(|&(square, rank)| ViewPiece {
                square,
                color,
                origin: square,
                rank: Some(rank),
                moved: false,
                revealed: false,
            })
            .collect();
        for s in &opponent_squares {
            let square = parse_square(s)?;
            if !rules.on_board(square) || rules.is_lake(square) {
                return Err(value_error(format!("opponent square {square} is not a playable square")));
            }
            pieces.push(ViewPiece { square, color: !color, origin: square, rank: None, moved: false, revealed: false });
        }
        pieces.sort_by_key(|p| p.square);
        if let Some(w) = pieces.windows(2).find(|w| w[0].square == w[1].square) {
            return Err(value_error(format!("two pieces on {}", w[0].square)));
        }
        Ok(PyTracker { rules, color, pieces, captured: ByColor::default(), history: Vec::new() })
    }

    /// Applies one ply (a `Ply` from a message or a game).
    fn apply(&mut self, ply: PyRef<'_, PyPly>) -> PyResult<()> {
        self.apply_ply(ply.ply).map_err(ProtocolError::new_err)
    }

    /// Applies plies in order.
    fn apply_all(&mut self, plies: &Bound<'_, PyAny>) -> PyResult<()> {
        for p in plies.try_iter()? {
            let p = p?;
            let ply = p.cast::<PyPly>().map_err(|_| value_error("apply_all takes Ply objects"))?;
            self.apply_ply(ply.get().ply).map_err(ProtocolError::new_err)?;
        }
        Ok(())
    }

    /// The viewer.
    #[getter]
    fn color<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.color)
    }

    /// Plies applied.
    #[getter]
    fn ply(&self) -> usize {
        self.history.len()
    }

    /// The pieces as the viewer knows them, by square.
    #[getter]
    fn pieces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.pieces.iter().map(|&piece| PyPiece { piece }))
    }

    /// The view now, with the given legal moves (a turn's `legal_moves`; none by default).
    #[pyo3(signature = (legal_moves = None))]
    fn view(&self, legal_moves: Option<&Bound<'_, PyAny>>) -> PyResult<PyView> {
        let moves = match legal_moves {
            None => Vec::new(),
            Some(l) => l.try_iter()?.map(|m| extract_move(&m?)).collect::<PyResult<Vec<_>>>()?,
        };
        Ok(PyView { view: self.make_view(moves), rules: self.rules.clone() })
    }
}
