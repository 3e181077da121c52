//! Rulesets and deployments.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use stratego_protocol::Rng;
use stratego_rules::{Color, Deployment, Rank, Ruleset, RulesetSpec, Square};

use crate::convert::{color_str, counts_dict, parse_color, parse_rank, parse_square, rank_str, square_str};
use crate::errors::{DeploymentError, RulesetError, value_error};

/// Every rule setting: board, lakes, setup areas, armies, repetition rules, limits.
///
/// Build one with `Ruleset.preset("classic")` (or `isf`, `barrage`, `ucc2012`),
/// `Ruleset.from_json(text)`, `Ruleset.from_file(path)` or `Ruleset.from_dict(d)`; a JSON
/// ruleset lists any of the fields, the rest take their `classic` value.
#[pyclass(frozen, name = "Ruleset", module = "stratego")]
pub struct PyRuleset {
    pub rules: Arc<Ruleset>,
}

fn rules_err(e: stratego_rules::RulesetError) -> PyErr {
    RulesetError::new_err(e.to_string())
}

/// Serialises a value that always has a JSON form.
fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("rules values serialise")
}

/// `json.loads(text)`.
pub fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

impl PyRuleset {
    /// Wraps a ruleset.
    pub fn new(rules: Arc<Ruleset>) -> PyRuleset {
        PyRuleset { rules }
    }

    /// Validates a spec (from a message or a record).
    pub fn from_spec(spec: RulesetSpec) -> PyResult<PyRuleset> {
        Ok(PyRuleset::new(Arc::new(Ruleset::try_from(spec).map_err(rules_err)?)))
    }
}

/// The ruleset of an argument that is a `Ruleset` or a preset name.
pub fn extract_rules(obj: &Bound<'_, PyAny>) -> PyResult<Arc<Ruleset>> {
    if let Ok(r) = obj.cast::<PyRuleset>() {
        return Ok(r.get().rules.clone());
    }
    if let Ok(name) = obj.extract::<String>() {
        return Ok(Arc::new(Ruleset::preset(&name).map_err(rules_err)?));
    }
    Err(value_error("expected a Ruleset or a preset name (classic, isf, barrage, ucc2012)"))
}

#[pymethods]
impl PyRuleset {
    /// `Ruleset("classic")`: the same as `Ruleset.preset(name)`.
    #[new]
    #[pyo3(signature = (name = "classic"))]
    fn py_new(name: &str) -> PyResult<PyRuleset> {
        Self::preset(name)
    }

    /// A preset: `classic`, `isf`, `barrage` or `ucc2012`.
    #[staticmethod]
    fn preset(name: &str) -> PyResult<PyRuleset> {
        Ok(PyRuleset::new(Arc::new(Ruleset::preset(name).map_err(rules_err)?)))
    }

    /// Parses and validates a JSON ruleset (errors name the field).
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<PyRuleset> {
        Ok(PyRuleset::new(Arc::new(Ruleset::from_json(text).map_err(rules_err)?)))
    }

    /// Reads a JSON rules file (the form of `--rules FILE`).
    #[staticmethod]
    fn from_file(path: std::path::PathBuf) -> PyResult<PyRuleset> {
        let text =
            std::fs::read_to_string(&path).map_err(|e| RulesetError::new_err(format!("{}: {e}", path.display())))?;
        Ruleset::from_json(&text)
            .map(|r| PyRuleset::new(Arc::new(r)))
            .map_err(|e| RulesetError::new_err(format!("{}: {e}", path.display())))
    }

    /// A ruleset from a dict of fields (a `hello`'s `ruleset` object, say).
    #[staticmethod]
    fn from_dict(py: Python<'_>, d: &Bound<'_, PyAny>) -> PyResult<PyRuleset> {
        let text: String = py.import("json")?.call_method1("dumps", (d,))?.extract()?;
        Self::from_json(&text)
    }

    /// Every field, as JSON (a valid rules file).
    fn to_json(&self) -> String {
        to_json(self.rules.spec())
    }

    /// Every field, as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.to_json())
    }

    /// The name shown in records.
    #[getter]
    fn name(&self) -> &str {
        self.rules.name()
    }
    /// Number of files.
    #[getter]
    fn width(&self) -> u8 {
        self.rules.width()
    }
    /// Number of ranks.
    #[getter]
    fn height(&self) -> u8 {
        self.rules.height()
    }
    /// The lake squares.
    #[getter]
    fn lakes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.rules.spec().lakes.iter().map(|&s| square_str(py, s)))
    }
    /// `{"red": (first, last), "blue": (first, last)}`: each side's setup ranks, 1-based.
    #[getter]
    fn setup_ranks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for c in Color::ALL {
            let [lo, hi] = self.rules.spec().setup_ranks[c];
            d.set_item(color_str(py, c), (lo, hi))?;
        }
        Ok(d)
    }
    /// Pieces per side, `{"marshal": 1, ...}`.
    #[getter]
    fn pieces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        counts_dict(py, self.rules.pieces())
    }
    /// Whether a setup places exactly `pieces` (else at most, with its Flag).
    #[getter]
    fn exact_counts(&self) -> bool {
        self.rules.exact_counts()
    }
    /// The two-square limit, or `None`.
    #[getter]
    fn two_square_limit(&self) -> Option<u8> {
        self.rules.two_square_limit()
    }
    /// Whether Scout shuttles count by stretch of line (ISF).
    #[getter]
    fn scout_path(&self) -> bool {
        self.rules.scout_path()
    }
    /// Whether the more-squares (chasing) rule applies.
    #[getter]
    fn more_squares(&self) -> bool {
        self.rules.more_squares()
    }
    /// Whether a Scout may move several squares and attack in one turn.
    #[getter]
    fn scout_move_and_attack(&self) -> bool {
        self.rules.scout_move_and_attack()
    }
    /// The ply limit, or `None`.
    #[getter]
    fn ply_limit(&self) -> Option<u32> {
        self.rules.ply_limit()
    }
    /// Whether sealed Flags end the game in a draw.
    #[getter]
    fn sealed_flags_draw(&self) -> bool {
        self.rules.sealed_flags_draw()
    }

    /// Whether the square is on the board (lakes included).
    fn on_board(&self, square: &str) -> PyResult<bool> {
        Ok(self.rules.on_board(parse_square(square)?))
    }
    /// Whether the square is a lake.
    fn is_lake(&self, square: &str) -> PyResult<bool> {
        Ok(self.rules.is_lake(parse_square(square)?))
    }
    /// Whether `color` may deploy on the square.
    fn in_setup_area(&self, color: &str, square: &str) -> PyResult<bool> {
        Ok(self.rules.in_setup_area(parse_color(color)?, parse_square(square)?))
    }
    /// The squares of `color`'s setup area, rank by rank from rank 1, file `a` first.
    fn setup_squares<'py>(&self, py: Python<'py>, color: &str) -> PyResult<Bound<'py, PyList>> {
        let c = parse_color(color)?;
        PyList::new(py, self.rules.setup_squares(c).map(|s| square_str(py, s)))
    }
    /// Every playable square (lakes left out), rank by rank.
    fn squares<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.rules.squares().map(|s| square_str(py, s)))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyRuleset>().is_ok_and(|o| *o.get().rules == *self.rules)
    }

    fn __repr__(&self) -> String {
        format!("Ruleset({})", to_json(self.rules.spec()))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let f = py.get_type::<PyRuleset>().getattr("from_json")?;
        Ok((f, PyTuple::new(py, [self.to_json()])?))
    }
}

/// One side's validated setup.
///
/// `Deployment.parse(rules, color, text)` reads either text form: rows of the setup area
/// from the top rank down (`"B32222222S/6655554444/BX98877766/FB3B333B2B"`) or pairs
/// (`"a1=F b1=B ..."`).
#[pyclass(frozen, name = "Deployment", module = "stratego")]
pub struct PyDeployment {
    pub deployment: Deployment,
    pub rules: Arc<Ruleset>,
}

pub fn deployment_err(e: stratego_rules::DeploymentError) -> PyErr {
    DeploymentError::new_err(e.to_string())
}

/// Placements from a dict `{square: rank}` or an iterable of `(square, rank)` pairs.
fn extract_placements(obj: &Bound<'_, PyAny>) -> PyResult<Vec<(Square, Rank)>> {
    let mut out = Vec::new();
    if let Ok(d) = obj.cast::<PyDict>() {
        for (k, v) in d.iter() {
            out.push((parse_square(&k.extract::<String>()?)?, parse_rank(&v.extract::<String>()?)?));
        }
        return Ok(out);
    }
    for item in obj.try_iter()? {
        let (sq, r): (String, String) = item?.extract()?;
        out.push((parse_square(&sq)?, parse_rank(&r)?));
    }
    Ok(out)
}

#[pymethods]
impl PyDeployment {
    /// Validates placements: a dict `{square: rank}` or `(square, rank)` pairs (ranks by
    /// name or code).
    #[new]
    fn py_new(rules: &Bound<'_, PyAny>, color: &str, pieces: &Bound<'_, PyAny>) -> PyResult<PyDeployment> {
        let rules = extract_rules(rules)?;
        let deployment =
            Deployment::new(&rules, parse_color(color)?, extract_placements(pieces)?).map_err(deployment_err)?;
        Ok(PyDeployment { deployment, rules })
    }

    /// Parses either text form and validates it.
    #[staticmethod]
    fn parse(rules: &Bound<'_, PyAny>, color: &str, text: &str) -> PyResult<PyDeployment> {
        let rules = extract_rules(rules)?;
        let deployment = Deployment::parse(&rules, parse_color(color)?, text).map_err(deployment_err)?;
        Ok(PyDeployment { deployment, rules })
    }

    /// A uniformly random setup of the ruleset's army, drawn from SplitMix64 seeded with
    /// `seed` (the same seed gives the same setup).
    #[staticmethod]
    #[pyo3(signature = (rules, color, seed = 0))]
    fn random(rules: &Bound<'_, PyAny>, color: &str, seed: u64) -> PyResult<PyDeployment> {
        let rules = extract_rules(rules)?;
        let mut rng = Rng::new(seed);
        let deployment = Deployment::random(&rules, parse_color(color)?, &mut || rng.next_u64());
        Ok(PyDeployment { deployment, rules })
    }

    /// The side deploying.
    #[getter]
    fn color<'py>(&self, py: Python<'py>) -> &Bound<'py, PyString> {
        color_str(py, self.deployment.color())
    }

    /// The ruleset it was validated under.
    #[getter]
    fn rules(&self) -> PyRuleset {
        PyRuleset::new(self.rules.clone())
    }

    /// `(square, rank)` for every piece, by square.
    #[getter]
    fn pieces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.deployment
                .pieces()
                .iter()
                .map(|&(s, r)| PyTuple::new(py, [square_str(py, s).into_any(), rank_str(py, r).clone().into_any()]))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    /// `{square: rank}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for &(s, r) in self.deployment.pieces() {
            d.set_item(square_str(py, s), rank_str(py, r))?;
        }
        Ok(d)
    }

    /// The rank placed on `square`, if any.
    fn rank_at<'py>(&self, py: Python<'py>, square: &str) -> PyResult<Option<&Bound<'py, PyString>>> {
        Ok(self.deployment.rank_at(parse_square(square)?).map(|r| rank_str(py, r)))
    }

    /// The rows form (top rank first, `.` empty, `~` lake).
    fn to_rows(&self) -> String {
        self.deployment.to_rows(&self.rules)
    }

    /// The pairs form (`a1=F b1=B ...`).
    fn to_pairs(&self) -> String {
        self.deployment.to_pairs()
    }

    fn __len__(&self) -> usize {
        self.deployment.pieces().len()
    }

    fn __str__(&self) -> String {
        self.to_rows()
    }

    fn __repr__(&self) -> String {
        format!("Deployment('{}', '{}')", self.deployment.color().name(), self.to_rows())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyDeployment>().is_ok_and(|o| o.get().deployment == self.deployment)
    }
}

/// A deployment argument: a `Deployment`, or text parsed for `color`.
pub fn extract_deployment(rules: &Arc<Ruleset>, color: Color, obj: &Bound<'_, PyAny>) -> PyResult<Deployment> {
    if let Ok(d) = obj.cast::<PyDeployment>() {
        return Ok(d.get().deployment.clone());
    }
    let text: String = obj.extract().map_err(|_| value_error("expected a Deployment or a setup text"))?;
    Deployment::parse(rules, color, &text).map_err(deployment_err)
}
