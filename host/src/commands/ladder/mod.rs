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
//!
//! The command is in four parts: [`crate::cli::ladder`] validates the flags into a
//! [`LadderPlan`], [`store`] is the SQLite file, [`table`] shows what it holds, and [`play`]
//! chooses the pairings and plays them.

pub mod play;
pub mod store;
pub mod table;

use std::path::{Path, PathBuf};

use crate::commands::Outcome;
use crate::compete::report::json;
use crate::run::plan::{ConfigError, RunConfig, usage};

use store::Ladder;
use table::LadderTable;

/// A validated `ladder` command: the ladder file and what to do with it.
#[derive(Debug)]
pub struct LadderPlan {
    /// The ladder's SQLite file (it exists, unless the action is `add`).
    pub db: PathBuf,
    /// What to do.
    pub action: LadderAction,
}

/// What a `ladder` command does: one variant per subcommand.
#[derive(Debug)]
pub enum LadderAction {
    /// `ladder add NAME COMMAND`.
    Add {
        /// The bot's name on the ladder.
        name: String,
        /// How to start it, as given (a command line, a JSON spec or @FILE).
        command: String,
    },
    /// `ladder retire NAME`.
    Retire {
        /// The bot's name.
        name: String,
    },
    /// `ladder play`.
    Play {
        /// The validated run flags (no shard, no watch).
        run: Box<RunConfig>,
        /// Games to play: a positive even number.
        games: u32,
    },
    /// `ladder table`.
    Table(TableFormat),
    /// `ladder history NAME`.
    History {
        /// The bot's name (active or retired).
        name: String,
        /// As JSON.
        json: bool,
    },
}

/// How `ladder table` shows the table.
#[derive(Debug)]
pub enum TableFormat {
    /// Plain text.
    Text,
    /// A Markdown table (a CI job summary).
    Markdown,
    /// JSON.
    Json,
    /// A small self-contained HTML page on stdout.
    Html,
    /// That page written to `out`, with the latest games listed below the table, each
    /// linking a viewer page written to games/ beside it.
    HtmlFile {
        /// The page (`--html OUT.html`).
        out: PathBuf,
        /// Replace pages this host did not write (`--force`).
        force: bool,
    },
}

fn failure(message: impl Into<String>) -> ConfigError {
    ConfigError { message: message.into(), code: crate::exit::FAILURE }
}

fn db_error(e: rusqlite::Error) -> ConfigError {
    failure(format!("ladder database: {e}"))
}

/// Runs a `ladder` command: what to print on stdout and the exit code (messages go to
/// stderr as it runs).
///
/// # Errors
/// The first problem, with its exit code: 2 (usage), 3 (a bot cannot be started), 1 (the
/// database).
pub fn run(plan: LadderPlan) -> Result<Outcome, ConfigError> {
    let mut ladder = Ladder::open(&plan.db).map_err(|e| failure(format!("{}: {e}", plan.db.display())))?;
    let ok = |stdout: String| Ok(Outcome { stdout, code: crate::exit::OK });
    match plan.action {
        LadderAction::Add { name, command } => {
            let message = ladder.add(&name, &command)?;
            eprintln!("stratego-host: {message}");
            ok(String::new())
        }
        LadderAction::Retire { name } => {
            let message = ladder.retire(&name)?;
            eprintln!("stratego-host: {message}");
            ok(String::new())
        }
        LadderAction::Table(format) => {
            let table = LadderTable::read(&ladder).map_err(failure)?;
            ok(match format {
                TableFormat::Json => json(&table),
                TableFormat::Markdown => table.markdown(),
                TableFormat::HtmlFile { out, force } => {
                    write_page(&ladder, &table, &out, force)?;
                    String::new()
                }
                TableFormat::Html => table.html(),
                TableFormat::Text => table.render(),
            })
        }
        LadderAction::History { name, json: as_json } => {
            let history = ladder.history(&name)?;
            ok(if as_json { json(&history) } else { history.render() })
        }
        LadderAction::Play { mut run, games } => {
            // The ladder holds every bot's command and every game: no sandbox shows it,
            // nor its journal files (open while the ladder is, in WAL mode).
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let mut name = plan.db.clone().into_os_string();
                name.push(suffix);
                run.hidden.push(name.into());
            }
            play::play_games(ladder, &run, games)
        }
    }
}

/// `ladder table --html OUT.html`: the page with the latest games below the table, and a
/// viewer page for each in games/ beside it.
fn write_page(ladder: &Ladder, table: &LadderTable, out: &Path, force: bool) -> Result<(), ConfigError> {
    run_dir_refused(out)?;
    let records = ladder.recent_records(crate::compete::viewer::MAX_VIEWER_PAGES).map_err(failure)?;
    let max = crate::compete::viewer::MAX_VIEWER_PAGES;
    crate::compete::viewer::index_outputs_allowed(out, &records, max, Some(force), "--html").map_err(usage)?;
    let w = crate::compete::viewer::write_index(
        out,
        &table.heading(),
        Some(&table.table_html()),
        &records,
        max,
        Some(force),
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
    Ok(())
}

/// Refuses a ladder page in a run's `--out` directory: its viewer pages would go into the
/// run's `games/` (the host did not make that directory for the ladder).
fn run_dir_refused(out: &Path) -> Result<(), ConfigError> {
    let dir = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match ["manifest.json", "games.jsonl", "games.jsonl.zst"].into_iter().find(|f| dir.join(f).exists()) {
        Some(f) => Err(usage(format!(
            "--html {}: {} holds a run ({f}); the ladder's page and its games/ pages would mix with the run's: choose another directory",
            out.display(),
            dir.display()
        ))),
        None => Ok(()),
    }
}
