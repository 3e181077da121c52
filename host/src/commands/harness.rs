//! The one harness of every command that plays games: a validated `match`, `tournament` or
//! `sprt` ([`run_event`]: its `--out` directory's manifest first), and `ladder play`
//! (`commands::ladder::play`), each a [`Competition`] run by [`run_competition`]: the setup
//! book ([`load_book`]), the live page, the supervisor, the runtime, then [`play`]: the
//! executor and the sinks put together, the same way for every competition, and the end
//! (the report, the end messages, the exit code). What differs by kind (the games, the
//! report, where it sits among the sinks, its rendering, end message and exit code) comes
//! from the [`Competition`] and its [`ReportSink`].

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;

use crate::commands::CommandOutput;
use crate::compete::competition::{self, Competition, Header, ReportSink};
use crate::compete::sinks::{RecordsSink, StartupGuard, with_overload};
use crate::display::terminal::progress::{Interim, Progress, game_line};
use crate::display::terminal::style::Style;
use crate::display::terminal::watch_board::WatchBoard;
use crate::game::setup_book::SetupBook;
use crate::notice::{Level, Notice};
use crate::record::OutDirWriter;
use crate::run::executor::{BookLookup, Entrant, Executor};
use crate::run::happenings::{Failure, Flow, Happening, RunEnd, Sink};
use crate::run::manifest;
use crate::run::plan::{ConfigError, EventPlan, RunConfig, usage};
use crate::run::schedule::{self, GameSpec};
use crate::supervise::supervisor::Supervisor;

mod names;
mod out_dir;

pub use out_dir::Versions;
use out_dir::open_out_dir;

/// The report sink, shared with the progress line and the interim reports (which read it).
struct Shared(Rc<RefCell<Box<dyn ReportSink>>>);

impl Sink for Shared {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        self.0.borrow_mut().on_happening(happening)
    }
    fn finish(&mut self, end: &RunEnd) -> Result<(), Failure> {
        self.0.borrow_mut().finish(end)
    }
}

/// Runs the event to its end (or interruption) and returns what to print. With `--out DIR`
/// the directory's manifest makes the run resumable: the same command on the same
/// directory plays only what is not finished yet.
///
/// # Errors
/// A configuration problem found only now (the setup book, a directory that holds another
/// plan), with its exit code.
pub fn run_event(mut plan: EventPlan) -> Result<CommandOutput, ConfigError> {
    if let (Some(shard), false) = (plan.run.shard, plan.run.seed_given) {
        // Each shard would draw its own seed from the clock: a different plan each, found
        // out only by `merge`, after all the games.
        return Err(usage(format!(
            "--shard {}/{}: needs a fixed seed (--seed N, or seed = N in the config file) so that every shard plays the same plan; without one each shard would draw its own and merge would refuse them after all the games",
            shard.index, shard.count
        )));
    }
    let book = load_book(&plan.run)?;
    let lock = match &plan.run.out {
        Some(dir) => Some(manifest::DirLock::take(dir).map_err(usage)?),
        None => None,
    };
    let existing = match &plan.run.out {
        Some(dir) => manifest::read(dir).map_err(usage)?,
        None => None,
    };
    if let (Some(dir), true) = (&plan.run.out, plan.run.compress) {
        // Before the manifest is written: a directory keeps the form it was started with.
        crate::record::compress_allowed(dir).map_err(usage)?;
    }
    if let (Some(m), Some(dir)) = (&existing, &plan.run.out) {
        // The event's name is kept with the plan: a rerun without one takes it.
        plan.run.event = manifest::settle_event(m.event.as_deref(), plan.run.event.take(), dir).map_err(usage)?;
    }
    if let (Some(m), false) = (&existing, plan.run.seed_given) {
        // Re-running the same command resumes: without --seed, the directory's seed.
        plan.run.settings.match_seed = m.plan.event.seed;
    }
    // Bots not given a name are named by their `ready.name` when the event begins, and keep
    // it: a rerun on the directory takes the names from its manifest (issue #44, item 14).
    let competition = competition::of(&plan.kind);
    if let (Some(why), Some(_)) = (competition.open_ended(), plan.run.shard) {
        return Err(usage(format!("--shard: {why} and cannot be sharded")));
    }
    let (format, games_per_pairing) = competition.pairing();
    // The schedule depends on the bots' programs, not their names.
    let event = plan.run.schedule_event(&plan.bots, format, games_per_pairing, book.as_ref().map(|b| b.len() as u32));
    let asked = match (&existing, &plan.run.out) {
        (Some(m), Some(dir)) => {
            names::from_manifest(&plan.run, &mut plan.bots, &m.plan.bots, dir);
            None
        }
        _ => names::ask(&plan.run, &mut plan.bots, competition.games(&event).first()),
    };
    let mplan = manifest::Plan::new(
        competition.name(),
        competition.sprt(),
        &event,
        &plan.run.settings,
        &plan.bots,
        book.as_deref(),
    );
    let resumed = match &plan.run.out {
        Some(dir) => {
            let (ids, versions) = open_out_dir(dir, &plan, mplan, existing.as_ref())?;
            Some(Resumed { dir: dir.clone(), ids, versions })
        }
        None => None,
    };
    let records = match &plan.run.out {
        Some(dir) => Some(
            OutDirWriter::open(dir, plan.run.compress).map_err(|e| usage(format!("--out {}: {e}", dir.display())))?,
        ),
        None => None,
    };
    let (supervisor, preflown) = match asked {
        Some(a) => (Some(a.supervisor), a.preflown),
        None => (None, Vec::new()),
    };
    let extras = Extras { records, history: Vec::new(), resumed, watch: None, live_page: None, preflown };
    let outcome = compete(&plan.run, &plan.bots, &*competition, event, book, extras, supervisor);
    drop(lock);
    outcome
}

/// The setup book of `--setups`, if any.
///
/// # Errors
/// The book cannot be read, or holds a setup the rules refuse (exit 2).
pub fn load_book(run: &RunConfig) -> Result<Option<Arc<SetupBook>>, ConfigError> {
    match &run.setups {
        None => Ok(None),
        Some(path) => {
            let book = SetupBook::load(path, &run.settings.rules).map_err(|e| usage(format!("--setups: {e}")))?;
            // `--setups-start N` past the book's end would wrap silently (issue #44, item 15).
            if run.book_start as usize >= book.len() {
                return Err(usage(format!(
                    "--setups-start {}: the book {} holds {} (entries are numbered from 1)",
                    run.book_start + 1,
                    path.display(),
                    stratego_stats::plural(book.len() as u64, "setup")
                )));
            }
            Ok(Some(Arc::new(book)))
        }
    }
}

/// Plays `competition` between `bots` (by id, as in `event`) under `run`, once everything
/// it plays from is checked (the setup book `book`, the records file `records`, the games
/// of a `resumed` directory): names the protocol log, opens the board (`--watch`) and the
/// live page (`--serve`), starts the supervisor and a runtime, runs [`play`], and kills
/// every bot process left at the end. Every command that plays games goes through here.
///
/// # Errors
/// The board or the live page cannot be opened (exit 2).
pub fn run_competition(
    run: &RunConfig,
    bots: &[Entrant],
    competition: &dyn Competition,
    event: schedule::EventSpec,
    book: Option<Arc<SetupBook>>,
    records: Option<OutDirWriter>,
    resumed: Option<Resumed>,
) -> Result<CommandOutput, ConfigError> {
    let extras = Extras { records, history: Vec::new(), resumed, watch: None, live_page: None, preflown: Vec::new() };
    compete(run, bots, competition, event, book, extras, None)
}

/// [`run_competition`] with `extras` (its records and resumed directory; the board and the
/// live page are opened here), and the run's `supervisor` when it was started already (to
/// ask the bots their names: [`names::ask`]).
fn compete(
    run: &RunConfig,
    bots: &[Entrant],
    competition: &dyn Competition,
    event: schedule::EventSpec,
    book: Option<Arc<SetupBook>>,
    mut extras: Extras,
    supervisor: Option<Supervisor>,
) -> Result<CommandOutput, ConfigError> {
    if let Some(log) = &run.settings.protocol_log {
        tracing::info!("protocol log: {}", log.describe());
    }
    let watch = if run.watch {
        let bots =
            bots.iter().map(|b| (b.spec.name.clone(), b.spec.command.clone(), b.time_control.to_wire())).collect();
        let planned = competition.games(&event).len() as u64;
        let rules = run.settings.rules.spec().clone();
        Some(crate::display::terminal::watch_board::WatchBoard::open(rules, bots, Some(planned)).map_err(usage)?)
    } else {
        None
    };
    let title = competition.title(&bots.iter().map(|b| b.spec.name.as_str()).collect::<Vec<_>>());
    let planned = Some(competition.games(&event).len() as u64);
    let live_page =
        crate::display::web::live_page::LivePage::for_run(run, bots, &title, planned, competition.bot_pages())
            .map_err(usage)?;
    // A supervisor that asked the bots their names has its masks renamed already
    // ([`names::ask`]).
    let supervisor = match supervisor {
        Some(s) => s,
        None => names::supervisor_of(run, bots),
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let before = crate::notice::set_listener(Some(notices_of(run, watch.as_ref())));
    (extras.watch, extras.live_page) = (watch, live_page);
    let outcome = runtime.block_on(play(run, bots, competition, event, book, extras, supervisor.clone()));
    drop(runtime);
    supervisor.kill_all();
    crate::notice::set_listener(before);
    Ok(outcome)
}

/// Where the notices of the layers below go while a competition plays: on stderr, the
/// [`Level::Info`] ones left out with `-q`; with `--watch` drawn on stderr, under the board
/// instead (a line on stderr would write over it).
fn notices_of(run: &RunConfig, watch: Option<&WatchBoard>) -> crate::notice::Listener {
    let quiet = run.progress == crate::run::plan::ProgressMode::Quiet;
    let board = watch.and_then(WatchBoard::notices);
    Arc::new(move |n: &Notice| {
        if quiet && n.level == Level::Info {
            return;
        }
        match &board {
            Some(lines) => lines.lock().unwrap_or_else(|e| e.into_inner()).push_back(n.text.clone()),
            None => eprintln!("{}", n.text),
        }
    })
}

/// Finished games for the sinks, read as the run goes.
type History = Box<dyn Iterator<Item = Result<Happening, Failure>>>;

/// A resumed `--out` directory: the ids of its finished games (found before the run), whose
/// records the run's sinks read one at a time while the first games play.
pub struct Resumed {
    /// The directory.
    pub dir: std::path::PathBuf,
    /// Its finished games' ids, in file order (a game recorded twice, twice).
    pub ids: Vec<String>,
    /// Bots whose program changed since their games in it were played.
    pub versions: Versions,
}

/// The games of `event` in this shard, minus those finished (`done`); and the finished
/// ones of them, by id.
fn remaining_ids(
    games: Vec<GameSpec>,
    shard: Option<manifest::Shard>,
    done: &[String],
) -> (u32, VecDeque<GameSpec>, std::collections::HashMap<String, GameSpec>) {
    let done: std::collections::HashSet<&str> = done.iter().map(String::as_str).collect();
    let mut finished = std::collections::HashMap::new();
    let mut todo = VecDeque::new();
    let mut planned = 0;
    for g in games.into_iter().filter(|g| shard.is_none_or(|s| schedule::in_shard(g.pair, s.index, s.count))) {
        planned += 1;
        if done.contains(g.game_id.as_str()) {
            finished.insert(g.game_id.clone(), g);
        } else {
            todo.push_back(g);
        }
    }
    (planned, todo, finished)
}

/// The events of the finished games `finished` (by id) as the records of `dir` hold them,
/// read one at a time (the first record of a game; records of other plans or shards are
/// left out); a record that cannot be read is a failure of the run. Reading stops once every
/// finished game is found (the run appends its own games after them).
fn history_of(dir: &std::path::Path, mut finished: std::collections::HashMap<String, GameSpec>) -> History {
    let fail = |message: String| Failure { message, code: crate::exit::USAGE };
    if finished.is_empty() {
        return Box::new(std::iter::empty());
    }
    // Opened (and the parsing threads of a plain file started) when the executor first asks,
    // after its pre-flight: not while the ids are scanned and the bots start.
    let dir = dir.to_owned();
    let mut opened: Option<Box<dyn Iterator<Item = Result<crate::record::GameRecord, String>>>> = None;
    let records = std::iter::from_fn(move || {
        let records = match &mut opened {
            Some(r) => r,
            None => match crate::record::records_iter(&dir) {
                Ok(r) => opened.insert(r),
                Err(e) => {
                    opened = Some(Box::new(std::iter::empty()));
                    return Some(Err(e));
                }
            },
        };
        records.next()
    });
    let mut failed = false;
    Box::new(
        records
            .map_while(move |r| {
                if failed || finished.is_empty() {
                    return None;
                }
                Some(match r {
                    Err(e) => {
                        failed = true;
                        Some(Err(fail(format!("cannot resume: {e}"))))
                    }
                    Ok(record) => finished
                        .remove(&record.game_id)
                        .map(|spec| Ok(Happening::GameFinished { spec, record: Arc::new(record) })),
                })
            })
            .flatten(),
    )
}

/// The games of `event` in this shard, minus those already in `history`; and `history` as
/// events (in schedule order, games of other plans or shards left out).
fn remaining(
    games: Vec<GameSpec>,
    shard: Option<manifest::Shard>,
    history: Vec<crate::record::GameRecord>,
) -> (u32, VecDeque<GameSpec>, Vec<Happening>) {
    let games: Vec<GameSpec> =
        games.into_iter().filter(|g| shard.is_none_or(|s| schedule::in_shard(g.pair, s.index, s.count))).collect();
    let planned = games.len() as u32;
    let mut done: std::collections::HashMap<String, crate::record::GameRecord> = std::collections::HashMap::new();
    for r in history {
        done.entry(r.game_id.clone()).or_insert(r);
    }
    let mut past = Vec::new();
    let mut todo = VecDeque::new();
    for g in games {
        match done.remove(&g.game_id) {
            Some(record) => past.push(Happening::GameFinished { spec: g, record: Arc::new(record) }),
            None => todo.push_back(g),
        }
    }
    (planned, todo, past)
}

/// Whether the finished games `finished` (by id) of the records of `dir`, given to
/// `probe` (a fresh report of the competition, as digests), settle it
/// ([`ReportSink::decided`]). A record that cannot be read is not an answer here (the run's
/// own reading of the history fails on it): false.
fn settled_by_records(
    probe: &mut dyn ReportSink,
    dir: &std::path::Path,
    finished: &std::collections::HashMap<String, GameSpec>,
) -> bool {
    let Ok(digests) = crate::record::digests_iter(dir) else { return false };
    let Some(sink) = probe.digest_sink() else { return false };
    let mut seen = std::collections::HashSet::new();
    for d in digests {
        let Ok(d) = d else { return false };
        if let Some(spec) = finished.get(&d.digest.game_id) {
            if seen.insert(spec.game_id.clone()) {
                sink.on_digest(spec, &d.digest);
            }
        }
    }
    probe.decided()
}

/// What a run adds to the games it plays, each optional.
pub struct Extras {
    /// Where the finished games' records are appended (`--out`).
    pub records: Option<OutDirWriter>,
    /// Games of the same plan an earlier run finished: counted first, not played again.
    pub history: Vec<crate::record::GameRecord>,
    /// Or those of a resumed directory, read as the run goes (with `history` empty).
    pub resumed: Option<Resumed>,
    /// The watch board (`--watch`).
    pub watch: Option<crate::display::terminal::watch_board::WatchBoard>,
    /// The live page (`--serve`).
    pub live_page: Option<crate::display::web::live_page::LivePage>,
    /// Bots started once already, before the run (asked their names), and how that went
    /// ([`Executor::preflown`]).
    pub preflown: Vec<Option<Result<(), Failure>>>,
}

/// Plays `competition` between `bots` (by id, as in `event`) under `run` and returns what to
/// print: the games of `event` in `run`'s shard not in `extras.history`, with the startup
/// watch, the records, the competition's report, `--report-every`, the progress lines (or
/// the board) and the live page as sinks, then the report and its exit code. Any command
/// that plays a competition can call it with its own [`Competition`].
///
/// The sinks see each event in this order (a sink that fails keeps it from those after it):
/// the startup guard, the competition's report when it keeps the games
/// ([`Competition::keeps_games`]: the ladder's database), the bots' new versions of a
/// resumed directory ([`Versions`], recorded by the records' writer once saved), the
/// records file, else the report there, then
/// `--report-every`, the progress lines, the board and the live page; so a game's line is
/// shown only once it is kept.
///
/// When the finished games already settle the competition ([`ReportSink::decided`]: a
/// decided SPRT) or none of its games is left, nothing is played: the run is the report of
/// those games, with the same exit code.
pub async fn play(
    run: &RunConfig,
    bots: &[Entrant],
    competition: &dyn Competition,
    event: schedule::EventSpec,
    book: Option<Arc<crate::game::setup_book::SetupBook>>,
    extras: Extras,
    supervisor: Supervisor,
) -> CommandOutput {
    let Extras { records, history, resumed, mut watch, mut live_page, preflown } = extras;
    // With --watch, the finished games' lines are shown under the board instead.
    let progress_mode = if watch.is_some() { crate::run::plan::ProgressMode::Quiet } else { run.progress };
    let names: Vec<String> = bots.iter().map(|b| b.spec.name.clone()).collect();
    let executor = executor_of(run, bots, book, &supervisor, preflown);
    let cancel = supervisor.cancel_on_signals();
    let mut records = match records {
        // A bot's new version is recorded once a game of it is saved (by the writer).
        Some(w) => match RecordsSink::start_with(w, resumed.as_ref().map(|r| r.versions.after_write())) {
            Ok(s) => Some(s),
            Err(e) => {
                return CommandOutput {
                    stdout: String::new(),
                    code: fail(&format!("cannot start the record writer: {e}")),
                };
            }
        },
        None => None,
    };
    let records_path = records.as_ref().map(|r| r.path().to_owned());
    let mut startup = StartupGuard::default();
    startup.recover = run.recover;
    // A game lost under --recover is said in plain words, even with -q.
    startup.say = Some(Box::new(|m: &str| eprintln!("stratego-host: warning: {m}")));
    let header_of = |planned: u32| Header {
        names: names.clone(),
        planned,
        seed: run.settings.match_seed,
        rules: run.settings.rules.name().to_owned(),
        records: records_path.clone(),
    };
    let Start { planned, todo, history, earlier, settled, versions } =
        start_from(run, competition, &event, resumed, history, &header_of);
    let mut versions = versions;
    let source = if settled { competition::Games::List(VecDeque::new()) } else { competition.source(&event, todo) };
    let header = header_of(planned);
    // Every report says when the machine was overloaded (issue #41, item 11(a)).
    let report = Rc::new(RefCell::new(with_overload(competition.report_sink(&header), &header.names)));
    let status = report.clone();
    // An open-ended competition (an SPRT) stops when its test decides: its `--max-games`
    // is a limit, not the length of the run, so no bar and no ETA against it (issue #44,
    // item 15).
    let bar_length = competition.open_ended().is_none().then_some(u64::from(planned));
    let mut progress = Progress::new(
        progress_mode,
        bar_length,
        move |e| e.finished().and_then(|_| status.borrow().progress()),
        game_line,
    );
    let mut shared = Shared(report.clone());
    let now = report.clone();
    let mut interim = Interim::new(run.report_every, run.json, move |done| now.borrow().interim(done));
    if let Some(page) = live_page.as_mut().filter(|_| report.borrow().live_standings()) {
        let report = report.clone();
        page.set_standings(Box::new(move |done, _over| standings_html(&**report.borrow(), done)));
    }
    let keeps_games = competition.keeps_games();
    let (store, shared) = if keeps_games { (Some(&mut shared), None) } else { (None, Some(&mut shared)) };
    let mut end = play_with_sinks(
        &executor,
        source,
        history,
        [
            Some(&mut startup),
            store.map(|s| s as &mut dyn Sink),
            versions.as_mut().map(|v| v as &mut dyn Sink),
            records.as_mut().map(|r| r as &mut dyn Sink),
            shared.map(|s| s as &mut dyn Sink),
            Some(&mut interim),
            Some(&mut progress),
            watch.as_mut().map(|w| w as &mut dyn Sink),
            live_page.as_mut().map(|p| p as &mut dyn Sink),
        ],
        cancel,
    )
    .await;
    // A report that keeps the games is not remade from the records file, its copy.
    let remade = if keeps_games {
        None
    } else {
        saved_after_failure(run, records.as_ref(), competition.games(&event), &mut end)
    };
    if let Some(saved) = remade {
        let mut again = with_overload(competition.report_sink(&header), &header.names);
        feed_saved(&mut *again, &saved, &end);
        *report.borrow_mut() = again;
    }
    report_outcome(run, &report, &end, earlier, records_path.as_deref())
}

/// The executor of a run of `bots` under `run`, with the setup book `book`.
fn executor_of(
    run: &RunConfig,
    bots: &[Entrant],
    book: Option<Arc<crate::game::setup_book::SetupBook>>,
    supervisor: &Supervisor,
    preflown: Vec<Option<Result<(), Failure>>>,
) -> Executor {
    let lookup: Option<BookLookup> =
        book.map(|b| Arc::new(move |i: u32, color| b.deployment(i as usize, color)) as BookLookup);
    Executor {
        settings: Arc::new(run.settings.clone()),
        bots: Arc::new(crate::run::executor::Bots::new(bots.to_vec())),
        book: lookup,
        concurrency: run.concurrency,
        pin: run.pin,
        auto_pin: run.auto_pin,
        supervisor: supervisor.clone(),
        preflown,
    }
}

/// The end of a run that ended as `end`, `earlier` games finished before it: the report
/// concluded, its text (or JSON) for stdout, the index page of `--out`, the end message
/// and the exit code ([`finish`]).
fn report_outcome(
    run: &RunConfig,
    report: &RefCell<Box<dyn ReportSink>>,
    end: &RunEnd,
    earlier: usize,
    records_path: Option<&str>,
) -> CommandOutput {
    if let Err(f) = report.borrow_mut().conclude() {
        eprintln!("stratego-host: {}", f.message);
        return CommandOutput { stdout: String::new(), code: f.code };
    }
    let report = report.borrow();
    // A bot that cannot start before any game is finished (exit 3) leaves no table to show:
    // an empty one would only hide the error above it (issue #44, item 15).
    let nothing = earlier == 0
        && end.finished == 0
        && end.failed.as_ref().is_some_and(|f| f.code == crate::exit::BOT_NOT_STARTABLE);
    let text = if run.json {
        report.json(run.event.as_deref())
    } else if nothing {
        String::new()
    } else {
        report.text(Style::stdout())
    };
    let page = report.page();
    // A report without a page of its own (an SPRT's) gets no index.
    let index = match &page.summary_html {
        Some(html) => write_index(run, &page.title, html, &page.extra),
        None => Ok(()),
    };
    with_index(finish(text, end, &**report, records_path), index)
}

/// Where a run starts: the games of its plan in its shard (`planned`), those left to play
/// (`todo`), the finished ones for the sinks, how many (`earlier`), whether they already
/// settle the competition, and a resumed directory's changed bots.
struct Start {
    planned: u32,
    todo: VecDeque<GameSpec>,
    history: History,
    earlier: usize,
    settled: bool,
    versions: Option<Versions>,
}

/// The [`Start`] of `competition`'s `event` from a `resumed` directory or the finished
/// games of `history` (`header_of` makes the header of a probe of the report), said on
/// stderr when nothing is left to play.
fn start_from(
    run: &RunConfig,
    competition: &dyn Competition,
    event: &schedule::EventSpec,
    resumed: Option<Resumed>,
    history: Vec<crate::record::GameRecord>,
    header_of: &dyn Fn(u32) -> Header,
) -> Start {
    // Whether the finished games already settle the competition (a decided SPRT): then
    // nothing is played, and the run is the report of those games (issue #41, item 3).
    let mut settled = false;
    let resumed_dir = resumed.as_ref().map(|r| r.dir.clone());
    let mut versions = None;
    // Games finished before this run (a resumed directory's, the ladder's history).
    let earlier: usize;
    let (planned, todo, history): (u32, VecDeque<GameSpec>, History) = match resumed {
        Some(r) if history.is_empty() => {
            versions = Some(r.versions);
            let (planned, todo, finished) = remaining_ids(competition.games(event), run.shard, &r.ids);
            earlier = finished.len();
            if competition.open_ended().is_some() && !finished.is_empty() {
                let mut probe = competition.report_sink(&header_of(planned));
                settled = settled_by_records(&mut *probe, &r.dir, &finished);
            }
            (planned, todo, history_of(&r.dir, finished))
        }
        _ => {
            let (planned, todo, past) = remaining(competition.games(event), run.shard, history);
            earlier = past.len();
            if competition.open_ended().is_some() && !past.is_empty() {
                let mut probe = competition.report_sink(&header_of(planned));
                for e in &past {
                    probe.on_history(e);
                }
                settled = probe.decided();
            }
            (planned, todo, Box::new(past.into_iter().map(Ok)))
        }
    };
    if let (Some(dir), true) = (&resumed_dir, run.progress != crate::run::plan::ProgressMode::Quiet) {
        if settled {
            eprintln!(
                "stratego-host: {}: its finished games already decide the {}: nothing more is played; the report follows",
                dir.display(),
                competition.name()
            );
        } else if todo.is_empty() {
            eprintln!(
                "stratego-host: {}: every game of the plan is finished: nothing is played; the report follows",
                dir.display()
            );
        }
    }
    if settled || todo.is_empty() {
        // A bot edited since its games here: a rerun would silently report the old ones.
        for change in versions.iter().flat_map(|v| &v.pending) {
            eprintln!("stratego-host: warning: {}", change.unplayed);
        }
    }
    Start { planned, todo, history, earlier, settled, versions }
}

/// After a game record could not be written (a full disk): the games of `games` that the
/// records file holds, as events, so that the summary is made again from exactly those;
/// the failure's message then says how many finished games were not saved. `None` when
/// the records did not fail.
fn saved_after_failure(
    run: &RunConfig,
    records: Option<&RecordsSink>,
    games: Vec<GameSpec>,
    end: &mut RunEnd,
) -> Option<Vec<Happening>> {
    let (Some(dir), true) = (&run.out, records.is_some_and(RecordsSink::failed)) else { return None };
    let saved = match crate::record::read_back(dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("stratego-host: warning: cannot read the records back: {e}");
            return None;
        }
    };
    let (_, _, past) = remaining(games, run.shard, saved);
    let unsaved = (end.finished as usize).saturating_sub(past.len());
    if let Some(f) = end.failed.as_mut() {
        f.message.push_str(&format!(
            "\n{} holds {} finished games of this event, and the summary counts exactly those; {unsaved} other finished games could not be saved (the same command plays them again)",
            crate::record::records_path(dir).unwrap_or_else(|_| dir.join("games.jsonl")).display(),
            past.len()
        ));
    }
    end.finished = past.len() as u32;
    Some(past)
}

/// Feeds the saved games to a fresh summary sink, and closes it.
fn feed_saved<S: Sink + ?Sized>(sink: &mut S, saved: &[Happening], end: &RunEnd) {
    for e in saved {
        sink.on_history(e);
    }
    let _ = sink.finish(end);
}

/// The live page's standings after `done` games, the same table while the event runs and
/// once it is over (issue #44, item 8): the report's [`ReportSink::live_html`] (a match's
/// or a tournament's ranking with Elo, error bars, score and faults, an SPRT's LLR between
/// its bounds).
fn standings_html(report: &dyn ReportSink, done: u64) -> String {
    report.live_html(done)
}

/// Runs the executor with the sinks that are there, in order.
async fn play_with_sinks(
    executor: &Executor,
    source: impl crate::run::executor::GameSource + 'static,
    history: History,
    sinks: [Option<&mut dyn Sink>; 9],
    cancel: crate::supervise::supervisor::Cancel,
) -> RunEnd {
    let mut sinks: Vec<&mut dyn Sink> = sinks.into_iter().flatten().collect();
    executor.run_with_history(source, history, &mut sinks, cancel).await
}

/// With `--out DIR`: `DIR/index.html` (the summary and every game of the directory, in
/// schedule order, over several pages for a long list), the `extra` pages the summary links,
/// and a viewer page per game in `DIR/games/` (at most
/// [`crate::display::files::viewer::MAX_VIEWER_PAGES`]). The records are read one at a time.
fn write_index(
    run: &RunConfig,
    title: &str,
    summary_html: &str,
    extra: &[crate::display::files::viewer::ExtraPage],
) -> Result<(), String> {
    let Some(dir) = run.out.as_ref().filter(|_| !run.no_html) else { return Ok(()) };
    let title = match &run.event {
        Some(name) => format!("{name} — {title}"),
        None => title.to_owned(),
    };
    let title = title.as_str();
    let index = dir.join("index.html");
    let options = crate::display::files::viewer::IndexOptions {
        per_page: crate::display::files::viewer::GAMES_PER_PAGE,
        extra,
        force: None,
        flag: "--out",
    };
    let w = crate::display::files::viewer::write_index_streamed(
        &index,
        title,
        Some(summary_html),
        crate::record::digests_iter(dir)?,
        crate::display::files::viewer::MAX_VIEWER_PAGES,
        &options,
    )?;
    if run.progress != crate::run::plan::ProgressMode::Quiet {
        eprintln!(
            "stratego-host: wrote {} ({}; {} viewer pages in {}, {:.2} MB, and their script, {:.0} KB)",
            index.display(),
            stratego_stats::plural(w.games as u64, "game"),
            w.pages,
            dir.join("games").display(),
            w.page_bytes as f64 / 1e6,
            w.asset_bytes as f64 / 1e3
        );
    }
    Ok(())
}

/// An index that could not be written fails a run that otherwise succeeded (exit 1).
fn with_index(mut outcome: CommandOutput, index: Result<(), String>) -> CommandOutput {
    if let Err(e) = index {
        eprintln!("stratego-host: cannot write the index page: {e}");
        if outcome.code == crate::exit::OK {
            outcome.code = crate::exit::FAILURE;
        }
    }
    outcome
}

fn fail(message: &str) -> i32 {
    eprintln!("stratego-host: {message}");
    crate::exit::FAILURE
}

/// The outcome for how the run ended: a failed sink says why and exits with its code, an
/// interruption says so ([`ReportSink::end_message`]: where the finished games are) and
/// exits 130, else the report's end message if any, and its code.
fn finish(stdout: String, end: &RunEnd, report: &dyn ReportSink, records: Option<&str>) -> CommandOutput {
    if let Some(f) = &end.failed {
        eprintln!("stratego-host: {}", f.message);
        // A run that stopped before any game finished (a bot that cannot start) has no
        // summary: an empty table would only stand before the error.
        let stdout = if end.finished == 0 { String::new() } else { stdout };
        return CommandOutput { stdout, code: f.code };
    }
    if let Some(message) = report.end_message(end, records) {
        eprintln!("stratego-host: {message}");
    }
    let code = if end.cancelled { crate::exit::INTERRUPTED } else { report.code() };
    CommandOutput { stdout, code }
}
