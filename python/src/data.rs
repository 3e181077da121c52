//! Game records (`games.jsonl`, RECORDS.md) and Gravon (StraDoS2) XML games.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use stratego_protocol::record::GameRecord;
use stratego_rules::gravon::{GravonGame, GravonResult, Playthrough};
use stratego_rules::{Color, Deployment, Game, Ruleset};

use crate::convert::{color_str, move_obj};
use crate::errors::{GravonError, RecordError, value_error};
use crate::game::{PyGame, game_err};
use crate::ruleset::{PyDeployment, PyRuleset, deployment_err};
use crate::types::{PyOutcome, PyPly};

/// One game record: a line of `games.jsonl` (RECORDS.md), decoded by the protocol crate's
/// `GameRecord`.
#[pyclass(frozen, name = "Record", module = "stratego")]
pub struct PyRecord {
    record: GameRecord,
    rules: Arc<Ruleset>,
}

impl PyRecord {
    fn of(record: GameRecord) -> PyResult<PyRecord> {
        let rules = Ruleset::try_from(record.ruleset.clone())
            .map_err(|e| RecordError::new_err(format!("record {}: invalid ruleset: {e}", record.game_id)))?;
        Ok(PyRecord { record, rules: Arc::new(rules) })
    }
}

/// The records of a compact records file (`games.jsonl.zst`: one zstd frame per record,
/// RECORDS.md), read one frame at a time by the `stratego-records` crate. A torn last frame
/// (a host killed in its write) ends the iteration; [`PyCompactRecords::torn`] then says
/// where it was.
#[pyclass(unsendable, name = "CompactRecords", module = "stratego")]
pub struct PyCompactRecords {
    reader: stratego_records::RecordReader<std::fs::File>,
}

#[pymethods]
impl PyCompactRecords {
    /// Opens `path`, a compact records file. A frame that decompresses to more than
    /// `max_record_bytes` (default 64 MiB) raises `RecordError` without being held (a
    /// decompression bomb).
    #[new]
    #[pyo3(signature = (path, max_record_bytes = stratego_records::DEFAULT_MAX_RECORD_BYTES))]
    fn new(path: std::path::PathBuf, max_record_bytes: usize) -> PyResult<PyCompactRecords> {
        let err = |e: stratego_records::ReadError| RecordError::new_err(e.to_string());
        let reader = stratego_records::RecordReader::open(&path)
            .and_then(|r| r.with_max_record_bytes(max_record_bytes))
            .map_err(err)?;
        if reader.form() != stratego_records::Form::Compact {
            return Err(RecordError::new_err(format!("{}: not a compact records file", path.display())));
        }
        Ok(PyCompactRecords { reader })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self) -> PyResult<Option<PyRecord>> {
        match self.reader.next() {
            None => Ok(None),
            Some(Ok(record)) => PyRecord::of(record).map(Some),
            Some(Err(e)) => Err(RecordError::new_err(e.to_string())),
        }
    }

    /// Where the torn tail that ended the file starts (`"frame 7 (byte 30412)"`), once the
    /// iteration has ended; `None` when the file ends with a whole record.
    #[getter]
    fn torn(&self) -> Option<String> {
        self.reader.torn().map(|t| format!("{} ({} bytes)", t.position, t.bytes))
    }
}

#[pymethods]
impl PyRecord {
    /// Decodes one line of a records file.
    #[staticmethod]
    fn from_json(line: &str) -> PyResult<PyRecord> {
        let record: GameRecord =
            serde_json::from_str(line).map_err(|e| RecordError::new_err(format!("not a game record: {e}")))?;
        PyRecord::of(record)
    }

    /// The game's id.
    #[getter]
    fn game_id(&self) -> &str {
        &self.record.game_id
    }
    /// Position in the run's schedule.
    #[getter]
    fn index(&self) -> u32 {
        self.record.index
    }
    /// The colour-swapped pair it belongs to.
    #[getter]
    fn pair(&self) -> u32 {
        self.record.pair
    }
    /// This game's seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.record.seed
    }
    /// The run's master seed.
    #[getter]
    fn match_seed(&self) -> u64 {
        self.record.match_seed
    }
    /// The rules.
    #[getter]
    fn rules(&self) -> PyRuleset {
        PyRuleset::new(self.rules.clone())
    }
    /// The bots' names: `{"red": ..., "blue": ...}`.
    #[getter]
    fn bots<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("red", &self.record.bots.red.name)?;
        d.set_item("blue", &self.record.bots.blue.name)?;
        Ok(d)
    }
    /// Each bot's `info` lines in this game: `{"red": [...], "blue": [...]}`.
    #[getter]
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("red", &self.record.bots.red.info)?;
        d.set_item("blue", &self.record.bots.blue.info)?;
        Ok(d)
    }
    /// The setups in rows form: `{"red": str or None, "blue": ...}`.
    #[getter]
    fn deployments<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("red", self.record.deployments.red.as_deref())?;
        d.set_item("blue", self.record.deployments.blue.as_deref())?;
        Ok(d)
    }
    /// Every ply, with its fight.
    #[getter]
    fn plies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.record.plies.iter().map(|p| PyPly { ply: p.ply }))
    }
    /// Each ply's think time in microseconds.
    #[getter]
    fn times_us(&self) -> Vec<u64> {
        self.record.plies.iter().map(|p| p.time_us).collect()
    }
    /// The winning side, None for a draw.
    #[getter]
    fn winner<'py>(&self, py: Python<'py>) -> Option<&Bound<'py, PyString>> {
        self.record.result.winner.map(|c| color_str(py, c))
    }
    /// Why the game ended (`flag_captured`, `resignation`, `move_timeout`, ...).
    #[getter]
    fn reason(&self) -> &'static str {
        self.record.result.reason.code()
    }
    /// The result in words.
    #[getter]
    fn message(&self) -> &str {
        &self.record.result.message
    }
    /// The side that faulted, for forfeits.
    #[getter]
    fn faulty<'py>(&self, py: Python<'py>) -> Option<&Bound<'py, PyString>> {
        self.record.result.faulty.map(|c| color_str(py, c))
    }

    /// The game at its start (both setups; raises if a side gave no valid setup).
    fn start(&self) -> PyResult<PyGame> {
        let d = &self.record.deployments;
        let (Some(r), Some(b)) = (&d.red, &d.blue) else {
            return Err(RecordError::new_err(format!("record {}: a side has no setup", self.record.game_id)));
        };
        let red = Deployment::parse(&self.rules, Color::Red, r).map_err(deployment_err)?;
        let blue = Deployment::parse(&self.rules, Color::Blue, b).map_err(deployment_err)?;
        Ok(PyGame::wrap(Game::new(self.rules.clone(), &red, &blue).map_err(game_err)?))
    }

    /// Replays the record with the rules crate (every ply legal and with its recorded
    /// fight); returns the rules' outcome (None when the rules had not ended the game: a
    /// forfeit or resignation). Raises `RecordError` for what does not replay.
    fn replay(&self) -> PyResult<Option<PyOutcome>> {
        self.record
            .play_through()
            .map(|o| o.map(|outcome| PyOutcome { outcome }))
            .map_err(|e| RecordError::new_err(format!("record {}: {e}", self.record.game_id)))
    }

    /// The record as JSON.
    fn to_json(&self) -> String {
        serde_json::to_string(&self.record).expect("a record serialises")
    }

    fn __repr__(&self) -> String {
        format!("<Record {} {} plies, {}>", self.record.game_id, self.record.plies.len(), self.record.result.reason)
    }
}

/// One Gravon (StraDoS2) game: `GravonGame.parse(xml)`.
#[pyclass(frozen, name = "GravonGame", module = "stratego")]
pub struct PyGravonGame {
    game: GravonGame,
}

fn gravon_err(e: stratego_rules::gravon::GravonError) -> PyErr {
    GravonError::new_err(e.to_string())
}

#[pymethods]
impl PyGravonGame {
    /// Parses one game file's XML.
    #[staticmethod]
    fn parse(xml: &str) -> PyResult<PyGravonGame> {
        Ok(PyGravonGame { game: GravonGame::parse(xml).map_err(gravon_err)? })
    }

    /// A Gravon game from a played game (10x10 boards): `result` is `(type, winner)` as in
    /// the XML (`winner` 1 Red, 2 Blue, 3 draw).
    #[staticmethod]
    #[pyo3(signature = (game_type, game, result = None))]
    fn from_game(game_type: &str, game: PyRef<'_, PyGame>, result: Option<(u8, u8)>) -> PyGravonGame {
        let result = result.map(|(kind, winner)| GravonResult { kind, winner });
        PyGravonGame { game: GravonGame::from_game(game_type, &game.game, result) }
    }

    /// `classic`, `barrage`, `duell`, `classicfree` or `ultimate lightning`.
    #[getter]
    fn game_type(&self) -> &str {
        &self.game.game_type
    }
    /// The 100-character field string.
    #[getter]
    fn field(&self) -> &str {
        &self.game.field
    }
    /// The moves in order.
    #[getter]
    fn moves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.game.moves.iter().map(|&m| move_obj(py, m)).collect::<PyResult<Vec<_>>>()?)
    }
    /// The recorded result `(type, winner)`: type 0 the loser could not move, 1 flag
    /// captured, 2 neither could move, 3 resignation, 4 agreed draw, 10-14 absence or
    /// clock; winner 1 Red, 2 Blue, 3 draw.
    #[getter]
    fn result(&self) -> Option<(u8, u8)> {
        self.game.result.map(|r| (r.kind, r.winner))
    }
    /// The recorded winner: `"red"`, `"blue"`, or None (a draw or no result).
    #[getter]
    fn winner<'py>(&self, py: Python<'py>) -> Option<&Bound<'py, PyString>> {
        match self.game.result.map(|r| r.winner) {
            Some(1) => Some(color_str(py, Color::Red)),
            Some(2) => Some(color_str(py, Color::Blue)),
            _ => None,
        }
    }
    /// The ruleset of the game type (None for `ultimate lightning` and unknown types).
    fn ruleset(&self) -> Option<PyRuleset> {
        self.game.ruleset().map(|r| PyRuleset::new(Arc::new(r)))
    }
    /// The two setups of the field string, `(red, blue)`.
    fn deployments(&self) -> PyResult<(PyDeployment, PyDeployment)> {
        let rules = self.rules()?;
        let (r, b) = self.game.deployments(&rules).map_err(gravon_err)?;
        Ok((PyDeployment { deployment: r, rules: rules.clone() }, PyDeployment { deployment: b, rules }))
    }
    /// The game at its start, under its game type's ruleset.
    fn start(&self) -> PyResult<PyGame> {
        let rules = self.rules()?;
        let (r, b) = self.game.deployments(&rules).map_err(gravon_err)?;
        Ok(PyGame::wrap(Game::new(rules, &r, &b).map_err(game_err)?))
    }
    /// Replays the game under its ruleset (the rules crate's `gravon::Playthrough`).
    fn replay(&self) -> PyResult<PyGravonReplay> {
        Ok(PyGravonReplay { replay: Playthrough::run(&self.game).map_err(gravon_err)? })
    }
    /// The game as Gravon XML.
    fn to_xml(&self) -> String {
        self.game.to_xml()
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyGravonGame>().is_ok_and(|o| o.get().game == self.game)
    }
    fn __repr__(&self) -> String {
        format!("<GravonGame {} {} moves>", self.game.game_type, self.game.moves.len())
    }
}

impl PyGravonGame {
    fn rules(&self) -> PyResult<Arc<Ruleset>> {
        self.game
            .ruleset()
            .map(Arc::new)
            .ok_or_else(|| value_error(format!("no ruleset for Gravon game type {:?}", self.game.game_type)))
    }
}

/// `(ply, move, code, message)` of a replay's first illegal move.
type IllegalAt<'py> = (usize, Bound<'py, crate::types::PyMove>, &'static str, String);

/// How a Gravon game replayed.
#[pyclass(frozen, name = "GravonReplay", module = "stratego")]
pub struct PyGravonReplay {
    replay: Playthrough,
}

#[pymethods]
impl PyGravonReplay {
    /// Plies replayed without error.
    #[getter]
    fn plies(&self) -> usize {
        self.replay.plies
    }
    /// The first illegal move: `(ply, move, code, message)`, or None.
    #[getter]
    fn illegal<'py>(&self, py: Python<'py>) -> PyResult<Option<IllegalAt<'py>>> {
        self.replay.illegal.map(|(n, m, e)| Ok((n, move_obj(py, m)?, e.code(), e.to_string()))).transpose()
    }
    /// How the rules ended the game, if they did.
    #[getter]
    fn outcome(&self) -> Option<PyOutcome> {
        self.replay.outcome.map(|outcome| PyOutcome { outcome })
    }
    /// Whether the recorded result agrees with the replay.
    #[getter]
    fn agrees(&self) -> bool {
        self.replay.agrees
    }
    fn __repr__(&self) -> String {
        format!("<GravonReplay {} plies, agrees={}>", self.replay.plies, self.replay.agrees)
    }
}
