//! `stratego-host arena` (issue #45), its second part, through the real binary: real bot
//! processes, the real SQLite file, remote entrants over real sockets on 127.0.0.1.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use stratego_tests::remote::{Client, Host};
use stratego_tests::{CALM_CLOCK, TempDir, bin, host_bin, ok, wait_for};

/// Short games (a draw at 40 plies), so that many finish in a test.
const SHORT: [&str; 2] = ["--max-plies", "40"];

fn arena(args: &[&str]) -> Output {
    Command::new(host_bin()).arg("arena").args(args).output().expect("the host runs")
}

/// The games the file holds: (Red's name, Blue's name), in no particular order.
fn saved(db: &Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(30)).unwrap();
    let mut stmt = conn
        .prepare("SELECT r.name, b.name FROM games g JOIN bots r ON r.id = g.red_bot JOIN bots b ON b.id = g.blue_bot")
        .unwrap();
    stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?))).unwrap().map(Result::unwrap).collect()
}

/// The games of the entrant `name` in the file.
fn games_of(db: &Path, name: &str) -> usize {
    saved(db).iter().filter(|(r, b)| r == name || b == name).count()
}

/// The version the file records for the entrant `name`.
fn version_of(db: &Path, name: &str) -> Option<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(30)).unwrap();
    conn.query_row("SELECT version FROM bots WHERE name = ?1", [name], |r| r.get(0)).unwrap()
}

/// The pid of this test process's child `stratego-host arena run FILE … --listen` for `db`.
fn arena_pid(db: &Path) -> i32 {
    let me = std::process::id().to_string();
    let db = db.to_str().unwrap();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let ppid = stat.rsplit(')').next().and_then(|r| r.split_whitespace().nth(1)).unwrap_or("");
        let cmd =
            String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default()).into_owned();
        if ppid == me && cmd.contains("arena\0run\0") && cmd.contains(db) {
            return pid;
        }
    }
    panic!("no arena process of this test for {db}");
}

/// Stops the arena `host` runs on `db` by SIGINT: its stdout and stderr (exit 130).
fn stop(host: Host, db: &Path) -> (String, String) {
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(arena_pid(db), libc::SIGINT) };
    let (code, stdout, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 130, "{stderr}");
    (stdout, stderr)
}

/// `connect`'s bot: the sample bot, declaring `version` in its `ready`.
fn declaring(version: &str) -> Vec<String> {
    let relay = bin("version-relay").display().to_string();
    vec![relay, version.to_owned(), "--".to_owned(), host_bin().display().to_string(), "sample-bot".to_owned()]
}

/// An arena of two local entrants and the remote entrant `remo`, listening: its host.
fn remote_arena(db: &Path) -> Host {
    let mut args = vec!["arena", "run", db.to_str().unwrap(), "--no-sandbox", "-j", "2", "--reconnect-s", "1"];
    args.extend(CALM_CLOCK);
    args.extend(SHORT);
    Host::start(&args)
}

#[test]
fn a_version_a_remote_entrant_declares_starts_a_rating_line_of_its_own_and_the_old_one_stays() {
    let dir = TempDir::new("arena2-declared");
    let db = dir.join("arena.db");
    for name in ["alpha", "beta"] {
        ok(&arena(&["add", db.to_str().unwrap(), name, "sample-bot"]));
    }
    let token = dir.join("remo.token");
    ok(&arena(&["token", db.to_str().unwrap(), "remo", "--out", token.to_str().unwrap()]));
    let limit = Duration::from_secs(240);

    let host = remote_arena(&db);
    let first = Client::start(&host.url(), &token, &declaring("1.0"));
    assert!(wait_for(limit, || games_of(&db, "remo") >= 2), "{}", host.stderr());
    // Its first version is its line's: no new line.
    assert_eq!(version_of(&db, "remo").as_deref(), Some("1.0"), "{}", host.stderr());
    drop(first); // kill -9 of `connect`
    assert!(wait_for(limit, || host.stderr().contains("remote bot remo disconnected")), "{}", host.stderr());

    // The same token, another version: a new line, remo@2.0; remo keeps its games.
    let second = Client::start(&host.url(), &token, &declaring("2.0"));
    assert!(wait_for(limit, || games_of(&db, "remo@2.0") >= 1), "{}", host.stderr());
    // Said before that game is saved (its line in the stderr reader a moment later).
    let said = "arena: remo declares version 2.0 (its line's: 1.0): it plays as remo@2.0";
    assert!(wait_for(Duration::from_secs(30), || host.stderr().contains(said)), "{}", host.stderr());
    let old = games_of(&db, "remo");
    assert!(old >= 2, "remo's games stay: {old}");
    let new = games_of(&db, "remo@2.0");
    assert!(wait_for(limit, || games_of(&db, "remo@2.0") >= new + 2), "{}", host.stderr());
    assert_eq!(games_of(&db, "remo"), old, "the old line plays no more: {}", host.stderr());
    assert_eq!(version_of(&db, "remo@2.0").as_deref(), Some("2.0"));
    drop(second);
    let (stdout, _) = stop(host, &db);
    // Both lines in the table.
    assert!(stdout.lines().any(|l| l.contains(" remo ") || l.trim_start().starts_with("remo ")), "{stdout}");
    assert!(stdout.contains("remo@2.0"), "{stdout}");

    // The next start plays the token's latest line: remo@2.0 (not remo), nothing new said.
    let host = remote_arena(&db);
    let third = Client::start(&host.url(), &token, &declaring("2.0"));
    let (old, new) = (games_of(&db, "remo"), games_of(&db, "remo@2.0"));
    assert!(wait_for(limit, || games_of(&db, "remo@2.0") >= new + 2), "{}", host.stderr());
    assert_eq!(games_of(&db, "remo"), old, "{}", host.stderr());
    assert!(!host.stderr().contains("declares version"), "{}", host.stderr());
    drop(third);
    stop(host, &db);
}
