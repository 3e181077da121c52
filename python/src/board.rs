//! The player's view, and its encoding as planes for learning.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use stratego_protocol::Rng;
use stratego_rules::{Color, Game, PieceCounts, PositionPiece, Rank, Ruleset, Square, View};

use crate::convert::{by_color_counts, color_str, counts_dict, move_obj, parse_square};
use crate::errors::GameError;
use crate::game::{PyGame, game_err};
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

impl PyView {
    /// The opponent's ranks the viewer has not seen: its army less its pieces captured
    /// and less its pieces on the board whose rank the viewer knows.
    fn unseen_counts(&self) -> PieceCounts {
        let opponent = !self.view.color;
        let mut pool = *self.rules.pieces();
        for r in Rank::ALL {
            pool[r] = pool[r].saturating_sub(self.view.captured[opponent][r]);
        }
        for p in self.view.pieces.iter().filter(|p| p.color == opponent) {
            if let Some(r) = p.rank {
                pool[r] = pool[r].saturating_sub(1);
            }
        }
        pool
    }

    /// A full-knowledge position that agrees with everything the viewer knows (see
    /// `sample_world`).
    fn deal(&self, rng: &mut Rng) -> PyResult<Game> {
        let opponent = !self.view.color;
        let pool = self.unseen_counts();
        let mut mobile: Vec<Rank> = Vec::new();
        let mut immobile: Vec<Rank> = Vec::new();
        for r in Rank::ALL {
            let into = if r.is_mobile() { &mut mobile } else { &mut immobile };
            into.extend(std::iter::repeat_n(r, pool[r] as usize));
        }
        let unknown = |moved: bool| {
            self.view
                .pieces
                .iter()
                .enumerate()
                .filter(move |(_, p)| p.color == opponent && p.rank.is_none() && p.moved == moved)
        };
        let moved: Vec<usize> = unknown(true).map(|(i, _)| i).collect();
        let unmoved: Vec<usize> = unknown(false).map(|(i, _)| i).collect();
        let inconsistent = |what: String| GameError::new_err(format!("no world fits this view: {what}"));
        if moved.len() > mobile.len() {
            return Err(inconsistent(format!(
                "{} unknown pieces have moved but only {} movable ranks are unseen",
                moved.len(),
                mobile.len()
            )));
        }
        shuffle(&mut mobile, rng);
        let mut ranks: Vec<Option<Rank>> = self.view.pieces.iter().map(|p| p.rank).collect();
        for (k, &i) in moved.iter().enumerate() {
            ranks[i] = Some(mobile[k]);
        }
        let mut rest: Vec<Rank> = immobile;
        rest.extend_from_slice(&mobile[moved.len()..]);
        if rest.len() < unmoved.len() {
            return Err(inconsistent(format!(
                "{} unknown pieces but only {} unseen ranks",
                unmoved.len() + moved.len(),
                rest.len() + moved.len()
            )));
        }
        shuffle(&mut rest, rng);
        // With fewer pieces than the army (rulesets without exact counts), the Flag is
        // still on the board: it must be among those dealt.
        match rest.iter().position(|&r| r == Rank::Flag) {
            Some(_) if unmoved.is_empty() => {
                return Err(inconsistent("the flag is unseen but no unknown piece has stood still".into()));
            }
            Some(f) if f >= unmoved.len() => {
                let to = rng.below(unmoved.len());
                rest.swap(f, to);
            }
            _ => {}
        }
        for (k, &i) in unmoved.iter().enumerate() {
            ranks[i] = Some(rest[k]);
        }
        let ranks: Vec<Rank> = ranks.into_iter().map(|r| r.expect("every piece has a rank now")).collect();
        if let Some(game) = self.replayed(&ranks) {
            return Ok(game);
        }
        let pieces: Vec<PositionPiece> = self
            .view
            .pieces
            .iter()
            .zip(&ranks)
            .map(|(p, &rank)| PositionPiece {
                square: p.square,
                color: p.color,
                rank,
                moved: p.moved,
                revealed: p.revealed,
            })
            .collect();
        Game::from_position(self.rules.clone(), &pieces, self.view.to_move, self.view.ply, self.view.captured)
            .map_err(game_err)
    }
}

impl PyView {
    /// The game from its start with `ranks` (one per piece of the view, by index) for the
    /// pieces now on the board: the plies of the history walked back from the board give
    /// every piece's starting square (a piece a fight removed comes back, its rank told by
    /// the fight), then both setups are played forward through the history. `None` when
    /// the view does not start at ply 0 (a `from_position` game) or does not walk back.
    fn replayed(&self, ranks: &[Rank]) -> Option<Game> {
        use std::collections::HashMap;
        use stratego_rules::{CombatResult, Deployment};
        let v = &self.view;
        if v.ply as usize != v.history.len() {
            return None;
        }
        let mut idents: Vec<(Color, Rank)> = v.pieces.iter().zip(ranks).map(|(p, &r)| (p.color, r)).collect();
        let mut at: HashMap<Square, usize> = v.pieces.iter().enumerate().map(|(i, p)| (p.square, i)).collect();
        let mut bring_back = |at: &mut HashMap<Square, usize>, sq: Square, who: (Color, Rank)| -> Option<()> {
            idents.push(who);
            at.insert(sq, idents.len() - 1).is_none().then_some(())
        };
        for ply in v.history.iter().rev() {
            let (mv, c) = (ply.mv, ply.color);
            match ply.combat {
                None => {
                    let id = at.remove(&mv.to)?;
                    at.insert(mv.from, id).is_none().then_some(())?;
                }
                Some(f) => match f.result {
                    CombatResult::AttackerWins => {
                        let id = at.remove(&mv.to)?;
                        at.insert(mv.from, id).is_none().then_some(())?;
                        bring_back(&mut at, mv.to, (!c, f.defender))?;
                    }
                    CombatResult::DefenderWins => bring_back(&mut at, mv.from, (c, f.attacker))?,
                    CombatResult::BothRemoved => {
                        bring_back(&mut at, mv.from, (c, f.attacker))?;
                        bring_back(&mut at, mv.to, (!c, f.defender))?;
                    }
                },
            }
        }
        let setup = |color: Color| {
            let idents = &idents;
            Deployment::new(
                &self.rules,
                color,
                at.iter()
                    .map(|(&sq, &id)| (sq, idents[id]))
                    .filter(|(_, (c, _))| *c == color)
                    .map(|(sq, (_, r))| (sq, r)),
            )
            .ok()
        };
        let (red, blue) = (setup(Color::Red)?, setup(Color::Blue)?);
        let mut game = Game::new(self.rules.clone(), &red, &blue).ok()?;
        for ply in &v.history {
            if game.play(ply.mv).ok()? != *ply {
                return None;
            }
        }
        Some(game)
    }
}

/// Fisher-Yates with SplitMix64.
fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

/// A seed from `rng`: an int, or an object with `getrandbits` (a `random.Random`).
fn seed_of(rng: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(n) = rng.extract::<u64>() {
        return Ok(n);
    }
    if rng.hasattr("getrandbits")? {
        return rng.call_method1("getrandbits", (64,))?.extract();
    }
    Err(crate::errors::value_error(format!(
        "rng must be an int seed or a random.Random, not {}",
        crate::convert::type_name(rng)
    )))
}

#[pymethods]
impl PyView {
    /// The pool of the opponent's ranks the viewer has not seen: its army, less the pieces
    /// it lost and less its pieces on the board whose rank the viewer knows (revealed by a
    /// fight or a Scout's long move). `{"bomb": 6, "scout": 5, ...}`, strongest first.
    fn unseen<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        counts_dict(py, &self.unseen_counts())
    }

    /// One world that agrees with this view: the unseen ranks dealt at random to the
    /// opponent's pieces of unknown rank (uniformly among the deals that fit, under rules
    /// with exact counts, as every preset has; without them the Flag is always dealt, so
    /// the draw is close to uniform): a piece that
    /// has moved gets no Bomb or Flag, a rank already seen stays as it is. Returns a `Game`
    /// at this position with every rank known (for determinised search: play it, copy it).
    /// `rng` is an int seed or a `random.Random`. The game is both setups played through
    /// the view's history, so origins, the two-square and chasing rules' histories and
    /// the ply count are the real game's; for a view of a `from_position` game (whose
    /// history does not start at ply 0) it is built with `from_position` (origins are the
    /// present squares, repetition histories empty).
    fn sample_world(&self, rng: &Bound<'_, PyAny>) -> PyResult<PyGame> {
        let mut r = Rng::new(seed_of(rng)?);
        self.deal(&mut r).map(PyGame::wrap)
    }

    /// The board as the host's `replay --as <color>` draws it: the viewer's eyes (`b?` an
    /// opponent piece of unknown rank; Blue's view turned around), then the last ply, the
    /// losses, and who is to move or how the game ended.
    fn __str__(&self) -> String {
        let v = &self.view;
        let cells: Vec<crate::text::Cell> =
            v.pieces.iter().map(|p| crate::text::Cell { square: p.square, color: p.color, rank: p.rank }).collect();
        crate::text::frame(
            &self.rules,
            &cells,
            v.color == Color::Blue,
            v.ply,
            v.history.last(),
            v.to_move,
            &v.captured,
            v.outcome,
        )
    }

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
