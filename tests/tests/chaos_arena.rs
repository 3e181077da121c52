//! `stratego-host arena` (issue #45) through the real binary: real bot processes (sandboxed
//! by default), a real SQLite file, remote entrants over real sockets on 127.0.0.1, SIGINT and
//! `kill -9` of the arena.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use stratego_tests::arena::{self, Arena, Saved, arena, games_of, in_start_order};
use stratego_tests::remote::{Client, Host, sample_bot};
use stratego_tests::{CALM_CLOCK, TempDir, host_bin, misbehaving, ok, wait_for};

/// Short games (a draw at 40 plies), so that many finish in a test.
const SHORT: [&str; 2] = ["--max-plies", "40"];

/// The games the file holds, in the order they were started.
fn saved(db: &Path) -> Vec<Saved> {
    in_start_order(arena::saved(db))
}

/// `arena run DB` in the background with a calm clock and short games, and `extra`.
fn start(db: &Path, dir: &TempDir, tag: &str, extra: &[&str]) -> Arena {
    let mut args: Vec<&str> = CALM_CLOCK.to_vec();
    args.extend(SHORT);
    args.extend(extra);
    Arena::start(db, dir, tag, &args)
}

/// Three local entrants, each the sample bot with another strategy.
fn three(db: &Path) {
    for (name, command) in [
        ("heuristic", &["sample-bot"][..]),
        ("random", &["sample-bot", "--strategy", "random"]),
        ("third", &["sample-bot"]),
    ] {
        let mut args = vec!["add", db.to_str().unwrap(), name];
        args.extend(command);
        ok(&arena(&args));
    }
}

#[test]
fn an_arena_pairs_idle_entrants_saves_every_game_and_rates_them_until_sigint() {
    let dir = TempDir::new("arena-run");
    let db = dir.join("arena.db");
    three(&db);
    // Admin on the file: a name is never given to another command; retire hides a bot.
    let clash = arena(&["add", db.to_str().unwrap(), "random", "sample-bot"]);
    assert_eq!(clash.status.code(), Some(2), "{}", String::from_utf8_lossy(&clash.stderr));
    assert!(String::from_utf8_lossy(&clash.stderr).contains("never reused"));
    ok(&arena(&["add", db.to_str().unwrap(), "gone", "sample-bot"]));
    ok(&arena(&["retire", db.to_str().unwrap(), "gone"]));
    let missing = arena(&["run", dir.join("nope.db").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(!dir.join("nope.db").exists(), "a typo leaves no empty arena behind");

    // Sandboxed by default; -j 2 with three entrants: one game at a time (each entrant plays
    // one game at a time).
    let mut run = start(&db, &dir, "run", &["-j", "2"]);
    run.until("nine games", || saved(&db).len() >= 9);
    run.signal(libc::SIGINT);
    let (code, stdout, stderr) = run.wait();
    assert_eq!(code, Some(130), "{stderr}");
    for name in ["heuristic", "random", "third"] {
        assert!(stderr.contains(&format!("sandbox for {name}: bubblewrap")), "{name} sandboxed: {stderr}");
    }
    assert!(!stderr.contains("sandbox for gone"), "a retired entrant is not started: {stderr}");

    let games = saved(&db);
    assert!(stderr.contains(&format!("arena stopped: {} games saved in this run", games.len())), "{stderr}");
    assert!(games.iter().all(|g| g.red != "gone" && g.blue != "gone"), "{games:?}");
    // Never the same pair twice in a row (for either of its entrants), and colours balanced.
    let mut last: HashMap<&str, &str> = HashMap::new();
    let mut balance: HashMap<&str, i64> = HashMap::new();
    for g in &games {
        assert_ne!(last.get(g.red.as_str()), Some(&g.blue.as_str()), "{g:?} again, in {games:?}");
        assert_ne!(last.get(g.blue.as_str()), Some(&g.red.as_str()), "{g:?} again, in {games:?}");
        last.insert(&g.red, &g.blue);
        last.insert(&g.blue, &g.red);
        *balance.entry(&g.red).or_default() += 1;
        *balance.entry(&g.blue).or_default() -= 1;
    }
    for (name, b) in &balance {
        assert!(b.abs() <= 1, "{name}: Red minus Blue {b} in {games:?}");
    }
    // Everyone plays: the fewest games first.
    let counts: Vec<usize> = ["heuristic", "random", "third"].iter().map(|n| games_of(&games, n)).collect();
    assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1, "{counts:?}");
    // The table printed at the end is the ladder's Bradley–Terry over every saved game.
    assert!(stdout.contains("±95%") && stdout.contains(&format!("{} games", games.len())), "{stdout}");
    let table: serde_json::Value = serde_json::from_str(&ok(&Command::new(host_bin())
        .args(["ladder", "--db", db.to_str().unwrap(), "table", "--json"])
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(table["games"].as_u64(), Some(games.len() as u64));
    for b in table["bots"].as_array().unwrap() {
        assert!(b["elo_err95"].as_f64().is_some_and(|e| e > 0.0), "{b}");
    }
}

#[test]
fn kill_9_of_the_arena_loses_no_finished_game_and_the_restart_says_which_were_void() {
    let dir = TempDir::new("arena-kill9");
    let db = dir.join("arena.db");
    // Each move 100 ms: a game of 40 plies lasts 4 s or more, so a game that has just started
    // is still running when the kill comes.
    for name in ["a", "b", "c"] {
        ok(&arena(&["add", db.to_str().unwrap(), name, &misbehaving("--think-ms 100")]));
    }
    // No sandbox here: the bots' processes are the test's to see end.
    let mut first = start(&db, &dir, "first", &["--no-sandbox", "-j", "2"]);
    let list = dir.join("arena.db.running");
    first.until("two games", || saved(&db).len() >= 2);
    // The kill comes as soon as the running list names a game not seen running before.
    let seen: HashSet<String> = std::fs::read_to_string(&list).unwrap().lines().map(str::to_owned).collect();
    first.until("another game", || {
        std::fs::read_to_string(&list).unwrap_or_default().lines().any(|id| !seen.contains(id))
    });
    first.signal(libc::SIGKILL);
    let (code, _, before) = first.wait();
    assert_eq!(code, None, "killed: {before}");
    let after_kill = saved(&db);
    let ids: HashSet<&str> = after_kill.iter().map(|g| g.id.as_str()).collect();
    // Every game the arena said was finished (its line comes once it is saved) is in the file.
    let said: Vec<&str> =
        before.lines().filter_map(|l| l.strip_prefix("game ")).filter_map(|l| l.split(['[', ']']).nth(1)).collect();
    assert!(!said.is_empty(), "{before}");
    for id in &said {
        assert!(ids.contains(id), "game {id} was said finished and is not in the file");
    }
    // The game running at the kill is in the running list, not in the file.
    let running = std::fs::read_to_string(dir.join("arena.db.running")).unwrap();
    let void: Vec<&str> = running.lines().filter(|id| !ids.contains(id)).collect();
    assert_eq!(void.len(), 1, "one game was running at the kill: {running:?}");

    // The restart says so, counts it nowhere, and the ratings go on from every saved game.
    let mut second = start(&db, &dir, "second", &["--no-sandbox", "-j", "2"]);
    // SIGINT while a game runs (one in the running list and not saved), so that the stop
    // has a void game of its own to name.
    let running_now = || {
        let ids: HashSet<String> = saved(&db).into_iter().map(|g| g.id).collect();
        std::fs::read_to_string(&list).unwrap_or_default().lines().any(|id| !ids.contains(id))
    };
    second.until("two more games, one running", || saved(&db).len() >= after_kill.len() + 2 && running_now());
    second.signal(libc::SIGINT);
    let (code, stdout, stderr) = second.wait();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        stderr.contains(&format!("1 game running when the arena last stopped was void (not counted): {}", void[0])),
        "{stderr}"
    );
    let all = saved(&db);
    assert!(all.iter().all(|g| g.id != void[0]), "the void game is not counted");
    for g in &after_kill {
        assert!(all.iter().any(|a| a.id == g.id), "{} lost by the restart", g.id);
    }
    assert!(stdout.contains(&format!("{} games", all.len())), "{stdout}");
    assert!(stderr.contains("running when it stopped is void (not counted)"), "{stderr}");

    // A run stopped by SIGINT names the games it was playing void once, when it stops: the
    // next start does not name them (or the game of the kill) again.
    let mut third = start(&db, &dir, "third", &["--no-sandbox", "-j", "2"]);
    third.until("one more game", || saved(&db).len() > all.len());
    third.signal(libc::SIGINT);
    let (code, _, stderr) = third.wait();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(!stderr.contains("when the arena last stopped"), "{stderr}");
}

#[test]
fn a_remote_entrant_plays_while_connected_and_is_not_paired_once_gone() {
    let dir = TempDir::new("arena-remote");
    let db = dir.join("arena.db");
    for name in ["alpha", "beta"] {
        ok(&arena(&["add", db.to_str().unwrap(), name, "sample-bot"]));
    }
    let token = dir.join("remo.token");
    let made = arena(&["token", db.to_str().unwrap(), "remo", "--out", token.to_str().unwrap()]);
    let made = ok(&made);
    assert!(made.starts_with("token_sha256 = \""), "{made}");
    // A name taken is refused before any token is made.
    let again = arena(&["token", db.to_str().unwrap(), "remo", "--out", dir.join("other").to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(!dir.join("other").exists());

    let mut args = vec!["arena", "run", db.to_str().unwrap(), "--no-sandbox", "-j", "2", "--reconnect-s", "1"];
    args.extend(CALM_CLOCK);
    args.extend(SHORT);
    let host = Host::start(&args);
    // Before it connects, the local entrants play each other, and remo waits.
    assert!(wait_for(Duration::from_secs(240), || saved(&db).len() >= 3), "{}", host.stderr());
    assert_eq!(games_of(&saved(&db), "remo"), 0, "{}", host.stderr());

    let client = Client::start(&host.url(), &token, &sample_bot());
    assert!(
        wait_for(Duration::from_secs(240), || games_of(&saved(&db), "remo") >= 3),
        "remo plays once connected: {}",
        host.stderr()
    );
    drop(client); // kill -9 of `connect`: its bot is gone.
    assert!(
        wait_for(Duration::from_secs(60), || host.stderr().contains("remote bot remo disconnected")),
        "{}",
        host.stderr()
    );
    // Its game at the cut, if any, ends first (a forfeit after --reconnect-s 1): it holds one
    // of the two local entrants, so no other game can end before it. Then no more of remo.
    let cut = saved(&db).len();
    assert!(wait_for(Duration::from_secs(240), || saved(&db).len() >= cut + 2), "{}", host.stderr());
    let gone = games_of(&saved(&db), "remo");
    let total = saved(&db).len();
    assert!(wait_for(Duration::from_secs(240), || saved(&db).len() >= total + 4), "{}", host.stderr());
    assert_eq!(games_of(&saved(&db), "remo"), gone, "remo paired while gone: {}", host.stderr());
    // SIGINT: the end of the run.
    let pid = host_pid(&host);
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(pid, libc::SIGINT) };
    let (code, stdout, stderr) = host.finish(Duration::from_secs(120));
    assert_eq!(code, 130, "{stderr}");
    assert!(stdout.contains("remo"), "{stdout}");
}

/// The pid of the arena a [`Host`] runs: this test's child `stratego-host arena run …
/// --listen` (the only one of this file's tests that listens).
fn host_pid(_host: &Host) -> i32 {
    let me = std::process::id().to_string();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let ppid = stat.rsplit(')').next().and_then(|r| r.split_whitespace().nth(1)).unwrap_or("");
        let cmd =
            String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default()).into_owned();
        if ppid == me && cmd.contains("arena\0run") && cmd.contains("--listen") {
            return pid;
        }
    }
    panic!("no listening arena process of this test");
}

#[test]
fn an_arena_without_bubblewrap_says_its_entrants_are_sandboxed_by_default_and_how_to_go_on() {
    let dir = TempDir::new("arena-nobwrap");
    let db = dir.join("arena.db");
    three(&db);
    // A PATH with no `bwrap` on it.
    let out = Command::new(host_bin())
        .args(["arena", "run", db.to_str().unwrap()])
        .env("PATH", dir.join("empty"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("arena: local entrants run in the sandbox by default"), "{stderr}");
    assert!(stderr.contains("`bwrap` is not on PATH") && stderr.contains("--no-sandbox"), "{stderr}");
    assert!(saved(&db).is_empty());
}

#[test]
fn the_live_page_of_an_arena_streams_its_running_games_and_the_bradley_terry_table() {
    use std::io::{Read as _, Write as _};
    let dir = TempDir::new("arena-page");
    let db = dir.join("arena.db");
    three(&db);
    let run = start(&db, &dir, "page", &["--no-sandbox", "--serve", "127.0.0.1:0"]);
    let mut addr = String::new();
    let said = wait_for(Duration::from_secs(60), || {
        let err = run.stderr();
        match err.split("live page: http://").nth(1).and_then(|r| r.split('/').next()) {
            Some(a) => {
                addr = a.to_owned();
                true
            }
            None => false,
        }
    });
    assert!(said, "the arena says where its page is: {}", run.stderr());
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    s.write_all(format!("GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let mut got = String::new();
    let mut buf = [0u8; 8192];
    // A game started on the page, and the standings: the arena's table, with its error bars.
    let table_in = |text: &str| {
        text.split("event: standings").skip(1).any(|e| {
            let data = e.lines().find(|l| l.starts_with("data:")).unwrap_or("");
            data.contains("Elo")
                && data.contains("95%")
                && data.contains("heuristic")
                && data.contains("saved in this run")
        })
    };
    while !(got.contains("event: game") && table_in(&got)) {
        let n = s.read(&mut buf).expect("read the event stream");
        assert!(n > 0, "the stream ended: {got}");
        got.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    run.signal(libc::SIGINT);
    let (code, _, stderr) = run.wait();
    assert_eq!(code, Some(130), "{stderr}");
}

#[test]
fn a_changed_program_plays_as_a_new_rating_line_and_the_old_one_stays_in_the_table() {
    let dir = TempDir::new("arena-versions");
    let db = dir.join("arena.db");
    let script = dir.join("bot.py");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python/bot.py");
    std::fs::copy(&example, &script).unwrap();
    let py = format!("python3 {}", script.display());
    ok(&arena(&["add", db.to_str().unwrap(), "py", &py]));
    ok(&arena(&["add", db.to_str().unwrap(), "heuristic", "sample-bot"]));
    ok(&arena(&["add", db.to_str().unwrap(), "random", "sample-bot", "--strategy", "random"]));
    let mut first = start(&db, &dir, "v1", &["--no-sandbox"]);
    first.until("two games of py", || games_of(&saved(&db), "py") >= 2);
    first.signal(libc::SIGINT);
    let (code, _, stderr) = first.wait();
    assert_eq!(code, Some(130), "{stderr}");
    let old_games = games_of(&saved(&db), "py");

    // A new version of the program.
    let mut text = std::fs::read_to_string(&script).unwrap();
    text.push_str("\n# version 2\n");
    std::fs::write(&script, text).unwrap();
    let mut second = start(&db, &dir, "v2", &["--no-sandbox"]);
    let new_name = || saved(&db).iter().flat_map(|g| [g.red.clone(), g.blue.clone()]).find(|n| n.starts_with("py@"));
    second.until("two games of the new version", || new_name().is_some_and(|n| games_of(&saved(&db), &n) >= 2));
    second.signal(libc::SIGINT);
    let (code, stdout, stderr) = second.wait();
    assert_eq!(code, Some(130), "{stderr}");
    let new_name = new_name().unwrap();
    assert!(
        stderr.contains(&format!("py: its program changed since its {old_games} games"))
            && stderr.contains(&format!("the new version plays as {new_name}, a rating line of its own")),
        "{stderr}"
    );
    assert_eq!(games_of(&saved(&db), "py"), old_games, "the old version plays no more");
    // Both lines in the table.
    assert!(stdout.lines().any(|l| l.split_whitespace().nth(1) == Some("py")), "{stdout}");
    assert!(stdout.lines().any(|l| l.split_whitespace().nth(1) == Some(new_name.as_str())), "{stdout}");

    // The next start: the new version plays on under its name, said once, not again.
    let before = saved(&db).len();
    let mut third = start(&db, &dir, "v3", &["--no-sandbox"]);
    third.until("two more games", || saved(&db).len() >= before + 2);
    third.signal(libc::SIGINT);
    let (code, _, stderr) = third.wait();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(!stderr.contains("its program changed"), "{stderr}");
    assert_eq!(games_of(&saved(&db), "py"), old_games, "the old version plays no more");
    assert!(!saved(&db).iter().any(|g| g.red.matches('@').count() > 1 || g.blue.matches('@').count() > 1));
}

#[test]
fn an_entrant_retired_while_the_arena_runs_is_paired_no_more() {
    let dir = TempDir::new("arena-retire-live");
    let db = dir.join("arena.db");
    three(&db);
    ok(&arena(&["add", db.to_str().unwrap(), "fourth", "sample-bot"]));
    let mut run = start(&db, &dir, "live", &["--no-sandbox", "-j", "2"]);
    run.until("four games", || saved(&db).len() >= 4);
    ok(&arena(&["retire", db.to_str().unwrap(), "random"]));
    run.until("the retirement said", || run_said(&dir, "live", "arena: random retired: it is paired no more"));
    // A game of random's running at the retirement may still end; none starts after it.
    let said = saved(&db).len();
    run.until("six more games", || saved(&db).len() >= said + 6);
    run.signal(libc::SIGINT);
    let (code, _, stderr) = run.wait();
    assert_eq!(code, Some(130), "{stderr}");
    let games = saved(&db);
    // At most two games (-j 2) were running when it was said.
    let random_after = games[said..].iter().filter(|g| g.red == "random" || g.blue == "random").count();
    assert!(random_after <= 2, "random paired after its retirement: {:?}", &games[said..]);
    assert!(games[said + 2..].iter().all(|g| g.red != "random" && g.blue != "random"), "{:?}", &games[said..]);
}

/// Whether the arena's stderr file `TAG.stderr` in `dir` holds `text`.
fn run_said(dir: &TempDir, tag: &str, text: &str) -> bool {
    std::fs::read_to_string(dir.join(&format!("{tag}.stderr"))).unwrap_or_default().contains(text)
}
