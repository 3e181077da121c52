//! The ladder file's schema: the statements that make each version, the migrations between
//! them, the check on open that a file's schema is exactly the one this host makes, and what
//! a claim records of its runner (its machine; how long it counts).

use rusqlite::Connection;

/// The bots, as in every version.
pub(super) const BOTS: &str = "
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
";

/// The games of version 2: a row of results per game, no record.
pub(super) const GAMES: &str = "
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE,
    red_bot INTEGER NOT NULL REFERENCES bots(id),
    blue_bot INTEGER NOT NULL REFERENCES bots(id),
    result REAL NOT NULL CHECK (result IN (0, 0.5, 1)),
    reason TEXT NOT NULL,
    played_unix INTEGER NOT NULL,
    red_version TEXT,
    blue_version TEXT
);
CREATE INDEX games_red ON games(red_bot);
CREATE INDEX games_blue ON games(blue_bot);
";

/// The records of version 2: a zstd frame each (the compact form's frame of the record's
/// JSON line), or the plain JSON text of a record moved from a version-1 file. `ladder
/// prune` deletes rows here, never in `games`.
pub(super) const RECORDS: &str = "
CREATE TABLE records (
    game INTEGER PRIMARY KEY REFERENCES games(id),
    record BLOB NOT NULL
);
";

/// What version 2 adds beside `bots`, `games` and `records`: the tallies per ordered pairing and per bot (kept by the
/// trigger on every insert into `games`, so that the table and the pairings need not read
/// every game), and triggers that keep `games` as it was written (the tallies count it).
pub(super) const VERSION_2: &str = "
CREATE INDEX games_played ON games(played_unix);
CREATE TABLE pairs (
    red_bot INTEGER NOT NULL,
    blue_bot INTEGER NOT NULL,
    games INTEGER NOT NULL,
    red_wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    red_losses INTEGER NOT NULL,
    last_played INTEGER NOT NULL,
    PRIMARY KEY (red_bot, blue_bot)
) WITHOUT ROWID;
CREATE INDEX pairs_blue ON pairs(blue_bot);
CREATE TABLE standings (
    bot INTEGER PRIMARY KEY,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    last_played INTEGER NOT NULL
);
CREATE TRIGGER games_tally AFTER INSERT ON games BEGIN
    INSERT INTO pairs VALUES (NEW.red_bot, NEW.blue_bot, 1, NEW.result = 1, NEW.result = 0.5, NEW.result = 0, NEW.played_unix)
    ON CONFLICT DO UPDATE SET games = games + 1, red_wins = red_wins + excluded.red_wins,
        draws = draws + excluded.draws, red_losses = red_losses + excluded.red_losses,
        last_played = max(last_played, excluded.last_played);
    INSERT INTO standings VALUES (NEW.red_bot, 1, NEW.result = 1, NEW.result = 0.5, NEW.result = 0, NEW.played_unix)
    ON CONFLICT DO UPDATE SET games = games + 1, wins = wins + excluded.wins, draws = draws + excluded.draws,
        losses = losses + excluded.losses, last_played = max(last_played, excluded.last_played);
    INSERT INTO standings VALUES (NEW.blue_bot, 1, NEW.result = 0, NEW.result = 0.5, NEW.result = 1, NEW.played_unix)
    ON CONFLICT DO UPDATE SET games = games + 1, wins = wins + excluded.wins, draws = draws + excluded.draws,
        losses = losses + excluded.losses, last_played = max(last_played, excluded.last_played);
END;
CREATE TRIGGER games_kept BEFORE DELETE ON games BEGIN
    SELECT RAISE(ABORT, 'ladder games are kept forever (the tallies count them); ladder prune drops records only');
END;
CREATE TRIGGER games_fixed BEFORE UPDATE OF red_bot, blue_bot, result, played_unix ON games BEGIN
    SELECT RAISE(ABORT, 'the bots, result and date of a ladder game are kept as played (the tallies count them)');
END;
";

/// Version 3: the pairs each running `ladder play` is playing (its run id, the pair, the
/// process and machine that claimed it, when), so that runners started at once on one file
/// spread over the pairings ([`Ladder::claim`]). A row goes when its run ends; a claim of a
/// process that is gone (on this machine) or older than a day is stale and dropped.
pub(super) const VERSION_3: &str = "
CREATE TABLE claims (
    run TEXT NOT NULL,
    red_bot INTEGER NOT NULL,
    blue_bot INTEGER NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    claimed_unix INTEGER NOT NULL
);
";

/// How long a claim counts at most: a run on another machine that was killed leaves its
/// claims for this long.
pub(super) const CLAIM_LIFETIME_S: i64 = 24 * 3600;

/// This machine's name, as claims record it.
pub(super) fn machine() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_owned()).unwrap_or_default()
}

/// Version 1 to 2, in the transaction that opens the file: the records move as they are
/// (plain JSON text) into `records`, the column goes, the tallies are counted from every
/// game.
pub(super) const MIGRATE_1_TO_2: &str = "
INSERT INTO records (game, record) SELECT id, record FROM games;
ALTER TABLE games DROP COLUMN record;
";

/// After [`MIGRATE_1_TO_2`] and [`VERSION_2`]: the tallies of
/// the games already there.
pub(super) const COUNT_TALLIES: &str = "
INSERT INTO pairs
    SELECT red_bot, blue_bot, count(*), sum(result = 1), sum(result = 0.5), sum(result = 0), max(played_unix)
    FROM games GROUP BY red_bot, blue_bot;
INSERT INTO standings
    SELECT bot, count(*), sum(score = 1), sum(score = 0.5), sum(score = 0), max(played)
    FROM (SELECT red_bot AS bot, result AS score, played_unix AS played FROM games
          UNION ALL SELECT blue_bot, 1 - result, played_unix FROM games)
    GROUP BY bot;
";

/// One object of a schema, as compared on open: its kind, name and table, and what it is
/// (a table's columns; an index's, trigger's or view's SQL with its white space folded).
pub(super) type SchemaItem = (String, String, String, String);

/// The schema of `conn` (its main database), sorted: see [`SchemaItem`]. SQLite's own
/// objects (`sqlite_…`) are left out.
pub(super) fn schema_of(conn: &Connection) -> rusqlite::Result<Vec<SchemaItem>> {
    let mut stmt = conn.prepare(
        "SELECT type, name, tbl_name, coalesce(sql, '') FROM main.sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?))
    })?;
    let mut items = Vec::new();
    for row in rows {
        let (kind, name, table, sql) = row?;
        let what = if kind == "table" {
            // A table by its columns: a version-1 file's `games` lost a column by ALTER
            // TABLE, which leaves its CREATE text unlike a new file's.
            let mut cols = conn
                .prepare("SELECT name, type, \"notnull\", coalesce(dflt_value, ''), pk FROM pragma_table_xinfo(?1)")?;
            let cols = cols
                .query_map([&name], |r| {
                    Ok(format!(
                        "{} {} {} {} {}",
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, i64>(4)?
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            cols.join(", ")
        } else {
            sql.split_whitespace().collect::<Vec<_>>().join(" ")
        };
        items.push((kind, name, table, what));
    }
    Ok(items)
}

/// The schema a ladder of [`SCHEMA_VERSION`] has: made in memory from the statements
/// that make a new file.
pub(super) fn expected_schema() -> Result<Vec<SchemaItem>, String> {
    expected_schema_of(&[BOTS, GAMES, RECORDS, VERSION_2, VERSION_3])
}

/// The schema the statements `parts` make, in memory.
pub(super) fn expected_schema_of(parts: &[&str]) -> Result<Vec<SchemaItem>, String> {
    let conn = Connection::open_in_memory().map_err(|e| e.to_string())?;
    for part in parts {
        conn.execute_batch(part).map_err(|e| e.to_string())?;
    }
    schema_of(&conn).map_err(|e| e.to_string())
}

/// Refuses a ladder file whose schema is not exactly the one this host makes: a trigger,
/// view, table or index it does not know (a trigger runs its SQL whenever the host writes,
/// so a foreign one could change or drop what is saved), one missing, or a table whose
/// columns differ.
pub(super) fn check_schema(conn: &Connection, expected: &[SchemaItem]) -> Result<(), String> {
    let found = schema_of(conn).map_err(|e| e.to_string())?;
    let mut problems = Vec::new();
    for item in &found {
        if !expected.contains(item) {
            let (kind, name, table, _) = item;
            problems.push(if expected.iter().any(|e| e.0 == *kind && e.1 == *name) {
                format!("{kind} {name} (on {table}) differs from this host's")
            } else {
                format!("a {kind} {name} (on {table}) that no ladder has")
            });
        }
    }
    for (kind, name, _, _) in expected {
        if !found.iter().any(|f| f.0 == *kind && f.1 == *name) {
            problems.push(format!("no {kind} {name}"));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "not a ladder file as this host writes it: {} (a ladder file is run as code: its triggers and views run when the host reads and writes it; keep it as private as the bots' commands, and start a new one rather than use one edited by hand)",
        problems.join("; ")
    ))
}
