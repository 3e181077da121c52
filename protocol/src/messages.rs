//! Every message of protocol version 1.
//!
//! Both sides ignore fields they do not know (forward compatibility); a bot's message of an
//! unknown `type` is a protocol violation.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use stratego_rules::{ByColor, Color, Move, PieceCounts, Ply, Rank, RulesetSpec, Square, ViewPiece};

/// A message from the host to a bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostMessage {
    /// Starts a game: who you are, the rules, the clocks. Answer with `ready`.
    Hello(Hello),
    /// Asks for your setup. Answer with `setup`.
    SetupRequest(SetupRequest),
    /// Your move. Answer with `move` or `resign`.
    Turn(Turn),
    /// A ply just played (only for bots that asked for `immediate_plies`).
    Ply(PlyNotice),
    /// The game is over. Wait for the next `hello` (multi-game bots) or `quit`.
    GameOver(GameOver),
    /// Exit now.
    Quit(Quit),
}

/// A message from a bot to the host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BotMessage {
    /// The answer to `hello`.
    Ready(Ready),
    /// The answer to `setup_request`.
    Setup(SetupAnswer),
    /// The answer to `turn`: a move.
    Move(MoveAnswer),
    /// The answer to `turn`: giving up.
    Resign(Resign),
    /// Free text, any time: recorded in the game record, never shown to the opponent.
    Info(Info),
}

/// Time limits of a game, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TimeControl {
    /// From the `hello` to the `ready`.
    pub startup_ms: u64,
    /// From the `setup_request` to the `setup`.
    pub setup_ms: u64,
    /// Limit for each move (`null`: none).
    pub move_ms: Option<u64>,
    /// The game bank of each side (`null`: none).
    pub bank_ms: Option<u64>,
    /// Added to the bank after each move.
    pub increment_ms: u64,
    /// (1.3) The host's safety margin: an answer that comes this much after a limit (the
    /// move limit, the bank, the start-up or setup time) is still in time. The same for
    /// every bot of an event; absent when zero. Plan to answer within the limit.
    #[serde(default, skip_serializing_if = "is_zero_ms")]
    pub margin_ms: u64,
}

fn is_zero_ms(n: &u64) -> bool {
    *n == 0
}

/// `hello`: the first message of every game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hello {
    /// Protocol version (1).
    pub protocol: u32,
    /// Unique id of the game within the run.
    pub game_id: String,
    /// Your side. Red moves first.
    pub color: Color,
    /// The rules, with every setting spelled out.
    pub ruleset: RulesetSpec,
    /// The clocks.
    pub time_control: TimeControl,
    /// A seed for your random choices; the same seed must give the same play.
    pub seed: u64,
    /// The longest line you may send, in bytes (newline excluded).
    pub max_line_bytes: usize,
    /// The opponent's name in this event (absent when the host hides it, `--blind`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
}

/// `ready`: the bot introduces itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Ready {
    /// The bot's name.
    pub name: String,
    /// Its version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Its author.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// The bot can play several games in one process (it waits for the next `hello` after
    /// `game_over`). Default false: one process per game.
    #[serde(default)]
    pub multi_game: bool,
    /// Send each ply as a `ply` message as soon as it is played, instead of with the next
    /// `turn` or `game_over`. Default false.
    #[serde(default)]
    pub immediate_plies: bool,
    /// How much of the position each `turn` carries: `"full"` (default) or `"moves"` (no
    /// `pieces` and no `captured`: for bots that keep their own board from the plies, or
    /// need only the legal moves).
    #[serde(default, skip_serializing_if = "ViewMode::is_full")]
    pub view: ViewMode,
    /// The bot computes on one thread and only while it is its turn (it does not think on
    /// its opponent's time). When both bots of a game say so, the host may run them on one
    /// CPU, which makes every hand-over several times cheaper. Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub single_threaded: bool,
}

/// What a `turn` carries (see [`Ready::view`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ViewMode {
    /// Every piece on the board and the captured pieces.
    #[default]
    Full,
    /// Only the plies, the legal moves and the clock.
    Moves,
}

impl ViewMode {
    /// Whether this is the default, full view.
    pub fn is_full(&self) -> bool {
        *self == ViewMode::Full
    }
}

/// `setup_request`: place your army.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetupRequest {
    /// The game.
    pub game_id: String,
    /// Your side.
    pub color: Color,
    /// The squares you may use, rank by rank.
    pub squares: Vec<Square>,
    /// The pieces to place.
    pub pieces: PieceCounts,
    /// Whether you must place exactly `pieces` (else at most that many of each).
    pub exact_counts: bool,
    /// Time you have, in milliseconds.
    pub time_ms: u64,
    /// Present when the event gives you your setup (a setup book): the deployment, in rows
    /// form, that the host plays for you whatever you answer. Answer with a `setup` message
    /// as usual (echoing this one is simplest); its content is then ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<String>,
}

/// `setup`: the bot's placement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SetupAnswer {
    /// The deployment: rows (`"B32222222S/6655554444/BX98877766/FB3B333B2B"`, top rank
    /// first) or pairs (`"a1=F b1=B ..."`).
    pub deployment: String,
}

/// The clocks, in milliseconds, as a `turn` is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Clock {
    /// The most time this move may take: the move limit or your bank, whichever is less.
    pub move_ms: u64,
    /// Your bank before this move (`null` without a bank).
    pub remaining_ms: Option<u64>,
    /// The opponent's bank (`null` without a bank).
    pub opponent_remaining_ms: Option<u64>,
}

/// `turn`: everything you may know, and your legal moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Turn {
    /// The game.
    pub game_id: String,
    /// Plies played so far (0 before Red's first move).
    pub ply: u32,
    /// Your side.
    pub color: Color,
    /// Plies played since the last message you were sent, oldest first: your last move
    /// and the opponent's reply, with their fights.
    pub plies: Vec<Ply>,
    /// Every piece on the board, by square. Yours carry their rank; the opponent's only
    /// once revealed. Absent for bots that asked for `"view": "moves"`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pieces: Vec<ViewPiece>,
    /// Pieces each side has lost. Absent for bots that asked for `"view": "moves"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured: Option<ByColor<PieceCounts>>,
    /// Your legal moves (never empty).
    pub legal_moves: Vec<Move>,
    /// Your time.
    pub clock: Clock,
    /// Present when your previous move was replaced by a random legal move under the
    /// host's strike policy (`--strikes`): why, and the move played for you.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strike: Option<Strike>,
    /// Only in the first `turn` of a game, and only for bots with `"view": "moves"`: the
    /// squares the opponent's pieces stood on when both setups were placed, before any move
    /// (with `plies`, a bot that keeps its own board then knows where every enemy piece is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent_squares: Option<Vec<Square>>,
}

/// A fault forgiven under the strike policy: the move the host played instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Strike {
    /// The fault's reason code (`move_timeout` or `illegal_move`).
    pub reason: String,
    /// What was wrong.
    pub message: String,
    /// The random legal move the host played for you.
    pub replaced_by: Move,
    /// Strikes left before the next such fault loses the game.
    pub strikes_left: u32,
}

/// `ply`: one ply, sent at once to bots that asked for `immediate_plies`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlyNotice {
    /// The game.
    pub game_id: String,
    /// The ply's number (1 for Red's first move).
    pub ply: u32,
    /// What happened.
    #[serde(flatten)]
    pub played: Ply,
}

/// This bot's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameResult {
    /// You won.
    Win,
    /// You lost.
    Loss,
    /// A draw.
    Draw,
}

/// One placed piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Placement {
    /// Its starting square.
    pub square: Square,
    /// Its rank.
    pub rank: Rank,
}

/// `game_over`: the result, why, and the opponent's setup.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameOver {
    /// The game.
    pub game_id: String,
    /// Your result.
    pub result: GameResult,
    /// The winning side, `null` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended: a code from protocol.md's table.
    pub reason: String,
    /// The same in words (for a fault: exactly what was wrong).
    pub message: String,
    /// Plies you have not been sent yet.
    pub plies: Vec<Ply>,
    /// Plies played in the game.
    pub total_plies: u32,
    /// The opponent's full setup (empty if the opponent never gave a valid one).
    pub opponent_setup: Vec<Placement>,
}

/// `quit`: exit now (the host kills the process after a short grace period).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Quit {}

/// `move`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MoveAnswer {
    /// The move, like `"e4-e5"`; it must be one of the turn's `legal_moves`.
    #[serde(rename = "move")]
    pub mv: String,
    /// Optional: the `ply` of the turn this answers. A move whose `ply` is not the current
    /// turn's is a late answer to an earlier turn and is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ply: Option<u32>,
}

/// `resign`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Resign {}

/// `info`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Info {
    /// Any text (kept to 1,000 characters in the record).
    pub text: String,
}
