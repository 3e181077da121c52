//! The ladder's SQLite file: the schema (see the [module docs](super) for its tables), opening
//! and checking it, adding and retiring bots, the queries behind the table and a bot's
//! history, and saving a finished game.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;
use stratego_records::{Encoder, Form, decode_frame};
use stratego_rules::{ByColor, Color};

use super::{db_error, failure};
use crate::record::GameRecord;
use crate::run::plan::{ConfigError, usage};
use crate::supervise::bot_spec::BotSpec;

mod schema;
use schema::*;

/// The schema version this host writes (`PRAGMA user_version`): 2 since the records moved
/// out of `games` into `records`, compressed, with the tallies beside them; 3 since the
/// `claims` of running `ladder play`s. A file of version 1 or 2 is brought to version 3 when
/// this host opens it ([`Ladder::open`]).
pub const SCHEMA_VERSION: i32 = 3;

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

/// The games of one ordered pairing (red bot, blue bot), as the `pairs` table tallies them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairTally {
    /// Red's bot id.
    pub red: i64,
    /// Blue's bot id.
    pub blue: i64,
    /// Games.
    pub games: u64,
    /// Games Red won.
    pub red_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Games Red lost.
    pub red_losses: u64,
    /// When the last of them finished (Unix seconds).
    pub last_played: i64,
}

/// An open ladder database.
pub struct Ladder {
    conn: Connection,
    encoder: Encoder,
}

/// A `bots` row as read: id, name, spec JSON, version, retired_unix.
type BotRow = (i64, String, String, Option<String>, Option<i64>);

impl Ladder {
    /// Opens (creating) a ladder file: WAL journal, busy timeout, foreign keys, the schema;
    /// a file of version 1 is brought to version 2 in the same transaction (its records
    /// move, as they are, to `records`; the tallies are counted), so a failure leaves it as
    /// it was.
    ///
    /// The schema is checked before anything is written ([`check_schema`]): a file with a
    /// trigger, view, table or index this host does not make, or without one it makes, is
    /// refused (the SQL of a trigger or view runs whenever the host reads or writes the
    /// file).
    ///
    /// # Errors
    /// The file cannot be opened, is not a ladder of this host's schema, or is locked longer
    /// than [`BUSY_TIMEOUT`].
    pub fn open(path: &Path) -> Result<Ladder, String> {
        let mut conn = Connection::open(path).map_err(|e| e.to_string())?;
        // Functions with side effects are refused in the schema's SQL (defence in depth:
        // the schema is checked below).
        conn.execute_batch("PRAGMA trusted_schema = OFF;").map_err(|e| e.to_string())?;
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
                for part in [BOTS, GAMES, RECORDS, VERSION_2, VERSION_3] {
                    tx.execute_batch(part).map_err(|e| e.to_string())?;
                }
            }
            2 => {
                check_schema(&tx, &expected_schema_of(&[BOTS, GAMES, RECORDS, VERSION_2])?)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                tx.execute_batch(VERSION_3).map_err(|e| format!("bringing the ladder from version 2 to 3: {e}"))?;
            }
            1 => {
                // Version 1 had no triggers or views: one there would run in the move below.
                let foreign: Vec<String> = schema_of(&tx)
                    .map_err(|e| e.to_string())?
                    .into_iter()
                    .filter(|(kind, ..)| kind == "trigger" || kind == "view")
                    .map(|(kind, name, table, _)| format!("a {kind} {name} (on {table}) that no ladder has"))
                    .collect();
                if !foreign.is_empty() {
                    return Err(format!(
                        "{}: not a ladder file as a host of version 1 wrote it: {} (a ladder file is run as code: keep it as private as the bots' commands)",
                        path.display(),
                        foreign.join("; ")
                    ));
                }
                let games: i64 =
                    tx.query_row("SELECT count(*) FROM games", [], |r| r.get(0)).map_err(|e| e.to_string())?;
                tracing::warn!(
                    "{}: a ladder of schema version 1 ({games} games): moving its records to the version-2 `records` table (as plain JSON; new games are stored compressed)",
                    path.display()
                );
                for part in [RECORDS, MIGRATE_1_TO_2, VERSION_2, COUNT_TALLIES, VERSION_3] {
                    tx.execute_batch(part).map_err(|e| format!("bringing the ladder from version 1 to 2: {e}"))?;
                }
            }
            SCHEMA_VERSION => {}
            v => return Err(format!("ladder schema version {v}, this host knows {SCHEMA_VERSION}: use a newer host")),
        }
        check_schema(&tx, &expected_schema()?).map_err(|e| format!("{}: {e}", path.display()))?;
        if version != SCHEMA_VERSION {
            tx.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(|e| e.to_string())?;
        }
        tx.commit().map_err(|e| e.to_string())?;
        let encoder = Encoder::new(Form::Compact).map_err(|e| format!("zstd: {e}"))?;
        Ok(Ladder { conn, encoder })
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
        Self::bots_of(&self.conn)
    }

    /// [`Ladder::bots`] of the ladder file open as `conn` (a read-only connection of the
    /// arena's, that reads its entrants again while it runs).
    ///
    /// # Errors
    /// A database error, or a bot whose spec cannot be read.
    pub fn bots_of(conn: &rusqlite::Connection) -> Result<Vec<LadderBot>, String> {
        let mut stmt = conn
            .prepare_cached("SELECT id, name, spec, version, retired_unix FROM bots ORDER BY id")
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
        self.add_spec(name, BotSpec::parse(arg).map_err(usage)?)
    }

    /// [`Ladder::add`] of a parsed spec (the arena adds a bot's new version with the spec of
    /// its old one).
    ///
    /// # Errors
    /// As [`Ladder::add`].
    pub fn add_spec(&mut self, name: &str, mut spec: BotSpec) -> Result<String, ConfigError> {
        check_name(name)?;
        spec.name = name.to_owned();
        // Stored with an absolute `dir` (the working directory when none is given), so that
        // `play` starts it from any directory; `sample-bot` and remote bots need none.
        let cwd = std::env::current_dir().map_err(|e| usage(format!("ladder add: the working directory: {e}")))?;
        if !spec.remote && spec.command.first().map(String::as_str) != Some(crate::supervise::bot_spec::SAMPLE_BOT) {
            spec.dir = Some(match spec.dir.take() {
                Some(dir) if dir.is_absolute() => dir,
                Some(dir) => cwd.join(dir),
                None => cwd.clone(),
            });
        }
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
                // A bot added before commands were stored with their directory (no `dir`) is
                // the same bot when added again from where it was added.
                let same_but_dir = old.as_ref().is_some_and(|o| {
                    o.dir.is_none()
                        && spec.dir.as_ref() == Some(&cwd)
                        && BotSpec { dir: Some(cwd.clone()), ..o.clone() } == spec
                });
                if old.as_ref() != Some(&spec) && !same_but_dir {
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

    /// Records `version` as bot `id`'s version (a remote entrant's declared one: the arena).
    ///
    /// # Errors
    /// A database error.
    pub fn set_version(&mut self, id: i64, version: &str) -> rusqlite::Result<()> {
        self.conn.execute("UPDATE bots SET version = ?1 WHERE id = ?2", params![version, id]).map(|_| ())
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

    /// The tallies of every ordered pairing that has played (retired bots' too).
    ///
    /// # Errors
    /// A database error.
    pub fn pair_tallies(&self) -> rusqlite::Result<Vec<PairTally>> {
        let mut stmt = self
            .conn
            .prepare("SELECT red_bot, blue_bot, games, red_wins, draws, red_losses, last_played FROM pairs")?;
        let rows = stmt.query_map([], |r| {
            Ok(PairTally {
                red: r.get(0)?,
                blue: r.get(1)?,
                games: r.get(2)?,
                red_wins: r.get(3)?,
                draws: r.get(4)?,
                red_losses: r.get(5)?,
                last_played: r.get(6)?,
            })
        })?;
        rows.collect()
    }

    /// Games played by each bot that has played (bot id, games), every opponent counted.
    ///
    /// # Errors
    /// A database error.
    pub fn games_played(&self) -> rusqlite::Result<HashMap<i64, u64>> {
        let mut stmt = self.conn.prepare("SELECT bot, games FROM standings")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect()
    }

    /// The games `bot` has played against each opponent (opponent id, games), both colours.
    ///
    /// # Errors
    /// A database error.
    pub fn met(&self, bot: i64) -> rusqlite::Result<HashMap<i64, u64>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT blue_bot, games FROM pairs WHERE red_bot = ?1 UNION ALL SELECT red_bot, games FROM pairs WHERE blue_bot = ?1",
        )?;
        let mut out: HashMap<i64, u64> = HashMap::new();
        for row in stmt.query_map([bot], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, u64>(1)?)))? {
            let (other, games) = row?;
            *out.entry(other).or_default() += games;
        }
        Ok(out)
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
        let frame = self
            .encoder
            .encode(record)
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(format!("compressing the record: {e}").into()))?;
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO games (game_id, red_bot, blue_bot, result, reason, played_unix, red_version, blue_version)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                record.game_id,
                ids.red,
                ids.blue,
                red_score,
                record.result.reason.code(),
                played,
                versions.red,
                versions.blue,
            ],
        )?;
        tx.execute("INSERT INTO records (game, record) VALUES (?1, ?2)", params![tx.last_insert_rowid(), frame])?;
        tx.commit()
    }

    /// Claims pairs for the run `run` in one transaction that no other writer shares:
    /// drops stale claims (of a process gone from this machine, or older than a day), then
    /// calls `choose` with the pairs other runs have claimed (by bot id, as claimed) and
    /// records what it returns as this run's claims. Runners started at once on one file
    /// thus choose one after the other, each seeing the others' pairs.
    ///
    /// # Errors
    /// A database error (as `db` makes it), or `choose`'s.
    pub fn claim<E>(
        &mut self,
        run: &str,
        choose: impl FnOnce(&Ladder, &[(i64, i64)]) -> Result<Vec<(i64, i64)>, E>,
        db: impl Fn(rusqlite::Error) -> E,
    ) -> Result<Vec<(i64, i64)>, E> {
        let here = machine();
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(&db)?;
        let chosen = (|| {
            let now = now_unix();
            let claims: Vec<(String, i64, i64, i64, String, i64)> = {
                let mut stmt = self
                    .conn
                    .prepare("SELECT run, red_bot, blue_bot, pid, host, claimed_unix FROM claims")
                    .map_err(&db)?;
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
                    .and_then(|rows| rows.collect::<rusqlite::Result<_>>())
                    .map_err(&db)?
            };
            let mut others = Vec::new();
            for (claim_run, red, blue, pid, host, at) in claims {
                let gone = host == here && !Path::new(&format!("/proc/{pid}")).exists();
                if gone || now - at > CLAIM_LIFETIME_S {
                    self.conn.execute("DELETE FROM claims WHERE run = ?1", [&claim_run]).map_err(&db)?;
                } else if claim_run != run {
                    others.push((red, blue));
                }
            }
            let chosen = choose(self, &others)?;
            for &(red, blue) in &chosen {
                self.conn.execute(
                    "INSERT INTO claims (run, red_bot, blue_bot, pid, host, claimed_unix) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![run, red, blue, i64::from(std::process::id()), here, now],
                )
                .map_err(&db)?;
            }
            Ok(chosen)
        })();
        match chosen {
            Ok(chosen) => {
                self.conn.execute_batch("COMMIT").map_err(&db)?;
                Ok(chosen)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Drops the claims of the run `run` (it has ended).
    ///
    /// # Errors
    /// A database error.
    pub fn release(&self, run: &str) -> rusqlite::Result<()> {
        self.conn.execute("DELETE FROM claims WHERE run = ?1", [run]).map(|_| ())
    }

    /// Whether a game of id `game_id` is saved.
    ///
    /// # Errors
    /// A database error.
    pub fn has_game(&self, game_id: &str) -> rusqlite::Result<bool> {
        self.conn.query_row("SELECT EXISTS (SELECT 1 FROM games WHERE game_id = ?1)", [game_id], |r| r.get(0))
    }

    /// The records of the latest `limit` games that still have theirs, newest first.
    ///
    /// # Errors
    /// A database error or a stored record that does not read.
    pub fn recent_records(&self, limit: usize) -> Result<Vec<GameRecord>, String> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT g.game_id, r.record FROM games g JOIN records r ON r.game = g.id
                 ORDER BY g.played_unix DESC, g.id DESC LIMIT ?1",
            )
            .map_err(|e| e.to_string())?;
        let mut rows = stmt.query(params![limit as i64]).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| e.to_string())? {
            let id: String = row.get(0).map_err(|e| e.to_string())?;
            let line =
                stored_line(row.get_ref(1).map_err(|e| e.to_string())?).map_err(|e| format!("game {id}: {e}"))?;
            out.push(serde_json::from_slice(&line).map_err(|e| format!("game {id}: stored record: {e}"))?);
        }
        Ok(out)
    }

    /// The ids of the games whose records `which` selects, oldest first (by finish, then id).
    ///
    /// # Errors
    /// A database error.
    pub fn stored_games(&self, which: &RecordSelection) -> rusqlite::Result<Vec<i64>> {
        let (sql, arg) = match which {
            RecordSelection::All => {
                ("SELECT game FROM records r JOIN games g ON g.id = r.game ORDER BY g.played_unix, g.id", None)
            }
            RecordSelection::Bot(id) => (
                "SELECT game FROM records r JOIN games g ON g.id = r.game WHERE g.red_bot = ?1 OR g.blue_bot = ?1 ORDER BY g.played_unix, g.id",
                Some(*id),
            ),
            RecordSelection::FinishedBefore(unix) => (
                "SELECT game FROM records r JOIN games g ON g.id = r.game WHERE g.played_unix < ?1 ORDER BY g.played_unix, g.id",
                Some(*unix),
            ),
            RecordSelection::AllButLatest(keep) => (
                "SELECT game FROM records r JOIN games g ON g.id = r.game
                 WHERE g.id NOT IN (SELECT id FROM games ORDER BY played_unix DESC, id DESC LIMIT ?1)
                 ORDER BY g.played_unix, g.id",
                Some(*keep as i64),
            ),
        };
        let mut stmt = self.conn.prepare(sql)?;
        match arg {
            Some(a) => stmt.query_map([a], |r| r.get(0))?.collect(),
            None => stmt.query_map([], |r| r.get(0))?.collect(),
        }
    }

    /// Writes the records of `games` (ids from [`Ladder::stored_games`]) to `out`, in
    /// order, in `form`: the stored frames as they are in the compact form (each checked
    /// to read), decompressed into plain lines in the plain form; a record stored as plain
    /// text (moved from a version-1 file) is compressed for the compact form. Returns the
    /// records written and the bytes they take in the ladder.
    ///
    /// # Errors
    /// A database error, a stored record that does not read (naming its game), or a write
    /// error.
    pub fn write_records(&self, games: &[i64], form: Form, out: &mut dyn Write) -> Result<(u64, u64), String> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT g.game_id, r.record FROM records r JOIN games g ON g.id = r.game WHERE r.game = ?1")
            .map_err(|e| e.to_string())?;
        let mut encoder = Encoder::new(Form::Compact).map_err(|e| format!("zstd: {e}"))?;
        let (mut written, mut stored) = (0u64, 0u64);
        for &game in games {
            let mut rows = stmt.query([game]).map_err(|e| e.to_string())?;
            let Some(row) = rows.next().map_err(|e| e.to_string())? else { continue };
            let id: String = row.get(0).map_err(|e| e.to_string())?;
            let value = row.get_ref(1).map_err(|e| e.to_string())?;
            let line = stored_line(value).map_err(|e| format!("game {id}: {e}"))?;
            let bytes = match (form, value) {
                (Form::Compact, ValueRef::Blob(frame)) => frame.to_vec(),
                (Form::Compact, _) => encoder.encode_line(&line).map_err(|e| format!("zstd: {e}"))?,
                (Form::Plain, _) => line,
            };
            stored += match value {
                ValueRef::Blob(b) | ValueRef::Text(b) => b.len() as u64,
                _ => 0,
            };
            out.write_all(&bytes).map_err(|e| e.to_string())?;
            written += 1;
        }
        Ok((written, stored))
    }

    /// Deletes the records of `games` (their results stay), in one transaction.
    ///
    /// # Errors
    /// A database error (nothing is deleted then).
    pub fn drop_records(&mut self, games: &[i64]) -> rusqlite::Result<u64> {
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut dropped = 0;
        {
            let mut stmt = tx.prepare("DELETE FROM records WHERE game = ?1")?;
            for &game in games {
                dropped += stmt.execute([game])? as u64;
            }
        }
        tx.commit()?;
        Ok(dropped)
    }

    /// Rebuilds the file without its free pages (`VACUUM`), and empties the WAL.
    ///
    /// # Errors
    /// A database error (another process holding the file longer than the busy timeout).
    pub fn vacuum(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch("VACUUM")?;
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
    }

    /// The id of the bot named `name`.
    ///
    /// # Errors
    /// No bot of that name (exit 2), a database error.
    pub fn bot_id(&self, name: &str) -> Result<i64, ConfigError> {
        Ok(self.bot(name)?.ok_or_else(|| usage(format!("ladder: no bot named {name:?}")))?.id)
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

/// Which stored records a command reads.
#[derive(Clone, Debug)]
pub enum RecordSelection {
    /// Every one.
    All,
    /// A bot's games (its id).
    Bot(i64),
    /// Games finished before this time (Unix seconds).
    FinishedBefore(i64),
    /// All but the latest games (this many, by finish time; their records stay).
    AllButLatest(u64),
}

/// The plain line (JSON and a newline) of a stored record: a zstd frame, or plain JSON text
/// (a record moved from a version-1 file).
///
/// # Errors
/// Neither: a frame that does not decompress, a value of another type.
pub fn stored_line(value: ValueRef<'_>) -> Result<Vec<u8>, String> {
    match value {
        ValueRef::Blob(frame) => decode_frame(frame).map_err(|e| format!("stored record: {e}")),
        ValueRef::Text(text) => {
            let mut line = text.to_vec();
            if line.last() != Some(&b'\n') {
                line.push(b'\n');
            }
            Ok(line)
        }
        other => Err(format!("stored record: a value of type {:?}, not a record", other.data_type())),
    }
}

fn check_name(name: &str) -> Result<(), ConfigError> {
    // Control and bidi formatting characters: what `text::clean` would escape.
    if name.trim().is_empty() || name.trim() != name || crate::text::clean(name) != name || name.len() > 100 {
        return Err(usage(format!(
            "ladder: bad bot name {name:?} (1 to 100 characters, no control or bidi formatting characters, no surrounding spaces)"
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

    #[test]
    fn a_version_2_file_gains_the_claims_and_claims_of_a_gone_process_are_dropped() {
        let dir = std::env::temp_dir().join(format!("ladder-unit-claims-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("l.db");
        let _ = std::fs::remove_file(&path);
        let c = Connection::open(&path).unwrap();
        for part in [BOTS, GAMES, RECORDS, VERSION_2] {
            c.execute_batch(part).unwrap();
        }
        c.execute_batch("PRAGMA user_version = 2;").unwrap();
        drop(c);
        let mut l = Ladder::open(&path).unwrap();
        let version: i32 = l.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, 3);
        // A claim of this process is seen by another run; one of a process that is gone is not.
        let db = |e: rusqlite::Error| e.to_string();
        l.claim(
            "one",
            |_, others| {
                Ok::<_, String>({
                    assert!(others.is_empty());
                    vec![(1, 2)]
                })
            },
            db,
        )
        .unwrap();
        l.claim(
            "two",
            |_, others| {
                Ok::<_, String>({
                    assert_eq!(others, &[(1, 2)]);
                    vec![(3, 4)]
                })
            },
            db,
        )
        .unwrap();
        l.conn.execute("UPDATE claims SET pid = 999999999 WHERE run = 'one'", []).unwrap();
        l.claim(
            "three",
            |_, others| {
                Ok::<_, String>({
                    assert_eq!(others, &[(3, 4)]);
                    Vec::new()
                })
            },
            db,
        )
        .unwrap();
        l.release("two").unwrap();
        l.claim(
            "four",
            |_, others| {
                Ok::<_, String>({
                    assert!(others.is_empty());
                    Vec::new()
                })
            },
            db,
        )
        .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
