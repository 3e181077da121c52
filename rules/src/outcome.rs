//! How a game ended.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Color;

/// Why a game ended by the rules. Forfeits and resignations are the host's business and
/// have their own codes in the protocol; these are the endings the referee itself decides.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The winner captured the loser's Flag.
    FlagCaptured,
    /// The loser had no legal move (no movable piece, all blocked, or only moves the
    /// repetition rules forbid).
    NoLegalMoves,
    /// Neither side had a legal move: a draw.
    NeitherCanMove,
    /// The ruleset's ply limit was reached: a draw.
    PlyLimit,
    /// Neither side can ever capture the other's Flag (`sealed_flags_draw`): a draw.
    SealedFlags,
}

impl EndReason {
    /// The wire code (`"flag_captured"`, …).
    pub const fn code(self) -> &'static str {
        match self {
            EndReason::FlagCaptured => "flag_captured",
            EndReason::NoLegalMoves => "no_legal_moves",
            EndReason::NeitherCanMove => "neither_can_move",
            EndReason::PlyLimit => "ply_limit",
            EndReason::SealedFlags => "sealed_flags",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The end of a game: the winner (`None` for a draw) and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    /// The winning side, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(c) => write!(f, "{c} wins ({})", self.reason),
            None => write!(f, "draw ({})", self.reason),
        }
    }
}
