//! `arena run FILE`: the arena as a competition played through the one harness
//! ([`crate::commands::harness::run_competition`]) until SIGINT/SIGTERM.
//!
//! - the entrants: the file's active bots when the run starts (local ones made entrants as
//!   `match` makes them, sandboxed unless `--no-sandbox`; remote ones by their token hashes,
//!   present while connected to `--listen`);
//! - the roster: [`Roster`] reads the file's entrants again at most once a second, so that
//!   `arena retire` takes effect at once, and an entrant added (`arena add`, `arena token`)
//!   joins at once: the source hands it to the executor ([`GameSource::admit`]), which gives
//!   it the next bot id, its sandbox masks, its token to the hub, its start-up check, and
//!   tells the sinks (the live page names it); a local one that cannot start is said and
//!   not paired;
//! - the games: [`ArenaSource`] asks the [`Pool`] for a pairing whenever a game slot is free
//!   (`-j N` slots); when fewer than two entrants are idle and present it has none yet, and
//!   the slot asks again a little later ([`crate::run::executor::GameSource::ends_when_empty`]);
//! - the report: [`ArenaReport`], the run's first sink after the startup guard, saves each
//!   finished game in its own transaction (the ladder's [`Ladder::insert_game`]), then frees
//!   its two entrants; the table (the ladder's Bradley–Terry, [`LadderTable`]) is the live
//!   page's standings, `--report-every`'s report, and the output at the end;
//! - the running list `FILE.running`: the ids of the games running now, written anew when
//!   a game starts and once it is saved; the next run names those not in the file as void
//!   ([`void_games`]) and starts the list anew.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use stratego_rules::{ByColor, Color};

use super::pool::Pool;
use crate::commands::CommandOutput;
use crate::commands::ladder::store::{Ladder, LadderBot};
use crate::commands::ladder::table::LadderTable;
use crate::compete::competition::{Competition, Games, Header, Page, ReportSink};
use crate::compete::report::json;
use crate::display::terminal::style::Style;
use crate::remote::hub::Hub;
use crate::run::executor::{Entrant, GameSource};
use crate::run::happenings::{Failure, Flow, Happening, RunEnd, Sink};
use crate::run::plan::{ConfigError, RunConfig, usage};
use crate::run::schedule::{self, GameSpec};

/// The list of games started and not known to be saved, beside the arena's file.
pub fn running_list(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".running");
    PathBuf::from(name)
}

/// The games of the running list `list` that `arena` does not hold: those that were running
/// when the arena last stopped (void: not counted), in the order they started.
///
/// # Errors
/// The list cannot be read, or a database error.
pub fn void_games(arena: &Ladder, list: &Path) -> Result<Vec<String>, String> {
    let text = match std::fs::read_to_string(list) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", list.display())),
    };
    let mut void = Vec::new();
    // A line cut by a kill is the id of a game that never reached the database either.
    for id in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !arena.has_game(id).map_err(|e| e.to_string())? {
            void.push(id.to_owned());
        }
    }
    Ok(void)
}

/// The arena's games: a pairing from the pool whenever a slot asks.
struct ArenaSource {
    pool: Arc<Mutex<Pool>>,
    event: schedule::EventSpec,
    /// This run's game id prefix.
    prefix: String,
    /// Games handed out.
    next: u32,
    /// The `--listen` hub, once started.
    hub: Option<Arc<Hub>>,
    /// The remote entrants' executor ids.
    remote: Vec<usize>,
    /// The file's roster, read again at most once a second ([`Roster`]).
    roster: Option<Roster>,
    /// The run's flags, to make an entrant added while it runs as the others were made.
    run: RunConfig,
    /// Entrants handed to the executor to admit, by name, not yet admitted.
    admitting: HashMap<String, LadderBot>,
}

/// The rating line each entrant plays on now, shared by the [`Roster`] and the
/// [`ArenaReport`]: a remote entrant that declares a new version (`ready.version`) moves to
/// a line of its own ([`ArenaReport::follow_version`]).
#[derive(Debug, Default)]
struct Lines {
    /// Database id of each executor id's line.
    ids: Vec<i64>,
    /// Name of each executor id's line.
    names: Vec<String>,
    /// The version each executor id's line holds (a remote entrant's declared one).
    versions: Vec<Option<String>>,
    /// The program's hash of each executor id (a local entrant's; remote ones: none).
    hashes: Vec<Option<String>>,
    /// Whether each executor id is a remote entrant.
    remote: Vec<bool>,
    /// Bots known: those of the file at the start, and those added or said since.
    known: HashSet<i64>,
}

impl Lines {
    /// Executor id `i` plays on bot `bot`'s line from now on (an entrant admitted while the
    /// arena runs), the program's hash `hash`.
    fn admit(&mut self, i: usize, bot: &LadderBot, hash: Option<String>) {
        if self.ids.len() <= i {
            self.ids.resize(i + 1, 0);
            self.names.resize(i + 1, String::new());
            self.versions.resize(i + 1, None);
            self.hashes.resize(i + 1, None);
            self.remote.resize(i + 1, false);
        }
        self.ids[i] = bot.id;
        self.names[i] = crate::text::clean(&bot.name).into_owned();
        self.versions[i] = bot.version.clone().filter(|_| bot.spec.remote);
        self.hashes[i] = hash;
        self.remote[i] = bot.spec.remote;
    }
}

/// The arena's entrants as its file says while it runs: `arena retire` takes effect at once
/// (the entrant is paired no more), an entrant added joins at once ([`Roster::added`]).
struct Roster {
    /// A read-only connection to the arena's file.
    conn: rusqlite::Connection,
    /// When it was last read.
    read: std::time::Instant,
    /// Each entrant's rating line, and the bots known.
    lines: Arc<Mutex<Lines>>,
    /// Executor ids retired since the start.
    retired: HashSet<usize>,
    /// Entrants added since the start, to admit.
    added: Vec<LadderBot>,
}

impl Roster {
    /// Opens the file read-only; `None` (with a warning) when it cannot be: retiring then
    /// takes effect at the next start.
    fn open(file: &Path, lines: Arc<Mutex<Lines>>) -> Option<Roster> {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = rusqlite::Connection::open_with_flags(file, flags)
            .and_then(|c| c.execute_batch("PRAGMA trusted_schema = OFF;").map(|()| c))
            .and_then(|c| c.busy_timeout(std::time::Duration::from_secs(1)).map(|()| c));
        match conn {
            Ok(conn) => Some(Roster {
                conn,
                read: std::time::Instant::now(),
                lines,
                retired: HashSet::new(),
                added: Vec::new(),
            }),
            Err(e) => {
                crate::notice::warn(format_args!(
                    "arena: {}: {e}: an entrant retired (or added) while the arena runs is paired (or joins) when it starts again",
                    file.display()
                ));
                None
            }
        }
    }

    /// Reads the roster again if a second has passed: retires in `pool` the entrants
    /// retired since, and says so, and keeps the entrants added since (`added`), to admit.
    fn refresh(&mut self, pool: &mut Pool) {
        if self.read.elapsed() < std::time::Duration::from_secs(1) {
            return;
        }
        self.read = std::time::Instant::now();
        let Ok(rows) = Ladder::bots_of(&self.conn) else { return };
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        for bot in rows {
            let (id, retired) = (bot.id, bot.retired_unix);
            let name = crate::text::clean(&bot.name).into_owned();
            if let (Some(i), Some(_)) = (lines.ids.iter().position(|&x| x == id), retired) {
                if self.retired.insert(i) {
                    pool.retire(i);
                    crate::notice::say(
                        crate::notice::Level::Always,
                        format!("stratego-host: arena: {name} retired: it is paired no more"),
                    );
                }
            } else if retired.is_none() && lines.known.insert(id) {
                self.added.push(bot);
            }
        }
    }
}

impl GameSource for ArenaSource {
    fn next_game(&mut self) -> Option<GameSpec> {
        self.next_game_after(None)
    }

    /// A pairing of idle entrants; the entrants of the slot's held game (`held`) are idle
    /// to it: paired again, a multi-game one plays on in its process.
    fn next_game_after(&mut self, held: Option<ByColor<usize>>) -> Option<GameSpec> {
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(roster) = self.roster.as_mut() {
            roster.refresh(&mut pool);
        }
        if let Some(hub) = &self.hub {
            for &i in &self.remote {
                pool.set_present(i, hub.connected(i));
            }
        }
        let seats = pool.choose_after(held)?;
        drop(pool);
        let n = self.next;
        self.next += 1;
        let [game, _] = schedule::pair_games(&self.event, n, seats.red, seats.blue);
        Some(GameSpec { game_id: format!("{}-{}", self.prefix, n + 1), index: n, ..game })
    }

    fn ends_when_empty(&self) -> bool {
        false
    }

    fn hub_started(&mut self, hub: &Arc<Hub>) {
        self.hub = Some(hub.clone());
    }

    /// The entrants added to the file since the roster was last read, made entrants as those
    /// of the start were (one that cannot be made is said, and left out).
    fn admit(&mut self) -> Vec<Entrant> {
        let Some(roster) = self.roster.as_mut() else { return Vec::new() };
        roster.refresh(&mut self.pool.lock().unwrap_or_else(|e| e.into_inner()));
        let mut made = Vec::new();
        for bot in std::mem::take(&mut roster.added) {
            let name = crate::text::clean(&bot.name).into_owned();
            if bot.spec.remote && self.run.settings.listen.is_none() {
                crate::notice::warn(format_args!(
                    "arena: {name} added, a remote entrant: it cannot join, the arena does not listen (--listen ADDR); it joins at the next start that does"
                ));
                continue;
            }
            match entrant(&bot, &self.run) {
                Ok(e) => {
                    self.admitting.insert(e.spec.name.clone(), bot);
                    made.push(e);
                }
                Err(e) => crate::notice::warn(format_args!("arena: {name} added, and it cannot join: {}", e.message)),
            }
        }
        made
    }

    /// An added entrant is bot `id`: its line, its place in the pool (present when local
    /// and started, or remote and connected), its own setups; said. One that could not
    /// start is not paired.
    fn admitted(&mut self, id: usize, entrant: &Entrant, check: Result<(), Failure>) {
        let Some(bot) = self.admitting.remove(&entrant.spec.name) else { return };
        let hash = (!entrant.spec.remote)
            .then(|| {
                crate::run::manifest::executable_hash(&entrant.spec.command, entrant.spec.dir.as_deref())
                    .map(|(_, h)| h)
            })
            .flatten();
        if let Some(roster) = &self.roster {
            roster.lines.lock().unwrap_or_else(|e| e.into_inner()).admit(id, &bot, hash);
        }
        if self.event.own_setup.len() <= id {
            self.event.own_setup.resize(id + 1, false);
        }
        self.event.own_setup[id] = entrant.spec.own_setup;
        if entrant.spec.remote {
            self.remote.push(id);
        }
        let ok = check.is_ok();
        self.pool.lock().unwrap_or_else(|e| e.into_inner()).admit(id, ok && !entrant.spec.remote, ok);
        let name = &entrant.spec.name;
        match check {
            Ok(()) if entrant.spec.remote => crate::notice::say(
                crate::notice::Level::Always,
                format!(
                    "stratego-host: arena: {name} added: it joins now (a remote entrant: it plays while connected)"
                ),
            ),
            Ok(()) => crate::notice::say(
                crate::notice::Level::Always,
                format!("stratego-host: arena: {name} added: it joins now"),
            ),
            Err(f) => crate::notice::warn(format_args!(
                "arena: {name} added, and it is not paired: {} (fix its program and `arena add` it under a new name; `arena retire {name}` keeps the next start from stopping on it)",
                f.message
            )),
        }
    }
}

/// `arena run` as the harness plays it.
struct ArenaKind {
    arena: Rc<RefCell<Ladder>>,
    source: RefCell<Option<ArenaSource>>,
    pool: Arc<Mutex<Pool>>,
    /// Each executor bot id's rating line.
    lines: Arc<Mutex<Lines>>,
    /// The running list.
    list: PathBuf,
    /// The pages per bot its live page serves (with `--serve`).
    pages: Option<Arc<dyn crate::display::web::bot_page::ArenaPages>>,
}

impl Competition for ArenaKind {
    fn name(&self) -> &'static str {
        "arena"
    }

    fn pairing(&self) -> (schedule::Format, u32) {
        (schedule::Format::RoundRobin, 2)
    }

    fn bot_pages(&self) -> Option<Arc<dyn crate::display::web::bot_page::ArenaPages>> {
        self.pages.clone()
    }

    fn open_ended(&self) -> Option<&'static str> {
        Some("an arena pairs its entrants as it goes")
    }

    /// None planned: the arena makes its games as entrants become idle.
    fn games(&self, _event: &schedule::EventSpec) -> Vec<GameSpec> {
        Vec::new()
    }

    fn source(&self, _event: &schedule::EventSpec, _todo: std::collections::VecDeque<GameSpec>) -> Games {
        match self.source.borrow_mut().take() {
            Some(s) => Games::Other(Box::new(s)),
            None => Games::List(Default::default()),
        }
    }

    fn report_sink(&self, _header: &Header) -> Box<dyn ReportSink> {
        Box::new(ArenaReport {
            arena: self.arena.clone(),
            pool: self.pool.clone(),
            lines: self.lines.clone(),
            list: self.list.clone(),
            running: HashSet::new(),
            saved: 0,
            table: None,
        })
    }

    fn keeps_games(&self) -> bool {
        true
    }

    fn title(&self, _names: &[&str]) -> String {
        "arena".to_owned()
    }
}

/// Saves every finished game at once, frees its entrants; its report is the table.
struct ArenaReport {
    arena: Rc<RefCell<Ladder>>,
    pool: Arc<Mutex<Pool>>,
    lines: Arc<Mutex<Lines>>,
    list: PathBuf,
    /// Games started and not finished.
    running: HashSet<String>,
    saved: u32,
    table: Option<LadderTable>,
}

impl Sink for ArenaReport {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        match happening {
            Happening::GameStarted { spec } => {
                self.running.insert(spec.game_id.clone());
                self.write_list()
            }
            Happening::GameFinished { spec, record } => {
                let seats = spec.seats;
                self.running.remove(&spec.game_id);
                let (record, ids, declared) = self.lines_of(seats, record);
                let hashes = self.lines.lock().unwrap_or_else(|e| e.into_inner()).hashes.clone();
                let versions = ByColor::new_with(|c| match &declared[c] {
                    Some(v) => Some(v.as_str()),
                    None => hashes.get(seats[c]).and_then(Option::as_deref),
                });
                let saved = self.arena.borrow_mut().insert_game(&record, ids, versions);
                let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
                match saved {
                    Ok(()) => {
                        pool.saved(seats);
                        drop(pool);
                        self.saved += 1;
                        self.write_list()
                    }
                    Err(e) => {
                        pool.ended(seats);
                        Flow::Fail(Failure {
                            message: format!("arena: cannot save game {}: {e}", record.game_id),
                            code: crate::exit::FAILURE,
                        })
                    }
                }
            }
            _ => Flow::Continue,
        }
    }
}

impl ArenaReport {
    /// The lines a finished game of `seats` is saved on (a remote entrant's declared version
    /// followed first: [`ArenaReport::follow_version`]): the record (its bots named as
    /// their lines), the lines' database ids, and the remote entrants' declared versions.
    fn lines_of(
        &mut self,
        seats: ByColor<usize>,
        record: &crate::record::GameRecord,
    ) -> (crate::record::GameRecord, ByColor<i64>, ByColor<Option<String>>) {
        let mut record = record.clone();
        let mut declared = ByColor::new(None, None);
        for color in Color::ALL {
            let i = seats[color];
            if !self.lines.lock().unwrap_or_else(|e| e.into_inner()).remote.get(i).copied().unwrap_or(false) {
                continue;
            }
            let version = record.bots[color].version.as_deref().map(|v| crate::text::clean(v.trim()).into_owned());
            if let Some(v) = version.filter(|v| !v.is_empty() && v.len() <= MAX_VERSION) {
                self.follow_version(i, &v);
                declared[color] = Some(v);
            }
        }
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        for color in Color::ALL {
            record.bots[color].name.clone_from(&lines.names[seats[color]]);
        }
        (record, ByColor::new(lines.ids[seats.red], lines.ids[seats.blue]), declared)
    }

    /// Remote entrant `i` declared `version` in its `ready`: when its line holds another
    /// (and has games), it plays on as `BASE@VERSION` (BASE: its name up to an `@`), a
    /// rating line of its own added to the file now (or that line again, when the same
    /// token declared that version before); the old line keeps its games and its place in
    /// the table. A line without games (or without a version yet) just records it.
    fn follow_version(&mut self, i: usize, version: &str) {
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if lines.versions[i].as_deref() == Some(version) {
            return;
        }
        let mut arena = self.arena.borrow_mut();
        let followed = (|| -> Result<Option<String>, String> {
            let bots = arena.bots()?;
            let Some(line) = bots.iter().find(|b| b.id == lines.ids[i]).cloned() else { return Ok(None) };
            let games = arena.games_played().map_err(|e| e.to_string())?.get(&line.id).copied().unwrap_or(0);
            if games == 0 {
                arena.set_version(line.id, version).map_err(|e| e.to_string())?;
                lines.versions[i] = Some(version.to_owned());
                return Ok(None);
            }
            let base = line.name.split('@').next().unwrap_or(&line.name);
            let name = format!("{base}@{version}");
            let same_token = |b: &&LadderBot| b.spec.remote && b.spec.tokens == line.spec.tokens;
            let id = match bots
                .iter()
                .filter(same_token)
                .find(|b| b.name == name || b.version.as_deref() == Some(version))
            {
                Some(b) => b.id,
                None => {
                    arena.add_spec(&name, line.spec.clone()).map_err(|e| e.message)?;
                    let id = arena.bot_id(&name).map_err(|e| e.message)?;
                    arena.set_version(id, version).map_err(|e| e.to_string())?;
                    id
                }
            };
            let name = bots.iter().find(|b| b.id == id).map_or(name, |b| b.name.clone());
            lines.known.insert(id);
            lines.ids[i] = id;
            lines.names[i] = crate::text::clean(&name).into_owned();
            lines.versions[i] = Some(version.to_owned());
            Ok(Some(format!(
                "stratego-host: arena: {} declares version {version} (its line's: {}): it plays as {}, a rating line of its own; {} keeps its games and its place in the table",
                crate::text::clean(&line.name),
                line.version.as_deref().unwrap_or("none"),
                lines.names[i],
                crate::text::clean(&line.name)
            )))
        })();
        match followed {
            Ok(Some(message)) => {
                drop(lines);
                self.pool.lock().unwrap_or_else(|e| e.into_inner()).renew(i);
                crate::notice::say(crate::notice::Level::Always, message);
            }
            Ok(None) => {}
            Err(e) => {
                // Its games go on on its line: said, not fatal.
                lines.versions[i] = Some(version.to_owned());
                crate::notice::warn(format_args!("arena: the version {version} a remote entrant declared: {e}"));
            }
        }
    }

    /// Writes the running list anew (a new file renamed over the old: a kill leaves one or
    /// the other whole): the games running now.
    fn write_list(&self) -> Flow {
        let mut ids: Vec<&str> = self.running.iter().map(String::as_str).collect();
        ids.sort_unstable();
        let text: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let mut tmp = self.list.clone().into_os_string();
        tmp.push(".new");
        let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, &self.list));
        match written {
            Ok(()) => Flow::Continue,
            Err(e) => Flow::Fail(Failure {
                message: format!("arena: cannot write {}: {e}", self.list.display()),
                code: crate::exit::FAILURE,
            }),
        }
    }

    fn table_now(&self) -> String {
        match LadderTable::read(&self.arena.borrow()) {
            Ok(t) => t.render(),
            Err(e) => format!("the table cannot be read: {e}\n"),
        }
    }
}

impl ReportSink for ArenaReport {
    fn progress(&self) -> Option<String> {
        None
    }

    /// The table now, refitted from every game in the file (`--report-every`'s report, made
    /// as a game is saved: the games running then are the others, the saved game's slot not
    /// having started its next one yet).
    fn interim(&self, _done: u64) -> String {
        let others = self.running.len();
        format!(
            "{} saved in this run, {} running beside it\n{}",
            stratego_stats::plural(u64::from(self.saved), "game"),
            if others == 0 { "no other game".to_owned() } else { stratego_stats::plural(others as u64, "other game") },
            self.table_now()
        )
    }

    fn text(&self, _style: Style) -> String {
        self.table.as_ref().map(LadderTable::render).unwrap_or_default()
    }

    fn json(&self, _event: Option<&str>) -> String {
        self.table.as_ref().map(json).unwrap_or_default()
    }

    fn page(&self) -> Page {
        Page { title: "arena".to_owned(), summary_html: None, extra: Vec::new() }
    }

    fn code(&self) -> i32 {
        crate::exit::OK
    }

    fn live_standings(&self) -> bool {
        true
    }

    fn live_html(&self, _done: u64) -> String {
        super::page::standings_html(&self.arena.borrow(), u64::from(self.saved), self.running.len())
    }

    /// The run is over: nothing runs now, so the running list is emptied (the games running
    /// when it stopped are named void by [`ReportSink::end_message`], once; the next start
    /// does not name them again), then the table is read.
    fn conclude(&mut self) -> Result<(), Failure> {
        std::fs::write(&self.list, "").map_err(|e| Failure {
            message: format!("arena: cannot write {}: {e}", self.list.display()),
            code: crate::exit::FAILURE,
        })?;
        let table = LadderTable::read(&self.arena.borrow())
            .map_err(|message| Failure { message, code: crate::exit::FAILURE })?;
        self.table = Some(table);
        Ok(())
    }

    fn end_message(&self, end: &RunEnd, _records: Option<&str>) -> Option<String> {
        let mut running: Vec<&str> = self.running.iter().map(String::as_str).collect();
        running.sort_unstable();
        let void = if running.is_empty() {
            String::new()
        } else {
            format!(
                "; {} running when it stopped {} void (not counted): {}",
                stratego_stats::plural(running.len() as u64, "game"),
                if running.len() == 1 { "is" } else { "are" },
                crate::text::clean(&running.join(", "))
            )
        };
        let how = if end.cancelled { "stopped" } else { "ended" };
        Some(format!("arena {how}: {} saved in this run{void}", stratego_stats::plural(u64::from(self.saved), "game")))
    }
}

/// The longest declared version a rating line is named after (a longer one is not followed).
const MAX_VERSION: usize = 40;

/// Makes an arena bot an entrant, as `match` does (its name cleaned for a terminal).
fn entrant(bot: &LadderBot, run: &RunConfig) -> Result<Entrant, ConfigError> {
    let mut spec = bot.spec.clone();
    spec.name = crate::text::clean(&bot.name).into_owned();
    crate::run::plan::entrant(spec, run).map_err(|mut e| {
        if bot.spec.limits.sandbox.is_none() && e.message.contains("--sandbox") {
            e.message = format!(
                "arena: local entrants run in the sandbox by default, and it cannot run here: {} (or `arena run --no-sandbox`, trusting every entrant's program)",
                e.message
            );
        }
        e
    })
}

/// A prefix unique to this run: `arena-<unix ms>-<random>`.
fn run_prefix() -> String {
    let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let random = stratego_protocol::Rng::derive(t.as_nanos() as u64, u64::from(std::process::id()));
    format!("arena-{}-{:08x}", t.as_millis(), random as u32)
}

/// A local entrant whose program changed since it played its games is a new version: it
/// plays as a new entrant `BASE@HASH` (BASE: its name up to an `@`; HASH: the first 8
/// digits of the program's hash), a rating line of its own, added now if it is not in the
/// file; the old entrant keeps its games and its place in the table and is paired no more.
/// One that played no game just has its new hash recorded. Returns the ids of the entrants
/// paired no more.
fn new_versions(arena: &mut Ladder) -> Result<HashSet<i64>, ConfigError> {
    let all = arena.bots().map_err(|e| usage(format!("arena: {e}")))?;
    let played = arena.games_played().map_err(|e| usage(format!("arena: {e}")))?;
    let names: HashSet<&str> = all.iter().map(|b| b.name.as_str()).collect();
    let mut superseded = HashSet::new();
    for b in all.iter().filter(|b| b.retired_unix.is_none() && !b.spec.remote) {
        let spec = b.spec.clone().resolve_builtin();
        let Some((_, now)) = crate::run::manifest::executable_hash(&spec.command, spec.dir.as_deref()) else {
            continue;
        };
        if b.version.as_deref() == Some(now.as_str()) {
            continue;
        }
        let games = played.get(&b.id).copied().unwrap_or(0);
        if games == 0 {
            // No game of the old version: nothing mixes (`add` records the new hash).
            arena.add_spec(&b.name, b.spec.clone())?;
            continue;
        }
        let base = b.name.split('@').next().unwrap_or(&b.name);
        let name = format!("{base}@{}", now.get(..8).unwrap_or(&now));
        superseded.insert(b.id);
        if names.contains(name.as_str()) && !all.iter().any(|o| o.name == name && o.retired_unix.is_some()) {
            // Said when the new version was added, at an earlier start.
            tracing::info!("arena: {}: superseded by {}", b.name, name);
            continue;
        }
        arena.add_spec(&name, b.spec.clone())?;
        eprintln!(
            "stratego-host: arena: {}: its program changed since its {} ({} -> {now}): the new version plays as {}, a rating line of its own; {} keeps its games and its place in the table (`arena retire` hides it)",
            crate::text::clean(&b.name),
            stratego_stats::plural(games, "game"),
            b.version.as_deref().unwrap_or("?"),
            crate::text::clean(&name),
            crate::text::clean(&b.name)
        );
    }
    Ok(superseded)
}

/// Names the games of the running list `list` that were running when the arena last
/// stopped (void), then starts the list anew.
fn name_void(arena: &Ladder, list: &Path) -> Result<(), ConfigError> {
    let void = void_games(arena, list).map_err(|e| usage(format!("arena: {e}")))?;
    if !void.is_empty() {
        eprintln!(
            "stratego-host: arena: {} running when the arena last stopped {} void (not counted): {}",
            stratego_stats::plural(void.len() as u64, "game"),
            if void.len() == 1 { "was" } else { "were" },
            crate::text::clean(&void.join(", "))
        );
    }
    std::fs::write(list, "").map_err(|e| usage(format!("arena: {}: {e}", list.display())))
}

/// The file's bots, and those that play in this run: the active ones, less the local
/// entrants superseded by a new version ([`new_versions`]) and, of the remote lines of one
/// token, all but the last added (a declared version's line: [`ArenaReport::follow_version`]).
fn entrants_of(arena: &mut Ladder) -> Result<(Vec<LadderBot>, Vec<LadderBot>), ConfigError> {
    let superseded = new_versions(arena)?;
    let all = arena.bots().map_err(|e| usage(format!("arena: {e}")))?;
    let mut active: Vec<LadderBot> =
        all.iter().filter(|b| b.retired_unix.is_none() && !superseded.contains(&b.id)).cloned().collect();
    let mut last: HashMap<Vec<crate::remote::token::TokenHash>, i64> = HashMap::new();
    for b in active.iter().filter(|b| b.spec.remote) {
        let id = last.entry(b.spec.tokens.clone()).or_insert(b.id);
        *id = (*id).max(b.id);
    }
    active.retain(|b| !b.spec.remote || last.get(&b.spec.tokens) == Some(&b.id));
    Ok((all, active))
}

/// `arena run`: says which games of the last run are void, then plays until stopped.
pub(super) fn run_arena(arena: Ladder, file: &Path, mut run: RunConfig) -> Result<CommandOutput, ConfigError> {
    // Hashing the programs takes a while (seconds for a large one): a stop then ends the
    // arena as a stop during its run does ("arena stopped: …", exit 130).
    crate::supervise::supervisor::catch_signals_early();
    let list = running_list(file);
    name_void(&arena, &list)?;
    let mut arena = arena;
    let (all, active) = entrants_of(&mut arena)?;
    if active.len() < 2 {
        return Err(usage(format!(
            "arena: {} active entrants; `arena add FILE NAME COMMAND` or `arena token FILE NAME` at least two",
            active.len()
        )));
    }
    // The arena's file, its journal and its running list: no sandbox shows them.
    for suffix in ["", "-wal", "-shm", "-journal", ".running", ".running.new"] {
        let mut name = file.as_os_str().to_owned();
        name.push(suffix);
        run.hidden.push(name.into());
    }
    let bots = active.iter().map(|b| entrant(b, &run)).collect::<Result<Vec<_>, _>>()?;
    let versions: Vec<Option<String>> = bots
        .iter()
        .map(|e| {
            (!e.spec.remote)
                .then(|| crate::run::manifest::executable_hash(&e.spec.command, e.spec.dir.as_deref()).map(|(_, h)| h))
                .flatten()
        })
        .collect();
    let ids: Vec<i64> = active.iter().map(|b| b.id).collect();
    let present: Vec<bool> = bots.iter().map(|b| !b.spec.remote).collect();
    let tallies = arena.pair_tallies().map_err(|e| usage(format!("arena: {e}")))?;
    let pool = Arc::new(Mutex::new(Pool::new(&ids, &present, &tallies)));
    let book = crate::commands::harness::load_book(&run)?;
    let event = run.schedule_event(&bots, schedule::Format::RoundRobin, 2, book.as_ref().map(|b| b.len() as u32));
    let remote: Vec<usize> = bots.iter().enumerate().filter(|(_, b)| b.spec.remote).map(|(i, _)| i).collect();
    tracing::info!(
        "arena: {} entrants ({} local, {} remote), up to {} games at once",
        bots.len(),
        bots.len() - remote.len(),
        remote.len(),
        run.concurrency
    );
    let lines = Arc::new(Mutex::new(Lines {
        ids,
        names: bots.iter().map(|b| b.spec.name.clone()).collect(),
        versions: active.iter().map(|b| b.version.clone().filter(|_| b.spec.remote)).collect(),
        hashes: versions,
        remote: bots.iter().map(|b| b.spec.remote).collect(),
        known: all.iter().map(|b| b.id).collect(),
    }));
    let roster = Roster::open(file, lines.clone());
    let source = ArenaSource {
        pool: pool.clone(),
        event: event.clone(),
        prefix: run_prefix(),
        next: 0,
        hub: None,
        remote,
        roster,
        run: run.clone(),
        admitting: HashMap::new(),
    };
    let kind = ArenaKind {
        arena: Rc::new(RefCell::new(arena)),
        source: RefCell::new(Some(source)),
        pool,
        lines,
        list,
        pages: run.serve.as_ref().map(|_| super::page::pages(file)),
    };
    if let (Some(dir), true) = (&run.out, run.compress) {
        crate::record::compress_allowed(dir).map_err(usage)?;
    }
    let records = match &run.out {
        Some(dir) => Some(
            crate::record::OutDirWriter::open(dir, run.compress)
                .map_err(|e| usage(format!("--out {}: {e}", dir.display())))?,
        ),
        None => None,
    };
    crate::commands::harness::run_competition(&run, &bots, &kind, event, book, records, None)
}
