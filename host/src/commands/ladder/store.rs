//! The ladder's SQLite file: the schema (see the [module docs](super) for its tables), opening
//! and checking it, adding and retiring bots, the queries behind the table and a bot's
//! history, and saving a finished game.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;
use stratego_rules::{ByColor, Color};

use super::{db_error, failure};
use crate::record::GameRecord;
use crate::run::plan::{ConfigError, usage};
use crate::supervise::bot_spec::BotSpec;

/// The schema version this host writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i32 = 1;

/// How long a write waits for another process's transaction before it fails.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

fn now_unix() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
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

pub(super) fn result_word(score: f64) -> &'static str {
    if score > 0.75 {
        "win"
    } else if score < 0.25 {
        "loss"
    } else {
        "draw"
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
