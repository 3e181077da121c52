//! Why a game ended: the rule endings of the rules crate plus the host's own.

use std::fmt;

use serde::{Deserialize, Serialize};
use stratego_rules::EndReason;

/// Every way a game can end, as the code written in records and sent in `game_over`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Rules: the Flag was captured.
    FlagCaptured,
    /// Rules: the loser had no legal move.
    NoLegalMoves,
    /// Rules: neither side could move (draw).
    NeitherCanMove,
    /// Rules: ply limit (draw).
    PlyLimit,
    /// Rules: both Flags sealed (draw).
    SealedFlags,
    /// The loser resigned.
    Resignation,
    /// No `ready` within the startup time.
    StartupTimeout,
    /// No `setup` within the setup time.
    SetupTimeout,
    /// No move within the time for the move.
    MoveTimeout,
    /// The move was not legal.
    IllegalMove,
    /// The setup was not valid.
    InvalidSetup,
    /// A line that is not JSON.
    MalformedJson,
    /// A known message type with missing or wrong fields.
    MalformedMessage,
    /// A line longer than the limit.
    LineTooLong,
    /// A line that is not UTF-8.
    InvalidUtf8,
    /// A message of an unknown type, or of a type not expected at this point.
    UnexpectedMessage,
    /// The process exited or was killed by a signal.
    Crash,
    /// The process closed its standard output but kept running.
    ClosedOutput,
    /// Both bots faulted before the game could start (a draw; see the message).
    BothFaulted,
    /// The process ran out of its memory limit (`--bot-memory`).
    MemoryLimit,
    /// The process used up its CPU-time limit (`--bot-cpu`).
    CpuLimit,
    /// The bot wrote more than its output limit in a game (`--bot-output`).
    OutputLimit,
    /// A remote bot's connection was lost and it did not come back within the reconnect
    /// window (`--reconnect-s`) or before its clock fell.
    Disconnected,
    /// A remote bot never connected within `--connect-timeout`.
    NotConnected,
    /// Adjudicated by the host (`--draw-after-no-capture N`): a draw, no piece captured in
    /// the last N plies.
    AdjudicatedNoCapture,
    /// Adjudicated by the host (`--adjudicate-material N`): a win for the side whose lead in
    /// movable pieces held for N plies in a row.
    AdjudicatedMaterial,
}

impl Reason {
    /// The code, as in records.
    pub fn code(self) -> &'static str {
        match self {
            Reason::FlagCaptured => "flag_captured",
            Reason::NoLegalMoves => "no_legal_moves",
            Reason::NeitherCanMove => "neither_can_move",
            Reason::PlyLimit => "ply_limit",
            Reason::SealedFlags => "sealed_flags",
            Reason::Resignation => "resignation",
            Reason::StartupTimeout => "startup_timeout",
            Reason::SetupTimeout => "setup_timeout",
            Reason::MoveTimeout => "move_timeout",
            Reason::IllegalMove => "illegal_move",
            Reason::InvalidSetup => "invalid_setup",
            Reason::MalformedJson => "malformed_json",
            Reason::MalformedMessage => "malformed_message",
            Reason::LineTooLong => "line_too_long",
            Reason::InvalidUtf8 => "invalid_utf8",
            Reason::UnexpectedMessage => "unexpected_message",
            Reason::Crash => "crash",
            Reason::ClosedOutput => "closed_output",
            Reason::BothFaulted => "both_faulted",
            Reason::MemoryLimit => "memory_limit",
            Reason::CpuLimit => "cpu_limit",
            Reason::OutputLimit => "output_limit",
            Reason::Disconnected => "disconnected",
            Reason::NotConnected => "not_connected",
            Reason::AdjudicatedNoCapture => "adjudicated_no_capture",
            Reason::AdjudicatedMaterial => "adjudicated_material",
        }
    }

    /// Whether this is a bot's fault (a forfeit).
    pub fn is_fault(self) -> bool {
        !matches!(
            self,
            Reason::FlagCaptured
                | Reason::NoLegalMoves
                | Reason::NeitherCanMove
                | Reason::PlyLimit
                | Reason::SealedFlags
                | Reason::Resignation
                | Reason::AdjudicatedNoCapture
                | Reason::AdjudicatedMaterial
        )
    }
}

impl From<EndReason> for Reason {
    fn from(r: EndReason) -> Reason {
        match r {
            EndReason::FlagCaptured => Reason::FlagCaptured,
            EndReason::NoLegalMoves => Reason::NoLegalMoves,
            EndReason::NeitherCanMove => Reason::NeitherCanMove,
            EndReason::PlyLimit => Reason::PlyLimit,
            EndReason::SealedFlags => Reason::SealedFlags,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A bot's fault: the reason code and exactly what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The code.
    pub reason: Reason,
    /// What happened, for people.
    pub message: String,
}

impl Fault {
    /// A fault with a message.
    pub fn new(reason: Reason, message: impl Into<String>) -> Fault {
        Fault { reason, message: message.into() }
    }
}
