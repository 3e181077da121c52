//! The seam between the referee and a bot: a [`BotSession`] speaks to the bot at the
//! referee's level (start a game, ask for a setup, ask for a move, tell what was played,
//! say how it ended), whatever the wire looks like; another protocol is another
//! implementation, and the referee does not change. Tests implement it in memory.
//!
//! Module structure:
//! - `mod.rs`: [`BotSession`] and what passes through it; [`SessionOptions`], how every
//!   session starts its bot.
//! - [`any_session`]: a session in whichever protocol its bot speaks (the executor's pools).
//! - [`json_session`]: protocol.md over a [`crate::supervise::process::Process`].
//! - [`remote_session`]: protocol.md over a remote bot's connection ([`crate::remote::hub`]);
//!   `remote_session/resume.rs`: a lost connection waited for and the game taken up again.
//! - [`info`]: one game's `info` lines as the record keeps them.
//! - [`messages`]: every message of protocol.md to a bot, built once for both JSON sessions,
//!   and the one reader of a bot's line ([`messages::parse_bot_message`]).
//! - [`ucc_session`]: the UCC 2012 line protocol.
//! - [`protocol_log`]: the log of `--log-protocol`.
//!
//! Imports `supervise` and below; prints nothing (notices); async, runs on the game's event
//! loop.

pub(crate) mod any_session;
pub mod info;
pub mod json_session;
pub mod messages;
pub mod protocol_log;
pub mod remote_session;
pub mod ucc_session;

use std::time::Duration;

use stratego_protocol::{Clock as WireClock, Strike};
use stratego_rules::{Color, Deployment, Game, Ply, Ruleset, Square};

use crate::game::clock::TimeControl;
use crate::reason::Fault;
use crate::record::RecordResult;
use crate::session::protocol_log::ProtocolLog;

/// How a session starts (and restarts) its bot's process.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// Longest line the bot may send.
    pub max_line: usize,
    /// Pin the process to this CPU.
    pub cpu: Option<usize>,
    /// See [`crate::run::referee::GameSettings::read_grace`].
    pub read_grace: Duration,
    /// Time a bot has to exit after `quit`, and to take `game_over`.
    pub grace: Duration,
    /// `--log-protocol`.
    pub log: Option<std::sync::Arc<ProtocolLog>>,
}

/// An answer and the time it took, as charged to the bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timed<T> {
    /// The answer.
    pub value: T,
    /// Think time charged: from when the bot's clock started (see [`crate::supervise::stopwatch::Stopwatch`])
    /// to the end of its answer, less the machine stalls credited.
    pub took: Duration,
    /// Machine stalls credited to this answer.
    pub stall_credit: Duration,
    /// A remote bot's move: the network lag measured and credited (not part of `took`).
    pub lag: Option<LagCredit>,
}

/// The network lag of a remote bot's move (see [`crate::remote::lag`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LagCredit {
    /// The recent median one-way lag measured when the request was sent.
    pub lag: Duration,
    /// What the move was credited (at most `lag`, the cap and the quota).
    pub credit: Duration,
}

/// Why a request got no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionError {
    /// The host stopped waiting at the deadline.
    Timeout {
        /// Machine stalls credited meanwhile (the deadline moved back as much).
        stall_credit: Duration,
        /// How late after the deadline the host noticed (the timeout-lateness figure).
        late: Duration,
        /// Something the bot sent meanwhile that was not an answer, worth telling its author
        /// (e.g. a move for another ply).
        note: Option<String>,
    },
    /// The bot broke the protocol, crashed or ran into a limit.
    Fault(Fault),
}

/// The bot's answer to a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A move, as the bot wrote it (the referee parses and checks it).
    Move(String),
    /// It gives up.
    Resign,
}

/// What a bot is told when a game starts.
#[derive(Clone, Copy, Debug)]
pub struct GameStart<'a> {
    /// The game's id.
    pub game_id: &'a str,
    /// The bot's side.
    pub color: Color,
    /// The rules.
    pub rules: &'a Ruleset,
    /// The bot's clocks.
    pub time_control: &'a TimeControl,
    /// The bot's seed.
    pub seed: u64,
    /// Longest line the bot may send.
    pub max_line: usize,
    /// The opponent's name, unless hidden.
    pub opponent: Option<&'a str>,
}

/// A turn: the game as it stands, and the bot's time.
#[derive(Clone, Copy, Debug)]
pub struct TurnRequest<'a> {
    /// The game's id.
    pub game_id: &'a str,
    /// The game (the session shows the bot only its own view of it).
    pub game: &'a Game,
    /// The clocks as sent to the bot.
    pub clock: WireClock,
    /// The most time this answer may take.
    pub budget: Duration,
    /// The bot's previous move was replaced under the strike policy.
    pub strike: Option<&'a Strike>,
    /// The squares the opponent's pieces stood on after the setups (before any move).
    pub opponent_setup: &'a [Square],
}

/// What a bot is told when its game ends.
#[derive(Clone, Copy, Debug)]
pub struct GameEnd<'a> {
    /// The game's id.
    pub game_id: &'a str,
    /// The bot's side.
    pub color: Color,
    /// The result.
    pub result: &'a RecordResult,
    /// Plies played.
    pub total_plies: u32,
    /// The opponent's setup, if it gave a valid one.
    pub opponent_setup: Option<&'a Deployment>,
}

/// What a session reports about its bot for the game record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionReport {
    /// The name the bot gave.
    pub reported_name: Option<String>,
    /// Its version.
    pub version: Option<String>,
    /// Its author.
    pub author: Option<String>,
    /// Free-text lines it sent during this game (the first and last ones, with their plies).
    pub info: crate::session::info::InfoLines,
    /// The last bytes of its stderr.
    pub stderr_tail: String,
    /// Bytes it has written to stderr in all.
    pub stderr_bytes: u64,
    /// Bytes sent to it in this game.
    pub bytes_to_bot: u64,
    /// Bytes it sent in this game.
    pub bytes_from_bot: u64,
    /// What the host had to do about the bot's process for this game (e.g. start a fresh
    /// one because a multi-game bot had exited after its previous game).
    pub process_note: Option<String>,
    /// Answers it sent that no request asked for, in words (they were not played).
    pub unrequested: Vec<String>,
    /// Time away in this game: a remote bot's connection lost while the game waited for
    /// it, its clock paused (zero for a local bot).
    pub away: Duration,
}

/// What a process kept for another game wrote after that game's `game_over`, until it
/// answered the next `hello` (or until it was found gone): it belongs to the game that
/// ended (protocol.md, "Several games in one process").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PostGame {
    /// `info` lines sent after `game_over`.
    pub info: crate::session::info::InfoLines,
    /// The stderr tail of the game that ended, now with what came after `game_over`.
    pub stderr_tail: String,
    /// Bytes written to stderr in that game, with what came after `game_over`.
    pub stderr_bytes: u64,
    /// Bytes of the `info` lines above.
    pub bytes_from_bot: u64,
    /// How the process ended, if it had ended before the next game.
    pub exit: Option<String>,
}

/// A bot, as the referee sees it. One session serves one game at a time; a session whose
/// [`BotSession::reusable`] is true may be handed the next game.
#[allow(async_fn_in_trait)] // used with static dispatch only (generic referee)
pub trait BotSession {
    /// Whether the bot said it computes on one thread, only on its own turn
    /// (`ready.single_threaded` in protocol.md), so that it may share a CPU with its
    /// opponent. Known after [`BotSession::start_game`].
    fn single_threaded(&self) -> bool {
        false
    }

    /// Runs the bot on `cpu` only (shared with its opponent), or with `None` on `all` the
    /// CPUs of the run again.
    fn share_cpu(&mut self, _cpu: Option<usize>, _all: &[usize]) {}

    /// Starts a game: introduces it and waits for the bot to be ready, within the time
    /// control's start-up limit.
    ///
    /// # Errors
    /// No answer in time, a fault.
    async fn start_game(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError>;

    /// Asks for a setup within the time control's setup limit; with `fixed`, the event's
    /// setup book has chosen it and the bot is only told. Returns the setup as written.
    ///
    /// # Errors
    /// No answer in time, a fault.
    async fn setup(&mut self, start: &GameStart<'_>, fixed: Option<&Deployment>)
    -> Result<Timed<String>, SessionError>;

    /// Asks for a move within `req.budget`.
    ///
    /// # Errors
    /// No answer in time, a fault.
    async fn turn(&mut self, req: &TurnRequest<'_>) -> Result<Timed<Decision>, SessionError>;

    /// Tells the bot a ply was played (by either side); `game` is the game after it.
    async fn played(&mut self, game: &Game, ply: &Ply);

    /// Tells the bot how the game ended.
    async fn game_over(&mut self, end: &GameEnd<'_>);

    /// What to record about the bot for this game.
    fn report(&self) -> SessionReport;

    /// Whether the bot can play another game in this session.
    fn reusable(&self) -> bool;

    /// Ends the session; returns how the bot ended (e.g. its exit status).
    async fn shutdown(self, grace: Duration) -> String;

    /// Ends the session after its last game; returns how the bot ended and the report taken
    /// once it has (so what the bot said after `game_over` belongs to that game).
    async fn close(self, grace: Duration) -> (String, SessionReport)
    where
        Self: Sized,
    {
        let report = self.report();
        (self.shutdown(grace).await, report)
    }
}
