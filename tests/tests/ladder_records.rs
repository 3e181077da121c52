//! The ladder's records at rest: stored compressed (one zstd frame a game), read back by
//! `ladder records` and the page of `ladder table --html`; a ladder file of schema version
//! 1 (plain JSON records in `games`) still read, brought to version 2; `ladder prune`
//! dropping old records (first archived to a new `.jsonl.zst` file that `replay` and
//! `export` read) while the table stays as it was.

use std::path::Path;
use std::process::{Command, Output};

use stratego_tests::{TempDir, host_bin, ladder, ok};

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).output().expect("run stratego-host")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn table(db: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(&ladder(db, &["table", "--json"]))).unwrap()
}

fn conn(db: &Path) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(db).unwrap();
    c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
    c
}

/// The records file's games: (game id, whole line) per record.
fn plain_lines(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .split_inclusive('\n')
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["game_id"].as_str().unwrap().to_owned(), l.to_owned())
        })
        .collect()
}

fn two_bots_and_games(db: &Path, games: &str) {
    ok(&ladder(db, &["add", "heuristic", "sample-bot"]));
    ok(&ladder(db, &["add", "random", "sample-bot --strategy random"]));
    ok(&ladder(db, &["play", "-n", games, "--seed", "5", "-q"]));
}

#[test]
fn records_are_stored_compressed_and_read_back_whole() {
    let dir = TempDir::new("ladder-compact");
    let db = dir.join("ladder.db");
    two_bots_and_games(&db, "4");
    let c = conn(&db);
    let version: i32 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, 3);
    let mut stmt = c
        .prepare(
            "SELECT g.game_id, typeof(r.record), r.record FROM games g JOIN records r ON r.game = g.id ORDER BY g.id",
        )
        .unwrap();
    let rows: Vec<(String, String, Vec<u8>)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4);
    let mut stored = Vec::new();
    for (id, kind, frame) in &rows {
        assert_eq!(kind, "blob", "game {id} is stored as one zstd frame");
        assert_eq!(&frame[..4], &[0x28, 0xB5, 0x2F, 0xFD]);
        let line = String::from_utf8(zstd::stream::decode_all(&frame[..]).unwrap()).unwrap();
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1, "one record's line");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["game_id"].as_str(), Some(id.as_str()));
        assert!(frame.len() * 3 < line.len(), "compressed: {} bytes for a {}-byte line", frame.len(), line.len());
        stored.push((id.clone(), line));
    }
    drop(stmt);
    drop(c);

    // Plain JSON out: the same lines, oldest first.
    let plain = dir.join("out.jsonl");
    ok(&ladder(&db, &["records", "--out", s(&plain)]));
    let mut lines = plain_lines(&plain);
    let mut expected = stored.clone();
    lines.sort();
    expected.sort();
    assert_eq!(lines, expected);
    // The compact form: the frames as stored, which replay reads.
    let zst = dir.join("out.jsonl.zst");
    ok(&ladder(&db, &["records", "--out", s(&zst), "--bot", "random"]));
    let text = String::from_utf8(zstd::stream::decode_all(std::fs::File::open(&zst).unwrap()).unwrap()).unwrap();
    assert_eq!(text.lines().count(), 4);
    let out = host(&["replay", s(&zst), "--game", &stored[1].0]);
    assert!(ok(&out).contains("Result: "));
    // An existing file is never replaced; an unknown bot is an error.
    let again = ladder(&db, &["records", "--out", s(&plain)]);
    assert_eq!(again.status.code(), Some(2), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(plain_lines(&plain).len(), 4, "the existing file is untouched");
    let nobody = ladder(&db, &["records", "--out", s(&dir.join("n.jsonl")), "--bot", "nobody"]);
    assert_eq!(nobody.status.code(), Some(2));
    assert!(!dir.join("n.jsonl").exists());

    // The page of the latest games reads them too.
    let page = dir.join("site").join("ladder.html");
    std::fs::create_dir_all(page.parent().unwrap()).unwrap();
    ok(&ladder(&db, &["table", "--html", s(&page)]));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(stored.iter().all(|(id, _)| html.contains(id.as_str())), "every game is listed");

    // The pairings the next play would choose, without playing.
    let pairs: Vec<[String; 2]> = serde_json::from_str(&ok(&ladder(&db, &["pairings", "-n", "4", "--json"]))).unwrap();
    assert_eq!(pairs.len(), 2);
    assert!(pairs.iter().all(|p| p.contains(&"heuristic".to_owned()) && p.contains(&"random".to_owned())));
    assert_eq!(ladder(&db, &["pairings", "-n", "3"]).status.code(), Some(2));
}

/// The schema of version 1, as the host wrote it before records were compressed.
const VERSION_1: &str = "
CREATE TABLE bots (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, command TEXT NOT NULL, dir TEXT,
    spec TEXT NOT NULL, version TEXT, added_unix INTEGER NOT NULL, retired_unix INTEGER);
CREATE TABLE games (id INTEGER PRIMARY KEY, game_id TEXT NOT NULL UNIQUE,
    red_bot INTEGER NOT NULL REFERENCES bots(id), blue_bot INTEGER NOT NULL REFERENCES bots(id),
    result REAL NOT NULL CHECK (result IN (0, 0.5, 1)), reason TEXT NOT NULL, played_unix INTEGER NOT NULL,
    red_version TEXT, blue_version TEXT, record TEXT NOT NULL);
CREATE INDEX games_red ON games(red_bot);
CREATE INDEX games_blue ON games(blue_bot);
PRAGMA user_version = 1;
";

#[test]
fn a_ladder_of_schema_version_1_keeps_working_with_its_plain_records() {
    let dir = TempDir::new("ladder-v1");
    // Real games, from a current ladder: their bots and their plain records.
    let new = dir.join("new.db");
    two_bots_and_games(&new, "4");
    let plain = dir.join("games.jsonl");
    ok(&ladder(&new, &["records", "--out", s(&plain)]));
    let lines = plain_lines(&plain);
    let expected = table(&new);

    // The same games in a file of version 1, as the old host stored them.
    let old = dir.join("old.db");
    let c = conn(&old);
    c.execute_batch(VERSION_1).unwrap();
    c.execute("ATTACH DATABASE ?1 AS new", [s(&new)]).unwrap();
    c.execute_batch(
        "INSERT INTO bots SELECT * FROM new.bots;
         INSERT INTO games (id, game_id, red_bot, blue_bot, result, reason, played_unix, red_version, blue_version, record)
             SELECT id, game_id, red_bot, blue_bot, result, reason, played_unix, red_version, blue_version, '' FROM new.games;
         DETACH DATABASE new;",
    )
    .unwrap();
    for (id, line) in &lines {
        c.execute("UPDATE games SET record = ?1 WHERE game_id = ?2", [line.trim_end(), id]).unwrap();
    }
    drop(c);

    // Read as it is: the table, the history and the records.
    let t = table(&old);
    assert_eq!(t["bots"], expected["bots"], "the same table from the old file");
    let c = conn(&old);
    let version: i32 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, 3, "brought to version 3 (through 2) when opened");
    let kinds: Vec<String> = c
        .prepare("SELECT typeof(record) FROM records")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(kinds, ["text"; 4], "the old records stay as they were: plain JSON");
    let check: String = c.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    drop(c);
    let history: serde_json::Value =
        serde_json::from_str(&ok(&ladder(&old, &["history", "random", "--json"]))).unwrap();
    assert_eq!(history["games"].as_array().unwrap().len(), 4);
    let back = dir.join("back.jsonl");
    ok(&ladder(&old, &["records", "--out", s(&back)]));
    assert_eq!(plain_lines(&back), lines, "the plain records read back byte for byte");
    let back_zst = dir.join("back.jsonl.zst");
    ok(&ladder(&old, &["records", "--out", s(&back_zst)]));
    let text = String::from_utf8(zstd::stream::decode_all(std::fs::File::open(&back_zst).unwrap()).unwrap()).unwrap();
    assert_eq!(text, lines.iter().map(|(_, l)| l.as_str()).collect::<String>(), "compressed on the way out");

    // New games go on in the compact form beside the old plain ones.
    ok(&ladder(&old, &["play", "-n", "2", "-q"]));
    let c = conn(&old);
    let blobs: i64 =
        c.query_row("SELECT count(*) FROM records WHERE typeof(record) = 'blob'", [], |r| r.get(0)).unwrap();
    assert_eq!(blobs, 2);
    drop(c);
    let all = dir.join("all.jsonl");
    ok(&ladder(&old, &["records", "--out", s(&all)]));
    assert_eq!(plain_lines(&all).len(), 6);
    assert_eq!(table(&old)["games"], 6);

    // A version this host does not know is refused, and left alone.
    let future = dir.join("future.db");
    rusqlite::Connection::open(&future).unwrap().execute_batch("PRAGMA user_version = 4;").unwrap();
    let out = ladder(&future, &["table"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("schema version 4"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn prune_drops_old_records_after_archiving_them_and_keeps_every_result() {
    let dir = TempDir::new("ladder-prune");
    let db = dir.join("ladder.db");
    two_bots_and_games(&db, "6");
    let all = dir.join("all.jsonl");
    ok(&ladder(&db, &["records", "--out", s(&all)]));
    let lines = plain_lines(&all);
    let before = table(&db);
    let history = ok(&ladder(&db, &["history", "heuristic", "--json"]));

    // Keep the latest two records; the four others go to the archive first.
    let archive = dir.join("old.jsonl.zst");
    let out = ladder(&db, &["prune", "--keep-last", "2", "--archive", s(&archive)]);
    ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("dropped 4 records"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(table(&db), before, "the table and the ratings are unchanged");
    assert_eq!(ok(&ladder(&db, &["history", "heuristic", "--json"])), history);
    let kept = dir.join("kept.jsonl");
    ok(&ladder(&db, &["records", "--out", s(&kept)]));
    let kept = plain_lines(&kept);
    assert_eq!(kept.len(), 2);
    let archived =
        String::from_utf8(zstd::stream::decode_all(std::fs::File::open(&archive).unwrap()).unwrap()).unwrap();
    assert_eq!(archived.lines().count(), 4);
    // Between them, every record, each once.
    let mut both: Vec<String> = archived.split_inclusive('\n').map(str::to_owned).collect();
    both.extend(kept.into_iter().map(|(_, l)| l));
    both.sort();
    let mut every: Vec<String> = lines.iter().map(|(_, l)| l.clone()).collect();
    every.sort();
    assert_eq!(both, every);

    // The archive is a compact records file: replay and export read it.
    let first: serde_json::Value = serde_json::from_str(archived.lines().next().unwrap()).unwrap();
    let game = first["game_id"].as_str().unwrap();
    assert!(ok(&host(&["replay", s(&archive), "--game", game])).contains("Result: "));
    let page = dir.join("archive.html");
    ok(&host(&["export", s(&archive), "--html", s(&page)]));
    assert!(std::fs::read_to_string(&page).unwrap().contains(game));

    // An archive is never written over, and nothing is dropped then.
    let size = std::fs::metadata(&archive).unwrap().len();
    let again = ladder(&db, &["prune", "--keep-last", "0", "--archive", s(&archive)]);
    assert_eq!(again.status.code(), Some(2), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(std::fs::metadata(&archive).unwrap().len(), size);
    let other = dir.join("notes.jsonl.zst");
    std::fs::write(&other, "mine").unwrap();
    assert_eq!(ladder(&db, &["prune", "--keep-last", "0", "--archive", s(&other)]).status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "mine");
    let c = conn(&db);
    let records: i64 = c.query_row("SELECT count(*) FROM records", [], |r| r.get(0)).unwrap();
    assert_eq!(records, 2, "a refused prune drops nothing");
    drop(c);
    // An archive not named .zst is refused before anything is done.
    let named = ladder(&db, &["prune", "--keep-last", "0", "--archive", s(&dir.join("a.jsonl"))]);
    assert_eq!(named.status.code(), Some(2));
    assert!(!dir.join("a.jsonl").exists());

    // By age, without an archive: games of the last day keep theirs.
    ok(&ladder(&db, &["prune", "--keep-records-days", "1"]));
    let c = conn(&db);
    let records: i64 = c.query_row("SELECT count(*) FROM records", [], |r| r.get(0)).unwrap();
    assert_eq!(records, 2);
    drop(c);
    ok(&ladder(&db, &["prune", "--keep-last", "0"]));
    assert_eq!(table(&db), before);
    let c = conn(&db);
    let records: i64 = c.query_row("SELECT count(*) FROM records", [], |r| r.get(0)).unwrap();
    assert_eq!(records, 0);
    let check: String = c.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    // Results are never deleted, even by hand: the tallies count them.
    let deleted = c.execute("DELETE FROM games", []);
    assert!(deleted.unwrap_err().to_string().contains("kept forever"));
    drop(c);
    // A ladder without records still rates, lists and plays.
    assert_eq!(table(&db)["games"], 6);
    ok(&ladder(&db, &["play", "-n", "2", "-q"]));
    assert_eq!(table(&db)["games"], 8);
    assert_eq!(ladder(&db, &["prune"]).status.code(), Some(2), "prune needs --keep-last or --keep-records-days");
}
