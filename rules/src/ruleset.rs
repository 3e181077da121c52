//! Rulesets: board geometry, armies and every rule setting, with the named presets.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{ByColor, Color, PieceCounts, Rank, Square};

/// Board cell value of a wall: a lake or a square off the board.
pub(crate) const WALL: u8 = 0xFF;

/// Everything that varies between Stratego editions, validated.
///
/// Build one from a preset ([`Ruleset::classic`], [`Ruleset::isf`], [`Ruleset::barrage`],
/// [`Ruleset::preset`]) or from JSON ([`Ruleset::from_json`]). A JSON ruleset lists any of
/// the fields of [`RulesetSpec`]; missing fields take the `classic` value, unknown fields are
/// an error.
///
/// Every ruleset, presets included, goes through the same checks (`TryFrom<RulesetSpec>`).
/// Besides the geometry, the army must hold exactly one Flag (RULES.md gives each side one;
/// with none no game could be won by capture) and at least one piece that moves. Every deployment, free setups (`exact_counts: false`) included, places
/// that Flag; see [`Deployment::new`](crate::Deployment::new).
///
/// ```
/// use stratego_rules::Ruleset;
/// let r = Ruleset::from_json(r#"{"name": "mini", "width": 6, "height": 6, "lakes": [],
///     "setup_ranks": {"red": [1, 2], "blue": [5, 6]},
///     "pieces": {"marshal": 1, "scout": 2, "miner": 1, "spy": 1, "flag": 1}}"#).unwrap();
/// assert_eq!(r.width(), 6);
/// let err = Ruleset::from_json(r#"{"lakes": ["k5"]}"#).unwrap_err();
/// assert_eq!(err.to_string(), "lakes: square k5 is outside the 10x10 board");
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RulesetSpec", into = "RulesetSpec")]
pub struct Ruleset {
    spec: RulesetSpec,
    /// Mailbox template: `WALL` for lakes and off-board cells, 0 elsewhere.
    cells: Box<[u8; 256]>,
    /// Setup area: bit 0 Red, bit 1 Blue.
    area: Box<[u8; 256]>,
    area_size: ByColor<u32>,
}

/// The plain, unvalidated form of a [`Ruleset`], as written in JSON files.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RulesetSpec {
    /// Name shown in records (`classic`, `isf`, `barrage`, or your own).
    pub name: String,
    /// Number of files, 2–15.
    pub width: u8,
    /// Number of ranks, 2–15.
    pub height: u8,
    /// Lake squares: no piece enters or crosses them.
    pub lakes: Vec<Square>,
    /// First and last rank (1-based, inclusive) of each side's setup area. The areas may
    /// overlap (free setups); two pieces on one square are then refused when the game starts.
    pub setup_ranks: ByColor<[u8; 2]>,
    /// Pieces per side.
    pub pieces: PieceCounts,
    /// When true a deployment places exactly `pieces`; when false, at most that many of
    /// each kind (free setups, at least one piece).
    pub exact_counts: bool,
    /// A piece may move back and forth between the same two squares at most this many
    /// times in a row (`null`: no limit).
    pub two_square_limit: Option<u8>,
    /// A Scout move that stays within the stretch of its previous shuttle counts as the
    /// same shuttle for the two-square rule.
    pub scout_path: bool,
    /// The more-squares (chasing) rule.
    pub more_squares: bool,
    /// A Scout may move several squares and attack in the same turn.
    pub scout_move_and_attack: bool,
    /// The game is drawn after this many plies (`null`: no limit).
    pub ply_limit: Option<u32>,
    /// Draw when neither side can ever capture the other's Flag.
    pub sealed_flags_draw: bool,
}

impl Default for RulesetSpec {
    fn default() -> RulesetSpec {
        RulesetSpec {
            name: "classic".to_owned(),
            width: 10,
            height: 10,
            lakes: ["c5", "d5", "c6", "d6", "g5", "h5", "g6", "h6"]
                .iter()
                .map(|s| s.parse().expect("valid lake name"))
                .collect(),
            setup_ranks: ByColor::new([1, 4], [7, 10]),
            pieces: PieceCounts::classic(),
            exact_counts: true,
            two_square_limit: Some(5),
            scout_path: false,
            more_squares: false,
            scout_move_and_attack: true,
            ply_limit: Some(2000),
            sealed_flags_draw: false,
        }
    }
}

/// Why a ruleset is invalid: the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesetError {
    /// A field holds a value that is out of range or inconsistent.
    #[error("{field}: {message}")]
    Field {
        /// The JSON field name.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The JSON does not parse or has an unknown field (with line and column).
    #[error("{0}")]
    Json(String),
    /// No preset has this name.
    #[error("unknown ruleset {0:?}: expected classic, isf, barrage, ucc2012 or a JSON file")]
    UnknownPreset(String),
}

fn field_err(field: &'static str, message: impl Into<String>) -> RulesetError {
    RulesetError::Field { field, message: message.into() }
}

/// Most pieces the board representation can hold for both sides together.
pub const MAX_PIECES: u32 = 254;

impl TryFrom<RulesetSpec> for Ruleset {
    type Error = RulesetError;

    fn try_from(spec: RulesetSpec) -> Result<Ruleset, RulesetError> {
        let (w, h) = (spec.width, spec.height);
        for (field, v) in [("width", w), ("height", h)] {
            if !(2..=crate::square::MAX_SIDE).contains(&v) {
                return Err(field_err(field, format!("{v} is outside the supported range 2 to 15")));
            }
        }
        let mut cells = Box::new([WALL; 256]);
        for rank in 0..h {
            for file in 0..w {
                cells[Square::new(file, rank).expect("within 15").index()] = 0;
            }
        }
        for &lake in &spec.lakes {
            if lake.file() >= w || lake.rank() >= h {
                return Err(field_err("lakes", format!("square {lake} is outside the {w}x{h} board")));
            }
            if cells[lake.index()] == WALL {
                return Err(field_err("lakes", format!("square {lake} is listed twice")));
            }
            cells[lake.index()] = WALL;
        }
        let mut area = Box::new([0u8; 256]);
        let mut area_size = ByColor::new(0, 0);
        for color in Color::ALL {
            let [lo, hi] = spec.setup_ranks[color];
            if lo < 1 || hi > h || lo > hi {
                return Err(field_err(
                    "setup_ranks",
                    format!("{color}'s ranks {lo} to {hi} are not a range within 1 to {h}"),
                ));
            }
            for rank in lo - 1..hi {
                for file in 0..w {
                    let sq = Square::new(file, rank).expect("within 15");
                    if cells[sq.index()] == WALL {
                        continue;
                    }
                    area[sq.index()] |= 1 << color.index();
                    area_size[color] += 1;
                }
            }
            // Even a free setup places its Flag, so an area of lakes only could hold no
            // deployment at all (and `Deployment::random` relies on there being a square).
            if area_size[color] == 0 {
                return Err(field_err(
                    "setup_ranks",
                    format!("{color}'s ranks {lo} to {hi} are all lakes; no piece can be placed"),
                ));
            }
        }
        let total = spec.pieces.total();
        if total == 0 {
            return Err(field_err("pieces", "the army is empty"));
        }
        // Without a Flag a side can never lose by capture, so every game would end on the ply
        // limit or by immobility; RULES.md gives each side exactly one Flag.
        match spec.pieces[Rank::Flag] {
            0 => {
                return Err(field_err(
                    "pieces",
                    "the army has no flag; it needs exactly one (without it no game can be won by capture)",
                ));
            }
            1 => {}
            n => return Err(field_err("pieces", format!("the army has {n} flags; it needs exactly one"))),
        }
        // An army of Bombs and a Flag can never make a move: the first player would lose at once.
        if spec.pieces.mobile() == 0 {
            return Err(field_err(
                "pieces",
                "the army has no movable piece; it needs at least one (bombs and flags never move)",
            ));
        }
        for color in Color::ALL {
            if spec.exact_counts && total > area_size[color] {
                return Err(field_err(
                    "pieces",
                    format!("{total} pieces do not fit in {color}'s setup area of {} squares", area_size[color]),
                ));
            }
        }
        if 2 * total > MAX_PIECES {
            return Err(field_err(
                "pieces",
                format!("{total} pieces a side is more than the {} the board can hold", MAX_PIECES / 2),
            ));
        }
        if spec.two_square_limit == Some(0) {
            return Err(field_err("two_square_limit", "must be at least 1, or null for no limit"));
        }
        if spec.ply_limit == Some(0) {
            return Err(field_err("ply_limit", "must be at least 1, or null for no limit"));
        }
        if spec.name.trim().is_empty() {
            return Err(field_err("name", "must not be empty"));
        }
        Ok(Ruleset { spec, cells, area, area_size })
    }
}

impl From<Ruleset> for RulesetSpec {
    fn from(r: Ruleset) -> RulesetSpec {
        r.spec
    }
}

impl Ruleset {
    /// The `classic` preset: 40 pieces, two-square limit 5, no chasing rule, 2000-ply limit.
    pub fn classic() -> Ruleset {
        Ruleset::try_from(RulesetSpec::default()).expect("the classic preset is valid")
    }

    /// The `isf` preset: classic army, two-square limit 3 with the Scout path, chasing rule.
    pub fn isf() -> Ruleset {
        Ruleset::try_from(RulesetSpec {
            name: "isf".to_owned(),
            two_square_limit: Some(3),
            scout_path: true,
            more_squares: true,
            ..RulesetSpec::default()
        })
        .expect("the isf preset is valid")
    }

    /// The `barrage` preset: 8 pieces, 1000-ply limit.
    pub fn barrage() -> Ruleset {
        Ruleset::try_from(RulesetSpec {
            name: "barrage".to_owned(),
            pieces: PieceCounts::barrage(),
            ply_limit: Some(1000),
            ..RulesetSpec::default()
        })
        .expect("the barrage preset is valid")
    }

    /// The `ucc2012` preset: the rules of the UCC Programming Competition 2012 referee, the
    /// classic game with no two-square limit (that referee had no repetition rule at all)
    /// and its 1000 turns of two moves, 2000 plies. Its other rules are the classic ones
    /// here: Scouts move and attack in one turn, the Spy beats the Marshal only when it
    /// attacks, only Miners defuse Bombs, equal ranks both fall. Where the 2012 referee
    /// differed (a side whose pieces are all Bombs and Flag loses before it is asked to
    /// move; a side whose movable pieces are all blocked had to answer with an illegal
    /// move), the result is the same: that side loses.
    pub fn ucc2012() -> Ruleset {
        Ruleset::try_from(RulesetSpec { name: "ucc2012".to_owned(), two_square_limit: None, ..RulesetSpec::default() })
            .expect("the ucc2012 preset is valid")
    }

    /// The preset with this name (`classic`, `isf`, `barrage`, `ucc2012`).
    ///
    /// # Errors
    /// [`RulesetError::UnknownPreset`] for any other name.
    pub fn preset(name: &str) -> Result<Ruleset, RulesetError> {
        match name {
            "classic" => Ok(Ruleset::classic()),
            "isf" => Ok(Ruleset::isf()),
            "barrage" => Ok(Ruleset::barrage()),
            "ucc2012" => Ok(Ruleset::ucc2012()),
            _ => Err(RulesetError::UnknownPreset(name.to_owned())),
        }
    }

    /// Parses and validates a JSON ruleset.
    ///
    /// # Errors
    /// [`RulesetError::Json`] (with line and column) for bad JSON or unknown fields,
    /// [`RulesetError::Field`] naming the first invalid field.
    pub fn from_json(text: &str) -> Result<Ruleset, RulesetError> {
        let spec: RulesetSpec = serde_json::from_str(text).map_err(|e| RulesetError::Json(e.to_string()))?;
        Ruleset::try_from(spec)
    }

    /// The settings as plain data.
    pub fn spec(&self) -> &RulesetSpec {
        &self.spec
    }
    /// The ruleset's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }
    /// Number of files.
    pub fn width(&self) -> u8 {
        self.spec.width
    }
    /// Number of ranks.
    pub fn height(&self) -> u8 {
        self.spec.height
    }
    /// Pieces per side.
    pub fn pieces(&self) -> &PieceCounts {
        &self.spec.pieces
    }
    /// Whether deployments must place exactly [`Ruleset::pieces`].
    pub fn exact_counts(&self) -> bool {
        self.spec.exact_counts
    }
    /// The two-square limit, if any.
    pub fn two_square_limit(&self) -> Option<u8> {
        self.spec.two_square_limit
    }
    /// Whether Scout shuttles count by stretch of line (ISF).
    pub fn scout_path(&self) -> bool {
        self.spec.scout_path
    }
    /// Whether the more-squares (chasing) rule applies.
    pub fn more_squares(&self) -> bool {
        self.spec.more_squares
    }
    /// Whether a Scout may move several squares and attack in one turn.
    pub fn scout_move_and_attack(&self) -> bool {
        self.spec.scout_move_and_attack
    }
    /// The ply limit, if any.
    pub fn ply_limit(&self) -> Option<u32> {
        self.spec.ply_limit
    }
    /// Whether sealed flags end the game in a draw.
    pub fn sealed_flags_draw(&self) -> bool {
        self.spec.sealed_flags_draw
    }

    /// Whether the square is on the board (lakes included).
    pub fn on_board(&self, sq: Square) -> bool {
        sq.file() < self.spec.width && sq.rank() < self.spec.height
    }

    /// Whether the square is a lake.
    pub fn is_lake(&self, sq: Square) -> bool {
        self.on_board(sq) && self.cells[sq.index()] == WALL
    }

    /// Whether `color` may deploy on the square.
    pub fn in_setup_area(&self, color: Color, sq: Square) -> bool {
        self.area[sq.index()] & (1 << color.index()) != 0
    }

    /// Number of squares in `color`'s setup area.
    pub fn setup_area_size(&self, color: Color) -> u32 {
        self.area_size[color]
    }

    /// The squares of `color`'s setup area, rank by rank from rank 1, file `a` first.
    pub fn setup_squares(&self, color: Color) -> impl Iterator<Item = Square> + '_ {
        (0..=255u8).filter_map(Square::from_index).filter(move |&sq| self.in_setup_area(color, sq))
    }

    /// Every playable square (not a lake), rank by rank.
    pub fn squares(&self) -> impl Iterator<Item = Square> + '_ {
        (0..=255u8).filter_map(Square::from_index).filter(move |&sq| self.cells[sq.index()] != WALL)
    }

    pub(crate) fn cells(&self) -> &[u8; 256] {
        &self.cells
    }
}

impl Default for Ruleset {
    fn default() -> Ruleset {
        Ruleset::classic()
    }
}

impl fmt::Debug for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.spec.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_the_rule_book_table() {
        let c = Ruleset::classic();
        assert_eq!(
            (c.pieces().total(), c.two_square_limit(), c.scout_path(), c.more_squares()),
            (40, Some(5), false, false)
        );
        assert_eq!((c.scout_move_and_attack(), c.ply_limit(), c.sealed_flags_draw()), (true, Some(2000), false));
        let i = Ruleset::isf();
        assert_eq!(
            (i.pieces().total(), i.two_square_limit(), i.scout_path(), i.more_squares()),
            (40, Some(3), true, true)
        );
        assert_eq!((i.scout_move_and_attack(), i.ply_limit(), i.sealed_flags_draw()), (true, Some(2000), false));
        let b = Ruleset::barrage();
        assert_eq!(
            (b.pieces().total(), b.two_square_limit(), b.scout_path(), b.more_squares()),
            (8, Some(5), false, false)
        );
        assert_eq!((b.scout_move_and_attack(), b.ply_limit(), b.sealed_flags_draw()), (true, Some(1000), false));
        for (r, n) in [
            (Rank::Marshal, 1),
            (Rank::General, 1),
            (Rank::Miner, 1),
            (Rank::Scout, 2),
            (Rank::Spy, 1),
            (Rank::Bomb, 1),
            (Rank::Flag, 1),
        ] {
            assert_eq!(b.pieces()[r], n, "{r}");
        }
        let u = Ruleset::ucc2012();
        assert_eq!(
            (u.pieces().total(), u.two_square_limit(), u.scout_path(), u.more_squares()),
            (40, None, false, false)
        );
        assert_eq!((u.scout_move_and_attack(), u.ply_limit(), u.sealed_flags_draw()), (true, Some(2000), false));
        assert_eq!(Ruleset::preset("ucc2012").unwrap(), u);
        assert_eq!(c.setup_area_size(Color::Red), 40);
        assert!(
            c.is_lake("c5".parse().unwrap()) && c.is_lake("h6".parse().unwrap()) && !c.is_lake("e5".parse().unwrap())
        );
    }

    #[test]
    fn json_round_trips() {
        for r in [Ruleset::classic(), Ruleset::isf(), Ruleset::barrage(), Ruleset::ucc2012()] {
            let text = serde_json::to_string(&r).unwrap();
            assert_eq!(Ruleset::from_json(&text).unwrap(), r);
        }
    }

    #[test]
    fn every_invalid_field_is_named() {
        let cases = [
            (r#"{"width": 16}"#, "width: 16 is outside the supported range 2 to 15"),
            (r#"{"lakes": ["k5"]}"#, "lakes: square k5 is outside the 10x10 board"),
            (r#"{"lakes": ["c5", "c5"]}"#, "lakes: square c5 is listed twice"),
            (
                r#"{"pieces": {"scout": 50, "flag": 1}}"#,
                "pieces: 51 pieces do not fit in Red's setup area of 40 squares",
            ),
            (
                r#"{"pieces": {"bomb": 3, "flag": 1}}"#,
                "pieces: the army has no movable piece; it needs at least one (bombs and flags never move)",
            ),
            (r#"{"pieces": {"scout": 3, "flag": 2}}"#, "pieces: the army has 2 flags; it needs exactly one"),
            (
                r#"{"width": 2, "height": 2, "lakes": ["a1", "b1"], "setup_ranks": {"red": [1, 1], "blue": [2, 2]}}"#,
                "setup_ranks: Red's ranks 1 to 1 are all lakes; no piece can be placed",
            ),
            (r#"{"pieces": {}}"#, "pieces: the army is empty"),
            (
                r#"{"setup_ranks": {"red": [0, 4], "blue": [7, 10]}}"#,
                "setup_ranks: Red's ranks 0 to 4 are not a range within 1 to 10",
            ),
            (r#"{"two_square_limit": 0}"#, "two_square_limit: must be at least 1, or null for no limit"),
            (r#"{"ply_limit": 0}"#, "ply_limit: must be at least 1, or null for no limit"),
        ];
        for (json, want) in cases {
            assert_eq!(Ruleset::from_json(json).unwrap_err().to_string(), want, "{json}");
        }
        let unknown = Ruleset::from_json("{\n  \"widht\": 8\n}").unwrap_err().to_string();
        assert!(unknown.contains("unknown field `widht`") && unknown.contains("line 2"), "{unknown}");
        let bad_piece = Ruleset::from_json(r#"{"pieces": {"knight": 1}}"#).unwrap_err().to_string();
        assert!(bad_piece.contains("unknown piece \"knight\""), "{bad_piece}");
        assert!(Ruleset::from_json(r#"{"lakes": ["z9"]}"#).unwrap_err().to_string().contains("\"z9\""));
    }
}
