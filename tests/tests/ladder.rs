//! `stratego-host ladder` through the real binary, on a real SQLite file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stratego_tests::{CALM_CLOCK, TempDir, host_bin, ladder, ok};

const HEURISTIC: &str = "sample-bot";
const RANDOM: &str = "sample-bot --strategy random";
const SEARCH: &str = "sample-bot --strategy search --worlds 2";

fn add_three(db: &Path) {
    for (name, command) in [("heuristic", HEURISTIC), ("random", RANDOM), ("search", SEARCH)] {
        ok(&ladder(db, &["add", name, command]));
    }
}

fn table(db: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(&ladder(db, &["table", "--json"]))).expect("table --json prints JSON")
}

fn games_in_db(db: &Path) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0)).unwrap()
}

fn db_in(dir: &TempDir) -> PathBuf {
    dir.join("ladder.db")
}

#[test]
fn a_ladder_adds_plays_rates_retires_and_lists_history() {
    let dir = TempDir::new("ladder-main");
    let db = db_in(&dir);
    add_three(&db);
    // Idempotent for the same command; a name is never given to another command.
    ok(&ladder(&db, &["add", "random", RANDOM]));
    let clash = ladder(&db, &["add", "random", HEURISTIC]);
    assert_eq!(clash.status.code(), Some(2), "{}", String::from_utf8_lossy(&clash.stderr));
    assert!(String::from_utf8_lossy(&clash.stderr).contains("never reused"));

    let out = ladder(&db, &["play", "--games", "8", "-j", "2", "--seed", "3", "--json"]);
    let printed: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(printed["games"], 8);
    assert_eq!(games_in_db(&db), 8);

    let t = table(&db);
    assert_eq!(t["games"], 8);
    let bots = t["bots"].as_array().unwrap();
    assert_eq!(bots.len(), 3);
    let total: u64 = bots.iter().map(|b| b["games"].as_u64().unwrap()).sum();
    assert_eq!(total, 16, "each game counts for two bots");
    for b in bots {
        assert!(b["elo"].as_f64().is_some(), "{b}");
        assert!(b["elo_err95"].as_f64().is_some_and(|e| e > 0.0), "{b}");
        let g = b["games"].as_u64().unwrap();
        assert!(g >= 4, "every bot plays: {b}");
        let wdl = b["wins"].as_u64().unwrap() + b["draws"].as_u64().unwrap() + b["losses"].as_u64().unwrap();
        assert_eq!(wdl, g);
        assert!(b["last_played"].as_str().is_some());
    }
    let elo = |name: &str| bots.iter().find(|b| b["name"] == name).unwrap()["elo"].as_f64().unwrap();
    assert!(elo("heuristic") > elo("random"), "{t}");

    // Markdown and HTML.
    let md = ok(&ladder(&db, &["table", "--markdown"]));
    assert!(md.contains("| # | bot | Elo |") && md.contains("| heuristic |"), "{md}");
    let html = ok(&ladder(&db, &["table", "--html"]));
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<td>heuristic</td>"), "{html}");

    // History: every game of the bot, from its side.
    let h: serde_json::Value = serde_json::from_str(&ok(&ladder(&db, &["history", "random", "--json"]))).unwrap();
    let games = h["games"].as_array().unwrap();
    assert_eq!(games.len() as u64, bots.iter().find(|b| b["name"] == "random").unwrap()["games"].as_u64().unwrap());
    for g in games {
        assert!(["heuristic", "search"].contains(&g["opponent"].as_str().unwrap()), "{g}");
        assert!(["red", "blue"].contains(&g["color"].as_str().unwrap()));
        assert!(g["game_id"].as_str().unwrap().starts_with("ladder-"));
    }
    let text = ok(&ladder(&db, &["history", "random"]));
    assert!(text.starts_with("random: "), "{text}");

    // Retiring hides the bot; its games still count.
    ok(&ladder(&db, &["retire", "search"]));
    let t = table(&db);
    assert_eq!(t["games"], 8);
    assert_eq!(t["retired"], 1);
    let names: Vec<&str> = t["bots"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2);
    assert!(!names.contains(&"search"));
    assert!(ok(&ladder(&db, &["history", "search"])).contains("(retired)"));
    // A retired bot plays no more.
    ok(&ladder(&db, &["play", "--games", "2"]));
    let h: serde_json::Value = serde_json::from_str(&ok(&ladder(&db, &["history", "search", "--json"]))).unwrap();
    let search_games = h["games"].as_array().unwrap().len();
    assert_eq!(table(&db)["games"], 10);
    let h2: serde_json::Value = serde_json::from_str(&ok(&ladder(&db, &["history", "search", "--json"]))).unwrap();
    assert_eq!(h2["games"].as_array().unwrap().len(), search_games);

    let odd = ladder(&db, &["play", "--games", "3"]);
    assert_eq!(odd.status.code(), Some(2));
    let unknown = ladder(&db, &["retire", "nobody"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn two_plays_at_once_on_one_file_keep_every_game() {
    let dir = TempDir::new("ladder-concurrent");
    let db = db_in(&dir);
    add_three(&db);
    let play = || {
        Command::new(host_bin())
            .arg("ladder")
            .arg("--db")
            .arg(&db)
            .args(["play", "--games", "6", "-q"])
            .args(CALM_CLOCK)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (play(), play());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(games_in_db(&db), 12);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let ids: i64 = conn.query_row("SELECT count(DISTINCT game_id) FROM games", [], |r| r.get(0)).unwrap();
    assert_eq!(ids, 12);
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    let t = table(&db);
    let total: u64 = t["bots"].as_array().unwrap().iter().map(|b| b["games"].as_u64().unwrap()).sum();
    assert_eq!(total, 24);
}

#[test]
fn a_killed_play_keeps_every_finished_game() {
    let dir = TempDir::new("ladder-killed");
    let db = db_in(&dir);
    add_three(&db);
    let log = dir.join("play.log");
    let mut child = Command::new(host_bin())
        .arg("ladder")
        .arg("--db")
        .arg(&db)
        .args(["play", "--games", "40"])
        .args(CALM_CLOCK)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while games_in_db(&db) == 0 {
        assert!(started.elapsed() < Duration::from_secs(120), "no game saved in two minutes");
        assert!(child.try_wait().unwrap().is_none(), "play ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let status = child.wait().unwrap();
    assert!(status.code().is_none(), "killed by a signal");
    let saved = games_in_db(&db);
    let lines = std::fs::read_to_string(&log).unwrap().lines().filter(|l| l.starts_with("game ")).count() as i64;
    assert!(saved >= 1 && saved >= lines, "a game is printed only once saved: {saved} saved, {lines} printed");
    assert!(saved < 40, "killed before the end");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    // Every saved record is one whole zstd frame of complete JSON.
    let mut stmt = conn.prepare("SELECT record FROM records").unwrap();
    for record in stmt.query_map([], |r| r.get::<_, Vec<u8>>(0)).unwrap() {
        let line = zstd::stream::decode_all(&record.unwrap()[..]).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert!(v["result"]["reason"].is_string());
    }
    drop(stmt);
    drop(conn);
    assert_eq!(table(&db)["games"].as_i64().unwrap(), saved);
    // The file goes on: another play adds to it.
    ok(&ladder(&db, &["play", "--games", "2", "-q"]));
    assert_eq!(games_in_db(&db), saved + 2);
}

/// The sample setup book's path and its entries in file order (a line's text before `#`).
fn sample_book() -> (String, Vec<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/tests/data/setups-sample.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let entries = text
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    (path.display().to_string(), entries)
}

#[test]
fn ladder_play_takes_the_book_order_interim_reports_and_recover_as_match_does() {
    let dir = TempDir::new("ladder-run-flags");
    let db = db_in(&dir);
    ok(&ladder(&db, &["add", "heuristic", HEURISTIC]));
    ok(&ladder(&db, &["add", "random", RANDOM]));
    let (book, entries) = sample_book();
    let out_dir = dir.join("out");
    let out = ladder(
        &db,
        &[
            "play",
            "--games",
            "4",
            "--seed",
            "5",
            "--max-plies",
            "20",
            "--setups",
            &book,
            "--setups-order",
            "sequential",
            "--setups-start",
            "3",
            "--report-every",
            "2",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    let stdout = ok(&out);
    // Interim reports every 2 games, before the table.
    let reports: Vec<&str> = stdout.lines().filter(|l| l.ends_with("saved to the ladder")).collect();
    assert_eq!(
        reports,
        ["2 games finished, 2 saved to the ladder", "4 games finished, 4 saved to the ladder"],
        "{stdout}"
    );
    // Pair p takes book entries start+2p (Red's in both games of the pair) and start+2p+1:
    // from entry 3 (1-based), the pairs' Red setups are entries 3 and 5.
    let mut recs = stratego_tests::records(&out_dir);
    recs.sort_by_key(|r| r["game_id"].as_str().unwrap().rsplit('-').next().unwrap().parse::<u64>().unwrap());
    assert_eq!(recs.len(), 4);
    // `book_setups` numbers the entries from 0; Red's deployment is its entry as written.
    let used: Vec<(u64, u64)> = recs
        .iter()
        .map(|r| (r["book_setups"]["red"].as_u64().unwrap(), r["book_setups"]["blue"].as_u64().unwrap()))
        .collect();
    assert_eq!(used, [(2, 3), (2, 3), (4, 5), (4, 5)]);
    for r in &recs {
        let red = r["book_setups"]["red"].as_u64().unwrap() as usize;
        assert_eq!(r["deployments"]["red"].as_str().unwrap(), entries[red], "{}", r["game_id"]);
    }

    // --recover: a bot that fails to start for its first game loses that game and plays on;
    // without it the run stops there (exit 3), as for match.
    let flaky_dir = TempDir::new("ladder-recover-off");
    let db_off = db_in(&flaky_dir);
    ok(&ladder(&db_off, &["add", "flaky", &stratego_tests::flaky_start_bot(&flaky_dir.0, 2)]));
    ok(&ladder(&db_off, &["add", "random", RANDOM]));
    let off = ladder(&db_off, &["play", "--games", "4", "--max-plies", "20"]);
    assert_eq!(off.status.code(), Some(3), "{}", String::from_utf8_lossy(&off.stderr));

    let flaky_dir = TempDir::new("ladder-recover-on");
    let db_on = db_in(&flaky_dir);
    ok(&ladder(&db_on, &["add", "flaky", &stratego_tests::flaky_start_bot(&flaky_dir.0, 2)]));
    ok(&ladder(&db_on, &["add", "random", RANDOM]));
    let on = ladder(&db_on, &["play", "--games", "4", "--max-plies", "20", "--recover"]);
    let stderr = String::from_utf8_lossy(&on.stderr);
    assert_eq!(on.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("--recover: game "), "{stderr}");
    assert_eq!(games_in_db(&db_on), 4, "the failed game is saved as a loss, the others played");
    let t = table(&db_on);
    let flaky = t["bots"].as_array().unwrap().iter().find(|b| b["name"] == "flaky").unwrap().clone();
    assert_eq!(flaky["games"], 4, "{t}");
    assert!(flaky["losses"].as_u64().unwrap() >= 1, "{t}");
}
