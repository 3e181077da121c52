//! The HTML viewer in a real browser: a game played by the host binary is exported with
//! `stratego_host::display::files::viewer::export_html`, headless Chromium opens the page and steps through
//! it with the page's own buttons (`tests/viewer/drive.mjs`), and the board the DOM shows
//! in each view is compared with the position the rules crate gives at that ply. One bot's
//! name and info line are hostile HTML, which must stay text.
//!
//! Needs Debian's `chromium` and Node (`.ci/run` installs both); fails when they are missing.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use stratego_host::display::files::viewer::export_html;
use stratego_rules::Color;
use stratego_tests::read_records;
use stratego_tests::{TempDir, expected_board, run_match};

const MISSING: &str = "this test needs Debian's chromium (tests/run.sh, the README's test command, installs it)";
const NASTY: &str = "</script><script>alert(1)</script><!--";
/// The ply the browser is taken to (at least; the first test goes on to the first fight).
const PLY: usize = 10;

fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".into())
}

/// The pieces each side has lost after `ply` plies of `record`, as the viewer lists them
/// (rank codes, strongest first), by the rules crate.
fn expected_captured(record: &stratego_protocol::record::GameRecord, ply: usize) -> BTreeMap<&'static str, String> {
    use stratego_rules::{Deployment, Game, Rank, Ruleset};
    let rules = Ruleset::try_from(record.ruleset.clone()).unwrap();
    let red = Deployment::parse(&rules, Color::Red, record.deployments.red.as_deref().unwrap()).unwrap();
    let blue = Deployment::parse(&rules, Color::Blue, record.deployments.blue.as_deref().unwrap()).unwrap();
    let mut game = Game::new(rules, &red, &blue).unwrap();
    for p in &record.plies[..ply] {
        game.play(p.ply.mv).unwrap();
    }
    [("red", Color::Red), ("blue", Color::Blue)]
        .into_iter()
        .map(|(name, c)| {
            let lost = &game.captured()[c];
            let codes = Rank::STRONGEST_FIRST.iter().flat_map(|&r| std::iter::repeat_n(r.code(), lost[r] as usize));
            (name, codes.collect())
        })
        .collect()
}

fn as_board(v: &Value) -> BTreeMap<String, String> {
    v.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned())).collect()
}

#[test]
fn the_viewer_shows_each_view_of_a_played_game_in_a_browser() {
    let found = Command::new(chromium()).arg("--version").output();
    assert!(found.is_ok_and(|o| o.status.success()), "{MISSING}");
    assert!(
        Command::new("node").arg("--version").output().is_ok(),
        "this test needs Node (tests/run.sh, the README's test command, installs nodejs)"
    );

    let dir = TempDir::new("viewer-browser");
    let out = run_match(&[
        "sample-bot --strategy random",
        "sample-bot",
        "--games",
        "2",
        "--seed",
        "3",
        "--out",
        dir.0.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut records = read_records(&dir.join("games.jsonl")).unwrap();
    records.sort_by_key(|r| r.index);
    assert_eq!(records.len(), 2);
    // The second game, shown through the game selector, carries hostile text.
    let game = &mut records[1];
    // The ply shown: the first after a fight (so that a piece has been captured), at least PLY.
    let fight = game.plies.iter().position(|p| p.ply.combat.is_some()).expect("game 2 has a fight");
    let ply = (fight + 1).max(PLY);
    assert!(game.plies.len() > ply + 2, "game 2 is too short for the test: {} plies", game.plies.len());
    game.bots.red.name = NASTY.into();
    game.bots.blue.info.push(format!("info {NASTY} & \u{2028} end"));
    game.result.message = format!("{} {NASTY}", game.result.message);
    // A third game never started: Blue gave no valid setup.
    let mut forfeit = records[0].clone();
    forfeit.deployments.blue = None;
    forfeit.plies.clear();
    forfeit.result.winner = Some(Color::Red);
    forfeit.result.reason = stratego_protocol::reason::Reason::InvalidSetup;
    forfeit.result.message = "Blue forfeits: invalid setup".into();
    forfeit.result.faulty = Some(Color::Blue);
    records.push(forfeit);

    let html = export_html(&records, &format!("viewer test {NASTY}")).unwrap();
    assert!(!html.contains(NASTY), "the hostile text appears only escaped");
    let page = dir.join("viewer.html");
    std::fs::write(&page, &html).unwrap();
    let shot = dir.join("viewer.png");

    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("viewer/drive.mjs");
    let started = Instant::now();
    let run = Command::new("node")
        .arg(&driver)
        .args(["--html", page.to_str().unwrap(), "--ply", &ply.to_string(), "--game", "1"])
        .args(["--views", "spectator,red,blue", "--screenshot", shot.to_str().unwrap(), "--also-game", "2"])
        .output()
        .expect("run node");
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_ne!(run.status.code(), Some(3), "{MISSING}\n{stderr}");
    assert_eq!(run.status.code(), Some(0), "the driver failed:\n{stderr}");
    let result: Value = serde_json::from_slice(&run.stdout).expect("the driver prints JSON");
    eprintln!("browser run: {elapsed:.2?} (driver: {} ms)", result["elapsed_ms"]);

    // The page ran without errors and nothing from the records became markup or script.
    let problems = &result["problems"];
    for kind in ["exceptions", "console_errors", "dialogs"] {
        assert_eq!(problems[kind], serde_json::json!([]), "{kind}: {problems}");
    }
    assert_eq!(result["script_elements"], 2, "only the page's own scripts");
    assert_eq!(result["title"], format!("viewer test {NASTY}"));
    let players: Vec<&str> =
        result["texts"]["players"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(players.contains(&NASTY), "the name is shown as text: {players:?}");
    assert!(result["texts"]["result"].as_str().unwrap().contains(NASTY));

    // The controls reached the ply.
    assert_eq!(result["game_count"], 3);
    assert_eq!(result["selected_game"], "1");
    assert_eq!(result["ply_after_clicks"], ply);
    assert_eq!(result["ply_after_slider"], 0);
    assert_eq!(result["ply_after_row_click"], ply);

    // The positions were computed in the browser, by the rules crate compiled to
    // WebAssembly: the page carries the moves only.
    assert_eq!(result["engine"], "wasm", "the page ran its WebAssembly module");
    assert!(!html.contains("\"states\"") && !html.contains("\"boards\""), "no position is in the page");

    // Each view's board is the rules crate's position at that ply.
    let record = &records[1];
    for (view, viewer) in [("spectator", None), ("red", Some(Color::Red)), ("blue", Some(Color::Blue))] {
        let shown = as_board(&result["boards"][view]);
        assert_eq!(shown, expected_board(record, ply, viewer), "{view}'s view at ply {ply}");
    }
    // The pieces lost by that ply, and each ply's fight in the move list, as the rules give
    // them (the game has fights).
    let captured = expected_captured(record, ply);
    assert!(captured.values().any(|c| !c.is_empty()), "a piece was captured by ply {ply}");
    for side in ["red", "blue"] {
        let want = if captured[side].is_empty() { "nothing".to_owned() } else { captured[side].clone() };
        assert_eq!(result["texts"]["captured"][side], want.as_str(), "{side} lost by ply {ply}");
    }
    let fights: Vec<&str> = result["texts"]["fights"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(fights.len(), record.plies.len(), "a fight cell per ply (the start row has none)");
    assert_eq!(result["texts"]["move_rows"], record.plies.len() + 1);
    let mut fought = 0;
    for (i, p) in record.plies.iter().enumerate() {
        match p.ply.combat {
            Some(c) => {
                let head = format!("{}\u{d7}{}: ", c.attacker.code(), c.defender.code());
                assert!(fights[i].starts_with(&head), "ply {}: {:?}, want {head}", i + 1, fights[i]);
                fought += 1;
            }
            None => assert!(!fights[i].contains('\u{d7}'), "ply {}: no fight, shown {:?}", i + 1, fights[i]),
        }
    }
    assert!(fought > 0, "the game has fights");
    let hidden = |view: &str, side: &str| {
        result["boards"][view].as_object().unwrap().values().filter(|v| *v == &format!("{side}:?")).count()
    };
    assert!(hidden("red", "blue") > 30 && hidden("blue", "red") > 30, "the bots' views hide opponent ranks");
    assert_eq!(hidden("spectator", "red") + hidden("spectator", "blue"), 0);

    // The game without setups shows its result and no board.
    let forfeit = &result["also_game"];
    assert_eq!(forfeit["board_hidden"], true, "{forfeit}");
    assert!(forfeit["no_board"].as_str().unwrap().contains("no valid setup from blue"), "{forfeit}");
    assert!(forfeit["result"].as_str().unwrap().contains("Red wins (invalid setup)"), "{forfeit}");

    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 20_000, "a real screenshot: {} bytes", png.len());
    if let Ok(keep) = std::env::var("STRATEGO_VIEWER_KEEP") {
        std::fs::copy(&page, Path::new(&keep).join("viewer.html")).unwrap();
        std::fs::copy(&shot, Path::new(&keep).join("viewer.png")).unwrap();
    }
}

/// `stratego-host export` writes the viewer of a run's records; an unknown game id is a
/// usage error naming the games there are.
#[test]
fn the_export_command_writes_a_self_contained_page() {
    let dir = stratego_tests::TempDir::new("export-cli");
    let out = stratego_tests::run_match(&["--games", "2", "--seed", "4", "--out", dir.0.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = dir.join("game.html");
    let run = |args: &[&str]| {
        std::process::Command::new(stratego_tests::host_bin()).arg("export").args(args).output().unwrap()
    };
    let ok = run(&[dir.0.to_str().unwrap(), "--game", "0000000000000004-2", "--html", html.to_str().unwrap()]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("0000000000000004-2") && !page.contains("0000000000000004-1"));
    assert!(!page.contains("http://") && !page.contains("https://"), "no network");
    let bad = run(&[dir.0.to_str().unwrap(), "--game", "nope", "--html", html.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("0000000000000004-1"));
}

/// A match's index page (`--out DIR`) in the browser: its links are the games, and
/// following one opens that game's viewer, whose board is the rules' position in each view.
#[test]
fn the_index_page_links_each_game_s_viewer_in_a_browser() {
    let found = Command::new(chromium()).arg("--version").output();
    assert!(found.is_ok_and(|o| o.status.success()), "{MISSING}");
    let dir = TempDir::new("index-browser");
    let out = run_match(&[
        "sample-bot --strategy random",
        "sample-bot",
        "--games",
        "2",
        "--seed",
        "3",
        "--out",
        dir.0.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut records = read_records(&dir.join("games.jsonl")).unwrap();
    records.sort_by_key(|r| r.index);
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("viewer/drive.mjs");
    let index = dir.join("index.html");
    let run = Command::new("node")
        .arg(&driver)
        .args(["--html", index.to_str().unwrap(), "--follow-link", "1", "--ply", &PLY.to_string()])
        .output()
        .expect("run node");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_ne!(run.status.code(), Some(3), "{MISSING}\n{stderr}");
    assert_eq!(run.status.code(), Some(0), "the driver failed:\n{stderr}");
    let result: Value = serde_json::from_slice(&run.stdout).expect("the driver prints JSON");
    for kind in ["exceptions", "console_errors", "dialogs"] {
        assert_eq!(result["problems"][kind], serde_json::json!([]), "{kind}: {}", result["problems"]);
    }
    let links: Vec<&str> = result["index"]["links"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(links.len(), 2, "{links:?}");
    let names: Vec<&str> = result["index"]["ranking"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(names, ["sample-bot-random", "sample-bot-heuristic"]);
    // The link followed is the second game's page, and the browser is on it.
    let followed = result["index"]["followed"].as_str().unwrap();
    assert!(followed.contains(&records[1].game_id), "{followed}");
    let url = result["url"].as_str().unwrap();
    assert!(url.split('#').next().unwrap().ends_with(followed), "{url}");
    assert_eq!(result["game_count"], 1);
    assert_eq!(result["engine"], "wasm", "the page beside its script ran the WebAssembly module");
    assert_eq!(result["ply_after_clicks"], PLY);
    for (view, viewer) in [("spectator", None), ("red", Some(Color::Red)), ("blue", Some(Color::Blue))] {
        let shown = as_board(&result["boards"][view]);
        assert_eq!(shown, expected_board(&records[1], PLY, viewer), "{view}'s view at ply {PLY}");
    }
}
