//! What a run shows on the terminal as it goes, without `--watch`: the progress bar or a
//! line per finished game ([`Progress`], [`game_line`]), and the interim reports of
//! `--report-every` ([`Interim`]).

use std::io::IsTerminal;

use stratego_rules::Color;

use crate::reason::Reason;
use crate::record::GameRecord;
use crate::run::happenings::stderr_lines;
use crate::run::happenings::{Failure, Flow, Happening, RunEnd, Sink};
use crate::run::plan::ProgressMode;

/// Gives the progress bar's message after an event (None: unchanged).
pub type StatusFn = Box<dyn FnMut(&Happening) -> Option<String>>;
/// Gives the line for a finished game: its number, the games planned, its record.
pub type LineFn = Box<dyn FnMut(u64, Option<u64>, &GameRecord) -> String>;

/// The progress on stderr: a line per finished game, and on a terminal an `indicatif`
/// progress bar with the games done, a status (running W/D/L, the leader, the LLR: given
/// by the command) and the ETA. Hidden when stderr is not a terminal.
pub struct Progress {
    mode: ProgressMode,
    bar: Option<indicatif::ProgressBar>,
    done: u64,
    planned: Option<u64>,
    status: StatusFn,
    line: LineFn,
    /// The command's status, as last given.
    last_status: String,
    /// Running games (by index in the schedule) and their plies so far, for the bar.
    running: std::collections::BTreeMap<u32, u32>,
    /// Game ids of the running games, to their index.
    running_ids: std::collections::HashMap<String, u32>,
}

impl Progress {
    /// The progress of `planned` games (unknown for an open-ended run). `status` gives the
    /// bar's message after an event (None: unchanged); `line` the line for a finished game
    /// (number, planned, record).
    pub fn new(
        mode: ProgressMode,
        planned: Option<u64>,
        status: impl FnMut(&Happening) -> Option<String> + 'static,
        line: impl FnMut(u64, Option<u64>, &GameRecord) -> String + 'static,
    ) -> Progress {
        let bar = (mode != ProgressMode::Quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = match planned {
                Some(n) => indicatif::ProgressBar::new(n),
                None => indicatif::ProgressBar::no_length(),
            };
            let style = match planned {
                Some(_) => "{bar:30} {pos}/{len} games, {elapsed} (ETA {eta})  {msg}",
                None => "{spinner} {pos} games, {elapsed}  {msg}",
            };
            bar.set_style(indicatif::ProgressStyle::with_template(style).expect("a valid template"));
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(4));
            // Drawn at once, and again every second: the elapsed time and the ETA move
            // while games run, not only when one ends.
            bar.enable_steady_tick(std::time::Duration::from_secs(1));
            bar.tick();
            bar
        });
        Progress {
            mode,
            bar,
            done: 0,
            planned,
            status: Box::new(status),
            line: Box::new(line),
            last_status: String::new(),
            running: std::collections::BTreeMap::new(),
            running_ids: std::collections::HashMap::new(),
        }
    }

    /// The bar's message: the command's status, then the running games and their plies
    /// (`running: #3 41 plies, #4 12 plies`, numbered from 1 in the schedule).
    fn message(&self) -> String {
        if self.running.is_empty() {
            return self.last_status.clone();
        }
        let shown: Vec<String> =
            self.running.iter().take(4).map(|(index, plies)| format!("#{} {plies} plies", index + 1)).collect();
        let more = match self.running.len().saturating_sub(4) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let sep = if self.last_status.is_empty() { "" } else { "  " };
        format!("{}{sep}running: {}{more}", self.last_status, shown.join(", "))
    }
}

impl Sink for Progress {
    fn wants_plies(&self) -> bool {
        // The bar shows the running games' plies.
        self.bar.is_some()
    }

    fn on_history(&mut self, happening: &Happening) {
        if matches!(happening, Happening::GameFinished { .. }) {
            self.done += 1;
            if let Some(bar) = &self.bar {
                bar.set_position(self.done);
            }
        }
    }

    fn on_happening(&mut self, happening: &Happening) -> Flow {
        if self.mode == ProgressMode::Quiet {
            return Flow::Continue;
        }
        match happening {
            Happening::GameStarted { spec } => {
                self.running.insert(spec.index, 0);
                self.running_ids.insert(spec.game_id.clone(), spec.index);
            }
            Happening::Ply { game_id, .. } => {
                if let Some(plies) = self.running_ids.get(game_id).and_then(|i| self.running.get_mut(i)) {
                    *plies += 1;
                }
            }
            Happening::GameFinished { spec, .. } => {
                self.running.remove(&spec.index);
                self.running_ids.remove(&spec.game_id);
            }
            _ => {}
        }
        // The bar's count, status and running games are updated before a finished game's
        // line is printed: printing redraws the bar, which then shows this game counted.
        let finished = matches!(happening, Happening::GameFinished { .. });
        if finished {
            self.done += 1;
        }
        if let Some(status) = (self.status)(happening) {
            self.last_status = status;
        }
        if let Some(bar) = &self.bar {
            bar.set_message(self.message());
            if finished {
                bar.set_position(self.done);
            }
        }
        if let Happening::GameFinished { record, .. } = happening {
            let line = (self.line)(self.done, self.planned, record);
            match &self.bar {
                Some(bar) => bar.println(line),
                None => eprintln!("{line}"),
            }
        }
        Flow::Continue
    }

    fn finish(&mut self, _end: &RunEnd) -> Result<(), Failure> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        Ok(())
    }
}

/// The line printed when a game finishes: `game 3/10 [0000000000000063-7] A (red) vs B
/// (blue): 1-0 flag_captured after 312 plies, 0.4 s` (the count is the completion order,
/// the id in brackets the game's, for `replay --game`), with the message for a forfeit or
/// resignation (and the last lines of the faulty bot's stderr, when it wrote any).
pub fn game_line(n: u64, planned: Option<u64>, rec: &GameRecord) -> String {
    use std::fmt::Write as _;
    let score = match rec.result.winner {
        Some(Color::Red) => "1-0",
        Some(Color::Blue) => "0-1",
        None => "1/2-1/2",
    };
    let of = planned.map(|p| format!("/{p}")).unwrap_or_default();
    let mut line = format!(
        "game {n}{of} [{}] {} (red) vs {} (blue): {score} {} after {}, {:.1} s",
        rec.game_id,
        rec.bots.red.name,
        rec.bots.blue.name,
        rec.result.reason,
        if rec.plies.len() == 1 { "1 ply".to_owned() } else { format!("{} plies", rec.plies.len()) },
        rec.duration_ms as f64 / 1000.0
    );
    if rec.result.reason.is_fault() || rec.result.reason == Reason::Resignation {
        let _ = write!(line, " — {}", crate::text::clean(&rec.result.message));
    }
    if let Some(faulty) = rec.result.faulty {
        line.push_str(&stderr_lines(&rec.bots[faulty].name, &rec.bots[faulty].stderr_tail));
    }
    line
}

/// `--report-every N`: every N finished games (counting those of an earlier run of the
/// same plan), prints an interim report to stdout (to stderr when stdout is for the JSON
/// summary), for logs off a terminal. It must come after the sink whose state `report`
/// reads.
pub struct Interim<F: FnMut(u64) -> String> {
    every: u64,
    done: u64,
    stderr: bool,
    report: F,
}

impl<F: FnMut(u64) -> String> Interim<F> {
    /// `report(done)` makes the text printed after `done` games; `every` 0 prints nothing;
    /// `json`: stdout holds the JSON summary, so the reports go to stderr.
    pub fn new(every: u64, json: bool, report: F) -> Interim<F> {
        Interim { every, done: 0, stderr: json, report }
    }
}

impl<F: FnMut(u64) -> String> Sink for Interim<F> {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        if let Happening::GameFinished { .. } = happening {
            self.done += 1;
            if self.every > 0 && self.done % self.every == 0 {
                use std::io::Write as _;
                let text = (self.report)(self.done);
                if self.stderr {
                    eprintln!("{}", text.trim_end());
                } else {
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "{}", text.trim_end()).and_then(|()| out.flush());
                }
            }
        }
        Flow::Continue
    }

    fn on_history(&mut self, happening: &Happening) {
        if let Happening::GameFinished { .. } = happening {
            self.done += 1;
        }
    }
}
