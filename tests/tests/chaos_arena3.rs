//! `stratego-host arena` (issue #45), its third part, through the real binary: entrants
//! joining a running arena, multi-game local entrants, and the arena's own lines. Real bot
//! processes, the real SQLite file, remote entrants over real sockets on 127.0.0.1.

use stratego_tests::arena::{Arena, arena, games_of, saved};
use stratego_tests::remote::{Client, sample_bot};
use stratego_tests::{CALM_CLOCK, TempDir, ok};

/// Short games (a draw at 40 plies), so that many finish in a test.
const SHORT: [&str; 2] = ["--max-plies", "40"];

#[test]
fn entrants_added_and_tokens_made_while_the_arena_runs_join_it_without_a_restart() {
    let dir = TempDir::new("arena3-join");
    let db = dir.join("arena.db");
    let file = db.to_str().unwrap();
    for name in ["alpha", "beta"] {
        ok(&arena(&["add", file, name, "sample-bot"]));
    }
    // Sandboxed (the default): a local entrant admitted later gets its sandbox too.
    let mut args = vec!["-j", "2", "--listen", "127.0.0.1:0", "--serve", "127.0.0.1:0"];
    args.extend(CALM_CLOCK);
    args.extend(SHORT);
    let mut run = Arena::start(&db, &dir, "join", &args);
    let port = run.port();
    run.until("a first game", || !saved(&db).is_empty());

    // While it runs: a local entrant, a local entrant whose program cannot start, and a
    // remote entrant's token.
    ok(&arena(&["add", file, "gamma", "sample-bot", "--strategy", "random"]));
    let broken = dir.join("broken.sh");
    std::fs::write(&broken, "#!/bin/sh\necho 'broken: no such model file' >&2\nexit 3\n").unwrap();
    std::fs::set_permissions(&broken, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    ok(&arena(&["add", file, "broken", broken.to_str().unwrap()]));
    let token = dir.join("remo.token");
    ok(&arena(&["token", file, "remo", "--out", token.to_str().unwrap()]));

    run.until("gamma plays two games", || games_of(&saved(&db), "gamma") >= 2);
    run.until("broken is said not to be paired", || {
        run_says_in(&dir, "join", "arena: broken added, and it is not paired")
    });
    let stderr = run.stderr();
    assert!(stderr.contains("stratego-host: arena: gamma added: it joins now"), "{stderr}");
    assert!(stderr.contains("no such model file"), "the end of broken's stderr is shown: {stderr}");
    assert!(!stderr.contains("joins when the arena starts again"), "{stderr}");
    // The live page names the new entrant on the boards of its running games (a game's
    // keys in order: "blue", "board", …, "red", "shown"; a finished row's "red" is followed
    // by "result").
    let page = stderr.split("live page: http://").nth(1).and_then(|r| r.split('/').next()).unwrap().to_owned();
    let named = ["\"blue\":\"gamma\",\"board\"", "\"red\":\"gamma\",\"shown\""];
    assert!(page_streams(&page, &named, || false), "the live page never named gamma on a board: {stderr}");

    // The remote entrant joins once its `connect` is connected.
    let client = Client::start(&format!("ws://127.0.0.1:{port}"), &token, &sample_bot());
    run.until("remo plays a game", || games_of(&saved(&db), "remo") >= 1);
    assert!(run.stderr().contains("arena: remo added: it joins now (a remote entrant"), "{}", run.stderr());
    drop(client);

    let (code, stdout, stderr) = run.stop();
    assert_eq!(code, Some(130), "{stderr}");
    let games = saved(&db);
    assert_eq!(games_of(&games, "broken"), 0, "{stderr}");
    // Every game seats two entrants of the file, never one of them twice.
    assert!(games.iter().all(|g| g.red != g.blue), "{games:?}");
    for name in ["alpha", "beta", "gamma", "remo"] {
        assert!(stdout.contains(name), "{name} in the table: {stdout}");
    }
    assert!(stderr.contains("arena stopped:"), "{stderr}");
}

/// Whether the live page at `addr` streams one of `texts` (its `/events`) within 60 s,
/// before `give_up` says so.
fn page_streams(addr: &str, texts: &[&str], give_up: impl Fn() -> bool) -> bool {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(1))).unwrap();
    write!(stream, "GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let (mut seen, mut buf) = (Vec::new(), [0u8; 65536]);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < until && !give_up() {
        match stream.read(&mut buf) {
            Ok(0) => return false,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
        if texts.iter().any(|t| String::from_utf8_lossy(&seen).contains(t)) {
            return true;
        }
    }
    false
}

/// A Python bot that says `multi_game`: at each `hello` it appends its pid to `PIDS`; its
/// setup is the squares in order, its move the last legal one; at the first turn of the
/// third game of a process it exits (a crash).
const MULTI_BOT: &str = r#"import json, os, sys
pids, games = sys.argv[1], 0
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":
        games += 1
        with open(pids, "a") as f:
            f.write(f"{os.getpid()}\n")
        print(json.dumps({"type": "ready", "name": "multi", "multi_game": True}), flush=True)
    elif t == "setup_request":
        army = [r for r, n in m["pieces"].items() for _ in range(n)]
        print(json.dumps({"type": "setup", "deployment": " ".join(f"{s}={r}" for s, r in zip(m["squares"], army))}), flush=True)
    elif t == "turn":
        if games == 3:
            sys.exit(1)
        print(json.dumps({"type": "move", "move": m["legal_moves"][-1]}), flush=True)
    elif t == "quit":
        break
"#;

#[test]
fn a_multi_game_local_entrant_keeps_its_process_across_its_arena_games_and_a_dead_one_is_replaced() {
    let dir = TempDir::new("arena3-multi");
    let db = dir.join("arena.db");
    let file = db.to_str().unwrap();
    let script = dir.join("multi.py");
    std::fs::write(&script, MULTI_BOT).unwrap();
    let pids = dir.join("multi.pids");
    let command = format!("python3 {} {}", script.display(), pids.display());
    ok(&arena(&["add", file, "multi", &command]));
    ok(&arena(&["add", file, "single", "sample-bot"]));
    let mut args = vec!["--no-sandbox", "-j", "1", "-q", "--startup-time", "60"];
    args.extend(CALM_CLOCK);
    args.extend(SHORT);
    let mut run = Arena::start(&db, &dir, "multi", &args);
    run.until("multi plays five games", || games_of(&saved(&db), "multi") >= 5);
    let (code, _, stderr) = run.stop();
    assert_eq!(code, Some(130), "{stderr}");

    // The hellos by process, in order: the start-up check's process (one hello), then the
    // first game process (three games: it dies in its third), then its replacement.
    let text = std::fs::read_to_string(&pids).unwrap();
    let mut processes: Vec<(String, usize)> = Vec::new();
    for pid in text.lines() {
        match processes.last_mut() {
            Some((p, n)) if p == pid => *n += 1,
            _ => processes.push((pid.to_owned(), 1)),
        }
    }
    assert!(processes.len() >= 3, "{processes:?}: {stderr}");
    assert_eq!(processes[0].1, 1, "the start-up check: {processes:?}");
    assert_eq!(processes[1].1, 3, "one process, three games: {processes:?}: {stderr}");
    // The game it died in is lost with the reason; the next game is a new process's.
    let games = saved(&db);
    let of_multi: Vec<_> = games.iter().filter(|g| g.red == "multi" || g.blue == "multi").collect();
    let third = of_multi[2];
    let lost = if third.red == "multi" { third.red_score == 0.0 } else { third.red_score == 1.0 };
    assert!(lost && third.reason == "crash", "{third:?}: {stderr}");
    assert!(of_multi[..2].iter().chain(&of_multi[3..5]).all(|g| g.reason != "crash"), "{of_multi:?}");
}

/// Whether process `pid` has `path` open.
fn has_open(pid: u32, path: &std::path::Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return false };
    fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|p| p == path))
}

#[test]
fn a_sigint_while_the_arena_hashes_its_programs_ends_it_with_its_stopped_line_and_130() {
    let dir = TempDir::new("arena3-early");
    let db = dir.join("arena.db");
    let file = db.to_str().unwrap();
    // A program of 256 MiB (sparse: no disk): hashing it takes the arena a while.
    let big = dir.join("big.py");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(256 << 20).unwrap();
    drop(f);
    let big = std::fs::canonicalize(&big).unwrap();
    ok(&arena(&["add", file, "big", &format!("python3 {}", big.display())]));
    ok(&arena(&["add", file, "other", "sample-bot"]));
    let mut args = vec!["--no-sandbox"];
    args.extend(CALM_CLOCK);
    let run = Arena::start(&db, &dir, "early", &args);
    let pid = run.child.id();
    assert!(
        stratego_tests::wait_for(std::time::Duration::from_secs(60), || has_open(pid, &big)),
        "the arena never read big.py: {}",
        run.stderr()
    );
    let (code, _, stderr) = run.stop();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("stratego-host: arena stopped: 0 games saved in this run"), "{stderr}");
    assert!(saved(&db).is_empty());
}

#[test]
fn the_live_page_says_how_many_games_play_now_while_they_play() {
    let dir = TempDir::new("arena3-playing");
    let db = dir.join("arena.db");
    let file = db.to_str().unwrap();
    // Games of about 2.4 s (40 plies of 60 ms) between bots of one game a process: the
    // standings pushed as a game ends (at most once a second) said "0 playing now" for the
    // whole of the next one.
    let slow = stratego_tests::misbehaving("--think-ms 60");
    ok(&arena(&["add", file, "slow", &slow]));
    ok(&arena(&["add", file, "other", &slow]));
    let mut args = vec!["--no-sandbox", "-j", "1", "--serve", "127.0.0.1:0", "--report-every", "1"];
    args.extend(CALM_CLOCK);
    args.extend(SHORT);
    let mut run = Arena::start(&db, &dir, "playing", &args);
    run.until("the live page's address", || run_says_in(&dir, "playing", "live page: http://"));
    let stderr = run.stderr();
    let page = stderr.split("live page: http://").nth(1).and_then(|r| r.split('/').next()).unwrap().to_owned();
    let said = page_streams(&page, &["1 playing now"], || saved(&db).len() >= 3);
    assert!(said, "the page never said a game plays, in 3 games: {}", run.stderr());
    run.until("two games saved", || saved(&db).len() >= 2);
    let (code, stdout, stderr) = run.stop();
    assert_eq!(code, Some(130), "{stderr}");
    // `--report-every`'s report is made as a game is saved: it counts the others (none here:
    // the slot starts its next game after).
    let report = format!("{stdout}{stderr}");
    assert!(report.contains("1 game saved in this run, no other game running beside it"), "{report}");
}

/// Whether the arena's stderr (`DIR/TAG.stderr`) holds `text`.
fn run_says_in(dir: &TempDir, tag: &str, text: &str) -> bool {
    std::fs::read_to_string(dir.join(&format!("{tag}.stderr"))).unwrap_or_default().contains(text)
}
