//! Moves, combat results and plies.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Color, Rank, Square};

/// A move as from/to squares, in text `e4-e5`. Unchecked: it becomes a legal move of a
/// game only through [`Game::check_move`](crate::Game::check_move) or
/// [`Game::play`](crate::Game::play).
///
/// ```
/// use stratego_rules::Move;
/// let m: Move = "b4-b5".parse().unwrap();
/// assert_eq!(m.to_string(), "b4-b5");
/// assert!("b4b5".parse::<Move>().is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    /// Square the piece leaves.
    pub from: Square,
    /// Square the piece moves to or attacks.
    pub to: Square,
}

impl Move {
    /// A move from `from` to `to`.
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
}

/// Error for move text that does not parse; quotes the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid move {0:?}: expected two square names joined by '-', like \"e4-e5\"")]
pub struct ParseMoveError(pub String);

impl FromStr for Move {
    type Err = ParseMoveError;
    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let err = || ParseMoveError(s.to_owned());
        let (a, b) = s.split_once('-').ok_or_else(err)?;
        Ok(Move { from: a.parse().map_err(|_| err())?, to: b.parse().map_err(|_| err())? })
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.to)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for Move {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (mut a, mut b) = ([0; 3], [0; 3]);
        let (from, to) = (self.from.write_name(&mut a), self.to.write_name(&mut b));
        let mut buf = [0u8; 7];
        buf[..from.len()].copy_from_slice(from.as_bytes());
        buf[from.len()] = b'-';
        buf[from.len() + 1..from.len() + 1 + to.len()].copy_from_slice(to.as_bytes());
        s.serialize_str(std::str::from_utf8(&buf[..from.len() + 1 + to.len()]).expect("ASCII"))
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Move, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Who survived a fight.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CombatResult {
    /// The attacker removed the defender and moved in.
    AttackerWins,
    /// The attacker was removed; the defender stays.
    DefenderWins,
    /// Equal ranks: both removed.
    BothRemoved,
}

/// A fight: both ranks are revealed to both players.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Combat {
    /// The attacking piece.
    pub attacker: Rank,
    /// The attacked piece.
    pub defender: Rank,
    /// Who survived.
    pub result: CombatResult,
}

impl Combat {
    /// Resolves a fight by the rule book: higher strength wins, equal ranks both die, the
    /// Spy wins only when it attacks the Marshal, only a Miner survives a Bomb, and the
    /// Flag always falls.
    ///
    /// ```
    /// use stratego_rules::{Combat, CombatResult, Rank};
    /// assert_eq!(Combat::resolve(Rank::Spy, Rank::Marshal).result, CombatResult::AttackerWins);
    /// assert_eq!(Combat::resolve(Rank::Marshal, Rank::Spy).result, CombatResult::AttackerWins);
    /// assert_eq!(Combat::resolve(Rank::Major, Rank::Bomb).result, CombatResult::DefenderWins);
    /// ```
    pub fn resolve(attacker: Rank, defender: Rank) -> Combat {
        let result = match (attacker, defender) {
            (_, Rank::Flag) => CombatResult::AttackerWins,
            (Rank::Miner, Rank::Bomb) => CombatResult::AttackerWins,
            (_, Rank::Bomb) => CombatResult::DefenderWins,
            (Rank::Spy, Rank::Marshal) => CombatResult::AttackerWins,
            (a, d) if a == d => CombatResult::BothRemoved,
            (a, d) if a.strength() > d.strength() => CombatResult::AttackerWins,
            _ => CombatResult::DefenderWins,
        };
        Combat { attacker, defender, result }
    }

    /// Whether this fight captured a Flag.
    pub fn flag_captured(&self) -> bool {
        self.defender == Rank::Flag
    }
}

/// One ply as it happened: who moved, from where to where, and any fight.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Ply {
    /// The side that moved.
    pub color: Color,
    /// The move.
    #[serde(rename = "move")]
    pub mv: Move,
    /// The fight, when the move was an attack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub combat: Option<Combat>,
}
