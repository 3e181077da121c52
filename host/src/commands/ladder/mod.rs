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
//!   `red_version` and `blue_version` (the program hashes the game was played with); rows
//!   are never deleted nor changed (triggers refuse it);
//! - table `records`: `game` (the `games` row's id) and `record`, the game's full record as
//!   one zstd frame of its JSON line (the compact form of `stratego-records`), or plain JSON
//!   text for a record moved from a file of schema version 1; `ladder prune` deletes rows;
//! - tables `pairs` (per ordered pairing: games, Red's wins, draws, losses, last played)
//!   and `standings` (the same per bot), kept by a trigger on every insert into `games`:
//!   the table and the pairings read these, not every game.
//!
//! - table `claims` (version 3): the pairs each running `ladder play` is playing (run id,
//!   pair, process, machine, when), so that runners started at once spread over the
//!   pairings ([`store::Ladder::claim`]); a run's rows go when it ends, a gone process's
//!   are dropped by the next run.
//!
//! The schema's version is `PRAGMA user_version` (3); a file of version 1 or 2 is brought to
//! 3 when opened ([`store::Ladder::open`]), a later version is refused.
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
use std::time::{SystemTime, UNIX_EPOCH};

use crate::commands::CommandOutput;
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
    /// `ladder pairings`: the pairs `ladder play` would play next.
    Pairings {
        /// Games (a positive even number).
        games: u32,
        /// As JSON.
        json: bool,
    },
    /// `ladder records --out FILE`: stored records to a records file.
    Records {
        /// The file to write (new; `.zst`: the compact form, else plain JSON Lines).
        out: PathBuf,
        /// Only this bot's games.
        bot: Option<String>,
    },
    /// `ladder prune`: drop old records, keep every result.
    Prune {
        /// Which records go.
        keep: Keep,
        /// Write them first to this new compact records file.
        archive: Option<PathBuf>,
        /// Skip the `VACUUM` that gives the space back.
        no_vacuum: bool,
    },
    /// `ladder history NAME`.
    History {
        /// The bot's name (active or retired).
        name: String,
        /// As JSON.
        json: bool,
    },
}

/// Which records `ladder prune` keeps.
#[derive(Clone, Copy, Debug)]
pub enum Keep {
    /// The records of games finished in the last this many days.
    Days(u64),
    /// The records of the latest this many games.
    Last(u64),
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
pub fn run(plan: LadderPlan) -> Result<CommandOutput, ConfigError> {
    let mut ladder = Ladder::open(&plan.db).map_err(|e| failure(format!("{}: {e}", plan.db.display())))?;
    let ok = |stdout: String| Ok(CommandOutput { stdout, code: crate::exit::OK });
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
        LadderAction::Pairings { games, json: as_json } => pairings(&ladder, games, as_json),
        LadderAction::Records { out, bot } => {
            let which = match bot {
                Some(name) => store::RecordSelection::Bot(ladder.bot_id(&name)?),
                None => store::RecordSelection::All,
            };
            let games = ladder.stored_games(&which).map_err(db_error)?;
            let (written, _) = write_records_file(&ladder, &games, &out)?;
            eprintln!("stratego-host: wrote {} to {}", stratego_stats::plural(written, "record"), out.display());
            ok(String::new())
        }
        LadderAction::Prune { keep, archive, no_vacuum } => {
            prune(ladder, &plan.db, keep, archive.as_deref(), no_vacuum)
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

/// `ladder pairings`: the pairs the next `ladder play -n GAMES` would play, as the play
/// chooses them (each pair plays two games, colours swapped).
fn pairings(ladder: &Ladder, games: u32, as_json: bool) -> Result<CommandOutput, ConfigError> {
    let all = ladder.bots().map_err(failure)?;
    let active: Vec<&store::LadderBot> = all.iter().filter(|b| b.retired_unix.is_none()).collect();
    let pairs = play::pairs_to_play(ladder, &active, games)?;
    let named: Vec<[&str; 2]> =
        pairs.iter().map(|&(a, b)| [active[a].name.as_str(), active[b].name.as_str()]).collect();
    let stdout = if as_json { json(&named) } else { named.iter().map(|[a, b]| format!("{a}\t{b}\n")).collect() };
    Ok(CommandOutput { stdout, code: crate::exit::OK })
}

/// Writes the stored records of `games` to the new file `out` (the compact form when its
/// name ends in `.zst`, else plain JSON Lines), flushed to disk; a file that exists is
/// refused, and a file left half-written by an error is removed. Returns the records
/// written and the bytes they take in the ladder.
fn write_records_file(ladder: &Ladder, games: &[i64], out: &Path) -> Result<(u64, u64), ConfigError> {
    let form = stratego_records::Form::of_start(&[], out);
    let file = match std::fs::OpenOptions::new().write(true).create_new(true).open(out) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(usage(format!(
                "{}: already exists; the ladder writes records only to a new file (choose another name)",
                out.display()
            )));
        }
        Err(e) => return Err(usage(format!("{}: {e}", out.display()))),
    };
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let written = ladder.write_records(games, form, &mut w).and_then(|n| {
        let file = w.into_inner().map_err(|e| e.to_string())?;
        file.sync_all().map_err(|e| e.to_string())?;
        Ok(n)
    });
    written.map_err(|e| {
        let _ = std::fs::remove_file(out);
        failure(format!("{}: {e} (the file is removed)", out.display()))
    })
}

/// `ladder prune`: the records of old games go (first to the archive, when asked), every
/// game's result stays; then `VACUUM` gives the space back to the file system.
fn prune(
    mut ladder: Ladder,
    db: &Path,
    keep: Keep,
    archive: Option<&Path>,
    no_vacuum: bool,
) -> Result<CommandOutput, ConfigError> {
    let which = match keep {
        Keep::Days(days) => {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
            store::RecordSelection::FinishedBefore(now - (days as i64).saturating_mul(86_400))
        }
        Keep::Last(n) => store::RecordSelection::AllButLatest(n),
    };
    let size = || {
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        std::fs::metadata(db).map_or(0, |m| m.len()) + std::fs::metadata(&wal).map_or(0, |m| m.len())
    };
    let before = size();
    let games = ladder.stored_games(&which).map_err(db_error)?;
    let mut message = String::new();
    if let Some(path) = archive {
        let (written, stored) = write_records_file(&ladder, &games, path)?;
        message = format!(
            "archived {} ({:.1} MB in the ladder) to {}; ",
            stratego_stats::plural(written, "record"),
            stored as f64 / 1e6,
            path.display()
        );
    }
    let dropped = ladder.drop_records(&games).map_err(db_error)?;
    if !no_vacuum {
        ladder.vacuum().map_err(db_error)?;
    }
    eprintln!(
        "stratego-host: {message}dropped {} (every result stays); the file {} {:.1} MB -> {:.1} MB{}",
        stratego_stats::plural(dropped, "record"),
        db.display(),
        before as f64 / 1e6,
        size() as f64 / 1e6,
        if no_vacuum { " (no VACUUM: the free pages are reused by new games)" } else { "" }
    );
    Ok(CommandOutput { stdout: String::new(), code: crate::exit::OK })
}

/// `ladder table --html OUT.html`: the page with the latest games below the table, and a
/// viewer page for each in games/ beside it.
fn write_page(ladder: &Ladder, table: &LadderTable, out: &Path, force: bool) -> Result<(), ConfigError> {
    run_dir_refused(out)?;
    let records = ladder.recent_records(crate::display::files::viewer::MAX_VIEWER_PAGES).map_err(failure)?;
    let max = crate::display::files::viewer::MAX_VIEWER_PAGES;
    crate::display::files::viewer::index_outputs_allowed(out, &records, max, Some(force), "--html").map_err(usage)?;
    let w = crate::display::files::viewer::write_index(
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
        "stratego-host: wrote {} (the latest {} of {} games, {} viewer pages, {:.2} MB, and their script, {:.0} KB)",
        out.display(),
        w.games,
        table.games,
        w.pages,
        w.page_bytes as f64 / 1e6,
        w.asset_bytes as f64 / 1e3
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
