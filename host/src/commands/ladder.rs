//! `stratego-host ladder`: a persistent rating ladder in one SQLite file, for CI pipelines.
//!
//! Bots are added once by name (`ladder add`), play whenever a pipeline runs `ladder play`
//! (pairings chosen to reduce the ratings' uncertainty most), and are rated by
//! `ladder table` with Bradley–Terry over every game ever played, so the order of play does
//! not matter. The file is the whole state:
//!
//! - table `bots`: `id`, `name` (unique, reserved forever), `command` (JSON array), `dir`,
//!   `spec` (the whole bot spec as JSON: env, limits, clocks), `version` (FNV-1a 64 of the
//!   program file and any script argument, as `--out` manifests record it), `added_unix`,
//!   `retired_unix` (NULL while the bot is active);
//! - table `games`: `id`, `game_id` (unique across the ladder forever), `red_bot`,
//!   `blue_bot`, `result` (Red's score: 1, 0.5 or 0), `reason`, `played_unix`,
//!   `red_version` and `blue_version` (the program hashes the game was played with) and
//!   `record`, the full game record as JSON.
//!
//! The database runs in WAL mode with a busy timeout, and every write is one transaction:
//! several `ladder play` processes may share a file, each finished game is committed as soon
//! as it finishes (a killed `ladder play` loses only the games still running), and readers
//! (`ladder table`) never block the players.
//!
//! Names: `ladder add NAME COMMAND` with a new name adds the bot; with the name of a bot
//! that has the same spec it does nothing (so a pipeline may run it every time), records
//! the program's new version if the program file changed, and puts a retired bot back on
//! the ladder. A name is never given to another command, retired or not: its games stay
//! attached to it; add the new program under a new name (`alpha-v2`) and retire the old.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::{Args, Subcommand};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;
use stratego_rules::{ByColor, Color};

use crate::cli::RunFlags;
use crate::compete::sinks::{Progress, RecordsSink, StartupWatch, game_line};
use crate::compete::viewer::html_escape;
use crate::record::GameRecord;
use crate::run::events::{Event, Failure, Flow, Sink};
use crate::run::executor::{BookLookup, Entrant, Executor};
use crate::run::plan::{ConfigError, FileDefaults, RunConfig};
use crate::run::schedule::{self, GameSpec};
use crate::supervise::bot_spec::BotSpec;
use crate::supervise::supervisor::{Supervisor, SupervisorOptions};

/// The schema version this host writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i32 = 1;

/// How long a write waits for another process's transaction before it fails.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// `ladder` options.
#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The ladder's SQLite file (created by `add` when missing; the other commands need it).
    #[arg(long, value_name = "FILE")]
    pub db: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub command: LadderCommand,
}

/// `ladder` subcommands.
#[derive(Subcommand, Debug)]
pub enum LadderCommand {
    /// Add a bot under a new NAME. COMMAND is a command line quoted as one string, a JSON
    /// spec or @FILE, as for `match`. Adding a name again with the same spec does nothing
    /// (or records its program's new version, or brings a retired bot back); with another
    /// command it is an error: names are never reused.
    Add {
        /// The bot's name on the ladder.
        name: String,
        /// How to start it.
        command: String,
    },
    /// Retire a bot: it plays no more and leaves the table; its games still count for the
    /// ratings of the others.
    Retire {
        /// The bot's name.
        name: String,
    },
    /// Play games between the active bots: colour-swapped pairs, the bots with the fewest
    /// games first, each against its least-played opponent. Every finished game is saved at
    /// once; prints the table at the end.
    Play(Box<LadderPlayArgs>),
    /// The ratings: Bradley–Terry refitted from every game, with 95 % error bars; active
    /// bots only.
    Table(TableArgs),
    /// A bot's games, oldest first.
    History {
        /// The bot's name (active or retired).
        name: String,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `ladder play` options.
#[derive(Args, Debug)]
pub struct LadderPlayArgs {
    /// Games to play: an even number (colour-swapped pairs).
    #[arg(short = 'n', long, default_value_t = 2)]
    pub games: u32,
    /// Flags shared with `match` (`--json` prints the table as JSON; `--out DIR` also
    /// appends the records to DIR/games.jsonl; `--shard` is refused).
    #[command(flatten)]
    pub run: RunFlags,
}

/// `ladder table` options.
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("format").args(["markdown", "json", "html"]).multiple(false)))]
pub struct TableArgs {
    /// A Markdown table (a CI job summary).
    #[arg(long)]
    pub markdown: bool,
    /// JSON.
    #[arg(long)]
    pub json: bool,
    /// A small self-contained HTML page on stdout; with OUT.html, that page is written
    /// to OUT.html with the latest games listed below the table, each linking a viewer
    /// page written to games/ beside it.
    #[arg(long, value_name = "OUT.html", num_args = 0..=1)]
    pub html: Option<Option<PathBuf>>,
    /// With --html OUT.html: replace OUT.html (and pages in games/ beside it) even if they
    /// are not pages this host wrote (never a records file, a manifest or a database).
    #[arg(long, requires = "html")]
    pub force: bool,
}

impl LadderArgs {
    /// The tracing level the flags ask for.
    pub fn log_level(&self) -> &'static str {
        match &self.command {
            LadderCommand::Play(p) => p.run.log_level(),
            _ => "warn",
        }
    }
}

fn usage(message: impl Into<String>) -> ConfigError {
    ConfigError { message: message.into(), code: crate::exit::USAGE }
}

fn failure(message: impl Into<String>) -> ConfigError {
    ConfigError { message: message.into(), code: crate::exit::FAILURE }
}

fn db_error(e: rusqlite::Error) -> ConfigError {
    failure(format!("ladder database: {e}"))
}

fn now_unix() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// Runs a `ladder` command: prints its output and returns the exit code.
pub fn run(args: LadderArgs) -> i32 {
    match run_inner(args) {
        Ok((stdout, code)) => {
            print_stdout(&stdout);
            code
        }
        Err(e) => {
            eprintln!("stratego-host: {}", e.message);
            e.code
        }
    }
}

fn print_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn run_inner(args: LadderArgs) -> Result<(String, i32), ConfigError> {
    // Only `add` creates a ladder: any other command on a missing file is a typo, and an
    // empty ladder left behind would hide it.
    if !matches!(args.command, LadderCommand::Add { .. }) && !args.db.exists() {
        return Err(ConfigError {
            message: format!(
                "--db {}: no such ladder file (`ladder --db FILE add NAME COMMAND` creates one)",
                args.db.display()
            ),
            code: crate::exit::USAGE,
        });
    }
    let mut ladder = Ladder::open(&args.db).map_err(|e| failure(format!("{}: {e}", args.db.display())))?;
    match args.command {
        LadderCommand::Add { name, command } => {
            let message = ladder.add(&name, &command)?;
            eprintln!("stratego-host: {message}");
            Ok((String::new(), crate::exit::OK))
        }
        LadderCommand::Retire { name } => {
            let message = ladder.retire(&name)?;
            eprintln!("stratego-host: {message}");
            Ok((String::new(), crate::exit::OK))
        }
        LadderCommand::Table(t) => {
            let table = ladder.table().map_err(failure)?;
            let text = if t.json {
                json(&table)
            } else if t.markdown {
                table.markdown()
            } else if let Some(Some(out)) = &t.html {
                run_dir_refused(out)?;
                let records = ladder.recent_records(crate::compete::viewer::MAX_VIEWER_PAGES).map_err(failure)?;
                let max = crate::compete::viewer::MAX_VIEWER_PAGES;
                crate::compete::viewer::index_outputs_allowed(out, &records, max, Some(t.force), "--html")
                    .map_err(usage)?;
                let w = crate::compete::viewer::write_index(
                    out,
                    &table.heading(),
                    Some(&table.table_html()),
                    &records,
                    max,
                    Some(t.force),
                    "--html",
                )
                .map_err(failure)?;
                eprintln!(
                    "stratego-host: wrote {} (the latest {} of {} games, {} viewer pages, {:.1} MB)",
                    out.display(),
                    w.games,
                    table.games,
                    w.pages,
                    w.page_bytes as f64 / 1e6
                );
                String::new()
            } else if t.html.is_some() {
                table.html()
            } else {
                table.render()
            };
            Ok((text, crate::exit::OK))
        }
        LadderCommand::History { name, json: as_json } => {
            let history = ladder.history(&name)?;
            Ok((if as_json { json(&history) } else { history.render() }, crate::exit::OK))
        }
        LadderCommand::Play(play) => {
            // The ladder holds every bot's command and every game: no sandbox shows it,
            // nor its journal files (open while the ladder is, in WAL mode).
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let mut name = args.db.clone().into_os_string();
                name.push(suffix);
                crate::supervise::sandbox::hide(Path::new(&name));
            }
            play_games(ladder, *play)
        }
    }
}

/// Refuses a ladder page in a run's `--out` directory: its viewer pages would go into the
/// run's `games/` (the host did not make that directory for the ladder).
fn run_dir_refused(out: &Path) -> Result<(), ConfigError> {
    let dir = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match ["manifest.json", "games.jsonl"].into_iter().find(|f| dir.join(f).exists()) {
        Some(f) => Err(usage(format!(
            "--html {}: {} holds a run ({f}); the ladder's page and its games/ pages would mix with the run's: choose another directory",
            out.display(),
            dir.display()
        ))),
        None => Ok(()),
    }
}

fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("ladder reports serialise") + "\n"
}

/// A bot as the ladder stores it.
#[derive(Clone, Debug)]
pub struct LadderBot {
    /// Row id.
    pub id: i64,
    /// Name on the ladder.
    pub name: String,
    /// How to start it (as added: `sample-bot` is resolved when it plays).
    pub spec: BotSpec,
    /// The program's hash when added (or re-added).
    pub version: Option<String>,
    /// When it was retired.
    pub retired_unix: Option<i64>,
}

/// An open ladder database.
pub struct Ladder {
    conn: Connection,
}

/// A `bots` row as read: id, name, spec JSON, version, retired_unix.
type BotRow = (i64, String, String, Option<String>, Option<i64>);

const SCHEMA: &str = "
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    command TEXT NOT NULL,
    dir TEXT,
    spec TEXT NOT NULL,
    version TEXT,
    added_unix INTEGER NOT NULL,
    retired_unix INTEGER
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE,
    red_bot INTEGER NOT NULL REFERENCES bots(id),
    blue_bot INTEGER NOT NULL REFERENCES bots(id),
    result REAL NOT NULL CHECK (result IN (0, 0.5, 1)),
    reason TEXT NOT NULL,
    played_unix INTEGER NOT NULL,
    red_version TEXT,
    blue_version TEXT,
    record TEXT NOT NULL
);
CREATE INDEX games_red ON games(red_bot);
CREATE INDEX games_blue ON games(blue_bot);
";

impl Ladder {
    /// Opens (creating) a ladder file: WAL journal, busy timeout, foreign keys, the schema.
    ///
    /// # Errors
    /// The file cannot be opened, is not a ladder of this host's schema, or is locked longer
    /// than [`BUSY_TIMEOUT`].
    pub fn open(path: &Path) -> Result<Ladder, String> {
        let mut conn = Connection::open(path).map_err(|e| e.to_string())?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| e.to_string())?;
        let mode: String =
            conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(|e| format!("journal mode: {e}"))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(format!("cannot use a WAL journal (journal mode {mode})"));
        }
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;").map_err(|e| e.to_string())?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(|e| e.to_string())?;
        let version: i32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| e.to_string())?;
        match version {
            0 => {
                let tables: i64 = tx
                    .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table'", [], |r| r.get(0))
                    .map_err(|e| e.to_string())?;
                if tables > 0 {
                    return Err("not a ladder file (it holds other tables)".into());
                }
                tx.execute_batch(SCHEMA).map_err(|e| e.to_string())?;
                tx.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(|e| e.to_string())?;
            }
            SCHEMA_VERSION => {}
            v => return Err(format!("ladder schema version {v}, this host knows {SCHEMA_VERSION}: use a newer host")),
        }
        tx.commit().map_err(|e| e.to_string())?;
        Ok(Ladder { conn })
    }

    fn bot_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<BotRow> {
        Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
    }

    fn decode(raw: BotRow) -> Result<LadderBot, String> {
        let (id, name, spec, version, retired_unix) = raw;
        let spec: BotSpec = serde_json::from_str(&spec).map_err(|e| format!("bot {name}: stored spec: {e}"))?;
        Ok(LadderBot { id, name, spec, version, retired_unix })
    }

    /// Every bot, active and retired, by id.
    ///
    /// # Errors
    /// A database error or an unreadable stored spec.
    pub fn bots(&self) -> Result<Vec<LadderBot>, String> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, name, spec, version, retired_unix FROM bots ORDER BY id")
            .map_err(|e| e.to_string())?;
        let rows = stmt.query_map([], Self::bot_from_row).map_err(|e| e.to_string())?;
        rows.map(|r| r.map_err(|e| e.to_string()).and_then(Self::decode)).collect()
    }

    fn bot(&self, name: &str) -> Result<Option<LadderBot>, ConfigError> {
        let raw = self
            .conn
            .query_row(
                "SELECT id, name, spec, version, retired_unix FROM bots WHERE name = ?1",
                [name],
                Self::bot_from_row,
            )
            .optional()
            .map_err(db_error)?;
        raw.map(Self::decode).transpose().map_err(failure)
    }

    /// `ladder add`: see the module documentation for what an existing name does.
    ///
    /// # Errors
    /// A bad name or spec (exit 2), a program that cannot be started (exit 3), a name taken
    /// by another command (exit 2), a database error (exit 1).
    pub fn add(&mut self, name: &str, arg: &str) -> Result<String, ConfigError> {
        check_name(name)?;
        let mut spec = BotSpec::parse(arg).map_err(usage)?;
        spec.name = name.to_owned();
        let resolved = spec.clone().resolve_builtin();
        resolved.check_startable().map_err(|m| ConfigError { message: m, code: crate::exit::BOT_NOT_STARTABLE })?;
        let version = crate::run::manifest::executable_hash(&resolved.command, resolved.dir.as_deref()).map(|(_, h)| h);
        let spec_json = serde_json::to_string(&spec).expect("a bot spec serialises");
        let command_json = serde_json::to_string(&spec.command).expect("a command serialises");
        let dir = spec.dir.as_ref().map(|d| d.display().to_string());
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_error)?;
        let existing: Option<(i64, String, Option<String>, Option<i64>)> = tx
            .query_row("SELECT id, spec, version, retired_unix FROM bots WHERE name = ?1", [name], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()
            .map_err(db_error)?;
        let message = match existing {
            None => {
                tx.execute(
                    "INSERT INTO bots (name, command, dir, spec, version, added_unix) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![name, command_json, dir, spec_json, version, now_unix()],
                )
                .map_err(db_error)?;
                format!("added {name}: {}", shell_words::join(&spec.command))
            }
            Some((id, old_spec, old_version, retired)) => {
                let old: Option<BotSpec> = serde_json::from_str(&old_spec).ok();
                if old.as_ref() != Some(&spec) {
                    return Err(usage(format!(
                        "ladder: {name} is already {}with another command ({}): a name is never reused, add the new program under a new name (e.g. {name}-v2) and retire the old one",
                        if retired.is_some() { "taken by a retired bot " } else { "on the ladder " },
                        old.map_or_else(|| old_spec.clone(), |o| shell_words::join(&o.command))
                    )));
                }
                let mut notes = Vec::new();
                if retired.is_some() {
                    tx.execute("UPDATE bots SET retired_unix = NULL WHERE id = ?1", [id]).map_err(db_error)?;
                    notes.push(format!("{name} is back on the ladder"));
                }
                if old_version != version {
                    tx.execute("UPDATE bots SET version = ?1 WHERE id = ?2", params![version, id]).map_err(db_error)?;
                    notes.push(format!(
                        "{name}: its program changed ({} -> {}): its games so far still count",
                        old_version.as_deref().unwrap_or("?"),
                        version.as_deref().unwrap_or("?")
                    ));
                }
                if notes.is_empty() {
                    notes.push(format!("{name} is already on the ladder with this command"));
                }
                notes.join("; ")
            }
        };
        tx.commit().map_err(db_error)?;
        Ok(message)
    }

    /// `ladder retire`.
    ///
    /// # Errors
    /// No bot of that name (exit 2), a database error.
    pub fn retire(&mut self, name: &str) -> Result<String, ConfigError> {
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_error)?;
        let retired: Option<Option<i64>> = tx
            .query_row("SELECT retired_unix FROM bots WHERE name = ?1", [name], |r| r.get(0))
            .optional()
            .map_err(db_error)?;
        let message = match retired {
            None => return Err(usage(format!("ladder: no bot named {name:?}"))),
            Some(Some(_)) => format!("{name} was already retired"),
            Some(None) => {
                tx.execute("UPDATE bots SET retired_unix = ?1 WHERE name = ?2", params![now_unix(), name])
                    .map_err(db_error)?;
                format!("retired {name}: it plays no more; its games still count")
            }
        };
        tx.commit().map_err(db_error)?;
        Ok(message)
    }

    /// Every game as (red bot id, blue bot id, Red's score, played_unix), oldest first.
    ///
    /// # Errors
    /// A database error.
    pub fn results(&self) -> rusqlite::Result<Vec<(i64, i64, f64, i64)>> {
        let mut stmt = self.conn.prepare("SELECT red_bot, blue_bot, result, played_unix FROM games ORDER BY id")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        rows.collect()
    }

    /// Saves a finished game in its own transaction.
    ///
    /// # Errors
    /// A database error (a duplicated game id among them).
    pub fn insert_game(
        &mut self,
        record: &GameRecord,
        ids: ByColor<i64>,
        versions: ByColor<Option<&str>>,
    ) -> rusqlite::Result<()> {
        let red_score = match record.result.winner {
            Some(Color::Red) => 1.0,
            Some(Color::Blue) => 0.0,
            None => 0.5,
        };
        let played = ((record.started_unix_ms + record.duration_ms) / 1000) as i64;
        let text = serde_json::to_string(record).expect("a record serialises");
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO games (game_id, red_bot, blue_bot, result, reason, played_unix, red_version, blue_version, record)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                record.game_id,
                ids.red,
                ids.blue,
                red_score,
                record.result.reason.code(),
                played,
                versions.red,
                versions.blue,
                text
            ],
        )?;
        tx.commit()
    }

    /// The records of the latest `limit` games, newest first.
    ///
    /// # Errors
    /// A database error or a stored record that does not parse.
    pub fn recent_records(&self, limit: usize) -> Result<Vec<GameRecord>, String> {
        let mut stmt = self
            .conn
            .prepare("SELECT game_id, record FROM games ORDER BY played_unix DESC, rowid DESC LIMIT ?1")
            .map_err(|e| e.to_string())?;
        let rows = stmt
            .query_map(params![limit as i64], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for row in rows {
            let (id, text) = row.map_err(|e| e.to_string())?;
            out.push(serde_json::from_str(&text).map_err(|e| format!("game {id}: stored record: {e}"))?);
        }
        Ok(out)
    }

    /// The ladder's table: ratings from every game, active bots only.
    ///
    /// # Errors
    /// A database error or an unreadable stored spec.
    pub fn table(&self) -> Result<LadderTable, String> {
        let bots = self.bots()?;
        let games = self.results().map_err(|e| e.to_string())?;
        Ok(LadderTable::compute(&bots, &games))
    }

    /// `ladder history NAME`.
    ///
    /// # Errors
    /// No bot of that name (exit 2), a database error.
    pub fn history(&self, name: &str) -> Result<History, ConfigError> {
        let bot = self.bot(name)?.ok_or_else(|| usage(format!("ladder: no bot named {name:?}")))?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT g.game_id, g.played_unix, g.red_bot, r.name, b.name, g.result, g.reason
                 FROM games g JOIN bots r ON r.id = g.red_bot JOIN bots b ON b.id = g.blue_bot
                 WHERE g.red_bot = ?1 OR g.blue_bot = ?1 ORDER BY g.played_unix, g.id",
            )
            .map_err(db_error)?;
        let rows = stmt
            .query_map([bot.id], |r| {
                let red_bot: i64 = r.get(2)?;
                let (red, blue): (String, String) = (r.get(3)?, r.get(4)?);
                let red_score: f64 = r.get(5)?;
                let as_red = red_bot == bot.id;
                let score = if as_red { red_score } else { 1.0 - red_score };
                Ok(HistoryGame {
                    game_id: r.get(0)?,
                    played_unix: r.get(1)?,
                    opponent: if as_red { blue } else { red },
                    color: if as_red { "red" } else { "blue" }.to_owned(),
                    score,
                    result: result_word(score).to_owned(),
                    reason: r.get(6)?,
                })
            })
            .map_err(db_error)?;
        let games = rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)?;
        Ok(History { name: bot.name, retired: bot.retired_unix.is_some(), games })
    }
}

fn check_name(name: &str) -> Result<(), ConfigError> {
    if name.trim().is_empty() || name.trim() != name || name.chars().any(char::is_control) || name.len() > 100 {
        return Err(usage(format!(
            "ladder: bad bot name {name:?} (1 to 100 characters, no control characters, no surrounding spaces)"
        )));
    }
    Ok(())
}

fn result_word(score: f64) -> &'static str {
    if score > 0.75 {
        "win"
    } else if score < 0.25 {
        "loss"
    } else {
        "draw"
    }
}

/// Chooses `pairs` colour-swapped pairs among `bots` bots that have played `games[i]` games,
/// `met[(i, j)]` (i < j) of them against each other: each pair takes the bot with the fewest
/// games (the lowest index on a tie), against its least-played opponent (then the one with
/// fewest games, then the lowest index); the counts include the pairs already chosen.
pub fn choose_pairs(games: &[u64], met: &HashMap<(usize, usize), u64>, pairs: usize) -> Vec<(usize, usize)> {
    let n = games.len();
    if n < 2 {
        return Vec::new();
    }
    let mut games = games.to_vec();
    let mut met = met.clone();
    let key = |a: usize, b: usize| (a.min(b), a.max(b));
    let mut out = Vec::with_capacity(pairs);
    for _ in 0..pairs {
        let a = (0..n).min_by_key(|&i| (games[i], i)).expect("two bots");
        let b = (0..n)
            .filter(|&j| j != a)
            .min_by_key(|&j| (met.get(&key(a, j)).copied().unwrap_or(0), games[j], j))
            .expect("two bots");
        games[a] += 2;
        games[b] += 2;
        *met.entry(key(a, b)).or_default() += 2;
        out.push((a, b));
    }
    out
}

/// One row of the ladder's table.
#[derive(Clone, Debug, Serialize)]
pub struct TableRow {
    /// Rank among the active bots (1 is best).
    pub rank: usize,
    /// Name.
    pub name: String,
    /// Bradley–Terry Elo (mean 0 over every bot that played, retired ones too); `null`
    /// without games.
    pub elo: Option<f64>,
    /// Half-width of the 95 % interval; `null` when unknown.
    pub elo_err95: Option<f64>,
    /// Games played.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Points (a draw is half a point).
    pub points: f64,
    /// When it last played (Unix seconds).
    pub last_played_unix: Option<i64>,
    /// The same, UTC, ISO 8601.
    pub last_played: Option<String>,
}

/// The ladder's table: active bots by rating.
#[derive(Clone, Debug, Serialize)]
pub struct LadderTable {
    /// Games in the ladder (retired bots' included).
    pub games: u64,
    /// Retired bots (hidden, their games counted).
    pub retired: usize,
    /// Active bots, best first.
    pub bots: Vec<TableRow>,
}

impl LadderTable {
    /// Rates every bot from every game (red id, blue id, Red's score, played) and keeps the
    /// active bots.
    pub fn compute(bots: &[LadderBot], games: &[(i64, i64, f64, i64)]) -> LadderTable {
        let index: HashMap<i64, usize> = bots.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
        let mut rows: Vec<TableRow> = bots
            .iter()
            .map(|b| TableRow {
                rank: 0,
                name: b.name.clone(),
                elo: None,
                elo_err95: None,
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                points: 0.0,
                last_played_unix: None,
                last_played: None,
            })
            .collect();
        let mut bt = Vec::with_capacity(games.len());
        for &(red, blue, score, played) in games {
            let (Some(&r), Some(&b)) = (index.get(&red), index.get(&blue)) else { continue };
            bt.push((r, b, score));
            for (me, s) in [(r, score), (b, 1.0 - score)] {
                let row = &mut rows[me];
                row.games += 1;
                row.points += s;
                match result_word(s) {
                    "win" => row.wins += 1,
                    "loss" => row.losses += 1,
                    _ => row.draws += 1,
                }
                row.last_played_unix = Some(row.last_played_unix.map_or(played, |p| p.max(played)));
            }
        }
        let ratings = stratego_stats::bradley_terry(bots.len(), &bt, None);
        for (row, rating) in rows.iter_mut().zip(&ratings) {
            if row.games > 0 {
                row.elo = Some(rating.elo);
                row.elo_err95 = rating.err95.is_finite().then_some(rating.err95);
            }
            row.last_played = row.last_played_unix.map(utc);
        }
        let mut active: Vec<TableRow> =
            rows.into_iter().zip(bots).filter(|(_, b)| b.retired_unix.is_none()).map(|(r, _)| r).collect();
        active.sort_by(|a, b| {
            let key = |r: &TableRow| r.elo.unwrap_or(f64::NEG_INFINITY);
            key(b).total_cmp(&key(a)).then_with(|| b.games.cmp(&a.games)).then_with(|| a.name.cmp(&b.name))
        });
        for (i, r) in active.iter_mut().enumerate() {
            r.rank = i + 1;
        }
        LadderTable {
            games: games.len() as u64,
            retired: bots.iter().filter(|b| b.retired_unix.is_some()).count(),
            bots: active,
        }
    }

    fn cells(r: &TableRow) -> [String; 9] {
        let score = if r.games == 0 { "-".to_owned() } else { format!("{:.1}%", 100.0 * r.points / r.games as f64) };
        [
            r.rank.to_string(),
            r.elo.map_or("-".to_owned(), |e| format!("{:+.0}", if e.abs() < 0.5 { 0.0 } else { e })),
            r.elo_err95.map_or("-".to_owned(), |e| format!("±{e:.0}")),
            r.games.to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
            score,
            r.last_played.clone().unwrap_or_else(|| "-".to_owned()),
        ]
    }

    /// The heading: bots and games.
    pub fn heading(&self) -> String {
        let retired = if self.retired > 0 { format!(", {} retired", self.retired) } else { String::new() };
        format!("Ladder: {} bots, {} games{retired}", self.bots.len(), self.games)
    }

    /// A plain-text table.
    pub fn render(&self) -> String {
        let mut s = self.heading() + "\n";
        let width = self.bots.iter().map(|b| b.name.chars().count()).max().unwrap_or(3).max(3);
        let _ = writeln!(
            s,
            "  {:>3}  {:width$}  {:>6} {:>5}  {:>5}  {:>4} {:>4} {:>4}  {:>6}  last played",
            "#", "bot", "Elo", "±95%", "games", "W", "D", "L", "score"
        );
        for r in &self.bots {
            let c = Self::cells(r);
            let _ = writeln!(
                s,
                "  {:>3}  {:width$}  {:>6} {:>5}  {:>5}  {:>4} {:>4} {:>4}  {:>6}  {}",
                c[0], r.name, c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
            );
        }
        s
    }

    /// A Markdown table (GitHub-flavoured), for a CI job summary.
    pub fn markdown(&self) -> String {
        let mut s = format!("### {}\n\n", self.heading());
        s.push_str("| # | bot | Elo | ±95% | games | W | D | L | score | last played |\n");
        s.push_str("|--:|:----|----:|-----:|------:|--:|--:|--:|------:|:------------|\n");
        for r in &self.bots {
            let c = Self::cells(r);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                c[0],
                markdown_escape(&r.name),
                c[1],
                c[2],
                c[3],
                c[4],
                c[5],
                c[6],
                c[7],
                c[8]
            );
        }
        s
    }

    /// A small self-contained HTML page.
    pub fn html(&self) -> String {
        let mut s = String::from(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"generator\" content=\"stratego-host\">\n<title>Stratego ladder</title>\n<style>\n\
             body { font-family: system-ui, sans-serif; margin: 2em; }\n\
             table { border-collapse: collapse; }\n\
             th, td { padding: 0.3em 0.8em; border-bottom: 1px solid #ddd; }\n\
             td.n { text-align: right; font-variant-numeric: tabular-nums; }\n\
             th { background: #f3f3f3; }\n</style>\n</head>\n<body>\n",
        );
        let _ = writeln!(s, "<h1>{}</h1>", html_escape(&self.heading()));
        s.push_str(&self.table_html());
        s.push_str("\n</body>\n</html>\n");
        s
    }

    /// The table alone (`<table id="ranking">`, a row per bot with `data-bot`), for a page.
    pub fn table_html(&self) -> String {
        let mut s = String::from(
            "<table id=\"ranking\">\n<tr><th>#</th><th>bot</th><th>Elo</th><th>±95%</th><th>games</th><th>W</th><th>D</th><th>L</th><th>score</th><th>last played</th></tr>\n",
        );
        for r in &self.bots {
            let c = Self::cells(r);
            let name = html_escape(&r.name);
            let _ = write!(s, "<tr data-bot=\"{name}\"><td class=\"n\">{}</td><td>{name}</td>", c[0]);
            for cell in &c[1..8] {
                let _ = write!(s, "<td class=\"n\">{}</td>", html_escape(cell));
            }
            let _ = writeln!(s, "<td>{}</td></tr>", html_escape(&c[8]));
        }
        s.push_str("</table>");
        s
    }
}

/// Escapes text for a Markdown table cell: Markdown punctuation is backslash-escaped and
/// HTML is escaped (GitHub renders inline HTML in job summaries).
pub fn markdown_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(ch);
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc(unix: i64) -> String {
    let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60)
}

/// One game of a bot's history, from its side.
#[derive(Clone, Debug, Serialize)]
pub struct HistoryGame {
    /// The game id.
    pub game_id: String,
    /// When it finished (Unix seconds).
    pub played_unix: i64,
    /// The opponent's name.
    pub opponent: String,
    /// The bot's colour: `red` or `blue`.
    pub color: String,
    /// The bot's score: 1, 0.5 or 0.
    pub score: f64,
    /// `win`, `draw` or `loss`.
    pub result: String,
    /// How the game ended (the record's reason code).
    pub reason: String,
}

/// `ladder history NAME`.
#[derive(Clone, Debug, Serialize)]
pub struct History {
    /// The bot.
    pub name: String,
    /// Whether it is retired.
    pub retired: bool,
    /// Its games, oldest first.
    pub games: Vec<HistoryGame>,
}

impl History {
    /// A plain-text list.
    pub fn render(&self) -> String {
        let (w, d, l) = self.games.iter().fold((0, 0, 0), |(w, d, l), g| match g.result.as_str() {
            "win" => (w + 1, d, l),
            "loss" => (w, d, l + 1),
            _ => (w, d + 1, l),
        });
        let mut s = format!(
            "{}{}: {} games, +{w} ={d} -{l}\n",
            self.name,
            if self.retired { " (retired)" } else { "" },
            self.games.len()
        );
        let width = self.games.iter().map(|g| g.opponent.chars().count()).max().unwrap_or(8).max(8);
        let _ =
            writeln!(s, "  {:20}  {:width$}  {:5}  {:6}  {:22}  game", "date", "opponent", "color", "result", "reason");
        for g in &self.games {
            let _ = writeln!(
                s,
                "  {:20}  {:width$}  {:5}  {:6}  {:22}  {}",
                utc(g.played_unix),
                g.opponent,
                g.color,
                g.result,
                g.reason,
                g.game_id
            );
        }
        s
    }
}

/// Saves every finished game to the ladder, each in its own transaction, as it finishes.
struct LadderSink<'a> {
    ladder: &'a mut Ladder,
    /// Database id of each executor bot id.
    ids: Vec<i64>,
    /// Program hash of each executor bot id, now.
    versions: Vec<Option<String>>,
    saved: u32,
}

impl Sink for LadderSink<'_> {
    fn on_event(&mut self, event: &Event) -> Flow {
        let Some((seats, record)) = event.finished() else { return Flow::Continue };
        let ids = ByColor::new(self.ids[seats.red], self.ids[seats.blue]);
        let versions = ByColor::new(self.versions[seats.red].as_deref(), self.versions[seats.blue].as_deref());
        match self.ladder.insert_game(record, ids, versions) {
            Ok(()) => {
                self.saved += 1;
                Flow::Continue
            }
            Err(e) => Flow::Fail(Failure {
                message: format!("ladder: cannot save game {}: {e}", record.game_id),
                code: crate::exit::FAILURE,
            }),
        }
    }
}

/// Makes a ladder bot an entrant, as `match` does: built-in sample bot resolved, default
/// limits, program checked, clocks settled.
fn entrant(bot: &LadderBot, run: &RunConfig) -> Result<Entrant, ConfigError> {
    let mut spec = bot.spec.clone();
    spec.name = bot.name.clone();
    crate::run::plan::entrant(spec, run)
}

/// A prefix unique to this run: `ladder-<unix ms>-<random>`.
fn run_prefix() -> String {
    let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let random = stratego_protocol::Rng::derive(t.as_nanos() as u64, u64::from(std::process::id()));
    format!("ladder-{}-{:08x}", t.as_millis(), random as u32)
}

fn play_games(mut ladder: Ladder, args: LadderPlayArgs) -> Result<(String, i32), ConfigError> {
    let run = args.run.validate(&FileDefaults::default())?;
    if run.shard.is_some() {
        return Err(usage("--shard: a ladder picks its pairings as it goes and cannot be sharded"));
    }
    if run.watch {
        return Err(usage("--watch: not for ladder play (watch a match, tournament or sprt)"));
    }
    if args.games == 0 || args.games % 2 == 1 {
        return Err(usage("--games: must be a positive even number (games are played in colour-swapped pairs)"));
    }
    let all = ladder.bots().map_err(failure)?;
    let active: Vec<&LadderBot> = all.iter().filter(|b| b.retired_unix.is_none()).collect();
    if active.len() < 2 {
        return Err(usage(format!("ladder: {} active bots; `ladder add NAME COMMAND` at least two", active.len())));
    }
    let bots = active.iter().map(|b| entrant(b, &run)).collect::<Result<Vec<_>, _>>()?;
    let versions: Vec<Option<String>> = bots
        .iter()
        .zip(&active)
        .map(|(e, b)| {
            let now = crate::run::manifest::executable_hash(&e.spec.command, e.spec.dir.as_deref()).map(|(_, h)| h);
            if now != b.version {
                eprintln!(
                    "stratego-host: warning: bot {}: its program changed since it was added ({} -> {}); `ladder add` it again to record the new version",
                    b.name,
                    b.version.as_deref().unwrap_or("?"),
                    now.as_deref().unwrap_or("?")
                );
            }
            now
        })
        .collect();
    // Counts over every game, retired opponents included.
    let position: HashMap<i64, usize> = active.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
    let mut games = vec![0u64; active.len()];
    let mut met: HashMap<(usize, usize), u64> = HashMap::new();
    for (red, blue, _, _) in ladder.results().map_err(db_error)? {
        let (r, b) = (position.get(&red).copied(), position.get(&blue).copied());
        for i in [r, b].into_iter().flatten() {
            games[i] += 1;
        }
        if let (Some(r), Some(b)) = (r, b) {
            *met.entry((r.min(b), r.max(b))).or_default() += 1;
        }
    }
    let pairs = choose_pairs(&games, &met, (args.games / 2) as usize);

    let book = match &run.setups {
        None => None,
        Some(path) => Some(Arc::new(
            crate::game::setup_book::SetupBook::load(path, &run.settings.rules)
                .map_err(|e| usage(format!("--setups: {e}")))?,
        )),
    };
    let same_program = (0..bots.len())
        .flat_map(|a| (a + 1..bots.len()).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            let (x, y) = (&bots[a].spec, &bots[b].spec);
            x.command == y.command && x.dir == y.dir && x.env == y.env
        })
        .collect();
    let event = schedule::Event {
        bots: bots.len(),
        format: schedule::Format::RoundRobin,
        games_per_pairing: 2,
        seed: run.settings.match_seed,
        book_len: book.as_ref().map(|b| b.len() as u32),
        own_setup: bots.iter().map(|b| b.spec.own_setup).collect(),
        same_program,
        book_order: schedule::BookOrder::Random,
        book_start: 0,
    };
    let prefix = run_prefix();
    let schedule: VecDeque<GameSpec> = pairs
        .iter()
        .enumerate()
        .flat_map(|(p, &(a, b))| schedule::pair_games(&event, p as u32, a, b))
        .map(|g| GameSpec { game_id: format!("{prefix}-{}", g.index + 1), ..g })
        .collect();
    let planned = schedule.len() as u64;

    let records = match &run.out {
        Some(dir) => Some(
            crate::record::RecordWriter::open(dir)
                .and_then(RecordsSink::start)
                .map_err(|e| usage(format!("--out {}: {e}", dir.display())))?,
        ),
        None => None,
    };
    if let Some(log) = &run.settings.protocol_log {
        tracing::info!("protocol log: {}", log.describe());
    }
    let supervisor = Supervisor::start(SupervisorOptions {
        priority: run.host_priority,
        stall_credit: run.stall_credit,
        pin_host: run.pin && run.concurrency == 1,
    });
    let lookup: Option<BookLookup> =
        book.map(|b| Arc::new(move |i: u32, color| b.deployment(i as usize, color)) as BookLookup);
    let executor = Executor {
        settings: Arc::new(run.settings.clone()),
        bots: Arc::new(bots),
        book: lookup,
        concurrency: run.concurrency,
        pin: run.pin,
        auto_pin: run.auto_pin,
        supervisor: supervisor.clone(),
    };
    let ids: Vec<i64> = active.iter().map(|b| b.id).collect();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let (end, saved) = runtime.block_on(async {
        let cancel = supervisor.cancel_on_signals();
        let mut records = records;
        let mut startup = StartupWatch::default();
        let mut sink = LadderSink { ladder: &mut ladder, ids, versions, saved: 0 };
        let mut progress = Progress::new(run.live, Some(planned), |_| None, game_line);
        let end = {
            // A bot that never started stops the run before its game is saved; then the
            // ladder: a game's line is printed only once it is saved.
            let mut sinks: Vec<&mut dyn Sink> = vec![&mut startup, &mut sink];
            if let Some(r) = records.as_mut() {
                sinks.push(r);
            }
            sinks.push(&mut progress);
            executor.run(schedule, &[], &mut sinks, cancel).await
        };
        (end, sink.saved)
    });
    drop(runtime);
    supervisor.kill_all();
    let table = ladder.table().map_err(failure)?;
    let text = if run.json { json(&table) } else { table.render() };
    if let Some(f) = &end.failed {
        eprintln!("stratego-host: {}", f.message);
        return Ok((text, f.code));
    }
    if end.cancelled {
        eprintln!("stratego-host: interrupted; every bot process was killed; the {saved} finished games are saved");
        return Ok((text, crate::exit::INTERRUPTED));
    }
    eprintln!("stratego-host: ladder: {} played and saved", stratego_stats::plural(u64::from(saved), "game"));
    Ok((text, crate::exit::OK))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_go_to_the_bots_with_fewest_games_and_their_least_played_opponents() {
        let pairs = choose_pairs(&[0, 0, 0], &HashMap::new(), 4);
        assert_eq!(pairs, vec![(0, 1), (2, 0), (1, 2), (0, 1)]);
        // A newcomer plays first, against the opponent it has met least.
        let mut met = HashMap::new();
        met.insert((0, 1), 10);
        let pairs = choose_pairs(&[10, 10, 0], &met, 2);
        assert_eq!(pairs, vec![(2, 0), (2, 1)]);
        assert!(choose_pairs(&[3], &HashMap::new(), 2).is_empty());
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_798_761_599), "2026-12-31T23:59:59Z");
    }

    #[test]
    fn names_are_escaped() {
        assert_eq!(html_escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
        assert_eq!(markdown_escape("a|b_<c>"), "a\\|b\\_&lt;c&gt;");
    }

    fn bot(id: i64, name: &str, retired: bool) -> LadderBot {
        LadderBot {
            id,
            name: name.into(),
            spec: BotSpec::sample_bot(&[]),
            version: None,
            retired_unix: retired.then_some(1),
        }
    }

    #[test]
    fn the_table_rates_from_every_game_and_hides_retired_bots() {
        let bots = [bot(1, "a", false), bot(2, "b", false), bot(3, "old", true), bot(4, "new", false)];
        let games = [(1, 2, 1.0, 10), (2, 1, 0.0, 11), (1, 3, 0.5, 12), (3, 2, 1.0, 13)];
        let t = LadderTable::compute(&bots, &games);
        assert_eq!(t.games, 4);
        assert_eq!(t.retired, 1);
        let names: Vec<&str> = t.bots.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "new"]);
        assert_eq!(t.bots[0].games, 3);
        assert_eq!((t.bots[0].wins, t.bots[0].draws, t.bots[0].losses), (2, 1, 0));
        assert_eq!(t.bots[0].last_played_unix, Some(12));
        assert!(t.bots[0].elo.unwrap() > t.bots[1].elo.unwrap());
        assert_eq!(t.bots[2].elo, None);
        assert_eq!(t.bots[2].rank, 3);
        // The order of the games does not matter.
        let mut reversed = games;
        reversed.reverse();
        let u = LadderTable::compute(&bots, &reversed);
        for (x, y) in t.bots.iter().zip(&u.bots) {
            assert!((x.elo.unwrap_or(0.0) - y.elo.unwrap_or(0.0)).abs() < 1e-6);
        }
        assert!(t.markdown().contains("| 1 | a |"));
        assert!(t.html().contains("<td>a</td>"));
        assert!(t.html().contains(crate::run::output_file::PAGE_MARKER));
    }

    #[test]
    fn a_ladder_file_keeps_bots_and_refuses_a_name_for_another_command() {
        let dir = std::env::temp_dir().join(format!("ladder-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("l.db");
        let _ = std::fs::remove_file(&path);
        let mut l = Ladder::open(&path).unwrap();
        l.add("a", "sample-bot").unwrap();
        assert!(l.add("a", "sample-bot").unwrap().contains("already"));
        assert_eq!(l.add("a", "sample-bot --strategy random").unwrap_err().code, crate::exit::USAGE);
        l.retire("a").unwrap();
        assert!(l.add("a", "sample-bot").unwrap().contains("back"));
        assert_eq!(l.retire("zz").unwrap_err().code, crate::exit::USAGE);
        drop(l);
        let l = Ladder::open(&path).unwrap();
        assert_eq!(l.bots().unwrap().len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
