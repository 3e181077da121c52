//! Adjudication (issue #44, item 11), as cutechess-cli and fastchess adjudicate chess
//! games: a long game between weak bots is ended by the host once its result is plain.
//!
//! - `--draw-after-no-capture N`: a draw when no piece has been captured for N plies in a
//!   row (a ply with a fight is a capture: every fight removes a piece). Reason
//!   `adjudicated_no_capture`.
//! - `--adjudicate-material N`: a win for the side whose material lead has held for N plies
//!   in a row. Material is the number of a side's movable pieces on the board (every piece
//!   but the Flag and the Bombs, which can neither attack nor flee); a side leads when it
//!   has more of them than the other. The lead is counted after each ply, and a ply after
//!   which the other side leads, or neither does, starts the count again. Reason
//!   `adjudicated_material`.
//!
//! Both are off by default, both are part of the plan (a resumed run must use the same
//! values), and both are checked after each ply, after the rules: a game the rules end on
//! that ply ends by the rules. When both would end a game on the same ply, the material
//! rule decides. Pure: no I/O.

use crate::reason::Reason;
use serde::{Deserialize, Serialize};
use stratego_rules::{Color, Game, Ply};

/// The adjudication rules of an event; `None` turns a rule off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// Draw after this many plies in a row without a capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_after_no_capture: Option<u32>,
    /// A win for a material lead held this many plies in a row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material_plies: Option<u32>,
}

impl Adjudication {
    /// Whether no rule is on (the plan then leaves it out, so a plan without adjudication
    /// has the hash it had before adjudication existed).
    pub fn is_off(&self) -> bool {
        self.draw_after_no_capture.is_none() && self.material_plies.is_none()
    }
}

/// A game ended by adjudication: the winner (none: a draw), the reason and its message,
/// which names the rule and its numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adjudged {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// `adjudicated_no_capture` or `adjudicated_material`.
    pub reason: Reason,
    /// For people: the rule, its numbers and the material.
    pub message: String,
}

/// Follows one game ply by ply.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    rules: Adjudication,
    since_capture: u32,
    leader: Option<Color>,
    lead_plies: u32,
}

impl Adjudicator {
    /// A new game's adjudicator.
    pub fn new(rules: Adjudication) -> Adjudicator {
        Adjudicator { rules, since_capture: 0, leader: None, lead_plies: 0 }
    }

    /// After `ply` was played in `game` (and the rules did not end it): the adjudication,
    /// when one of the rules now ends the game.
    pub fn after_ply(&mut self, game: &Game, ply: &Ply) -> Option<Adjudged> {
        if self.rules.is_off() {
            return None;
        }
        self.since_capture = if ply.combat.is_some() { 0 } else { self.since_capture + 1 };
        let material = material(game);
        let leader = match material.0.cmp(&material.1) {
            std::cmp::Ordering::Greater => Some(Color::Red),
            std::cmp::Ordering::Less => Some(Color::Blue),
            std::cmp::Ordering::Equal => None,
        };
        self.lead_plies = if leader.is_some() && leader == self.leader { self.lead_plies + 1 } else { 1 };
        self.leader = leader;
        if let (Some(n), Some(w)) = (self.rules.material_plies, leader) {
            if self.lead_plies >= n {
                return Some(Adjudged {
                    winner: Some(w),
                    reason: Reason::AdjudicatedMaterial,
                    message: format!(
                        "{w} wins by adjudication (--adjudicate-material {n}): it had more movable pieces for {n} plies in a row ({} to {} at ply {})",
                        if w == Color::Red { material.0 } else { material.1 },
                        if w == Color::Red { material.1 } else { material.0 },
                        game.ply_count()
                    ),
                });
            }
        }
        if let Some(n) = self.rules.draw_after_no_capture {
            if self.since_capture >= n {
                return Some(Adjudged {
                    winner: None,
                    reason: Reason::AdjudicatedNoCapture,
                    message: format!(
                        "draw by adjudication (--draw-after-no-capture {n}): no piece was captured in the last {n} plies (ply {})",
                        game.ply_count()
                    ),
                });
            }
        }
        None
    }
}

/// The record's result of an adjudicated game.
pub fn result(a: Adjudged) -> crate::record::RecordResult {
    crate::record::RecordResult { winner: a.winner, reason: a.reason, message: a.message, faulty: None }
}

/// Red's and Blue's material: their movable pieces on the board.
pub fn material(game: &Game) -> (u32, u32) {
    game.board_pieces().filter(|(_, _, rank)| rank.is_mobile()).fold((0, 0), |(r, b), (_, color, _)| match color {
        Color::Red => (r + 1, b),
        Color::Blue => (r, b + 1),
    })
}
