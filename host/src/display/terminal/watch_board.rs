//! `--watch`: one running game drawn on the terminal as it is played (the watch board; "live"
//! names the live page of `--serve`).
//!
//! [`WatchBoard`] is a sink that asks the executor for plies ([`Sink::wants_plies`]: without
//! `--watch` no sink does, and plies cost nothing). It keeps the setups and plies of every
//! running game and draws one of them with [`Replay::frame`] (the same board as `replay`)
//! on stderr, or on `/dev/tty` when stderr is not a terminal; stdout stays the summary.
//! With several games at once it watches the first one running; when that ends, its final
//! position and result stay on the screen for [`HOLD`], then the next running game (the
//! earliest started) is drawn, caught up to its current ply. Redraws are at most every
//! [`MIN_REDRAW`]; a game's start and end are always drawn. Below the board: the games
//! running and finished, and the lines of the last finished games (which, with `--watch`,
//! replace the scrolling lines of the progress view).

use std::collections::VecDeque;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use stratego_protocol::reason::Reason;
use stratego_protocol::record::{BotInfo, GameRecord, RecordPly, RecordResult};
use stratego_rules::{ByColor, RulesetSpec};

use crate::display::terminal::replay::{Replay, Viewer};
use crate::run::happenings::{Failure, Flow, Happening, RunEnd, Sink};
use crate::run::schedule::GameSpec;

/// Shortest time between two redraws of the same game.
pub const MIN_REDRAW: Duration = Duration::from_millis(50);
/// How long a finished game's last frame stays before the next game is drawn.
pub const HOLD: Duration = Duration::from_millis(1500);
/// Finished-game lines shown under the board.
const RECENT: usize = 4;

/// A bot as the watch names it: name, command, time control.
pub type WatchBoardBot = (String, Vec<String>, stratego_protocol::TimeControl);

struct Running {
    spec: GameSpec,
    setups: Option<ByColor<String>>,
    plies: Vec<RecordPly>,
}

/// The watch board of `--watch` (see the module documentation).
pub struct WatchBoard {
    out: Box<dyn Write>,
    colour: bool,
    rules: RulesetSpec,
    bots: Vec<WatchBoardBot>,
    planned: Option<u64>,
    running: Vec<Running>,
    watched: Option<String>,
    /// When a finished game's frame may give way to the next game.
    hold_until: Option<Instant>,
    last_draw: Option<Instant>,
    done: u64,
    recent: VecDeque<String>,
    failed: bool,
    /// Notices said while the board is drawn on stderr ([`WatchBoard::notices`]), shown with
    /// the finished games' lines under it instead of over it.
    notices: Option<Notices>,
}

/// Lines to show under the board ([`WatchBoard::notices`]).
pub type Notices = std::sync::Arc<std::sync::Mutex<VecDeque<String>>>;

impl WatchBoard {
    /// A watch of a run under `rules` with `bots` (by id) and `planned` games, drawing on
    /// stderr when it is a terminal, else on `/dev/tty`.
    ///
    /// # Errors
    /// Neither is a terminal.
    pub fn open(rules: RulesetSpec, bots: Vec<WatchBoardBot>, planned: Option<u64>) -> Result<WatchBoard, String> {
        let on_stderr = std::io::stderr().is_terminal();
        let out: Box<dyn Write> = if on_stderr {
            Box::new(std::io::stderr())
        } else {
            match std::fs::OpenOptions::new().write(true).open("/dev/tty") {
                Ok(tty) => Box::new(tty),
                Err(e) => return Err(format!("--watch draws on a terminal: stderr is not one, and /dev/tty: {e}")),
            }
        };
        let colour = crate::display::terminal::replay::colour_wanted(true, std::env::var_os("NO_COLOR"));
        let mut board = WatchBoard::to_writer(out, colour, rules, bots, planned);
        if on_stderr {
            board.notices = Some(Notices::default());
        }
        Ok(board)
    }

    /// Where the notices of the run go while it is watched, when the board is drawn on
    /// stderr (they would write over it): shown under the board at its next redraw. `None`
    /// when it is drawn on `/dev/tty` (stderr goes elsewhere, and the notices with it).
    pub fn notices(&self) -> Option<Notices> {
        self.notices.clone()
    }

    /// Moves the notices said since the last redraw under the board.
    fn take_notices(&mut self) {
        let Some(notices) = &self.notices else { return };
        let new: Vec<String> = notices.lock().unwrap_or_else(|e| e.into_inner()).drain(..).collect();
        for line in new {
            self.recent.push_back(crate::text::clean(&line).into_owned());
        }
        while self.recent.len() > RECENT {
            self.recent.pop_front();
        }
    }

    /// A watch drawing on `out` (tests).
    pub fn to_writer(
        out: Box<dyn Write>,
        colour: bool,
        rules: RulesetSpec,
        bots: Vec<WatchBoardBot>,
        planned: Option<u64>,
    ) -> WatchBoard {
        WatchBoard {
            out,
            colour,
            rules,
            bots,
            planned,
            running: Vec::new(),
            watched: None,
            hold_until: None,
            last_draw: None,
            done: 0,
            recent: VecDeque::new(),
            failed: false,
            notices: None,
        }
    }

    /// The record of a game so far, for [`Replay::running`].
    fn partial(&self, g: &Running) -> GameRecord {
        let bot = |id: usize| {
            let (name, command, _) = &self.bots[id];
            BotInfo::new(name.clone(), command.clone())
        };
        GameRecord {
            game_id: g.spec.game_id.clone(),
            index: g.spec.index,
            pair: g.spec.pair,
            book_setups: g.spec.setups,
            match_seed: 0,
            seed: g.spec.seed,
            host_version: env!("CARGO_PKG_VERSION").to_owned(),
            started_unix_ms: 0,
            duration_ms: 0,
            ruleset: self.rules.clone(),
            time_control: self.bots[g.spec.seats.red].2,
            time_controls: None,
            bots: ByColor::new(bot(g.spec.seats.red), bot(g.spec.seats.blue)),
            deployments: g.setups.clone().map_or(ByColor::new(None, None), |s| s.map(Some)),
            plies: g.plies.clone(),
            result: RecordResult { winner: None, reason: Reason::Resignation, message: String::new(), faulty: None },
        }
    }

    /// The lines under the board.
    fn status(&self) -> Vec<String> {
        let of = self.planned.map(|p| format!(" of {p}")).unwrap_or_default();
        let mut lines = vec![
            String::new(),
            format!("Watching live: {} games running, {}{of} finished (--watch)", self.running.len(), self.done),
        ];
        lines.extend(self.recent.iter().cloned());
        lines
    }

    fn draw(&mut self, mut lines: Vec<String>) {
        self.take_notices();
        lines.extend(self.status());
        let width = crossterm::terminal::size().map_or(200, |(w, _)| usize::from(w).max(20));
        let mut buf = String::new();
        if self.last_draw.is_none() {
            buf.push_str("\x1b[2J\x1b[?25l");
        }
        buf.push_str("\x1b[H");
        for line in &lines {
            // Lines with colour codes are the board (short); others are cut to the width.
            if line.contains('\x1b') || line.chars().count() <= width {
                buf.push_str(line);
            } else {
                buf.extend(line.chars().take(width - 1));
                buf.push('…');
            }
            buf.push_str("\x1b[K\n");
        }
        buf.push_str("\x1b[J");
        self.last_draw = Some(Instant::now());
        if self.out.write_all(buf.as_bytes()).and_then(|()| self.out.flush()).is_err() {
            self.failed = true;
        }
    }

    /// Draws the watched game at its current ply.
    fn draw_watched(&mut self) {
        let Some(g) = self.watched.as_ref().and_then(|id| self.running.iter().find(|g| &g.spec.game_id == id)) else {
            return;
        };
        if g.setups.is_none() {
            return;
        }
        let record = self.partial(g);
        match Replay::running(record) {
            Ok(replay) => {
                let lines = replay.frame(replay.plies(), Viewer::Spectator, self.colour);
                self.draw(lines);
            }
            Err(e) => tracing::warn!("--watch: {e}"),
        }
    }

    /// Picks the next game to watch (the earliest started with setups), if none is.
    fn pick(&mut self) {
        if self.watched.is_none() {
            self.watched = self.running.iter().find(|g| g.setups.is_some()).map(|g| g.spec.game_id.clone());
        }
    }

    fn holding(&self) -> bool {
        self.hold_until.is_some_and(|t| Instant::now() < t)
    }
}

impl Sink for WatchBoard {
    fn wants_plies(&self) -> bool {
        true
    }

    fn on_history(&mut self, happening: &Happening) {
        if matches!(happening, Happening::GameFinished { .. }) {
            self.done += 1;
        }
    }

    fn on_happening(&mut self, happening: &Happening) -> Flow {
        if self.failed {
            return Flow::Continue;
        }
        let mut force = false;
        match happening {
            Happening::GameStarted { spec } => {
                self.running.push(Running { spec: spec.clone(), setups: None, plies: Vec::new() });
            }
            Happening::GameSetups { game_id, deployments } => {
                let rules = stratego_rules::Ruleset::try_from(self.rules.clone());
                if let (Some(g), Ok(rules)) = (self.running.iter_mut().find(|g| &g.spec.game_id == game_id), rules) {
                    g.setups = Some(ByColor::new(deployments.red.to_rows(&rules), deployments.blue.to_rows(&rules)));
                }
                force = self.watched.is_none() || self.watched.as_ref() == Some(game_id);
            }
            Happening::Ply { game_id, ply } => {
                if let Some(g) = self.running.iter_mut().find(|g| &g.spec.game_id == game_id) {
                    g.plies.push(ply.clone());
                }
            }
            Happening::Fault { .. } | Happening::Joined { .. } => {}
            Happening::GameFinished { spec, record } => {
                self.done += 1;
                self.running.retain(|g| g.spec.game_id != spec.game_id);
                self.recent.push_back(crate::display::terminal::progress::game_line(self.done, self.planned, record));
                while self.recent.len() > RECENT {
                    self.recent.pop_front();
                }
                if self.watched.as_deref() == Some(spec.game_id.as_str()) {
                    self.watched = None;
                    // Its last frame, with the result, stays a moment.
                    if let Ok(replay) = Replay::new((**record).clone()) {
                        let lines = replay.frame(replay.plies(), Viewer::Spectator, self.colour);
                        self.draw(lines);
                        self.hold_until = Some(Instant::now() + HOLD);
                    }
                    return Flow::Continue;
                }
            }
        }
        if self.holding() {
            return Flow::Continue;
        }
        self.pick();
        let due = self.last_draw.is_none_or(|t| t.elapsed() >= MIN_REDRAW);
        if force || due {
            self.draw_watched();
        }
        Flow::Continue
    }

    fn finish(&mut self, _end: &RunEnd) -> Result<(), Failure> {
        // Notices the board did not show yet follow its last frame.
        if let Some(notices) = &self.notices {
            let left: Vec<String> = notices.lock().unwrap_or_else(|e| e.into_inner()).drain(..).collect();
            if !left.is_empty() && !self.failed {
                let text: String = left.iter().map(|l| format!("{l}\n")).collect();
                let _ = self.out.write_all(text.as_bytes());
            }
        }
        if self.last_draw.is_some() && !self.failed {
            // The last frame stays; the summary follows it.
            let _ = self.out.write_all(b"\x1b[?25h").and_then(|()| self.out.flush());
        }
        Ok(())
    }
}

impl Drop for WatchBoard {
    fn drop(&mut self) {
        if self.last_draw.is_some() {
            let _ = self.out.write_all(b"\x1b[?25h").and_then(|()| self.out.flush());
        }
    }
}
