//! The sinks every command shares: the records file, the live progress on stderr, and the
//! two-bot match summary. Tournament tables and the SPRT have theirs in
//! [`crate::compete::tournament`] and [`crate::compete::sprt`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use stratego_rules::Color;

use crate::compete::report::{Overload, Summary};
use crate::compete::report_sink::{Page, ReportSink};
use crate::display::terminal::style::Style;
use crate::reason::Reason;
use crate::record::{GameRecord, OutDirWriter};
use crate::run::happenings::stderr_lines;
use crate::run::happenings::{DigestSink, Failure, Flow, Happening, RunEnd, Sink};

/// Run by the record writer's thread for each finished game just before its record is
/// appended: what must be on disk before the game's record is (a bot's new version in the
/// manifest: a host killed in between leaves the change said and the game unsaved, which a
/// resume plays again with the new version, rather than a saved game of the new version that
/// a resume would count as the old one's). An error stops the run as a record that could not
/// be written does (its message, whole); the record is then not appended.
pub type AfterWrite = Box<dyn FnMut(&GameRecord) -> Result<(), String> + Send>;

/// Appends each finished game's record to `DIR/games.jsonl`, on a low-priority thread of
/// its own: encoding a long game takes a millisecond or more, which must not be taken from
/// thinking bots (the host's own thread runs at a raised priority).
pub struct RecordsSink {
    queue: Option<std::sync::mpsc::Sender<Arc<GameRecord>>>,
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
    failed: Arc<AtomicBool>,
    path: String,
}

impl RecordsSink {
    /// Starts the writer thread for `writer`, which runs `after` for each record just before
    /// it appends it (see [`AfterWrite`]).
    ///
    /// # Errors
    /// The thread cannot be started.
    pub fn start_with(writer: OutDirWriter, mut after: Option<AfterWrite>) -> std::io::Result<RecordsSink> {
        let (tx, rx) = std::sync::mpsc::channel::<Arc<GameRecord>>();
        let failed = Arc::new(AtomicBool::new(false));
        let path = writer.path().display().to_string();
        let flag = failed.clone();
        let at = path.clone();
        let thread = std::thread::Builder::new().name("records".into()).spawn(move || {
            crate::supervise::os::lower_current_thread();
            for record in rx {
                let done = after.as_mut().map_or(Ok(()), |after| after(&record)).and_then(|()| {
                    writer.append(&record).map_err(|e| format!("cannot write a game record to {at}: {e}"))
                });
                if let Err(e) = done {
                    flag.store(true, Ordering::SeqCst);
                    return Err(e);
                }
            }
            Ok(())
        })?;
        Ok(RecordsSink { queue: Some(tx), thread: Some(thread), failed, path })
    }

    /// The records file.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Whether a record could not be written.
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::SeqCst)
    }

    fn close(&mut self) -> Result<(), Failure> {
        self.queue = None;
        let message = match self.thread.take().map(|t| t.join()) {
            None | Some(Ok(Ok(()))) => return Ok(()),
            Some(Ok(Err(message))) => message,
            Some(Err(_)) => "the record writer panicked".into(),
        };
        Err(Failure { message, code: crate::exit::FAILURE })
    }
}

impl Sink for RecordsSink {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        if let Happening::GameFinished { record, .. } = happening {
            if self.failed.load(Ordering::SeqCst) {
                // Results that cannot be saved are lost: stop the run.
                return Flow::Fail(self.close().err().unwrap_or_else(|| Failure {
                    message: "cannot write a game record".into(),
                    code: crate::exit::FAILURE,
                }));
            }
            if let Some(q) = &self.queue {
                let _ = q.send(record.clone());
            }
        }
        Flow::Continue
    }

    fn on_history(&mut self, _happening: &Happening) {
        // Already in the file.
    }

    fn finish(&mut self, _end: &RunEnd) -> Result<(), Failure> {
        self.close()
    }
}

impl Drop for RecordsSink {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// Stops the run when a bot cannot start for a game: the game ended before the bot said
/// `ready` (it exited, crashed, closed its output or stayed silent), whether it is its first
/// game or a later one (a licence server that went away), in a fresh run or a resumed one.
/// The host stops with exit code 3 and the bot's stderr instead of recording a forfeit for
/// each game it would play. It comes before the records in a run's sinks: that game is not
/// a game, and is neither saved nor counted (the same command plays it once the bot is
/// fixed). The executor's pre-flight catches most such bots before any game.
///
/// With `--recover` ([`StartupGuard::recover`]) such a game is a lost game like any other
/// (its record says why), the bot is started again for its next game, and the event goes
/// on; [`StartupGuard::say`] is told which game was lost and why.
#[derive(Default)]
pub struct StartupGuard {
    /// Bots (by id) that have said `ready` at least once (in this run or the games of the
    /// directory it resumes): for the words only.
    ready: std::collections::HashSet<usize>,
    /// `--recover`: such a game is a lost game like any other (its record says why), and
    /// the event goes on; a warning says so.
    pub recover: bool,
    /// Where the warning of a game lost under `--recover` goes, in plain words (the command
    /// says it on stderr, even with `-q`). Without, it is logged as a warning.
    #[allow(clippy::type_complexity)] // one callback
    pub say: Option<Box<dyn FnMut(&str)>>,
}

impl StartupGuard {
    fn note_ready(&mut self, spec: &crate::run::schedule::GameSpec, record: &GameRecord) {
        for color in [Color::Red, Color::Blue] {
            if record.bots[color].reported_name.is_some() {
                self.ready.insert(spec.seats[color]);
            }
        }
    }
}

/// Whether `color`'s bot lost `record`'s game before it said `ready` in it: it crashed,
/// closed its output or exited before its `ready` (a process that never answered `hello`,
/// `reported_name` empty), or said nothing in time (`startup_timeout`, which only a bot
/// that is not ready gets).
pub fn failed_to_start(record: &GameRecord, color: Color) -> bool {
    let at_fault = record.result.faulty == Some(color) || record.result.faulty.is_none();
    let bot = &record.bots[color];
    at_fault
        && match record.result.reason {
            Reason::StartupTimeout => record.deployments[color].is_none(),
            Reason::Crash | Reason::ClosedOutput | Reason::BothFaulted => bot.reported_name.is_none(),
            _ => false,
        }
}

impl Sink for StartupGuard {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        let Happening::GameFinished { spec, record } = happening else { return Flow::Continue };
        for color in [Color::Red, Color::Blue] {
            if !failed_to_start(record, color) {
                continue;
            }
            let bot = &record.bots[color];
            let when = if self.ready.contains(&spec.seats[color]) {
                format!("it had played before, but game {} ended before it was ready", spec.game_id)
            } else {
                "its first game ended before it was ready".to_owned()
            };
            let mut message =
                format!("bot {} cannot start: {when}: {}", bot.name, crate::text::clean(&record.result.message));
            message.push_str(&stderr_lines(&bot.name, &bot.stderr_tail));
            // A bot that was ready before and is only slow to say so now (a JIT runtime on
            // a loaded machine) forfeits this game; only a process that could not start at
            // all (it exited or crashed before ready) stops the event.
            let slow = record.result.reason == Reason::StartupTimeout && self.ready.contains(&spec.seats[color]);
            if slow && !self.recover {
                let said = format!(
                    "{message}\n  game {} is lost by {} (it was ready in an earlier game, so a start-up timeout is a forfeit, not a bot that cannot start); the event goes on",
                    spec.game_id, bot.name
                );
                match self.say.as_mut() {
                    Some(say) => say(&said),
                    None => crate::notice::warn(&said),
                }
                continue;
            }
            if self.recover {
                let said = format!(
                    "{message}\n  --recover: game {} is lost by {}, who is started again for its next game",
                    spec.game_id, bot.name
                );
                match self.say.as_mut() {
                    Some(say) => say(&said),
                    None => crate::notice::warn(&said),
                }
                continue;
            }
            message.push_str(&format!(
                "\n  the event stops here; game {} is not recorded (the same command plays it once the bot starts again; --recover would score it as a loss and go on)",
                spec.game_id
            ));
            return Flow::Fail(Failure { message, code: crate::exit::BOT_NOT_STARTABLE });
        }
        self.note_ready(spec, record);
        Flow::Continue
    }

    /// A game of the directory a run resumes: only which bots were ready (a game lost by a
    /// bot that could not start was recorded under `--recover`, and stays so).
    fn on_history(&mut self, happening: &Happening) {
        if let Happening::GameFinished { spec, record } = happening {
            self.note_ready(spec, record);
        }
    }
}

/// The two-bot summary of `match` (bot 0 is bot A).
pub struct MatchSummary {
    /// The summary so far.
    pub summary: Summary,
    /// Bot A's score in the first finished game of each pair still open.
    open_pairs: std::collections::BTreeMap<u32, f64>,
}

impl MatchSummary {
    /// A sink that fills `summary`.
    pub fn new(summary: Summary) -> MatchSummary {
        MatchSummary { summary, open_pairs: std::collections::BTreeMap::new() }
    }
}

impl Sink for MatchSummary {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        if let Happening::GameFinished { spec, record } = happening {
            self.on_digest(spec, &stratego_records::GameDigest::of(record));
        }
        Flow::Continue
    }

    fn finish(&mut self, end: &RunEnd) -> Result<(), Failure> {
        let s = &mut self.summary;
        s.interrupted = end.cancelled;
        s.wall_s = end.wall.as_secs_f64();
        s.host_cpu_us_per_ply = if s.plies == 0 { 0.0 } else { end.host_cpu_us as f64 / s.plies as f64 };
        s.host_peak_rss_kib = end.host_peak_rss_kib;
        Ok(())
    }
}

impl DigestSink for MatchSummary {
    fn on_digest(&mut self, spec: &crate::run::schedule::GameSpec, game: &stratego_records::GameDigest) {
        let a_color = if spec.seats.red == 0 { Color::Red } else { Color::Blue };
        self.summary.add_digest(game, a_color);
        let score = match game.result.winner {
            None => 0.5,
            Some(w) if w == a_color => 1.0,
            Some(_) => 0.0,
        };
        match self.open_pairs.remove(&spec.pair) {
            None => {
                self.open_pairs.insert(spec.pair, score);
            }
            Some(first) => self.summary.pentanomial.add(first + score),
        }
    }
}

/// A competition's report with what [`Overload`] found added: the summary's lines, `overload`
/// in the JSON (always), a line under each `--report-every` report and a warning on the index
/// page when the machine was overloaded. It counts what the report counts: whole records, or
/// digests when the report reads those (`merge`).
pub struct WithOverload {
    inner: Box<dyn ReportSink>,
    overload: Overload,
}

/// `report` with the overload tally of the bots `names` (by id) added ([`WithOverload`]).
pub fn with_overload(report: Box<dyn ReportSink>, names: &[String]) -> Box<dyn ReportSink> {
    Box::new(WithOverload { inner: report, overload: Overload::new(names) })
}

impl WithOverload {
    fn count(&mut self, happening: &Happening) {
        if let Happening::GameFinished { spec, record } = happening {
            self.overload.add(spec.seats, record);
        }
    }
}

impl Sink for WithOverload {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        let flow = self.inner.on_happening(happening);
        // A game the report refused (the ladder's database) is not counted.
        if !matches!(flow, Flow::Fail(_)) {
            self.count(happening);
        }
        flow
    }

    fn on_history(&mut self, happening: &Happening) {
        self.count(happening);
        self.inner.on_history(happening);
    }

    fn wants_plies(&self) -> bool {
        self.inner.wants_plies()
    }

    fn finish(&mut self, end: &RunEnd) -> Result<(), Failure> {
        self.inner.finish(end)
    }
}

impl DigestSink for WithOverload {
    fn on_digest(&mut self, spec: &crate::run::schedule::GameSpec, game: &stratego_records::GameDigest) {
        if let Some(inner) = self.inner.digest_sink() {
            inner.on_digest(spec, game);
            self.overload.add_digest(spec.seats, game);
        }
    }
}

impl ReportSink for WithOverload {
    fn digest_sink(&mut self) -> Option<&mut dyn DigestSink> {
        if self.inner.digest_sink().is_some() { Some(self) } else { None }
    }

    fn progress(&self) -> Option<String> {
        self.inner.progress()
    }

    fn interim(&self, done: u64) -> String {
        let mut text = self.inner.interim(done);
        if let Some(line) = self.overload.line() {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    fn text(&self, style: Style) -> String {
        let mut text = self.inner.text(style);
        let extra = self.overload.text();
        if !extra.is_empty() && !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text + &extra
    }

    fn json(&self, event: Option<&str>) -> String {
        let text = self.inner.json(event);
        // Added as the last field of the report's object, its other fields left in their
        // order (a `serde_json::Map` would sort them).
        match text.strip_suffix("\n}\n") {
            Some(head) if head.starts_with('{') && head.len() > 1 => {
                let tally = serde_json::to_string_pretty(&self.overload).expect("the tally serialises");
                format!("{head},\n  \"overload\": {}\n}}\n", tally.replace('\n', "\n  "))
            }
            _ => text,
        }
    }

    fn page(&self) -> Page {
        let mut page = self.inner.page();
        if let Some(html) = page.summary_html.as_mut() {
            html.insert_str(0, &self.overload.html());
        }
        page
    }

    fn code(&self) -> i32 {
        self.inner.code()
    }

    fn live_html(&self, done: u64) -> String {
        self.inner.live_html(done)
    }

    fn live_standings(&self) -> bool {
        self.inner.live_standings()
    }

    fn decided(&self) -> bool {
        self.inner.decided()
    }

    fn conclude(&mut self) -> Result<(), Failure> {
        self.inner.conclude()
    }

    fn end_message(&self, end: &RunEnd, records: Option<&str>) -> Option<String> {
        self.inner.end_message(end, records)
    }
}
