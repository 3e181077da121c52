//! What the executor tells the rest of the host while a run goes on (a [`Happening`]: a game
//! started, a ply, a fault, a game finished; "event" is the competition an organiser runs, not
//! this), and the [`Sink`]s that listen: the records file, the live progress, the summary tables, the statistics. `match`,
//! `tournament` and `sprt` differ only in their schedule and their sinks.

use std::sync::Arc;
use std::time::Duration;

use stratego_rules::{ByColor, Color, Deployment};

use crate::reason::Reason;
use crate::record::{GameRecord, RecordPly};
use crate::run::schedule::GameSpec;

/// Something that happened in a run, as the executor sends it to the sinks (formerly
/// `run::events::Event`: "event" names the competition, an [`crate::run::plan::EventPlan`]).
#[derive(Clone, Debug)]
pub enum Happening {
    /// A game has begun (its bots are being started).
    GameStarted {
        /// The game.
        spec: GameSpec,
    },
    /// Both setups are in and the game begins (sent only when a sink asks for plies:
    /// [`Sink::wants_plies`]); a live view needs them to draw the board.
    GameSetups {
        /// The game.
        game_id: String,
        /// The setups.
        deployments: ByColor<Deployment>,
    },
    /// A ply was played (sent only when a sink asks for plies: [`Sink::wants_plies`]).
    Ply {
        /// The game.
        game_id: String,
        /// The ply, with its think time.
        ply: RecordPly,
    },
    /// A bot lost a game by a fault (sent just before the game's [`Happening::GameFinished`]).
    Fault {
        /// The game.
        spec: GameSpec,
        /// The side that faulted.
        color: Color,
        /// What went wrong.
        reason: Reason,
        /// In words.
        message: String,
    },
    /// A bot joined the run while it goes on (an entrant admitted by a running arena): it
    /// is bot `id` from now on, before any game seats it.
    Joined {
        /// Its bot id.
        id: usize,
        /// Its name.
        name: String,
        /// Its clocks.
        time_control: crate::game::clock::TimeControl,
        /// Whether it is a remote bot.
        remote: bool,
    },
    /// A game is over; its record is complete.
    GameFinished {
        /// The game.
        spec: GameSpec,
        /// Its record.
        record: Arc<GameRecord>,
    },
}

impl Happening {
    /// For a finished game: the bot ids by colour and the record.
    pub fn finished(&self) -> Option<(ByColor<usize>, &GameRecord)> {
        match self {
            Happening::GameFinished { spec, record } => Some((spec.seats, record)),
            _ => None,
        }
    }
}

/// What a sink wants the executor to do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Continue,
    /// Stop: the run has its answer (e.g. an SPRT bound was crossed). Games still running
    /// are stopped and not counted.
    Stop,
    /// Stop: the run cannot go on (a record cannot be saved, a bot cannot start). The
    /// happening is not given to the sinks after this one (the game is neither saved nor
    /// counted after a sink that refused it).
    Fail(Failure),
}

/// Why a run or a command cannot go on: what went wrong, for people, and the process's exit
/// code ([`crate::exit`]: `USAGE`, `BOT_NOT_STARTABLE`, `FAILURE`, …). A command's error
/// is the same thing, so one type under two names ([`crate::run::plan::ConfigError`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong, for people.
    pub message: String,
    /// The process's exit code ([`crate::exit`]).
    pub code: i32,
}

/// How a run ended.
#[derive(Clone, Debug, Default)]
pub struct RunEnd {
    /// Games finished.
    pub finished: u32,
    /// Stopped by SIGINT/SIGTERM.
    pub cancelled: bool,
    /// Stopped by a sink ([`Flow::Stop`]).
    pub stopped: bool,
    /// Stopped because a sink failed ([`Flow::Fail`]).
    pub failed: Option<Failure>,
    /// Wall time of the run.
    pub wall: Duration,
    /// Host CPU time over the run, microseconds.
    pub host_cpu_us: u64,
    /// Host peak resident memory, KiB.
    pub host_peak_rss_kib: u64,
}

/// A listener of a run's happenings. Called on the executor's task, in order: keep it quick
/// (a sink with slow work, like writing records, hands it to a thread of its own).
pub trait Sink {
    /// Takes one happening.
    fn on_happening(&mut self, happening: &Happening) -> Flow;

    /// Takes a game finished in an earlier run of the same plan (resume, merge), before the
    /// run's own happenings. By default the same as [`Sink::on_happening`].
    fn on_history(&mut self, happening: &Happening) {
        let _ = self.on_happening(happening);
    }

    /// Whether this sink wants [`Happening::Ply`] (off by default: one per move costs).
    fn wants_plies(&self) -> bool {
        false
    }

    /// How often this sink wants [`Sink::on_tick`] while the run goes on (`None`, the
    /// default: never). For work a sink defers (rate-limited) that must be done even when no
    /// happening follows: the bots of the running games may think, or wait, for minutes.
    fn tick_every(&self) -> Option<std::time::Duration> {
        None
    }

    /// Called about every [`Sink::tick_every`], between happenings.
    fn on_tick(&mut self) {}

    /// The run is over: flush, print.
    ///
    /// # Errors
    /// What could not be written.
    fn finish(&mut self, _end: &RunEnd) -> Result<(), Failure> {
        Ok(())
    }
}

/// Lines of a bot's stderr tail shown under a forfeit.
pub const STDERR_LINES_SHOWN: usize = 10;

/// The last lines a bot wrote to stderr, indented under the line that reports its fault
/// (at most [`STDERR_LINES_SHOWN`], each clipped to 200 characters, its control characters
/// shown as escapes by [`crate::text::clean`]: the bot's output must not drive the
/// reader's terminal); empty when it wrote nothing.
pub fn stderr_lines(name: &str, tail: &str) -> String {
    let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let shown = &lines[lines.len().saturating_sub(STDERR_LINES_SHOWN)..];
    let mut out = format!("\n    {name}'s stderr (last {} of {} lines):", shown.len(), lines.len());
    for l in shown {
        out.push_str("\n    | ");
        out.push_str(&crate::text::clip(&crate::text::clean(l)));
    }
    out
}

/// A report that a game's [`stratego_records::GameDigest`] fills as its whole record would (every report of
/// `match`, `tournament` and `sprt`: they read no more of a record than its digest holds),
/// for what reads many records and needs only the report (`merge`).
pub trait DigestSink {
    /// Takes a finished game of an earlier run, as [`Sink::on_history`] its record.
    fn on_digest(&mut self, spec: &crate::run::schedule::GameSpec, game: &stratego_records::GameDigest);
}
