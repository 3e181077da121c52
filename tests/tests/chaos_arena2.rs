//! `stratego-host arena` (issue #45), its second part, through the real binary: real bot
//! processes, the real SQLite file, remote entrants over real sockets on 127.0.0.1.

use std::path::Path;
use std::time::Duration;

use stratego_tests::arena::{self, Arena, arena};
use stratego_tests::remote::Client;
use stratego_tests::{CALM_CLOCK, TempDir, bin, host_bin, ok, wait_for};

/// Short games (a draw at 40 plies), so that many finish in a test.
const SHORT: [&str; 2] = ["--max-plies", "40"];

/// The games of the entrant `name` in the file.
fn games_of(db: &Path, name: &str) -> usize {
    arena::games_of(&arena::saved(db), name)
}

/// The version the file records for the entrant `name`.
fn version_of(db: &Path, name: &str) -> Option<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(30)).unwrap();
    conn.query_row("SELECT version FROM bots WHERE name = ?1", [name], |r| r.get(0)).unwrap()
}

/// Stops the arena `run` by SIGINT: its stdout and stderr (exit 130).
fn stop(run: Arena) -> (String, String) {
    let (code, stdout, stderr) = run.stop();
    assert_eq!(code, Some(130), "{stderr}");
    (stdout, stderr)
}

/// `connect`'s bot: the sample bot, declaring `version` in its `ready`.
fn declaring(version: &str) -> Vec<String> {
    let relay = bin("version-relay").display().to_string();
    vec![relay, version.to_owned(), "--".to_owned(), host_bin().display().to_string(), "sample-bot".to_owned()]
}

/// An arena of two local entrants and the remote entrant `remo`, listening (its stderr in
/// `DIR/TAG.stderr`): the arena and its `ws://` address.
fn remote_arena(db: &Path, dir: &TempDir, tag: &str) -> (Arena, String) {
    let mut args = vec!["--no-sandbox", "-j", "2", "--reconnect-s", "1", "--listen", "127.0.0.1:0"];
    args.extend(CALM_CLOCK);
    args.extend(SHORT);
    let mut run = Arena::start(db, dir, tag, &args);
    let url = format!("ws://127.0.0.1:{}", run.port());
    (run, url)
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

    let (host, url) = remote_arena(&db, &dir, "first");
    let first = Client::start(&url, &token, &declaring("1.0"));
    assert!(wait_for(limit, || games_of(&db, "remo") >= 2), "{}", host.stderr());
    // Its first version is its line's: no new line.
    assert_eq!(version_of(&db, "remo").as_deref(), Some("1.0"), "{}", host.stderr());
    drop(first); // kill -9 of `connect`
    assert!(wait_for(limit, || host.stderr().contains("remote bot remo disconnected")), "{}", host.stderr());

    // The same token, another version: a new line, remo@2.0; remo keeps its games.
    let second = Client::start(&url, &token, &declaring("2.0"));
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
    let (stdout, _) = stop(host);
    // Both lines in the table.
    assert!(stdout.lines().any(|l| l.contains(" remo ") || l.trim_start().starts_with("remo ")), "{stdout}");
    assert!(stdout.contains("remo@2.0"), "{stdout}");

    // The next start plays the token's latest line: remo@2.0 (not remo), nothing new said.
    let (host, url) = remote_arena(&db, &dir, "second");
    let third = Client::start(&url, &token, &declaring("2.0"));
    let (old, new) = (games_of(&db, "remo"), games_of(&db, "remo@2.0"));
    assert!(wait_for(limit, || games_of(&db, "remo@2.0") >= new + 2), "{}", host.stderr());
    assert_eq!(games_of(&db, "remo"), old, "{}", host.stderr());
    assert!(!host.stderr().contains("declares version"), "{}", host.stderr());
    drop(third);
    stop(host);
}
