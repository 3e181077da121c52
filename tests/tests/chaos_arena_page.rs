//! The arena's pages per bot (issue #45, "The page"), in real Chromium: the real host runs
//! `arena run --serve` on 127.0.0.1 with real bot processes, and headless Chromium
//! (`tests/viewer/arena.mjs`) clicks a bot's name in the standings, reads its page, follows
//! a recent game into the viewer, and watches a running game's bot page, which must not show
//! that game's setup, until the game is saved and appears on it without a reload.
//!
//! The arena plays with `-j 1`, and the bot whose game is watched holds at its second turn
//! until the driver creates a file: while it holds no other game runs, so what the file
//! holds then is what the pages must show, exactly.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use stratego_tests::arena::{Arena, arena, saved};
use stratego_tests::{CALM_CLOCK, TempDir, host_bin, ok, scripted_bot, wait_for};

const MISSING: &str =
    "this test needs Debian's chromium and Node (tests/run.sh, the README's test command, installs them)";

/// `arena run DB` in the background (no sandbox: the test's bots are its own; one game at
/// a time, short and quiet), and `extra`.
fn start(db: &Path, dir: &TempDir, tag: &str, extra: &[&str]) -> Arena {
    let mut args = vec!["--no-sandbox", "-j", "1", "--max-plies", "40", "-q"];
    args.extend(CALM_CLOCK);
    // A start no load can make late (the held bot is Python).
    args.extend(["--startup-time", "60"]);
    args.extend(extra);
    Arena::start(db, dir, tag, &args)
}

/// SIGINT, and its exit code.
fn stop(run: Arena) -> Option<i32> {
    run.stop().0
}

#[test]
fn a_bots_page_shows_its_results_its_rating_plot_its_games_in_the_viewer_and_a_running_game_without_its_setup() {
    let found = Command::new("chromium").arg("--version").output();
    assert!(found.is_ok_and(|o| o.status.success()), "{MISSING}");
    let dir = TempDir::new("arena-bot-page");
    let db = dir.join("arena.db");
    let file = db.to_str().unwrap();
    ok(&arena(&["add", file, "alpha", "sample-bot"]));
    ok(&arena(&["add", file, "beta", "sample-bot", "--strategy", "random"]));
    // A first run: alpha and beta play a few games.
    let first = start(&db, &dir, "first", &[]);
    assert!(wait_for(Duration::from_secs(240), || saved(&db).len() >= 5), "{}", first.stderr());
    assert_eq!(stop(first), Some(130));
    // The held bot joins; with the fewest games it plays first, and holds at its 2nd turn.
    let gate = dir.join("gate");
    // `back=1`: its Flag on its back rank behind its Bombs, so that no game of it ends before
    // its hold (the request lists the Flag last: until `back=1` put the Flag first, it stood
    // on the front rank and a Scout took it at ply 1 or 2 in 4 games of 20; the hold then came
    // in a later game and alpha's page already held a result against held).
    let held = scripted_bot(&dir, &[&format!("hold=2:{}", gate.display()), "back=1"]);
    ok(&arena(&["add", file, "held", &held]));
    let before = saved(&db);
    let run = start(&db, &dir, "second", &["--serve", "127.0.0.1:0"]);
    let mut addr = String::new();
    assert!(
        wait_for(Duration::from_secs(60), || {
            let err = run.stderr();
            match err.split("live page: http://").nth(1).and_then(|r| r.split('/').next()) {
                Some(a) => {
                    addr = a.to_owned();
                    true
                }
                None => false,
            }
        }),
        "the arena says where its page is: {}",
        run.stderr()
    );
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("viewer/arena.mjs");
    let started = std::time::Instant::now();
    let out = Command::new("node")
        .arg(&driver)
        .args(["--url", &format!("http://{addr}/"), "--bot", "alpha", "--holder", "held"])
        .args(["--gate", gate.to_str().unwrap()])
        .output()
        .expect("run node");
    std::fs::write(&gate, "go").unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(3), "{MISSING}\n{stderr}");
    assert_eq!(out.status.code(), Some(0), "the driver failed:\n{stderr}\narena:\n{}", run.stderr());
    let r: Value = serde_json::from_slice(&out.stdout).expect("the driver prints JSON");
    eprintln!("driven in {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(r["problems"]["exceptions"], serde_json::json!([]), "{r}");
    assert_eq!(r["problems"]["console_errors"], serde_json::json!([]), "{r}");
    assert_eq!(r["problems"]["dialogs"], serde_json::json!([]), "{r}");

    // The standings link every bot to its page.
    let mut links: Vec<(String, String)> = r["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["name"].as_str().unwrap().to_owned(), l["href"].as_str().unwrap().to_owned()))
        .collect();
    links.sort();
    assert_eq!(
        links,
        [("alpha", "/bots/alpha"), ("beta", "/bots/beta"), ("held", "/bots/held")]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );

    // alpha's page, read while the held game ran (nothing else could be saved then): its
    // results against beta are the file's, and its plot a point per checkpoint.
    let bot = &r["bot"];
    assert_eq!(bot["path"], "/bots/alpha");
    let (mut w, mut d, mut l) = (0, 0, 0);
    for g in &before {
        let mine = if g.red == "alpha" { g.red_score } else { 1.0 - g.red_score };
        match mine {
            1.0 => w += 1,
            0.0 => l += 1,
            _ => d += 1,
        }
    }
    assert_eq!(bot["opponents"], serde_json::json!([{"name": "beta", "w": w, "d": d, "l": l}]), "{bot}");
    let n = before.len() as u64;
    let c = n.min(20);
    let checkpoints: Vec<u64> = (1..=c).map(|i| (i * n).div_ceil(c)).collect();
    assert_eq!(bot["points"], serde_json::json!(checkpoints), "one point per checkpoint of {n} games");
    let newest = &before.last().unwrap().id;
    assert_eq!(bot["recent"][0]["id"], newest.as_str(), "newest first: {bot}");
    assert_eq!(bot["recent"].as_array().unwrap().len(), before.len().min(20));

    // Its newest game opens in the viewer, from the stored record.
    let viewer = &r["viewer"];
    assert_eq!(viewer["path"], format!("/arena/games/{newest}.html"), "{viewer}");
    assert_eq!(viewer["ids"], serde_json::json!([newest]), "{viewer}");
    assert_eq!(viewer["engine"], "wasm", "{viewer}");

    // held's page while its game ran: the game named, no setup of it anywhere in the page.
    let holder = &r["holder"];
    let running = holder["running"].as_array().unwrap();
    assert_eq!(running.len(), 1, "{holder}");
    let held_id = running[0].as_str().unwrap().to_owned();
    // The game then ended and was saved; it appeared on the open page without a reload.
    let after = &r["after"];
    assert!(after["recent"].as_array().unwrap().iter().any(|g| g["id"] == held_id.as_str()), "{after}");
    assert!(after["updates"].as_u64().unwrap() >= 1, "updated in place: {after}");
    assert_eq!(stop(run), Some(130));
    let records = dir.join("held.jsonl");
    let written = Command::new(host_bin())
        .args(["ladder", "--db", file, "records", "--bot", "held", "--out", records.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let record: Value = std::fs::read_to_string(&records)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["game_id"] == held_id.as_str())
        .expect("the held game was saved");
    // alpha's page named the held game as running exactly when alpha played it.
    let alpha_plays = record["bots"]["red"]["name"] == "alpha" || record["bots"]["blue"]["name"] == "alpha";
    let alpha_running = if alpha_plays { serde_json::json!([held_id]) } else { serde_json::json!([]) };
    assert_eq!(bot["running"], alpha_running, "{bot}");
    let html = holder["html"].as_str().unwrap();
    for side in ["red", "blue"] {
        let setup = record["deployments"][side].as_str().unwrap();
        assert!(setup.len() > 20, "{setup}");
        assert!(!html.contains(setup), "{side}'s setup of the running game is on its bot's page");
    }
    assert!(!html.contains("data-piece") && !html.contains("data-square"), "no board on a bot's page");
}
