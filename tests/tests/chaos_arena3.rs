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
    let mut args = vec!["-j", "2", "--listen", "127.0.0.1:0"];
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
    run.until("broken is said not to be paired", || run_says(&dir, "arena: broken added, and it is not paired"));
    let stderr = run.stderr();
    assert!(stderr.contains("stratego-host: arena: gamma added: it joins now"), "{stderr}");
    assert!(stderr.contains("no such model file"), "the end of broken's stderr is shown: {stderr}");
    assert!(!stderr.contains("joins when the arena starts again"), "{stderr}");

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

/// Whether the arena's stderr (`DIR/join.stderr`) holds `text`.
fn run_says(dir: &TempDir, text: &str) -> bool {
    std::fs::read_to_string(dir.join("join.stderr")).unwrap_or_default().contains(text)
}
